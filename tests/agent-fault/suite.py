#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The agent under faults, on stock-tun taps in private network namespaces
this suite creates and always removes, with a bpffs of its own. The agent
runs in NS (its "host") and watches NSW; it binds ev* (no guard, /etc),
gt* (a guard, from files in the runtime folder as qemu-ifup writes them)
and wt* of NSW (a guard, /etc). The faults: a second instance, SIGKILL,
SIGSTOP for longer than the watchdog, FIFOs, symbolic links, folders,
oversized files and files of another owner or writable by others in every
folder it reads, the runtime folder removed, a full disk for the textfile,
a hundred slow metrics clients, the watched namespace deleted. After each,
every tap that should be bound is bound with its guard within 2 s of the
fault's end, and frames written into each tap are counted on its own
counters as its policy or guard drops them. Also: what the log escapes and
how often it says an error, its levels for the journal, `status --all`,
the agent's health metrics and systemd's notifications. Ends with
"N passed, N failed".

    python3 tests/agent-fault/suite.py [PART...]    (--list: the parts)
"""
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "lib", "py"))
sys.path.insert(0, os.path.join(TOP, "tests", "agent"))

from hostsuite import (Suite, Stop, http, in_netns, in_ns, indent, ns_add, ns_del,  # noqa: E402
                       own_bpffs, prepare_cli, run, taps_add, NotifyListener)
from agentlib import Agent, Status, now_ms, write_file  # noqa: E402

BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
TAPIO = os.path.join(BUILD, "tests/host/tapio")
GUARD = "mac=52:54:00:00:00:01,ip=10.0.0.1"
KINDS = ["fifo", "symlink", "folder", "oversized", "owner", "writable"]

t = Suite("agent-fault")
NS = "tafa%d" % os.getpid()
NSW = NS + "w"
NSX = NS + "x"
S = {}  # what the parts share
# What must be bound: (netns, tap, kind), kind "guard" (mac,ip4 as GUARD) or "plain".
EXPECT = []


def ta(*args):
    return [S["ta"]] + list(args)


def adapter_file(tap):
    """qemu-ifup's file for TAP."""
    write_file("%s/10-qemu-%s.conf" % (S["run"], tap), "bind name %s policy vm guard %s" % (tap, GUARD))


def setup():
    for tool in ("script",):
        if not shutil.which(tool):
            t.bad("script (bsdutils) is missing: it gives the agent a terminal")
            raise Stop
    own_bpffs(os.path.abspath(__file__))
    tmp, S["ta"] = prepare_cli(t, TOP, BUILD, ["host"])
    S["tmp"] = tmp
    S["state"] = tmp + "/run"
    S["run"] = RUN = tmp + "/run/bindings.d"
    S["prom"] = PROM = tmp + "/prom"
    t.defer(ns_del, NS, NSW, NSX)
    if not (ns_add(NS) and ns_add(NSW)):
        t.bad("cannot create netns %s and %s" % (NS, NSW))
        raise Stop
    S["agent"] = Agent(t, S["ta"], NS, RUN, tmp)
    S["st"] = Status(S["ta"])

    # ---- the configuration and the taps ----
    S["conf"] = K = tmp + "/conf"
    for d in (K + "/policies", K + "/bindings.d", RUN, PROM):
        os.makedirs(d)
    if run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tafault", PROM]).rc:
        t.bad("cannot mount a tmpfs on %s" % PROM)
        raise Stop
    t.defer(run, ["umount", PROM])
    write_file(K + "/policies/vm.policy", "rule drop proto udp dport 9")
    write_file(K + "/agent.conf", "netns %s" % NSW, "metrics listen 127.0.0.1:9469", "metrics textfile %s" % PROM)
    write_file(K + "/bindings.d/50-ev.conf", "bind name ev* policy vm",
               "bind name wt* netns %s policy vm guard %s" % (NSW, GUARD))
    adapter_file("gt0")
    if not (taps_add(NS, "ev0", "gt0", "zz0") and taps_add(NSW, "wt0")):
        t.bad("cannot make the taps")
        raise Stop
    EXPECT.extend([(NS, "ev0", "plain"), (NS, "gt0", "guard"), (NSW, "wt0", "guard")])
    # systemd's side of sd_notify
    S["notify"] = NotifyListener(t, tmp + "/notify.sock")
    t.ok("the notify listener is up", os.path.exists(tmp + "/notify.sock"))
    S["n"] = 3  # the last ev tap's number


def pings():
    return S["notify"].count("WATCHDOG=1")


def start():
    S["agent"].start(S["conf"], {"NOTIFY_SOCKET": S["tmp"] + "/notify.sock", "WATCHDOG_USEC": "1000000"})


def counter(ns, tap, name):
    """Packets of counter NAME in TAP's stats."""
    m = re.search(r'"%s":\{"packets":([0-9]*)' % name, run(ta("stats", tap, "--json"), netns=ns).out)
    return int(m.group(1)) if m and m.group(1) else 0


def all_bound():
    """The first tap of EXPECT not bound to vm with the guard it should
    have; "" when all are."""
    st = S["st"]
    status = {ns: st.of(ns) for ns in (NS, NSW)}
    for ns, tap, kind in EXPECT:
        rec = st.record(ns, tap, status[ns])
        if '"policy":"vm"' not in rec:
            return tap
        if not ((kind == "guard" and '"guard":"mac,ip4"' in rec) or (kind == "plain" and '"guard":"-"' in rec)):
            return tap
    return ""


def counted(desc, ns, tap, kind):
    """10 frames into the tap that its binding drops (its guard: a spoofed
    IPv4 source; its policy: UDP port 9), counted on its own counters."""
    if kind == "guard":
        c, args = "ip4_src", ["--src", "10.99.99.99", "--dport", "10"]
    else:
        c, args = "drop", ["--dport", "9"]
    before = counter(ns, tap, c)
    out = run([TAPIO, tap, "--count", "10", "--settle-ms", "100"] + args, netns=ns).out.strip()
    after = counter(ns, tap, c)
    t.check("%s: 10 frames into %s, none passed; its %s counter +10" % (desc, tap, c),
            "sent 10 tx 0 redirect 0 pass 0 +10", "%s +%d" % (out, after - before))


def bound_within(desc, t0):
    """From T0 (ms, the fault's end), every tap of EXPECT bound as it should
    be within 2 s; then each counted."""
    while True:
        missing = all_bound()
        if not missing:
            break
        if now_ms() - t0 > 2000:
            t.bad("%s: not bound 2 s after the fault ended: %s; the agent's log ends:\n%s"
                  % (desc, missing, indent(S["agent"].text(), 8)))
            return
        time.sleep(0.05)
    ms = now_ms() - t0
    t.at_most("%s: every tap bound with its guard within 2 s" % desc, 2000, ms)
    t.say("%s: every tap bound %d ms after the fault ended" % (desc, ms))
    for e in EXPECT:
        counted(desc, *e)


def new_ev():
    """One more ev tap, expected bound."""
    S["n"] += 1
    tap = "ev%d" % S["n"]
    taps_add(NS, tap)
    EXPECT.append((NS, tap, "plain"))


@t.part("start")
def start_part():
    a, notify = S["agent"], S["notify"]
    t.say("# the start: READY=1, STATUS=, the watchdog pinged")
    t0 = now_ms()
    start()
    bound_within("the start", t0)
    a.until("READY=1 after the first reconcile", lambda: notify.count("READY=1"))
    a.until("STATUS= says what the agent binds",
            lambda: notify.count(r"STATUS=4 taps seen, 3 bound, 1 not \(tap-accel status --all says why\)"))
    p = pings()
    time.sleep(1.6)
    n = pings()
    t.at_least("the watchdog pinged at each half of WATCHDOG_USEC (1 s) (%d, then %d)" % (p, n), p + 2, n)


@t.part("second", needs=["start"])
def second():
    a, K, tmp, RUN = S["agent"], S["conf"], S["tmp"], S["run"]
    t.say("# a second agent, the same configuration, then another: refused, the first one's taps stay")
    os.makedirs(tmp + "/other", exist_ok=True)
    a.mark()
    t.expect_exit(2, r"^not started: another agent runs \(pid %d" % a.pid,
                  ta("agent", "--config", K, "--run-dir", RUN), netns=NS, timeout=10)
    t.expect_exit(2, r"^not started: another agent runs \(pid %d, it holds %s/agent.lock\); two would unbind each "
                  r"other's taps: stop it first \(systemctl stop tap-accel\)$" % (a.pid, re.escape(S["state"])),
                  ta("agent", "--config", tmp + "/other", "--run-dir", RUN), netns=NS, timeout=10)
    t.expect_exit(0, r"^%s: ok, 1 policies, 3 bindings in 2 files" % re.escape(K),
                  ta("agent", "--check", "--config", K, "--run-dir", RUN), netns=NS, timeout=10)
    bound_within("a second instance", now_ms())
    t.check("the first agent unbound nothing", "",
            "\n".join(l for l in a.since().split("\n") if l.startswith("unbound")))


@t.part("sigkill", needs=["start"])
def sigkill():
    t.say("# SIGKILL; taps and files come while no agent runs; restarted")
    S["agent"].kill()
    taps_add(NS, "ev1", "gt1")
    adapter_file("gt1")
    EXPECT.extend([(NS, "ev1", "plain"), (NS, "gt1", "guard")])
    t0 = now_ms()
    start()
    bound_within("SIGKILL, restarted", t0)


@t.part("sigstop", needs=["start"])
def sigstop():
    a = S["agent"]
    t.say("# SIGSTOP for 2 s, longer than the watchdog (1 s); then SIGCONT")
    a.signal(signal.SIGSTOP)
    p = pings()
    taps_add(NS, "ev2")
    EXPECT.append((NS, "ev2", "plain"))
    time.sleep(2)
    t.check("no watchdog ping while stopped: systemd would restart it", p, pings())
    a.signal(signal.SIGCONT)
    bound_within("SIGSTOP", now_ms())
    a.until("the pings go on", lambda: pings() > p)


# ---- bad files ------------------------------------------------------------------
def bad_file(path, kind):
    """A FIFO, a symbolic link to /etc/shadow, a folder, an oversized file
    (17 MiB: more than a policy file may be), a file of uid 65534, a file
    writable by all at PATH; made aside and moved in whole."""
    s = S["tmp"] + "/stage"
    if os.path.isdir(s) and not os.path.islink(s):
        shutil.rmtree(s)
    elif os.path.lexists(s):
        os.remove(s)
    if kind == "fifo":
        os.mkfifo(s)
    elif kind == "symlink":
        os.symlink("/etc/shadow", s)
    elif kind == "folder":
        os.mkdir(s)
    elif kind == "oversized":
        with open(s, "wb") as f:
            f.write(b"#" * (17 << 20))
    else:
        write_file(s, "bind name gt9 policy vm")
        if kind == "owner":
            os.chown(s, 65534, -1)
        else:
            os.chmod(s, 0o666)
    os.rename(s, path)


def why(kind, what, path):
    """The message (a regular expression) that refuses a bad file of KIND."""
    p = re.escape(path)
    return {
        "fifo": r"%s: expected a regular %s, found a FIFO" % (p, what),
        "symlink": r"%s: a symbolic link: the agent follows none in its folders; put the %s itself there" % (p, what),
        "folder": r"%s: expected a regular %s, found a folder" % (p, what),
        "oversized": r"%s: expected a regular %s of at most [0-9]+ bytes" % (p, what),
        "owner": r"%s: a %s owned by uid 65534: the agent reads only what root owns \(chown root %s\)" % (p, what, p),
        "writable": r"%s: a %s writable by its group or others \(mode 0666\): the agent reads none such "
                    r"\(chmod go-w %s\)" % (p, what, p),
    }[kind]


@t.part("runtime-files", needs=["start"])
def runtime_files():
    a, st, RUN = S["agent"], S["st"], S["run"]
    t.say("# each kind of bad file in the runtime folder: refused, said, never blocking")
    taps_add(NS, "gt9")
    for kind in KINDS:
        f = "%s/10-%s-gt9.conf" % (RUN, kind)
        a.mark()
        bad_file(f, kind)
        a.logged("runtime folder, %s" % kind, "^%s$" % why(kind, "binding file", f))
        new_ev()
        bound_within("runtime folder, %s" % kind, now_ms())
    t.check("gt9, bound only by refused files: not bound", "", st.policy_of(NS, "gt9"))
    shadow = len(a.grep("^root:"))
    t.check("nothing of /etc/shadow in the log", "", shadow or "")
    t.say("# a file name with ESC and a newline; the same errors, said once")
    evil = RUN + "/20-x\x1b[31mred\nforged: bound.conf"
    a.mark()
    with open(evil, "w") as f:
        f.write("bind name q* policy\n")
    a.logged("its error, escaped",
             r"^.*/20-x\\x1b\[31mred\\x0aforged: bound\.conf:1:20: expected a policy name after .policy., got end of line$")
    a.mark()
    adapter_file("gt2")
    taps_add(NS, "gt2")
    EXPECT.append((NS, "gt2", "guard"))
    a.logged("gt2 bound", r"^bound gt2 \(host\): policy vm, guard mac,ip4")
    t.check("the folder read again: its errors not said again", "",
            "\n".join(l for l in a.since().split("\n") if re.search("expected|symbolic|owned|writable", l)))
    t.check("no raw ESC in the log", "0", sum(1 for l in a.lines() if "\x1b" in l))
    t.check("no forged line", "0", len(a.grep("^forged")))
    t.say("# status --all: each tap the agent does not bind, and why")
    t.defer(ns_del, NSX)
    ns_add(NSX) and taps_add(NSX, "by0")
    t.expect_exit(0, "attached tap-accel to by0", ta("attach", "by0", "--policy", "vm"), netns=NSX)
    out = run(ta("status", "--all", "--run-dir", RUN), netns=NS).out

    def lines_like(pattern):
        return sum(1 for l in out.splitlines() if re.search(pattern, l))
    t.check("zz0: no binding matches it", "1", lines_like(r"^zz0 +host +unbound +no binding matches it$"))
    t.check("gt9: its files left out, and why", "1",
            lines_like(r"^gt9 +host +unbound +no binding matches it; its file was left out: %s/10-[a-z]+-gt9.conf: "
                       % re.escape(RUN)))
    t.check("the files left out, listed", "7", sum(1 for l in out.splitlines() if l.startswith("left out: %s/" % RUN)))
    t.check("bound taps are not in the agent's list", "0", lines_like(r"^ev0 +host"))
    t.check("by0, bound by hand in a namespace not watched: said", "1",
            lines_like(r"^by0 +net:[0-9]+ +bound +its namespace is not watched by the agent$"))
    js = run(ta("--json", "status", "--all", "--run-dir", RUN), netns=NS).out
    m = re.search(r'\{"ifname":"zz0","ifindex":', js)
    t.check("--json: zz0 with its state and why", '{"ifname":"zz0","ifindex":', m.group(0) if m else "")
    m = re.search(r'\{"ifname":"zz0"[^}]*\}', js)
    rec = m.group(0) if m else ""
    t.check("--json: zz0's why", '"state":"unbound","why":"no binding matches it"}', rec[rec.find('"state"'):] if '"state"' in rec else "")
    for f in glob.glob(RUN + "/10-*-gt9.conf") + [evil]:
        if os.path.isdir(f) and not os.path.islink(f):
            shutil.rmtree(f)
        elif os.path.lexists(f):
            os.remove(f)


PLACES = [("agent.conf", "configuration file"), ("bindings.d/20-bad.conf", "binding file"),
          ("policies/bad.policy", "policy file")]


@t.part("etc-files", needs=["start", "runtime-files"])
def etc_files():
    a, K, tmp, notify = S["agent"], S["conf"], S["tmp"], S["notify"]
    t.say("# each kind of bad file in each folder of /etc: --check refuses it, never blocking")
    for place, what in PLACES:
        for kind in KINDS:
            C = "%s/check-%s" % (tmp, kind)
            shutil.rmtree(C, ignore_errors=True)
            shutil.copytree(K, C)
            if os.path.lexists(C + "/" + place):
                os.remove(C + "/" + place)
            bad_file(C + "/" + place, kind)
            t.expect_exit(1, "^%s$" % why(kind, what, C + "/" + place),
                          ta("agent", "--check", "--config", C, "--run-dir", tmp + "/none"), timeout=10)
    t.say("# policy check: a FIFO, a device, refused at once")
    os.mkfifo(tmp + "/p.fifo")
    t.expect_exit(1, r"^%s/p.fifo: expected a regular policy file, found a FIFO$" % re.escape(tmp),
                  ta("policy", "check", tmp + "/p.fifo"), timeout=10)
    t.expect_exit(1, r"^/dev/zero: expected a regular policy file, found a character device$",
                  ta("policy", "check", "/dev/zero"), timeout=10)
    write_file(tmp + "/esc.policy", "rule drop \x1b[2Jproto udp")
    out = run(ta("policy", "check", tmp + "/esc.policy"), merge=True).out.splitlines()
    t.check("policy check: a word with ESC, escaped", "1 0",
            "%d %d" % (sum(1 for l in out if re.search(r"x1b\[2Jproto", l)), sum(1 for l in out if "\x1b" in l)))
    t.say("# SIGHUP with a FIFO in each folder of /etc: refused, the agent goes on")
    for place, _ in PLACES:
        if place == "agent.conf":
            os.rename(K + "/agent.conf", tmp + "/agent.conf.good")
        os.mkfifo(K + "/" + place)
        a.mark()
        a.signal(signal.SIGHUP)
        a.logged("SIGHUP, a FIFO as %s" % place, r"^reload refused: 1 errors above; the configuration running stays$")
        new_ev()
        bound_within("SIGHUP, a FIFO as %s" % place, now_ms())
        os.remove(K + "/" + place)
        if place == "agent.conf":
            os.rename(tmp + "/agent.conf.good", K + "/agent.conf")
    a.until("STATUS= says the reload was refused", lambda: notify.count(r"STATUS=.*; the last reload was refused"))
    t.say("# the agent's health in /metrics")
    body = http(NS, "GET", "/metrics", 9469)[2]

    def metric(name):
        return "\n".join(l.split(" ")[1] for l in body.splitlines() if l.startswith(name + " "))
    t.check("tapaccel_agent_up, last reload refused", "1 1",
            "%s %s" % (metric("tapaccel_agent_up"), metric("tapaccel_agent_last_reload_refused")))
    t.check("taps seen and bound", "%d %d" % (len(EXPECT) + 2, len(EXPECT)),
            "%s %s" % (metric("tapaccel_agent_taps_seen"), metric("tapaccel_agent_taps_bound")))
    t.at_least("the last reload's time", int(time.time()) - 60, metric("tapaccel_agent_last_reload_timestamp_seconds"))
    a.mark()
    a.signal(signal.SIGHUP)
    a.logged("a good configuration again", r"^reconciled: ")


@t.part("runtime-removed", needs=["start"])
def runtime_removed():
    a, RUN = S["agent"], S["run"]
    t.say("# the runtime folder removed under the agent; the adapters write again")
    a.mark()
    shutil.rmtree(RUN)
    a.logged("made again", r"^warning: %s was removed \(its files' bindings with it\): made again and watched$"
             % re.escape(RUN))
    for tap in ("gt0", "gt1", "gt2"):
        adapter_file(tap)
    bound_within("the runtime folder removed", now_ms())


@t.part("full-disk", needs=["start"])
def full_disk():
    a, PROM = S["agent"], S["prom"]
    t.say("# a full disk for the textfile")
    try:
        with open(PROM + "/filler", "wb") as f:
            f.write(b"\0" * (1 << 20))
    except OSError:
        pass
    with open(PROM + "/tap-accel.prom") as f:
        before = f.read()
    a.mark()
    a.signal(signal.SIGHUP)  # the textfile is written at once after a reload
    a.logged("told", r"^error: metrics %s: cannot write .*No space left on device" % re.escape(PROM))
    taps_add(NS, "gt3")
    adapter_file("gt3")
    EXPECT.append((NS, "gt3", "guard"))
    bound_within("a full disk", now_ms())
    with open(PROM + "/tap-accel.prom") as f:
        same = "yes" if f.read() == before else ""
    t.check("the textfile as before, whole, no temporary file left", "yes filler tap-accel.prom",
            "%s %s" % (same, " ".join(sorted(os.listdir(PROM)))))
    os.remove(PROM + "/filler")
    a.mark()
    a.signal(signal.SIGHUP)
    a.logged("written again", r"^reconciled: ")

    def healthy():
        with open(PROM + "/tap-accel.prom") as f:
            return re.search(r"^tapaccel_agent_up 1$", f.read(), re.M)
    a.until("the textfile again, with the agent's health", healthy)


def scrape(timeout):
    """GET /metrics: (status, ms, body); status "" when nothing answered."""
    try:
        status, _, body, ms = http(NS, "GET", "/metrics", 9469, timeout=timeout)
        return status, ms, body
    except OSError:
        return "", 0, ""


@t.part("slow-clients", needs=["start"])
def slow_clients():
    t.say("# a hundred slow clients of /metrics: scrapes go on")

    def connect_slow():
        held = []
        for i in range(100):
            try:
                s = socket.create_connection(("127.0.0.1", 9469), timeout=2)
                if i % 3 == 1:
                    s.send(b"GET /metr")  # a request never finished
                elif i % 3 == 2:
                    s.send(b"GET /metrics HTTP/1.1\r\n\r\n")  # an answer never read
                held.append(s)
            except OSError:
                pass
        return held
    slow = in_netns(NS, connect_slow)
    t.defer(lambda: [s.close() for s in slow])
    t.check("100 connections open", "100", len(slow))
    taps_add(NS, "ev20")
    EXPECT.append((NS, "ev20", "plain"))
    bound_within("100 slow clients", now_ms())
    ok = 0
    for i in range(1, 6):
        status, ms, body = scrape(2)
        if status == 200 and re.search(r"^tapaccel_agent_up 1$", body, re.M):
            ok += 1
        t.say("scrape %d beside 100 slow clients: %s %d (status, ms)" % (i, status, ms))
    t.check("5 scrapes of 5 answered beside them", "5", ok)
    t.say("# eight idle connections, then a scrape")
    idle = in_netns(NS, lambda: [socket.create_connection(("127.0.0.1", 9469), timeout=2) for i in range(8)])
    t.check("8 idle connections", "8", len(idle))
    t.check("the scrape after them: 200", "200", scrape(2)[0])
    for s in slow + idle:
        s.close()


@t.part("netns-deleted", needs=["start"])
def netns_deleted():
    a = S["agent"]
    t.say("# %s deleted while watched, then made again with its tap" % NSW)
    a.mark()
    run(["ip", "netns", "del", NSW])
    a.logged("its binding goes", r"^unbound wt0 \(netns %s\): its namespace is gone$" % NSW)
    ns_add(NSW) and taps_add(NSW, "wt0")
    bound_within("the namespace deleted", now_ms())
    a.stop()


@t.part("listen")
def listen():
    K, tmp = S["conf"], S["tmp"]
    t.say("# metrics listen on an address others reach: refused unless allow-remote")
    C = tmp + "/check-listen"
    c = re.escape(C)
    shutil.rmtree(C, ignore_errors=True)
    shutil.copytree(K, C)
    check_cmd = ta("agent", "--check", "--config", C, "--run-dir", tmp + "/none")
    write_file(C + "/agent.conf", "metrics listen 0.0.0.0:9469")
    t.expect_exit(1, r"^%s/agent.conf:1:16: 0.0.0.0:9469 is not a loopback address: whoever reaches it reads the "
                  r"names and counters of every tap; listen on 127.0.0.1 or \[::1\], or write 'metrics listen "
                  r"0.0.0.0:9469 allow-remote' to serve other hosts all the same$" % c, check_cmd)
    write_file(C + "/agent.conf", "metrics listen [::]:9469")
    t.expect_exit(1, r"^%s/agent.conf:1:16: \[::\]:9469 is not a loopback address" % c, check_cmd)
    write_file(C + "/agent.conf", "metrics listen 0.0.0.0:9469 allow-remote")
    t.expect_exit(0, r"^%s: ok" % c, check_cmd)
    write_file(C + "/agent.conf", "metrics listen 127.0.0.2:9469 allow-all")
    t.expect_exit(1, r"^%s/agent.conf:1:31: expected allow-remote or end of line after 'metrics listen ADDR:PORT', "
                  r"got 'allow-all'$" % c, check_cmd)


@t.part("log-levels")
def log_levels():
    a, K, RUN, tmp = S["agent"], S["conf"], S["run"], S["tmp"]
    t.say("# under systemd (JOURNAL_STREAM is stderr): syslog levels; on a terminal: the time")
    a.kill()
    J = tmp + "/journal.log"
    write_file(RUN + "/30-broken.conf", "bind name q* policy")
    with open(J, "a") as jf:
        st = os.fstat(jf.fileno())
        env = dict(os.environ, JOURNAL_STREAM="%d:%d" % (st.st_dev, st.st_ino))
        proc = subprocess.Popen(in_ns(NS, ta("agent", "--config", K, "--run-dir", RUN)), env=env,
                                stderr=jf, stdin=subprocess.DEVNULL)
    a.adopt(proc, J)

    def journal():
        with open(J, errors="replace") as f:
            return f.read().splitlines()
    a.until("ready, at level info", lambda: "<6>ready" in journal())
    t.check("the error of a file at level err", "1",
            sum(1 for l in journal() if l.startswith("<3>%s/30-broken.conf:1:20: " % RUN)))
    t.check("every line with its level", "0", sum(1 for l in journal() if not re.match(r"<[3-6]>", l)))
    a.kill()
    # the shell script runs becomes the agent (exec): its pid is the agent's
    tty_pid, tty_log = tmp + "/tty.pid", tmp + "/tty.log"
    proc = subprocess.Popen(["script", "-qfec", "echo $$ >%s; exec nsenter --net=/run/netns/%s %s agent --config %s "
                             "--run-dir %s" % (tty_pid, NS, S["ta"], K, RUN), tty_log],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def kill_tty():
        try:
            with open(tty_pid) as f:
                os.kill(int(f.read()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
    t.defer(kill_tty)
    a.adopt(proc, tty_log)

    def tty_ready():
        try:
            with open(tty_log, errors="replace") as f:
                return re.search(r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} ready", f.read(), re.M)
        except OSError:
            return False
    a.until("on a terminal: ready, with the time", tty_ready)
    with open(tty_pid) as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGTERM)

    def gone():
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            return True
    a.until("it stops on SIGTERM", gone)
    kill_tty()
    proc.wait()
    a.proc = None
    text = b""
    for f in sorted(glob.glob(tmp + "/agent.*.log")) + [J]:
        with open(f, "rb") as fh:
            text += fh.read()
    t.check("no raw control byte in any log", "0",
            sum(1 for l in text.split(b"\n") if re.search(rb"[\x01-\x08\x0b-\x1f\x7f]", l)))


t.main(setup)
