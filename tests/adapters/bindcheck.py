#!/usr/bin/python3
"""bindcheck.py [--exact] FILE...: check binding files against docs/agent.md's
grammar of bindings.d, as the test's stand-in for `tap-accel agent --check`:

    bind MATCH... policy NAME [guard PARAMS]
    MATCH: name PATTERN (required) | netns NAME | owner USER|UID | group GROUP|GID

each match once, `policy` a policy name (its {NAME}s captured by the
pattern), `guard` attach --guard's parameters (mac=MAC once, ip=ADDRESS as
inet_pton reads it; or none). --exact: every name is a literal interface
name (no pattern syntax), as the adapters write them. Prints FILE:LINE:COL:
for each error; exits 1 if there was one.
"""
import ipaddress
import re
import sys

POLICY = re.compile(r"([A-Za-z0-9_]|\{[A-Za-z_][A-Za-z0-9_]*\})([A-Za-z0-9._-]|\{[A-Za-z_][A-Za-z0-9_]*\})*\Z")
MAC = re.compile(r"[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}\Z")
GLOB = re.compile(r"[*?\[\]{}\\]")


def check_guard(params):
    if params == "none":
        return None
    macs = 0
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key == "mac" and MAC.match(value):
            macs += 1
            if macs > 1:
                return "mac= given twice"
        elif key == "ip":
            try:
                ipaddress.ip_address(value)
            except ValueError:
                return "'%s' is not an IP address" % value
        else:
            return "'%s' is not mac=MAC or ip=ADDRESS" % item
    return None


def check_line(words, exact):
    """words: (column, word) pairs of one statement. (column, error) or None."""
    if words[0][1] != "bind":
        return words[0][0], "expected 'bind', got '%s'" % words[0][1]
    seen, i, captures = set(), 1, set()
    end = words[-1][0] + len(words[-1][1])
    while i < len(words) and words[i][1] in ("name", "netns", "owner", "group"):
        col, key = words[i]
        if key in seen:
            return col, "'%s' given twice" % key
        seen.add(key)
        if i + 1 >= len(words):
            return end, "'%s' takes a value" % key
        value = words[i + 1][1]
        if key == "name":
            if exact and GLOB.search(value):
                return words[i + 1][0], "'%s' is a pattern, not an interface name" % value
            if len(value) > 15 and not GLOB.search(value):
                return words[i + 1][0], "'%s' is longer than an interface name" % value
            captures = set(re.findall(r"\{([^}]*)\}", value))
        i += 2
    if "name" not in seen:
        return words[i][0] if i < len(words) else end, "a binding needs 'name PATTERN'"
    if i >= len(words) or words[i][1] != "policy":
        return (words[i][0] if i < len(words) else end,
                "expected a match (name, netns, owner, group) or 'policy NAME'")
    if i + 1 >= len(words):
        return end, "'policy' takes a name"
    col, name = words[i + 1]
    if not POLICY.match(name) or len(name) > 63:
        return col, "'%s' is not a policy name" % name
    for c in re.findall(r"\{([^}]*)\}", name):
        if c not in captures:
            return col, "{%s} is not captured by the name pattern" % c
    i += 2
    if i < len(words) and words[i][1] == "guard":
        if i + 1 >= len(words):
            return end, "'guard' takes parameters"
        err = check_guard(words[i + 1][1])
        if err:
            return words[i + 1][0], err
        i += 2
    if i < len(words):
        return words[i][0], "unexpected '%s' after the binding" % words[i][1]
    return None


def main(argv):
    exact = "--exact" in argv
    files = [a for a in argv[1:] if a != "--exact"]
    bad = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                words = [(m.start() + 1, m.group())
                         for m in re.finditer(r"[^ \t\n]+", line.split("#", 1)[0])]
                if not words:
                    continue
                err = check_line(words, exact)
                if err:
                    print("%s:%d:%d: %s" % (path, n, err[0], err[1]))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
