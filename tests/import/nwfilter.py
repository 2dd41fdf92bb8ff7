# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""libvirt nwfilter ('tap-accel policy import nwfilter'): the filters
libvirt ships, as Debian packages them (libvirt-daemon-config-nwfilter,
fetched by mk/nwfilter.sh: translated as libvirt installs them, not
copies), and the corpus in nwfilter/ - filters written from libvirt's
formatnwfilter documentation over them - each translated for one guest and
its .expect packets judged through the model and on a real tap; then what
the command prints (--check, --json, where each statement came from) and
the bad input it refuses, with its exact message and nothing on stdout."""
import json
import os
import shutil

import corpus
from hostsuite import run

HERE = os.path.dirname(os.path.abspath(__file__))
NWF = os.path.join(HERE, "nwfilter")
TOP = os.path.dirname(os.path.dirname(HERE))
GUEST = "MAC=52:54:00:0a:00:05,IP=10.0.0.5"

# What clean-traffic warns of wherever it is used: the RARP accepts it
# leaves out, and what a two-way policy passes that it drops.
RARP = ["qemu-announce-self-rarp.xml:%d: <rule action='accept'> with <rarp> tests ARP's payload" % n
        for n in (2, 8)]
L2 = "no-other-l2-traffic.xml:5: the filter drops "
ND = [L2 + "ICMPv6 neighbour discovery, router and MLD messages %s the guest here" % w
      for w in ("from", "to")]
DHCP6 = [L2 + "DHCPv6 %s the guest here" % w for w in ("from", "to")]

# expect file: (the filter, --param, the warnings' starts after the file)
FILTERS = {
    "clean-traffic.expect": ("clean-traffic", GUEST, RARP + ND + DHCP6),
    "web.expect": ("web", GUEST + ",ADMIN=198.51.100.0",
                   RARP + ND + ["web.xml:29: the filter drops DHCP %s the guest here" % w
                                for w in ("from", "to")] + DHCP6),
    "db.expect": ("db", "IP=10.0.0.5,IP=10.0.0.6", [
        "db.xml:14: the filter drops DHCP to the guest here"]),
    "v6.expect": ("v6", "MAC=52:54:00:0a:00:06,IPV6=2001:db8::6,IPV6=fe80::5054:ff:fe0a:6", [
        "no-mac-spoofing.xml:3: the filter checks the guest's MAC in the Ethernet header only",
        "v6.xml:13: the filter drops ICMPv6 neighbour discovery, router and MLD messages to the "
        "guest here",
        "v6.xml:13: the filter drops DHCPv6 to the guest here"]),
}


class Dir:
    path = None  # libvirt's shipped filters and the corpus's, in one folder


def filters(t):
    """The folder of filters: mk/nwfilter.sh's and nwfilter/'s."""
    if Dir.path:
        return Dir.path
    r = run(["sh", os.path.join(TOP, "mk", "nwfilter.sh")])
    if not t.ok("libvirt's shipped filters are fetched (mk/nwfilter.sh)", r.rc == 0, r.err.strip()):
        return None
    Dir.path = os.path.join(corpus.Env.tmp, "nwfilter")
    shutil.copytree(r.out.strip(), Dir.path)
    for f in os.listdir(NWF):
        if f.endswith(".xml"):
            shutil.copy(os.path.join(NWF, f), Dir.path)
    return Dir.path


def import_argv(d, name, params=None, extra=()):
    argv = [corpus.Env.cli, "policy", "import", "nwfilter", os.path.join(d, name + ".xml"),
            "--dir", d]
    return argv + (["--param", params] if params else []) + list(extra)


def warnings_of(err):
    prefix = "tap-accel: warning: "
    return [line[len(prefix):] for line in err.splitlines() if line.startswith(prefix)]


def check_corpus(t, d):
    for expect, (name, params, warnings) in FILTERS.items():
        r = run(import_argv(d, name, params))
        if not t.ok(f"{expect}: policy import nwfilter {name} exits 0", r.rc == 0, r.err.strip()):
            continue
        got = warnings_of(r.err)
        t.check(f"{expect}: the warnings", len(warnings), len(got))
        for w, g in zip(warnings, got):
            t.ok(f"{expect}: warning {w[:40]}...", g.startswith(os.path.join(d, w)), g)
        policy = corpus.write(expect.replace(".expect", ".policy"), r.out)
        t.expect_exit(0, r": ok, ", [corpus.Env.cli, "policy", "check", policy])
        corpus.check_policy(t, policy, os.path.join(NWF, expect))


def check_output(t, d):
    """Where each statement came from; --check; --json."""
    r = run(import_argv(d, "web", GUEST + ",ADMIN=198.51.100.0"))
    t.has("the guard, from clean-traffic's anti-spoofing chains",
          r"(?m)^guard mac 52:54:00:0a:00:05 ip 10\.0\.0\.5  # .*/no-mac-spoofing\.xml:3$", r.out)
    t.has("an iptables rule within the ebtables accept that lets it through, both named",
          r"(?m)^rule pass in state new,established ethertype ipv4 src 198\.51\.100\.0/24 proto tcp "
          r"dport 22  # .*/web\.xml:14, accepted by .*/allow-incoming-ipv4\.xml:2$", r.out)
    t.has("statematch: the answers' rule, the other way",
          r"(?m)^rule pass out state established ethertype ipv4 dst 198\.51\.100\.0/24 proto tcp "
          r"sport 22  # .*/web\.xml:14, accepted by .*/clean-traffic\.xml:10$", r.out)
    n = sum(1 for line in r.out.splitlines() if line and not line.startswith("#"))
    f = os.path.join(d, "web.xml")
    r = run(import_argv(d, "web", GUEST + ",ADMIN=198.51.100.0", ["--check"]))
    t.check("--check", f"{f}: ok, {n} statements, 8 warnings\n", r.out)
    got, r = corpus.import_json(t, [corpus.Env.cli, "--json"]
                                + import_argv(d, "web", GUEST + ",ADMIN=198.51.100.0")[1:])
    if got is None:
        return
    t.check("--json: format, file, statements", ("nwfilter", f, n),
            (got.get("format"), got.get("file"), got.get("statements")))
    t.check("--json: the warnings", 8, len(got.get("warnings", [])))
    t.check("--json: the warnings on stderr too, as every warning of the CLI",
            got.get("warnings"), warnings_of(r.err))
    # --param once for each parameter, or several in one
    a = run(import_argv(d, "db", "IP=10.0.0.5,IP=10.0.0.6"))
    b = run(import_argv(d, "db", "IP=10.0.0.5", ["--param", "IP=10.0.0.6"]))
    t.check("--param given twice is the list given once", (0, a.out), (b.rc, b.out))


def check_bad_input(t, d):
    """Errors: exit 1, the place and the construct said, nothing on stdout."""
    refused = {
        "malformed": ("<filter name='malformed'>\n  <rule action='drop' direction='out'>\n"
                      "</filter>\n",
                      "{f}:4: malformed XML: Premature end of data in tag filter line 1"),
        "entities": ("<?xml version='1.0'?>\n<!DOCTYPE filter [\n<!ENTITY a 'aaaaaaaaaa'>\n"
                     "<!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>\n]>\n"
                     "<filter name='entities'>&b;</filter>\n",
                     "{f}:1: a <!DOCTYPE> (entities, a DTD) is not read: nwfilter XML has none; "
                     "remove it"),
        "loop1": ("<filter name='loop1'>\n  <filterref filter='loop2'/>\n</filter>\n",
                  "{d}/loop2.xml:3: <filterref filter='loop1'>: a loop: loop1 references itself"),
        "unknown": ("<filter name='unknown'>\n  <filterref filter='clean-trafic'/>\n</filter>\n",
                    "{f}:2: <filterref filter='clean-trafic'>: no such filter: no "
                    "clean-trafic.xml in {d}"),
        "noip": ("<filter name='noip'>\n  <filterref filter='clean-traffic'/>\n</filter>\n",
                 "{d}/no-ip-spoofing.xml:8: srcipaddr='$IP': no parameter IP is given (libvirt "
                 "would learn IP from the guest's traffic where it can; tap-accel needs it: give "
                 "<parameter name='IP' value='...'/> in the domain's <filterref>, or --param "
                 "IP=...)"),
        "negated": ("<filter name='negated'>\n  <rule action='drop' direction='out'>\n"
                    "    <ip match='no' dstipaddr='10.0.0.1'/>\n  </rule>\n</filter>\n",
                    "{f}:2: <ip match='no'>: a negated match is not translated: tap-accel's "
                    "rules test what holds, never what does not; write the rules the other way "
                    "round"),
    }
    with open(os.path.join(d, "loop2.xml"), "w") as f:
        f.write("<filter name='loop2'>\n  <!-- back -->\n  <filterref filter='loop1'/>\n</filter>\n")
    for name, (text, message) in refused.items():
        f = os.path.join(d, name + ".xml")
        with open(f, "w") as out:
            out.write(text)
        r = run(import_argv(d, name, "MAC=52:54:00:0a:00:05"))
        t.check(f"{name}.xml: exit, stdout, stderr", (1, "", message.format(f=f, d=d) + "\n"),
                (r.rc, r.out, r.err))
    # a file larger than any filter
    f = os.path.join(d, "huge.xml")
    with open(f, "w") as out:
        out.write("<filter name='huge'>\n<!--" + "x" * (2 << 20) + "-->\n</filter>\n")
    r = run(import_argv(d, "huge"))
    t.check("huge.xml: exit, stdout, stderr",
            (1, "", f"tap-accel: {f}: larger than 1024 KiB, which no nwfilter filter is\n"),
            (r.rc, r.out, r.err))
    # --json: the error as {"error": ...} on stdout, nothing on stderr
    f = os.path.join(d, "negated.xml")
    r = run([corpus.Env.cli, "--json"] + import_argv(d, "negated")[1:])
    t.check("--json error: exit, stdout, stderr",
            (1, json.dumps({"error": refused["negated"][1].format(f=f, d=d)},
                           separators=(",", ":")) + "\n", ""), (r.rc, r.out, r.err))
    t.expect_exit(1, r"^tap-accel: --param 'IP': expected NAME=VALUE\[,NAME=VALUE\.\.\.\]$",
                  import_argv(d, "web", "IP"))


def register(t):
    @t.part("nwfilter")
    def nwfilter():
        """The shipped filters and the corpus through the model and on taps;
        the output; bad input."""
        d = filters(t)
        if not d:
            return
        check_corpus(t, d)
        check_output(t, d)
        check_bad_input(t, d)
