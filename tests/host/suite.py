#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Host tests of tap-accel on real taps of the running kernel (stock tun),
in private network namespaces this suite creates and always removes, with
a bpffs of its own (hostsuite.own_bpffs). Frames are written by tapio
(tests/host/tapio.c) into tap A, nonblocking (tun's native XDP) and
blocking (generic XDP); it reports what came back at A's reader (tx), at
B's reader (redirect) and into the stack (pass). Counters from 'tap-accel
stats --json' must equal what was sent, per rule and per verdict, on each
tap's own counters. Then: policies shared by many taps and replaced under
traffic, a thousand taps bound and unbound, bad input, every way of
running tap-accel for a namespace, two taps of one ifindex in two
namespaces, stats --prometheus (prometheus.py), two-way policies with
frames counted on both sides of a tap (conntrack.py: what the stack sends
to a guest, zones, the connection table's limits), and the bpftool-only
path. Ends with "N passed, N failed"."""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "lib", "py"))
sys.path.insert(0, HERE)
from hostsuite import (Suite, Stop, in_ns, ns_add, ns_del, own_bpffs, prepare_cli, run,  # noqa: E402
                       tap_accel_objects, taps_add, taps_batch)
from prometheus import prometheus_part  # noqa: E402
import conntrack  # noqa: E402

BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
TAPIO = f"{BUILD}/tests/host/tapio"
PROMFILE = f"{BUILD}/tests/host/promfile"
ROOT = "/sys/fs/bpf/tap-accel"
# the layout this build writes into ta_config
with open(os.path.join(TOP, "bpf", "tap_accel.h")) as _h:
    LAYOUT = int(re.search(r"#define TA_LAYOUT_VERSION (\d+)", _h.read()).group(1))

# Unique names: netns names are the host's.
ID = os.getpid()
NS = f"tahost{ID}"
A, B, C, D, E, V = (f"ta{ID}{x}" for x in "abcdev")
NSX, NSY, NSS, NSP, NSW = (f"{NS}{x}" for x in "xyspw")
# the two-way parts' (conntrack.py)
NSC, NSZ1, NSZ2, NSL = (f"{NS}{x}" for x in ("c", "z1", "z2", "l"))
W = f"ta{ID}w"
BT = f"/sys/fs/bpf/tahost{ID}"

# The rules every verdict test uses: one per action, CIDRs and a range.
P1 = f"""# one rule per action
rule drop proto udp dport 9
rule tx proto udp dport 10
rule redirect {B} proto udp dport 11
rule drop src 10.9.0.0/16 proto udp dport 1000-2000
rule pass proto tcp dport 22
default pass
"""


def strs(*argv):
    return [str(x) for x in argv]


def call(cmd):
    """cmd run to its end: (exit status, stdout and stderr together)."""
    r = run(strs(*cmd), merge=True)
    return r.rc, r.out


def out(cmd):
    """What cmd prints, stdout and stderr, without the trailing newlines
    (as the shell's $(...))."""
    return call(cmd)[1].rstrip("\n")


def ip(ns, *args):
    return call(["ip", "-n", ns, *args])


def netns_exec(ns, *argv):
    """argv under 'ip netns exec' (a fresh /sys: as an operator runs it)."""
    return strs("ip", "netns", "exec", ns, *argv)


def tap_batch(ns, prefix, n):
    """Taps PREFIX1..PREFIXn in ns, up, in one ip -batch."""
    return taps_batch(ns, [line for i in range(1, n + 1)
                           for line in (f"tuntap add {prefix}{i} mode tap", f"link set {prefix}{i} up")]).rc == 0


def must(t, done, why):
    """A setup step: a failure when it was not done (no pass when it was)."""
    if not done:
        t.bad(why)


class Host:
    """The suite's state: its checks, scratch folder, CLI copy, and the
    namespace the CLI and tapio run in (ns; a section may switch it)."""

    def __init__(self, checks, tmp, ta_bin):
        self.c = checks
        self.tmp = tmp
        self.ta_bin = ta_bin
        self.ns = NS
        self.stats = {}

    def path(self, name):
        return f"{self.tmp}/{name}"

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    # ---- running things ------------------------------------------------------

    def ta(self, *args, ns=None):
        """argv of tap-accel in the namespace (the suite's by default)."""
        return in_ns(ns or self.ns, strs(self.ta_bin, *args))

    def tapio(self, *args, ns=None):
        return in_ns(ns or self.ns, strs(TAPIO, *args))

    def send(self, want, *args, ns=None):
        """tapio's report must be want."""
        self.c.check(f"tapio {' '.join(map(str, args))}", want, out(self.tapio(*args, ns=ns)))

    def expect(self, code, pattern, *args, ns=None):
        """expect_exit of tap-accel ARGS in the namespace."""
        return self.c.expect_exit(code, pattern, self.ta(*args, ns=ns))

    # ---- counters of 'stats IFACE --json' ---------------------------------------

    def stats_json(self, iface, argv=None):
        """Keep the counters of one tap; a failure is shown and leaves none."""
        rc, text = call(argv or self.ta("stats", iface, "--json"))
        self.load_stats(text if rc == 0 else "")
        if rc != 0:
            print(text, end="")

    def load_stats(self, text):
        """Counters from the first line of text that is a tap's JSON."""
        self.stats = {}
        for line in text.splitlines():
            if line.startswith('{"ifname"'):
                self.stats = json.loads(line)
                break

    def verdict(self, name):
        return self.stats.get("verdict", {}).get(name, {}).get("packets", "")

    def counter(self, name):
        """A counter of the guard, parse or event groups."""
        for group in ("guard", "parse", "event"):
            if name in self.stats.get(group, {}):
                return self.stats[group][name]["packets"]
        return ""

    def rule(self, n, key="rules"):
        """Packets of rule n (an index or "default") of the version now."""
        for r in self.stats.get(key, []):
            if str(r.get("rule")) == str(n):
                return r.get("packets", "")
        return ""

    def prev_rule(self, n):
        """... of the version the one now replaced."""
        return self.rule(n, "previous_rules")

    def drops_passes(self):
        return f"{self.verdict('drop')} {self.verdict('pass')}"

    # ---- state of taps and programs -----------------------------------------------

    def status_of(self, iface):
        """The status --json object of iface, as its text; '' if unlisted."""
        m = re.search(r'\{"ifname":"%s"[^}]*\}' % re.escape(iface), out(self.ta("status", "--json")))
        return m.group(0) if m else ""

    def field_of(self, iface, field):
        m = re.search(r'"%s":("[^"]*"|[0-9]*)' % field, self.status_of(iface))
        return m.group(0) if m else ""

    def xdp_id(self, iface, ns=None):
        m = re.search(r"prog/xdp id (\d+)", ip(ns or self.ns, "-d", "link", "show", iface)[1])
        return m.group(1) if m else ""

    def ifindex(self, iface, ns=None):
        return ip(ns or self.ns, "-o", "link", "show", iface)[1].split(":")[0]


def prog_id():
    try:
        return str(json.loads(out(["bpftool", "-j", "prog", "show", "pinned", f"{ROOT}/prog"]))["id"])
    except (ValueError, KeyError, TypeError):
        return ""


def link_pins():
    return sorted(os.listdir(f"{ROOT}/links")) if os.path.isdir(f"{ROOT}/links") else []


# ---- sections --------------------------------------------------------------------


def verdict_suite(h, n, *extra):
    """n frames per case; counters add up (check_counts)."""
    cases = [(["--dport", 9], "sent {n} tx 0 redirect 0 pass 0"),
             (["--dport", 10], "sent {n} tx {n} redirect 0 pass 0"),
             (["--dport", 11], "sent {n} tx 0 redirect {n} pass 0"),
             (["--src", "10.9.3.4", "--dport", 1500], "sent {n} tx 0 redirect 0 pass 0"),
             (["--src", "10.9.3.4", "--dport", 2001], "sent {n} tx 0 redirect 0 pass {n}"),
             (["--proto", "tcp", "--dport", 22], "sent {n} tx 0 redirect 0 pass {n}")]
    for args, want in cases:
        h.send(want.format(n=n), A, "--peer", B, "--count", n, *args, *extra)


def check_counts(h, iface, n):
    """After verdict_suite with n frames in each case."""
    h.stats_json(iface)
    c = h.c
    c.check(f"{iface} rule 0 (drop dport 9)", n, h.rule(0))
    c.check(f"{iface} rule 1 (tx)", n, h.rule(1))
    c.check(f"{iface} rule 2 (redirect)", n, h.rule(2))
    c.check(f"{iface} rule 3 (drop CIDR+range)", n, h.rule(3))
    c.check(f"{iface} rule 4 (pass tcp 22)", n, h.rule(4))
    c.check(f"{iface} default", n, h.rule("default"))
    c.check(f"{iface} verdict drop", 2 * n, h.verdict("drop"))
    c.check(f"{iface} verdict tx", n, h.verdict("tx"))
    c.check(f"{iface} verdict redirect", n, h.verdict("redirect"))
    c.check(f"{iface} verdict pass", 2 * n, h.verdict("pass"))
    c.check(f"{iface} verdict aborted", 0, h.verdict("aborted"))


def first_attach(h):
    c = h.c
    print("# attach: the program loaded once, the tap bound")
    p1 = h.write("p1.policy", P1)
    h.expect(0, rf"attached tap-accel to {A} \(native mode\), policy p1", "attach", A, "--policy", p1)
    c.ok(f"the plane's pins are missing under {ROOT}",
         all(os.path.exists(f"{ROOT}/{p}") for p in ("prog", "ta_config", "ta_tap_slots")))
    links = link_pins()
    c.check("one link pin", 1, sum(":" in x for x in links))
    c.check("the link is the tap's", h.ifindex(A), links[-1].rsplit(":", 1)[-1] if links else "")
    c.check("status", '"state":"attached"', h.field_of(A, "state"))
    c.check("status: its policy", '"policy":"p1"', h.field_of(A, "policy"))
    c.check(f"XDP program on {A} is the plane's", prog_id(), h.xdp_id(A))
    h.expect(0, r"^p1 +5 +pass +[0-9a-f]{16} +1$", "policy", "list")
    verdict_suite(h, 100)
    check_counts(h, A, 100)
    print("# blocking writer (tun runs the program as generic XDP)")
    verdict_suite(h, 50, "--block")
    check_counts(h, A, 150)

    print("# attach again: nothing lost")
    prog = h.xdp_id(A)
    h.expect(0, rf"^{A}: policy p1, guard - \(bound already: switched at once\)$", "attach", A)
    c.check("the program stays", prog, h.xdp_id(A))
    h.stats_json(A)
    c.check("counters kept", 150, h.rule(0))
    h.expect(1, f"{A} is bound in native mode; detach it first to change the mode",
             "attach", A, "--mode", "generic")
    h.expect(0, rf"attached tap-accel to {C} \(generic mode\), policy p1",
             "attach", C, "--mode", "generic", "--policy", "p1")
    c.check("one program for both modes", prog_id(), h.xdp_id(C))
    c.check("status generic", '"mode":"generic"', h.field_of(C, "mode"))


def shared_policy(h):
    c = h.c
    print("# two taps, one policy, each its own counters")
    h.send("sent 30 tx 0 redirect 0 pass 0", C, "--count", 30, "--dport", 9, "--block")
    h.send("sent 20 tx 0 redirect 0 pass 20", C, "--count", 20, "--dport", 12, "--block")
    h.stats_json(C)
    c.check(f"{C} rule 0", 30, h.rule(0))
    c.check(f"{C} default", 20, h.rule("default"))
    c.check(f"{C} saw no frame of {A}", "30 20", h.drops_passes())
    check_counts(h, A, 150)
    h.expect(0, r"^p1 +5 +pass +[0-9a-f]{16} +2$", "policy", "list")
    h.expect(0, r'^\[\{"policy":"p1","rules":5,"default":"pass","digest":"[0-9a-f]{16}",'
             r'"taps":2,"unbound":false\}\]$', "policy", "list", "--json")

    print("# policy show: the maps read back as a policy file")
    h.expect(0, f"^rule redirect {B} proto udp dport 11$", "policy", "show", "p1")
    h.expect(0, r"^# policy p1: 5 rules, digest [0-9a-f]{16}, 2 taps$", "policy", "show", "p1")
    h.expect(0, f"^# {A}: policy p1, 5 rules", "policy", "show", A)
    h.expect(0, r'"rules":\[\{"action":"drop","proto":17,"dport":"9"\}', "policy", "show", "--json", "p1")


def replace_policy(h):
    c = h.c
    print("# policy load NAME: a new version for every tap bound")
    p1b = h.write("p1b.policy", "rule drop proto udp dport 9\nrule tx proto udp dport 12\ndefault drop\n")
    h.expect(0, f"loaded {p1b} as policy p1: 2 rules, default drop, .*replaced for 2 taps",
             "policy", "load", "p1", p1b)
    h.send("sent 10 tx 10 redirect 0 pass 0", A, "--count", 10, "--dport", 12)
    h.send("sent 10 tx 10 redirect 0 pass 0", C, "--count", 10, "--dport", 12, "--block")
    h.stats_json(C)
    c.check(f"{C}: new version's rule 1", 10, h.rule(1))
    c.check(f"{C}: the version before still reads", 30, h.prev_rule(0))
    h.expect(0, "unchanged, 2 taps", "policy", "load", "p1", p1b)
    h.expect(0, r"^# policy p1 \(the version before\): 5 rules", "policy", "show", "p1", "--previous")
    guarded = h.write("guarded.policy", "guard mac 52:54:00:00:00:01\nrule drop\n")
    h.expect(1, "policy p1: a guard holds one guest's addresses, so it belongs to a tap",
             "policy", "load", "p1", guarded)
    h.expect(0, "^p1 +2 +drop", "policy", "list")
    p1c = h.write("p1c.policy", "# the same rules, written otherwise\nrule drop proto 17 dport 9 # udp\n\n"
                  "rule tx  proto udp dport 12\ndefault drop\n")
    h.expect(0, "unchanged, 2 taps", "policy", "load", "p1", p1c)

    print("# policy load binds no tap, and loads policy default only when told")
    h.expect(1, f"^tap-accel: policy load: {A} is an interface, not a loaded policy, and 'policy load' "
             f"binds no tap: bind it to the policy {p1b} makes with 'tap-accel attach {A} --policy {p1b}'",
             "policy", "load", A, p1b)
    c.check("policy load IFACE: no policy of that name", 0,
            sum(line.startswith(f"{A} ") for line in out(h.ta("policy", "list")).splitlines()))
    c.check(f"policy load IFACE: {A} still on p1", '"policy":"p1"', h.field_of(A, "policy"))
    dp = h.write("def.policy", "rule drop proto udp dport 7\ndefault pass\n")
    h.expect(1, "^tap-accel: policy load: policy default is what every 'attach' without --policy binds "
             f"a new tap to: replace it with 'tap-accel policy load --default {dp}'",
             "policy", "load", "default", dp)
    h.expect(1, "policy load: --default loads FILE as policy default: give FILE alone",
             "policy", "load", "--default", "web", dp)
    h.expect(0, f"^loaded {dp} as policy default: 1 rules", "policy", "load", "--default", dp)
    h.write("def.policy", "default pass\n")
    h.expect(0, f"^loaded {dp} as policy default: 0 rules", "policy", "load", "--default", dp)


def swap_under_traffic(h):
    c = h.c
    print("# replaced under traffic on 100 taps: no frame judged by a mix")
    must(c, ns_add(NSS), f"cannot create {NSS}")
    must(c, tap_batch(NSS, "s", 100), "cannot create 100 taps")
    swap_a = h.write("swap-a.policy", "rule drop proto udp dport 7\n")
    swap_b = h.write("swap-b.policy", "rule tx proto udp dport 7\n")
    h.ns = NSS
    taps = [f"s{i}" for i in range(1, 101)]
    try:
        h.expect(0, "loaded .* as policy swap: 1 rules", "policy", "load", "swap", swap_a)
        h.expect(0, "attached tap-accel to s100", "attach", *taps, "--policy", "swap")
        n = 200000
        writers = [subprocess.Popen(h.tapio(f"s{w}", "--count", n, "--dport", 7),
                                    stdout=subprocess.PIPE) for w in (1, 2, 3)]
        try:
            # every writer under way on the old version before the swap
            # (on a busy machine the last can start late)
            def dropping(w):
                h.stats_json(f"s{w}")
                return h.verdict("drop") != 0

            for _ in range(500):
                if all(dropping(w) for w in (1, 2, 3)):
                    break
                time.sleep(0.01)
            h.expect(0, "as policy swap: 1 rules, .*replaced for 100 taps", "policy", "load", "swap", swap_b)
        finally:
            reports = [w.communicate()[0].decode().split() for w in writers]
        for w, report in zip((1, 2, 3), reports):
            # "sent N tx N redirect N pass N"
            txed, passed = (report[3], report[7]) if len(report) == 8 else ("", "")
            h.stats_json(f"s{w}")
            drops, txs = h.prev_rule(0), h.rule(0)
            both = isinstance(drops, int) and isinstance(txs, int)
            c.check(f"swap s{w}: every frame counted once", n, drops + txs if both else f"{drops}+{txs}")
            c.check(f"swap s{w}: verdict drop = old version's", drops, h.verdict("drop"))
            c.check(f"swap s{w}: verdict tx = new version's", txs, h.verdict("tx"))
            c.check(f"swap s{w}: tx read back = tx counted", txs, txed)
            c.check(f"swap s{w}: no frame fell to the default", "0 0", f"{passed} {h.verdict('pass')}")
            c.ok(f"swap s{w} did not happen under traffic (old {drops}, new {txs})",
                 both and drops > 0 and txs > 0)
        h.expect(0, "detached tap-accel from s100", "detach", *taps)
    finally:
        h.ns = NS


def fdb_guard_rate(h):
    c = h.c
    print("# fdb")
    fdb = h.write("fdb.policy", f"fdb 52:54:00:00:00:0b dev {B}\ndefault forward\n")
    h.expect(0, f"attached tap-accel to {D} .*policy fdb", "attach", D, "--policy", fdb)
    h.send("sent 20 tx 0 redirect 20 pass 0", D, "--peer", B, "--count", 20, "--dmac", "52:54:00:00:00:0b")
    h.send("sent 20 tx 0 redirect 0 pass 20", D, "--peer", B, "--count", 20, "--dmac", "52:54:00:00:00:0c")
    h.expect(0, f"fdb 52:54:00:00:00:0c dev {B} added", "fdb", "add", D, "52:54:00:00:00:0c", B)
    h.expect(0, f"fdb 52:54:00:00:00:0c dev {B}", "fdb", "list", D)
    h.send("sent 20 tx 0 redirect 20 pass 0", D, "--peer", B, "--count", 20, "--dmac", "52:54:00:00:00:0c")
    h.expect(0, "fdb 52:54:00:00:00:0c deleted", "fdb", "del", D, "52:54:00:00:00:0c")
    h.expect(1, "has no fdb entry for 52:54:00:00:00:0c", "fdb", "del", D, "52:54:00:00:00:0c")
    h.expect(1, "is a group address", "fdb", "add", D, "ff:ff:ff:ff:ff:ff", B)
    h.expect(1, f"^tap-accel: fdb add: {D} is {D} itself: its guest's frames would come back to it; "
             "give another tap or a NIC", "fdb", "add", D, "52:54:00:00:00:0d", D)
    h.expect(1, "^tap-accel: fdb add: lo is a loopback device, where forwarded frames go nowhere",
             "fdb", "add", D, "52:54:00:00:00:0d", "lo")
    h.expect(1, "has no fdb entry for 52:54:00:00:00:0d", "fdb", "del", D, "52:54:00:00:00:0d")
    h.send("sent 20 tx 0 redirect 0 pass 20", D, "--peer", B, "--count", 20, "--dmac", "52:54:00:00:00:0c")
    h.stats_json(D)
    c.check("fdb hits", 40, h.counter("fdb_hit"))
    c.check("fdb misses", 40, h.counter("fdb_miss"))

    print("# guard: the tap's, given at attach")
    h.expect(0, rf"^{D}: policy default, guard mac,ip4 \(bound already",
             "attach", D, "--policy", "default", "--guard", "mac=52:54:00:00:00:01,ip=10.0.0.1")
    c.check("status: the guard", '"guard":"mac,ip4"', h.field_of(D, "guard"))
    h.send("sent 10 tx 0 redirect 0 pass 10", D, "--count", 10)
    h.send("sent 10 tx 0 redirect 0 pass 0", D, "--count", 10, "--smac", "52:54:00:00:00:66")
    h.send("sent 10 tx 0 redirect 0 pass 0", D, "--count", 10, "--src", "10.0.0.66")
    h.send("sent 10 tx 0 redirect 0 pass 0", D, "--count", 10, "--proto", "arp", "--src", "10.0.0.66")
    h.stats_json(D)
    c.check("guard src_mac", 10, h.counter("src_mac"))
    c.check("guard ip4_src", 10, h.counter("ip4_src"))
    c.check("guard arp_spa", 10, h.counter("arp_spa"))
    h.expect(0, "^guard mac 52:54:00:00:00:01 ip 10.0.0.1$", "policy", "show", D)
    # an IPv4-mapped address is no IPv4 guard: refused, and the guard kept
    h.expect(1, r"^tap-accel: attach: --guard: guard address '::ffff:10.0.0.1' is IPv4-mapped "
             r"\(::ffff:0:0/96\), which never appears on the wire: give the IPv4 address, 10.0.0.1$",
             "attach", D, "--guard", "mac=52:54:00:00:00:01,ip=::ffff:10.0.0.1")
    c.check("a refused guard: the one before kept", '"guard":"mac,ip4"', h.field_of(D, "guard"))
    h.send("sent 10 tx 0 redirect 0 pass 0", D, "--count", 10, "--src", "10.99.99.99")
    h.stats_json(D)
    c.check("a refused guard: IPv4 still guarded", 20, h.counter("ip4_src"))
    h.expect(0, rf"^{D}: policy default, guard mac,ip4 \(bound already", "attach", D)
    c.check("an attach that says nothing of the guard keeps it", '"guard":"mac,ip4"', h.field_of(D, "guard"))
    h.expect(0, rf"^{D}: policy default, guard - \(bound already", "attach", D, "--guard", "none")
    c.check("--guard none", '"guard":"-"', h.field_of(D, "guard"))

    print("# rate: the policy's, a bucket per tap")
    rate = h.write("rate.policy", "rate 100pps burst 100\n")
    h.expect(0, rf"^{D}: policy rate, guard - \(bound already", "attach", D, "--policy", rate)
    h.stats_json(D)
    pass_before = h.verdict("pass")
    call(h.tapio(D, "--count", 1000))
    h.stats_json(D)
    limited, pass_after = h.counter("rate_drop"), h.verdict("pass")
    if not all(isinstance(x, int) for x in (pass_before, pass_after, limited)):
        c.bad(f"rate: no counters (pass {pass_before} then {pass_after}, rate_drop {limited})")
        c.bad("rate: passed at 100pps burst 100: no counters")
        return
    passed = pass_after - pass_before
    c.check("rate: passed + limited = sent", 1000, passed + limited)
    c.ok(f"rate: {passed} of 1000 passed at 100pps burst 100", 100 <= passed < 400)


def rules_of(h, path):
    """The rules and default of a policy file, as JSON (policy check --json
    without line numbers)."""
    lines = []
    for line in out(h.ta("policy", "check", "--json", path)).splitlines():
        line = re.sub(r'"line":[0-9]*,', "", line)
        line = re.sub(r'.*"rules"', '"rules"', line)
        lines.append(re.sub(r',"guard".*', "", line))
    return "\n".join(lines)


def past_first_line(text):
    """text without its first line (a policy show's header), as sed 1d."""
    return text.partition("\n")[2].rstrip("\n")


def many_rules_and_examples(h):
    c = h.c
    print("# 1000 rules")
    r1000 = h.write("r1000.policy", "".join(
        f"rule drop proto udp src 10.{i // 256}.{i % 256}.0/24 dport {1000 + i}-{1100 + i}\n"
        for i in range(1000)))
    load = out(h.ta("policy", "load", "--json", "r1000", r1000))
    must(c, call(h.ta("attach", D, "--policy", "r1000"))[0] == 0, f"attach {D} --policy r1000")
    c.check("1000 rules loaded", 1, sum('"rules":1000' in x for x in load.splitlines()))
    m = re.search(r'"load_ms":([0-9.]*)', load)
    print(f"policy load of 1000 rules: {m.group(1) if m else ''} ms")
    h.send("sent 10 tx 0 redirect 0 pass 0", D, "--count", 10, "--src", "10.3.231.9", "--dport", 2099)
    h.send("sent 10 tx 0 redirect 0 pass 10", D, "--count", 10, "--src", "10.3.231.9", "--dport", 2101)
    h.stats_json(D)
    c.check("rule 999 of 1000", 10, h.rule(999))

    print("# every example loads, and shows as it loads")
    for t in ("vm2-tap0", "vm3-tap0", "game0", "vnet-a", "vnet-b"):
        ip(h.ns, "tuntap", "add", t, "mode", "tap")
    shutil.copy(h.path("p1.policy"), h.path("p1-copy.policy"))
    examples = sorted(f"{TOP}/examples/{f}" for f in os.listdir(f"{TOP}/examples") if f.endswith(".policy"))
    shown = h.path("shown.policy")
    for f in examples + [h.path("p1-copy.policy")]:
        h.expect(0, f"^{D}: policy ", "attach", D, "--policy", f)
        # policy show reads the maps back as a policy file: the same rules,
        # and loading what it shows shows the same again.
        h.write("shown.policy", call(h.ta("policy", "show", D))[1])
        c.check(f"policy show of {f} has its rules", rules_of(h, f), rules_of(h, shown))
        with open(shown) as sf:
            first = past_first_line(sf.read())
        call(h.ta("attach", D, "--policy", shown))
        c.check(f"policy show of {f} is a fixpoint", first, past_first_line(out(h.ta("policy", "show", D))))
    call(h.ta("policy", "load", "r1000", r1000))
    h.write("shown.policy", call(h.ta("policy", "show", "r1000"))[1])
    c.check("policy show of 1000 rules", rules_of(h, r1000), rules_of(h, shown))
    h.expect(0, "unloaded policy r1000", "policy", "unload", "r1000")
    h.expect(1, "policy p1 is bound to 2 taps; bind them to another policy or detach them first",
             "policy", "unload", "p1")
    h.expect(1, "no policy nosuch is loaded", "policy", "unload", "nosuch")


def bad_input(h):
    """Bad input leaves the state intact; A's state and rule 1 kept for
    survived_and_rates."""
    c = h.c
    print("# bad input")
    state_a = h.status_of(A)
    h.stats_json(A)
    counts_a = h.rule(1)
    files = {
        "bad-port": "rule drop proto udp\nrule drop proto tcp dport 70000\n",
        "dup": "rule drop proto udp\nrule tx proto udp\n",
        "bad-mac": "rule drop smac 52:54:00:zz:00:01\n",
        "bad-cidr": "rule drop dst 10.0.0.0/33\n",
        "bad-range": "rule drop dport 2000-1000\n",
        "bad-dev": "rule redirect nosuch0 proto udp\n",
        "syntax": "rule drop proto udp\nrulez drop\n",
        "many": "".join(f"rule drop proto udp dport {i}\n" for i in range(1025)),
    }
    p = {name: h.write(f"{name}.policy", text) for name, text in files.items()}
    h.expect(1, "interface nosuch0 not found", "attach", "nosuch0")
    h.expect(1, rf"{V} is not a tap device \(it is veth\)", "attach", V)
    h.expect(1, "lo is not a tap device", "attach", "lo")
    for name, where, why in (("syntax", "2:1", "expected a statement"),
                             ("bad-port", "2:27", "expected a port 0..65535"),
                             ("dup", "2:1", "duplicate rule"),
                             ("many", "1025:1", "too many rules: a policy holds at most 1024"),
                             ("bad-mac", "1:16", "expected a MAC address"),
                             ("bad-cidr", "1:24", "expected a prefix length 0..32"),
                             ("bad-range", "1:17", "expected a port range LOW-HIGH"),
                             ("bad-dev", "1:1", "interface nosuch0 not found")):
        h.expect(1, f"^{p[name]}:{where}: {why}", "policy", "load", "p1", p[name])
    h.expect(1, "'bad name' is not a policy name", "policy", "load", "bad name", h.path("p1.policy"))
    h.expect(1, f"^{p['syntax']}:2:1: expected a statement", "attach", E, "--policy", p["syntax"])
    h.expect(1, "no policy nosuch is loaded", "attach", E, "--policy", "nosuch")
    c.ok(f"a failed attach left a program or a binding on {E}",
         h.xdp_id(E) == "" and h.status_of(E) == "")
    h.expect(1, f"{E} has no tap-accel program", "detach", E)
    h.expect(1, f"{E} is not bound to a policy; bind it with 'tap-accel attach {E}'", "stats", E)
    p1 = h.write("p1.policy", "rule drop proto udp dport 99\n")
    h.expect(1, f"policy p1 is bound to 2 other taps and holds other rules than {p1}",
             "attach", E, "--policy", p1)
    h.state_a, h.counts_a = state_a, counts_a


def le32(n):
    return [str(n >> s & 255) for s in (0, 8, 16, 24)]


def other_layout(h):
    c = h.c
    print("# bad input: state of another layout")
    cfg = json.loads(out(["bpftool", "-j", "map", "lookup", "pinned", f"{ROOT}/ta_config",
                          "key", "0", "0", "0", "0"]) or "{}")
    # bpftool gives the bytes, and the value as BTF describes it
    layout = cfg.get("formatted", {}).get("value", {})
    config = ["bpftool", "map", "update", "pinned", f"{ROOT}/ta_config", "key", "0", "0", "0", "0", "value"]
    call(config + ["0"] * 24)
    h.expect(1, f"layout version 0, this build uses {LAYOUT}.*tap-accel clean --all", "status")
    h.expect(1, "layout version 0", "attach", E)
    h.expect(1, "layout version 0", "policy", "load", "p1", h.path("p1b.policy"))
    call(config + le32(LAYOUT) + le32(layout.get("unbound_action", 0)) + le32(layout.get("unbound_policy", 0))
        + le32(layout.get("unbound_stats", 0)) + le32(0) + le32(0))
    h.expect(0, f"{A} ", "status")
    # stock tun: no word of tapx's default program, in either form
    tapx = [x for x in out(h.ta("status")).splitlines() if x.startswith("tapx:")]
    tapx += re.findall("tapx_default", out(h.ta("status", "--json")))
    c.check("status: nothing of tapx", "", "\n".join(tapx))


def foreign_program(h):
    c = h.c
    print("# bad input: another XDP program")
    os.makedirs(BT, exist_ok=True)
    call(["bpftool", "prog", "loadall", f"{BUILD}/bpf/xdp_basic.bpf.o", BT])
    call(in_ns(h.ns, ["bpftool", "net", "attach", "xdpdrv", "pinned", f"{BT}/xdp_pass", "dev", E]))
    foreign = h.xdp_id(E)
    c.ok(f"could not attach a foreign XDP program to {E}", foreign != "")
    h.expect(1, rf"another XDP program is attached to {E} \(id {foreign}, xdp_pass\); use --force to replace it",
             "attach", E)
    c.check("the foreign program is still there", foreign, h.xdp_id(E))
    c.ok(f"the refused attach left a binding on {E}", h.status_of(E) == "")
    h.expect(0, rf"attached tap-accel to {E} \(generic mode\)", "attach", E, "--force", "--mode", "generic")
    c.check("--force replaced it", prog_id(), h.xdp_id(E))
    print("# nothing replaces the link silently")
    c.ok("bpftool replaced the program of a tap tap-accel holds with a link",
         call(in_ns(h.ns, ["bpftool", "net", "attach", "xdpdrv", "pinned", f"{BT}/xdp_pass",
                            "dev", A, "overwrite"]))[0] != 0)
    c.ok("ip link detached the program of a tap tap-accel holds with a link",
         call(in_ns(h.ns, ["ip", "link", "set", "dev", A, "xdp", "off"]))[0] != 0)
    c.check("the link held", prog_id(), h.xdp_id(A))
    shutil.rmtree(BT, ignore_errors=True)

    print("# bad input: no CAP_NET_ADMIN")

    def nocap(*args):
        return in_ns(h.ns, strs("setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all",
                                h.ta_bin, *args))
    c.expect_exit(2, "policy load needs CAP_NET_ADMIN", nocap("policy", "load", "p1", h.path("p1b.policy")))
    c.expect_exit(2, "attach needs CAP_NET_ADMIN", nocap("attach", E))
    c.expect_exit(2, "detach needs CAP_NET_ADMIN", nocap("detach", A))
    c.expect_exit(2, "fdb needs CAP_NET_ADMIN", nocap("fdb", "add", A, "52:54:00:00:00:01", B))


def survived_and_rates(h):
    c, state_a, counts_a = h.c, h.state_a, h.counts_a
    print(f"# the state of {A} survived all of it")
    c.check(f"status of {A} unchanged", state_a, h.status_of(A))
    h.send("sent 10 tx 10 redirect 0 pass 0", A, "--count", 10, "--dport", 12)
    h.stats_json(A)
    c.check(f"policy of {A} still applies", counts_a + 10 if isinstance(counts_a, int) else "", h.rule(1))

    print("# rates")
    writer = subprocess.Popen(h.tapio(A, "--count", 400000, "--dport", 12), stdout=subprocess.DEVNULL)
    try:
        rates = out(h.ta("stats", A, "--json", "--interval", "0.3", "--count", "2"))
    finally:
        writer.wait()
    c.check("two samples", 2, sum('"interval":0.3' in x for x in rates.splitlines()))
    m = re.search(r'"tx":\{"packets_per_sec":([0-9]*)', rates)
    rate = int(m.group(1)) if m and m.group(1) else 0
    c.ok(f"tx rate under traffic: '{rate}' packets/s", rate > 1000)
    h.expect(0, "verdict tx .* pps", "stats", A, "--interval", "0.1", "--count", "1")


def prometheus(h):
    # binds taps of its own here and in NSp, checks, and unbinds them
    prometheus_part(h.c, NS, h.ta_bin, TAPIO, PROMFILE)


def in_program_link(h, tap, ns=None):
    """The program of the tcx link pinned for what goes to tap (of ns, the
    suite's namespace by default), or ""."""
    pins = [p for p in os.listdir(f"{ROOT}/links") if p.endswith(":in")] if os.path.isdir(f"{ROOT}/links") else []
    links = json.loads(ip(ns or h.ns, "-j", "link", "show", tap)[1] or "[]")
    ifindex = str(links[0]["ifindex"]) if links else "none"
    for pin in pins:
        if pin.split(":")[1] == ifindex:
            link = json.loads(out(["bpftool", "-j", "link", "show", "pinned", f"{ROOT}/links/{pin}"]) or "{}")
            return str(link.get("prog_id", ""))
    return ""


def two_way(h):
    c = h.c
    S = f"ta{ID}s"
    print("# two-way policies: the in program on the taps that have one")
    must(c, taps_add(NS, S), f"cannot create tap {S}")
    in_prog = str(json.loads(out(["bpftool", "-j", "prog", "show", "pinned", f"{ROOT}/prog_in_tc"]) or "{}")
                  .get("id", "none"))
    one = h.write("oneway.policy", "rule pass proto tcp\ndefault drop\n")
    h.expect(0, "as policy tw: 1 rules", "policy", "load", "tw", one)
    h.expect(0, rf"attached tap-accel to {S} .*policy tw", "attach", S, "--policy", "tw")
    c.check(f"{S}: one-way policy, no in program", "", in_program_link(h, S))
    sg = f"{TOP}/examples/security-group.policy"
    h.expect(0, "as policy tw: 14 rules, default pass, .*replaced for 1 taps", "policy", "load", "tw", sg)
    c.check(f"{S}: policy now two-way, the in program on its tcx egress", in_prog, in_program_link(h, S))
    h.expect(0, r"^rule pass in proto tcp dport 22$", "policy", "show", "tw")
    h.expect(0, r"^default in drop$", "policy", "show", "tw")
    h.expect(0, rf"detached tap-accel from {S}", "detach", S)
    c.check(f"{S}: detached, no in program", "", in_program_link(h, S))
    h.expect(0, rf"attached tap-accel to {S} .*policy tw", "attach", S, "--policy", "tw")
    c.check(f"{S}: bound to a two-way policy, the in program at once", in_prog, in_program_link(h, S))

    print("# conntrack: the guest's connections, listed and flushed")
    h.send("sent 3 tx 0 redirect 0 pass 3", S, "--count", 3, "--dport", 53)
    h.send("sent 2 tx 0 redirect 0 pass 2", S, "--count", 2, "--dport", 54)
    h.expect(0, rf"^{S} +udp +out 10\.0\.0\.1:1000 -> 10\.0\.0\.2:53 unreplied [0-9]+s$", "conntrack", "list", S)
    h.expect(0, rf'^\[\{{"tap":"{S}","tap_id":[0-9]+,"zone":[0-9]+,"proto":"udp","src":"10.0.0.1","sport":1000,'
             r'"dst":"10.0.0.2","dport":5[34],"opened":"out","state":"unreplied","replied":false,',
             "conntrack", "list", S, "--json")
    conns = json.loads(out(h.ta("conntrack", "list", S, "--json")) or "[]")
    c.check(f"{S}: two connections", 2, len(conns))
    tap_id = conns[0]["tap_id"] if conns else 0

    def tracked():
        entry = json.loads(out(["bpftool", "-j", "map", "lookup", "pinned", f"{ROOT}/ta_ct_taps",
                                "key", *le32(tap_id)]) or "{}")
        return entry.get("formatted", {}).get("value", {}).get("tracked", "")
    c.check(f"{S}: the program counts them", 2, tracked())
    use = re.search(r"^# (\d+) connections tracked on the host, new ones refused from (\d+); "
                    r"a table of (\d+) entries of about 120 bytes", out(h.ta("conntrack", "list")), re.M)
    c.check("conntrack list: the host's use, its limit the table less 4096",
            "2 ok", f"{use.group(1)} {'ok' if int(use.group(2)) == int(use.group(3)) - 4096 else use.group(0)}"
            if use else "no summary line")
    h.stats_json(S)
    c.check(f"{S}: stats, connections made", 2,
            h.stats.get("conntrack", {}).get("new", {}).get("packets", ""))
    h.expect(0, rf"^{S}: 2 connections flushed$", "conntrack", "flush", S)
    c.check(f"{S}: the count written again", 0, tracked())
    h.expect(0, r"^\[\]$", "conntrack", "list", S, "--json")
    h.expect(1, "interface nosuchtap0 not found", "conntrack", "flush", "nosuchtap0")
    h.expect(0, rf"{S}: policy p1", "attach", S, "--policy", "p1")
    c.check(f"{S}: moved to a one-way policy, no in program", "", in_program_link(h, S))
    h.expect(0, rf"detached tap-accel from {S}", "detach", S)
    h.expect(0, "", "policy", "unload", "tw")
    ip(NS, "link", "del", S)
    two_way_elsewhere(h, in_prog, one, sg)


def two_way_elsewhere(h, in_prog, one, sg):
    """A policy turned two-way (and back) by a load in another namespace
    than the tap's: its in program follows, attached from the tap's own."""
    c = h.c
    print("# two-way: a tap bound in another namespace")
    must(c, ns_add(NSW), f"cannot create netns {NSW}")
    must(c, taps_add(NSW, W), f"cannot create tap {W} in {NSW}")
    h.expect(0, "as policy tw: 1 rules", "policy", "load", "tw", one)
    c.expect_exit(0, rf"attached tap-accel to {W} .*policy tw",
                  netns_exec(NSW, h.ta_bin, "attach", W, "--policy", "tw"))
    c.check(f"{W} of {NSW}: one-way, no in program", "", in_program_link(h, W, NSW))
    h.expect(0, "as policy tw: 14 rules, .*replaced for 1 taps", "policy", "load", "tw", sg)
    c.check(f"{W} of {NSW}: two-way from {NS}, the in program attached in {NSW}", in_prog,
            in_program_link(h, W, NSW))
    # frames from NSW's stack to the guest: only TCP to port 22 is new and allowed
    ip(NSW, "addr", "add", "10.77.1.1/24", "dev", W)
    ip(NSW, "link", "set", W, "up")
    ip(NSW, "neigh", "replace", "10.77.1.2", "lladdr", "52:54:00:77:01:02", "dev", W)
    h.stats_json(W, h.ta("stats", W, "--json", ns=NSW))
    before = h.stats.get("conntrack", {}).get("in_drop", {}).get("packets", 0)
    call(in_ns(NSW, ["python3", "-c", "import socket\nfor p in (9, 10, 11):\n"
                     " socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('10.77.1.2', p))"]))
    h.stats_json(W, h.ta("stats", W, "--json", ns=NSW))
    c.check(f"{W} of {NSW}: UDP from its stack judged in and dropped", 3,
            h.stats.get("conntrack", {}).get("in_drop", {}).get("packets", 0) - before)
    h.expect(0, "as policy tw: 1 rules", "policy", "load", "tw", one)
    c.check(f"{W} of {NSW}: one-way again from {NS}, the in program taken off", "",
            in_program_link(h, W, NSW))
    c.expect_exit(0, rf"detached tap-accel from {W}", netns_exec(NSW, h.ta_bin, "detach", W))
    h.expect(0, "", "policy", "unload", "tw")
    ns_del(NSW)


# ---- conntrack options: the table's settings, refusals and gauges ------------------


def ct_config():
    """ta_ct_config as bpftool reads it: {max_tracked, tap_limit, timeout: [...]}."""
    entry = json.loads(out(["bpftool", "-j", "map", "lookup", "pinned", f"{ROOT}/ta_ct_config",
                            "key", *le32(0)]) or "{}")
    return entry.get("formatted", {}).get("value", {})


def ct_config_text():
    c = ct_config()
    return f"max {c.get('max_tracked')} tap {c.get('tap_limit')} timeouts {c.get('timeout')}"


def conntrack_options(h):
    c = h.c
    T = f"ta{ID}k"
    print("# conntrack set and show: the table's limits and timeouts")
    must(c, taps_add(NS, T), f"cannot create tap {T}")
    h.expect(0, rf"attached tap-accel to {T} .*policy security-group", "attach", T,
             "--policy", f"{TOP}/examples/security-group.policy")
    show = json.loads(out(h.ta("conntrack", "show", "--json")) or "{}")
    entries = show.get("entries", 0)
    room = entries - 4096
    c.check("show: the defaults, max the table less 4096, 120 bytes an entry",
            f"max {room} tap_limit 0 entry_bytes 120 bytes {entries * 120} udp 30 established 432000",
            f"max {show.get('max')} tap_limit {show.get('tap_limit')} entry_bytes {show.get('entry_bytes')} "
            f"bytes {show.get('bytes')} udp {show.get('timeouts', {}).get('udp')} "
            f"established {show.get('timeouts', {}).get('established')}")
    c.check("ta_ct_config as the plane wrote it", f"max {room} tap 0 timeouts {[0] * 10}", ct_config_text())
    h.expect(0, r"^timeout   udp          30 s \(default\)$", "conntrack", "show")
    h.expect(0, r"^tap-limit 3$", "conntrack", "set", "tap-limit", 3, "timeout", "udp", 90, "established", "1d")
    c.check("ta_ct_config: tap_limit 3, udp 90, established 86400",
            f"max {room} tap 3 timeouts {[0, 0, 86400, 0, 0, 0, 90, 0, 0, 0]}", ct_config_text())
    h.expect(0, r"^timeout   established  86400 s$", "conntrack", "show")

    print("# conntrack set: refused, naming the cause and the fix; nothing written")
    before = ct_config_text()
    for args, msg in (
            (["max", 0], "conntrack set: max 0: give a number of connections, or 'max default'"),
            (["tap-limit", 0], "conntrack set: tap-limit 0: .*'tap-limit none' for no limit per tap"),
            (["timeout", "udpx", 5], "conntrack set: unknown timeout 'udpx': the timeouts are syn_sent, syn_recv, "
             "established, fin_wait, time_wait, close, udp, udp_stream, icmp or other"),
            (["timeout", "udp", 0], r"conntrack set: timeout udp 0: .*'timeout udp default' \(30 s\)"),
            (["timeout", "icmp", "5w"], r"conntrack set: timeout icmp '5w': expected seconds \(120, or with a unit"),
            (["tap-limit", 5, "max", room + 1], f"conntrack set: max {room + 1} is past the connection table's room: "
             f"it has {entries} entries .* give at most {room}; the table's size is set when the plane is made"),
            (["tap-limit", room + 1], f"conntrack set: tap-limit {room + 1} is past the connection table's room"),
            (["max", 2], "conntrack set: tap-limit 3 is above the host's max 2: no tap could reach it"),
            (["frob"], "conntrack set: expected max, tap-limit or timeout, got 'frob'")):
        h.expect(1, "^tap-accel: " + msg, "conntrack", "set", *args)
    c.check("after every refusal ta_ct_config is as it was", before, ct_config_text())
    h.expect(1, r'^\{"error":"conntrack set: max 0: ', "conntrack", "set", "max", 0, "--json")

    print("# refusals at the tap's limit: dropped, counted, told")
    events = subprocess.Popen(h.ta("conntrack", "events", "--json"), stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        for port in (61, 62, 63):
            h.send("sent 1 tx 0 redirect 0 pass 1", T, "--dport", port, "--settle-ms", 20)
        for port in (64, 65):
            h.send("sent 1 tx 0 redirect 0 pass 0", T, "--dport", port, "--settle-ms", 20)
        time.sleep(0.5)
    finally:
        events.send_signal(2)
        told, _ = events.communicate(timeout=10)
    c.check("conntrack events ends 0 on Ctrl-C", 0, events.returncode)
    c.check("one event (at most one a second a tap), of the first refused", 1, len(told.splitlines()))
    ev = json.loads(told.splitlines()[0]) if told.strip() else {}
    c.check("the event: tap, limit, count, the connection", f"{T} tap_limit 3 3 udp 10.0.0.1:1000 10.0.0.2:64",
            f"{ev.get('tap')} {ev.get('refused_at')} {ev.get('tracked')} {ev.get('limit')} {ev.get('proto')} "
            f"{ev.get('addr_a')}:{ev.get('port_a')} {ev.get('addr_b')}:{ev.get('port_b')}")
    h.stats_json(T)
    ct = h.stats.get("conntrack", {})
    c.check(f"stats {T}: made 3, refused 2 at tap_limit, 0 at table_full, tracked 3", "3 2 0 3",
            f"{ct.get('new', {}).get('packets')} {ct.get('tap_limit', {}).get('packets')} "
            f"{ct.get('table_full', {}).get('packets')} {h.stats.get('conntrack_tracked')}")
    h.expect(0, r"^  conntrack tracked +3 now$", "stats", T)
    h.expect(0, rf"^conntrack table: [0-9]+ tracked of max {room} \([0-9.]+%\), tap-limit 3; {entries} entries x "
             rf"120 bytes = [0-9.]+ MiB; refused \(these taps, in all\): table_full 0, tap_limit 2$", "stats", T)
    c.check(f"status --json: {T} tracks 3", '"conntrack_tracked":3', h.field_of(T, "conntrack_tracked"))
    h.expect(0, rf"^{T} +native +security-group +14 +pass +[0-9a-f]{{16}} +- +3 attached$", "status")
    h.expect(0, rf"^conntrack: [0-9]+ connections tracked; new ones refused from {room} on the host \(max\), from 3 "
             rf"on a tap \(tap-limit\); a table of {entries} entries x 120 bytes = [0-9.]+ MiB$", "status")
    prom = out(h.ta("stats", "--prometheus"))

    def sample(series):
        m = re.search(r"^%s (\d+)$" % re.escape(series), prom, re.M)
        return m.group(1) if m else ""
    host_tracked = json.loads(out(h.ta("conntrack", "show", "--json")) or "{}").get("tracked")
    c.check("prometheus: the tap's gauge, the host's, the limits, the size, the bytes an entry",
            f"3 {host_tracked} {room} 3 {entries} 120 2",
            " ".join(sample(x) for x in (f'tapaccel_conntrack_tracked{{device="{T}",policy="security-group"}}',
                                         "tapaccel_conntrack_table_tracked", "tapaccel_conntrack_table_max",
                                         "tapaccel_conntrack_tap_limit", "tapaccel_conntrack_table_entries",
                                         "tapaccel_conntrack_entry_bytes",
                                         f'tapaccel_conntrack_total{{device="{T}",policy="security-group",'
                                         'counter="tap_limit"}')))
    h.expect(0, "^# TYPE tapaccel_conntrack_table_max gauge$", "stats", "--prometheus")

    print("# refusals at the host's limit")
    # a connection of another tap: the host's count is not T's
    U = f"ta{ID}u"
    must(c, taps_add(NS, U), f"cannot create tap {U}")
    h.expect(0, rf"attached tap-accel to {U} .*policy security-group", "attach", U, "--policy", "security-group")
    h.send("sent 1 tx 0 redirect 0 pass 1", U, "--dport", 68, "--settle-ms", 20)
    host_tracked = json.loads(out(h.ta("conntrack", "show", "--json")) or "{}").get("tracked")
    time.sleep(1.1)  # the tap's last event a second ago
    h.expect(0, rf"^max +{host_tracked + 1}$", "conntrack", "set", "tap-limit", "none", "max", host_tracked + 1)
    events = subprocess.Popen(h.ta("conntrack", "events"), stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        h.send("sent 1 tx 0 redirect 0 pass 1", T, "--dport", 66, "--settle-ms", 20)
        h.send("sent 1 tx 0 redirect 0 pass 0", T, "--dport", 67, "--settle-ms", 20)
        time.sleep(0.5)
    finally:
        events.send_signal(2)
        told, _ = events.communicate(timeout=10)
    c.check("the event, as text", f"{T}: new connection refused at the host's limit (max {host_tracked + 1}), "
            f"{host_tracked + 1} tracked: udp 10.0.0.1:1000 <-> 10.0.0.2:67", told.rstrip("\n"))
    h.stats_json(T)
    c.check(f"stats {T}: table_full 1, tracked 4 (the event's count is the host's, {U}'s with them)", "1 4",
            f"{h.stats.get('conntrack', {}).get('table_full', {}).get('packets')} {h.stats.get('conntrack_tracked')}")
    h.expect(0, rf"^{U}: 1 connections flushed$", "conntrack", "flush", U)
    h.expect(0, rf"detached tap-accel from {U}", "detach", U)
    ip(NS, "link", "del", U)

    print("# a timeout set applies to the connections there")
    h.expect(0, r"^timeout   udp          1 s$", "conntrack", "set", "timeout", "udp", 1)
    time.sleep(1.5)
    c.check(f"conntrack list {T}: its 4 connections expired (unanswered UDP, 1 s)", 4,
            count_lines(out(h.ta("conntrack", "list", T)), r" unreplied expired$"))
    h.expect(0, r"^max +[0-9]+ \(default: the table less 4096\)$", "conntrack", "set", "max", "default",
             "timeout", "udp", "default", "established", "default")
    c.check("back to the defaults in ta_ct_config", f"max {room} tap 0 timeouts {[0] * 10}", ct_config_text())
    h.expect(0, rf"^{T}: 4 connections flushed$", "conntrack", "flush", T)
    h.expect(0, rf"detached tap-accel from {T}", "detach", T)
    ip(NS, "link", "del", T)


def ct_stack(h):
    conntrack.ct_stack(h, NSC, lambda ns, tap: in_program_link(h, tap, ns))


def ct_zones(h):
    conntrack.ct_zones(h, NSZ1, NSZ2)


def ct_limits(h):
    conntrack.ct_limits(h, NSL)


def detach_and_clean(h):
    c = h.c
    print("# detach")
    h.expect(0, f"detached tap-accel from {A}", "detach", A)
    c.ok(f"a program is still attached to {A}", h.xdp_id(A) == "")
    c.ok(f"{A} is still listed", h.status_of(A) == "")
    h.expect(1, f"{A} has no tap-accel program", "detach", A)
    h.send("sent 10 tx 0 redirect 0 pass 10", A, "--count", 10, "--dport", 9)

    print("# clean")
    ip(h.ns, "link", "del", C)
    h.expect(0, f"^{C} .* gone$", "status")
    h.expect(0, rf"removed the binding of {C} \(interface gone\)", "clean", C)
    c.ok(f"clean left the binding of {C}", h.status_of(C) == "")
    c.check(f"clean kept the live {D}", '"state":"attached"', h.field_of(D, "state"))
    # Deleted and made again under its name: a new tap, not bound.
    ip(h.ns, "link", "del", D)
    taps_add(h.ns, D)
    h.expect(1, f"{D} is not bound to a policy", "stats", D)
    h.expect(0, f"attached tap-accel to {D}", "attach", D)
    h.expect(0, "verdict pass +0 pkts", "stats", D)
    h.expect(0, rf"removed the binding of {D} \(interface gone\)", "clean")


def count_lines(text, pattern):
    return sum(re.search(pattern, line) is not None for line in text.splitlines())


def netns_ways(h):
    """Every way of running tap-accel for a namespace."""
    c, ta_bin = h.c, h.ta_bin
    ns_policy = h.write("ns.policy", "rule drop proto udp dport 9\ndefault pass\n")
    must(c, ns_add(NSX) and ns_add(NSY), f"cannot create netns {NSX} and {NSY}")
    must(c, taps_add(NSX, W) and taps_add(NSY, W), f"cannot create tap {W} in {NSX} and {NSY}")

    def nsx(*args):
        return netns_exec(NSX, *args)

    def nsy(*args):
        return netns_exec(NSY, *args)

    def frames(n, dport, ns, passed):
        """n frames to udp port dport into tap W of namespace ns."""
        c.check(f"tapio into {W} of {ns}", f"sent {n} tx 0 redirect 0 pass {passed}",
                out(netns_exec(ns, TAPIO, W, "--count", n, "--dport", dport)))

    print("# ip netns exec, on a machine without bpffs")
    # A private mount and pid namespace with no bpffs stands for a new
    # machine: ip netns exec's fresh /sys hides nothing there, and tap-accel
    # must find (and mount) the bpffs of the mount namespace it was called
    # from. An operator's shell session, command for command.
    session = h.write("session.sh", f"""while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf; done
x() {{ echo "\\$ $*"; ip netns exec {NSX} "$@" 2>&1; echo "rc $?"; }}
x {ta_bin} attach {W} --policy {ns_policy}
x {ta_bin} status
x {TAPIO} {W} --count 300 --dport 9
x {TAPIO} {W} --count 200 --dport 10
x {ta_bin} stats {W} --json
x {ta_bin} detach {W}
echo "xdp $(ip -n {NSX} -d link show {W} | grep -c 'prog/xdp')"
echo "links $(ls {ROOT}/links | wc -l)"
""")
    _, s = call(["unshare", "-m", "-p", "-f", "--mount-proc", "sh", session])
    print("\n".join(f"    {x}" for x in s.rstrip("\n").split("\n")))
    c.check("session: attach", 1,
            count_lines(s, f"^attached tap-accel to {W} \\(native mode\\), policy ns, guard -$"))
    c.check("session: attach mounted a bpffs", 1, count_lines(s, "mounted a bpffs at /sys/fs/bpf"))
    c.check(f"session: status lists {W} attached", 1, count_lines(s, f"^{W} +native +ns +1 +pass .* attached$"))
    h.load_stats(s)
    c.check(f"session: stats counts the frames written into {W}", "300 200", h.drops_passes())
    c.check("session: rule 0 counted", 300, h.rule(0))
    c.check("session: detach", 1, count_lines(s, f"^detached tap-accel from {W}$"))
    c.check("session: every command succeeded", "6 6", f"{count_lines(s, '^rc ')} {count_lines(s, '^rc 0$')}")
    xdp = [x for x in s.splitlines() if x.startswith("xdp ")]
    links = [x for x in s.splitlines() if x.startswith("links ")]
    c.check("session: program detached, no link", "xdp 0 links 0", " ".join(xdp + links))

    print("# ip netns exec, its command alone in the mount namespace: no bpffs mounted there")
    # A pid namespace of its own, where tap-accel is PID 1 and alone in the
    # mount namespace ip netns exec made (as one whose parent has gone, on a
    # host whose PID 1 it cannot read): a bpffs mounted there would go with
    # it, and the tap's program with it.
    alone = h.write("alone.sh", "while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf; done\n"
                    f"exec ip netns exec {NSX} {ta_bin} attach {W} --policy {ns_policy}\n")
    rc, a = call(["unshare", "-m", "-p", "-f", "--mount-proc", "sh", alone])
    c.check(f"alone: attach fails ({a.rstrip()})", 2, rc)
    c.check("alone: why, and the fix", 1, count_lines(
        a, r"no bpffs at /sys/fs/bpf, and this mount namespace ends with this command .*"
        r"'tap-accel --netns NAME \.\.\.' or 'nsenter --net=/run/netns/NAME tap-accel \.\.\.'"))
    c.check("alone: no success reported", 0, count_lines(a, "^attached|mounted a bpffs"))
    c.check(f"alone: no program left on {W}", 0, count_lines(ip(NSX, "-d", "link", "show", W)[1], "prog/xdp"))

    print("# ip netns exec, with the suite's bpffs")
    c.expect_exit(0, f"^attached tap-accel to {W} \\(native mode\\), policy ns, guard -$",
                  nsx(ta_bin, "attach", W, "--policy", ns_policy))
    c.expect_exit(0, f"^{W} +native +ns .* attached$", nsx(ta_bin, "status"))
    frames(30, 9, NSX, 0)
    frames(20, 10, NSX, 20)
    h.stats_json(W, nsx(ta_bin, "stats", W, "--json"))
    c.check("ip netns exec: stats", "30 20", h.drops_passes())
    c.expect_exit(0, "^rule drop proto udp dport 9$", nsx(ta_bin, "policy", "show", W))

    print("# the namespace's own shell")
    h.load_stats(call(nsx("sh", "-c", f"'{TAPIO}' '{W}' --count 10 --dport 9 && '{ta_bin}' stats '{W}' --json"))[1])
    c.check("own shell: stats", "40 20", h.drops_passes())

    print("# --netns NAME from the root namespace")
    must(c, ip(NSX, "tuntap", "add", f"{W}f", "mode", "tap")[0] == 0, f"cannot create tap {W}f in {NSX}")
    c.expect_exit(0, f"fdb 52:54:00:00:00:0e dev {W}f added",
                  [ta_bin, "--netns", NSX, "fdb", "add", W, "52:54:00:00:00:0e", f"{W}f"])
    c.expect_exit(0, f"^fdb 52:54:00:00:00:0e dev {W}f$", [ta_bin, "--netns", NSX, "fdb", "list", W])
    h.stats_json(W, [ta_bin, "stats", W, "--json", "--netns", NSX])
    c.check("--netns after the verb: stats", "40 20", h.drops_passes())
    c.expect_exit(0, f"^{W} +native .* attached$", [ta_bin, "-n", NSX, "status"])
    c.expect_exit(1, f"network namespace nosuchns{ID} not found.*ip netns",
                  [ta_bin, "--netns", f"nosuchns{ID}", "status"])
    c.expect_exit(0, f"^{W} +native .* attached$", [ta_bin, "--netns", f"/run/netns/{NSX}", "status"])

    print(f"# two taps of one ifindex, in {NSX} and {NSY}")
    c.check("the same ifindex in both namespaces", h.ifindex(W, NSX), h.ifindex(W, NSY))
    ns2 = h.write("ns2.policy", "rule tx proto udp dport 9\ndefault drop\n")
    c.expect_exit(0, f"^attached tap-accel to {W} \\(generic mode\\), policy ns2, guard -$",
                  nsy(ta_bin, "attach", W, "--mode", "generic", "--policy", ns2))
    c.check(f"tapio into {W} of {NSY}", "sent 15 tx 15 redirect 0 pass 0",
            out(nsy(TAPIO, W, "--count", 15, "--dport", 9, "--block")))
    c.check(f"tapio into {W} of {NSY}", "sent 25 tx 0 redirect 0 pass 0",
            out(nsy(TAPIO, W, "--count", 25, "--dport", 10, "--block")))
    frames(5, 9, NSX, 0)
    h.stats_json(W, nsy(ta_bin, "stats", W, "--json"))
    c.check(f"{W} of {NSY}: its own counters", "15 25 0",
            f"{h.verdict('tx')} {h.verdict('drop')} {h.verdict('pass')}")
    h.stats_json(W, nsx(ta_bin, "stats", W, "--json"))
    c.check(f"{W} of {NSX}: its own counters", "45 20", h.drops_passes())
    c.check(f"status in {NSY} lists only its {W}", 1, count_lines(out(nsy(ta_bin, "status")), f"^{W} "))
    c.check("status --all lists both", 2, count_lines(out(nsy(ta_bin, "status", "--all")), f"{W} "))
    c.expect_exit(0, f"^detached tap-accel from {W}$", nsy(ta_bin, "detach", W))
    c.expect_exit(0, f"^{W} +native .* attached$", nsx(ta_bin, "status"))

    print("# clean: a namespace gone, another live")
    c.expect_exit(0, f"attached tap-accel to {W}", nsy(ta_bin, "attach", W, "--policy", "ns2"))
    ns_del(NSY)
    # The kernel deletes the namespace's taps a moment later.
    removed = r'"removed":\["net:[0-9]*/%s"\]' % W
    for _ in range(50):
        cleaned = out([ta_bin, "--json", "clean"])
        if re.search(removed, cleaned):
            break
        time.sleep(0.1)
    c.check("clean removed the binding of the namespace gone", 1, count_lines(cleaned, removed))
    c.expect_exit(0, f"^{W} +native .* attached$", nsx(ta_bin, "status"))
    c.expect_exit(0, f"^detached tap-accel from {W}$", nsx(ta_bin, "detach", W))
    ns_del(NSX)


def thousand_taps(h):
    c = h.c
    print("# 1000 taps bound in one call and unbound")
    h.ns = NSS
    try:
        before = tap_accel_objects()
        links_before = len(link_pins())
        must(c, tap_batch(NSS, "m", 1000), "cannot create 1000 taps")
        taps = [f"m{i}" for i in range(1, 1001)]
        h.expect(0, r"attached tap-accel to m1000 \(native mode\), policy swap", "attach", *taps, "--policy", "swap")
        c.check("1000 taps attached", 1000, count_lines(out(h.ta("status")), " attached$"))
        for t in (1, 333, 1000):
            h.send(f"sent 7{t} tx 7{t} redirect 0 pass 0", f"m{t}", "--count", f"7{t}", "--dport", 7)
            h.send("sent 3 tx 0 redirect 0 pass 3", f"m{t}", "--count", 3, "--dport", 8)
        # a writer's open reads every ref to free what none leads to:
        # with 1000 bound it must free nothing (their counters, below)
        t0 = time.monotonic()
        h.expect(0, "", "clean")
        print(f"# clean (a writer's open) with 1000 taps bound: {(time.monotonic() - t0) * 1000:.0f} ms")
        c.check("1000 taps attached after it", 1000, count_lines(out(h.ta("status")), " attached$"))
        for t in (1, 333, 1000):
            h.stats_json(f"m{t}")
            c.check(f"m{t}: its own rule 0", f"7{t}", h.rule(0))
            c.check(f"m{t}: its own verdicts", f"7{t} 3", f"{h.verdict('tx')} {h.verdict('pass')}")
        h.stats_json("m2")
        c.check("m2 saw none of it", "0 0", f"{h.verdict('tx')} {h.verdict('pass')}")
        h.expect(0, "detached tap-accel from m1000", "detach", *taps)
        c.check("nothing of the 1000 taps is left (bpftool's lists)", before, tap_accel_objects())
        c.check("their link pins gone", links_before, len(link_pins()))
    finally:
        h.ns = NS


def many_two_way(h):
    """Distinct two-way policies, as a host where each VM interface has its
    own (source pve) loads them: hundreds fit, the one past the shared
    arrays is refused by name, and an unloaded one's room is used again."""
    c = h.c
    print("# distinct two-way policies until the plane is full")
    names = []
    refused = ""
    try:
        for i in range(2000):
            f = h.write("tw.policy", "rule pass out\n"
                        f"rule pass in proto tcp dport {2000 + i}\ndefault in drop\n")
            rc, text = call(h.ta("policy", "load", f"tw{i}", f))
            if rc != 0:
                refused = text
                break
            names.append(f"tw{i}")
        print(f"# {len(names)} loaded; then: {refused.strip()}")
        c.check("over 450 distinct two-way policies loaded", True, len(names) > 450)
        c.check("the next one refused: the rules do not fit", True,
                re.search(rf"policy tw{len(names)}: the rules do not fit \(No space left on device\)",
                          refused) is not None)
        if names:
            refused_name = f"tw{len(names)}"
            h.expect(0, f"unloaded policy {names[0]}", "policy", "unload", names.pop(0))
            h.expect(0, f"loaded .* as policy {refused_name}: 11 rules", "policy", "load",
                     refused_name, f)
            names.append(refused_name)
    finally:
        for n in names:
            call(h.ta("policy", "unload", n))
    c.check("every one unloaded", "", "\n".join(
        x for x in out(h.ta("policy", "list")).splitlines() if re.match(r"tw[0-9]", x)))


def map_entries(name):
    """How many entries the plane's map NAME holds (bpftool's dump)."""
    return out(["bpftool", "-j", "map", "dump", "pinned", f"{ROOT}/{name}"]).count('"key"')


def map_sizes(name):
    """(key, value) sizes in bytes of the plane's map NAME."""
    m = json.loads(out(["bpftool", "-j", "map", "show", "pinned", f"{ROOT}/{name}"]))
    return m["bytes_key"], m["bytes_value"]


def orphan_write(name, key, value):
    """An entry written with bpftool into map NAME, each byte list padded
    with zeros to the map's sizes. True if written."""
    ks, vs = map_sizes(name)
    key, value = key + ["0"] * (ks - len(key)), value + ["0"] * (vs - len(value))
    return call(["bpftool", "map", "update", "pinned", f"{ROOT}/{name}",
                 "key", *key, "value", *value])[0] == 0


def orphans(h):
    """What a writer killed between its first write and its ref (or after
    an unbind's ref, before the rest) leaves, no ref leading there: the
    next writer frees it, and nothing live."""
    c = h.c
    kinds = ("ta_tap_info", "ta_counter_blocks", "ta_guard_ip4", "ta_fdb")

    def counts():
        return " ".join(f"{k} {map_entries(k)}" for k in kinds)

    def live_counters():
        h.stats_json(E)
        return json.dumps({k: h.stats.get(k) for k in ("verdict", "rules")}, sort_keys=True)

    print("# orphans: a tap id's record, counter block, guard and fdb entry, no ref")
    call(h.tapio(E, "--count", 5, "--dport", 9))
    call(h.tapio(E, "--count", 3, "--dport", 10))
    kept = live_counters()
    c.ok(f"{E} counted the frames written ({kept})",
         sum(v.get("packets", 0) for v in h.stats.get("verdict", {}).values()) >= 8)
    before = counts()
    orphan_id = 16000
    must(c, orphan_write("ta_tap_info", le32(orphan_id), []) and
         orphan_write("ta_counter_blocks", le32(4000), le32(50)) and
         orphan_write("ta_guard_ip4", le32(orphan_id) + ["10", "0", "0", "9"], ["1"]) and
         orphan_write("ta_fdb", le32(orphan_id) + ["82", "84", "0", "0", "0", "9"], le32(1)),
         "cannot write the orphans with bpftool")
    c.ok("the orphans are in the maps", counts() != before)
    h.expect(0, "", "clean")
    c.check("a writer's open freed every orphan: records, blocks, guard, fdb as before", before, counts())
    c.check(f"{E} kept its counters", kept, live_counters())
    h.expect(0, f"attached tap-accel to {A}", "attach", A)
    c.check(f"{E}: its counters still its own once {A} has blocks again", kept, live_counters())
    h.expect(0, f"detached tap-accel from {A}", "detach", A)

    print("# orphans: tap-accel attach of 200 taps killed (SIGKILL) at random moments")
    h.ns = NSS
    try:
        taps = [f"m{i}" for i in range(1, 201)]
        rng = random.Random(ID)
        for r in range(6):
            p = subprocess.Popen(h.ta("attach", *taps, "--policy", "swap"),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.02, 0.4))
            p.kill()
            p.wait()
            # the links it made unbound as an operator would (a detach of
            # taps it never bound says so, and goes on)
            call(h.ta("detach", *taps))
        h.expect(0, "", "clean")
        c.check("after 6 killed attaches and a detach: records, blocks, guard, fdb as before",
                before, counts())
        c.check("no tap of the 200 is bound", 0, count_lines(out(h.ta("status")), "^m[0-9]+ "))
    finally:
        h.ns = NS
    c.check(f"{E} kept its counters", kept, live_counters())


def bpftool_only_and_clean_all(h):
    c, initial = h.c, h.initial
    print("# bpftool only")
    # docs/bpftool.md, command for command: a shell session, as an operator runs it
    _, bt = call(["sh", f"{HERE}/bpftool-path.sh", NS, B, f"{BUILD}/bpf", TAPIO, f"/sys/fs/bpf/only{ID}"])
    if not c.ok("bpftool path:", re.search(r"^bpftool path: ok$", bt, re.M)):
        print("\n".join(f"    {x}" for x in bt.splitlines()))

    print("# clean --all: nothing of tap-accel left")
    call(h.ta("detach", B, E))
    h.expect(0, "removed every tap-accel program, link, map and pin", "clean", "--all")
    c.ok(f"{ROOT} is left after clean --all", not os.path.exists(ROOT))
    # the kernel frees a program and its maps a moment after their last user
    for _ in range(50):
        if tap_accel_objects() == initial:
            break
        time.sleep(0.1)
    c.check("no tap-accel object in the kernel but what was there before", initial, tap_accel_objects())


t = Suite("host")
host = {}


def setup():
    own_bpffs(os.path.abspath(__file__))
    # the plane's connection table at its smallest, so that ct-limits can
    # fill it (its limit, 4096 short of it, is 12288 connections)
    os.environ["TAP_ACCEL_CT_ENTRIES"] = "16384"
    # the CLI (a copy in the scratch folder), tapio and promfile
    h = host["h"] = Host(t, *prepare_cli(t, TOP, BUILD, tests=("host",)))
    t.defer(shutil.rmtree, BT, True)
    t.defer(ns_del, NS, NSX, NSY, NSS, NSP, NSW, NSC, NSZ1, NSZ2, NSL)
    if not ns_add(NS):
        t.bad(f"cannot create netns {NS}")
        raise Stop
    if not taps_add(NS, A, B, C, D, E):
        t.bad("cannot create taps")
        raise Stop
    ip(NS, "link", "add", V, "type", "veth", "peer", "name", f"{V}p")
    h.initial = tap_accel_objects()


# The parts, in order; each builds on the state the ones before it leave
# (a part asked for alone runs those first), but for those of STANDALONE,
# which make all they use and remove it (on the plane as the others left
# it, or a new one).
STANDALONE = ("ct-stack", "ct-zones", "ct-limits", "two-way-many")
PARTS = [("attach", first_attach), ("shared", shared_policy), ("replace", replace_policy),
         ("swap", swap_under_traffic), ("fdb-guard-rate", fdb_guard_rate),
         ("rules-examples", many_rules_and_examples), ("bad-input", bad_input),
         ("layout", other_layout), ("foreign", foreign_program), ("survived-rates", survived_and_rates),
         ("prometheus", prometheus), ("two-way", two_way),
         ("conntrack-options", conntrack_options),
         ("ct-stack", ct_stack), ("ct-zones", ct_zones), ("ct-limits", ct_limits),
         ("two-way-many", many_two_way),
         ("detach-clean", detach_and_clean), ("netns", netns_ways),
         ("taps1000", thousand_taps), ("orphans", orphans),
         ("bpftool-clean-all", bpftool_only_and_clean_all)]
CHAIN = [name for name, _ in PARTS if name not in STANDALONE]
for name, fn in PARTS:
    i = CHAIN.index(name) if name in CHAIN else 0
    t.part(name, needs=[CHAIN[i - 1]] if i else [])(lambda fn=fn: fn(host["h"]))

if __name__ == "__main__":
    t.main(setup)
