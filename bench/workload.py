"""The seeded data and the timed scenarios, written once against a "side": two agents of
one tool (ubiq_side.UbiqPair, syncthing_side.SyncthingPair), one writing, one receiving.

A side offers: name, sender_root, receiver_root, triggers (whether after_write asks for a
scan), start(), stop(), pids(), ports(), after_write(rel, trigger=True),
receiver_state() -> (files, pending), received_bytes(), kv_latencies(n) -> list or None.

Every transfer is timed from the moment the change is complete on the writer's disk (the
file closed, or renamed into place) to the first moment at which the receiver holds every
expected file with the right size and SHA-256 and its tool reports nothing pending."""
import hashlib, math, os, random, shutil, time
from dataclasses import dataclass

import host

DOCS = "Documents"
BIG = f"{DOCS}/big.bin"
MIB = 1 << 20


@dataclass
class Sizes:
    big: int
    small_count: int
    latency_samples: int
    watcher_samples: int
    kv_samples: int
    many: int
    # Each change starts from agents at rest, as a user's edits do: without the pause, a
    # change made right after the previous one measures the tool's batching of consecutive
    # changes (Syncthing waits 250 ms after sending an index update before the next).
    settle_s: float = 1.0
    doc_gap_s: float = 0.5
    # How long `agent.status` is probed while a hostile peer floods the agent.
    flood_s: float = 5.0
    # Record stores (group `records`): save-to-import samples, transactions imported by an
    # agent that starts after they were saved, updates whose bytes on the wire are counted.
    records_samples: int = 200
    records_bulk: int = 10_000
    records_wire: int = 500

    @staticmethod
    def full():
        return Sizes(big=512 * MIB, small_count=5000, latency_samples=50, watcher_samples=5, kv_samples=50, many=100_000)

    @staticmethod
    def quick():
        return Sizes(big=8 * MIB, small_count=200, latency_samples=10, watcher_samples=2, kv_samples=10, many=2000,
                     records_samples=20, records_bulk=1000, records_wire=100)

    @staticmethod
    def ci():
        # 24 MiB: about 380 chunks, so its index entries name chunk groups as at full size.
        return Sizes(big=24 * MIB, small_count=100, latency_samples=10, watcher_samples=0, kv_samples=10, many=500,
                     settle_s=0.3, doc_gap_s=0.3, records_samples=20, records_bulk=1000, records_wire=100)


def seeded_bytes(label, seed, n):
    return hashlib.shake_128(f"{label}:{seed}".encode()).digest(n)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def small_file_path(i):
    return f"{DOCS}/small/{i % 50}/{i // 50 % 10}/f{i}.bin"


class Data:
    """Everything one run writes, made from its seed before any clock starts, so that both
    tools get the same bytes."""

    def __init__(self, seed, sizes):
        self.sizes = sizes
        big = seeded_bytes("big", seed, sizes.big)
        mid = sizes.big // 2
        patch = seeded_bytes("patch", seed, MIB)
        self.big = big
        self.patch_offset, self.patch = mid, patch
        overwritten = big[:mid] + patch + big[mid + MIB:]
        self.inserted = overwritten[:4096] + seeded_bytes("insert", seed, 100) + overwritten[4096:]
        self.hashes = {"big": sha256(big), "overwritten": sha256(overwritten), "inserted": sha256(self.inserted)}
        del overwritten
        rng = random.Random(seed)
        self.small = [(small_file_path(i), seeded_bytes("small", f"{seed}:{i}", rng.randint(1024, 16384)))
                      for i in range(sizes.small_count)]
        self.docs = [seeded_bytes("doc", f"{seed}:{i}", 1024) for i in range(sizes.latency_samples + sizes.watcher_samples)]


def percentile(values, p):
    """Nearest-rank percentile."""
    v = sorted(values)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


class Checker:
    """Answers "does the receiver hold these files?" cheaply when called often: a file is
    hashed again only when its inode, size or mtime changed since the last look."""

    def __init__(self, root, expected):
        self.root, self.expected = root, expected  # rel -> (size, sha256)
        self.seen = {}  # rel -> (signature, matched)
        # What is there before the change is stale: never hashed, so that the benchmark does
        # not compete with the agents for the CPU while they work.
        for rel in expected:
            try:
                st = os.stat(os.path.join(root, rel))
                self.seen[rel] = ((st.st_ino, st.st_size, st.st_mtime_ns), False)
            except OSError:
                pass

    def looks_done(self):
        """Every file there with the right size, and none known to hold the wrong bytes."""
        for rel, (size, _) in self.expected.items():
            try:
                st = os.stat(os.path.join(self.root, rel))
            except OSError:
                return False
            known = self.seen.get(rel)
            if st.st_size != size or (known and not known[1] and known[0] == (st.st_ino, st.st_size, st.st_mtime_ns)):
                return False
        return True

    def content_ok(self):
        for rel, (_, digest) in self.expected.items():
            p = os.path.join(self.root, rel)
            try:
                st = os.stat(p)
            except OSError:
                return False
            sig = (st.st_ino, st.st_size, st.st_mtime_ns)
            known = self.seen.get(rel)
            if known and known[0] == sig:
                if not known[1]:
                    return False
                continue
            h = hashlib.sha256()
            with open(p, "rb") as f:
                while chunk := f.read(MIB):
                    h.update(chunk)
            self.seen[rel] = (sig, h.hexdigest() == digest)
            if not self.seen[rel][1]:
                return False
        return True


def converge(side, checker, files, timeout=600):
    """Waits until the receiver holds what `checker` expects, its tool counts `files` files
    and reports nothing pending; returns the monotonic time at which all of that was first
    seen."""
    few = len(checker.expected) <= 10

    def state_ok():
        s = side.receiver_state()
        return s is not None and s[0] == files and not s[1]

    # A few files are cheap to look at, so they are looked at first and often; with many,
    # the tool is asked first, less often, so that the benchmark's own polling stays small.
    interval = 0.002 if few else 0.05
    deadline = time.monotonic() + timeout
    while True:
        t = time.monotonic()
        if (checker.looks_done() and state_ok()) if few else (state_ok() and checker.looks_done()):
            if checker.content_ok():
                return t
        if t > deadline:
            s = side.receiver_state()
            raise TimeoutError(f"{side.name} did not converge within {timeout} s (receiver files, pending: {s})")
        time.sleep(interval)


def settle(side, seconds):
    """Waits until the receiver has nothing pending, flushes the page cache's dirty data
    (the staged files too), then leaves both agents idle a while."""
    host.wait(lambda: (s := side.receiver_state()) is not None and not s[1], 600, f"{side.name} to settle", 0.01)
    os.sync()
    time.sleep(seconds)


class Transfer:
    """One timed change: its time, and the bytes the receiving tool and the kernel counted.
    `expected`: rel -> (size, sha256) on the receiver once the change is through."""

    def __init__(self, side, pause, expected):
        self.side = side
        settle(side, pause)
        self.checker = Checker(side.receiver_root, expected)
        self.before = side.received_bytes()
        self.tcp_before = host.tcp_received(side.pids()[1], side.ports())

    def finish(self, t0, files):
        done = converge(self.side, self.checker, files)
        tcp = host.tcp_received(self.side.pids()[1], self.side.ports())
        return {"seconds": done - t0, "bytes": self.side.received_bytes() - self.before,
                "tcp": None if tcp is None or self.tcp_before is None else tcp - self.tcp_before}


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def run_pair(side, data, staging, log):
    """Runs every scenario on a started side; returns the raw figures."""
    s = data.sizes
    src = lambda rel: os.path.join(side.sender_root, rel)
    dst = lambda rel: os.path.join(side.receiver_root, rel)
    result = {"audit": audit(side)}
    files = 0

    kv = side.kv_latencies(s.kv_samples)
    if kv is not None:
        result["kv"] = kv
        log(f"{side.name}: key-value median {statistics_ms(kv)}")

    # Initial sync of the big file: written beside the container, renamed into place.
    _write(os.path.join(staging, "big.bin"), data.big)
    t = Transfer(side, s.settle_s, {BIG: (s.big, data.hashes["big"])})
    probe = side.status_probe() if hasattr(side, "status_probe") else None
    os.rename(os.path.join(staging, "big.bin"), src(BIG))
    t0 = time.monotonic()
    side.after_write(BIG)
    files += 1
    result["initial"] = t.finish(t0, files)
    if probe:
        result["status_during_transfer"] = probe.finish()
    log(f"{side.name}: initial {result['initial']}")

    # 1 MiB overwritten in the middle, in place.
    t = Transfer(side, s.settle_s, {BIG: (s.big, data.hashes["overwritten"])})
    with open(src(BIG), "r+b") as f:
        f.seek(data.patch_offset)
        f.write(data.patch)
    t0 = time.monotonic()
    side.after_write(BIG)
    result["overwrite"] = t.finish(t0, files)
    log(f"{side.name}: overwrite {result['overwrite']}")

    # 100 bytes inserted near the start: the new file written beside, renamed over.
    _write(os.path.join(staging, "big.bin"), data.inserted)
    t = Transfer(side, s.settle_s, {BIG: (s.big + 100, data.hashes["inserted"])})
    os.rename(os.path.join(staging, "big.bin"), src(BIG))
    t0 = time.monotonic()
    side.after_write(BIG)
    result["insert"] = t.finish(t0, files)
    log(f"{side.name}: insert {result['insert']}")

    # New 1 KiB documents: readable on the other side, with a triggered scan where the tool
    # needs one.
    result["latency"] = [_doc(side, src, dst, i, data.docs[i], True, s.doc_gap_s) for i in range(s.latency_samples)]
    files += s.latency_samples
    log(f"{side.name}: 1 KiB median {statistics_ms(result['latency'])}")

    # Small files: a tree made beside the container, renamed into it at once.
    tree = os.path.join(staging, "small")
    for rel, content in data.small:
        _write(os.path.join(tree, os.path.relpath(rel, f"{DOCS}/small")), content)
    t = Transfer(side, s.settle_s, {rel: (len(c), sha256(c)) for rel, c in data.small})
    os.rename(tree, src(f"{DOCS}/small"))
    t0 = time.monotonic()
    side.after_write(f"{DOCS}/small")
    files += len(data.small)
    result["small"] = t.finish(t0, files)
    result["small"]["total"] = sum(len(c) for _, c in data.small)
    log(f"{side.name}: small files {result['small']}")

    # The same document figure with the tool's own watcher only (Syncthing's default delay).
    if side.triggers and s.watcher_samples:
        result["watcher"] = [_doc(side, src, dst, s.latency_samples + i, data.docs[s.latency_samples + i], False, s.doc_gap_s)
                             for i in range(s.watcher_samples)]
        log(f"{side.name}: 1 KiB with the watcher only, median {statistics_ms(result['watcher'])}")

    a, b = side.pids()
    result["cpu"] = (host.cpu_seconds(a), host.cpu_seconds(b))
    result["rss"] = (host.peak_rss_mib(a), host.peak_rss_mib(b))
    result["audit"] = result["audit"] + audit(side)
    return result


def _doc(side, src, dst, i, payload, trigger, gap):
    rel = f"{DOCS}/latency/doc-{i}.txt"
    time.sleep(gap)
    with open(src(rel), "wb") as f:
        f.write(payload)
    t0 = time.monotonic()
    side.after_write(rel, trigger)

    def readable():
        try:
            with open(dst(rel), "rb") as f:
                return f.read() == payload
        except OSError:
            return False
    host.wait(readable, 60, f"{rel} on {side.name}'s receiver", interval=0.0002)
    return time.monotonic() - t0


def audit(side):
    """Sockets the side's processes hold off loopback (none expected)."""
    bad = host.foreign_sockets(side.pids())
    if bad:
        raise RuntimeError(f"{side.name} uses sockets off loopback: {bad}")
    return [] if host.ss_available() else ["ss missing: sockets not checked"]


def statistics_ms(values):
    v = sorted(values)
    return f"{v[len(v) // 2] * 1000:.1f} ms"


def prepare_dirs(side):
    """Folders both tools must know before the clock runs."""
    for root in (side.sender_root, side.receiver_root):
        os.makedirs(os.path.join(root, DOCS), exist_ok=True)
    os.makedirs(os.path.join(side.sender_root, DOCS, "latency"), exist_ok=True)


def make_tree(root, n, seed):
    """n files of 1–4 KiB in nested folders (100 × 10 folders), for the many-files figure."""
    rng = random.Random(seed)
    block = seeded_bytes("many", seed, 4096 + n)
    for i in range(n):
        p = os.path.join(root, f"d{i % 100}", f"e{i // 100 % 10}", f"f{i}.bin")
        if i < 1000:
            os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(block[i:i + rng.randint(1024, 4096)])


def clear_markers(root):
    for name in (".ubiq", ".stfolder", ".stversions"):
        p = os.path.join(root, name)
        if os.path.isdir(p):
            shutil.rmtree(p)


def run_many(single, n, log):
    """First index of a folder that holds n files when the agent starts, then an idle full
    rescan; with the agent's CPU time and peak memory."""
    t0 = time.monotonic()
    single.spawn()
    probe = None
    if hasattr(single, "status_probe"):
        host.wait(lambda: single.answers(), 60, f"{single.name} to answer", interval=0.001)
        probe = single.status_probe()
    host.wait(lambda: single.indexed(n), 3600, f"{single.name} to index {n} files", interval=0.1)
    first = time.monotonic() - t0
    status = probe.finish() if probe else None
    log(f"{single.name}: first index of {n} files {first:.1f} s")
    rescan = single.rescan()
    pid = single.pid()
    bad = host.foreign_sockets([pid])
    if bad:
        raise RuntimeError(f"{single.name} uses sockets off loopback: {bad}")
    return {"index": first, "rescan": rescan and rescan[0], "rescan_own": rescan and rescan[1],
            "cpu": host.cpu_seconds(pid), "rss": host.peak_rss_mib(pid), "status_during_index": status}
