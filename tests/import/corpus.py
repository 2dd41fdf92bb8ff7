# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""A corpus of an importer: packets and the verdict the platform's own
firewall gives each, checked against the translated policy twice: by the
reference model ('tap-accel policy explain') and by the program on a real
tap (stock tun, in a namespace of its own, the policy bound with
'attach').

An .expect file has one packet a line ('#' starts a comment):

    DIR STATE PROTO SRC[:PORT] DST[:PORT] [type N] VERDICT

    in  new         tcp  192.0.2.10:40000   10.0.0.5:22      pass
    in  new         icmp 192.0.2.1          10.0.0.5 type 8  drop
    out established udp  10.0.0.5:53        192.0.2.7:5353   pass
    in  new         tcp  [2001:db8::1]:4000 [2001:db8::5]:80 reject

DIR is in (to the guest) or out (from it); STATE new, established,
related or invalid (what the connection table would say of it); PROTO
tcp, udp, icmp, icmpv6 or a number; VERDICT pass, drop or reject. A TCP
packet is a SYN when new, an ACK otherwise; ICMP is an echo request
unless a type is given, its identifier the line's number. On the tap the
cases share one connection table: give each case ports of its own.

On the tap only the new packets are sent (the other states need a
connection made first, which the model's --state stands for): out, the
guest writes the frame and the tap's verdict counters must move by the
verdict (reject: the answer goes back out of the tap, XDP_TX); in, the
stack sends the packet to the guest through a raw socket and a route to
the tap, and the guest must read it exactly when the verdict is pass."""
import json
import os
import re
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "host"))
from conntrack import (ACK, HOST_MAC, SYN, Guest, csum, ether, ip4, ip6, tcp_seg,  # noqa: E402
                       with_csum)
from hostsuite import in_netns, in_ns, run, wait_until  # noqa: E402

PROTOS = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58}
STATES = ("new", "established", "related", "invalid")
VERDICTS = ("pass", "drop", "reject")
DEFAULT_GUEST_MAC = "52:54:00:00:00:01"


class Case:
    """One packet of an .expect file and its verdict."""

    def __init__(self, where, text, direction, state, proto, src, sport, dst, dport, icmp_type,
                 verdict):
        self.where, self.text = where, text
        self.direction, self.state, self.proto = direction, state, proto
        self.src, self.sport, self.dst, self.dport = src, sport, dst, dport
        self.icmp_type, self.verdict = icmp_type, verdict
        self.v6 = ":" in src

    def __repr__(self):
        return f"{self.where}: {self.text}"


def _endpoint(word, where):
    """ADDRESS, ADDRESS:PORT or [ADDRESS6]:PORT: (address, port or None)."""
    m = re.fullmatch(r"\[([0-9a-fA-F:.]+)\](?::(\d+))?", word)
    if m:
        addr, port = m.group(1), m.group(2)
    elif word.count(":") == 1:
        addr, port = word.split(":")
    else:
        addr, port = word, None
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in addr else socket.AF_INET, addr)
    except OSError:
        raise ValueError(f"{where}: not an address: {addr}")
    if port is not None and not (port.isdigit() and 0 <= int(port) <= 65535):
        raise ValueError(f"{where}: not a port: {port}")
    return addr, None if port is None else int(port)


def load(path):
    """The cases of an .expect file; ValueError naming FILE:LINE when a
    line is not one."""
    cases = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            where = f"{os.path.basename(path)}:{n}"
            w = text.split()
            if len(w) not in (6, 8):
                raise ValueError(f"{where}: want DIR STATE PROTO SRC DST [type N] VERDICT: {text}")
            direction, state, proto, verdict = w[0], w[1], w[2], w[-1]
            if direction not in ("in", "out") or state not in STATES or verdict not in VERDICTS:
                raise ValueError(f"{where}: unknown direction, state or verdict: {text}")
            if proto in PROTOS:
                proto = PROTOS[proto]
            elif proto.isdigit() and int(proto) < 256:
                proto = int(proto)
            else:
                raise ValueError(f"{where}: unknown protocol {proto}")
            (src, sport), (dst, dport) = _endpoint(w[3], where), _endpoint(w[4], where)
            icmp_type = None
            if len(w) == 8:
                if w[5] != "type" or not w[6].isdigit():
                    raise ValueError(f"{where}: want 'type N' before the verdict: {text}")
                icmp_type = int(w[6])
            if (":" in src) != (":" in dst):
                raise ValueError(f"{where}: source and destination of two families: {text}")
            if (proto in (6, 17)) != (sport is not None and dport is not None):
                raise ValueError(f"{where}: TCP and UDP take both ports, others none: {text}")
            cases.append(Case(where, text, direction, state, proto, src, sport, dst, dport, icmp_type,
                              verdict))
    return cases


# ---- the packets ----------------------------------------------------------------


def segment(c, src, dst):
    """The transport part of case c, its checksum over the pseudo-header
    of src and dst."""
    if c.proto == 6:
        return tcp_seg(c.sport, c.dport, SYN if c.state == "new" else ACK, 1000, 0 if c.state == "new" else 1)
    if c.proto == 17:
        return struct.pack("!HHHH", c.sport, c.dport, 8 + 9, 0) + b"tap-accel"
    # each case an echo of its own (the identifier is the connection's)
    ident = int(c.where.rsplit(":", 1)[1])
    if c.proto == 1:
        icmp = struct.pack("!BBHHH", 8 if c.icmp_type is None else c.icmp_type, 0, 0, ident, 1) + b"tap-accel"
        return icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    if c.proto == 58:
        return struct.pack("!BBHHH", 128 if c.icmp_type is None else c.icmp_type, 0, 0, ident, 1) + b"tap-accel"
    return b"tap-accel"


def packet(c):
    """Case c as an IP packet, checksums right."""
    seg = segment(c, c.src, c.dst)
    csum_at = {6: 16, 17: 6, 58: 2}.get(c.proto)
    if c.v6:
        if csum_at is None:
            s, d = (socket.inet_pton(socket.AF_INET6, a) for a in (c.src, c.dst))
            return struct.pack("!IHBB", 6 << 28, len(seg), c.proto, 64) + s + d + seg
        return ip6(c.src, c.dst, c.proto, seg, csum_at)
    return ip4(c.src, c.dst, c.proto, seg, csum_at)


def frame(c, guest_mac):
    """Case c as the Ethernet frame its sender puts on the tap's wire."""
    ethertype = 0x86dd if c.v6 else 0x0800
    if c.direction == "out":
        return ether(HOST_MAC, guest_mac, ethertype, packet(c))
    return ether(guest_mac, HOST_MAC, ethertype, packet(c))


def guest_mac(policy_text):
    """The MAC a policy's guard gives the guest, or a default one."""
    m = re.search(r"^\s*guard\b.*\bmac\s+([0-9a-fA-F:]{17})", policy_text, re.M)
    return m.group(1).lower() if m else DEFAULT_GUEST_MAC


# ---- through the model ------------------------------------------------------------


def check_explain(t, cli, policy_path, cases):
    """Each case through 'tap-accel policy explain': the action (or the
    guard's drop) must be the case's verdict."""
    with open(policy_path) as f:
        mac = guest_mac(f.read())
    for c in cases:
        argv = [cli, "-j", "policy", "explain", policy_path, "--direction", c.direction,
                "--frame", frame(c, mac).hex()]
        if c.state != "new":
            argv += ["--state", c.state]
        r = run(argv)
        try:
            got = json.loads(r.out)
        except ValueError:
            t.bad(f"{c}: policy explain gave no JSON:\n{r.out}{r.err}")
            continue
        verdict = got.get("action") or got.get("verdict")
        t.check(f"{c}: the model's verdict ({got.get('text') or 'guard ' + str(got.get('guard'))})",
                c.verdict, verdict)


# ---- through the program on a tap ----------------------------------------------------


class TapBench:
    """Namespace ns with tap `tap` (the host's side of a guest, IPv6 on but
    quiet) and the suite at the tap's file descriptor as the guest; routes
    to the guest's addresses go through the tap as the cases need them."""

    def __init__(self, t, cli, ns, tap):
        self.t, self.cli, self.ns, self.tap = t, cli, ns, tap
        self.guest = None
        self.routed = set()

    def sh(self, *argv):
        r = run(in_ns(self.ns, [str(a) for a in argv]), merge=True)
        if r.rc:
            self.t.bad(f"in {self.ns}: {' '.join(map(str, argv))}: {r.out.strip()}")
        return r.rc == 0

    def make(self):
        if run(["ip", "netns", "add", self.ns]).rc:
            self.t.bad(f"cannot create netns {self.ns}")
            return False
        self.t.defer(run, ["ip", "netns", "del", self.ns])
        for key in ("accept_dad=0", "router_solicitations=0", "accept_ra=0"):
            run(in_ns(self.ns, ["sysctl", "-qw", f"net.ipv6.conf.default.{key}"]))
        if not (self.sh("ip", "link", "set", "lo", "up")
                and self.sh("ip", "tuntap", "add", self.tap, "mode", "tap")
                and self.sh("ip", "link", "set", self.tap, "address", HOST_MAC)):
            return False
        self.guest = Guest(self.ns, self.tap)
        self.t.defer(self.guest.close)
        return self.sh("ip", "link", "set", self.tap, "up")

    def route(self, addr, mac):
        """Packets of the stack to addr go out of the tap, to mac."""
        if addr in self.routed:
            return True
        self.routed.add(addr)
        plen = 128 if ":" in addr else 32
        return (self.sh("ip", "route", "add", f"{addr}/{plen}", "dev", self.tap)
                and self.sh("ip", "neigh", "add", addr, "lladdr", mac, "nud", "permanent",
                            "dev", self.tap))

    def verdicts(self):
        r = run(in_ns(self.ns, [self.cli, "stats", self.tap, "--json"]))
        for line in r.out.splitlines():
            if line.startswith('{"ifname"'):
                s = json.loads(line)
                return {k: v.get("packets", 0) for k, v in s.get("verdict", {}).items()}
        self.t.bad(f"stats {self.tap} --json: no counters:\n{r.out}{r.err}")
        return {}

    def send_in(self, c):
        """Case c sent by the stack to the guest: True if the guest read it."""
        family = socket.AF_INET6 if c.v6 else socket.AF_INET
        s = in_netns(self.ns, socket.socket, family, socket.SOCK_RAW, socket.IPPROTO_RAW)
        try:
            s.sendto(packet(c), (c.dst, 0))
        finally:
            s.close()
        want = packet(c)
        frames = self.guest.read(lambda fs: any(f.raw[14:] == want for f in fs), timeout=0.5, idle=0.05)
        return any(f.raw[14:] == want for f in frames)


def check_on_tap(t, cli, policy_path, cases, ns, tap):
    """The new cases through the program: the policy bound to a fresh tap
    in namespace ns (made here, removed at the end)."""
    with open(policy_path) as f:
        mac = guest_mac(f.read())
    bench = TapBench(t, cli, ns, tap)
    if not bench.make():
        return
    r = run(in_ns(ns, [cli, "attach", tap, "--policy", policy_path]), merge=True)
    if not t.ok(f"attach {tap} --policy {os.path.basename(policy_path)}", r.rc == 0, r.out.strip()):
        return
    t.defer(run, in_ns(ns, [cli, "detach", tap]))
    for c in (c for c in cases if c.state == "new"):
        if c.direction == "out":
            before = bench.verdicts()
            bench.guest.write(frame(c, mac))
            want = {"pass": "pass", "drop": "drop", "reject": "tx"}[c.verdict]
            moved = {}

            def counted():
                after = bench.verdicts()
                moved.update({k: after.get(k, 0) - before.get(k, 0) for k in after
                              if after.get(k, 0) != before.get(k, 0)})
                return moved
            wait_until(counted, timeout=1.0)
            t.check(f"{c}: on {tap}, the verdict counters moved", f"{want} +1",
                    ", ".join(f"{k} +{v}" for k, v in sorted(moved.items())) or "none")
            bench.guest.read(timeout=0.05, idle=0.02)  # a reject's answer
        else:
            if not bench.route(c.dst, mac):
                continue
            got = bench.send_in(c)
            t.check(f"{c}: on {tap}, read by the guest", c.verdict == "pass", got)


# ---- what the parts share ---------------------------------------------------------------


class Env:
    """Set by the suite before its parts run: the CLI (a copy, in a scratch
    folder removed at the end) and that folder."""
    cli = None
    tmp = None
    _n = 0


def names():
    """A namespace and a tap name no other run of the suite has."""
    Env._n += 1
    return f"taimp{os.getpid()}n{Env._n}", f"ti{os.getpid() % 100000}t{Env._n}"


def write(name, text):
    """text as file name in the scratch folder; its path."""
    path = os.path.join(Env.tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_policy(t, policy_path, expect_path):
    """Every case of expect_path through the model and, the new ones, the
    program on a tap of its own."""
    try:
        cases = load(expect_path)
    except (OSError, ValueError) as e:
        t.bad(f"the corpus: {e}")
        return
    t.ok(f"{os.path.basename(expect_path)} has cases", cases)
    check_explain(t, Env.cli, policy_path, cases)
    ns, tap = names()
    check_on_tap(t, Env.cli, policy_path, cases, ns, tap)


def import_json(t, argv, keys="format file policy statements warnings", **kw):
    """'policy import ... --json' (argv with --json in it): (its one object,
    whose keys must be keys, in order, or None when it is not one; the
    Result)."""
    r = run(argv, **kw)
    try:
        got = json.loads(r.out)
    except ValueError:
        t.bad(f"--json: not JSON: {r.out!r} {r.err!r}")
        return None, r
    t.check("--json: its keys", keys, " ".join(got))
    return got, r
