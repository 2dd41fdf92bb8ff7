#!/bin/sh
# Smoke test of the benchmark harness (not of speed): a tiny quick matrix,
# then check that it wrote its files and that for every cell the counters
# account for every frame written. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/user/tap-accel}
FRAMES=2000
REPS=2
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # check "what" command...
	what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

if [ ! -x "$BIN" ]; then
	bad "$BIN is built (run make)"
	finish
fi
if [ "$(id -u)" != 0 ]; then
	bad "the benchmark needs root (network namespace, taps, BPF): run as root"
	finish
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check "bench --help exits 0" sh -c "$BIN bench --help >/dev/null"
"$BIN" bench --frames x >/dev/null 2>&1
check "a bad --frames is a usage error (exit 1)" test $? -eq 1

"$BIN" bench --quick --frames $FRAMES --reps $REPS --out "$out/r" \
	>"$out/table" 2>"$out/progress"
rc=$?
check "bench --quick --frames $FRAMES exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 20 "$out/progress"
check "the table is printed" grep -q 'x floor' "$out/table"
check "progress goes to stderr" grep -q '^\[ *1/' "$out/progress"
for f in results.csv results.json table.txt; do
	check "$f written" test -s "$out/r/$f"
done
if command -v gnuplot >/dev/null; then
	check "chart.svg written" grep -q '<svg' "$out/r/chart.svg"
fi
if command -v python3 >/dev/null; then
	check "results.json is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" \
		"$out/r/results.json"
fi

# Every cell ran or says why not; every cell that ran accounts for every
# frame it wrote (warm-up 10% + reps x frames).
csv="$out/r/results.csv"
col() { head -n 1 "$csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
c_prog=$(col program)
c_writer=$(col writer)
c_size=$(col size)
c_status=$(col status)
c_written=$(col written)
c_acc=$(col accounted)
want=$((FRAMES * REPS + FRAMES / 10))
check "the floor was measured" grep -q '^none,floor,block,64,' "$csv"
check "stock tun without a program was measured" grep -q '^tun,none,block,64,' "$csv"
tail -n +2 "$csv" | sed 's/"[^"]*"//g' | while IFS= read -r line; do
	cell=$(echo "$line" | cut -d, -f"$c_prog,$c_writer,$c_size")
	status=$(echo "$line" | cut -d, -f"$c_status")
	written=$(echo "$line" | cut -d, -f"$c_written")
	acc=$(echo "$line" | cut -d, -f"$c_acc")
	case $status in
	ok) if [ "$written" = "$want" ] && [ "$acc" = yes ]; then
		echo "pass $cell: $written frames accounted for"
	    else
		echo "fail $cell: written $written (want $want), accounted $acc"
	    fi ;;
	n/a) echo "pass $cell: n/a with a reason" ;;
	*) echo "fail $cell: status $status" ;;
	esac
done >"$out/cells"
while IFS= read -r line; do
	case $line in
	pass*) ok "${line#pass }" ;;
	*) bad "${line#fail }" ;;
	esac
done <"$out/cells"
check "the forwarding table is printed" grep -q '^forwarding: write into tap A' "$out/table"
check "forwarding cells read every frame back" \
	sh -c "grep -E '^tun,fwd-(redirect|bridge),' '$csv' | grep -q ',yes,'"

# The batch writers: --vm with stock tun standing in for tapx (the A/A
# setup of docs/bench.md). Stock tun has no TAPXSUBMIT, so the "tapx" cells
# of a batch group are n/a and say why; tun's cells of the group write one
# frame per nonblocking write(), the floor one write() per frame.
"$BIN" bench --writers batch3 >/dev/null 2>&1
check "an unknown writer is a usage error (exit 1)" test $? -eq 1
"$BIN" bench --vm --tapx-dev /dev/net/tun --writers nonblock,batch8 \
	--programs xdp-drop-native,xdp-tx,fwd-redirect,fwd-bridge --sizes 64 \
	--frames 200 --reps 2 --out "$out/b" >"$out/btable" 2>"$out/bprogress"
rc=$?
check "bench --vm --writers batch8 exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 20 "$out/bprogress"
b="$out/b/results.csv"
check "the floor of a batch group is one write() per frame" \
	sh -c "grep -q '^none,floor,batch8,64,.*,block\$' '$b'"
for p in none xdp-drop-native fwd-redirect fwd-bridge; do
	check "tun $p in a batch group: per-frame nonblocking writes, accounted" \
		sh -c "grep '^tun,$p,batch8,64,' '$b' | grep -q ',ok,.*,yes,nonblock\$'"
	check "tapx $p on stock tun: n/a, no batch ABI" \
		sh -c "grep '^tapx,$p,batch8,64,' '$b' | grep -q ',n/a,\"no batch ABI'"
done
check "programs other than drop, PASS and forwarding skip batch groups" \
	sh -c "grep -q '^tun,xdp-tx,nonblock,' '$b' && ! grep -q ',xdp-tx,batch8,' '$b'"
finish
