#!/usr/bin/env python3
"""Benchmarks ubiq and Syncthing side by side on loopback and prints Markdown tables.

Usage: bench/run.py [--bin DIR] [--tools ubiq,syncthing] [--quick | --ci] [--runs N]
                    [--only main,kv,many,flood,limits,records] [--many N] [--keep] [--write-docs]
                    [--json FILE | --render FILE]

Each run makes its seeded data once, then runs the same scenarios (workload.py) on each
tool in turn: two agents of the tool on loopback, one writing, one receiving; one tool is
stopped before the next starts. docs/benchmarks.md says what each figure means. Nothing
here talks to anything but 127.0.0.1 (each tool's sockets are checked with `ss`).
"""
import argparse, json, os, shutil, sys, tempfile, textwrap, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host, limits, records, report, workload  # noqa: E402
import syncthing_side, ubiq_side  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "benchmarks.md")


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"), help="folder holding ubiq and ubiqd")
    p.add_argument("--tools", help="comma-separated: ubiq, syncthing (default: both when syncthing is on PATH)")
    p.add_argument("--quick", action="store_true", help="small sizes: seconds, not minutes")
    p.add_argument("--ci", action="store_true",
                   help="CI sizes, one run; fails only on a run that does not converge or bytes received above the bounds")
    p.add_argument("--runs", type=int, help="runs of each figure (default 3; 1 with --ci)")
    p.add_argument("--only", help="comma-separated groups: main (sync figures), kv (the key-value latency alone), "
                                  "many (a container of many files), flood (a hostile peer), limits (SHA-256, loopback), "
                                  "records (record stores: save to import, 10,000 transactions, bytes a transaction); "
                                  "default main,flood,limits; --ci main,many,limits,records")
    p.add_argument("--many", type=int, help="files in the many-files container (default 100,000; 2,000 quick; 500 CI)")
    p.add_argument("--keep", action="store_true", help="keep the agents' folders and logs")
    p.add_argument("--write-docs", action="store_true", help="write the tables into a dated section of docs/benchmarks.md")
    p.add_argument("--json", help="also write the raw figures to this file")
    p.add_argument("--render", help="measure nothing: make the tables from raw figures written by --json")
    args = p.parse_args()
    if args.tools:
        args.tools = [t.strip().lower() for t in args.tools.split(",") if t.strip()]
        unknown = set(args.tools) - {"ubiq", "syncthing"}
        if unknown:
            p.error(f"unknown tools: {', '.join(sorted(unknown))}")
        if "syncthing" in args.tools and not syncthing_side.available():
            p.error("syncthing is not on PATH (Debian: apt-get install syncthing)")
    else:
        args.tools = ["ubiq"] + (["syncthing"] if syncthing_side.available() else [])
    # records: 12.5 s at the CI sizes with a debug build on a quiet machine, so CI runs it; not by
    # default, since at full sizes the import of 10,000 transactions took minutes (docs/benchmarks.md).
    groups = {"main", "many", "limits", "records"} if args.ci else {"main", "flood", "limits"}
    args.groups = set(args.only.split(",")) if args.only else groups
    unknown = args.groups - {"main", "kv", "many", "flood", "limits", "records"}
    if unknown:
        p.error(f"unknown groups: {', '.join(sorted(unknown))}")
    args.runs = args.runs or (1 if args.ci else 3)
    args.sizes = workload.Sizes.ci() if args.ci else workload.Sizes.quick() if args.quick else workload.Sizes.full()
    if args.many:
        args.sizes.many = args.many
    args.mode = "CI" if args.ci else "quick" if args.quick else "full"
    return args


class Workspace:
    """A temporary folder, removed at the end unless --keep."""

    def __init__(self, keep, prefix):
        self.keep = keep
        self.path = tempfile.mkdtemp(prefix=prefix)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.keep:
            log(f"kept {self.path}")
        else:
            shutil.rmtree(self.path, ignore_errors=True)


def make_pair(tool, bindir, work):
    return ubiq_side.UbiqPair(bindir, work) if tool == "ubiq" else syncthing_side.SyncthingPair(work)


def run_main(args, run, results):
    log(f"run {run + 1}: making the seeded data")
    data = workload.Data(run, args.sizes)
    order = args.tools if run % 2 == 0 else list(reversed(args.tools))
    for tool in order:
        with Workspace(args.keep, f"bench-{tool}-") as work:
            side = make_pair(tool, args.agents, os.path.join(work, "agents"))
            staging = os.path.join(work, "staging")
            os.makedirs(staging)
            workload.prepare_dirs(side)
            log(f"run {run + 1}: {side.name}")
            side.start()
            try:
                results[tool]["runs"].append(workload.run_pair(side, data, staging, log))
            finally:
                side.stop()


def run_kv(args, results):
    with Workspace(args.keep, "bench-kv-") as work:
        side = ubiq_side.UbiqPair(args.agents, work)
        side.start()
        try:
            results["ubiq"]["runs"].append({"kv": side.kv_latencies(args.sizes.kv_samples)})
        finally:
            side.stop()


def run_flood(args, results):
    with Workspace(args.keep, "bench-flood-") as work:
        side = ubiq_side.UbiqFlood(args.agents, work)
        if not side.available():
            log("flood: this build has no ubiq-bench-flood")
            return
        try:
            results["ubiq"]["flood"].append(side.run(args.sizes.flood_s))
        finally:
            side.stop()
        log(f"flood: {len(results['ubiq']['flood'][-1]['status'])} status answers")


def run_many(args, run, results):
    n = args.sizes.many
    with Workspace(args.keep, "bench-many-") as work:
        root = os.path.join(work, "container")
        log(f"making {n:,} files")
        workload.make_tree(root, n, run)
        for tool in (args.tools if run % 2 == 0 else list(reversed(args.tools))):
            workload.clear_markers(root)
            home = os.path.join(work, tool)
            single = ubiq_side.UbiqSingle(args.agents, home, root) if tool == "ubiq" else syncthing_side.SyncthingSingle(home, root)
            try:
                results[tool]["many"].append(workload.run_many(single, n, log))
            finally:
                single.stop()
            log(f"{single.name}: {results[tool]['many'][-1]}")


def run_records(args, run, results):
    with Workspace(args.keep, "bench-records-") as work:
        log(f"run {run + 1}: record stores")
        results["ubiq"]["records"].append(records.run(args.agents, work, args.sizes, log))


def measure(args):
    """Runs the chosen groups; returns the record the tables are made from."""
    log(f"tools: {', '.join(args.tools)}; groups: {', '.join(sorted(args.groups))}; {args.runs} runs, {args.mode} sizes")
    results = {t: {"runs": [], "many": [], "flood": [], "records": []} for t in ("ubiq", "syncthing")}
    versions = []
    # A private copy of the binaries, so that a rebuild during the runs cannot mix builds.
    args.agents = tempfile.mkdtemp(prefix="bench-bin-")
    if "ubiq" in args.tools or "kv" in args.groups:
        for name in ("ubiq", "ubiqd", "ubiq-bench-flood"):
            if os.path.exists(os.path.join(args.bin, name)):
                shutil.copy2(os.path.join(args.bin, name), args.agents)
        built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(os.path.join(args.bin, "ubiqd"))))
        versions.append(f"ubiq {build_kind(args.bin)} build (ubiqd of {built})")
    if "syncthing" in args.tools:
        versions.append(f"Syncthing {syncthing_side.version()} (Debian's package)")
    samples = []
    started = time.monotonic()
    load = host.LoadWatch()
    try:
        for run in range(args.runs):
            if "main" in args.groups:
                run_main(args, run, results)
            elif "kv" in args.groups:
                run_kv(args, results)
            if "many" in args.groups:
                run_many(args, run, results)
            if "flood" in args.groups and "ubiq" in args.tools:
                run_flood(args, results)
            if "records" in args.groups and "ubiq" in args.tools:
                run_records(args, run, results)
            if "limits" in args.groups:
                samples.append(limits.measure(0.5 if args.ci else 2))
    finally:
        load = load.finish()
        shutil.rmtree(args.agents, ignore_errors=True)
    return {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": host.machine(), "cores": os.cpu_count(),
            "versions": versions, "command": "bench/run.py " + " ".join(sys.argv[1:]), "build": build_kind(args.bin),
            "mode": args.mode, "tools": args.tools, "groups": sorted(args.groups), "runs": args.runs,
            "sizes": vars(args.sizes), "load": load, "wall": time.monotonic() - started,
            "results": results, "limits": samples}


def build_kind(bindir):
    return "release" if "release" in os.path.abspath(bindir) else "debug"


def header(record, what):
    load = record["load"]
    compiling = f"; a compiler ran during {load['compiling']:.0%} of it" if load["compiling"] > 0 else ""
    shared = (" **Shared machine:** times are pessimistic; bytes are firm."
              if load["compiling"] > 0 or load["other_cores"] > 0.15 else "")
    text = (f"Measured {record['when']} on {record['machine']}; {', '.join(record['versions'])}. "
            f"`{record['command']}`: {what}, min / median / max. Other processes used {load['other_cores']:.2f} of the "
            f"{record['cores']} cores on average during the run{compiling}.{shared}")
    return wrap(text)


def wrap(text):
    return textwrap.fill(text, 92, break_long_words=False, break_on_hyphens=False)


def render(record):
    """The Markdown blocks of a record: main, kv, many, flood, records, limits (those measured)."""
    sizes = workload.Sizes(**record["sizes"])
    tools, results, groups = record["tools"], record["results"], set(record["groups"])
    n = record["runs"]
    runs = "1 run" if n == 1 else f"{n} runs"
    blocks = {}
    if "main" in groups:
        both = ", the tools on the same seeded data, one after the other" if len(tools) > 1 else ""
        note = report.wire_note(results, tools)
        blocks["main"] = (header(record, f"{runs} of each figure{both}") + "\n\n" + report.main_table(results, sizes, tools)
                          + ("\n\n" + wrap(note) if note else ""))
    elif "kv" in groups:
        blocks["kv"] = header(record, runs) + "\n\n" + report.kv_table(results, sizes)
    if "many" in groups:
        blocks["many"] = (header(record, f"{runs}, one agent alone indexing a folder it finds full") + "\n\n"
                          + report.many_table(results, sizes.many, tools))
    if "flood" in groups and results["ubiq"].get("flood"):
        blocks["flood"] = (header(record, f"{runs}, one agent flooded with index updates by a hostile peer of its account") + "\n\n"
                           + report.flood_table(results["ubiq"]["flood"]))
    if "records" in groups and results["ubiq"].get("records"):
        blocks["records"] = (header(record, f"{runs}, two agents of one account, ubiq only (record stores)") + "\n\n"
                             + report.records_table(results["ubiq"]["records"], sizes))
    if "limits" in groups:
        blocks["limits"] = "What this machine allows at most, beside the figures above:\n\n" + report.limits_table(record["limits"])
    return blocks


def main():
    args = parse()
    if args.render:
        with open(args.render) as f:
            record = json.load(f)
    else:
        try:
            record = measure(args)
        except TimeoutError as e:
            log(f"FAILED: {e}")
            sys.exit(1)
    blocks = render(record)
    for text in blocks.values():
        print(text + "\n")
    if args.json and not args.render:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    if args.write_docs:
        heading = f"## {record['when'][:10]}, ubiq {record['build']} build, {record['mode']} sizes"
        report.write_docs(DOCS, heading, {k: v for k, v in blocks.items() if k != "kv"})
        log(f"wrote {heading[3:]} into {os.path.relpath(DOCS, ROOT)}")

    sizes = workload.Sizes(**record["sizes"])
    failures = report.bound_failures(record["results"], sizes) if "main" in record["groups"] else []
    for f in failures:
        log(f"above the bound: {f}")
    log(f"done in {record['wall']:.1f} s")
    if args.ci and failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
