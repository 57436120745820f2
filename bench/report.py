"""Turns raw figures into Markdown tables (min / median / max over runs, one column pair
per tool), checks the bounds on bytes received, and writes a dated section of
docs/benchmarks.md."""
import re, statistics

from workload import percentile

NAMES = {"ubiq": "ubiq", "syncthing": "Syncthing"}


def summary(values, unit, scale=1.0, digits=3):
    v = sorted(x * scale for x in values if x is not None)
    if not v:
        return "n/a"
    return f"{v[0]:.{digits}f} / {statistics.median(v):.{digits}f} / {v[-1]:.{digits}f} {unit}".rstrip()


def _size(n):
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def main_table(results, sizes, tools):
    """The sync figures: rows of figures, a time and a bytes column per tool."""
    head = "| figure | " + " | ".join(f"{NAMES[t]} time | {NAMES[t]} received" for t in tools) + " |"
    rows = [head, "|" + " --- |" * (1 + 2 * len(tools))]
    runs = {t: results[t]["runs"] for t in tools}
    mib = sizes.big >> 20

    def transfer(label, key, unit, scale, digits):
        cells = []
        for t in tools:
            rs = runs[t]
            cells.append(summary([r[key]["seconds"] for r in rs], "s"))
            cells.append(summary([r[key]["bytes"] for r in rs], unit, scale, digits))
        rows.append(f"| {label} | " + " | ".join(cells) + " |")

    def timing(label, per_tool):
        cells = []
        for t in tools:
            cells += [per_tool(t) or "n/a", ""]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")

    def latency(key, fn):
        def cell(t):
            rs = [r for r in runs[t] if key in r]
            return summary([fn(r[key]) for r in rs], "ms", 1000, 1) if rs else None
        return cell

    transfer(f"initial sync of one {mib} MiB file", "initial", "MiB", 1 / 2**20, 1)
    transfer(f"1 MiB overwritten in the middle of {mib} MiB", "overwrite", "KiB", 1 / 1024, 0)
    transfer(f"100 bytes inserted near the start of {mib} MiB", "insert", "KiB", 1 / 1024, 0)
    total = next(iter(runs.values()))[0]["small"]["total"]
    transfer(f"{sizes.small_count:,} small files (1–16 KiB, nested folders, {_size(total)})", "small", "MiB", 1 / 2**20, 1)
    n = sizes.latency_samples
    timing(f"a new 1 KiB document readable on the other side, median of {n} (ubiq: its watcher; Syncthing: scan "
           f"requested through REST)", lambda t: latency("latency", statistics.median)(t))
    timing("the same, 95th percentile", lambda t: latency("latency", lambda v: percentile(v, 95))(t))
    w = sizes.watcher_samples
    if any("watcher" in r for rs in runs.values() for r in rs):
        timing(f"the same with Syncthing's default watcher (10 s delay), median of {w}",
               lambda t: latency("watcher", statistics.median)(t) or "as above (ubiq has only its watcher)")
    k = sizes.kv_samples
    timing(f"a key-value change seen by a subscriber on the other agent, median of {k}",
           lambda t: latency("kv", statistics.median)(t) or "none: Syncthing has no key-value store")
    timing("the same, 95th percentile",
           lambda t: latency("kv", lambda v: percentile(v, 95))(t) or "none")
    timing(f"`agent.status` on a second connection of the receiver during the initial sync of {mib} MiB: median; 99th percentile",
           lambda t: status_cell([r.get("status_during_transfer") for r in runs[t]]) or "none: Syncthing has no such socket")
    timing("CPU seconds of each agent, whole run",
           lambda t: f"sender {summary([r['cpu'][0] for r in runs[t]], 's', 1, 1)}; "
                     f"receiver {summary([r['cpu'][1] for r in runs[t]], 's', 1, 1)}")
    timing("peak memory of each agent",
           lambda t: f"sender {summary([r['rss'][0] for r in runs[t]], 'MiB', 1, 0)}; "
                     f"receiver {summary([r['rss'][1] for r in runs[t]], 'MiB', 1, 0)}")
    return "\n".join(rows)


def status_cell(runs):
    """Median and 99th percentile of each run's status latencies (min / median / max over
    runs), with the answers counted; None when no run probed."""
    runs = [r for r in runs if r]
    if not runs:
        return None
    return (f"{summary([statistics.median(r) for r in runs], 'ms', 1000, 1)}; {summary([percentile(r, 99) for r in runs], 'ms', 1000, 1)} "
            f"({min(len(r) for r in runs)}–{max(len(r) for r in runs)} answers a run)")


def wire_note(results, tools):
    """How the bytes the kernel counted on the agents' TCP connections compare with the
    tools' own counters (TLS records and handshakes are in the first, not the second)."""
    parts = []
    for t in tools:
        ratios = [r[k]["tcp"] / r[k]["bytes"] for r in results[t]["runs"]
                  for k in ("initial", "overwrite", "insert", "small") if r[k]["tcp"] and r[k]["bytes"]]
        if ratios:
            parts.append(f"{NAMES[t]} {min(ratios):.3f}–{max(ratios):.3f}×")
    if not parts:
        return ""
    return ("\"Received\" is what the receiving tool counted on its peer connection (ubiq: frames with their "
            "headers; Syncthing: `inBytesTotal` of `/rest/system/connections`). The kernel's count of bytes received "
            "on the same TCP connections (`ss -ti`, TLS records included) was " + ", ".join(parts) + " that.")


def kv_table(results, sizes):
    rs = results["ubiq"]["runs"]
    return "\n".join([
        "| figure | ubiq |", "| --- | --- |",
        f"| a key-value change seen by a subscriber on the other agent, median of {sizes.kv_samples} | "
        f"{summary([statistics.median(r['kv']) for r in rs], 'ms', 1000, 2)} |",
        f"| the same, 95th percentile | {summary([percentile(r['kv'], 95) for r in rs], 'ms', 1000, 2)} |"])


def many_table(results, n, tools):
    rows = ["| figure | " + " | ".join(NAMES[t] for t in tools) + " |", "|" + " --- |" * (1 + len(tools))]

    def row(label, fn):
        rows.append(f"| {label} | " + " | ".join(fn(results[t]["many"]) for t in tools) + " |")

    row(f"{n:,} files in a container (1–4 KiB): first index, from the agent's start", lambda rs: summary([r["index"] for r in rs], "s", 1, 1))
    row("idle full rescan (requested: ubiq `container.rescan`, Syncthing `POST /rest/db/scan`)",
        lambda rs: summary([r["rescan"] for r in rs], "s", 1, 2) if any(r["rescan"] is not None for r in rs)
        else "n/a (this build has no `container.rescan`)")
    row("`agent.status` on a second connection during the first index: median; 99th percentile",
        lambda rs: status_cell([r.get("status_during_index") for r in rs]) or "n/a")
    row("peak memory of the agent", lambda rs: summary([r["rss"] for r in rs], "MiB", 1, 0))
    row("CPU seconds of the agent, index and rescan", lambda rs: summary([r["cpu"] for r in rs], "s", 1, 1))
    return "\n".join(rows)


def flood_table(runs):
    seconds = runs[0]["seconds"]
    return "\n".join([
        "| figure | ubiq |", "| --- | --- |",
        f"| `agent.status` on a second connection during {seconds:g} s of the flood: median; 99th percentile | "
        f"{status_cell([r['status'] for r in runs])} |",
        f"| index updates of 500 entries the agent took in, per second | {summary([r['updates'] / r['seconds'] for r in runs], '', 1, 0)} |",
        f"| peak memory of the agent | {summary([r['rss'] for r in runs], 'MiB', 1, 0)} |"])


def records_table(runs, sizes):
    """Record stores: save-to-import latency, an import of many transactions, and the bytes a
    transaction costs on the wire beside its log and the store (min / median / max over runs)."""
    imp = [r["import"] for r in runs]
    wire = [r["wire"] for r in runs]
    n, w, k = imp[0]["transactions"], wire[0]["transactions"], len(runs[0]["latency"])

    def per(rs, key):
        return [r[key] / r["transactions"] if r.get(key) is not None else None for r in rs]

    def log_mean(rs):  # raw figures of before 2026-11-27 06:40 hold the sum of the logs' sizes
        return [r["log_mean"] if "log_mean" in r else r["log_bytes"] / r["transactions"] for r in rs]

    rows = ["| figure | ubiq |", "| --- | --- |"]

    def row(label, *cells):
        rows.append(f"| {label} | {'; '.join(cells)} |")

    row(f"a record saved on one agent seen by a `records.subscribe` connection on the other (`records.didImport`), "
        f"median of {k} (one transaction each: inserts of a record and updates of it, in turn)",
        summary([statistics.median(r["latency"]) for r in runs], "ms", 1000, 2))
    row("the same, 95th percentile", summary([percentile(r["latency"], 95) for r in runs], "ms", 1000, 2))
    row(f"{n:,} transactions of one new record each, saved one after another on one agent, the other stopped: "
        f"saves a second", summary([r["transactions"] / r["save_seconds"] for r in imp], "", 1, 0))
    row(f"the other agent started: until its store holds all {n:,} records (logs synced and imported)",
        summary([r["seconds"] for r in imp], "s", 1, 2))
    row("the same, transactions imported a second", summary([r["transactions"] / r["seconds"] for r in imp], "", 1, 0))
    row(f"the same, until it held every file of the first agent's folder of logs (looked at every 0.1 s)",
        summary([r["logs_on_disk"] for r in imp], "s", 1, 2))
    row("the same, bytes it received a transaction: on its TCP connection (the session's start included); "
        "its own count of frames", summary(per(imp, "tcp"), "B", 1, 0), summary(per(imp, "bytes"), "B", 1, 0))
    row(f"the same, mean size of a log; its SQLite store of {n:,} records",
        summary(log_mean(imp), "B", 1, 0), summary([r["store"] for r in imp], "KiB", 1 / 1024, 0))
    row("the same, CPU seconds of the importing agent from its start", summary([r["cpu"][1] for r in imp], "s", 1, 1))
    row(f"{w} updates of one attribute of one record, each waited for on the other agent: bytes it received a "
        f"transaction on its TCP connection; its own count of frames",
        summary(per(wire, "tcp"), "B", 1, 0), summary(per(wire, "bytes"), "B", 1, 0))
    row("the same, mean size of a log", summary(log_mean(wire), "B", 1, 0))
    row("the same, the receiver's whole SQLite store afterwards", summary([r["store"] for r in wire], "KiB", 1 / 1024, 0))
    return "\n".join(rows)


def limits_table(samples):
    rows = ["| limit | MiB/s |", "| --- | --- |",
            f"| SHA-256, one core (`openssl speed -evp sha256`, 16384-byte blocks) | {summary([s['sha256'] for s in samples], '', 1, 0)} |",
            f"| loopback TCP, one stream (Python sockets, 1 MiB writes) | {summary([s['tcp'] for s in samples], '', 1, 0)} |",
            f"| loopback TLS, one stream ({samples[0]['cipher']}, Python `ssl`) | {summary([s['tls'] for s in samples], '', 1, 0)} |"]
    return "\n".join(rows)


def bound_failures(results, sizes):
    """Bytes on the wire above DESIGN.md §8's bounds (ubiq only), scaled to these sizes."""
    failures = []
    for i, r in enumerate(results.get("ubiq", {}).get("runs", [])):
        checks = [("initial sync", r["initial"]["bytes"], sizes.big * 1.05),
                  ("1 MiB overwrite", r["overwrite"]["bytes"], 1.3 * 2**20 * 1.1),
                  ("100-byte insert", r["insert"]["bytes"], 256 * 1024),
                  ("small files", r["small"]["bytes"], r["small"]["total"] * 1.05)]
        for what, got, bound in checks:
            if got > bound:
                failures.append(f"run {i + 1}: {what} received {got:,} bytes, above the bound of {bound:,.0f}")
    return failures


BLOCK = re.compile(r"<!-- bench:(\w+) -->\n.*?<!-- /bench:\1 -->\n", re.S)


def write_docs(path, heading, blocks):
    """Puts `blocks` (name -> Markdown) into the section titled `heading`: replaces blocks
    of the same name, keeps the others (a hand-written `notes` block too); a new section goes
    above the older dated ones."""
    with open(path) as f:
        text = f.read()
    wrapped = {k: f"<!-- bench:{k} -->\n{v.rstrip()}\n<!-- /bench:{k} -->\n" for k, v in blocks.items()}
    order = ["main", "many", "flood", "records", "limits", "notes"]
    start = text.find(heading + "\n")
    if start >= 0:
        end = text.find("\n## ", start + len(heading))
        end = len(text) if end < 0 else end + 1
        section = text[start:end]
        present = {m.group(1): m.group(0) for m in BLOCK.finditer(section)}
        present.update(wrapped)
        body = "\n".join(present[k] for k in order + sorted(set(present) - set(order)) if k in present)
        text = text[:start] + heading + "\n\n" + body + "\n" + text[end:]
    else:
        body = "\n".join(wrapped[k] for k in order if k in wrapped)
        m = re.search(r"^## \d{4}-\d\d-\d\d", text, re.M)
        at = m.start() if m else len(text)
        text = text[:at] + heading + "\n\n" + body + "\n" + text[at:]
    with open(path, "w") as f:
        f.write(text)
