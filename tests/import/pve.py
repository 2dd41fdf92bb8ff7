# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Proxmox VE ('tap-accel policy import pve'): the corpus in pve/ - a
cluster.fw with security groups, aliases and ipsets, VMs' .fw and .conf
files written from the administration guide's firewall chapter - each VM's
interface translated and its .expect packets judged through the model and
on a real tap; then what the command prints (--check, --json, warnings)
and the bad input it refuses, with its exact message and nothing on
stdout."""
import json
import os

import corpus
from hostsuite import run

HERE = os.path.dirname(os.path.abspath(__file__))
PVE = os.path.join(HERE, "pve")
CLUSTER = os.path.join(PVE, "cluster.fw")

# expect file: (the VM's .fw, its .conf or None, --iface or None, the
# warnings the translation gives, each "FILE:LINE: ...")
VMS = {
    "100.expect": ("100.fw", "100.conf", None,
                   ["100.fw:13: IN ACCEPT: -dport needs -p; the rule is skipped, as Proxmox VE "
                    "skips it"]),
    "100-net1.expect": ("100.fw", "100.conf", "net1",
                        ["100.fw:13: IN ACCEPT: -dport needs -p; the rule is skipped, as Proxmox "
                         "VE skips it"]),
    "101.expect": ("101.fw", "101.conf", None, []),
    "102.expect": ("102.fw", "102.conf", None, []),
    "103.expect": ("103.fw", None, None, []),
    "104.expect": ("104.fw", "104.conf", None, []),
}


def import_argv(fw, conf=None, iface=None, cluster=CLUSTER, extra=()):
    argv = [corpus.Env.cli, "policy", "import", "pve", fw]
    if cluster:
        argv += ["--cluster", cluster]
    if conf:
        argv += ["--conf", conf]
    if iface:
        argv += ["--iface", iface]
    return argv + list(extra)


def warnings_of(err):
    prefix = "tap-accel: warning: "
    return [line[len(prefix):] for line in err.splitlines() if line.startswith(prefix)]


def translate(t, expect, fw, conf, iface, warnings):
    """The policy of one VM's interface, written to the scratch folder; its
    path, or None (told) when the import fails."""
    path = os.path.join(PVE, fw)
    r = run(import_argv(path, conf and os.path.join(PVE, conf), iface))
    if not t.ok(f"{expect}: policy import pve {fw} exits 0", r.rc == 0, r.err.strip()):
        return None
    t.check(f"{expect}: the warnings", [os.path.join(PVE, w) for w in warnings],
            warnings_of(r.err))
    policy = corpus.write(expect.replace(".expect", ".policy"), r.out)
    t.expect_exit(0, r": ok, ", [corpus.Env.cli, "policy", "check", policy])
    return policy


def check_corpus(t):
    for expect, (fw, conf, iface, warnings) in VMS.items():
        policy = translate(t, expect, fw, conf, iface, warnings)
        if policy:
            corpus.check_policy(t, policy, os.path.join(PVE, expect))


def check_output(t):
    """--check, --json, and where each statement came from."""
    fw, conf = os.path.join(PVE, "100.fw"), os.path.join(PVE, "100.conf")
    r = run(import_argv(fw, conf))
    t.has("each statement names its line", r"^rule reject in proto tcp dport 3307  # .*/100\.fw:9$",
          r.out)
    t.has("a group's rule names the group and its GROUP line",
          r"^rule pass in proto tcp dport 80  # .*/cluster\.fw:26 \(group webserver, .*/100\.fw:7\)$",
          r.out)
    t.has("the guard from macfilter and the VM's MAC",
          r"^guard mac bc:24:11:5e:7a:01  # .*100\.fw: macfilter, net0's MAC in .*100\.conf$", r.out)
    n = sum(1 for line in r.out.splitlines() if line and not line.startswith("#"))
    r = run(import_argv(fw, conf, extra=["--check"]))
    t.check("--check", f"{fw}: ok, {n} statements, 1 warnings\n", r.out)
    got, _ = corpus.import_json(t, [corpus.Env.cli, "--json"] + import_argv(fw, conf)[1:])
    if got is None:
        return
    t.check("--json: format and file", ("pve", fw), (got.get("format"), got.get("file")))
    t.check("--json: the statements", n, got.get("statements"))
    t.check("--json: the warnings", [fw + ":13: IN ACCEPT: -dport needs -p; the rule is skipped, "
                                     "as Proxmox VE skips it"], got.get("warnings"))
    t.has("--json: the policy", r"^default in drop  # ", got.get("policy", ""))


def check_bad_input(t):
    """Errors: exit 1, the place and the construct said, nothing on stdout."""
    on = "[OPTIONS]\nenable: 1\nmacfilter: 0\n[RULES]\n"
    refused = {
        "nomatch.fw": (on + "IN ACCEPT -source +partial\n",
                       "{f}:5: -source +partial: ipset partial excludes 10.9.1.0/24 ({c}:23), and "
                       "a tap-accel rule cannot leave addresses out of its match: list what the "
                       "set includes instead"),
        "icmpcode.fw": (on + "IN ACCEPT -p icmp -icmp-type port-unreachable\n",
                        "{f}:5: IN ACCEPT: ICMP type port-unreachable is type 3 code 3, and "
                        "tap-accel matches ICMP types, not codes: use destination-unreachable "
                        "(all of type 3) if that is meant"),
        "garbage.fw": (on + "this is not a rule\n",
                       "{f}:5: expected a rule option (-i, -p, -dport, -sport, -source, -dest, "
                       "-icmp-type, -log), got 'not'"),
        "nosection.fw": ("enable: 1\n",
                         "{f}:1: 'enable: 1' is in no section: start it with [OPTIONS], [RULES], "
                         "..."),
        "dhcp.fw": ("[OPTIONS]\nenable: 1\ndhcp: 0\n",
                    "{f}:3: dhcp: 0 leaves DHCP to the rules, and a tap-accel two-way policy "
                    "always lets DHCP to and from the guest through (docs/proxmox.md): set "
                    "dhcp: 1 to import this firewall"),
        "range.fw": (on + "OUT DROP -dest 10.0.0.1-10.0.0.9\n",
                     "{f}:5: -dest 10.0.0.1-10.0.0.9: an address range, which tap-accel does not "
                     "match: write it as CIDRs (-source 10.0.0.0/30,10.0.0.4)"),
    }
    many = "".join(f"10.{i}.0.0/16\n" for i in range(40))
    ports = ",".join(str(p) for p in range(1, 16))
    refused["toomany.fw"] = (
        "[OPTIONS]\nenable: 1\nmacfilter: 0\n[IPSET many]\n" + many + "[RULES]\n"
        f"IN ACCEPT -p tcp -source +many -dport {ports}\nOUT ACCEPT -p udp -dest +many -dport {ports}\n",
        "{f}:47: OUT ACCEPT: the translation needs more than 1015 rules, tap-accel's most in a "
        "two-way policy (each address of a list or ipset and each port of a list is a rule of its "
        "own): use fewer or wider prefixes and port ranges")
    for name, (text, message) in refused.items():
        f = corpus.write(name, text)
        r = run(import_argv(f))
        t.check(f"{name}: exit, stdout, stderr", (1, "", message.format(f=f, c=CLUSTER) + "\n"),
                (r.rc, r.out, r.err))
    # a file larger than any firewall configuration
    f = corpus.write("huge.fw", "# padding\n" * (500 * 1024))
    r = run(import_argv(f))
    t.check("huge.fw: exit, stdout, stderr",
            (1, "", f"tap-accel: {f}: larger than 4096 KiB, more than a firewall configuration "
                    "holds: is it the right file?\n"), (r.rc, r.out, r.err))
    # --json: the error as {"error": ...} on stdout, nothing on stderr
    f = corpus.write("json-error.fw", refused["garbage.fw"][0])
    r = run([corpus.Env.cli, "--json"] + import_argv(f)[1:])
    t.check("--json error: exit, stdout, stderr",
            (1, json.dumps({"error": refused["garbage.fw"][1].format(f=f)},
                           separators=(",", ":")) + "\n", ""), (r.rc, r.out, r.err))
    # what Proxmox VE skips is skipped, with its place, and the rest kept
    f = corpus.write("skips.fw", on + "IN ACCEPT -source +nosuch\nIN Frob(ACCEPT)\n"
                     "IN ACCEPT -p tcp -dport 22\n")
    r = run(import_argv(f))
    t.check("skips.fw: exit 0 and its warnings", (0, [
        f"{f}:5: -source +nosuch: no such ipset 'nosuch'; the rule is skipped, as Proxmox VE skips it",
        f"{f}:6: IN Frob(ACCEPT): unknown macro 'Frob'; the rule is skipped, as Proxmox VE skips it",
    ]), (r.rc, warnings_of(r.err)))
    t.has("skips.fw: the rule after them", r"^rule pass in proto tcp dport 22  # .*skips\.fw:7$", r.out)
    t.expect_exit(1, r"^tap-accel: policy import pve: --iface is netN, N from 0 to 31, not 'eth0'$",
                  import_argv(os.path.join(PVE, "100.fw"), iface="eth0"))
    t.expect_exit(1, r"100\.conf has no net5: give the interface with --iface netN$",
                  import_argv(os.path.join(PVE, "100.fw"), os.path.join(PVE, "100.conf"), "net5"))


def register(t):
    @t.part("pve")
    def pve():
        """The corpus through the model and on taps; the output; bad input."""
        check_corpus(t)
        check_output(t)
        check_bad_input(t)
