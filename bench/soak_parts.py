"""The parts bench/run_soak drives: a simulated fabric, the daemon (restarted after SIGKILL
with the same state directory), a real Prometheus, and the observers that read the daemon
while it runs (SNMP walks, /metrics scrapes, its RSS). Python 3 standard library only."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log(text):
    print(f"[soak {time.strftime('%H:%M:%S')}] {text}", flush=True)


class Fabric:
    def __init__(self, ibpulse, root, name, hosts, radix):
        self.ibpulse, self.root, self.name = ibpulse, root, name
        self.run([self.ibpulse, "sim", "up", "--name", name, "--root", root, "--hosts",
                  str(hosts), "--radix", str(radix)])
        with open(os.path.join(root, name, "ports.json")) as f:
            self.ports = [p for p in json.load(f) if "remote_node" in p]
        self.guid = {p["node"]: p["node_guid"] for p in self.ports}
        # The LID that reaches each port's PMA (a switch's port-0 LID for its ports), kept up to
        # date by new_lid().
        self.lids = {(p["node"], p["port"]): p["lid"] for p in self.ports}

    def new_lid(self, node, port, lid):
        self.sim("lid", f"{node}[{port}]", str(lid))
        self.lids[(node, port)] = lid

    @staticmethod
    def run(command, check=True):
        out = subprocess.run(command, capture_output=True, text=True)
        if check and out.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {out.stderr.strip()}")
        return out

    def sim(self, verb, *args, check=True):
        return self.run([self.ibpulse, "sim", verb, "--name", self.name, "--root", self.root,
                         *args], check)

    def attach(self, command, host=None):
        where = ["--host", host] if host else []
        return [self.ibpulse, "sim", "exec", "--name", self.name, "--root", self.root, *where,
                "--", *command]

    def link_state(self, node, port):
        """The link's LinkState (Active, Initialize, ...), or None when unknown. Read at the
        peer's end first (a switch port, not on a lossy link), then, if that is Active, at the
        port's own end by a directed route from the peer: opensm may leave a port that loses
        its SMPs Armed while its peer is Active, and no PMA answers there."""
        peer = next((p for p in self.ports if p["node"] == node and p["port"] == port), None)
        if peer is None:
            return None
        lid = self.lids.get((peer["remote_node"], peer["remote_port"]))
        out = self.run(self.attach(["smpquery", "portinfo", str(lid),
                                    str(peer["remote_port"])]), check=False)
        match = re.search(r"^LinkState:\.*(\w+)", out.stdout, re.M)
        peer_state = match.group(1) if match else None
        if peer_state != "Active":
            return peer_state
        for _ in range(4):  # the port's own end may lose the SMP
            out = self.run(self.attach(["smpquery", "-D", "portinfo",
                                        f"0,{peer['remote_port']}", str(port)],
                                       host=peer["remote_node"]), check=False)
            match = re.search(r"^LinkState:\.*(\w+)", out.stdout, re.M)
            if match:
                return match.group(1)
        return peer_state

    def down(self):
        self.sim("down", check=False)


class Daemon:
    """`ibpulse run` on the fabric; SIGKILLed and started again on the same state directory."""

    def __init__(self, fabric, state_dir, web_port, snmp_port, extra):
        self.fabric, self.state_dir = fabric, state_dir
        self.web_port, self.snmp_port, self.extra = web_port, snmp_port, extra
        self.process, self.log_file, self.starts, self.crashes = None, None, 0, 0
        self.rss = []  # (incarnation, seconds since its start, kB)

    def start(self):
        self.starts += 1
        self.log_path = os.path.join(self.state_dir, f"daemon-{self.starts}.log")
        self.log_file = open(self.log_path, "w")
        command = self.fabric.attach([
            self.fabric.ibpulse, "run", "--state.dir", self.state_dir,
            "--web.listen-address", f"127.0.0.1:{self.web_port}",
            "--snmp.listen", f"127.0.0.1:{self.snmp_port}", "--snmp.community", "public",
            *self.extra])
        self.process = subprocess.Popen(command, stdout=self.log_file, stderr=self.log_file,
                                        start_new_session=True)
        self.started_at = time.monotonic()
        self.wait_for("event=ready", 120)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def log_lines(self, text, count):
        """The last `count` lines naming `text` over every incarnation's log, each with its
        incarnation number."""
        lines = []
        for start in range(1, self.starts + 1):
            path = os.path.join(self.state_dir, f"daemon-{start}.log")
            if os.path.exists(path):
                with open(path) as f:
                    lines += [f"  #{start} {line.rstrip()}" for line in f
                              if text in line and "event=alert" not in line]
        return "\n".join(lines[-count:])

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while text not in self.log():
            if self.process.poll() is not None:
                raise RuntimeError(f"the daemon exited ({self.process.returncode}) before "
                                   f"'{text}':\n{self.log()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"no '{text}' in {seconds} s:\n{self.log()[-2000:]}")
            time.sleep(0.2)

    def pid(self):
        """The `ibpulse run` process itself (sim exec runs it as a child)."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if b"run" in argv and self.state_dir.encode() in argv and b"exec" not in argv:
                return int(entry)
        return None

    def sweeps(self):
        text = get(f"http://127.0.0.1:{self.web_port}/metrics/self")
        m = re.search(r"^ibpulse_sweeps_total (\d+)", text or "", re.M)
        return int(m.group(1)) if m else -1

    def wait_sweeps(self, more, seconds=120):
        deadline = time.monotonic() + seconds
        start = self.sweeps()
        while self.sweeps() < start + more:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"no {more} more sweeps:\n{self.log()[-2000:]}")
            time.sleep(0.2)

    def check_alive(self):
        if self.process is not None and self.process.poll() is not None:
            self.crashes += 1
            raise RuntimeError(f"the daemon died ({self.process.returncode}):\n"
                               f"{self.log()[-3000:]}")

    def sigkill(self):
        self.check_alive()
        pid = self.pid()
        if pid is None:
            raise RuntimeError("cannot find the daemon's process")
        os.kill(pid, signal.SIGKILL)
        self.process.wait(30)
        self.log_file.close()

    def stop(self):
        self.check_alive()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        self.log_file.close()
        if code != 0 or "event=stopped" not in self.log():
            self.crashes += 1
            raise RuntimeError(f"the daemon's clean stop exited {code}:\n{self.log()[-3000:]}")

    def sample_rss(self):
        pid = self.pid()
        if pid is None:
            return
        try:
            with open(f"/proc/{pid}/status") as f:
                kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
        except (OSError, AttributeError):
            return
        self.rss.append((self.starts, time.monotonic() - self.started_at, kb))


def get(url, timeout=30, why=None):
    """The body, or None when no whole answer came (a daemon killed mid-scrape cuts it short:
    IncompleteRead, an HTTPException, not an OSError); `why` (a list) gets the reason."""
    began = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.read().decode()
    except (OSError, http.client.HTTPException) as e:
        if why is not None:
            why.append(f"{type(e).__name__}: {e} after {time.monotonic() - began:.1f} s")
        return None


def exported(metrics_text, family):
    """{(node_guid, port): value} of one counter family in a /metrics text."""
    return {k: int(v) for k, v in exported_float(metrics_text, family).items()}


def exported_float(metrics_text, family):
    """{(node_guid, port): value} of one per-port gauge family in a /metrics text."""
    pattern = re.compile(r"^" + family + r'\{[^}]*node_guid="([^"]+)"[^}]*port="(\d+)"[^}]*\} (\S+)',
                         re.M)
    return {(g, int(p)): float(v) for g, p, v in pattern.findall(metrics_text)}


class Prometheus:
    def __init__(self, workdir, target_port):
        self.port = free_port()
        config = os.path.join(workdir, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global: {scrape_interval: 5s, scrape_timeout: 5s}\n"
                    "scrape_configs:\n"
                    "  - job_name: ibpulse\n"
                    f"    static_configs: [{{targets: ['127.0.0.1:{target_port}']}}]\n"
                    "    metric_relabel_configs:\n"
                    "      - {source_labels: [__name__], regex: 'infiniband_port_.*_total', "
                    "action: keep}\n")
        self.log_file = open(os.path.join(workdir, "prometheus.log"), "w")
        self.process = subprocess.Popen(
            ["prometheus", f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(workdir, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log_file, stderr=self.log_file, start_new_session=True)

    def query(self, expr):
        url = (f"http://127.0.0.1:{self.port}/api/v1/query?query=" +
               urllib.request.quote(expr))
        answer = get(url, timeout=120)
        return json.loads(answer)["data"]["result"] if answer else None

    def decreases(self, family, labels, window, began):
        """Where a series went down: "t=SECONDS: BEFORE -> AFTER", t from `began`."""
        selector = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        answer = self.query(f"{family}{{{selector}}}[{window}s]")
        if not answer:
            return "(no samples)"
        values = answer[0]["values"]
        steps = [(float(t1), f"t={float(t1) - began:.0f}: {v0} -> {v1}")
                 for (t0, v0), (t1, v1) in zip(values, values[1:]) if float(v1) < float(v0)]
        if not steps:
            return "(no decrease found)"
        parts = [text for _, text in steps[:4]]
        related = ["infiniband_port_rcv_packets_total", "infiniband_port_unicast_rcv_packets_total",
                   "infiniband_port_xmit_packets_total",
                   "infiniband_port_unicast_xmit_packets_total"]
        if family.startswith("infiniband_port_if_"):
            parts.append("around it: " + self.around(related, labels, steps[0][0], window))
        return "; ".join(parts)

    def around(self, families, labels, at, window):
        """The values of `families` for one port at the samples nearest `at` (epoch seconds):
        what the counters an IF-MIB value is made of did when it went down."""
        selector = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        lines = []
        for family in families:
            answer = self.query(f"{family}{{{selector}}}[{window}s]")
            values = answer[0]["values"] if answer else []
            near = [f"{float(t) - at:+.0f}s={v}" for t, v in values if abs(float(t) - at) <= 12]
            lines.append(f"{family}: {' '.join(near) or '(none)'}")
        return "; ".join(lines)

    def names(self, pattern):
        """The metric names Prometheus holds that match `pattern` (a full match)."""
        answer = get(f"http://127.0.0.1:{self.port}/api/v1/label/__name__/values", timeout=120)
        names = json.loads(answer)["data"] if answer else []
        return [n for n in names if re.fullmatch(pattern, n)]

    def stop(self):
        self.process.terminate()
        self.process.wait(60)


class Observers:
    """SNMP walks and /metrics scrapes throughout, and the daemon's RSS every 10 s."""

    def __init__(self, daemon):
        self.daemon, self.stop_flag = daemon, threading.Event()
        self.walks = self.scrapes = self.failed_while_up = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        last_rss = 0.0
        while not self.stop_flag.wait(3):
            up = self.daemon.process is not None and self.daemon.process.poll() is None
            walk = subprocess.run(
                ["snmpbulkwalk", "-v2c", "-c", "public", "-Cr50", "-Oq", "-t", "10", "-r", "1",
                 f"127.0.0.1:{self.daemon.snmp_port}", "1.3.6.1.2.1.31.1.1.1.6"],
                capture_output=True, text=True)
            why = []
            scrape = get(f"http://127.0.0.1:{self.daemon.web_port}/metrics", why=why)
            self.walks += walk.returncode == 0
            self.scrapes += scrape is not None
            still_up = self.daemon.process.poll() is None
            if up and still_up and (walk.returncode != 0 or scrape is None):
                self.failed_while_up += 1
                log(f"observers: failed while daemon #{self.daemon.starts} was up: "
                    + (f"snmpbulkwalk exit {walk.returncode}: {walk.stderr.strip()[:200]}; "
                       if walk.returncode != 0 else "")
                    + (f"scrape: {why[0]}" if why else ""))
            if time.monotonic() - last_rss >= 10:
                self.daemon.sample_rss()
                last_rss = time.monotonic()

    def stop(self):
        self.stop_flag.set()
        self.thread.join()


def if_identities(snmp_port):
    """{"<node GUID>/<port>": ifIndex} from the daemon's agent, read from ifDescr
    ("<node name> port <n> (node GUID 0x...)"): the identity an ifIndex is kept for. ifName is
    not one: it changes when a NodeDescription is learnt late (a lossy discovery names the node
    by its GUID until a description arrives)."""
    out = subprocess.run(["snmpbulkwalk", "-v2c", "-c", "public", "-Cr50", "-On", "-Oq", "-t",
                          "10", f"127.0.0.1:{snmp_port}", "1.3.6.1.2.1.2.2.1.2"],
                         capture_output=True, text=True).stdout
    identities = {}
    for line in out.splitlines():
        oid, _, value = line.partition(" ")
        match = re.search(r" port (\d+) \(node GUID (0x[0-9a-fA-F]+)\)$", value.strip('"'))
        if match:
            identities[f"{match.group(2)}/{match.group(1)}"] = oid.rsplit(".", 1)[-1]
    return identities
