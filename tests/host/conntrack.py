# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The host suite's parts of two-way policies on stock tun (docs/policy.md,
"Two-way policies"; docs/bpf.md, "Two-way, stateful policies"):

  ct-stack   the in program on a tap's tcx egress judges what the stack
             sends to the guest: new connections to port 22 arrive, to
             other ports not, replies to what the guest opened arrive,
             ICMP echo in is dropped and the replies to echo out pass,
             ARP and neighbour discovery reach the guest; each tap's
             conntrack counters move by what was seen
  ct-zones   the same addresses and ports behind two taps of one name and
             ifindex in two namespaces: a connection opened behind one
             lets nothing in behind the other; nor behind a tap bound
             again (a new guest) in its place
  ct-limits  a per-tap limit (tap_limit of ta_ct_config) and the host's
             (max_tracked, the table less 4096, of a table made small with
             TAP_ACCEL_CT_ENTRIES): one tap's flood is refused and counted,
             another tap's connections keep working and it can open more
             until the host is full

The guest is the suite itself at the tap's file descriptor (Python, so that
it can answer: a TCP handshake, ARP, neighbour advertisements); the host's
side is real sockets in the namespace, routed to the tap. Each frame the
stack sends reaches the guest only through the tap's in program, so what
the guest reads is counted against in_pass and what it does not against
in_drop. Each part makes its own namespaces, taps and policy, binds them to
the suite's plane and removes all of it before it returns, also when a
check breaks off."""
import fcntl
import json
import os
import re
import select
import socket
import struct
import time

from hostsuite import in_netns, in_ns, ns_add, ns_del, run, wait_until

ROOT = "/sys/fs/bpf/tap-accel"
# the security group of docs/policy.md, as written there
SECURITY_GROUP = """rule pass out
rule pass in proto tcp dport 22
default in drop
default out pass
"""
GUEST_MAC, HOST_MAC, OTHER_MAC = "52:54:00:00:00:01", "52:54:00:00:00:02", "52:54:00:00:00:03"
# TCP flags
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
# ta_ct_config's fields (bpf/tap_accel.h): byte offsets in its value
CFG_MAX_TRACKED, CFG_TAP_LIMIT = 0, 4
# ta_ct_taps: the host's total is entry TA_MAX_TAPS
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "bpf", "tap_accel.h")) as _h:
    TA_MAX_TAPS = int(re.search(r"#define TA_MAX_TAPS (\d+)", _h.read()).group(1))

TUNSETIFF, IFF_TAP, IFF_NO_PI = 0x400454ca, 0x0002, 0x1000
SOL_PACKET, PACKET_IGNORE_OUTGOING = 263, 23
# Linux' socket options Python does not name
SO_RCVBUFFORCE = 33


# ---- frames ------------------------------------------------------------------


def mac(text):
    return bytes.fromhex(text.replace(":", ""))


def csum(data):
    """The Internet checksum of data."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def with_csum(seg, at, pseudo):
    """seg with the checksum over pseudo + seg written at byte at."""
    seg = seg[:at] + b"\0\0" + seg[at + 2:]
    return seg[:at] + struct.pack("!H", csum(pseudo + seg)) + seg[at + 2:]


def ether(dst, src, ethertype, payload):
    return mac(dst) + mac(src) + struct.pack("!H", ethertype) + payload


def ip4(src, dst, proto, seg, csum_at=None):
    """An IPv4 packet; the L4 checksum at seg's byte csum_at (pseudo-header
    included) when given."""
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    if csum_at is not None:
        seg = with_csum(seg, csum_at, s + d + struct.pack("!BBH", 0, proto, len(seg)))
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 0, 0x4000, 64, proto, 0, s, d)
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + seg


def ip6(src, dst, proto, seg, csum_at, hops=64):
    s, d = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    seg = with_csum(seg, csum_at, s + d + struct.pack("!IxxxB", len(seg), proto))
    return struct.pack("!IHBB", 6 << 28, len(seg), proto, hops) + s + d + seg


def tcp_seg(sport, dport, flags, seq=0, ack=0, data=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + data


def tcp4(src, dst, sport, dport, flags, seq=0, ack=0, data=b""):
    """An IPv4 TCP packet (no Ethernet header)."""
    return ip4(src, dst, 6, tcp_seg(sport, dport, flags, seq, ack, data), 16)


def udp4(src, dst, sport, dport, data):
    return ip4(src, dst, 17, struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data, 6)


def echo4(src, dst, ident, seq, data=b"tap-accel"):
    icmp = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + data
    return ip4(src, dst, 1, icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:])


def arp_reply(sha, spa, tha, tpa):
    return ether(tha, sha, 0x0806, struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 2, mac(sha),
                                               socket.inet_aton(spa), mac(tha), socket.inet_aton(tpa)))


def neighbour_advert(src_mac, target, dst_mac, dst):
    """A solicited neighbour advertisement of target (at src_mac) to dst."""
    na = (struct.pack("!BBHI", 136, 0, 0, 0x60000000) + socket.inet_pton(socket.AF_INET6, target)
          + struct.pack("!BB", 2, 1) + mac(src_mac))
    return ether(dst_mac, src_mac, 0x86dd, ip6(target, dst, 58, na, 2, hops=255))


class Frame:
    """What the guest read, parsed as far as the tests look: kind (tcp,
    udp, icmp, arp, icmp6, udp6, other), addresses, ports, TCP flags and
    sequence numbers, ICMP type and id, ARP's and NS's target, data."""

    def __init__(self, raw):
        self.raw = raw
        self.kind, self.src, self.dst = "other", "", ""
        self.sport = self.dport = self.flags = self.seq = self.ack = self.type = self.ident = 0
        self.target, self.data = "", b""
        if len(raw) < 14:
            return
        ethertype, p = struct.unpack("!H", raw[12:14])[0], raw[14:]
        if ethertype == 0x0806 and len(p) >= 28:
            self.kind, self.type = "arp", struct.unpack("!H", p[6:8])[0]
            self.src, self.target = socket.inet_ntoa(p[14:18]), socket.inet_ntoa(p[24:28])
        elif ethertype == 0x0800 and len(p) >= 20:
            ihl, proto = (p[0] & 15) * 4, p[9]
            self.src, self.dst = socket.inet_ntoa(p[12:16]), socket.inet_ntoa(p[16:20])
            self.l4(proto, p[ihl:struct.unpack("!H", p[2:4])[0]], v6=False)
        elif ethertype == 0x86dd and len(p) >= 40:
            self.src = socket.inet_ntop(socket.AF_INET6, p[8:24])
            self.dst = socket.inet_ntop(socket.AF_INET6, p[24:40])
            self.l4(p[6], p[40:40 + struct.unpack("!H", p[4:6])[0]], v6=True)

    def l4(self, proto, seg, v6):
        if proto == 6 and len(seg) >= 20:
            self.kind = "tcp"
            self.sport, self.dport, self.seq, self.ack, off, self.flags = struct.unpack("!HHIIBB", seg[:14])
            self.data = seg[(off >> 4) * 4:]
        elif proto == 17 and len(seg) >= 8:
            self.kind = "udp6" if v6 else "udp"
            self.sport, self.dport = struct.unpack("!HH", seg[:4])
            self.data = seg[8:]
        elif proto == 1 and len(seg) >= 8:
            self.kind, self.type = "icmp", seg[0]
            self.ident, self.seq = struct.unpack("!HH", seg[4:8])
        elif proto == 58 and len(seg) >= 4:
            self.kind, self.type = "icmp6", seg[0]
            if self.type in (135, 136) and len(seg) >= 24:
                self.target = socket.inet_ntop(socket.AF_INET6, seg[8:24])

    def __repr__(self):
        if self.kind == "tcp":
            names = "".join(n for b, n in ((SYN, "S"), (ACK, "."), (FIN, "F"), (RST, "R"), (PSH, "P"))
                            if self.flags & b)
            return f"tcp {self.src}:{self.sport} > {self.dst}:{self.dport} [{names}] {self.data!r}"
        if self.kind in ("udp", "udp6"):
            return f"{self.kind} {self.src}:{self.sport} > {self.dst}:{self.dport} {self.data!r}"
        if self.kind in ("arp", "icmp6") and self.target:
            return f"{self.kind} {self.type} {self.src} target {self.target}"
        if self.kind in ("icmp", "icmp6"):
            return f"{self.kind} {self.type} {self.src} > {self.dst} id {self.ident}"
        return f"{self.kind} {self.raw[:34].hex()}"


def open_tap(name):
    """The tap's file descriptor, its reader and writer (nonblocking: what
    is written runs the tap's XDP program natively). In the caller's
    network namespace."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


class Guest:
    """The guest behind tap `tap` of namespace `ns`: the tap's fd (opened
    there), what it writes (each frame runs the tap's XDP program) and
    reads (each frame came through the tap's in program)."""

    def __init__(self, ns, tap, ip="10.0.0.1", host_ip="10.0.0.2"):
        self.ns, self.tap, self.ip, self.host_ip = ns, tap, ip, host_ip
        self.fd = in_netns(ns, open_tap, tap)
        self.written = 0

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def write(self, frame):
        for _ in range(1000):
            try:
                os.write(self.fd, frame)
                self.written += 1
                return
            except BlockingIOError:
                time.sleep(0.001)
        raise OSError(f"cannot write into {self.tap}")

    def write_ip(self, packet, dst_mac=HOST_MAC, ethertype=0x0800):
        self.write(ether(dst_mac, GUEST_MAC, ethertype, packet))

    def read(self, until=None, timeout=1.0, idle=0.15):
        """The frames read: until until(frames) holds (or timeout s if it
        never does; without until, the whole timeout), then until none has
        come for idle s."""
        frames, end = [], time.monotonic() + timeout
        done = False
        last = time.monotonic()
        while True:
            now = time.monotonic()
            if not done and (now >= end or (until and until(frames))):
                done = True
            if done and now - last >= idle:
                return frames
            r, _, _ = select.select([self.fd], [], [], 0.01)
            while r:
                try:
                    frames.append(Frame(os.read(self.fd, 65536)))
                    last = time.monotonic()
                except BlockingIOError:
                    break


class Flow:
    """A TCP connection the guest opens to the host, sequence numbers
    followed as the guest's stack would."""

    def __init__(self, g, dst, sport, dport, src=None):
        self.g, self.src, self.dst, self.sport, self.dport = g, src or g.ip, dst, sport, dport
        self.seq, self.ack = 1000 + sport, 0

    def frame(self, flags, data=b""):
        return tcp4(self.src, self.dst, self.sport, self.dport, flags, self.seq, self.ack, data)

    def mine(self, f):
        """f is the host's side of this connection."""
        return (f.kind == "tcp" and f.src == self.dst and f.sport == self.dport
                and f.dst == self.src and f.dport == self.sport)

    def open(self, timeout=1.0):
        """SYN, and the ACK of the SYN-ACK read: (the frames read, the SYN-ACK or None)."""
        self.g.write_ip(self.frame(SYN))
        self.seq += 1
        frames = self.g.read(lambda fs: any(self.mine(f) and f.flags & SYN for f in fs), timeout=timeout)
        synack = next((f for f in frames if self.mine(f) and f.flags & (SYN | ACK) == SYN | ACK), None)
        if synack:
            self.ack = synack.seq + 1
            self.g.write_ip(self.frame(ACK))
        return frames, synack

    def send(self, data):
        self.g.write_ip(self.frame(PSH | ACK, data))
        self.seq += len(data)

    def expect(self, data, timeout=1.0):
        """The frames read until the host's data arrives; its data ACKed."""
        frames = self.g.read(lambda fs: any(self.mine(f) and f.data == data for f in fs), timeout=timeout)
        if any(self.mine(f) and f.data == data for f in frames):
            self.ack += len(data)
            self.g.write_ip(self.frame(ACK))
        return frames


# ---- the host's side ---------------------------------------------------------------


def sh(ns, *argv):
    """A command in namespace ns: True if it succeeded."""
    return run(in_ns(ns, [str(x) for x in argv])).rc == 0


def host_tap(ns, tap, host_ip="10.0.0.2/24", guest_ip="10.0.0.1"):
    """Tap tap in ns, the host's end of a routed guest: its MAC and address,
    the guest's MAC a permanent neighbour (no ARP of the host's own in the
    counts). True if made."""
    return (sh(ns, "ip", "tuntap", "add", tap, "mode", "tap")
            and sh(ns, "ip", "link", "set", tap, "address", HOST_MAC, "up")
            and sh(ns, "ip", "addr", "add", host_ip, "dev", tap)
            and sh(ns, "ip", "neigh", "add", guest_ip, "lladdr", GUEST_MAC, "nud", "permanent", "dev", tap))


class Sockets:
    """Sockets of namespaces, all closed by close()."""

    def __init__(self):
        self.all = []

    def new(self, ns, family, kind, proto=0):
        s = in_netns(ns, socket.socket, family, kind, proto)
        self.all.append(s)
        return s

    def listener(self, ns, ip, port):
        s = self.new(ns, socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ip, port))
        s.listen(16)
        s.settimeout(1.0)
        return s

    def udp(self, ns, ip, port, family=socket.AF_INET):
        s = self.new(ns, family, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ip, port))
        s.settimeout(1.0)
        return s

    def accept(self, listener, timeout=1.0):
        listener.settimeout(timeout)
        try:
            s, _ = listener.accept()
        except OSError:
            return None
        s.settimeout(1.0)
        # closed with an RST: nothing the host's stack sends later
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.all.append(s)
        return s

    def close(self):
        for s in self.all:
            s.close()
        self.all = []


def recv(s, n=100):
    try:
        return s.recv(n)
    except OSError as e:
        return f"nothing ({e})".encode()


# ---- counters --------------------------------------------------------------------


class Counters:
    """The conntrack group and the verdicts of one tap's 'stats --json'."""

    def __init__(self, h, ns, tap):
        self.h, self.ns, self.tap = h, ns, tap

    def read(self):
        r = run(self.h.ta("stats", self.tap, "--json", ns=self.ns), merge=True)
        got = {}
        for line in r.out.splitlines():
            if line.startswith('{"ifname"'):
                s = json.loads(line)
                got.update({f"verdict {k}": v.get("packets", 0) for k, v in s.get("verdict", {}).items()})
                got.update({k: v.get("packets", 0) for k, v in s.get("conntrack", {}).items()})
        if not got:
            self.h.c.bad(f"stats {self.tap} --json in {self.ns}: no counters:\n{r.out}")
        return got

    def moved(self, desc, before, want):
        """Every counter moved since before by what want says, and no other
        (want: counter name -> packets)."""
        after = self.read()
        diff = {k: after.get(k, 0) - before.get(k, 0) for k in sorted(set(after) | set(before))}
        diff = {k: v for k, v in diff.items() if v}
        want = {k: v for k, v in want.items() if v}
        self.h.c.check(f"{self.tap}: {desc}: counters moved", fmt(want), fmt(diff))
        return after


def fmt(d):
    return ", ".join(f"{k} +{v}" for k, v in sorted(d.items())) or "none"


def ct_config():
    """ta_ct_config's value: (its bytes, as bpftool formats it)."""
    r = run(["bpftool", "-j", "map", "lookup", "pinned", f"{ROOT}/ta_ct_config", "key", "0", "0", "0", "0"])
    try:
        v = json.loads(r.out)
        return [int(x, 16) for x in v["value"]], v.get("formatted", {}).get("value", {})
    except (ValueError, KeyError, TypeError):
        return [], {}


def ct_config_set(offset, value):
    """The u32 at offset of ta_ct_config's value set to value, the rest as
    it is (as an operator would with bpftool). True if written."""
    raw, _ = ct_config()
    if not raw:
        return False
    raw[offset:offset + 4] = list(struct.pack("<I", value))
    return run(["bpftool", "map", "update", "pinned", f"{ROOT}/ta_ct_config", "key", "0", "0", "0", "0",
                "value", *map(str, raw)]).rc == 0


def tracked(tap_id):
    """The program's count of the connections of tap id (TA_MAX_TAPS: the host's)."""
    r = run(["bpftool", "-j", "map", "lookup", "pinned", f"{ROOT}/ta_ct_taps", "key",
             *map(str, struct.pack("<I", tap_id))])
    try:
        return json.loads(r.out)["formatted"]["value"]["tracked"]
    except (ValueError, KeyError, TypeError):
        return f"unreadable: {r.out.strip()} {r.err.strip()}"


def table_taps():
    """The tap id of every entry of the connection table (bpftool's dump)."""
    r = run(["bpftool", "-j", "map", "dump", "pinned", f"{ROOT}/ta_ct"])
    try:
        return [e["formatted"]["value"]["tap"] for e in json.loads(r.out)]
    except (ValueError, KeyError, TypeError):
        return [f"unreadable: {r.out[:200]} {r.err.strip()}"]


def conns(h, ns, tap):
    r = run(h.ta("conntrack", "list", tap, "--json", ns=ns))
    try:
        return json.loads(r.out or "[]")
    except ValueError:
        h.c.bad(f"conntrack list {tap} --json: {r.out}{r.err}")
        return []


def kinds(frames):
    return "; ".join(map(repr, frames)) or "nothing"


class Stage:
    """What a part makes and must remove: namespaces, guests, sockets, the
    policy's bindings; remove() undoes it all, whatever failed."""

    def __init__(self, h, policy):
        self.h, self.policy = h, policy
        self.namespaces, self.guests, self.bound = [], [], []
        self.socks = Sockets()
        self.config = None
        self.removed = False
        h.c.defer(self.remove)  # also when the suite is interrupted

    def ns(self, name):
        self.namespaces.append(name)
        if not ns_add(name):
            self.h.c.bad(f"cannot create netns {name}")
            return False
        return True

    def guest(self, ns, tap, **kw):
        """The guest behind tap, once the host sends to it: its open gives
        the tap carrier, and until the kernel's link watch has taken that
        in (a work item, late on a busy host) the tap's queue drops all."""
        g = Guest(ns, tap, **kw)
        self.guests.append(g)

        def up():
            links = json.loads(run(["ip", "-n", ns, "-j", "link", "show", tap]).out or "[]")
            return links and links[0].get("operstate") == "UP"
        if not wait_until(up, 5.0):
            self.h.c.bad(f"{tap} of {ns}: not up 5 s after the guest opened it")
        time.sleep(0.05)  # the queue is set right after the state
        return g

    def bind(self, ns, *taps):
        self.bound.append((ns, taps))
        return self.h.expect(0, rf"attached tap-accel to {taps[-1]} .*policy {self.policy}",
                             "attach", *taps, "--policy", self.policy, ns=ns)

    def remove(self):
        if self.removed:
            return
        self.removed = True
        self.socks.close()
        for g in self.guests:
            g.close()
        self.guests = []
        if self.config is not None:
            raw, self.config = self.config, None
            run(["bpftool", "map", "update", "pinned", f"{ROOT}/ta_ct_config", "key", "0", "0", "0", "0",
                 "value", *map(str, raw)])
        for ns, taps in self.bound:
            run(self.h.ta("detach", *taps, ns=ns))
        run(self.h.ta("policy", "unload", self.policy))  # if it was loaded
        ns_del(*self.namespaces)
        self.namespaces = []


# ---- the parts -------------------------------------------------------------------


def ct_stack(h, ns, in_program_link):
    """stack to tap: the in program on the tap's tcx egress."""
    c = h.c
    T = "ctstk0"
    st = Stage(h, "sg")
    try:
        print("# stack to tap: a security group judges what the stack sends to the guest")
        if not (st.ns(ns) and host_tap(ns, T)):
            return c.bad(f"cannot make tap {T} in {ns}")
        sg = h.write("sg.policy", SECURITY_GROUP)
        h.expect(0, "as policy sg: 11 rules, default pass", "policy", "load", "sg", sg)
        st.bind(ns, T)
        in_prog = str(json.loads(run(["bpftool", "-j", "prog", "show", "pinned", f"{ROOT}/prog_in_tc"]).out
                                 or "{}").get("id", "none"))
        c.check(f"{T}: the in program on its tcx egress", in_prog, in_program_link(ns, T))
        g = st.guest(ns, T)
        n = Counters(h, ns, T)
        c.check(f"{T}: nothing sent to the guest before the tests", "nothing", kinds(g.read(timeout=0.2)))
        socks = st.socks

        print("# a new connection to port 22 arrives, and goes on both ways")
        before = n.read()
        cl = socks.new(ns, socket.AF_INET, socket.SOCK_STREAM)
        cl.setblocking(False)
        cl.connect_ex(("10.0.0.1", 22))
        flow = Flow(g, "10.0.0.2", 22, 0)

        def to22(f):
            return f.kind == "tcp" and f.dst == "10.0.0.1" and f.dport == 22

        frames = g.read(lambda fs: any(to22(f) for f in fs), timeout=1.0, idle=0.05)
        syn = next((f for f in frames if to22(f) and f.flags == SYN), None)
        c.ok(f"the stack's SYN to the guest's port 22 read on {T}: {kinds(frames)}", syn)
        if syn:
            # the guest accepts: its SYN-ACK, then the stack's data
            flow.sport, flow.dport, flow.dst = 22, syn.sport, syn.src
            flow.seq, flow.ack = 5000, syn.seq + 1
            g.write_ip(flow.frame(SYN | ACK))
            flow.seq += 1
        cl.setblocking(True)
        cl.settimeout(1.0)
        try:
            cl.sendall(b"hello guest")
            sent = "sent"
        except OSError as e:
            sent = str(e)
        c.check("the host's socket connected through the in program", "sent", sent)
        frames += flow.expect(b"hello guest")
        c.check(f"the stack's data read on {T}", 1, sum(flow.mine(f) and f.data == b"hello guest" for f in frames))
        flow.send(b"hello host")
        c.check("the guest's data read by the host's socket", b"hello host", recv(cl))
        frames += g.read(timeout=0.1)
        n.moved("connection to 22", before, {"new": 1, "in_pass": len(frames), "verdict pass": 3})
        cl.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        cl.close()
        frames = g.read(timeout=0.1)
        c.check("the host's RST read", "1", f"{sum(f.kind == 'tcp' and f.flags & RST != 0 for f in frames)}")

        print("# a new connection to another port does not")
        before = n.read()
        cl = socks.new(ns, socket.AF_INET, socket.SOCK_STREAM)
        cl.setblocking(False)
        cl.connect_ex(("10.0.0.1", 23))
        frames = g.read(timeout=0.3)  # the SYN's first retransmission is 1 s later
        cl.close()  # in SYN_SENT: no frame
        c.check(f"nothing read on {T}", "nothing", kinds(frames))
        n.moved("connection to 23", before, {"in_drop": 1, "in_default": 1})

        print("# replies to the connections the guest opens arrive")
        before = n.read()
        lst = socks.listener(ns, "10.0.0.2", 80)
        flow = Flow(g, "10.0.0.2", 40000, 80)
        frames, synack = flow.open()
        c.ok(f"the SYN-ACK of the host read on {T}: {kinds(frames)}", synack)
        srv = socks.accept(lst)
        c.ok("the host's listener accepted the guest's connection", srv)
        flow.send(b"ping")
        c.check("the host's socket read the guest's data", b"ping", recv(srv) if srv else b"")
        if srv:
            srv.sendall(b"pong")
        frames += flow.expect(b"pong")
        c.check(f"the host's answer read on {T}", 1, sum(flow.mine(f) and f.data == b"pong" for f in frames))
        if srv:
            srv.close()
        frames += g.read(timeout=0.1)
        c.check("the host's RST read", 1, sum(flow.mine(f) and f.flags & RST != 0 for f in frames))
        n.moved("the guest's connection", before, {"new": 1, "in_pass": len(frames), "verdict pass": 4})

        print("# ICMP echo: the host's request dropped, replies to the guest's pass")
        before = n.read()
        ping = socks.new(ns, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        icmp = struct.pack("!BBHHH", 8, 0, 0, 77, 1) + b"from the host"
        ping.sendto(icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:], ("10.0.0.1", 0))
        c.check(f"the host's echo request: nothing read on {T}", "nothing", kinds(g.read(timeout=0.3)))
        n.moved("the host's echo request", before, {"in_drop": 1, "in_default": 1})
        before = n.read()
        for i in range(1, 4):
            g.write_ip(echo4("10.0.0.1", "10.0.0.2", 0x4242, i))
        frames = g.read(lambda fs: len(fs) >= 3, timeout=1.0)
        replies = [f for f in frames if f.kind == "icmp" and f.type == 0 and f.ident == 0x4242]
        c.check(f"the host's echo replies read on {T}", "1 2 3", " ".join(str(f.seq) for f in replies))
        n.moved("the guest's echo requests", before, {"new": 1, "in_pass": len(frames), "verdict pass": 3})

        print("# ARP under default in drop: the host's request arrives, the guest's answer goes")
        before = n.read()
        u = socks.udp(ns, "10.0.0.2", 0)
        u.sendto(b"to the guest's other address", ("10.0.0.3", 9))
        frames = g.read(lambda fs: any(f.kind == "arp" for f in fs), timeout=1.0, idle=0.05)
        who = [f for f in frames if f.kind == "arp" and f.type == 1 and f.target == "10.0.0.3"]
        c.check(f"the host's ARP request for 10.0.0.3 read on {T}: {kinds(frames)}", 1, len(who))
        g.write(arp_reply(OTHER_MAC, "10.0.0.3", HOST_MAC, "10.0.0.2"))
        more = g.read(timeout=0.3)
        c.check("the datagram it held, a new connection in to port 9: dropped", "nothing", kinds(more))
        c.ok("the host learnt the guest's answer",
             OTHER_MAC in run(in_ns(ns, ["ip", "neigh", "show", "10.0.0.3", "dev", T])).out)
        n.moved("ARP", before, {"in_pass": len(frames), "verdict pass": 1, "in_drop": 1, "in_default": 1})

        print("# neighbour discovery under default in drop")
        before = n.read()
        v6 = (sh(ns, "ip", "link", "set", T, "addrgenmode", "none")
              and sh(ns, "sysctl", "-qw", f"net.ipv6.conf.{T}.mldv2_unsolicited_report_interval=10")
              and sh(ns, "sysctl", "-qw", f"net.ipv6.conf.{T}.disable_ipv6=0")
              and sh(ns, "ip", "-6", "addr", "add", "fd00::2/64", "dev", T, "nodad"))
        c.ok(f"cannot give {T} an IPv6 address", v6)
        u6 = socks.udp(ns, "fd00::2", 0, family=socket.AF_INET6)
        u6.sendto(b"to the guest", ("fd00::3", 9))
        frames = g.read(lambda fs: any(f.kind == "icmp6" and f.type == 135 for f in fs), timeout=1.0, idle=0.05)
        ns_read = [f for f in frames if f.kind == "icmp6" and f.type == 135 and f.target == "fd00::3"]
        c.check(f"the host's neighbour solicitation for fd00::3 read on {T}: {kinds(frames)}", 1, len(ns_read))
        g.write(neighbour_advert(OTHER_MAC, "fd00::3", HOST_MAC, "fd00::2"))
        frames += g.read(timeout=0.3)
        c.check("the datagram it held: dropped", 0, sum(f.kind == "udp6" for f in frames))
        c.ok("the host learnt the guest's advertisement",
             OTHER_MAC in run(in_ns(ns, ["ip", "-6", "neigh", "show", "fd00::3", "dev", T])).out)
        # the MLD reports of the address's group pass as neighbour discovery does
        n.moved("neighbour discovery", before, {"in_pass": len(frames), "verdict pass": 1,
                                                "in_drop": 1, "in_default": 1})
    finally:
        st.remove()


def ct_zones(h, ns1, ns2):
    """The same addresses behind two taps in two namespaces: two zones."""
    c = h.c
    Z = "ctzone0"
    st = Stage(h, "sgz")
    try:
        print(f"# zones: tap {Z} in {ns1} and in {ns2}, the same addresses behind both")
        if not (st.ns(ns1) and st.ns(ns2) and host_tap(ns1, Z) and host_tap(ns2, Z)):
            return c.bad(f"cannot make taps {Z} in {ns1} and {ns2}")
        c.check("one ifindex in both namespaces", h.ifindex(Z, ns1), h.ifindex(Z, ns2))
        h.expect(0, "as policy sgz: 11 rules", "policy", "load", "sgz", h.write("sg.policy", SECURITY_GROUP))
        st.bind(ns1, Z)
        st.bind(ns2, Z)
        ga, gb = st.guest(ns1, Z), st.guest(ns2, Z)
        na, nb = Counters(h, ns1, Z), Counters(h, ns2, Z)
        socks = st.socks
        da, db = socks.udp(ns1, "10.0.0.2", 53), socks.udp(ns2, "10.0.0.2", 53)

        def answer(f):
            return f.kind == "udp" and f.sport == 53 and f.dport == 5000

        print("# UDP: the guest behind A asks, the hosts of A and B answer")
        a0, b0 = na.read(), nb.read()
        ga.write_ip(udp4("10.0.0.1", "10.0.0.2", 5000, 53, b"query"))
        c.check(f"the host of {ns1} read the query", b"query", recv(da))
        da.sendto(b"answer", ("10.0.0.1", 5000))
        fa = ga.read(lambda fs: any(answer(f) for f in fs))
        c.check(f"the answer read behind {Z} of {ns1}", "1", f"{sum(answer(f) for f in fa)}")
        db.sendto(b"answer", ("10.0.0.1", 5000))
        c.check(f"the same answer, from {ns2}: nothing read behind its {Z}", "nothing", kinds(gb.read(timeout=0.3)))
        na.moved("the guest's query answered", a0, {"new": 1, "verdict pass": 1, "in_pass": len(fa)})
        nb.moved("the answer of a query it never sent", b0, {"in_drop": 1, "in_default": 1})

        print("# TCP: a SYN-ACK to what the guest behind A opened, sent by both hosts")
        a0, b0 = na.read(), nb.read()
        # to an address neither host has: nothing answers but the raw sockets
        ga.write_ip(tcp4("10.0.0.1", "10.0.0.99", 40000, 80, SYN, seq=7000))
        synack = tcp4("10.0.0.99", "10.0.0.1", 80, 40000, SYN | ACK, seq=9000, ack=7001)
        for nsx in (ns1, ns2):
            raw = socks.new(nsx, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
            raw.sendto(synack, ("10.0.0.1", 0))

        def mine(f):
            return f.kind == "tcp" and f.src == "10.0.0.99" and f.flags == SYN | ACK

        fa = ga.read(lambda fs: any(mine(f) for f in fs))
        c.check(f"the SYN-ACK read behind {Z} of {ns1}", 1, sum(mine(f) for f in fa))
        c.check(f"the same SYN-ACK: nothing read behind {Z} of {ns2}", "nothing", kinds(gb.read(timeout=0.2)))
        na.moved("its SYN answered", a0, {"new": 1, "verdict pass": 1, "in_pass": len(fa)})
        nb.moved("a SYN-ACK to no SYN", b0, {"invalid": 1, "in_drop": 1})

        print("# the guest behind B asks too: now its host's answer arrives")
        b0 = nb.read()
        gb.write_ip(udp4("10.0.0.1", "10.0.0.2", 5000, 53, b"query"))
        c.check(f"the host of {ns2} read the query", b"query", recv(db))
        db.sendto(b"answer", ("10.0.0.1", 5000))
        fb = gb.read(lambda fs: any(answer(f) for f in fs))
        c.check(f"the answer read behind {Z} of {ns2}", "1", f"{sum(answer(f) for f in fb)}")
        nb.moved("its own query answered", b0, {"new": 1, "verdict pass": 1, "in_pass": len(fb)})

        la, lb = conns(h, ns1, Z), conns(h, ns2, Z)
        c.check(f"conntrack list {Z} in {ns1}", "tcp 10.0.0.1:40000 10.0.0.99:80, udp 10.0.0.1:5000 10.0.0.2:53",
                ", ".join(sorted(f"{x['proto']} {x['src']}:{x['sport']} {x['dst']}:{x['dport']}" for x in la)))
        c.check(f"conntrack list {Z} in {ns2}", "udp 10.0.0.1:5000 10.0.0.2:53",
                ", ".join(sorted(f"{x['proto']} {x['src']}:{x['sport']} {x['dst']}:{x['dport']}" for x in lb)))
        c.ok(f"the zones of the two {Z}: {[x['zone'] for x in la]} and {[x['zone'] for x in lb]}",
             la and lb and {x["zone"] for x in la}.isdisjoint({x["zone"] for x in lb}))

        print(f"# {Z} of {ns1} detached and bound again (a new guest): none of the old one's connections")
        tap_id = la[0]["tap_id"] if la else 0
        h.expect(0, rf"^detached tap-accel from {Z}$", "detach", Z, ns=ns1)
        c.check(f"the count of {Z}'s tap id {tap_id}", 0, tracked(tap_id))
        st.bind(ns1, Z)
        c.check(f"conntrack list {Z} in {ns1}", [], conns(h, ns1, Z))
        a0 = na.read()
        da.sendto(b"answer", ("10.0.0.1", 5000))
        c.check(f"the answer to the old guest's query: nothing read behind {Z}", "nothing", kinds(ga.read(timeout=0.3)))
        na.moved("an answer to the old guest's query", a0, {"in_drop": 1, "in_default": 1})

        print(f"# {Z} of {ns2} deleted, its binding cleaned: its connections go with it")
        tap_id = lb[0]["tap_id"] if lb else 0
        c.check(f"the count of {Z}'s tap id {tap_id}", 1, tracked(tap_id))
        c.check(f"the table's entries of tap id {tap_id}", 1, table_taps().count(tap_id))
        gb.close()
        c.ok(f"cannot delete {Z} of {ns2}", sh(ns2, "ip", "link", "del", Z))
        h.expect(0, rf"removed the binding of {Z} \(interface gone\)", "clean", Z, ns=ns2)
        c.check(f"the count of tap id {tap_id}", 0, tracked(tap_id))
        c.check(f"the table's entries of tap id {tap_id}", 0, table_taps().count(tap_id))
    finally:
        st.remove()


def flood(g, ns, tap, count, first_sport, dst):
    """count SYNs of new connections from the guest (sports from
    first_sport) to dst, an address the host does not have (its stack
    drops them unanswered). How many reached the stack (a packet socket
    on the tap sees what enters the stack)."""
    probe = in_netns(ns, socket.socket, socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    try:
        probe.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        probe.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
        probe.bind((tap, 0))
        probe.setblocking(False)
        seen = 0

        def drain():
            nonlocal seen
            while True:
                try:
                    p = probe.recv(128)
                except BlockingIOError:
                    return
                f = Frame(p)  # SOCK_RAW: with its Ethernet header
                seen += f.kind == "tcp" and f.dst == dst and f.flags == SYN
        for i in range(count):
            g.write_ip(tcp4(g.ip, dst, first_sport + i, 80, SYN, seq=1))
            if i % 256 == 255:
                drain()
        time.sleep(0.1)
        drain()
        return seen
    finally:
        probe.close()


def ct_limits(h, ns):
    """A tap's limit and the host's: one guest's flood takes no one else's room."""
    c = h.c
    LA, LB = "ctlima", "ctlimb"
    st = Stage(h, "sgl")
    try:
        print(f"# limits: guests behind {LA} and {LB}")
        if not (st.ns(ns) and host_tap(ns, LA, "10.0.1.2/24", "10.0.1.1")
                and host_tap(ns, LB, "10.0.2.2/24", "10.0.2.1")):
            return c.bad(f"cannot make taps {LA} and {LB} in {ns}")
        h.expect(0, "as policy sgl: 11 rules", "policy", "load", "sgl", h.write("sg.policy", SECURITY_GROUP))
        st.bind(ns, LA, LB)
        raw, cfg = ct_config()
        if not raw:
            return c.bad(f"cannot read {ROOT}/ta_ct_config")
        st.config = raw  # written back when the part ends
        table = json.loads(run(["bpftool", "-j", "map", "show", "pinned", f"{ROOT}/ta_ct"]).out or "{}")
        entries = table.get("max_entries", 0)
        c.check("the suite's table: TAP_ACCEL_CT_ENTRIES", os.environ.get("TAP_ACCEL_CT_ENTRIES"), entries)
        c.check("the host's limit: the table less 4096", entries - 4096, cfg.get("max_tracked"))
        ga = st.guest(ns, LA, ip="10.0.1.1", host_ip="10.0.1.2")
        gb = st.guest(ns, LB, ip="10.0.2.1", host_ip="10.0.2.2")
        na, nb = Counters(h, ns, LA), Counters(h, ns, LB)
        socks = st.socks
        lst = socks.listener(ns, "10.0.2.2", 80)

        def exchange(flow, srv, what):
            """The guest's data read by the host, the host's read by the
            guest: the frames the guest read (2 written: the data, an ACK)."""
            flow.send(f"ping {what}".encode())
            c.check(f"{what}: the host read the guest's data", f"ping {what}".encode(), recv(srv))
            srv.sendall(f"pong {what}".encode())
            frames = flow.expect(f"pong {what}".encode())
            c.check(f"{what}: the guest read the host's data", 1,
                    sum(flow.mine(f) and f.data == f"pong {what}".encode() for f in frames))
            return frames

        print(f"# the guest behind {LB} opens a connection")
        b1 = Flow(gb, "10.0.2.2", 41000, 80)
        _, synack = b1.open()
        c.ok(f"{LB}: its SYN answered", synack)
        srv1 = socks.accept(lst)
        if not srv1:
            return c.bad("the host's listener accepted nothing")
        exchange(b1, srv1, "before any flood")

        print(f"# tap_limit 64: a flood of 200 new connections from {LA}")
        c.ok("cannot set tap_limit in ta_ct_config with bpftool", ct_config_set(CFG_TAP_LIMIT, 64))
        c.check("ta_ct_config: tap_limit", 64, ct_config()[1].get("tap_limit"))
        a0, b0 = na.read(), nb.read()
        t0 = time.monotonic()
        seen = flood(ga, ns, LA, 200, 10000, "10.0.1.99")
        print(f"# flood of 200: {(time.monotonic() - t0) * 1000:.0f} ms")
        c.check(f"{LA}: the SYNs that reached the host's stack", 64, seen)
        na.moved("a flood past its limit", a0, {"new": 64, "tap_limit": 136, "verdict pass": 64,
                                                 "verdict drop": 136})
        c.check(f"{LA}: conntrack list", 64, len(conns(h, ns, LA)))
        fb = exchange(b1, srv1, f"{LA} at its limit")
        b2 = Flow(gb, "10.0.2.2", 41001, 80)
        frames, synack = b2.open()
        fb += frames
        c.ok(f"{LB}: a new connection while {LA} is at its limit: {kinds(frames)}", synack)
        srv2 = socks.accept(lst)
        if not srv2:
            return c.bad("the host's listener accepted nothing")
        fb += exchange(b2, srv2, f"{LB}'s new one")
        nb.moved(f"{LA} at its limit", b0, {"new": 1, "verdict pass": 6, "in_pass": len(fb)})

        print("# tap_limit none: the host's limit")
        c.ok("cannot clear tap_limit", ct_config_set(CFG_TAP_LIMIT, 0))
        limit, host = ct_config()[1].get("max_tracked", 0), tracked(TA_MAX_TAPS)
        room = limit - host if isinstance(host, int) else 0
        c.ok(f"room for {room} of {limit}", 0 < room <= limit)
        a0, b0 = na.read(), nb.read()
        t0 = time.monotonic()
        seen = flood(ga, ns, LA, room + 100, 20000, "10.0.1.99")
        print(f"# flood of {room + 100}: {(time.monotonic() - t0) * 1000:.0f} ms")
        c.check(f"{LA}: the SYNs that reached the host's stack", room, seen)
        na.moved("a flood to the host's limit", a0, {"new": room, "table_full": 100, "verdict pass": room,
                                                      "verdict drop": 100})
        c.check("the host's count: at its limit", limit, tracked(TA_MAX_TAPS))
        h.expect(0, rf"^# {limit} connections tracked on the host, new ones refused from {limit};",
                 "conntrack", "list", LB, ns=ns)
        c.check(f"{LB}: its connections kept (no eviction)", "41000 41001",
                " ".join(sorted(str(x["sport"]) for x in conns(h, ns, LB))))
        fb = exchange(b1, srv1, "the host at its limit")
        fb += exchange(b2, srv2, "the host at its limit, the other")
        b3 = Flow(gb, "10.0.2.2", 41002, 80)
        frames, synack = b3.open(timeout=0.3)
        c.check(f"{LB}: a new connection with the host full: nothing read", "nothing", kinds(frames))
        c.check("the host's listener accepted nothing", None, socks.accept(lst, 0.2))
        nb.moved("the host at its limit", b0, {"table_full": 1, "verdict pass": 4, "verdict drop": 1,
                                               "in_pass": len(fb)})

        print(f"# {LA}'s connections flushed: room again")
        h.expect(0, rf"^{LA}: {64 + room} connections flushed$", "conntrack", "flush", LA, ns=ns)
        b0 = nb.read()
        frames, synack = b3.open()
        c.ok(f"{LB}: a new connection once there is room: {kinds(frames)}", synack)
        c.ok("the host's listener accepted it", socks.accept(lst))
        nb.moved("room again", b0, {"new": 1, "verdict pass": 2, "in_pass": len(frames)})
        h.expect(0, rf"^{LB}: 3 connections flushed$", "conntrack", "flush", LB, ns=ns)
    finally:
        st.remove()
