"""Asks one ubiq agent for `agent.status` again and again on a control connection of its
own, until its standard input closes; then prints each answer's latency in seconds, one
per line. A process of its own, so the benchmark's polling cannot delay it (Python runs
one thread at a time)."""
import json, socket, sys, threading, time

GAP = 0.01  # seconds between an answer and the next request


def main(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)
    sock.settimeout(60)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    latencies, buffer, n = [], b"", 0
    while not stop.is_set():
        n += 1
        t0 = time.monotonic()
        sock.sendall(json.dumps({"jsonrpc": "2.0", "id": n, "method": "agent.status"}).encode() + b"\n")
        while True:
            while b"\n" not in buffer:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    raise SystemExit("the agent closed the control connection")
                buffer += chunk
            line, buffer = buffer.split(b"\n", 1)
            if json.loads(line).get("id") == n:
                break
        latencies.append(time.monotonic() - t0)
        stop.wait(GAP)
    print("\n".join(f"{v:.6f}" for v in latencies))


if __name__ == "__main__":
    main(sys.argv[1])
