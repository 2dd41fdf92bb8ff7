# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""hostsuite - what every host-side Python suite shares (standard library only).

A suite is tests/NAME/suite.py, started by tests/NAME/run.sh (one line:
exec /usr/bin/python3 -B suite.py "$@"; -B: no __pycache__ in the source
tree). It looks like this:

    sys.path.insert(0, TOP + "/tests/lib/py")
    from hostsuite import Suite, Stop, run, ns_add, ...

    t = Suite("agent")

    @t.part("metrics", needs=["examples"])
    def metrics():
        r = run([TA_BIN, "stats", "vmtap0"])
        t.check("vmtap0: 100 dropped", "100", r.out.strip())

    t.main(setup)       # setup(), the parts asked for, the closing line

The vocabulary is tests/lib/check.sh's: a passing check is counted
silently, a failing one prints "FAIL: ...", a skip "SKIP: ..."; the suite
ends with "N passed, N failed" (", N skipped" when any were) and exits 1
if any failed.

Parts: `python3 tests/NAME/suite.py PART...` runs those parts (and the
parts they need, first), `--list` lists them; no argument runs them all,
in the order they were declared.

Cleanup: `t.defer(fn, *args)` runs fn at the end, latest first, also when
a check raises, on Ctrl-C (SIGINT) and on SIGTERM. Namespaces, taps in
them, helper processes and mounts are all removed this way.

The rest are small functions: run() a command and capture its output,
network namespaces and taps (ns_add, taps_add, taps_batch, ns_del, in_ns),
own_bpffs(), prepare_cli() (the CLI built and copied aside), wait_until(),
in_netns() (a function run inside a network namespace, e.g. an HTTP
client), http(), NotifyListener (systemd's side of sd_notify) and
tap_accel_objects() (what bpftool lists of tap-accel's).
"""
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import http.client as httpclient

__all__ = [
    "Suite", "Stop", "Result", "run", "ns_add", "ns_del", "taps_add", "taps_batch",
    "in_ns", "own_bpffs", "wait_until", "in_netns", "http", "NotifyListener",
    "tap_accel_objects", "indent", "prepare_cli",
]


def indent(text, lines=30):
    """The last LINES lines of TEXT, each indented by 4 spaces (for FAIL: details)."""
    return "\n".join("    " + l for l in text.rstrip("\n").split("\n")[-lines:])


class Result:
    """A finished command: rc (exit status), out (stdout), err (stderr),
    both (stdout then stderr when captured apart; the two interleaved when
    run(..., merge=True))."""

    def __init__(self, cmd, rc, out, err):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err

    @property
    def both(self):
        return self.out + self.err

    def __repr__(self):
        return "Result(%r, rc=%d)" % (self.cmd, self.rc)


def run(cmd, input=None, env=None, netns=None, timeout=120, merge=False, cwd=None, binary=False,
        stdin_file=None):
    """Run CMD (a list) and wait for it: a Result. ENV adds to (or, for a
    value None, removes from) the environment; NETNS runs it in that named
    network namespace (nsenter: the mount namespace, and so the suite's
    bpffs, stays); MERGE sends stderr to stdout (like 2>&1); INPUT is str
    (or bytes; BINARY leaves the output as bytes); STDIN_FILE, a path, is
    read instead (like < FILE; /dev/null without either). A
    command that does not finish in TIMEOUT seconds is killed and gets rc
    124, as timeout(1) gives."""
    if netns:
        cmd = in_ns(netns, cmd)
    full_env = None
    if env:
        full_env = dict(os.environ)
        for k, v in env.items():
            if v is None:
                full_env.pop(k, None)
            else:
                full_env[k] = v
    if isinstance(input, str):
        input = input.encode()
    stdin = None if input is not None else subprocess.DEVNULL
    try:
        if stdin_file:
            stdin = open(stdin_file, "rb")
        p = subprocess.run(cmd, input=input, env=full_env, cwd=cwd,
                           stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                           stdin=stdin, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or b"", e.stderr or b""
    except OSError as e:
        rc, out, err = 127, b"", ("%s: %s\n" % (e.filename or cmd[0], e.strerror)).encode()
    finally:
        if stdin_file and stdin not in (None, subprocess.DEVNULL):
            stdin.close()
    if err is None:
        err = b""
    if not binary:
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        err = err.decode(errors="replace") if isinstance(err, bytes) else err
    return Result(cmd, rc, out, err)


class _Part:
    def __init__(self, name, fn, needs):
        self.name, self.fn, self.needs = name, fn, needs


class Suite:
    """The counters, the check vocabulary, the parts and the cleanup of one
    suite. NAME is said in messages; NEEDS_ROOT makes a suite run by
    another user fail at once, saying so."""

    def __init__(self, name, needs_root=True):
        self.name = name
        self.passed = self.failed = self.skipped = 0
        self._parts = []
        self._deferred = []
        self.needs_root = needs_root

    # ---- counting -------------------------------------------------------
    def good(self):
        """Count a pass."""
        self.passed += 1
        return True

    def bad(self, msg):
        """Count a failure and say what failed (MSG may span lines)."""
        self.failed += 1
        print("FAIL: " + msg, flush=True)
        return False

    def skip(self, msg):
        """A check that cannot run here; MSG says why. Never a pass."""
        self.skipped += 1
        print("SKIP: " + msg, flush=True)

    def say(self, msg):
        """A line of progress or of a measure (never a check)."""
        print(msg, flush=True)

    def ok(self, desc, cond, detail=""):
        """COND is true; DETAIL (a string, or a function giving one, called
        on failure) follows DESC when it is not."""
        if cond:
            return self.good()
        if callable(detail):
            detail = detail()
        return self.bad(desc + (": " + detail if detail else ""))

    def check(self, desc, want, got):
        """GOT is exactly WANT (compared as strings, like check.sh's check)."""
        if str(want) == str(got):
            return self.good()
        return self.bad("%s: want '%s', got '%s'" % (desc, want, got))

    def at_least(self, desc, least, got):
        """GOT is a number >= LEAST."""
        try:
            if int(got) >= int(least):
                return self.good()
        except (TypeError, ValueError):
            pass
        return self.bad("%s: want >= %s, got '%s'" % (desc, least, got))

    def at_most(self, desc, most, got):
        """GOT is a number <= MOST."""
        try:
            if int(got) <= int(most):
                return self.good()
        except (TypeError, ValueError):
            pass
        return self.bad("%s: want <= %s, got '%s'" % (desc, most, got))

    def has(self, desc, pattern, text):
        """PATTERN (a regular expression, re.M: ^ and $ at each line) is
        found in TEXT; TEXT is shown when it is not."""
        if re.search(pattern, text, re.M):
            return self.good()
        return self.bad("%s: no /%s/ in:\n%s" % (desc, pattern, indent(text, 60)))

    def expect_exit(self, code, pattern, cmd, **kw):
        """CMD (run() with KW) exits CODE and PATTERN (a regular
        expression, re.M) is in its output, stdout and stderr together.
        The Result."""
        r = run(cmd, merge=True, **kw)
        if r.rc == code and re.search(pattern, r.out, re.M):
            self.good()
        else:
            self.bad("'%s': exit %d (want %d), output:\n%s\n    (wanted /%s/)"
                     % (" ".join(cmd), r.rc, code, indent(r.out, 60), pattern))
        return r

    def runs(self, desc, cmd, **kw):
        """CMD (run() with KW) exits 0; its output is shown when it does not."""
        r = run(cmd, merge=True, **kw)
        if r.rc == 0:
            self.good()
        else:
            self.bad("%s: '%s' exited %d, output:\n%s" % (desc, " ".join(cmd), r.rc, indent(r.out)))
        return r

    def tally(self, what, line):
        """Add a runner's closing line LINE ("N passed, N failed") to the
        counts; a runner WHAT that ended without one is a failure."""
        m = re.search(r"(\d+) passed, (\d+) failed", line or "")
        if not m:
            return self.bad("%s ended without its 'N passed, N failed' line: '%s'" % (what, line))
        self.passed += int(m.group(1))
        self.failed += int(m.group(2))
        return True

    # ---- cleanup --------------------------------------------------------
    def defer(self, fn, *args):
        """Call FN(*ARGS) when the suite ends, however it ends (latest first)."""
        self._deferred.append((fn, args))

    def _cleanup(self):
        while self._deferred:
            fn, args = self._deferred.pop()
            try:
                fn(*args)
            except Exception as e:  # cleanup goes on with the rest
                print("cleanup: %s%r: %s" % (getattr(fn, "__name__", fn), args, e), flush=True)

    # ---- parts ----------------------------------------------------------
    def part(self, name, needs=()):
        """Decorator: the function is the part NAME; NEEDS are the parts it
        builds on (run first when it is asked for alone)."""
        def add(fn):
            self._parts.append(_Part(name, fn, list(needs)))
            return fn
        return add

    def _plan(self, asked):
        by_name = {p.name: p for p in self._parts}
        want = set()

        def need(n):
            if n not in by_name:
                raise KeyError(n)
            if n not in want:
                want.add(n)
                for d in by_name[n].needs:
                    need(d)
        for n in asked:
            need(n)
        return [p for p in self._parts if p.name in want]

    def finish(self):
        """Clean up, print the closing line and exit (1 if any check failed)."""
        self._cleanup()
        line = "%d passed, %d failed" % (self.passed, self.failed)
        if self.skipped:
            line += ", %d skipped" % self.skipped
        print(line, flush=True)
        sys.exit(1 if self.failed else 0)

    def main(self, setup=None, argv=None):
        """Run the suite: SETUP() first (its failures end the suite at
        once: raise Stop after t.bad()), then the parts asked for on the
        command line (all of them without one), then finish(). --list
        prints the parts and what each needs."""
        argv = sys.argv[1:] if argv is None else argv
        if argv[:1] == ["--list"]:
            for p in self._parts:
                print(p.name + (" (after %s)" % ", ".join(p.needs) if p.needs else ""))
            sys.exit(0)
        try:
            plan = self._plan(argv) if argv else list(self._parts)
        except KeyError as e:
            print("%s: no part %s; the parts: %s" % (self.name, e, " ".join(p.name for p in self._parts)))
            self.failed += 1
            self.finish()

        def on_signal(sig, frame):
            raise KeyboardInterrupt
        # set, not inherited: a suite started in the background by a shell
        # would ignore SIGINT otherwise
        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        try:
            if self.needs_root and os.geteuid() != 0:
                self.bad("the %s suite needs root (network namespaces, taps, BPF)" % self.name)
                raise Stop
            if setup:
                setup()
            for p in plan:
                print("## part %s" % p.name, flush=True)
                p.fn()
        except Stop:
            pass
        except KeyboardInterrupt:
            self.bad("interrupted")
        except Exception:
            import traceback
            self.bad("the suite broke off:\n" + indent(traceback.format_exc(), 40))
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C leaves the cleanup be
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        self.finish()


class Stop(Exception):
    """Raised (after t.bad()) when a suite cannot go on: cleanup and the
    closing line follow."""


# ---- namespaces, taps, bpffs --------------------------------------------

def in_ns(ns, cmd):
    """CMD as run in network namespace NS. nsenter keeps the mount
    namespace: 'ip netns exec' would mount a fresh /sys and hide the bpffs."""
    return ["nsenter", "--net=/run/netns/" + ns] + list(cmd)


def ns_add(name):
    """A network namespace NAME with lo up and IPv6 off (no router
    solicitations among the frames a test counts). True if made."""
    return (run(["ip", "netns", "add", name]).rc == 0
            and run(["ip", "-n", name, "link", "set", "lo", "up"]).rc == 0
            and run(["ip", "netns", "exec", name, "sysctl", "-qw",
                     "net.ipv6.conf.all.disable_ipv6=1",
                     "net.ipv6.conf.default.disable_ipv6=1"]).rc == 0)


def ns_del(*names):
    """The namespaces NAMES gone, and their taps with them."""
    for n in names:
        run(["ip", "netns", "del", n])


def taps_add(ns, *names, user=None, group=None):
    """Taps NAMES in namespace NS, up (owned by USER and GROUP if given). True if made."""
    for t in names:
        cmd = ["ip", "-n", ns, "tuntap", "add", t, "mode", "tap"]
        if user is not None:
            cmd += ["user", str(user)]
        if group is not None:
            cmd += ["group", str(group)]
        if run(cmd).rc or run(["ip", "-n", ns, "link", "set", t, "up"]).rc:
            return False
    return True


def taps_batch(ns, lines):
    """ip -n NS -batch with LINES (e.g. "tuntap add st1 mode tap", "link
    set st1 up", "link del st1"): many taps in one go. The Result."""
    return run(["ip", "-n", ns, "-batch", "-"], input="".join(l + "\n" for l in lines))


def own_bpffs(script):
    """As a suite's first step: run SCRIPT (the suite, an absolute path)
    again in a private mount namespace and mount a bpffs of its own on
    /sys/fs/bpf, so that it neither sees nor leaves anything in the host's
    tap-accel state. OWN_BPFFS in the environment says it is done."""
    if not os.environ.get("OWN_BPFFS"):
        os.environ["OWN_BPFFS"] = "1"
        sys.stdout.flush()
        flags = ["-B"] if sys.flags.dont_write_bytecode else []
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private",
                              sys.executable] + flags + [script] + sys.argv[1:])
    subprocess.run(["mount", "-t", "bpf", "-o", "mode=0700", "bpf", "/sys/fs/bpf"], check=True)


def prepare_cli(t, top, build, tests=()):
    """The CLI built (make bpf user, where it is missing) and the test
    programs of TESTS (folders of tests/ with a Makefile, e.g. "host" for
    tapio); a scratch folder, removed at the end, with a copy of the CLI in
    it, so that a rebuild during the run does not pull the binary away.
    (scratch folder, the copy's path); t.bad() and Stop when something
    does not build."""
    cli = os.path.join(build, "user/tap-accel")
    if not os.access(cli, os.X_OK):
        run(["make", "-s", "-C", top, "bpf", "user"])
    if not os.access(cli, os.X_OK):
        t.bad("%s is not built (make bpf user)" % cli)
        raise Stop
    for d in tests:
        r = run(["make", "-s", "-C", os.path.join(top, "tests", d)], merge=True)
        if r.rc:
            t.bad("the programs of tests/%s do not build:\n%s" % (d, indent(r.out)))
            raise Stop
    tmp = tempfile.mkdtemp()
    t.defer(shutil.rmtree, tmp, True)
    shutil.copy2(cli, os.path.join(tmp, "tap-accel"))
    return tmp, os.path.join(tmp, "tap-accel")


def tap_accel_objects():
    """The ids of tap-accel's programs, maps and links the kernel holds,
    one "kind id" a line, sorted: what bpftool lists of ours."""
    import json
    rows = []
    for kind in ("prog", "map", "link"):
        r = run(["bpftool", "-j", kind, "show"])
        try:
            objs = json.loads(r.out or "[]")
        except ValueError:
            objs = []
        for o in objs:
            name = o.get("name", "")
            if name.startswith("ta_") or name.startswith("tap_accel") or "prog_id" in o:
                rows.append("%s %d" % (kind, o["id"]))
    return "\n".join(sorted(rows))


# ---- waiting -------------------------------------------------------------

def wait_until(cond, timeout=5.0, interval=0.05):
    """Call COND until it returns something true, for TIMEOUT seconds at
    most: what it returned last (false when time ran out)."""
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() >= end:
            return v
        time.sleep(interval)


# ---- inside a network namespace ----------------------------------------------

_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def in_netns(ns, fn, *args):
    """FN(*ARGS) called in network namespace NS (by a thread of its own,
    which setns(2) moves there): sockets it makes are that namespace's and
    stay so. Returns what FN returns; raises what it raises."""
    box = {}

    def body():
        try:
            fd = os.open("/run/netns/" + ns, os.O_RDONLY)
            try:
                if _libc.setns(fd, _CLONE_NEWNET) != 0:
                    e = ctypes.get_errno()
                    raise OSError(e, "setns %s: %s" % (ns, os.strerror(e)))
            finally:
                os.close(fd)
            box["v"] = fn(*args)
        except BaseException as e:
            box["e"] = e
    th = threading.Thread(target=body)
    th.start()
    th.join()
    if "e" in box:
        raise box["e"]
    return box["v"]


def http(ns, method, path, port, host="127.0.0.1", timeout=5.0):
    """An HTTP request from inside namespace NS: (status, Content-Type,
    body, milliseconds taken); raises OSError when nothing answers, or
    not in HTTP."""
    def req():
        t = time.monotonic()
        c = httpclient.HTTPConnection(host, port, timeout=timeout)
        try:
            c.request(method, path)
            r = c.getresponse()
            body = r.read().decode()
            return r.status, r.getheader("Content-Type"), body, (time.monotonic() - t) * 1000
        except httpclient.HTTPException as e:
            raise OSError("%s %s: %r" % (method, path, e))
        finally:
            c.close()
    return in_netns(ns, req)


# ---- systemd's side of sd_notify ----------------------------------------------

class NotifyListener:
    """A datagram socket at PATH (in the file system: abstract ones are the
    network namespace's) read by a thread, as systemd reads NOTIFY_SOCKET:
    each line of each datagram kept with its time (time.monotonic(), ms).
    Closed when the suite ends (T.defer)."""

    def __init__(self, t, path):
        self.path = path
        self.lines = []  # (ms, line)
        self._lock = threading.Lock()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self._stop = False
        self._th = threading.Thread(target=self._read, daemon=True)
        self._th.start()
        t.defer(self.close)

    def _read(self):
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            now = time.monotonic() * 1000
            with self._lock:
                for line in data.decode(errors="replace").split("\n"):
                    self.lines.append((now, line))

    def count(self, pattern):
        """How many lines told match PATTERN (a regular expression, whole line)."""
        with self._lock:
            return sum(1 for _, l in self.lines if re.fullmatch(pattern, l))

    def wait(self, pattern, timeout=10.0):
        """True once a line matching PATTERN (whole line) has come, within TIMEOUT s."""
        return bool(wait_until(lambda: self.count(pattern), timeout))

    def close(self):
        self._stop = True
        self.sock.close()
