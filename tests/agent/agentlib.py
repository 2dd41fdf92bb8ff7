# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""agentlib - what the agent suites (tests/agent, tests/agent-fault) share:
the agent started in a namespace with its log in a file, the log read since
a mark, waits that count as checks, and the bindings as `tap-accel --json
status` shows them."""
import os
import re
import signal
import subprocess
import time

from hostsuite import in_ns, indent, run, wait_until


class Agent:
    """`tap-accel agent` in namespace NS with the runtime folder RUN_DIR,
    its log (stderr) in TMP/agent.N.log, N counting the starts."""

    def __init__(self, t, ta_bin, ns, run_dir, tmp):
        self.t, self.ta_bin, self.ns, self.run_dir, self.tmp = t, ta_bin, ns, run_dir, tmp
        self.proc = None
        self.log = None
        self.nstart = 0
        self.mark_at = 0
        t.defer(self.kill)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def start(self, conf, env=None):
        """The agent with configuration CONF (ENV: more variables); a check:
        it says "ready" within 10 s."""
        self.nstart += 1
        self.log = os.path.join(self.tmp, "agent.%d.log" % self.nstart)
        self.mark_at = 0
        cmd = ["env"] + ["%s=%s" % kv for kv in (env or {}).items()]
        cmd += [self.ta_bin, "agent", "--config", conf, "--run-dir", self.run_dir]
        with open(self.log, "w") as logf:
            self.proc = subprocess.Popen(in_ns(self.ns, cmd), stderr=logf, stdin=subprocess.DEVNULL)
        if self.wait_log(r"^ready$", 10):
            self.t.good()
        else:
            self.t.bad("the agent (%s) did not get ready in 10 s; its log:\n%s" % (conf, indent(self.text(), 20)))

    def adopt(self, proc, log):
        """An agent started otherwise (PROC, a Popen; its log LOG) is the one
        that kill() ends."""
        self.proc, self.log, self.mark_at = proc, log, 0

    def stop(self):
        """SIGTERM; two checks: it exits 0, and says so last."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait()
        self.proc = None
        self.t.check("the agent exits 0 on SIGTERM", "0", rc)
        lines = self.text().rstrip("\n").split("\n")
        self.t.check("its last words", "stopping on SIGTERM; the taps stay bound", lines[-1])

    def kill(self):
        """SIGKILL, if it runs."""
        if self.proc:
            try:
                self.proc.kill()
                self.proc.wait()
            except OSError:
                pass
            self.proc = None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        os.kill(self.proc.pid, sig)

    # ---- its log ---------------------------------------------------------
    def text(self):
        """The whole log."""
        with open(self.log, errors="replace") as f:
            return f.read()

    def lines(self):
        return self.text().splitlines()

    def mark(self):
        """What the log says from now on is since()."""
        self.mark_at = len(self.lines())

    def since(self):
        """The log's lines since the mark, as one string."""
        return "\n".join(self.lines()[self.mark_at:])

    def grep(self, pattern):
        """The lines of the whole log matching PATTERN."""
        return [l for l in self.lines() if re.search(pattern, l)]

    def wait_log(self, pattern, timeout=5.0):
        """PATTERN (a regular expression, re.M) in the log since the mark
        within TIMEOUT s."""
        return bool(wait_until(lambda: re.search(pattern, self.since(), re.M), timeout))

    def logged(self, desc, pattern, timeout=5.0):
        """A check: the agent logs PATTERN (since the mark) within 5 s."""
        if self.wait_log(pattern, timeout):
            return self.t.good()
        return self.t.bad("%s: no line /%s/ in the agent's log since the mark; it says:\n%s"
                          % (desc, pattern, indent(self.since(), 20)))

    def until(self, desc, cond, timeout=10.0):
        """A check: COND() comes true within TIMEOUT s; the log's end shown if not."""
        if wait_until(cond, timeout):
            return self.t.good()
        tail = indent(self.text(), 15) if self.log else ""
        return self.t.bad("%s (%g s); the agent's log ends:\n%s" % (desc, timeout, tail))


class Status:
    """The bindings as `tap-accel --json status` shows them, per namespace."""

    def __init__(self, ta_bin):
        self.ta_bin = ta_bin

    def of(self, ns, *extra):
        """'tap-accel --json status' in NS (its own taps only)."""
        return run([self.ta_bin, "--json", "status"] + list(extra), netns=ns).out

    def record(self, ns, tap, text=None):
        m = re.search(r'\{"ifname":"%s"[^}]*\}' % re.escape(tap), text if text is not None else self.of(ns))
        return m.group(0) if m else ""

    def field(self, ns, tap, name, text=None):
        """'"NAME":VALUE' of TAP's binding in NS, empty if unbound."""
        m = re.search(r'"%s":("[^"]*"|[0-9]+|true|false)' % name, self.record(ns, tap, text))
        return m.group(0) if m else ""

    def policy_of(self, ns, tap):
        return self.field(ns, tap, "policy")

    def is_bound(self, ns, tap):
        return self.policy_of(ns, tap) != ""

    def is_unbound(self, ns, tap):
        return self.policy_of(ns, tap) == ""

    def has_policy(self, ns, tap, policy):
        return self.policy_of(ns, tap) == '"policy":"%s"' % policy

    def count_bound(self, ns, regex):
        """Bindings of taps named REGEX in NS, and how many of them the agent
        made: "N M"."""
        s = self.of(ns)
        n = len(re.findall(r'"ifname":"%s"' % regex, s))
        m = len(re.findall(r'"ifname":"%s"[^}]*"agent":true' % regex, s))
        return "%d %d" % (n, m)


def write_file(path, *lines):
    """Each of LINES a line, written whole (a temporary file renamed into
    place, as the adapters do)."""
    with open(path + ".tmp", "w") as f:
        f.write("".join(l + "\n" for l in lines))
    os.rename(path + ".tmp", path)


def now_ms():
    return int(time.time() * 1000)
