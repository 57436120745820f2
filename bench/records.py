"""Record stores in the benchmark (ubiq only): two agents of one account on loopback, alpha
saving transactions through `records.save`, beta importing the change logs they sync as
and reporting each import to a `records.subscribe` connection.

Three figures, each from what was measured:
- latency: from sending `records.save` to alpha until beta's subscriber reads the
  `records.didImport` naming the record;
- import: transactions saved on alpha while beta is stopped (saves per second), then from
  beta's start until its store holds every record;
- wire: TCP bytes beta received per transaction over a batch of updates, beside the size of
  the logs written and of beta's SQLite store."""
import glob, os, socket, sqlite3, statistics, time

import host
from ubiq_side import CONTAINER, RPCError, Session, UbiqPair

STORE = "bench"


def _save(session, changes):
    return session.call("records.save", {"container": CONTAINER, "store": STORE, "changes": changes})


def _subscribe(agent):
    s = Session(agent.sock)
    s.call("records.subscribe", {"container": CONTAINER, "store": STORE})
    return s


def _wait_import(watcher, key, deadline):
    """Reads notices until one names `key` (entity, id) as inserted or updated."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no records.didImport of {key} on beta")
        notice = watcher.line(timeout=left)
        if notice.get("method") != "records.didImport":
            continue
        p = notice["params"]
        if any((r["entity"], r["id"]) == key for r in p["inserted"] + p["updated"]):
            return


def store_bytes(agent):
    """The agent's SQLite store: its size as a database (pages × page size, what its file
    holds once the write-ahead log is checkpointed, read through a read-only connection),
    and the bytes of its file and of its write-ahead log on disk now."""
    paths = glob.glob(os.path.join(agent.state, "records", "*", CONTAINER, f"{STORE}.sqlite"))
    if len(paths) != 1:
        raise RuntimeError(f"expected one {STORE}.sqlite under {agent.state}/records, found {paths}")
    db = sqlite3.connect(f"file:{paths[0]}?mode=ro", uri=True, timeout=10)
    try:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        page = db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        db.close()
    wal = paths[0] + "-wal"
    return {"store": pages * page, "store_file": os.path.getsize(paths[0]),
            "store_wal": os.path.getsize(wal) if os.path.exists(wal) else 0}


def latencies(pair, samples, timeout=60):
    """Seconds from sending records.save to alpha until beta's subscriber reads the notice.
    Even samples insert a new record, odd ones update the record the sample before made.
    One untimed transaction first makes the store on both agents."""
    watcher, writer = _subscribe(pair.b), Session(pair.a.sock)
    try:
        _save(writer, [{"op": "insert", "entity": "Note", "id": "warm", "attributes": {"n": 0}}])
        _wait_import(watcher, ("Note", "warm"), time.monotonic() + timeout)
        result = []
        for i in range(samples):
            if i % 2 == 0:
                change = {"op": "insert", "entity": "Note", "id": f"lat-{i}", "attributes": {"title": f"note {i}", "n": i}}
            else:
                change = {"op": "update", "entity": "Note", "id": f"lat-{i - 1}", "attributes": {"n": i}}
            t0 = time.monotonic()
            _save(writer, [change])
            _wait_import(watcher, ("Note", change["id"]), t0 + timeout)
            result.append(time.monotonic() - t0)
        return result
    finally:
        watcher.close()
        writer.close()


def wire(pair, n, timeout=60):
    """n updates of one attribute of one record on alpha, each waited for on beta: the
    bytes beta received meanwhile (the kernel's TCP count and the agent's own count of
    frames), the sizes of the n logs written, and beta's store afterwards."""
    watcher, writer = _subscribe(pair.b), Session(pair.a.sock)
    key = ("Counter", "wire")
    try:
        _save(writer, [{"op": "insert", "entity": key[0], "id": key[1], "attributes": {"value": 0}}])
        _wait_import(watcher, key, time.monotonic() + timeout)
        b_pid = pair.b.proc.pid
        tcp0, frames0 = host.tcp_received(b_pid, pair.ports()), pair.received_bytes()
        logs, each = [], []
        t0 = time.monotonic()
        for i in range(1, n + 1):
            t1 = time.monotonic()
            answer = _save(writer, [{"op": "update", "entity": key[0], "id": key[1], "attributes": {"value": i}}])
            logs.append(_log_size(pair.a, answer["log"]))
            _wait_import(watcher, key, t1 + timeout)
            each.append(time.monotonic() - t1)
        seconds = time.monotonic() - t0
        tcp1, frames1 = host.tcp_received(b_pid, pair.ports()), pair.received_bytes()
        sizes = [n for n in logs if n is not None]
        return {"transactions": n, "seconds": seconds, "each": each,
                "tcp": None if tcp0 is None or tcp1 is None else tcp1 - tcp0, "bytes": frames1 - frames0,
                "log_mean": statistics.mean(sizes), "logs_measured": len(sizes),
                "log_min": min(sizes), "log_max": max(sizes), **store_bytes(pair.b)}
    finally:
        watcher.close()
        writer.close()


def bulk_import(bindir, work, n, log, timeout=1800):
    """n transactions of one new record each saved on alpha alone, then beta started: the
    saves per second, how long alpha took to index its logs, and from beta's start until
    its store holds all n records (the logs synced and imported)."""
    os.makedirs(work)
    pair = UbiqPair(bindir, work)
    try:
        pair.a.start()
        writer = Session(pair.a.sock)
        sizes, tenth = [], max(1, n // 10)
        save_marks = []  # seconds since the first save at every tenth of them
        t0 = time.monotonic()
        for i in range(n):
            answer = _save(writer, [{"op": "insert", "entity": "Item", "id": f"i-{i}", "attributes": {"title": f"item {i}", "n": i}}])
            sizes.append(_log_size(pair.a, answer["log"]))
            if (i + 1) % tenth == 0:
                save_marks.append(time.monotonic() - t0)
        save_s = time.monotonic() - t0
        writer.close()
        log(f"records: {n:,} saves on alpha in {save_s:.1f} s")
        sizes = [x for x in sizes if x is not None]

        # Alpha at rest before beta starts: every file of its container in its index (a build
        # that compacts logs may have replaced some by a baseline), nothing scanning.
        def indexed():
            s = pair.a.status()
            c = s and s["containers"][0]
            return c and not c.get("scanning", False) and c["files"] == _files(pair.a.root)
        host.wait(indexed, timeout, "alpha to index its logs", interval=0.1)
        indexed_s = time.monotonic() - t0 - save_s
        alpha_names = set(os.listdir(_logs_dir(pair.a)))

        t0 = time.monotonic()
        pair.b.spawn()
        # Records beta imported before its subscription began are in its first fetch; those
        # after, in the notices; their union is what its store holds.
        watcher = host.wait(lambda: _try_subscribe(pair.b), 120, "beta to answer", interval=0.005)
        answered_s = time.monotonic() - t0
        held = set()
        fetched = pair.b.call("records.fetch", {"container": CONTAINER, "store": STORE, "entity": "Item", "limit": n + 1},
                              timeout=120)
        held.update(r["id"] for r in fetched["records"])
        logs_dir, logs_s, looked = None, None, 0.0
        import_marks = []  # seconds since beta's start at which it held each tenth of the records
        deadline = t0 + timeout
        try:
            while len(held) < n:
                # Whether every log is on beta's disk yet: looked at every 0.1 s at most, a
                # folder of n files being no cheap read.
                now = time.monotonic()
                if logs_s is None and now - looked >= 0.1:
                    looked = now
                    logs_dir = logs_dir or _logs_dir(pair.b)
                    if logs_dir and alpha_names <= set(os.listdir(logs_dir)):
                        logs_s = now - t0
                if time.monotonic() > deadline:
                    raise TimeoutError(f"beta's store held {len(held)} of {n} records after {timeout} s")
                try:
                    notice = watcher.line(timeout=0.1)
                except socket.timeout:
                    continue
                if notice.get("method") == "records.didImport":
                    held.update(r["id"] for r in notice["params"]["inserted"] if r["entity"] == "Item")
                    while len(held) >= tenth * (len(import_marks) + 1):
                        import_marks.append(time.monotonic() - t0)
            done_s = time.monotonic() - t0
        finally:
            watcher.close()
        check = pair.b.call("records.fetch", {"container": CONTAINER, "store": STORE, "entity": "Item", "limit": n + 1},
                            timeout=120)
        if len(check["records"]) != n:
            raise RuntimeError(f"beta's store holds {len(check['records'])} records, not {n}")
        if logs_s is None:
            logs_s = done_s  # the last logs landed between two looks; imported by then
        b_pid = pair.b.proc.pid
        tcp = host.tcp_received(b_pid, pair.ports())
        bad = host.foreign_sockets(pair.pids())
        if bad:
            raise RuntimeError(f"ubiq uses sockets off loopback: {bad}")
        result = {"transactions": n, "save_seconds": save_s, "save_marks": save_marks, "import_marks": import_marks,
                  "alpha_index_seconds": indexed_s,
                  "beta_answered": answered_s, "logs_on_disk": logs_s, "seconds": done_s,
                  "tcp": tcp, "bytes": pair.received_bytes(),
                  "log_mean": statistics.mean(sizes), "logs_measured": len(sizes), "alpha_files": len(alpha_names),
                  **store_bytes(pair.b),
                  "cpu": (host.cpu_seconds(pair.a.proc.pid), host.cpu_seconds(b_pid)),
                  "rss": (host.peak_rss_mib(pair.a.proc.pid), host.peak_rss_mib(b_pid))}
        log(f"records: beta imported {n:,} transactions in {done_s:.1f} s (logs on its disk at {logs_s:.1f} s)")
        return result
    finally:
        for agent in (pair.b, pair.a):
            if agent.proc:
                agent.stop()


def _log_size(agent, rel):
    """The size of a log just written, or None when it is gone already (a build that
    compacts logs into a baseline)."""
    try:
        return os.path.getsize(os.path.join(agent.root, rel))
    except FileNotFoundError:
        return None


def _files(root):
    """Files in a container folder, its .ubiq folder aside."""
    count = 0
    for top, dirs, files in os.walk(root):
        if top == root and ".ubiq" in dirs:
            dirs.remove(".ubiq")
        count += len(files)
    return count


def _try_subscribe(agent):
    if agent.proc.poll() is not None:
        raise RuntimeError(f"ubiqd {agent.name} exited with {agent.proc.returncode}; see {agent.home}/ubiqd.log")
    try:
        return _subscribe(agent)
    except (OSError, ValueError, RPCError):
        return None


def _logs_dir(agent):
    """Beta's folder of alpha's logs, once it exists."""
    found = glob.glob(os.path.join(agent.root, "Records", STORE, "*"))
    return found[0] if len(found) == 1 else None


def run(bindir, work, sizes, log):
    """The three figures of one run, each on agents of their own."""
    os.makedirs(os.path.join(work, "pair"))
    pair = UbiqPair(bindir, os.path.join(work, "pair"))
    pair.start()
    try:
        lat = latencies(pair, sizes.records_samples)
        log(f"records: save to didImport median {statistics.median(lat) * 1000:.1f} ms")
        w = wire(pair, sizes.records_wire)
        log(f"records: {w['transactions']} updates, beta received {w['tcp']} TCP bytes, a log {w['log_mean']:.0f} bytes")
        bad = host.foreign_sockets(pair.pids())
        if bad:
            raise RuntimeError(f"ubiq uses sockets off loopback: {bad}")
    finally:
        pair.stop()
    bulk = bulk_import(bindir, os.path.join(work, "bulk"), sizes.records_bulk, log)
    return {"latency": lat, "wire": w, "import": bulk}
