#!/usr/bin/env python3
"""Run shell commands in a test guest over its serial console.

    console.py BASE --ready [--timeout S]   wait until the guest's shell answers
    console.py BASE [--timeout S] CMD...    run CMD (one shell line) in the guest,
                                            print its output, exit with its status

BASE names the guest's console: qemu's `-chardev pipe,path=BASE` reads the
guest's ttyS0 input from the FIFO BASE.in, and suite.py copies BASE.out into
BASE.log (the console's full log). Commands are written to BASE.in; their
output is read from BASE.log. tests/guests/init.sh serves a shell on ttyS0
without echo or prompt. A command that does not finish within the timeout
exits 124 with what it printed so far.
"""
import os
import re
import sys
import time


class ConsoleError(Exception):
    """The guest's console cannot be written to: its qemu has gone."""


def send(base, text):
    try:
        fd = os.open(base + ".in", os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        raise ConsoleError(f"console: cannot write to {base}.in (is qemu running?): {e}") from e
    os.set_blocking(fd, True)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


# qemu's 16550 takes input only as far as its FIFO has room and may leave
# the tail of a write in the pipe until more input arrives: every command is
# followed by blank lines, and a blank line is sent every 0.2 s of waiting.
PAD = "\n" * 32


def read_until(base, log, pos, pattern, deadline):
    """Log text after pos until `pattern` matches: (match, text) or (None, text)."""
    rx = re.compile(pattern)
    buf = b""
    nudge = time.monotonic() + 0.2
    with open(log, "rb") as f:
        f.seek(pos)
        while True:
            chunk = f.read()
            if chunk:
                buf += chunk
                m = rx.search(buf)
                if m:
                    return m, buf
            elif time.monotonic() >= deadline:
                return None, buf
            else:
                time.sleep(0.05)
                if time.monotonic() >= nudge:
                    send(base, "\n")
                    nudge = time.monotonic() + 0.2


def wait_ready(path, timeout):
    """Wait until the guest's shell answers; False after timeout seconds."""
    deadline = time.monotonic() + timeout
    log = path + ".log"
    tag = f"{os.getpid()}x{int(time.time() * 1000) % 100000000}"
    # The shell may not run yet: ask again every few seconds.
    while True:
        pos = os.path.getsize(log)
        send(path, f"\necho @@RE\"\"ADY:{tag}\n{PAD}")
        m, _ = read_until(path, log, pos, rf"@@READY:{tag}".encode(),
                          min(deadline, time.monotonic() + 3))
        if m:
            return True
        if time.monotonic() >= deadline:
            return False


def run_command(path, cmd, timeout):
    """cmd (one shell line) run in the guest: (its exit status, or 124 when
    it did not finish within timeout seconds; what it printed)."""
    deadline = time.monotonic() + timeout
    log = path + ".log"
    tag = f"{os.getpid()}x{int(time.time() * 1000) % 100000000}"
    pos = os.path.getsize(log)
    # The marker is split in the command so only its output matches.
    send(path, f"{cmd}\necho \"@@DO\"\"NE:{tag}:$?\"\n{PAD}")
    m, out = read_until(path, log, pos, rf"@@DONE:{tag}:(\d+)".encode(), deadline)
    text = (out[: m.start()] if m else out).decode(errors="replace").replace("\r", "")
    # late markers of earlier commands
    text = re.sub(r"(?m)^@@(DONE|READY)\S*\n", "", text)
    if not m:
        return 124, text
    return int(m.group(1)), text


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path = args.pop(0)
    timeout = 60.0
    ready = False
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--timeout":
            timeout = float(args.pop(0))
        elif a == "--ready":
            ready = True
        elif a == "--":
            break
        else:
            sys.exit(f"console: unknown option {a}")
    try:
        if ready:
            if not wait_ready(path, timeout):
                sys.exit(f"console: guest at {path} did not answer in {timeout:.0f} s")
            return 0
        if not args:
            sys.exit("console: no command")
        cmd = " ".join(args)
        rc, text = run_command(path, cmd, timeout)
    except ConsoleError as e:
        sys.exit(str(e))
    sys.stdout.write(text)
    sys.stdout.flush()
    if rc == 124:
        sys.stderr.write(f"console: '{cmd}' timed out after {timeout:.0f} s\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
