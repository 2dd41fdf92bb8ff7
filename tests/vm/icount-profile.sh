#!/bin/sh
# Where a tapx-bench cell's instructions go, per kernel symbol: the VM
# bench's 64 B cells in one boot with the instruction counter's per-block
# profile (tests/vm/icount, VM_ICOUNT_PROFILE), each block's instructions
# times its executions summed per symbol of the guest's /proc/kallsyms.
# Instructions per frame, every vCPU, one run of 20000 frames a cell.
#   tests/vm/icount-profile.sh [CELL...]   CELL: COLUMN:SIZE:WRITER of
#       tests/vm/bench.sh's table (floor, copy, tun, tapx; 64 or 1500;
#       block, nonblock, writev, uring, batch64); default tapx:64:nonblock
#       tun:64:nonblock copy:64:nonblock
# Environment: VM_KERNEL (mk/kernels.sh), LINES (symbols per cell, 30), VM_APPEND (more
# kernel arguments, e.g. vmtapxsizes=64,1500 for the 1500 B cells).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
eval "$(sh "$TOP/mk/kernels.sh" "${VM_KERNEL:-6.1}")"
OUT=$BUILD/vm-icount-profile/$KVER
mkdir -p "$OUT"
rm -f "$OUT/blocks.txt"
[ $# -gt 0 ] || set -- tapx:64:nonblock tun:64:nonblock copy:64:nonblock
echo "icount-profile: booting $KVER, log in ${OUT#$TOP/}/bench.log" >&2
VM_OUT=$OUT VM_ICOUNT=1 VM_ICOUNT_PROFILE=$OUT/blocks.txt \
	VM_APPEND="vmnotapaccel=1 vmnovhostbench=1 vmtapxsizes=64 vmreps=1 vmcount=20000 vmicountlabels=1 ${VM_APPEND:-}" \
	sh "$HERE/run.sh" --bench >"$OUT/bench.log" 2>&1 ||
	{ tail -n 20 "$OUT/bench.log" >&2; echo "icount-profile: the boot failed" >&2; exit 1; }
log=$OUT/console-bench.log.txt
# Text symbols, "ADDR 0 NAME" (sorting before a block at the same address).
sed -n '/^==== KSYMS BEGIN/,/^==== KSYMS END/p' "$log" | sed '1d;$d' | base64 -d | gunzip |
	awk '{ print $1, 0, $3 $4 }' >"$OUT/syms.txt" ||
	{ echo "icount-profile: no symbols from the guest (${log#$TOP/})" >&2; exit 1; }
for cell in "$@"; do
	n=$(echo "$cell" | tr : ' ' | awk -v lf="$log" '{ c = $1; s = $2; w = $3 }
		END { while ((getline l < lf) > 0) { split(l, f, " ")
			if (f[1] == "icount-interval" && f[3] == c && f[4] == s && f[5] == w) { print f[2]; exit } } }')
	[ -n "$n" ] || { echo "icount-profile: no interval for $cell in the boot (${log#$TOP/})" >&2; continue; }
	frames=20000
	echo "--- $cell: kernel instructions per frame by symbol (interval $n), top ${LINES:-30}"
	awk -v n="$n" '$1 == "interval" { on = $2 == n; next } on { print $1, 1, $2 * $3 }' "$OUT/blocks.txt" |
		cat - "$OUT/syms.txt" | LC_ALL=C sort -k1,1 -k2,2n |
		awk -v frames=$frames '$2 == 0 { sym = $3; next } { w[sym ? sym : "?"] += $3; all += $3 }
			END { for (s in w) printf "%12.1f %5.1f%%  %s\n", w[s] / frames, 100 * w[s] / all, s
				printf "%12.1f %5.1f%%  (all kernel)\n", all / frames, 100 }' |
		sort -k1,1nr | head -n $((${LINES:-30} + 1))
done
