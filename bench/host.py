"""What the benchmark reads from the machine: free ports, a process's CPU time and peak
memory, the TCP bytes the kernel counted on its sockets, and a check that it uses
loopback only."""
import os, re, shutil, socket, subprocess, tempfile, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User plus system CPU seconds of a live process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid):
    """The process's peak resident memory (VmHWM), MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _ss(*args):
    if not shutil.which("ss"):
        return None
    return subprocess.run(["ss", "-H", *args], capture_output=True, text=True, check=False).stdout


def tcp_received(pid, ports):
    """Bytes the kernel received on the process's established TCP sockets whose local or
    remote port is one of `ports` (TLS records included, TCP/IP headers not); None when
    `ss` is missing."""
    out = _ss("-tinp", "state", "established")
    if out is None:
        return None
    total, current = 0, None
    for line in out.splitlines():
        if not line.startswith(("\t", " ")):
            parts = line.split()
            ends = [p for p in parts if re.match(r"^[\[\]0-9a-fA-F.:*%]+:\d+$", p)]
            mine = f"pid={pid}," in line
            current = mine and any(int(e.rsplit(":", 1)[1]) in ports for e in ends[:2])
        elif current:
            m = re.search(r"bytes_received:(\d+)", line)
            if m:
                total += int(m.group(1))
            current = False
    return total


def foreign_sockets(pids):
    """Sockets of these processes bound or connected anywhere but loopback: a list of
    lines from `ss`, empty when all is well (or when `ss` is missing)."""
    out = _ss("-tuanp")
    if out is None:
        return []
    bad = []
    for line in out.splitlines():
        if not any(f"pid={p}," in line for p in pids):
            continue
        parts = line.split()
        ends = [p for p in parts if re.match(r"^[\[\]0-9a-fA-F.:*%]+:[\d*]+$", p)][:2]
        for end in ends:
            host = end.rsplit(":", 1)[0].strip("[]")
            if host.startswith("127.") or host in ("::1", "::ffff:127.0.0.1") or (host in ("*", "0.0.0.0", "::") and end is ends[1]):
                continue
            bad.append(line.strip())
            break
    return bad


def ss_available():
    return shutil.which("ss") is not None


def load_average():
    with open("/proc/loadavg") as f:
        return tuple(float(x) for x in f.read().split()[:3])


def machine():
    """One line: CPU model, cores, memory, kernel, file system of the temp folder."""
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) / 2**20
    fs, best = "?", ""
    tmp = os.path.realpath(tempfile.gettempdir())
    with open("/proc/mounts") as f:
        for line in f:
            _, point, kind = line.split()[:3]
            if (tmp == point or tmp.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                fs, best = kind, point
    return f"{cpu} ({os.cpu_count()} cores, {mem:.0f} GiB), Linux {os.uname().release}, {fs}"


def wait(condition, timeout, what, interval=0.001):
    """Polls `condition` until it is true; returns its value. Raises on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


COMPILERS = {"swift-frontend", "swift-build", "swift-driver", "swiftc", "clang", "ld.gold", "ld.lld", "cc1", "cc1plus", "rustc", "go"}


def _busy_seconds():
    """CPU seconds the whole machine spent busy since boot."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_seconds():
    """CPU seconds of this process and of the children it waited for (the agents)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class LoadWatch:
    """Measures the CPU that processes other than the benchmark and its agents used during a
    run, and samples whether a compiler ran, so that a report can say when its times come
    from a shared machine."""

    def __init__(self, every=2.0):
        import threading
        self.start = (time.monotonic(), _busy_seconds(), _own_seconds())
        self.samples = []  # (load1, compiling)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self.thread.start()

    def _run(self, every):
        while not self.stop_event.is_set():
            self.samples.append((load_average()[0], self._compiling()))
            self.stop_event.wait(every)

    @staticmethod
    def _compiling():
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        if f.read().strip() in COMPILERS:
                            return True
                except OSError:
                    pass
        return False

    def finish(self):
        self.stop_event.set()
        self.thread.join()
        self.samples.append((load_average()[0], self._compiling()))
        loads = [s[0] for s in self.samples]
        busy = sum(1 for s in self.samples if s[1]) / len(self.samples)
        wall, machine, own = (a - b for a, b in zip((time.monotonic(), _busy_seconds(), _own_seconds()), self.start))
        return {"load_start": loads[0], "load_max": max(loads), "load_end": loads[-1], "compiling": busy,
                "other_cores": max(0.0, (machine - own) / wall) if wall > 0 else 0.0}


def stop_process(proc, log):
    """Ends an agent: SIGTERM, then SIGKILL if it has not gone within 30 s; closes its log."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc:
        log.close()


class AgentPair:
    """What both tools' pairs share: a writer `a` and a receiver `b`, each a process with a port."""

    def stop(self):
        self.b.stop()
        self.a.stop()

    def pids(self):
        return self.a.proc.pid, self.b.proc.pid

    def ports(self):
        return {self.a.port, self.b.port}
