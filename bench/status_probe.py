"""Asks one ubiq agent for `agent.status` again and again on a control connection of its
own, until its standard input closes; then prints each answer's latency in seconds, one
per line. A process of its own, so the benchmark's polling cannot delay it (Python runs
one thread at a time)."""
import sys, threading, time

from ubiq_side import Session

GAP = 0.01  # seconds between an answer and the next request


def main(path):
    session = Session(path)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    latencies = []
    while not stop.is_set():
        t0 = time.monotonic()
        session.call("agent.status")
        latencies.append(time.monotonic() - t0)
        stop.wait(GAP)
    print("\n".join(f"{v:.6f}" for v in latencies))


if __name__ == "__main__":
    main(sys.argv[1])
