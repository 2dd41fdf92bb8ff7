#!/usr/bin/env python3
"""Run shell commands in a test guest over its serial console.

    console.py SOCK --ready [--timeout S]   wait until the guest's shell answers
    console.py SOCK [--timeout S] CMD...    run CMD (one shell line) in the guest,
                                            print its output, exit with its status

SOCK is the unix socket of qemu's `-chardev socket,server=on,wait=off` that
backs the guest's ttyS0 (tests/guests/init.sh serves a shell there without
echo or prompt). A command that does not finish within the timeout exits
124 with what it printed so far. Each call is one connection; qemu keeps
the console's full log in its chardev logfile.
"""
import os
import re
import socket
import sys
import time


def connect(path, deadline):
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if time.monotonic() >= deadline:
                sys.exit(f"console: cannot connect to {path}: {e}")
            time.sleep(0.2)


def read_until(s, pattern, deadline):
    """Bytes read until `pattern` matches; (match, text) or (None, text)."""
    buf = b""
    rx = re.compile(pattern)
    while True:
        m = rx.search(buf)
        if m:
            return m, buf
        left = deadline - time.monotonic()
        if left <= 0:
            return None, buf
        s.settimeout(min(left, 1.0))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            return None, buf
        buf += chunk


def drain(s):
    s.settimeout(0.05)
    try:
        while s.recv(65536):
            pass
    except (socket.timeout, BlockingIOError):
        pass


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
    deadline = time.monotonic() + timeout
    s = connect(path, deadline)
    tag = f"{os.getpid()}x{int(time.time() * 1000) % 100000000}"
    if ready:
        # The shell may not run yet: ask again every few seconds.
        while True:
            s.sendall(f"\necho @@RE\"\"ADY:{tag}\n".encode())
            m, _ = read_until(s, rf"@@READY:{tag}".encode(),
                              min(deadline, time.monotonic() + 3))
            if m:
                return 0
            if time.monotonic() >= deadline:
                sys.exit(f"console: guest at {path} did not answer in {timeout:.0f} s")
    if not args:
        sys.exit("console: no command")
    cmd = " ".join(args)
    drain(s)
    # The marker is split in the command so only its output matches.
    s.sendall(f"{cmd}\necho \"@@DO\"\"NE:{tag}:$?\"\n".encode())
    m, out = read_until(s, rf"@@DONE:{tag}:(\d+)".encode(), deadline)
    text = out[: m.start()] if m else out
    sys.stdout.write(text.decode(errors="replace").replace("\r", ""))
    sys.stdout.flush()
    if not m:
        sys.stderr.write(f"console: '{cmd}' timed out after {timeout:.0f} s\n")
        return 124
    return int(m.group(1))


if __name__ == "__main__":
    sys.exit(main())
