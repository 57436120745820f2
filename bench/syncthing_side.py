"""Syncthing (Debian's 1.19 package) in the benchmark: instances locked down to loopback
before their first start, driven and read through the REST API."""
import json, os, secrets, shutil, subprocess, time, urllib.error, urllib.request
import xml.etree.ElementTree as ET

import host

FOLDER = "bench"
LONG_RESCAN_S = 86400
# Options set before the first start, so that nothing ever leaves loopback and nothing
# competes with the figures (docs/benchmarks.md lists them).
LOCKDOWN = {
    "globalAnnounceEnabled": "false",
    "localAnnounceEnabled": "false",
    "relaysEnabled": "false",
    "natEnabled": "false",
    "urAccepted": "-1",
    "urSeen": "3",
    "crashReportingEnabled": "false",
    "autoUpgradeIntervalH": "0",
    "startBrowser": "false",
    "announceLANAddresses": "false",
    "stunKeepaliveStartS": "0",
    "stunKeepaliveMinS": "0",
    "setLowPriority": "false",
}


def available():
    return shutil.which("syncthing") is not None


def version():
    out = subprocess.run(["syncthing", "serve", "--version"], capture_output=True, text=True).stdout.split()
    return out[1] if len(out) > 1 else "?"


def environment(home):
    # STMONITORED runs the syncing process itself, without the monitor process that would
    # only restart it and relay its log, so that its pid is the one measured.
    env = dict(os.environ, STNODEFAULTFOLDER="1", STNOUPGRADE="1", STNORESTART="1", STMONITORED="yes", HOME=home)
    env.pop("STTRACE", None)
    return env


class Instance:
    """One syncthing process: its home folder, config, ports and REST client."""

    def __init__(self, home, name, root):
        self.home, self.name, self.root = home, name, root
        self.gui_port, self.port = host.free_port(), host.free_port()
        self.apikey = secrets.token_hex(16)
        self.proc = None
        os.makedirs(home, exist_ok=True)
        os.makedirs(os.path.join(root, ".stfolder"), exist_ok=True)
        subprocess.run(["syncthing", "generate", "--home", home, "--no-default-folder", "--skip-port-probing"],
                       check=True, capture_output=True, env=environment(home))
        self.device_id = subprocess.run(["syncthing", "serve", "--device-id", "--home", home], check=True,
                                        capture_output=True, text=True, env=environment(home)).stdout.strip()

    def configure(self, peers):
        """Writes the locked-down config: loopback GUI and listener, the peers at their
        loopback addresses, one folder shared with them."""
        path = os.path.join(self.home, "config.xml")
        tree = ET.parse(path)
        cfg = tree.getroot()
        me = cfg.find("device")
        me.set("name", self.name)
        gui = cfg.find("gui")
        gui.set("tls", "false")
        gui.find("address").text = f"127.0.0.1:{self.gui_port}"
        gui.find("apikey").text = self.apikey
        opts = cfg.find("options")
        for e in opts.findall("listenAddress"):
            opts.remove(e)
        listen = ET.SubElement(opts, "listenAddress")
        listen.text = f"tcp://127.0.0.1:{self.port}"
        for key, value in LOCKDOWN.items():
            e = opts.find(key)
            if e is None:
                e = ET.SubElement(opts, key)
            e.text = value
        template = cfg.find("defaults/device")
        index = list(cfg).index(me) + 1
        for peer in peers:
            d = ET.fromstring(ET.tostring(template))
            d.set("id", peer.device_id)
            d.set("name", peer.name)
            d.find("address").text = f"tcp://127.0.0.1:{peer.port}"
            cfg.insert(index, d)
        folder = ET.fromstring(ET.tostring(cfg.find("defaults/folder")))
        folder.set("id", FOLDER)
        folder.set("label", FOLDER)
        folder.set("path", self.root)
        folder.set("rescanIntervalS", str(LONG_RESCAN_S))
        folder.set("fsWatcherEnabled", "true")
        for d in folder.findall("device"):
            folder.remove(d)
        for device_id in [self.device_id] + [p.device_id for p in peers]:
            d = ET.Element("device", {"id": device_id, "introducedBy": ""})
            ET.SubElement(d, "encryptionPassword")
            folder.insert(1, d)
        cfg.insert(0, folder)
        tree.write(path)

    def spawn(self):
        self.log = open(os.path.join(self.home, "syncthing.log"), "ab")
        self.proc = subprocess.Popen(["syncthing", "serve", "--home", self.home, "--no-browser", "--no-restart",
                                      "--no-upgrade", "--no-default-folder", "--skip-port-probing"],
                                     stdout=self.log, stderr=self.log, env=environment(self.home))

    def start(self):
        self.spawn()
        host.wait(self.up, 120, f"syncthing {self.name} to start", interval=0.02)

    def stop(self):
        host.stop_process(self.proc, self.log)

    def rest(self, method, path, timeout=600):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui_port}{path}", method=method,
                                         headers={"X-API-Key": self.apikey})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body.strip() else None

    def up(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"syncthing {self.name} exited with {self.proc.returncode}; see {self.home}/syncthing.log")
        try:
            return self.rest("GET", "/rest/system/ping", timeout=2).get("ping") == "pong"
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def folder_status(self):
        return self.rest("GET", f"/rest/db/status?folder={FOLDER}")

    def scan(self, sub=None):
        """Asks for a scan and returns when it is done (the REST call blocks until then)."""
        query = f"folder={FOLDER}" + (f"&sub={urllib.request.quote(sub)}" if sub else "")
        self.rest("POST", f"/rest/db/scan?{query}")

    def connection(self, device_id):
        return self.rest("GET", "/rest/system/connections")["connections"].get(device_id, {})


class SyncthingPair(host.AgentPair):
    """The side interface of workload.py for two Syncthing instances: alpha writes, beta
    receives. With `triggers` the writer's folder is scanned through REST right after each
    write, so that the watcher's delay (10 s by default) does not decide the figure."""

    name = "Syncthing"

    def __init__(self, work):
        self.triggers = True
        self.a = Instance(os.path.join(work, "a", "home"), "alpha", os.path.join(work, "a", "folder"))
        self.b = Instance(os.path.join(work, "b", "home"), "beta", os.path.join(work, "b", "folder"))
        self.a.configure([self.b])
        self.b.configure([self.a])
        self.sender_root, self.receiver_root = self.a.root, self.b.root

    def start(self):
        self.a.start()
        self.b.start()
        host.wait(lambda: self.b.connection(self.a.device_id).get("connected"), 120, "the Syncthing instances to connect", 0.05)
        for i in (self.a, self.b):
            host.wait(lambda: i.folder_status()["state"] == "idle", 120, f"syncthing {i.name}'s folder to be idle", 0.05)

    def after_write(self, rel, trigger=True):
        if trigger and self.triggers:
            self.a.scan(rel)

    def receiver_state(self):
        s = self.b.folder_status()
        return s["localFiles"], s["needTotalItems"] != 0

    def received_bytes(self):
        return self.b.connection(self.a.device_id)["inBytesTotal"]

    def kv_latencies(self, samples):
        return None  # Syncthing has no key-value store


class SyncthingSingle:
    """One Syncthing instance indexing a folder it finds full, for the many-files figure."""

    name = "Syncthing"

    def __init__(self, work, root):
        self.instance = Instance(os.path.join(work, "solo"), "solo", root)
        self.instance.configure([])

    def spawn(self):
        self.instance.spawn()

    def indexed(self, n):
        if not self.instance.up():
            return False
        s = self.instance.folder_status()
        return s["localFiles"] == n and s["state"] == "idle"

    def rescan(self):
        t0 = time.monotonic()
        self.instance.scan()
        return time.monotonic() - t0, None

    def pid(self):
        return self.instance.proc.pid

    def stop(self):
        self.instance.stop()
