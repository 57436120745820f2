#!/usr/bin/env python3
"""Measures ubiq between two agents on loopback and prints a Markdown table.

Usage: bench/run.py [--bin DIR] [--quick] [--runs N] [--only kv]

Each figure is timed from the moment the writer closes its file to the moment the other
agent's copy is complete (checked by size and content hash afterwards), and reports the
bytes the receiving agent counted on the wire. `--quick` uses small sizes, for CI.
Nothing here talks to anything but 127.0.0.1.
"""
import argparse, hashlib, json, os, platform, random, shutil, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTAINER = "TEAMID.com.example.bench"
KVSTORE = "TEAMID.com.example.bench.settings"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Agent:
    def __init__(self, bindir, home, name, peers=()):
        self.bindir, self.home, self.name = bindir, home, name
        self.port = free_port()
        self.peers = list(peers)
        self.state = os.path.join(home, "state")
        self.root = os.path.join(home, "container")
        self.sock = os.path.join(home, "agent.sock")
        self.proc = None

    def start(self):
        args = [os.path.join(self.bindir, "ubiqd"), "--state", self.state, "--listen", f"127.0.0.1:{self.port}",
                "--no-discovery", "--container", f"{CONTAINER}={self.root}", "--socket", self.sock,
                "--device-name", self.name, "--log-level", os.environ.get("UBIQ_BENCH_LOG", "warning"), "--kvstore", KVSTORE]
        for p in self.peers:
            args += ["--peer", f"127.0.0.1:{p}"]
        self.log = open(os.path.join(self.home, "ubiqd.log"), "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)
        wait(lambda: self.status() is not None, 60, f"{self.name} to start")

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()

    def call(self, method, params=None):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.sock)
            s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        return json.loads(data)["result"]

    def status(self):
        try:
            return self.call("agent.status")
        except (OSError, ValueError, KeyError):
            return None

    def received(self):
        return self.status()["bytesReceived"]

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0

    def path(self, rel):
        return os.path.join(self.root, rel)


class Session:
    """One control connection kept open: requests and the notifications pushed on it."""

    def __init__(self, sock):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
        self.buffer = b""
        self.next_id = 0

    def line(self, timeout=30):
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("the agent closed the control connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def call(self, method, params):
        self.next_id += 1
        self.sock.sendall((json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n").encode())
        while True:
            message = self.line()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def close(self):
        self.sock.close()


def kv_latencies(a, b, samples):
    """Seconds from sending kv.set to alpha until beta's subscriber reads the notice."""
    watcher, writer = Session(b.sock), Session(a.sock)
    watcher.call("kv.subscribe", {"store": KVSTORE})
    result = []
    try:
        for i in range(samples):
            t0 = time.monotonic()
            writer.call("kv.set", {"store": KVSTORE, "key": "sample", "value": i})
            while True:
                notice = watcher.line()
                if notice.get("method") == "kv.didChangeExternally" and "sample" in notice["params"]["keys"]:
                    break
            result.append(time.monotonic() - t0)
    finally:
        watcher.close()
        writer.close()
    return result


def wait(condition, timeout, what, interval=0.001):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    raise SystemExit(f"timed out waiting for {what}")


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def random_file(path, size, seed):
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 20)
            f.write(rng.randbytes(n))
            left -= n


def arrived(agent, rel, expected_hash, size):
    """True once the agent holds the file complete (size first, then one hash check)."""
    p = agent.path(rel)
    try:
        if os.path.getsize(p) != size:
            return False
    except OSError:
        return False
    status = agent.status()
    if status is None or status["containers"][0]["needItems"] != 0:
        return False
    return digest(p) == expected_hash


def timed_transfer(a, b, rel, change, size):
    before = b.received()
    t0 = time.monotonic()
    change()
    expected = digest(a.path(rel))
    wait(lambda: arrived(b, rel, expected, size), 600, f"{rel} on {b.name}", interval=0.005)
    return time.monotonic() - t0, b.received() - before


def summary(values, unit="s", scale=1.0, digits=3):
    v = sorted(x * scale for x in values)
    return f"{v[0]:.{digits}f} / {statistics.median(v):.{digits}f} / {v[-1]:.{digits}f} {unit}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the agents' folders and logs")
    parser.add_argument("--only", choices=["kv"], help="measure only this figure")
    args = parser.parse_args()
    big = (8 if args.quick else 512) << 20
    small_count = 200 if args.quick else 5000
    latency_samples = 10 if args.quick else 50
    rows = []

    for run in range(args.runs):
        work = tempfile.mkdtemp(prefix="ubiq-bench-")
        try:
            subprocess.run([os.path.join(args.bin, "ubiq"), "account", "create", "--state", os.path.join(work, "a", "state")],
                           check=True, capture_output=True)
            bundle = os.path.join(work, "bundle")
            subprocess.run([os.path.join(args.bin, "ubiq"), "account", "export", "--state", os.path.join(work, "a", "state"),
                            "--out", bundle], check=True, capture_output=True)
            subprocess.run([os.path.join(args.bin, "ubiq"), "account", "join", bundle, "--state", os.path.join(work, "b", "state")],
                           check=True, capture_output=True)
            a = Agent(args.bin, os.path.join(work, "a"), "alpha")
            a.start()
            b = Agent(args.bin, os.path.join(work, "b"), "beta", peers=[a.port])
            b.start()
            wait(lambda: any(p["connected"] for p in b.status()["peers"]), 60, "the agents to connect")
            result = {"kv": kv_latencies(a, b, latency_samples)}
            if args.only == "kv":
                a.stop()
                b.stop()
                rows.append(result)
                continue

            rel = "Documents/big.bin"
            result["initial"] = timed_transfer(a, b, rel, lambda: random_file(a.path(rel), big, run), big)

            def overwrite():
                with open(a.path(rel), "r+b") as f:
                    f.seek(big // 2)
                    f.write(random.Random(100 + run).randbytes(1 << 20))
            result["overwrite"] = timed_transfer(a, b, rel, overwrite, big)

            def insert():
                with open(a.path(rel), "rb") as f:
                    data = f.read()
                with open(a.path(rel), "wb") as f:
                    f.write(data[:4096] + random.Random(200 + run).randbytes(100) + data[4096:])
            result["insert"] = timed_transfer(a, b, rel, insert, big + 100)

            latencies = []
            for i in range(latency_samples):
                doc = f"Documents/latency/doc-{i}.txt"
                payload = random.Random(i).randbytes(1024)
                os.makedirs(os.path.dirname(a.path(doc)), exist_ok=True)
                t0 = time.monotonic()
                with open(a.path(doc), "wb") as f:
                    f.write(payload)

                def readable():
                    try:
                        with open(b.path(doc), "rb") as f:
                            return f.read() == payload
                    except OSError:
                        return False
                wait(readable, 30, doc, interval=0.0002)
                latencies.append(time.monotonic() - t0)
            result["latency"] = latencies

            before = b.received()
            t0 = time.monotonic()
            total = 0
            rng = random.Random(300 + run)
            for i in range(small_count):
                size = rng.randint(1024, 16384)
                total += size
                p = a.path(f"Documents/small/{i % 50}/{i // 50 % 10}/f{i}.bin")
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "wb") as f:
                    f.write(rng.randbytes(size))
            last = a.path(f"Documents/small/{(small_count - 1) % 50}/{(small_count - 1) // 50 % 10}/f{small_count - 1}.bin")

            def all_small():
                s = b.status()
                if s is None or s["containers"][0]["needItems"]:
                    return False
                return s["containers"][0]["files"] == a.status()["containers"][0]["files"]
            wait(all_small, 600, "the small files", interval=0.01)
            result["small"] = (time.monotonic() - t0, b.received() - before, total)
            for sub in ("small", "latency"):
                for dirpath, _, names in os.walk(a.path(f"Documents/{sub}")):
                    for n in names:
                        relp = os.path.relpath(os.path.join(dirpath, n), a.root)
                        assert digest(a.path(relp)) == digest(b.path(relp)), relp
            result["cpu"] = (a.cpu_seconds(), b.cpu_seconds())
            result["rss"] = (a.peak_rss_mib(), b.peak_rss_mib())
            a.stop()
            b.stop()
            rows.append(result)
        finally:
            if args.keep:
                print(f"kept {work}", file=sys.stderr)
            else:
                shutil.rmtree(work, ignore_errors=True)

    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mib = big >> 20
    kv_med = [statistics.median(r["kv"]) for r in rows]
    kv_p95 = [sorted(r["kv"])[int(len(r["kv"]) * 0.95) - 1] for r in rows]
    kv_rows = [f"| a key-value change seen by a subscriber on the other agent, median of {latency_samples} | "
               f"{summary(kv_med, 'ms', 1000, 2)} | |",
               f"| the same, 95th percentile | {summary(kv_p95, 'ms', 1000, 2)} | |"]
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cpu}, {os.cpu_count()} cores, "
          f"Linux {platform.release()}; {args.runs} runs, min / median / max.\n")
    print("| figure | time | on the wire (received) |")
    print("| --- | --- | --- |")
    if args.only == "kv":
        print("\n".join(kv_rows))
        return
    print(f"| initial sync of one {mib} MiB file | {summary([r['initial'][0] for r in rows])} | "
          f"{summary([r['initial'][1] for r in rows], 'MiB', 1 / 2**20, 1)} |")
    print(f"| 1 MiB overwritten in the middle of {mib} MiB | {summary([r['overwrite'][0] for r in rows])} | "
          f"{summary([r['overwrite'][1] for r in rows], 'KiB', 1 / 1024, 0)} |")
    print(f"| 100 bytes inserted near the start of {mib} MiB | {summary([r['insert'][0] for r in rows])} | "
          f"{summary([r['insert'][1] for r in rows], 'KiB', 1 / 1024, 0)} |")
    med = [statistics.median(r["latency"]) for r in rows]
    p95 = [sorted(r["latency"])[int(len(r["latency"]) * 0.95) - 1] for r in rows]
    print(f"| a new 1 KiB document readable on the other side, median of {latency_samples} | {summary(med, 'ms', 1000, 1)} | |")
    print(f"| the same, 95th percentile | {summary(p95, 'ms', 1000, 1)} | |")
    print("\n".join(kv_rows))
    print(f"| {small_count} small files (1–16 KiB, {rows[0]['small'][2] / 2**20:.0f} MiB) | {summary([r['small'][0] for r in rows])} | "
          f"{summary([r['small'][1] for r in rows], 'MiB', 1 / 2**20, 1)} |")
    print(f"| CPU seconds, sender / receiver, whole run | {summary([r['cpu'][0] for r in rows], 's', 1, 1)} / "
          f"{summary([r['cpu'][1] for r in rows], 's', 1, 1)} | |")
    print(f"| peak memory, sender / receiver | {summary([r['rss'][0] for r in rows], 'MiB', 1, 0)} / "
          f"{summary([r['rss'][1] for r in rows], 'MiB', 1, 0)} | |")


if __name__ == "__main__":
    main()
