#!/usr/bin/env python3
"""The performance guard CI runs (issue 42): ubiq's figures as ratios to what this machine
does in the same run, against a baseline committed in the repo; fails past 1.5x.

Usage: bench/guard.py [--bin DIR] [--runs N] [--baseline FILE] [--write-baseline REASON]
                      [--json FILE]

Each run measures what the machine itself does with the same bytes on the same disk (`cp` of
the big file; a `find` that stats every file of the many-files tree; SHA-256 on one core), then ubiq's figures at guard sizes (run.py's
scenarios: two release agents on loopback, and one agent indexing a tree it finds full).
Each figure is divided by its reference, so a machine twice as slow gives the same ratios;
the median of the runs is compared with the baseline. Memory is compared in MiB: it does not
move with the machine's speed. The guard prints every figure beside its baseline and exits 1
when one is more than --limit times its baseline; --write-baseline stores this run's medians
instead, with the reason, for a change that moves a figure on purpose.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host, limits, report, run, workload  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "bench", "guard-baseline.json")
MIB = 1 << 20
GIB = 1 << 30

# What each figure is, the unit of its ratio; all are "lower is better".
FIGURES = {
    "initial_per_sha": "initial sync of the big file ÷ one SHA-256 pass over it",
    "initial_per_cp": "initial sync of the big file ÷ `cp` of it",
    "overwrite_per_sha": "1 MiB overwritten in the big file ÷ one SHA-256 pass over it",
    "insert_per_sha": "100 bytes inserted in the big file ÷ one SHA-256 pass over it",
    "small_per_sha": "the small files ÷ one SHA-256 pass over 1 GiB",
    "receiver_cpu_per_sha": "the receiver's CPU-seconds per GiB received ÷ SHA-256 seconds per GiB",
    "index_per_walk": "first index of the many-files tree ÷ a `find` that stats every file",
    "rescan_per_walk": "idle rescan of the many-files tree ÷ the same `find`",
    "sender_mib": "peak memory of the sender, MiB",
    "receiver_mib": "peak memory of the receiver, MiB",
    "many_mib": "peak memory of the agent indexing the many-files tree, MiB",
}


def sizes():
    # 128 MiB: the big-file figures take a few tenths of a second in a release build, well
    # above the timer's and the watcher's granularity, and the whole guard under 2 minutes.
    return workload.Sizes(big=128 * MIB, small_count=1000, latency_samples=5, watcher_samples=0, kv_samples=5,
                          many=20_000, settle_s=0.5, doc_gap_s=0.3)


def timed(command):
    t0 = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def fastest(command, made=None):
    """The shortest of three runs of `command`, removing what it made after each."""
    times = []
    for _ in range(3):
        times.append(timed(command))
        if made and os.path.isdir(made):
            shutil.rmtree(made)
        elif made:
            os.unlink(made)
    return min(times)


def references(data, seed, log):
    """What the machine does with the run's bytes, beside the agents: seconds of the copy and
    of the stat walk, SHA-256 MiB/s."""
    work = tempfile.mkdtemp(prefix="bench-guard-")
    try:
        big = os.path.join(work, "big.bin")
        with open(big, "wb") as f:
            f.write(data.big)
        tree = os.path.join(work, "tree")
        workload.make_tree(tree, data.sizes.many, seed)
        subprocess.run(["sync", "-f", work], check=True)
        # Into the page cache, not flushed, the fastest of three: how fast this disk (ext4
        # mounted with `discard`) took writeback and new files moved 4-10x from run to run,
        # after the previous run's files were deleted (cp of the 1,000 small files, flushed:
        # 0.07-1.06 s; not flushed, 0.09-0.94 s). So the small files, a cost of the agents'
        # CPU more than of the disk, are measured against SHA-256, not against a copy.
        refs = {
            "cp_big": fastest(["cp", big, big + ".copy"], big + ".copy"),
            # -printf of the size makes find stat every file, as a scan does.
            "walk": fastest(["find", tree, "-printf", "%s %T@\n"]),
            "sha256": limits.sha256_mib_s(1),
        }
        log(f"references: {', '.join(f'{k} {v:.3f}' for k, v in refs.items())}")
        return refs
    finally:
        shutil.rmtree(work, ignore_errors=True)


def ratios(record, refs, big):
    """One run's figures divided by their references."""
    main = record["results"]["ubiq"]["runs"][0]
    many = record["results"]["ubiq"]["many"][0]
    sha_pass = big / MIB / refs["sha256"]
    received = sum(main[k]["bytes"] for k in ("initial", "overwrite", "insert", "small"))
    return {
        "initial_per_sha": main["initial"]["seconds"] / sha_pass,
        "initial_per_cp": main["initial"]["seconds"] / refs["cp_big"],
        "overwrite_per_sha": main["overwrite"]["seconds"] / sha_pass,
        "insert_per_sha": main["insert"]["seconds"] / sha_pass,
        "small_per_sha": main["small"]["seconds"] / (GIB / MIB / refs["sha256"]),
        "receiver_cpu_per_sha": (main["cpu"][1] / (received / GIB)) / (GIB / MIB / refs["sha256"]),
        "index_per_walk": many["index"] / refs["walk"],
        "rescan_per_walk": many["rescan"] / refs["walk"],
        "sender_mib": main["rss"][0],
        "receiver_mib": main["rss"][1],
        "many_mib": many["rss"],
    }


def measure(args, log):
    s = sizes()
    per_run, failures = [], []
    for i in range(args.runs):
        # run.measure's first run uses seed 0 for its data and tree; the references take the same.
        refs = references(workload.Data(0, s), 0, log)
        options = SimpleNamespace(bin=args.bin, tools=["ubiq"], groups={"main", "many"}, runs=1, sizes=s, keep=False,
                                  ci=True, mode="guard")
        record = run.measure(options)
        failures += report.bound_failures(record["results"], s)
        per_run.append({"references": refs, "ratios": ratios(record, refs, s.big)})
        log(f"run {i + 1}: {', '.join(f'{k} {v:.2f}' for k, v in per_run[-1]['ratios'].items())}")
    medians = {k: statistics.median(r["ratios"][k] for r in per_run) for k in FIGURES}
    return medians, per_run, failures


def table(medians, baseline, limit):
    lines = [f"| figure | baseline | this run (median) | this ÷ baseline | limit {limit}× |", "| --- | --- | --- | --- | --- |"]
    over = []
    for key, what in FIGURES.items():
        base = baseline.get(key)
        now = medians[key]
        factor = now / base if base else None
        verdict = "no baseline" if factor is None else ("**over**" if factor > limit else "ok")
        if factor is not None and factor > limit:
            over.append(f"{what}: {now:.2f} against {base:.2f} ({factor:.2f}×)")
        lines.append(f"| {what} | {base if base is None else f'{base:.2f}'} | {now:.2f} | "
                     f"{'' if factor is None else f'{factor:.2f}'} | {verdict} |")
    return "\n".join(lines), over


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"), help="folder holding a release ubiq and ubiqd")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--limit", type=float, default=1.5, help="how many times its baseline a figure may be (default 1.5)")
    p.add_argument("--baseline", default=BASELINE)
    p.add_argument("--write-baseline", metavar="REASON", help="store this run's medians as the baseline, with the reason")
    p.add_argument("--json", help="also write every run's references and ratios to this file")
    args = p.parse_args()
    if run.build_kind(args.bin) != "release":
        p.error("the guard's baseline is of a release build: pass --bin .build/release")
    log = run.log
    medians, per_run, failures = measure(args, log)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"medians": medians, "runs": per_run}, f, indent=1)
    for failure in failures:
        log(f"above the bound: {failure}")
    if args.write_baseline:
        stored = {"measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": host.machine(),
                  "runs": args.runs, "reason": args.write_baseline, "figures": {k: round(v, 3) for k, v in medians.items()}}
        with open(args.baseline, "w") as f:
            json.dump(stored, f, indent=1)
            f.write("\n")
        log(f"wrote the baseline to {os.path.relpath(args.baseline, ROOT)}")
    with open(args.baseline) as f:
        baseline = json.load(f)
    text, over = table(medians, baseline["figures"], args.limit)
    print(f"Baseline of {baseline['measured']} ({baseline['reason']}); this run: {args.runs} runs.\n\n{text}\n")
    for line in over:
        log(f"REGRESSION: {line}")
    if over or failures:
        log("the performance guard failed: a figure is past its limit (fix it, or update the baseline "
            "on purpose with --write-baseline REASON and say why in the commit)" if over else
            "the performance guard failed: bytes received above the bounds")
        sys.exit(1)
    log("the performance guard passed")


if __name__ == "__main__":
    main()
