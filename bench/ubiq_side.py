"""ubiq in the benchmark: two agents of one account on loopback (or one alone for the
many-files figure), driven and read through their control sockets."""
import json, os, socket, subprocess, sys, time

import host

CONTAINER = "TEAMID.com.example.bench"
KVSTORE = "TEAMID.com.example.bench.settings"


class RPCError(Exception):
    def __init__(self, method, error):
        super().__init__(f"{method}: {error}")
        self.code = error.get("code") if isinstance(error, dict) else None


class Session:
    """One control connection kept open: requests and the notifications pushed on it."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0

    def line(self, timeout=60):
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("the agent closed the control connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def call(self, method, params=None, timeout=60):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        self.sock.sendall((json.dumps(request) + "\n").encode())
        while True:
            message = self.line(timeout)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RPCError(method, message["error"])
                return message["result"]

    def close(self):
        self.sock.close()


class StatusProbe:
    """`agent.status` asked again and again on a second connection while something else
    happens (bench/status_probe.py); `finish` returns the latencies in seconds."""

    def __init__(self, sock):
        probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "status_probe.py")
        self.proc = subprocess.Popen([sys.executable, probe, sock], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def finish(self):
        out, _ = self.proc.communicate(b"", timeout=120)
        if self.proc.returncode != 0:
            raise RuntimeError(f"the status probe failed ({self.proc.returncode})")
        return [float(v) for v in out.split()]


class Agent:
    """One ubiqd process with its own state, container folder and control socket."""

    def __init__(self, bindir, home, name, root=None, peers=()):
        self.bindir, self.home, self.name = bindir, home, name
        self.port = host.free_port()
        self.peers = list(peers)
        self.state = os.path.join(home, "state")
        self.root = root or os.path.join(home, "container")
        self.sock = os.path.join(home, "agent.sock")
        self.proc = None
        os.makedirs(self.root, exist_ok=True)

    def spawn(self):
        args = [os.path.join(self.bindir, "ubiqd"), "--state", self.state, "--listen", f"127.0.0.1:{self.port}",
                "--no-discovery", "--no-ui", "--container", f"{CONTAINER}={self.root}", "--socket", self.sock,
                "--device-name", self.name, "--log-level", os.environ.get("UBIQ_BENCH_LOG", "warning"),
                "--kvstore", KVSTORE]
        for p in self.peers:
            args += ["--peer", f"127.0.0.1:{p}"]
        self.log = open(os.path.join(self.home, "ubiqd.log"), "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)

    def start(self):
        self.spawn()
        host.wait(lambda: self.status() is not None, 120, f"ubiq {self.name} to start", interval=0.01)

    def stop(self):
        host.stop_process(self.proc, self.log)

    def call(self, method, params=None, timeout=60):
        s = Session(self.sock)
        try:
            return s.call(method, params, timeout)
        finally:
            s.close()

    def status(self):
        if self.proc and self.proc.poll() is not None:
            raise RuntimeError(f"ubiqd {self.name} exited with {self.proc.returncode}; see {self.home}/ubiqd.log")
        try:
            return self.call("agent.status")
        except (OSError, ValueError, RPCError):
            return None


class UbiqFlood:
    """One agent, and a hostile peer of its account (`ubiq-bench-flood`) that sends it index
    updates of 500 folders each as fast as it takes them in; `agent.status` is probed on a
    second connection while the flood goes on."""

    name = "ubiq"

    def __init__(self, bindir, work):
        self.bindir, self.work = bindir, work
        make_account(bindir, work, ["solo"])
        self.agent = Agent(bindir, os.path.join(work, "solo"), "solo")
        self.flood = None

    def available(self):
        return os.path.exists(os.path.join(self.bindir, "ubiq-bench-flood"))

    def run(self, seconds):
        """The status latencies during `seconds` of flood, the updates sent, and the agent's
        peak memory and CPU seconds."""
        self.agent.start()
        bundle = os.path.join(self.work, "flood.bundle")
        subprocess.run([os.path.join(self.bindir, "ubiq"), "account", "export", "--state", self.agent.state, "--out", bundle],
                       check=True, capture_output=True)
        self.flood = subprocess.Popen([os.path.join(self.bindir, "ubiq-bench-flood"), bundle, os.path.join(self.work, "flood-state"),
                                       str(self.agent.port), CONTAINER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        marker = os.path.join(self.agent.root, "Documents", "flood", "d499")
        host.wait(lambda: os.path.isdir(marker), 120, "the flood to reach the agent's disk", interval=0.01)
        probe = StatusProbe(self.agent.sock)
        time.sleep(seconds)  # the window measured: the flood does not end by itself
        latencies = probe.finish()
        out, _ = self.flood.communicate(b"", timeout=60)
        pid = self.agent.proc.pid
        return {"status": latencies, "updates": int(out.split()[-1]), "seconds": seconds,
                "rss": host.peak_rss_mib(pid), "cpu": host.cpu_seconds(pid)}

    def stop(self):
        if self.flood and self.flood.poll() is None:
            self.flood.kill()
            self.flood.wait()
        self.agent.stop()


def make_account(bindir, work, names):
    """Creates an account in the first state folder and joins the others to it."""
    ubiq = os.path.join(bindir, "ubiq")
    first = os.path.join(work, names[0], "state")
    subprocess.run([ubiq, "account", "create", "--state", first], check=True, capture_output=True)
    bundle = os.path.join(work, "bundle")
    if len(names) > 1:
        subprocess.run([ubiq, "account", "export", "--state", first, "--out", bundle], check=True, capture_output=True)
    for name in names[1:]:
        subprocess.run([ubiq, "account", "join", bundle, "--state", os.path.join(work, name, "state")],
                       check=True, capture_output=True)


class UbiqPair(host.AgentPair):
    """The side interface of workload.py for two ubiq agents: alpha writes, beta receives."""

    name = "ubiq"
    triggers = False  # its watcher acts when the writer closes the file

    def __init__(self, bindir, work):
        self.work = work
        make_account(bindir, work, ["a", "b"])
        self.a = Agent(bindir, os.path.join(work, "a"), "alpha")
        self.b = Agent(bindir, os.path.join(work, "b"), "beta", peers=[self.a.port])
        self.sender_root, self.receiver_root = self.a.root, self.b.root

    def start(self):
        self.a.start()
        self.b.start()
        host.wait(lambda: any(p["connected"] for p in self.b.status()["peers"]), 60, "the ubiq agents to connect", 0.01)

    def after_write(self, rel, trigger=True):
        pass

    def receiver_state(self):
        """(files, pending) as the receiving agent reports them, or None."""
        s = self.b.status()
        if s is None:
            return None
        c = s["containers"][0]
        return c["files"], c["needItems"] != 0

    def received_bytes(self):
        return self.b.status()["bytesReceived"]

    def status_probe(self):
        """Probes the receiving agent."""
        return StatusProbe(self.b.sock)

    def kv_latencies(self, samples):
        """Seconds from sending kv.set to alpha until beta's subscriber reads the notice."""
        watcher, writer = Session(self.b.sock), Session(self.a.sock)
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


class UbiqSingle:
    """One ubiq agent indexing a folder it finds full, for the many-files figure."""

    name = "ubiq"

    def __init__(self, bindir, work, root):
        make_account(bindir, work, ["solo"])
        self.agent = Agent(bindir, os.path.join(work, "solo"), "solo", root=root)

    def spawn(self):
        self.agent.spawn()

    def status_probe(self):
        return StatusProbe(self.agent.sock)

    def answers(self):
        return self.agent.status() is not None

    def indexed(self, n):
        s = self.agent.status()
        if s is None:
            return False
        c = s["containers"][0]
        return c["files"] == n and not c.get("scanning", False)

    def rescan(self):
        """(wall seconds, the agent's own seconds) of a full rescan, or None when this build
        lacks container.rescan."""
        t0 = time.monotonic()
        try:
            result = self.agent.call("container.rescan", {"container": CONTAINER}, timeout=600)
        except RPCError as e:
            if e.code == -32601:
                return None
            raise
        return time.monotonic() - t0, result.get("seconds")

    def pid(self):
        return self.agent.proc.pid

    def stop(self):
        self.agent.stop()
