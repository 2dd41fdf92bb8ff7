# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The host suite's part prometheus: stats --prometheus and node_exporter's
textfile (user/lib/output/prom.c), read through Prometheus' own parser of the
exposition format (prom.py): every sample of known frames exact per device
and label, the families' names, types, HELP and TYPE, label escaping, no
address among the labels, the netns label of --all, and the textfile
written atomically. It shares the suite's namespace NS and plane, binds
taps of its own there and in a namespace of its own, NSp, and removes
them before it returns."""
import json
import os
import re
import subprocess
import tempfile

from hostsuite import in_ns, ns_add, ns_del, run, taps_add

HERE = os.path.dirname(os.path.abspath(__file__))
# Debian's python, which python3-prometheus-client is installed for (a
# python3 earlier in PATH may be another).
PY = "/usr/bin/python3"


class Prom:
    """The scrapes of one run: each kept as TMP/NAME (the text) and
    TMP/NAME.flat (what prom.py read of it)."""

    def __init__(self, t, ns, ta_bin, tapio, tmp):
        self.t, self.ns, self.ta_bin, self.tapio, self.tmp = t, ns, ta_bin, tapio, tmp

    def ta(self, *args, ns=None):
        return in_ns(ns or self.ns, [self.ta_bin, *map(str, args)])

    def out(self, cmd):
        return run(cmd, merge=True).out.rstrip("\n")

    def send(self, want, *args, ns=None):
        self.t.check(f"tapio {' '.join(map(str, args))}", want,
                     self.out(in_ns(ns or self.ns, [self.tapio, *map(str, args)])))

    def scrape(self, name, *args):
        """'tap-accel stats --prometheus ARGS' into TMP/NAME, and parsed."""
        r = run(self.ta("stats", "--prometheus", *args), binary=True)
        with open(f"{self.tmp}/{name}", "wb") as f:
            f.write(r.out)
        if r.rc:
            self.t.bad(f"stats --prometheus {' '.join(args)}: {r.err.decode(errors='replace').strip()}")
        self.parse(f"{self.tmp}/{name}")

    def parse(self, path):
        """PATH read by the parser, into PATH.flat: a check."""
        with open(path, "rb") as text, open(f"{path}.flat", "wb") as flat:
            p = subprocess.run([PY, f"{HERE}/prom.py"], stdin=text, stdout=flat, stderr=subprocess.PIPE)
        self.t.ok(p.stderr.decode(errors="replace").strip(), p.returncode == 0)

    def text(self, name):
        with open(f"{self.tmp}/{name}", encoding="utf-8", errors="replace") as f:
            return f.read()

    def flat(self, name):
        with open(f"{self.tmp}/{name}.flat", encoding="utf-8") as f:
            return f.read().splitlines()

    def sample(self, name, metric, *labels):
        """The value of the series of METRIC with exactly these labels
        (KEY=VALUE), in scrape NAME; '' if there is none."""
        want = f"sample {metric} {''.join(x + ' ' for x in sorted(labels))}="
        return "\n".join(x[len(want) + 1:] for x in self.flat(name) if x.startswith(want))

    def samples(self, name, metric):
        return sum(x.startswith(f"sample {metric} ") for x in self.flat(name))

    def label_names(self, name):
        """The label names of every sample of scrape NAME, sorted, each
        followed by a space (the host's gauges have none)."""
        names = set()
        for x in self.flat(name):
            m = re.match(r"sample [^ ]* (.*) = ", x)
            if m:
                names |= {label.split("=")[0] for label in m.group(1).split(" ") if label}
        return "".join(n + " " for n in sorted(names))

    def devices(self, name):
        """The devices of scrape NAME's tapaccel_frames_total, a line each."""
        return "\n".join(sorted({m for x in self.flat(name) if x.startswith("sample tapaccel_frames_total ")
                                 for m in re.findall(r"device=[^ ]*", x)}))

    def of_tap(self, name, metric, tap):
        """How many samples of METRIC scrape NAME has for TAP of this namespace."""
        return sum(x.startswith(f"sample {metric} ") and f" device={tap} " in x and " netns=" not in x
                   for x in self.flat(name))

    def unique(self, name):
        """Series that scrape NAME has twice: none."""
        series = [re.sub(r" = [0-9]*$", "", x) for x in self.flat(name) if x.startswith("sample ")]
        return "\n".join(sorted({x for x in series if series.count(x) > 1}))

    def json_bytes(self, tap, verdict):
        """Bytes of a verdict in 'stats TAP --json'."""
        try:
            return json.loads(self.out(self.ta("stats", tap, "--json")))["verdict"][verdict]["bytes"]
        except (ValueError, KeyError):
            return ""

    def attached(self, *args):
        return sum(x.endswith(" attached") for x in self.out(self.ta("status", *args)).splitlines())


def prometheus_part(t, ns, ta_bin, tapio, promfile):
    """The part; it cleans up after itself whatever happens."""
    pid = os.getpid()
    g = f"tp{pid}g"  # a guarded tap
    q = f'tp"\\{pid}'  # a name with a double quote and a backslash: labels escape them
    qd = f'tp"(backslash){pid}'  # q in messages
    nsp = f"{ns}p"  # another namespace, with a tap named as g
    lt = f"tp{pid}l"  # a tap renamed once bound: to l8, é in UTF-8, to l1, é in Latin-1
    l8 = f"tp\u00e9{pid}"
    l1 = os.fsdecode(b"tp\xe9" + str(pid).encode())
    lr = f"tp\ufffd{pid}"  # l1 as a label: é became U+FFFD
    tmp = tempfile.mkdtemp()
    p = Prom(t, ns, ta_bin, tapio, tmp)
    try:
        if run([PY, "-c", "import prometheus_client.parser"]).rc:
            t.bad(f"no prometheus_client for {PY}: 'make deps' installs python3-prometheus-client")
            return
        checks(t, p, ns, ta_bin, promfile, g, q, qd, nsp, lt, l8, l1, lr)
    finally:
        run(p.ta("detach", g, q))
        run(in_ns(nsp, [ta_bin, "detach", g]))
        run(["ip", "-n", ns, "link", "set", l8, "name", lt])
        run(["ip", "-n", ns, "link", "set", l1, "name", lt])
        run(p.ta("detach", lt))
        for tap in (g, q, lt):
            run(["ip", "-n", ns, "link", "del", tap])
        ns_del(nsp)
        run(["rm", "-rf", tmp])


def checks(t, p, ns, ta_bin, promfile, g, q, qd, nsp, lt, l8, l1, lr):
    tmp = p.tmp
    print("# stats --prometheus: taps with known frames")
    with open(f"{tmp}/promweb.policy", "w") as f:
        f.write("rule drop proto udp dport 9\nrule tx proto udp dport 10\ndefault pass\n")
    with open(f"{tmp}/promfwd.policy", "w") as f:
        f.write("default forward\n")
    if not taps_add(ns, g, q):
        t.bad(f"cannot create taps {g} and {q}")
    t.expect_exit(0, f"attached tap-accel to {g} .*policy promweb",
                  p.ta("attach", g, "--policy", f"{tmp}/promweb.policy", "--guard", "mac=52:54:00:00:00:01,ip=10.0.0.1"))
    t.expect_exit(0, f'attached tap-accel to tp"\\\\{os.getpid()} .*policy promweb',
                  p.ta("attach", q, "--policy", "promweb"))
    p.send("sent 100 tx 0 redirect 0 pass 0", g, "--count", 100, "--dport", 9)
    p.send("sent 40 tx 40 redirect 0 pass 0", g, "--count", 40, "--dport", 10)
    p.send("sent 20 tx 0 redirect 0 pass 20", g, "--count", 20, "--proto", "tcp", "--dport", 80)
    p.send("sent 5 tx 0 redirect 0 pass 0", g, "--count", 5, "--src", "10.0.0.66")
    p.send("sent 3 tx 0 redirect 0 pass 0", g, "--count", 3, "--smac", "52:54:00:00:00:66")
    p.send("sent 7 tx 0 redirect 0 pass 0", q, "--count", 7, "--dport", 9)
    p.send("sent 4 tx 0 redirect 0 pass 4", q, "--count", 4, "--dport", 12)
    # IPv4-mapped source: a parse drop (ip6_v4mapped), before any rule
    p.send("sent 6 tx 0 redirect 0 pass 0", q, "--count", 6, "--src", "::ffff:10.9.9.9", "--dst", "fd00::2")
    if not (ns_add(nsp) and taps_add(nsp, g)):
        t.bad(f"cannot create {g} in {nsp}")
    t.expect_exit(0, f"attached tap-accel to {g} .*policy promfwd",
                  p.ta("attach", g, "--policy", f"{tmp}/promfwd.policy", ns=nsp))
    p.send("sent 9 tx 0 redirect 0 pass 9", g, "--count", 9, ns=nsp)
    m = re.search(r'"policy":"promweb",[^}]*', p.out(p.ta("policy", "list", "--json")))
    digest = re.search(r"[0-9a-f]{16}", m.group(0)).group(0) if m else ""

    p.scrape("here")
    here, flat = p.text("here"), p.flat("here")

    print("# the families: names, types, HELP and TYPE once each")
    for name, kind in (("taps_bound", "gauge"), ("policy_info", "gauge"), ("tap_info", "gauge"),
                       ("frames_total", "counter"), ("bytes_total", "counter"), ("guard_drops_total", "counter"),
                       ("parse_total", "counter"), ("events_total", "counter"),
                       ("conntrack_total", "counter"), ("conntrack_tracked", "gauge"),
                       ("conntrack_table_tracked", "gauge"), ("conntrack_table_max", "gauge"),
                       ("conntrack_tap_limit", "gauge"), ("conntrack_table_entries", "gauge"),
                       ("conntrack_entry_bytes", "gauge")):
        name = f"tapaccel_{name}"
        lines = here.splitlines()
        t.check(f"# TYPE {name} {kind}", 1, lines.count(f"# TYPE {name} {kind}"))
        t.check(f"# HELP {name}", 1, sum(re.match(f"# HELP {name} [A-Z]", x) is not None for x in lines))
        # the parser names a counter family without _total
        family = name[:-len("_total")] if name.endswith("_total") else name
        t.check(f"parsed: family {name}", 1, sum(re.match(f"family {family} {kind} [1-9]", x) is not None
                                                  for x in flat))
    t.check("parsed: no other family (a sample apart from its family would make one)", 15,
            sum(x.startswith("family ") for x in flat))
    t.check("counter samples end in _total", "", "\n".join(
        x for x in flat if x.startswith("sample ") and not re.match(
            r"sample tapaccel_[a-z_]*_total |sample tapaccel_(taps_bound|policy_info|tap_info|conntrack_tracked|"
            r"conntrack_table_tracked|conntrack_table_max|conntrack_tap_limit|conntrack_table_entries|"
            r"conntrack_entry_bytes) ", x)))
    t.check("no series twice", "", p.unique("here"))
    t.check("the text ends with a newline", "", "" if here.endswith("\n") else here[-1:])
    t.check("rule counters only with --rules", 0, sum("tapaccel_rule_frames" in x for x in here.splitlines()))

    print(f"# the samples of {g}: verdicts, bytes, guard")
    for verdict, frames in (("drop", 108), ("tx", 40), ("pass", 20), ("aborted", 0), ("redirect", 0)):
        t.check(f"{g} frames, verdict {verdict}", frames,
                p.sample("here", "tapaccel_frames_total", f"device={g}", "policy=promweb", f"verdict={verdict}"))
        t.check(f"{g} bytes, verdict {verdict}, as stats --json", p.json_bytes(g, verdict),
                p.sample("here", "tapaccel_bytes_total", f"device={g}", "policy=promweb", f"verdict={verdict}"))
    t.check(f"{g} bytes of drops: 108 frames of 54 bytes", 5832,
            p.sample("here", "tapaccel_bytes_total", f"device={g}", "policy=promweb", "verdict=drop"))
    for reason, n, why in (("ip4_src", 5, ""), ("src_mac", 3, ""), ("arp_spa", 0, ": zero, written")):
        t.check(f"{g} guard {reason}{why}", n,
                p.sample("here", "tapaccel_guard_drops_total", f"device={g}", "policy=promweb", f"reason={reason}"))
    t.check(f"{g} tap_info", 1,
            p.sample("here", "tapaccel_tap_info", f"device={g}", "guard=mac,ip4", "mode=native", "policy=promweb"))
    t.check("policy_info of promweb, its digest", 1,
            p.sample("here", "tapaccel_policy_info", f"digest={digest}", "policy=promweb"))

    print(f"# the samples of {qd}: a name escaped, parse classes")
    t.check(f"{qd} frames, verdict drop", 13,
            p.sample("here", "tapaccel_frames_total", f"device={q}", "policy=promweb", "verdict=drop"))
    t.check(f"{qd} frames, verdict pass", 4,
            p.sample("here", "tapaccel_frames_total", f"device={q}", "policy=promweb", "verdict=pass"))
    t.check(f"{qd} parse ip6_v4mapped", 6,
            p.sample("here", "tapaccel_parse_total", "class=ip6_v4mapped", f"device={q}", "policy=promweb"))
    t.check(f"{qd} parse runt: zero, written", 0,
            p.sample("here", "tapaccel_parse_total", "class=runt", f"device={q}", "policy=promweb"))
    t.check(f"{qd} tap_info: no guard", 1,
            p.sample("here", "tapaccel_tap_info", f"device={q}", "guard=none", "mode=native", "policy=promweb"))
    escaped = 'tapaccel_tap_info{device="tp\\"\\\\%d",policy="promweb",' % os.getpid()
    t.check(f"{qd} escaped in the text", 1, sum(escaped in x for x in here.splitlines()))
    for tap, d in ((g, g), (q, qd)):
        for metric, n, what in (("frames_total", 5, "a series per verdict"),
                                ("bytes_total", 5, "a series per verdict, of bytes"),
                                ("guard_drops_total", 7, "a series per guard reason"),
                                ("parse_total", 16, "a series per parse class"),
                                ("events_total", 4, "a series per event"),
                                ("tap_info", 1, "one tap_info")):
            t.check(f"{d}: {what}", n, p.of_tap("here", f"tapaccel_{metric}", tap))

    print("# no address, MAC or port, and only these labels")
    t.check("no MAC or IP in the text", "", "\n".join(
        x for x in here.splitlines() if re.search(r"52:54:|10\.0\.0\.|10\.9\.9\.|::ffff|fd00:", x)))
    t.check("the label names", "class counter device digest event guard mode policy reason state verdict ",
            p.label_names("here"))
    t.check("taps_bound: as many attached as status lists", p.attached(),
            p.sample("here", "tapaccel_taps_bound", "state=attached"))
    t.check("taps_bound: none gone, none unlinked", "0 0",
            f"{p.sample('here', 'tapaccel_taps_bound', 'state=gone')} "
            f"{p.sample('here', 'tapaccel_taps_bound', 'state=unlinked')}")
    t.check("this namespace only: no netns label", 0, sum(" netns=" in x for x in flat))
    t.check(f"this namespace only: not {nsp}'s tap", "", "\n".join(
        x for x in flat if "policy=promfwd" in x and not x.startswith("sample tapaccel_policy_info ")))

    print("# a tap renamed since it was bound: its name in UTF-8, whatever it is")
    if not taps_add(ns, lt):
        t.bad(f"cannot create tap {lt}")
    t.expect_exit(0, f"attached tap-accel to {lt} .*policy promweb", p.ta("attach", lt, "--policy", "promweb"))
    p.send("sent 2 tx 0 redirect 0 pass 0", lt, "--count", 2, "--dport", 9)
    run(["ip", "-n", ns, "link", "set", lt, "name", l8])
    p.scrape("utf8")
    t.check("a name in UTF-8 stays as it is", 2,
            p.sample("utf8", "tapaccel_frames_total", f"device={l8}", "policy=promweb", "verdict=drop"))
    run(["ip", "-n", ns, "link", "set", l8, "name", l1])
    p.scrape("latin1")
    t.check("a byte not UTF-8 is U+FFFD", 2,
            p.sample("latin1", "tapaccel_frames_total", f"device={lr}", "policy=promweb", "verdict=drop"))
    run(["ip", "-n", ns, "link", "set", l1, "name", lt])
    t.expect_exit(0, f"detached tap-accel from {lt}", p.ta("detach", lt))

    print("# IFACE..., --rules")
    p.scrape("two", g, q, g, "--rules")
    t.check("only the taps named, each once", f"device={q}\ndevice={g}", p.devices("two"))
    t.check("no series twice", "", p.unique("two"))
    t.check("# TYPE tapaccel_rule_frames_total counter", 1,
            p.text("two").splitlines().count("# TYPE tapaccel_rule_frames_total counter"))
    for tap, d, counts in ((g, g, (("0", 100), ("1", 40), ("default", 20))),
                           (q, qd, (("0", 7), ("1", 0), ("default", 4)))):
        for rule, n in counts:
            t.check(f"{d} rule {rule}", n, p.sample("two", "tapaccel_rule_frames_total", f"device={tap}",
                                                     f"digest={digest}", "policy=promweb", f"rule={rule}"))
    t.check("a series per rule and the default", 6, p.samples("two", "tapaccel_rule_frames_total"))
    t.check("--rules adds the label rule", "class counter device digest event guard mode policy reason rule state verdict ",
            p.label_names("two"))

    print(f"# --all: the tap of {nsp} by its namespace's cookie")
    p.scrape("all", "--all")
    try:
        cookie = next(x.get("netns_cookie", "") for x in json.loads(p.out(p.ta("status", "--all", "--json")))
                      if x.get("ifname") == g and x.get("here") is False)
    except (ValueError, StopIteration, AttributeError, TypeError):
        cookie = ""
    t.check(f"{g} of {nsp}: verdict pass", 9, p.sample("all", "tapaccel_frames_total", f"device={g}",
                                                      f"netns={cookie}", "policy=promfwd", "verdict=pass"))
    t.check(f"{g} of {nsp}: fdb misses", 9, p.sample("all", "tapaccel_events_total", f"device={g}",
                                                    "event=fdb_miss", f"netns={cookie}", "policy=promfwd"))
    t.check(f"{g} of {nsp}: tap_info", 1, p.sample("all", "tapaccel_tap_info", f"device={g}", "guard=none",
                                                  "mode=native", f"netns={cookie}", "policy=promfwd"))
    t.check(f"{g} here: no netns label, as before", 108,
            p.sample("all", "tapaccel_frames_total", f"device={g}", "policy=promweb", "verdict=drop"))
    t.check("the taps of this namespace have no netns label", "", "\n".join(
        x for x in p.flat("all") if x.startswith("sample tapaccel_tap_info ")
        and f"netns={cookie} " not in x and "netns=" in x))
    t.check("taps_bound --all: as many attached as status --all lists", p.attached("--all"),
            p.sample("all", "tapaccel_taps_bound", "state=attached"))
    t.check("--all adds the label netns", "class counter device digest event guard mode netns policy reason state verdict ",
            p.label_names("all"))

    print("# ta_prom_write_file: DIR/tap-accel.prom, atomically")
    tf = f"{tmp}/tf"
    os.mkdir(tf)
    t.runs(f"promfile {tf}", in_ns(ns, [promfile, tf]))
    t.check("only tap-accel.prom in DIR", "tap-accel.prom", " ".join(sorted(os.listdir(tf))))
    with open(f"{tf}/tap-accel.prom", "rb") as f:
        written = f.read()
    t.check("the file is stats --prometheus --all", "",
            "" if run(p.ta("stats", "--prometheus", "--all"), binary=True).out == written else "they differ")
    t.check("readable by node_exporter's user", "644", "%o" % (os.stat(f"{tf}/tap-accel.prom").st_mode & 0o777))
    with open(f"{tmp}/first", "wb") as f:
        f.write(written)
    p.parse(f"{tmp}/first")
    p.send("sent 2 tx 0 redirect 0 pass 0", g, "--count", 2, "--dport", 9)
    t.runs(f"promfile {tf}, again", in_ns(ns, [promfile, tf]))
    t.check("written again: still only tap-accel.prom", "tap-accel.prom", " ".join(sorted(os.listdir(tf))))
    with open(f"{tf}/tap-accel.prom", "rb") as f, open(f"{tmp}/again", "wb") as again:
        again.write(f.read())
    p.parse(f"{tmp}/again")
    t.check("written again: the new count", 110,
            p.sample("again", "tapaccel_frames_total", f"device={g}", "policy=promweb", "verdict=drop"))
    open(f"{tmp}/notadir", "w").close()
    t.expect_exit(2, f"cannot write a file in {tmp}/none: No such file or directory", in_ns(ns, [promfile, f"{tmp}/none"]))
    t.expect_exit(2, f"cannot write a file in {tmp}/notadir: Not a directory", in_ns(ns, [promfile, f"{tmp}/notadir"]))

    print("# usage errors")
    t.expect_exit(1, r'^\{"error":"stats: --prometheus and --json exclude each other: pick one format"\}$',
                  p.ta("stats", "--prometheus", "--json"))
    t.expect_exit(1, "stats: --prometheus and --json exclude each other", p.ta("--pretty", "stats", "--prometheus"))
    t.expect_exit(1, "^tap-accel: stats: --prometheus writes totals and takes no --interval",
                  p.ta("stats", "--prometheus", "--interval", "1"))
    t.expect_exit(1, "^tap-accel: stats: --rules goes with --prometheus", p.ta("stats", "--rules"))
    t.expect_exit(1, "interface nosuch0 not found", p.ta("stats", "--prometheus", "nosuch0"))
    t.expect_exit(1, "is not bound to a policy", p.ta("stats", "--prometheus", "lo"))

    t.expect_exit(0, f"detached tap-accel from {g}", p.ta("detach", g, q))
    t.expect_exit(0, f"detached tap-accel from {g}", p.ta("detach", g, ns=nsp))
