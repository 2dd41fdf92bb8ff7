#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The adapters of user/adapters/, which write the agent's binding files
(docs/agent.md) and nothing else:
- libvirt-qemu, libvirt's qemu hook, fed recorded domain XML (xml/) for
  every operation: the exact files, their removal, atomic writes, stale
  claims of other domains, bad XML, metadata and settings, odd domain
  names, hooks run at once; its wait for the agent with the real CLI in a
  bpffs of the suite's own;
- qemu-ifup and qemu-ifdown, run by unmodified QEMU's tap backend
  (-netdev tap,script=,downscript=) in a private network namespace;
- one list of bad guards (tests/lib/bad-guards.txt), refused in the same
  words at every way in.
Every file written is read by `tap-accel agent --check`, as the agent
reads it, and bindcheck.py checks that it names taps exactly. Needs root.
Ends with "N passed, N failed".

    python3 tests/adapters/suite.py [PART...]    (--list: the parts)
"""
import difflib
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "lib", "py"))

from hostsuite import (Suite, Stop, in_ns, indent, ns_add, ns_del, own_bpffs, prepare_cli, run,
                       taps_add, wait_until)  # noqa: E402

BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
HOOK = TOP + "/user/adapters/libvirt-qemu"
UP = TOP + "/user/adapters/qemu-ifup"
DOWN = TOP + "/user/adapters/qemu-ifdown"
XML = HERE + "/xml"
PY = "/usr/bin/python3"
MAC = "52:54:00:ad:00:01"
GMAC = "52:54:00:ad:00:07"

t = Suite("adapters")
NS = "taad%d" % os.getpid()
S = {}  # tmp, ta, the hook's last stderr ("err") and exit status ("rc")


def tmp(name=""):
    return os.path.join(S["tmp"], name) if name else S["tmp"]


def ta_ns(*args):
    """tap-accel in NS: a Result."""
    return run([S["ta"]] + list(args), netns=NS, merge=True)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def write(path, text):
    with open(path, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)


def sed_first(text, old, new):
    """OLD replaced by NEW once on each line (sed s/OLD/NEW/)."""
    return "".join(l.replace(old, new, 1) for l in text.splitlines(True))


def setup():
    own_bpffs(os.path.abspath(__file__))
    for tool in ("qemu-system-x86_64", PY, "ip", "nsenter"):
        if not shutil.which(tool):
            t.bad("%s is not installed (make deps)" % tool)
            raise Stop
    S["tmp"], S["ta"] = prepare_cli(t, TOP, BUILD)
    S["run"] = tmp("run")
    S["b"] = tmp("run/bindings.d")
    S["conf"] = tmp("libvirt.conf")
    # QEMU runs its scripts with the tap's name alone: these give the
    # scripts the suite's folders, and tap-accel (which checks guards) in PATH.
    S["ifup"], S["ifdown"] = tmp("ifup"), tmp("ifdown")
    write(S["ifup"], '#!/bin/sh\nPATH=%s:$PATH exec %s --run-dir %s --conf-dir %s "$@"\n'
          % (tmp(), UP, S["run"], tmp("qemu")))
    write(S["ifdown"], '#!/bin/sh\nexec %s --run-dir %s "$@"\n' % (DOWN, S["run"]))
    os.chmod(S["ifup"], 0o755)
    os.chmod(S["ifdown"], 0o755)
    t.defer(ns_del, NS, NS + "a")
    t.defer(kill_pidfiles)
    if not ns_add(NS):
        t.bad("cannot create netns %s" % NS)
        raise Stop
    write(S["conf"], "policy web   # for domains whose metadata names none\n")
    S["err"], S["rc"] = "", 0
    # libvirt's shipped filters, as Debian packages them (mk/nwfilter.sh),
    # and the suite's own (xml/nwfilter/)
    r = run(["sh", TOP + "/mk/nwfilter.sh"])
    if r.rc:
        t.bad("libvirt's filters: %s" % r.err.strip())
        raise Stop
    S["nwf"] = tmp("nwfilter")
    shutil.copytree(r.out.strip(), S["nwf"])
    for f in glob.glob(XML + "/nwfilter/*.xml"):
        shutil.copy(f, S["nwf"])


def kill_pidfiles():
    for p in glob.glob(tmp("*.pid")):
        try:
            os.kill(int(read(p)), signal.SIGKILL)
        except (OSError, ValueError):
            pass


# ---- the vocabulary of this suite --------------------------------------------------
def same(desc, want, path):
    """The file PATH holds exactly WANT; the difference if not."""
    if os.path.isfile(path) and read(path) == want:
        return t.good()
    if os.path.isfile(path):
        diff = "".join(difflib.unified_diff(want.splitlines(True), read(path).splitlines(True), "want", path))
        return t.bad("%s: %s differs from what was wanted:\n%s" % (desc, path, indent(diff, 200)))
    return t.bad("%s: %s differs from what was wanted:\n    (no file)" % (desc, path))


def absent(desc, path):
    if os.path.lexists(path):
        try:
            head = "\n".join(read(path, "rb").decode(errors="replace").split("\n")[:5])
        except OSError as e:
            head = str(e)
        return t.bad("%s: %s exists: %s" % (desc, path, head))
    return t.good()


def has(desc, pattern, text=None):
    """PATTERN in TEXT (the hook's last stderr by default)."""
    return t.has(desc, pattern, S["err"] if text is None else text)


def grammar(desc, *files):
    """The agent takes the files (tap-accel agent --check with them in its
    runtime folder), and their names are exact: two checks."""
    d = tmp("agentcheck")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d + "/etc")
    os.makedirs(d + "/run")
    for f in files:
        shutil.copy(f, d + "/run/")
    r = run([S["ta"], "agent", "--check", "--config", d + "/etc", "--run-dir", d + "/run"], merge=True)
    t.ok("%s: tap-accel agent --check" % desc, r.rc == 0, r.out.rstrip("\n"))
    r = run([PY, HERE + "/bindcheck.py", "--exact"] + list(files), merge=True)
    t.ok(desc, r.rc == 0, r.out.rstrip("\n"))


def no_tmp(desc):
    found = [os.path.join(dp, f) for dp, dns, fs in os.walk(S["run"]) for f in fs + dns if re.match(r"\..*tmp", f)]
    t.check("%s: temporary files left in %s" % (desc, S["b"]), "", "\n".join(found))


def hook_env(cli=None):
    return {"TAP_ACCEL_RUN_DIR": S["run"], "TAP_ACCEL_LIBVIRT_CONF": S["conf"], "TAP_ACCEL_SYSLOG": "0",
            "TAP_ACCEL_CLI": cli or S["ta"], "TAP_ACCEL_NWFILTER_DIR": S["nwf"]}


def hook(domain, op, xml="/dev/null", cli=None):
    """The hook as libvirt runs it (sub-operation and extra argument as
    libvirt gives them); its stderr in S["err"], its exit status in
    S["rc"]. libvirt takes a qemu.d script's output for the new domain XML
    on migrate and restore: every call must print nothing (a check)."""
    sub, extra = {"stopped": ("end", "-"), "release": ("end", "destroyed")}.get(op, ("begin", "-"))
    r = run([HOOK, domain, op, sub, extra], env=hook_env(cli), stdin_file=xml)
    S["err"], S["rc"] = r.err, r.rc
    write(tmp("err"), r.err)
    t.check("hook %s %s: standard output" % (domain, op), "", r.out.rstrip("\n"))
    return r


def hook0(domain, op, xml="/dev/null", cli=None):
    """hook, exiting 0 (a second check)."""
    hook(domain, op, xml, cli)
    t.check("hook %s %s: exit status (%s)" % (domain, op, S["err"][:300]), 0, S["rc"])


def nwf_policy(name, params):
    """The name under which the hook loads filter NAME translated with
    PARAMS: nwfilter-NAME- and the start of the SHA-256 of its statements
    (neither comments nor guard)."""
    r = run([S["ta"], "policy", "import", "nwfilter", S["nwf"] + "/%s.xml" % name, "--dir", S["nwf"],
             "--param", params])
    t.check("policy import nwfilter %s: exit status (%s)" % (name, r.err.strip()[-300:]), 0, r.rc)
    rules = "".join(l.split("#", 1)[0].strip() + "\n" for l in r.out.splitlines()
                    if l.split("#", 1)[0].split()[:1] != ["guard"])
    return "nwfilter-%s-%s" % (name, hashlib.sha256(rules.encode()).hexdigest()[:12])


def loaded(desc, policy):
    """Policy POLICY is loaded in the suite's bpffs, with the rules of its
    file in the hook's folder."""
    r = run([S["ta"], "policy", "check", os.path.join(S["run"], "nwfilter", policy + ".policy")])
    digest = re.search(r"digest ([0-9a-f]{16})", r.out)
    r2 = run([S["ta"], "--json", "policy", "list"])
    t.has("%s: %s loaded, as its file says" % (desc, policy),
          r'"%s".*"%s"' % (re.escape(policy), digest.group(1) if digest else "(no digest)"), r2.out)


def bind_lines(path):
    try:
        return "\n".join(l for l in read(path).splitlines() if l.startswith("bind"))
    except OSError:
        return ""


def ls(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


# ---- the grammar checker fails on what it must ------------------------------------
@t.part("bindcheck")
def bindcheck():
    bad = tmp("bad.conf")
    write(bad, """bind name vnet0 policy web guard mac=52:54:00:12:34:56,ip=192.0.2.1 # fine
bind name vnet* policy web
bind policy web
bind name vnet0 policy
bind name vnet0 policy we/b
bind name vnet0 policy web guard mac=52:54:00:12:34:5g
bind name vnet0 policy web guard ip=10.0.0.300
bind name vnet0 policy web guard mac=52:54:00:12:34:56,mac=52:54:00:12:34:57
bind name vnet0 name vnet1 policy web
bind name vnet0 policy web extra
bnd name vnet0 policy web
bind name tap{id} policy vm{vmid}
""")
    r = run([PY, HERE + "/bindcheck.py", "--exact", bad], merge=True)
    t.check("bindcheck on bad lines: exit status", 1, r.rc)
    t.check("bindcheck on bad lines: its errors", """{b}:2:11: 'vnet*' is a pattern, not an interface name
{b}:3:6: a binding needs 'name PATTERN'
{b}:4:23: 'policy' takes a name
{b}:5:24: 'we/b' is not a policy name
{b}:6:34: 'mac=52:54:00:12:34:5g' is not mac=MAC or ip=ADDRESS
{b}:7:34: '10.0.0.300' is not an IP address
{b}:8:34: mac= given twice
{b}:9:17: 'name' given twice
{b}:10:28: unexpected 'extra' after the binding
{b}:11:1: expected 'bind', got 'bnd'
{b}:12:11: 'tap{{id}}' is a pattern, not an interface name""".format(b=bad), r.out.rstrip("\n"))
    pat = tmp("pat.conf")
    write(pat, "bind name tap{id} policy vm{vmid}\nbind name tap{id}i{n} netns guests policy vm{id} guard none\n")
    r = run([PY, HERE + "/bindcheck.py", pat], merge=True)
    t.check("bindcheck on patterns: uncaptured {vmid}", "%s:1:26: {vmid} is not captured by the name pattern" % pat,
            r.out.rstrip("\n"))


# ---- libvirt: a domain of several interfaces, every operation ---------------------
@t.part("libvirt")
def libvirt():
    B, CONF = S["b"], S["conf"]
    write(CONF, "policy web   # for domains whose metadata names none\n")
    clean = nwf_policy("clean-traffic", "MAC=52:54:00:6b:3c:01,IP=192.168.122.10")
    want = """# tap-accel's libvirt hook: domain web-1, uuid 6f1d1c8a-3b0e-4c55-9a0b-5d2f3c1e7a10
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet0 policy %s guard mac=52:54:00:6b:3c:01,ip=192.168.122.10
bind name vnet1 policy web guard mac=52:54:00:6b:3c:02
bind name web1-mgmt policy web guard mac=52:54:00:6b:3c:05
""" % clean
    F = B + "/10-libvirt-web-1.conf"
    hook0("web-1", "prepare", XML + "/web-1.xml")
    absent("prepare writes nothing (libvirt names its taps after it)", F)
    hook0("web-1", "start", XML + "/web-1.xml")
    same("web-1 start: network, bridge and ethernet taps (vnet0 with its clean-traffic translated); user has "
         "no tap, macvtap is none", want, F)
    loaded("web-1 start", clean)
    grammar("web-1 start", F)
    t.check("web-1 start: mode of the file", "644", "%o" % (os.stat(F).st_mode & 0o777) if os.path.exists(F) else "")
    has("web-1 start: says what it wrote", "wrote %s: vnet0 policy %s guard mac,ip4, vnet1 policy web guard mac, "
        "web1-mgmt policy web guard mac" % (re.escape(F), clean))
    has("web-1 start: macvtap0 is not a tap",
        r"interface #4 \(type direct, tap macvtap0, MAC 52:54:00:6b:3c:04\): not a tap, not bound")
    ino = os.stat(F).st_ino if os.path.exists(F) else 0
    hook0("web-1", "started", XML + "/web-1.xml")
    same("web-1 started: the same file", want, F)
    t.check("web-1 started: not written again (same inode)", ino, os.stat(F).st_ino if os.path.exists(F) else "")
    for op in ("migrate", "restore"):
        hook0("web-1", op, XML + "/web-1.xml")
        t.check("web-1 %s: prints nothing, changes nothing" % op, ino, os.stat(F).st_ino if os.path.exists(F) else "")
    hook0("web-1", "stopped")
    absent("web-1 stopped: file removed", F)
    hook0("web-1", "release")
    absent("web-1 release: still none", F)
    t.check("web-1 release: says nothing", "", S["err"].rstrip("\n"))
    t.check("nothing else in bindings.d", "", " ".join(ls(B)))

    t.say("== no policy named anywhere: no binding but the filter's, and the lost guard said")
    write(CONF, "")
    hook0("web-1", "start", XML + "/web-1.xml")
    t.check("web-1 without a policy: vnet0 alone, bound to its filter",
            "bind name vnet0 policy %s guard mac=52:54:00:6b:3c:01,ip=192.168.122.10" % clean, bind_lines(F))
    has("web-1 without a policy: vnet1's guard named as not applied",
        r"interface #2 \(type bridge, tap vnet1, MAC 52:54:00:6B:3C:02\): no policy named: .*no binding written, so "
        r"the agent's glob bindings decide and its guard \(mac=52:54:00:6b:3c:02\) is not applied")
    has("web-1 without a policy: the fix",
        r"Name one with <tapaccel:tap-accel policy='NAME'> in the domain's <metadata> \(docs/guests.md\) or "
        r"'policy NAME' in %s" % re.escape(CONF))
    t.check("web-1 without a policy: one warning per tap without a filter", 2,
            sum(1 for l in S["err"].splitlines() if "no policy named" in l))
    hook0("web-1", "stopped")
    write(CONF, "policy web\n")


@t.part("nwfilter")
def nwfilter():
    """An interface's <filterref> enforced: a custom filter over clean-traffic
    with a list parameter; errors keep the last good binding."""
    B, CONF = S["b"], S["conf"]
    write(CONF, "policy web\n")
    F = B + "/10-libvirt-shop-2.conf"
    SHOP = S["nwf"] + "/shop-web.xml"
    good = read(SHOP)
    shop = nwf_policy("shop-web", "MAC=52:54:00:5e:2b:01,IP=192.168.122.20,IP=192.168.122.21,ADMIN=198.51.100.0")
    want = """# tap-accel's libvirt hook: domain shop-2, uuid 5e2b8c41-7a3d-4f09-b6e1-2c9d0a7f3e55
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet20 policy %s guard mac=52:54:00:5e:2b:01,ip=192.168.122.20,ip=192.168.122.21
""" % shop
    hook0("shop-2", "start", XML + "/shop-2.xml")
    same("shop-2 start: vnet20 bound to shop-web translated; vnet21 and vnet22 not bound", want, F)
    grammar("shop-2 start", F)
    loaded("shop-2 start", shop)
    policy = read(os.path.join(S["run"], "nwfilter", shop + ".policy"))
    t.has("shop-2: SSH from the admins' network alone, the $ADMIN parameter substituted",
          r"(?m)^rule pass in state new,established ethertype ipv4 src 198\.51\.100\.0/24 proto tcp dport 22 ", policy)
    t.check("shop-2: the policy file has no guard (the binding carries it)", [],
            [l for l in policy.splitlines() if l.startswith("guard")])
    has("shop-2 start: vnet21's clean-traffic needs IP, which libvirt would learn",
        r"interface #2 \(type bridge, tap vnet21, MAC 52:54:00:5e:2b:02\): filter clean-traffic: "
        r".*/no-ip-spoofing\.xml:8: srcipaddr='\$IP': no parameter IP is given .*; not bound")
    has("shop-2 start: vnet22's filter does not exist",
        r"interface #3 \(type bridge, tap vnet22, MAC 52:54:00:5e:2b:03\): <filterref filter='no-such-filter'>: "
        r"no such filter in %s; not bound" % re.escape(S["nwf"]))
    has("shop-2 start: the translation's warnings said",
        r"warning: filter shop-web: .*/shop-web\.xml:18: the filter drops DHCP from the guest here")
    t.check("shop-2 start: exit status 0 (strict no)", 0, S["rc"])

    def broken(desc, text, pattern):
        write(SHOP, text)
        hook0("shop-2", "reconnect", XML + "/shop-2.xml")
        same("%s: vnet20 keeps its last good binding" % desc, want, F)
        has("%s: says why" % desc, r"interface #1 \(type network, tap vnet20, MAC 52:54:00:5e:2b:01\): "
            r"filter shop-web: %s; its last good binding stays: bind name vnet20 policy %s" % (pattern, shop))
        write(SHOP, good)

    t.say("== a filter that breaks keeps the last good binding")
    write(S["nwf"] + "/loop-a.xml", "<filter name='loop-a'>\n  <filterref filter='loop-b'/>\n</filter>\n")
    write(S["nwf"] + "/loop-b.xml", "<filter name='loop-b'>\n  <filterref filter='loop-a'/>\n</filter>\n")
    broken("an include loop", good.replace("<filterref filter='allow-dhcp'/>", "<filterref filter='loop-a'/>"),
           r".*/loop-b\.xml:2: <filterref filter='loop-a'>: a loop: loop-a references itself")
    broken("an unknown filterref", good.replace("'allow-dhcp'", "'allow-dhcpp'"),
           r".*/shop-web\.xml:17: <filterref filter='allow-dhcpp'>: no such filter: no allow-dhcpp\.xml in %s"
           % re.escape(S["nwf"]))
    broken("malformed XML", good.replace("</filter>", "</filtr>"),
           r".*/shop-web\.xml:\d+: malformed XML: .*")
    broken("a file of 2 MiB", good.replace("<!--", "<!--" + "x" * (2 << 20)),
           r".*/shop-web\.xml: larger than 1024 KiB, which no nwfilter filter is")
    broken("a negated match", good.replace("<tcp dstportstart='80'/>", "<tcp match='no' dstportstart='80'/>"),
           r".*/shop-web\.xml:5: <tcp match='no'>: a negated match is not translated.*")
    broken("a connection limit", good.replace("<tcp dstportstart='80'/>", "<tcp dstportstart='80' connlimit-above='10'/>"),
           r".*/shop-web\.xml:5: <tcp connlimit-above='10'>: tap-accel cannot match connlimit-above .*")
    hook0("shop-2", "stopped")
    absent("shop-2 stopped: file removed", F)
    absent("shop-2 stopped: the policy no binding names is unloaded, its file removed",
           os.path.join(S["run"], "nwfilter", shop + ".policy"))
    has("shop-2 stopped: says so", r"unloaded policy %s: no binding names it" % shop)
    r = run([S["ta"], "policy", "list"])
    t.ok("shop-2 stopped: %s no longer loaded" % shop, shop not in r.out, r.out)
    t.check("shop-2: the hook leaves no temporary file", [], [f for f in ls(S["run"] + "/nwfilter") if f.startswith(".")])


@t.part("metadata")
def metadata():
    B, CONF = S["b"], S["conf"]
    t.say("== metadata, no filterref; IPv6")
    hook0("db-1", "start", XML + "/db-1.xml")
    same("db-1: the metadata's policy over libvirt.conf's; no filterref: the MAC alone",
         """# tap-accel's libvirt hook: domain db-1, uuid 0c6a9f2e-51d8-4b7a-8e34-2f9b6d1c4a22
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet2 policy db guard mac=52:54:00:0c:6a:01
bind name vnet3 policy db guard mac=52:54:00:0c:6a:02
""", B + "/10-libvirt-db-1.conf")
    hook0("mail-6", "start", XML + "/mail-6.xml")
    same("mail-6: IP and IPV6 parameters, once each; the EUI-64 link-local added where none is given",
         """# tap-accel's libvirt hook: domain mail-6, uuid a4e2c7d1-9f3b-4e6a-b2c8-7d1e0f5a3b44
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet4 policy mail guard mac=52:54:00:a4:e2:01,ip=192.0.2.25,ip=192.0.2.26,ip=2001:db8:25::25,ip=2001:db8:25::26,ip=fe80::5054:ff:fea4:e201
bind name vnet5 policy mail guard mac=52:54:00:a4:e2:02,ip=2001:db8:26::5,ip=fe80::1234,ip=192.0.2.27
""", B + "/10-libvirt-mail-6.conf")
    grammar("db-1, mail-6", B + "/10-libvirt-db-1.conf", B + "/10-libvirt-mail-6.conf")

    t.say("== metadata per interface; a hot-plugged interface at reconnect")
    want = """# tap-accel's libvirt hook: domain tenant-7, uuid 7e7e7e7e-1111-4222-8333-944455556666
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet6 policy tenant guard mac=52:54:00:7e:00:01,ip=198.51.100.7,ip=2001:db8:7::7,ip=fe80::5054:ff:fe7e:1
bind name vnet7 policy tenant-admin guard mac=52:54:00:7e:00:02,ip=10.7.0.2
bind name t7-uplink policy router
"""
    F = B + "/10-libvirt-tenant-7.conf"
    hook0("tenant-7", "start", XML + "/tenant-7.xml")
    same("tenant-7: by MAC (any case) with addresses, by MAC with a policy, by dev without guard", want, F)
    has("tenant-7: an entry for no interface is named",
        r"warning: metadata <interface> #4: no interface of the domain has mac='52:54:00:7e:00:99'")
    want += "bind name vnet8 policy tenant guard mac=52:54:00:7e:00:04\n"
    ino = os.stat(F).st_ino if os.path.exists(F) else 0
    hook0("tenant-7", "reconnect", XML + "/tenant-7-hotplug.xml")
    same("tenant-7 reconnect after a hot-plug: the new tap, on the domain's policy", want, F)
    t.ok("tenant-7 rewritten in place, not renamed over", not os.path.exists(F) or ino != os.stat(F).st_ino)
    grammar("tenant-7", F)
    hook0("tenant-7", "release")
    absent("tenant-7 release: removed", F)

    t.say("== errors in the metadata and the filterref: those taps alone are left out")
    want = """# tap-accel's libvirt hook: domain broken-3, uuid b3b3b3b3-0000-4000-8000-000000000003
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet12 policy web guard mac=52:54:00:b3:00:05
"""
    F = B + "/10-libvirt-broken-3.conf"
    hook0("broken-3", "start", XML + "/broken-3.xml")
    same("broken-3: the one interface without a fault", want, F)
    has("broken-3: guard='maybe'", r"error: interface #1 \(type bridge, tap vnet10, MAC 52:54:00:b3:00:01\): not bound: "
        r"metadata <interface> #1: guard='maybe': say yes \(the default\) or no")
    has("broken-3: policy='no good'",
        r"error: interface #2 .*tap vnet11.*: not bound: metadata <interface> #2: policy='no good' is not a policy name")
    has("broken-3: filterref IP", r"error: interface #3 .*tap vnet14.*: not bound: guard address '10.0.0.300' is not "
        r"an IPv4 or IPv6 address; correct the domain's <mac>, <filterref> or <tap-accel> metadata")
    has("broken-3: tap name vm#1", r"error: interface #4 .*tap vm#1.*: the tap's name cannot be written in a binding "
        r".*give it another <target dev='...'/>")
    has("broken-3: metadata <ip>",
        r"error: interface #6 .*tap vnet13.*: not bound: guard address '192.0.2.300' is not an IPv4 or IPv6 address")
    has("broken-3: an entry naming no interface", r"error: metadata <interface> #3: give dev='TAP' or mac='MAC' \(one of them\)")
    has("broken-3: a misspelt attribute",
        r"warning: metadata <interface> #4: unknown attribute polcy='typo' ignored; it takes dev, mac, policy, guard")
    has("broken-3: a scoped IPv6 address",
        r"error: interface #7 .*tap vnet15.*: not bound: guard address 'fe80::99%eth0' is not an IPv4 or IPv6 address")
    t.check("broken-3: errors counted", 7, sum(1 for l in S["err"].splitlines() if "error:" in l))
    write(CONF, "policy web\nstrict yes\n")
    hook("broken-3", "start", XML + "/broken-3.xml")
    t.check("broken-3, strict yes: start fails", 1, S["rc"])
    has("broken-3, strict yes: says why", r"error: the domain does not start: 'strict yes' in %s" % re.escape(CONF))
    same("broken-3, strict yes: what could be written is", want, F)
    hook("broken-3", "reconnect", XML + "/broken-3.xml")
    t.check("broken-3, strict yes: reconnect never fails (libvirt would kill the guest)", 0, S["rc"])
    hook0("broken-3", "stopped")
    write(CONF, "policy web\n")
    hook0("db-1", "start", XML + "/db-1.xml")
    write(tmp("root.xml"), sed_first(read(XML + "/db-1.xml"), 'policy="db"', 'policy="d b"'))
    hook0("db-1", "start", tmp("root.xml"))
    absent("a fault in <tap-accel> itself: no tap bound, the earlier run's file gone", B + "/10-libvirt-db-1.conf")
    t.check("a fault in <tap-accel> itself: named for each tap", 2,
            sum(1 for l in S["err"].splitlines() if "not bound: metadata <tap-accel>: policy='d b' is not a policy name" in l))


@t.part("bad-input")
def bad_input():
    B, CONF = S["b"], S["conf"]
    t.say("== bad XML: nothing written, nothing lost")
    os.makedirs(B, exist_ok=True)
    F = B + "/10-libvirt-bad.conf"
    before = "bind name vnet9 policy web guard mac=52:54:00:00:00:09\n"
    write(F, before)
    hook0("bad", "reconnect", XML + "/bad.xml")
    has("bad XML: says so, where", r"bad reconnect: error: the domain XML on stdin is not well-formed \(unclosed "
        r"token: line 42, column 4\): nothing written")
    same("bad XML at reconnect: the running domain's file kept", before, F)
    hook0("bad", "start", XML + "/bad.xml")
    absent("bad XML at start: no file (the one there was is from an earlier run)", F)
    write(CONF, "strict yes\n")
    hook("bad", "start", XML + "/bad.xml")
    t.check("bad XML, strict yes: start fails", 1, S["rc"])
    write(CONF, "")
    hook0("bad", "start", "/dev/null")
    has("no XML at all", r"error: no domain XML on stdin \(by hand: virsh dumpxml DOMAIN \| .* DOMAIN reconnect begin -\)")
    write(tmp("net.xml"), "<network><name>default</name></network>\n")
    hook0("bad", "start", tmp("net.xml"))
    has("not a domain", r"error: stdin holds <network>, not a libvirt <domain>: nothing written")
    absent("bad XML: still no file", F)
    no_tmp("bad XML")

    t.say("== libvirt.conf")
    write(CONF, "policy web\npolcy web\npolicy db\nwait 99\nstrict\n")
    hook0("db-1", "start", XML + "/db-1.xml")
    p = "tap-accel libvirt hook: db-1 start: error: "
    t.check("libvirt.conf errors: FILE:LINE:COL, each", "\n".join(p + l.replace("{c}", CONF) for l in (
        "{c}:2:1: unknown setting 'polcy'; expected policy NAME, wait SECONDS or strict yes|no",
        "{c}:3:1: 'policy' is set twice",
        "{c}:4:6: wait takes seconds from 0 to 30, got '99'",
        "{c}:5:7: 'strict' takes one value",
        "{c} has errors: nothing written (fix it; the domain's next start, or reconnect, writes its bindings)")),
        S["err"].rstrip("\n"))
    absent("libvirt.conf errors: nothing written", B + "/10-libvirt-db-1.conf")
    write(CONF, "strict maybe # or yes\n  wait 1 2\n")
    hook0("db-1", "start", XML + "/db-1.xml")
    t.check("libvirt.conf errors: values", "\n".join(p + l.replace("{c}", CONF) for l in (
        "{c}:1:8: strict takes yes or no, got 'maybe'",
        "{c}:2:10: 'wait' takes one value",
        "{c} has errors: nothing written (fix it; the domain's next start, or reconnect, writes its bindings)")),
        S["err"].rstrip("\n"))
    write(CONF, "policy web\n")


NAMES = ["web server", "web_server", "a%b", "dömain", "..", "-x", "x" * 250, "line\nbreak"]


@t.part("names", needs=["metadata"])
def names():
    B = S["b"]
    t.say("== domain names as file names")
    db1 = read(XML + "/db-1.xml")
    for i, name in enumerate(NAMES, 1):
        write(tmp("n.xml"), sed_first(sed_first(db1, "'vnet2'", "'n%da'" % i), "'vnet3'", "'n%db'" % i))
        hook0(name, "start", tmp("n.xml"))
    want = ["10-libvirt-web%20server.conf", "10-libvirt-web_server.conf", "10-libvirt-a%25b.conf",
            "10-libvirt-d%C3%B6main.conf", "10-libvirt-...conf", "10-libvirt--x.conf",
            "10-libvirt-%s~%s.conf" % ("x" * 180, hashlib.sha256(NAMES[6].encode()).hexdigest()[:16]),
            "10-libvirt-line%0Abreak.conf", "10-libvirt-mail-6.conf"]
    t.check("domain names: one file each, none shared", "\n".join(sorted(want)), "\n".join(ls(B)))
    first = read(B + "/10-libvirt-line%0Abreak.conf").split("\n")[0] if os.path.exists(
        B + "/10-libvirt-line%0Abreak.conf") else ""
    t.check("domain names: a newline stays in the comment",
            "# tap-accel's libvirt hook: domain line\\nbreak, uuid 0c6a9f2e-51d8-4b7a-8e34-2f9b6d1c4a22", first)
    grammar("domain names", *sorted(glob.glob(B + "/*.conf")))
    for name in NAMES:
        hook0(name, "stopped")
    t.check("domain names: each removed by its stop", "10-libvirt-mail-6.conf", " ".join(ls(B)))
    hook0("mail-6", "stopped")


@t.part("stale")
def stale():
    B = S["b"]
    t.say("== a stale claim of another domain is dropped")
    db1 = read(XML + "/db-1.xml")
    write(tmp("db-2.xml"), sed_first(db1, "'vnet2'", "'vnet20'"))
    write(tmp("db-3.xml"), sed_first(db1, "'vnet3'", "'vnet30'"))
    hook0("db-1", "start", XML + "/db-1.xml")
    hook0("db-2", "start", tmp("db-2.xml"))
    has("db-2 takes vnet3: db-1's line dropped, said",
        r"warning: 10-libvirt-db-1.conf bound vnet3, which this domain has now: stale, dropped from it")
    t.check("db-1's file keeps vnet2 alone", "bind name vnet2 policy db guard mac=52:54:00:0c:6a:01",
            bind_lines(B + "/10-libvirt-db-1.conf"))
    t.check("db-2's file: vnet20 and vnet3", "bind name vnet20 policy db guard mac=52:54:00:0c:6a:01\n"
            "bind name vnet3 policy db guard mac=52:54:00:0c:6a:02", bind_lines(B + "/10-libvirt-db-2.conf"))
    hook0("db-3", "start", tmp("db-3.xml"))
    absent("db-3 takes vnet2: db-1's file, left with no binding, removed", B + "/10-libvirt-db-1.conf")
    t.check("db-2's file untouched by db-3", 2, len(bind_lines(B + "/10-libvirt-db-2.conf").splitlines()))
    for d in ("db-2", "db-3"):
        hook0(d, "release")


@t.part("atomic")
def atomic():
    B, CONF = S["b"], S["conf"]
    t.say("== atomic writes; hooks of many domains at once")
    os.makedirs(B + "/10-libvirt-web-1.conf")
    hook0("web-1", "start", XML + "/web-1.xml")
    b = re.escape(B)
    has("rename onto a folder: the cause",
        r"error: %s/\.10-libvirt-web-1\.conf\.[0-9]+\.tmp to %s/10-libvirt-web-1.conf: Is a directory" % (b, b))
    no_tmp("rename failed")
    write(CONF, "policy web\nstrict yes\n")
    hook("web-1", "start", XML + "/web-1.xml")
    t.check("rename failed, strict yes: start fails", 1, S["rc"])
    os.rmdir(B + "/10-libvirt-web-1.conf")
    write(CONF, "policy web\n")
    db1 = read(XML + "/db-1.xml")
    procs = []
    env = dict(os.environ, **hook_env())
    for n in range(1, 13):
        write(tmp("p%d.xml" % n), sed_first(sed_first(db1, "'vnet2'", "'p%da'" % n), "'vnet3'", "'p%db'" % n))
        with open(tmp("p%d.xml" % n)) as xf, open(tmp("p%d.out" % n), "w") as of:
            procs.append(subprocess.Popen([HOOK, "p%d" % n, "start", "begin", "-"], env=env, stdin=xf,
                                          stdout=of, stderr=subprocess.STDOUT))
    t.check("12 hooks at once: exit statuses", "0" * 12, "".join(str(p.wait()) for p in procs))
    ok = sum(1 for n in range(1, 13) if bind_lines(B + "/10-libvirt-p%d.conf" % n) ==
             "bind name p{n}a policy db guard mac=52:54:00:0c:6a:01\n"
             "bind name p{n}b policy db guard mac=52:54:00:0c:6a:02".format(n=n))
    t.check("12 hooks at once: files right", 12, ok)
    no_tmp("12 hooks at once")
    for f in glob.glob(B + "/10-libvirt-p*.conf"):
        os.remove(f)


def db_policy():
    """Policy db (default pass) loaded in the suite's bpffs, once."""
    if not S.get("db"):
        write(tmp("db.policy"), "default pass\n")
        r = ta_ns("policy", "load", "db", tmp("db.policy"))
        if r.rc:
            t.bad("policy load db: " + r.out)
        S["db"] = r.rc == 0


@t.part("wait")
def wait():
    B, CONF = S["b"], S["conf"]
    t.say("== waiting for the agent")
    # it checks guards as tap-accel does; status never answers
    hang = tmp("hang")
    write(hang, '#!/bin/sh\n[ "$1" = guard ] && exec %s "$@"\nexec sleep 60\n' % S["ta"])
    os.chmod(hang, 0o755)
    write(CONF, "policy web\nwait 1\n")
    t0 = time.time()
    hook0("db-1", "start", XML + "/db-1.xml", cli=hang)
    t.at_most("a tap-accel that hangs: seconds the start waited", 4, int(time.time()) - int(t0))
    has("a tap-accel that hangs: said", r"error: not bound as written within 1 s: vnet2 not bound \(want policy db, "
        r"guard mac\); vnet3 not bound \(want policy db, guard mac\) \[tap-accel status did not answer\]")
    t.check("a tap-accel that hangs: the file is written all the same", 2,
            sum(1 for l in bind_lines(B + "/10-libvirt-db-1.conf").splitlines()
                if re.match(r"bind name vnet[23] policy db guard mac=", l)))
    grammar("with wait", B + "/10-libvirt-db-1.conf")
    hook0("db-1", "start", XML + "/db-1.xml", cli=tmp("no-such-tap-accel"))
    has("no tap-accel installed: said at once", r"error: %s is not installed \(not in PATH\): it checks the guards; "
        r"nothing written" % re.escape(tmp("no-such-tap-accel")))
    absent("no tap-accel installed: nothing written", B + "/10-libvirt-db-1.conf")

    if not taps_add(NS, "vnet2", "vnet3"):
        t.bad("cannot create taps in %s" % NS)
        raise Stop
    db_policy()

    def wait_hook(domain, xml):
        """The hook at start in NS, with the real CLI."""
        r = run([HOOK, domain, "start", "begin", "-"], env=hook_env(), netns=NS, stdin_file=xml)
        S["err"], S["rc"] = r.err, r.rc
    write(CONF, "policy db\nwait 2\nstrict yes\n")
    wait_hook("db-1", XML + "/db-1.xml")
    t.check("the agent does not bind, strict yes: start fails", 1, S["rc"])
    has("the agent does not bind: which taps", r"vnet2 not bound \(want policy db, guard mac\); vnet3 not bound")
    if ta_ns("attach", "vnet2", "--policy", "db", "--guard", "mac=52:54:00:0c:6a:01").rc:
        t.bad("attach vnet2")
    if ta_ns("attach", "vnet3", "--policy", "db").rc:
        t.bad("attach vnet3")
    wait_hook("db-1", XML + "/db-1.xml")
    t.check("a tap bound without its guard: start fails", 1, S["rc"])
    has("a tap bound without its guard: what is there and what is wanted",
        r"not bound as written within 2 s: vnet3 policy db, guard -, attached \(want policy db, guard mac\)\. "
        r"Is tap-accel.service running")
    late = subprocess.Popen(["sh", "-c", 'sleep 0.7; exec "$@" >/dev/null', "sh"] +
                            in_ns(NS, [S["ta"], "attach", "vnet3", "--guard", "mac=52:54:00:0c:6a:02"]))
    wait_hook("db-1", XML + "/db-1.xml")
    late.wait()
    t.check("the agent binds while the hook waits: start goes on", 0, S["rc"])
    has("the agent binds while the hook waits: said", r"the agent bound vnet2, vnet3")
    t.check("the agent binds while the hook waits: no error", 0, sum(1 for l in S["err"].splitlines() if "error:" in l))
    hook0("db-1", "stopped")
    write(CONF, "policy web\n")


# ---- QEMU's tap backend with qemu-ifup and qemu-ifdown ------------------------------
def qemu(name, tap, env=()):
    """QEMU with a tap netdev and no guest (paused, no machine), daemonized
    once the netdev (and so qemu-ifup) is up, its monitor on
    tmp/NAME.mon.{in,out}. Its exit status in S["rc"], its stderr in
    tmp/NAME.err."""
    os.mkfifo(tmp(name + ".mon.in"))
    os.mkfifo(tmp(name + ".mon.out"))
    cmd = ["ip", "netns", "exec", NS, "env"] + list(env) + [
        "qemu-system-x86_64", "-M", "none", "-S", "-nodefaults", "-display", "none", "-accel", "tcg",
        "-netdev", "tap,id=n0,ifname=%s,script=%s,downscript=%s" % (tap, S["ifup"], S["ifdown"]),
        "-chardev", "pipe,id=mon,path=%s" % tmp(name + ".mon"), "-mon", "chardev=mon",
        "-daemonize", "-pidfile", tmp(name + ".pid")]
    with open(tmp(name + ".err"), "w") as ef:
        S["rc"] = subprocess.call(cmd, stdout=ef, stderr=subprocess.STDOUT)
    if S["rc"] == 0:
        drain = subprocess.Popen(["cat", tmp(name + ".mon.out")], stdout=subprocess.DEVNULL)
        t.defer(drain.kill)


def monitor(name, command):
    with open(tmp(name + ".mon.in"), "w") as f:
        f.write(command + "\n")


def gone(name):
    """QEMU NAME has exited (5 s at most)."""
    try:
        pid = int(read(tmp(name + ".pid")))
    except (OSError, ValueError):
        return True

    def dead():
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            return True
    if wait_until(dead, 5, 0.1):
        if os.path.exists(tmp(name + ".pid")):  # QEMU removes it itself when it can
            os.remove(tmp(name + ".pid"))
        return True
    return False


def link(tap):
    return run(["ip", "-o", "link", "show", "dev", tap], netns=NS).out.rstrip("\n")


def is_up(tap):
    return bool(re.search(r"[<,]UP[,>]", link(tap)))


@t.part("qemu")
def qemu_part():
    B = S["b"]
    ns = NS
    if run(["ip", "link", "add", "br-ad", "type", "bridge"], netns=NS).rc:
        t.bad("bridge in %s" % NS)
    t.say("== QEMU: settings from the environment; quit from the monitor")
    F = B + "/10-qemu-qad0.conf"
    qemu("q1", "qad0", ["TAP_ACCEL_POLICY=web", "TAP_ACCEL_GUARD=mac=%s,ip=192.0.2.50,ip=2001:db8::50" % MAC,
                        "TAP_ACCEL_BRIDGE=br-ad"])
    t.check("QEMU with qemu-ifup starts (%s)" % read(tmp("q1.err")).rstrip("\n"), 0, S["rc"])
    same("qemu-ifup: the binding, with the tap's namespace", """# tap-accel's qemu-ifup, for the tap QEMU created; qemu-ifdown
# removes it when QEMU exits (docs/guests.md).
bind name qad0 netns %s policy web guard mac=%s,ip=192.0.2.50,ip=2001:db8::50
""" % (ns, MAC), F)
    grammar("qemu-ifup", F)
    t.ok("qemu-ifup: tap qad0 up in br-ad", re.search(r"[<,]UP[,>].*master br-ad", link("qad0")),
         lambda: link("qad0"))
    monitor("q1", "quit")
    t.ok("QEMU q1 did not quit", gone("q1"))
    absent("qemu-ifdown at quit: binding removed", F)
    t.check("the tap went with QEMU", "", link("qad0"))

    t.say("== QEMU and the agent: the tap bound with its guard while QEMU starts; unbound when it quits")
    AG = tmp("agent")
    os.makedirs(AG + "/policies")
    os.makedirs(AG + "/bindings.d")
    write(AG + "/policies/web.policy", "rule drop proto udp dport 9\ndefault pass\n")
    write(AG + "/agent.conf", "netns %s\n" % NS)
    # the agent in a namespace of its own, watching NS, reading B
    if not ns_add(NS + "a"):
        t.bad("netns %sa" % NS)
    log = tmp("agent.log")
    with open(log, "w") as lf:
        agent = subprocess.Popen(["ip", "netns", "exec", NS + "a", S["ta"], "agent", "--config", AG, "--run-dir", B],
                                 stderr=lf, stdin=subprocess.DEVNULL)
    write(tmp("agent.pid"), str(agent.pid))

    def agent_says(pattern):
        return bool(wait_until(lambda: re.search(pattern, read(log), re.M), 5))
    t.ok("the agent is ready", agent_says(r"^ready$"), lambda: "not; its log:\n" + indent(read(log)))
    qemu("q0", "qad9", ["TAP_ACCEL_POLICY=web", "TAP_ACCEL_GUARD=mac=%s,ip=192.0.2.51" % MAC])
    t.check("QEMU with qemu-ifup and the agent starts (%s)" % read(tmp("q0.err")).rstrip("\n"), 0, S["rc"])
    t.ok("the agent binds qad9 as qemu-ifup's file says",
         agent_says(r"^bound qad9 \(netns %s\): policy web, guard mac,ip4, by %s/10-qemu-qad9.conf:3$"
                    % (NS, re.escape(B))), lambda: "\n" + indent(read(log)))
    m = re.search(r'"ifname":"qad9"[^}]*', run([S["ta"], "--json", "status"], netns=NS).out)
    t.check("qad9 in status: policy web, guard mac,ip4", '"policy":"web" "guard":"mac,ip4"',
            " ".join(re.findall(r'"policy":"[^"]*"|"guard":"[^"]*"', m.group(0) if m else "")))
    monitor("q0", "quit")
    t.ok("QEMU q0 did not quit", gone("q0"))
    # qemu-ifdown removes the file before QEMU closes the tap: either comes first
    t.ok("the agent unbinds qad9", agent_says(r"^unbound qad9 \(netns %s\): (no binding matches it|deleted)$" % NS),
         lambda: "\n" + indent(read(log)))
    agent.send_signal(signal.SIGTERM)
    t.check("the agent exits 0", 0, agent.wait())
    os.remove(tmp("agent.pid"))
    t.check("no error in the agent's log", "", "\n".join(l for l in read(log).splitlines() if l.startswith("error")))
    ns_del(NS + "a")

    t.say("== QEMU: settings from the tap's file; SIGTERM")
    os.makedirs(tmp("qemu"), exist_ok=True)
    write(tmp("qemu/qad1.conf"), "# the tap of VM 101\npolicy  vm101   # its own\nguard mac=%s\n" % MAC)
    F = B + "/10-qemu-qad1.conf"
    qemu("q2", "qad1")
    t.check("QEMU q2 starts (%s)" % read(tmp("q2.err")).rstrip("\n"), 0, S["rc"])
    t.check("qemu-ifup from the file", "bind name qad1 netns %s policy vm101 guard mac=%s" % (NS, MAC), bind_lines(F))
    t.ok("qemu-ifup: tap qad1 up, in no bridge", is_up("qad1") and "master" not in link("qad1"), lambda: link("qad1"))
    os.kill(int(read(tmp("q2.pid"))), signal.SIGTERM)
    t.ok("QEMU q2 did not end on SIGTERM", gone("q2"))
    absent("qemu-ifdown at SIGTERM: binding removed", F)

    t.say("== QEMU: an empty variable overrides the file")
    shutil.copy(tmp("qemu/qad1.conf"), tmp("qemu/qad2.conf"))
    write(B + "/10-qemu-qad2.conf", "bind name qad2 policy web guard mac=52:54:00:00:00:99\n")
    qemu("q3", "qad2", ["TAP_ACCEL_POLICY=", "TAP_ACCEL_GUARD="])
    t.check("QEMU q3 starts", 0, S["rc"])
    absent("no policy: no binding; an earlier QEMU's (killed) for the name removed", B + "/10-qemu-qad2.conf")
    has("no policy: said on QEMU's stderr", r"tap-accel qemu-ifup: qad2: no policy \(TAP_ACCEL_POLICY, or 'policy' in "
        r"%s\): no binding written; the agent's glob bindings decide" % re.escape(tmp("qemu/qad2.conf")),
        read(tmp("q3.err")))
    monitor("q3", "quit")
    t.ok("QEMU q3 did not quit", gone("q3"))

    t.say("== QEMU: wrong settings stop QEMU before the guest runs")

    def qemu_fails(desc, pattern, tap, env=()):
        qemu("qf", tap, env)
        t.check("%s: QEMU fails" % desc, 1, S["rc"])
        err = read(tmp("qf.err"))
        has("%s: the script's message" % desc, pattern, err)
        has("%s: QEMU names the script" % desc, "network script %s failed" % re.escape(S["ifup"]), err)
        if not gone("qf"):
            t.bad("%s: QEMU still runs" % desc)
            os.kill(int(read(tmp("qf.pid"))), signal.SIGKILL)
        t.check("%s: no tap left" % desc, "", link(tap))
        t.check("%s: no binding" % desc, "", " ".join(ls(B)))
        for f in ("qf.mon.in", "qf.mon.out"):
            os.remove(tmp(f))
    qemu_fails("a bad policy name", r"tap-accel qemu-ifup: qad3: policy 'we b' is not a policy name", "qad3",
               ["TAP_ACCEL_POLICY=we b"])
    qemu_fails("a bad guard", r"qad3: TAP_ACCEL_GUARD: guard address 'x' is not an IPv4 or IPv6 address", "qad3",
               ["TAP_ACCEL_POLICY=web", "TAP_ACCEL_GUARD=mac=%s,ip=x" % MAC])
    qemu_fails("a guard without a policy", r"a guard \(mac=%s\) but no policy" % MAC, "qad3",
               ["TAP_ACCEL_GUARD=mac=%s" % MAC])
    qemu_fails("a missing bridge", r"bridge 'br-none' does not exist here", "qad3",
               ["TAP_ACCEL_POLICY=web", "TAP_ACCEL_BRIDGE=br-none"])
    qemu_fails("a device that is not a bridge",
               r"bridge 'lo' does not exist here \(ip link add lo type bridge\), or is not a bridge", "qad3",
               ["TAP_ACCEL_POLICY=web", "TAP_ACCEL_BRIDGE=lo"])
    conf3 = tmp("qemu/qad3.conf")
    write(conf3, "policy web\npolicy db\nbridge\nmtu 9000\n")
    qemu_fails("errors in the tap's file", r"%s:2:1: policy is set twice" % re.escape(conf3), "qad3")
    err = read(tmp("qf.err"))
    has("errors in the tap's file: each", r"%s:3:7: bridge takes one value" % re.escape(conf3), err)
    has("errors in the tap's file: each", r'%s:4:1: unknown setting "mtu"' % re.escape(conf3), err)
    os.remove(conf3)

    t.say("== QEMU in a network namespace without a name")
    # in a pid namespace of our own, so that PID 1 (whose namespace is the
    # host's to qemu-ifup) is ours to read, as root's is on a host
    with open(tmp("q4.err"), "w") as ef:
        subprocess.call(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
                         'unshare --net "$@"; echo $? >"$0"', tmp("q4.rc"), "env", "TAP_ACCEL_POLICY=web",
                         "qemu-system-x86_64", "-M", "none", "-S", "-nodefaults", "-display", "none", "-accel", "tcg",
                         "-netdev", "tap,id=n0,ifname=qad4,script=%s,downscript=%s" % (S["ifup"], S["ifdown"]),
                         "-daemonize", "-pidfile", tmp("q4.pid")],
                        stdout=ef, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    t.check("an unnamed namespace: QEMU fails", "1", read(tmp("q4.rc")).strip() if os.path.exists(tmp("q4.rc")) else "")
    has("an unnamed namespace: why",
        r"qad4: the tap is in a network namespace without a name, where the agent does not look", read(tmp("q4.err")))
    t.check("an unnamed namespace: no binding", "", " ".join(ls(B)))
    no_tmp("QEMU")


# ---- one list of bad guards -----------------------------------------------------------
def xml_of(items):
    """A domain with one interface on qadg and ITEMS as its <mac address>
    and filterref IP parameters."""
    mac, ips = GMAC, ""
    for i in items.split(","):
        if i.startswith("mac="):
            mac = i[4:]
        elif i.startswith("ip="):
            ips += "<parameter name='IP' value='%s'/>" % i[3:]
    return ("<domain type='kvm'><name>g</name><devices><interface type='ethernet'>\n"
            "<mac address='%s'/><target dev='qadg'/>\n"
            "<filterref filter='clean-traffic'>%s</filterref></interface></devices></domain>\n" % (mac, ips))


@t.part("bad-guards")
def bad_guards():
    """tests/lib/bad-guards.txt: ITEM MESSAGE. Each is tried with a good
    MAC (or alone, for a MAC) through attach --guard, a policy file, a
    binding the agent reads, qemu-ifup and the libvirt hook; each must say
    MESSAGE and leave nothing bound or written."""
    B = S["b"]
    t.say("== one list of bad guards, refused in the same words at every way in")
    if not taps_add(NS, "qadg"):
        t.bad("cannot create tap qadg in %s" % NS)
    run(["ip", "link", "set", "qadg", "down"], netns=NS)
    db_policy()
    g = tmp("g")
    os.makedirs(g + "/etc", exist_ok=True)
    os.makedirs(g + "/run", exist_ok=True)
    os.makedirs(B, exist_ok=True)

    def refused(way, message, output, rc):
        """Exit 1 and MESSAGE, as it is: two checks."""
        t.check("%s: exit status" % way, 1, rc)
        t.ok(way, message in output, lambda: "not said: %s; got:\n%s" % (message, indent(output)))

    def every_way(items, message):
        r = ta_ns("attach", "qadg", "--policy", "db", "--guard", items)
        refused("attach --guard %s" % items, "tap-accel: attach: --guard: %s" % message, r.out, r.rc)
        t.check("attach --guard %s: qadg not bound" % items, "",
                "\n".join(l for l in run([S["ta"], "status"], netns=NS).out.splitlines() if "qadg" in l))
        write(g + "/p.policy", "guard %s\ndefault pass\n" % items.replace(",", " ").replace("=", " "))
        r = run([S["ta"], "policy", "check", g + "/p.policy"], merge=True)
        refused("policy file guard %s" % items, "%s/p.policy:1:" % g, r.out, r.rc)
        refused("policy file guard %s" % items, ": %s" % message, r.out, 1)
        write(g + "/run/10-g.conf", "bind name qadg policy db guard %s\n" % items)
        r = run([S["ta"], "agent", "--check", "--config", g + "/etc", "--run-dir", g + "/run"], merge=True)
        refused("binding guard %s" % items, "%s/run/10-g.conf:1:" % g, r.out, r.rc)
        refused("binding guard %s" % items, ": guard: %s" % message, r.out, 1)
        r = run(["ip", "netns", "exec", NS, "env", "TAP_ACCEL_POLICY=db", "TAP_ACCEL_GUARD=" + items, S["ifup"], "qadg"],
                merge=True)
        refused("qemu-ifup TAP_ACCEL_GUARD=%s" % items, "tap-accel qemu-ifup: qadg: TAP_ACCEL_GUARD: %s" % message,
                r.out, r.rc)
        t.ok("qemu-ifup TAP_ACCEL_GUARD=%s: brought qadg up before refusing" % items, not is_up("qadg"))
        write(g + "/d.xml", xml_of(items))
        hook0("g", "start", g + "/d.xml")
        refused("libvirt hook %s" % items, "error: interface #1 (type ethernet, tap qadg, MAC ", S["err"], 1)
        refused("libvirt hook %s" % items, "): not bound: %s; correct the domain's" % message, S["err"], 1)
        t.check("bad guards: nothing in bindings.d after %s" % items, "", " ".join(ls(B)))

    n = 0
    with open(TOP + "/tests/lib/bad-guards.txt") as f:
        for line in f:
            parts = line.strip().split(None, 1)
            if not parts or parts[0].startswith("#"):
                continue
            item, msg = parts[0], parts[1] if len(parts) > 1 else ""
            if item.startswith("ip="):
                item = "mac=%s,%s" % (GMAC, item)
            every_way(item, msg)
            n += 1
    t.at_least("bad guards: entries tried", 20, n)
    many = "mac=" + GMAC + "".join(",ip=10.0.0.%d" % i for i in range(1, 66))
    every_way(many, "guard address '10.0.0.65': at most 64 guard addresses of each family")
    # IPv6 addresses at their longest: a full guard fits every way in
    many = ("mac=" + GMAC + "".join(",ip=10.0.0.%d" % i for i in range(1, 65))
            + "".join(",ip=fd00:1111:2222:3333:4444:5555:6666:%x" % i for i in range(1, 66)))
    every_way(many, "guard address 'fd00:1111:2222:3333:4444:5555:6666:41': at most 64 guard addresses of each family")
    write(g + "/run/10-g.conf", "bind name qadg policy db guard %s\n" % many.rsplit(",ip=", 1)[0])
    check_cmd = [S["ta"], "agent", "--check", "--config", g + "/etc", "--run-dir", g + "/run"]
    t.expect_exit(0, "", check_cmd)
    write(g + "/run/10-g.conf", "bind name qadg policy db guard mac=%s,ip=10.0.0.1,ip=fe80::1\n" % GMAC)
    t.expect_exit(0, "", check_cmd)
    r = run(["ip", "netns", "exec", NS, "env", "TAP_ACCEL_POLICY=db",
             "TAP_ACCEL_GUARD=mac=52-54-00-AD-00-07,ip=10.0.0.1", S["ifup"], "qadg"], merge=True)
    t.check("qemu-ifup with a good guard: exit status (%s)" % r.out.rstrip("\n"), 0, r.rc)
    t.check("qemu-ifup with a good guard: written as tap-accel reads it",
            "bind name qadg netns %s policy db guard mac=52:54:00:ad:00:07,ip=10.0.0.1" % NS,
            bind_lines(B + "/10-qemu-qadg.conf"))
    run([S["ifdown"], "qadg"])
    absent("qemu-ifdown --run-dir: removed", B + "/10-qemu-qadg.conf")


@t.part("ifup-folders")
def ifup_folders():
    t.say("== qemu-ifup: its folders are options, never the environment")
    # a pid namespace of its own (so that the tap's namespace passes for the
    # host's) and a /run of its own: where would the binding go?
    os.makedirs(tmp("elsewhere"), exist_ok=True)
    r = run(["unshare", "--mount", "--propagation", "private", "--net", "--pid", "--fork", "--mount-proc", "sh", "-c",
             'mount -t tmpfs tmpfs /run && ip tuntap add qade mode tap && '
             'PATH=$1:$PATH TAP_ACCEL_RUN_DIR=$2 TAP_ACCEL_POLICY=db $3 qade && ls /run/tap-accel/bindings.d',
             "sh", tmp(), tmp("elsewhere"), UP], merge=True)
    t.check("TAP_ACCEL_RUN_DIR is not honoured: the binding in /run/tap-accel", "10-qemu-qade.conf", r.out.rstrip("\n"))
    t.check("TAP_ACCEL_RUN_DIR is not honoured: nothing in it", "", " ".join(ls(tmp("elsewhere"))))


@t.part("stdin")
def stdin():
    B, CONF = S["b"], S["conf"]
    t.say("== the hook's stdin: UTF-8, and bounded")
    write(CONF, "policy db\n")
    db1 = read(XML + "/db-1.xml", "rb")
    write(tmp("latin.xml"), b"".join(l.replace(b"<name>db-1<", b"<name>db-\xff<", 1) for l in db1.splitlines(True)))
    hook0("db-1", "start", tmp("latin.xml"))
    has("non-UTF-8 XML: said what it is", r"error: the domain XML on stdin is not UTF-8 \(byte 0xff at offset [0-9]+\), "
        r"as libvirt writes it: nothing written")
    t.check("non-UTF-8 XML: no internal error", 0, sum(1 for l in S["err"].splitlines() if "internal error" in l))
    absent("non-UTF-8 XML: nothing written", B + "/10-libvirt-db-1.conf")
    lines = db1.splitlines(True)
    write(tmp("big.xml"), b"".join(lines[:-1]) + b" " * (5 << 20) + lines[-1])
    r = run(["/usr/bin/time", "-f", "%M", "-o", tmp("rss"), "env"] + ["%s=%s" % kv for kv in hook_env().items()]
            + [HOOK, "db-1", "start", "begin", "-"], stdin_file=tmp("big.xml"))
    S["err"] = r.err
    t.check("5 MiB of XML: exit status", 0, r.rc)
    has("5 MiB of XML: refused, said",
        r"error: the domain XML on stdin is larger than 4 MiB, which no libvirt domain is: nothing written")
    absent("5 MiB of XML: nothing written", B + "/10-libvirt-db-1.conf")
    rss = read(tmp("rss")).strip()
    t.say("5 MiB of XML: the hook's peak RSS %s KiB" % rss)
    t.at_most("5 MiB of XML: the hook's peak RSS (KiB)", 40000, rss)
    write(CONF, "policy web\n")


t.main(setup)
