# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""OpenStack security groups ('tap-accel policy import openstack'): the
corpus of openstack/ (rule lists as `openstack security group rule list
-f json` prints them, ports as `openstack port show -f json` does), each
translated and its packets judged as Neutron would judge them; and bad
input refused with an error naming the file, place and rule, and nothing
printed."""
import json
import os
import re

import corpus
from hostsuite import run

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "openstack")
DEFAULT_GROUP = "5e0c3b8a-2f4d-4b7a-8e2a-1c9d0f6b3a11"
WEB_GROUP = "b2222222-2222-4222-8222-222222222222"

# name: (rule files, port file or None, --remote-group values); name.expect
CONFIGS = {
    "web": (["web.json", "default-group.json"], "port.json",
            [f"{DEFAULT_GROUP}=10.0.0.5,10.0.0.6,2001:db8::5,2001:db8::6"]),
    "ssh-only": (["ssh-only.json", "timestamp-api.json"], None, []),
    "project": (["project.json"], "port-db.json", [f"{WEB_GROUP}=10.0.0.5,10.0.0.6"]),
    "no-port-security": (["web.json"], "port-nosec.json", []),
    "db-group": (["db-group.json"], "port-db.json", []),
}


def import_argv(files, port=None, groups=(), extra=()):
    argv = [corpus.Env.cli, "policy", "import", "openstack", *files, *extra]
    if port:
        argv += ["--port", port]
    for g in groups:
        argv += ["--remote-group", g]
    return argv


def translate(t, name):
    """The policy of config `name`, written to the scratch folder: its
    path, or None."""
    files, port, groups = CONFIGS[name]
    r = run(import_argv(files, port, groups), cwd=CORPUS)
    if not t.ok(f"import openstack {name}", r.rc == 0 and r.out, r.out + r.err):
        return None
    if port == "port-nosec.json":  # nothing filtered: no rule is written
        t.has(f"{name}: pass all", r"^default pass  # port-nosec.json port_security_enabled false$",
              r.out)
        files = []
    for f in files:
        with open(os.path.join(CORPUS, f)) as rules:
            listed = json.load(rules)
        if isinstance(listed, dict):  # the API's answer, or a group's
            listed = [{"ID": rule["id"]} for rule in listed.get("security_group_rules")
                      or listed["rules"]]
        # Every rule the port has is a statement naming its file and ID
        # (or, for a rule of another group, a comment saying so).
        for rule in listed:
            t.has(f"{name}: rule {rule['ID']} is named", rf"# {re.escape(f)} rule {rule['ID']}", r.out)
    return corpus.write(f"openstack-{name}.policy", r.out)


def check_config(t, name):
    path = translate(t, name)
    if path:
        corpus.check_policy(t, path, os.path.join(CORPUS, f"{name}.expect"))


def check_outputs(t):
    """--check and --json say what the text says."""
    files, port, groups = CONFIGS["web"]
    got, _ = corpus.import_json(t, import_argv(files, port, groups, ["--json"]), cwd=CORPUS,
                                keys="format file files policy statements warnings")
    if got is None:
        return
    text = run(import_argv(files, port, groups), cwd=CORPUS).out
    t.check("--json: format", "openstack", got.get("format"))
    t.check("--json: file", "web.json", got.get("file"))
    t.check("--json: the policy is the text", text, got.get("policy"))
    statements = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    t.check("--json: statements", statements, got.get("statements"))
    # The client's listing hides an ICMP type or code of 0: its ICMP rules
    # are said to be maybe wider.
    warnings = got.get("warnings") or [""]
    t.check("--json: warnings", 2, len(got.get("warnings", [])))
    t.has("--json: the warning of an ICMP type", r"^web\.json:37:19: rule 9a4d6c0e-5fc8-4d3b-8a06-"
          r"8b3c5d7e9f08: the client's listing shows no ICMP code of 0: if the rule has one, "
          r"Neutron allows less than 'type=8'; `openstack security group rule show 9a4d6c0e-"
          r"5fc8-4d3b-8a06-8b3c5d7e9f08 -f json` has the exact fields, and this command takes it$",
          warnings[0])
    r = run(import_argv(files, port, groups, ["--check"]), cwd=CORPUS)
    t.check("--check", f"web.json: ok, {statements} statements, 2 warnings\n", r.out)
    # A prefix with host bits is taken as Neutron's drivers take it, said.
    path = corpus.write("host-bits.json", json.dumps([rule("h1", "tcp", "IPv4", "198.51.100.7/24",
                                                           "22:22", "ingress")]))
    r = run(import_argv([path]))
    t.has("host bits: the statement", r"^rule pass in src 198.51.100.0/24 proto tcp dport 22 ", r.out)
    t.has("host bits: the warning", r"^tap-accel: warning: .*host-bits.json:1:\d+: rule h1: \"IP Range\" "
          r"198.51.100.7/24 has bits set past its length: taken as 198.51.100.0/24", r.err)
    # Two groups with the same rule: one statement, the other a comment.
    r = run(import_argv(["default-group.json", "default-group.json"], None,
                        [f"{DEFAULT_GROUP}=10.0.0.5"]), cwd=CORPUS)
    t.check("a repeated rule is written once", 1, len(re.findall(r"^rule pass out ethertype ipv4 ",
                                                               r.out, re.M)))


def rule(rid, proto, eth, rng, ports, direction, remote=None):
    return {"ID": rid, "IP Protocol": proto, "Ethertype": eth, "IP Range": rng,
            "Port Range": ports, "Direction": direction, "Remote Security Group": remote,
            "Remote Address Group": None}


def port(**over):
    p = {"mac_address": "fa:16:3e:4c:2d:81", "fixed_ips": [{"ip_address": "10.0.0.5"}],
         "allowed_address_pairs": [], "port_security_enabled": True}
    p.update(over)
    return json.dumps(p)


def ok_rules():
    return json.dumps([rule("ok1", "tcp", "IPv4", None, "22:22", "ingress")])


# (what, rules text, port text or None, --remote-group values, the error)
BAD = [
    ("malformed JSON", '[{"ID": "x",}]', None, [],
     r"^RULES:1:13: expected a key \(a string in double quotes\), got '\}'$"),
    ("text after the list", '[] []', None, [],
     r"^RULES:1:4: expected end of file after the JSON value, got '\['$"),
    ("a key twice", '[{"ID": "a", "ID": "b"}]', None, [],
     r"^RULES:1:14: expected each key once in an object, got \"ID\" again$"),
    ("deep nesting", "[" * 100 + "]" * 100, None, [],
     r"^RULES:1:33: expected at most 32 nested arrays and objects, got more$"),
    ("malformed UTF-8", b'[{"ID": "\xc3\x28"}]', None, [],
     r"^RULES:1:10: expected UTF-8 text in a string, got byte 0xc3$"),
    ("not a list", '{"ID": "x"}', None, [],
     r"^RULES:1:1: expected the list of rules `openstack security group rule list --long -f json` "
     r"prints \(an array\), got an object$"),
    ("a column missing", '[{"ID": "r1", "Direction": "ingress"}]', None, [],
     r"^RULES:1:2: rule r1: expected a key \"Ethertype\", as `openstack security group rule "
     r"list --long -f json` prints it$"),
    ("an unknown protocol", [rule("r2", "foo", "IPv4", None, "", "ingress")], None, [],
     r"^RULES:1:\d+: rule r2: unknown protocol 'foo'; Neutron takes a name"),
    ("ICMPv6 in an IPv4 rule", [rule("r3", "ipv6-icmp", "IPv4", None, "", "ingress")], None, [],
     r"^RULES:1:\d+: rule r3: protocol 'ipv6-icmp' is ICMPv6, in an IPv4 rule$"),
    ("an ICMP code", [rule("r4", "icmp", "IPv4", None, "type=3:code=1", "ingress")], None, [],
     r"^RULES:1:\d+: rule r4: 'type=3:code=1' matches an ICMP code, which tap-accel does not "
     r"match"),
    ("DCCP ports", [rule("r5", "dccp", "IPv4", None, "5000:5001", "ingress")], None, [],
     r"^RULES:1:\d+: rule r5: port range '5000:5001' of protocol 33: tap-accel matches the "
     r"ports of tcp, udp, sctp and udplite only$"),
    ("an IPv6 extension header", [rule("r6", "ipv6-frag", "IPv6", None, "", "ingress")], None, [],
     r"^RULES:1:\d+: rule r6: protocol 'ipv6-frag' is an IPv6 extension header"),
    ("a range of the other family", [rule("r7", None, "IPv6", "10.0.0.0/8", "", "ingress")],
     None, [], r"^RULES:1:\d+: rule r7: \"IP Range\" 10.0.0.0/8 is not of its ethertype IPv6$"),
    ("a remote group not given", [rule("r8", None, "IPv4", None, "", "ingress", "g1")], None, [],
     r"^RULES:1:\d+: rule r8: remote security group g1: its addresses are unknown here; give "
     r"them with --remote-group g1=PREFIX\[,PREFIX\.\.\.\]$"),
    ("a stateless group", json.dumps({"id": "g5", "stateful": False, "rules": []}), None, [],
     r"^RULES:1:26: security group g5 is stateless, and tap-accel's translation is stateful: it "
     r"would let in the replies the group needs rules for$"),
    ("too many rules", [rule(f"n{i}", "tcp", "IPv4", None, f"{i + 1}:{i + 1}", "ingress")
                        for i in range(1013)], None, [],
     r"^tap-accel: RULES rule n1012: one rule more than the 1015 a two-way policy holds"),
    ("a bad --remote-group", ok_rules(), None, ["g1=10.0.0.1,"],
     r"^tap-accel: --remote-group 'g1=10.0.0.1,': expected a prefix after the last comma"),
    ("a prefix pair", ok_rules(),
     port(allowed_address_pairs=[{"ip_address": "10.0.9.0/24", "mac_address": "fa:16:3e:4c:2d:81"}]),
     [], r"^PORT:\d+:\d+: allowed address pair 10.0.9.0/24 is a prefix: a tap's guard takes "
     r"addresses, not prefixes"),
    ("a pair with another MAC", ok_rules(),
     port(allowed_address_pairs=[{"ip_address": "10.0.9.1", "mac_address": "fa:16:3e:00:00:01"}]),
     [], r"^PORT:\d+:\d+: allowed address pair 10.0.9.1 with MAC fa:16:3e:00:00:01: a tap's "
     r"guard has one MAC"),
    ("a port without its MAC", ok_rules(), json.dumps({"fixed_ips": []}), [],
     r"^PORT:1:1: expected the port's \"mac_address\", as `openstack port show -f json` prints it$"),
    ("a loopback fixed IP", ok_rules(), port(fixed_ips=[{"ip_address": "127.0.0.1"}]), [],
     r"^PORT:1:\d+: PORT fixed_ips: .*127.0.0.1"),
]


def check_bad(t):
    for n, (what, rules, port_text, groups, want) in enumerate(BAD):
        if isinstance(rules, list):
            rules = json.dumps(rules)
        if isinstance(rules, str):
            rules = rules.encode()
        rpath = os.path.join(corpus.Env.tmp, f"bad{n}.json")
        with open(rpath, "wb") as f:
            f.write(rules)
        ppath = corpus.write(f"bad{n}-port.json", port_text) if port_text else None
        r = run(import_argv([rpath], ppath, groups))
        want = want.replace("RULES", re.escape(rpath)).replace("PORT", re.escape(ppath or ""))
        t.ok(f"{what}: exit 1, nothing printed", r.rc == 1 and r.out == "",
             f"exit {r.rc}, stdout:\n{r.out}")
        t.has(f"{what}: the error", want, r.err)
    # A file larger than the limit is refused before it is read.
    big = os.path.join(corpus.Env.tmp, "huge.json")
    with open(big, "wb") as f:
        f.truncate(17 << 20)
    r = run(import_argv([big]))
    t.ok("a huge file: exit 1, nothing printed", r.rc == 1 and r.out == "", r.out)
    t.has("a huge file: the error", rf"^{re.escape(big)}: expected a regular file of security "
          r"group rules of at most 16777216 bytes$", r.err)
    r = run(import_argv([os.path.join(corpus.Env.tmp, "absent.json")]))
    t.ok("a missing file: exit 1, nothing printed", r.rc == 1 and r.out == "", r.out)


def register(t):
    @t.part("openstack")
    def openstack():
        """The corpus, translated and judged; the outputs; bad input."""
        for name in CONFIGS:
            check_config(t, name)
        check_outputs(t)
        check_bad(t)
