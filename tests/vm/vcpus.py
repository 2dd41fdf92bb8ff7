#!/usr/bin/python3
"""Where a stalled guest's vCPUs are: tests/vm/run.sh calls this when the
guest has printed nothing for too long (a hang that stops every CPU leaves
the guest's own watchdog no CPU to run on).

    vcpus.py MONITOR_SOCKET SYSTEM_MAP KTEXT

Asks QEMU's monitor for every vCPU's registers, a few times a second apart,
and prints each vCPU's instruction pointer with the kernel symbol it is in
(KTEXT: the guest's _text address, which KASLR moves; System.map gives the
link-time one). A vCPU at the same place in every sample is stuck there; one
in the idle loop waits for something else. Then it stops QEMU.
"""
import bisect
import re
import socket
import sys
import time

SAMPLES = 3
MODULES_START = 0xffffffffc0000000  # x86-64's module area, KASLR or not


def hmp(sock, cmd):
    """One monitor command's output (up to the next prompt)."""
    sock.sendall(cmd.encode() + b"\n")
    buf = b""
    while not buf.endswith(b"(qemu) "):
        chunk = sock.recv(65536)
        if not chunk:
            break
        buf += chunk
    text = buf.decode(errors="replace").replace("\r", "")
    return text.split("\n", 1)[1].rsplit("(qemu) ", 1)[0] if "\n" in text else ""


def load_map(path):
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                a, kind, name = line.split()[:3]
                if kind in "tTwW":
                    addrs.append(int(a, 16))
                    names.append(name)
    except (OSError, ValueError) as e:
        print(f"vcpus: no symbols ({e})")
    if "_text" not in names:
        print(f"vcpus: {path} has no symbols (Debian's kernels have theirs in "
              "linux-image-VERSION-dbg): addresses are shown as they are")
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def symbol(rip, addrs, names, shift):
    if rip >> 63 == 0:
        return "user space"
    if rip >= MODULES_START:
        return "a module's text"
    if not addrs or shift is None:
        return "(no symbols)"
    at = rip - shift
    i = bisect.bisect_right(addrs, at) - 1
    if i < 0 or at - addrs[i] > 1 << 20:
        return "outside the kernel's text"
    return f"{names[i]}+0x{at - addrs[i]:x}"


def main():
    sock_path, map_path, ktext = sys.argv[1:4]
    addrs, names = load_map(map_path)
    shift = None
    if ktext and "_text" in names:
        shift = int(ktext, 16) - addrs[names.index("_text")]
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(20)
        sock.connect(sock_path)
        hmp(sock, "")  # the banner and first prompt
    except OSError as e:
        print(f"vcpus: cannot reach QEMU's monitor at {sock_path}: {e}")
        return 1
    print("vcpus: " + " | ".join(hmp(sock, "info cpus").split("\n")).strip(" |"))
    for n in range(SAMPLES):
        regs = hmp(sock, "info registers -a")
        for cpu, rip in re.findall(r"CPU#(\d+).*?RIP=([0-9a-f]+)", regs, re.S):
            r = int(rip, 16)
            print(f"vcpus: sample {n + 1}: CPU {cpu} at {r:#x} {symbol(r, addrs, names, shift)}")
        time.sleep(1)
    hmp(sock, "quit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
