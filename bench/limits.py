"""What this machine allows at most, measured beside the figures: single-core SHA-256
(`openssl speed`), and loopback TCP and TLS throughput between two threads (the socket and
ssl calls release the GIL, so sender and receiver use a core each). MiB/s."""
import os, re, shutil, socket, ssl, subprocess, tempfile, threading, time

BUFFER = 1 << 20


def sha256_mib_s(seconds=3):
    """`openssl speed -evp sha256`, the 16384-byte column, one core."""
    out = subprocess.run(["openssl", "speed", "-evp", "sha256", "-bytes", "16384", "-seconds", str(seconds), "-mr"],
                         capture_output=True, text=True).stdout
    m = re.search(r"^\+F:\d+:sha256:([\d.]+)", out, re.M)
    if not m:
        out = subprocess.run(["openssl", "speed", "-evp", "sha256", "-mr"], capture_output=True, text=True).stdout
        m = re.search(r"^\+F:\d+:sha256:(?:[\d.]+:){5}([\d.]+)", out, re.M)
    return float(m.group(1)) / 2**20 if m else None


def _pump(server, client, seconds):
    """Sends from client to server for `seconds`; returns MiB/s seen by the receiver."""
    received = [0, 0.0]

    def sink():
        buf = bytearray(BUFFER)
        view = memoryview(buf)
        t0 = time.monotonic()
        n = 0
        while True:
            k = server.recv_into(view)
            if not k:
                break
            n += k
        received[0], received[1] = n, time.monotonic() - t0

    reader = threading.Thread(target=sink)
    reader.start()
    data = memoryview(os.urandom(BUFFER))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        client.sendall(data)
    client.shutdown(socket.SHUT_WR)
    reader.join()
    return received[0] / received[1] / 2**20


def _pair():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname())
    server, _ = listener.accept()
    listener.close()
    return server, client


def tcp_mib_s(seconds=2):
    server, client = _pair()
    try:
        return _pump(server, client, seconds)
    finally:
        server.close()
        client.close()


def tls_mib_s(seconds=2):
    """TLS with AES-128-GCM, the bulk cipher both agents negotiate (TLS 1.2 records here,
    because Python cannot choose among TLS 1.3 suites; the bulk work is the same)."""
    with tempfile.TemporaryDirectory() as d:
        key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", key, "-out", cert, "-subj", "/CN=bench", "-days", "1"], check=True, capture_output=True)
        sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        sctx.load_cert_chain(cert, key)
        cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        cctx.load_verify_locations(cert)
        cctx.check_hostname = False
        for ctx in (sctx, cctx):
            ctx.maximum_version = ssl.TLSVersion.TLSv1_2
            ctx.set_ciphers("ECDHE-ECDSA-AES128-GCM-SHA256")
        raw_server, raw_client = _pair()
        box = {}
        handshake = threading.Thread(target=lambda: box.update(s=sctx.wrap_socket(raw_server, server_side=True)))
        handshake.start()
        client = cctx.wrap_socket(raw_client)
        handshake.join()
        server = box["s"]
        cipher = f"{client.version()} {client.cipher()[0]}"
        try:
            return _pump(server, client, seconds), cipher
        finally:
            server.close()
            client.close()


def measure(seconds):
    """One sample of each limit: {"sha256": MiB/s, "tcp": MiB/s, "tls": MiB/s, "cipher": name};
    None for the openssl ones where the openssl command is missing."""
    has_openssl = shutil.which("openssl") is not None
    tls, cipher = tls_mib_s(seconds) if has_openssl else (None, "openssl missing")
    return {"sha256": sha256_mib_s(seconds) if has_openssl else None, "tcp": tcp_mib_s(seconds), "tls": tls, "cipher": cipher}


if __name__ == "__main__":
    print(measure(1))
