#!/usr/bin/env python3
"""Benchmarks ubiq and Syncthing side by side on loopback and prints Markdown tables.

Usage: bench/run.py [--bin DIR] [--tools ubiq,syncthing] [--quick | --ci] [--runs N]
                    [--only main,kv,many,limits] [--many N] [--keep] [--write-docs] [--json FILE]

Each run makes its seeded data once, then runs the same scenarios (workload.py) on each
tool in turn: two agents of the tool on loopback, one writing, one receiving; one tool is
stopped before the next starts. docs/benchmarks.md says what each figure means. Nothing
here talks to anything but 127.0.0.1 (each tool's sockets are checked with `ss`).
"""
import argparse, json, os, shutil, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host, limits, report, workload  # noqa: E402
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
                                  "many (a container of many files), limits (SHA-256, loopback); default main,limits")
    p.add_argument("--many", type=int, help="files in the many-files container (default 100,000; 2,000 quick; 500 CI)")
    p.add_argument("--keep", action="store_true", help="keep the agents' folders and logs")
    p.add_argument("--write-docs", action="store_true", help="write the tables into a dated section of docs/benchmarks.md")
    p.add_argument("--json", help="also write the raw figures to this file")
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
    groups = {"main", "many", "limits"} if args.ci else {"main", "limits"}
    args.groups = set(args.only.split(",")) if args.only else groups
    unknown = args.groups - {"main", "kv", "many", "limits"}
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


def runs(args):
    return "1 run" if args.runs == 1 else f"{args.runs} runs"


def header(args, load, what):
    build = "release" if "release" in os.path.abspath(args.bin) else "debug"
    versions = []
    if "syncthing" in args.tools:
        versions.append(f"Syncthing {syncthing_side.version()} (Debian's package)")
    compiling = f"; a compiler ran during {load['compiling']:.0%} of it" if load["compiling"] > 0 else ""
    shared = (" **Shared machine:** times are pessimistic; bytes are firm."
              if load["compiling"] > 0 or load["other_cores"] > 0.15 else "")
    command = "bench/run.py " + " ".join(sys.argv[1:])
    if args.built:
        versions.insert(0, f"ubiq {build} build (ubiqd of {args.built})")
    return (f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {host.machine()}; "
            f"{', '.join(versions)}. `{command}`: {what}, min / median / max. "
            f"Other processes used {load['other_cores']:.2f} of the {os.cpu_count()} cores on average during the "
            f"run{compiling}.{shared}")


def main():
    args = parse()
    log(f"tools: {', '.join(args.tools)}; groups: {', '.join(sorted(args.groups))}; {args.runs} runs, {args.mode} sizes")
    results = {t: {"runs": [], "many": []} for t in ("ubiq", "syncthing")}
    # A private copy of the binaries, so that a rebuild during the runs cannot mix builds.
    args.agents = tempfile.mkdtemp(prefix="bench-bin-")
    args.built = None
    if "ubiq" in args.tools or "kv" in args.groups:
        for name in ("ubiq", "ubiqd"):
            shutil.copy2(os.path.join(args.bin, name), args.agents)
        args.built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(os.path.join(args.bin, "ubiqd"))))
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
            if "limits" in args.groups:
                samples.append(limits.measure(0.5 if args.ci else 2))
    except TimeoutError as e:
        log(f"FAILED: {e}")
        sys.exit(1)
    finally:
        load = load.finish()
        shutil.rmtree(args.agents, ignore_errors=True)
    wall = time.monotonic() - started

    blocks = {}
    if "main" in args.groups:
        note = report.wire_note(results, args.tools)
        blocks["main"] = (header(args, load, f"{runs(args)} of each figure" + (", the tools on the same seeded data, one after the other" if len(args.tools) > 1 else "")) +
                          "\n\n" + report.main_table(results, args.sizes, args.tools) + ("\n\n" + note if note else ""))
    elif "kv" in args.groups:
        rs = results["ubiq"]["runs"]
        blocks["kv"] = (header(args, load, runs(args)) + "\n\n| figure | ubiq |\n| --- | --- |\n"
                        f"| a key-value change seen by a subscriber on the other agent, median of {args.sizes.kv_samples} | "
                        f"{report.summary([statistics.median(r['kv']) for r in rs], 'ms', 1000, 2)} |\n"
                        f"| the same, 95th percentile | {report.summary([workload.percentile(r['kv'], 95) for r in rs], 'ms', 1000, 2)} |")
    if "many" in args.groups:
        blocks["many"] = (header(args, load, f"{runs(args)}, one agent alone indexing a folder it finds full") +
                          "\n\n" + report.many_table(results, args.sizes.many, args.tools))
    if "limits" in args.groups:
        blocks["limits"] = "What this machine allows at most, beside the figures above:\n\n" + report.limits_table(samples)
    for text in blocks.values():
        print(text + "\n")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": {k: v for k, v in vars(args).items() if k != "sizes"}, "sizes": vars(args.sizes),
                       "load": load, "results": results, "limits": samples}, f, indent=1, default=list)
    if args.write_docs:
        build = "release" if "release" in os.path.abspath(args.bin) else "debug"
        heading = f"## {time.strftime('%Y-%m-%d', time.gmtime())}, ubiq {build} build, {args.mode} sizes"
        report.write_docs(DOCS, heading, {k: v for k, v in blocks.items() if k != "kv"})
        log(f"wrote {heading[3:]} into {os.path.relpath(DOCS, ROOT)}")

    failures = report.bound_failures(results, args.sizes) if "main" in args.groups else []
    for f in failures:
        log(f"above the bound: {f}")
    log(f"done in {wall:.1f} s")
    if args.ci and failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
