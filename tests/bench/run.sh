#!/bin/sh
# Smoke test of the benchmark harness (not of speed): a tiny quick matrix,
# then check that it wrote its files and that for every cell the counters
# account for every frame written; the headline and chart of a run with
# both drivers; make bench's script end to end, with its VM comparison where
# tapx cannot load here; and that Ctrl-C in the middle leaves no process,
# tap, namespace, module or pin behind. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/user/tap-accel-bench}
FRAMES=2000
REPS=2
. tests/lib/check.sh

if [ ! -x "$BIN" ]; then
	bad "$BIN is built (run make)"
	finish
fi
if [ "$(id -u)" != 0 ]; then
	bad "the benchmark needs root (network namespace, taps, BPF): run as root"
	finish
fi

out=$(mktemp -d)
tmp=$out # check.sh's scratch
trap 'rm -rf "$out"' EXIT

runs "tap-accel-bench --help exits 0" sh -c "$BIN --help >/dev/null"
runs "tap-accel bench runs tap-accel-bench" \
	sh -c "build/user/tap-accel bench --help | grep -q '^Usage: tap-accel-bench'"
"$BIN" --frames x >/dev/null 2>&1
runs "a bad --frames is a usage error (exit 1)" test $? -eq 1

"$BIN" --quick --frames $FRAMES --reps $REPS --out "$out/r" \
	>"$out/table" 2>"$out/progress"
rc=$?
runs "bench --quick --frames $FRAMES exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 20 "$out/progress"
runs "the table is printed" grep -q 'x floor' "$out/table"
runs "progress goes to stderr" grep -q '^\[ *1/' "$out/progress"
for f in results.csv results.json table.txt headline.csv headline.txt; do
	runs "$f written" test -s "$out/r/$f"
done
runs "the headline comes first" sh -c "grep -n -m1 -e '^headline:' -e '^writer ' '$out/table' | grep -q headline:"
runs "gnuplot is installed (make deps)" sh -c "command -v gnuplot >/dev/null"
runs "chart.svg written" grep -q '<svg' "$out/r/chart.svg"
runs "chart.png written" sh -c "head -c 4 '$out/r/chart.png' | grep -q PNG"
if command -v python3 >/dev/null; then
	runs "results.json is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" \
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
runs "the floor was measured" grep -q '^none,floor,block,64,' "$csv"
runs "stock tun without a program was measured" grep -q '^tun,none,block,64,' "$csv"
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
	pass*) good "${line#pass }" ;;
	*) bad "${line#fail }" ;;
	esac
done <"$out/cells"
# Outside a QEMU guest with the instruction counter: no count, no column.
c_insns=$(col insns_per_frame)
runs "results.csv has the instruction columns" test -n "$c_insns"
runs "no instruction count outside a QEMU guest (results.csv)" \
	sh -c "tail -n +2 '$csv' | sed 's/\"[^\"]*\"//g' | cut -d, -f'$c_insns' | grep -q . && exit 1 || exit 0"
runs "no instruction column in the table outside a QEMU guest" \
	sh -c "! grep -q 'insn' '$out/table'"
"$BIN" --icount /nonexistent/port --programs none --sizes 64 --frames 100 --reps 1 \
	--out "$out/ic" >/dev/null 2>"$out/icount-err"
runs "--icount on a missing port fails (exit 2)" test $? -eq 2
runs "--icount on a missing port names it and the cause" \
	grep -q 'instruction counter on /nonexistent/port (vmicount= or --icount): No such file' "$out/icount-err"
runs "the forwarding table is printed" grep -q '^forwarding: write into tap A' "$out/table"
runs "forwarding cells read every frame back" \
	sh -c "grep -E '^tun,fwd-(redirect|bridge),' '$csv' | grep -q ',yes,'"

# The batch writers: --vm with stock tun standing in for tapx (the A/A
# setup of docs/bench.md). Stock tun has no TAPXSUBMIT, so the "tapx" cells
# of a batch group are n/a and say why; tun's cells of the group write one
# frame per nonblocking write(), the floor one write() per frame.
"$BIN" --writers batch3 >/dev/null 2>&1
runs "an unknown writer is a usage error (exit 1)" test $? -eq 1
"$BIN" --vm --tapx-dev /dev/net/tun --writers nonblock,batch8 \
	--programs xdp-drop-native,xdp-tx,fwd-redirect,fwd-bridge --sizes 64 \
	--frames 200 --reps 2 --out "$out/b" >"$out/btable" 2>"$out/bprogress"
rc=$?
runs "bench --vm --writers batch8 exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 20 "$out/bprogress"
b="$out/b/results.csv"
runs "the floor of a batch group is one write() per frame" \
	sh -c "grep -q '^none,floor,batch8,64,.*,block\$' '$b'"
for p in none xdp-drop-native fwd-redirect fwd-bridge; do
	runs "tun $p in a batch group: per-frame nonblocking writes, accounted" \
		sh -c "grep '^tun,$p,batch8,64,' '$b' | grep -q ',ok,.*,yes,nonblock\$'"
	runs "tapx $p on stock tun: n/a, no batch ABI" \
		sh -c "grep '^tapx,$p,batch8,64,' '$b' | grep -q ',n/a,\"no batch ABI'"
done
runs "programs other than drop, PASS and forwarding skip batch groups" \
	sh -c "grep -q '^tun,xdp-tx,nonblock,' '$b' && ! grep -q ',xdp-tx,batch8,' '$b'"

# Both drivers in one run (stock tun standing in for tapx again): the
# headline rows, tun beside "tapx", in the table, the JSON and the chart.
"$BIN" --drivers tun,tapx --tapx-dev /dev/net/tun --sizes 64 \
	--frames 500 --reps 1 --out "$out/h" >"$out/htable" 2>"$out/hprogress"
runs "bench --drivers tun,tapx exits 0" test $? -eq 0
for row in "XDP_DROP, blocking write()" "XDP_DROP, nonblocking write()" \
	"XDP_DROP, writev()" "XDP_DROP, io_uring" "XDP_DROP, batches of 64" \
	"XDP_TX back to the writer's tap" "XDP redirect to another tap" \
	"tap to tap: XDP vs tun's bridge" "tap to tap, batches of 64, vs bridge" \
	"PASS to the stack (UDP)" "PASS to the stack, batches of 64"; do
	runs "headline row: $row" grep -q -F "$row" "$out/htable"
done
runs "headline JSON: both drivers, tapx/tun of the nonblocking drop" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["drivers"] == ["tun", "tapx"], r["drivers"]
row = [h for h in r["headline"] if h["row"] == "xdp-drop-nonblock"][0]
assert row["tun"]["median_ns"] > 0 and row["tapx"]["median_ns"] > 0
assert row["tapx_per_tun"] > 0 and row["tun"]["x_floor"] > 0
' "$out/h/results.json"
runs "chart.dat has a tun and a tapx column" grep -q "^# row.tun.tapx" "$out/h/chart.dat"
runs "chart.svg and chart.png of both drivers" \
	sh -c "grep -q '>tapx<' '$out/h/chart.svg' && head -c 4 '$out/h/chart.png' | grep -q PNG"

# make bench's script, tiny: where tapx cannot load here, it says why in
# one line and adds the VM comparison.
BENCH_SCALE_TAPS=1,20 BENCH_FIREWALL_CONNS=1000 BENCH_FIREWALL_RULES=1 BENCH_FIREWALL_FRAMES=500 \
	BENCH_VM_FIREWALL_RULES=1,10 BENCH_VM_FIREWALL_FRAMES=50 \
	BENCH_VM_VHOST_REPS=1 BENCH_VM_VHOST_FRAMES=200 BENCH_VM_FRAMES=500 BENCH_VM_REPS=1 sh mk/bench.sh --out "$out/mb" --results "$out/results.md" -- \
	--frames 500 --reps 1 --sizes 64 >"$out/mbout" 2>"$out/mberr"
rc=$?
runs "make bench's script exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 20 "$out/mberr"
runs "it says in one line where tapx ran" \
	sh -c "grep -c -E '^(tapx not on this host: |tapx.ko built for )' '$out/mbout' | grep -qx 1"
runs "the summary ends with where the report is" \
	sh -c "tail -n 1 '$out/mbout' | grep -q '^report in .*report.txt'"
for f in report.txt results.json results.csv results.md headline.csv chart.svg chart.png; do
	runs "make bench: $f written" test -s "$out/mb/$f"
done
runs "make bench: --results FILE gets results.md" cmp "$out/mb/results.md" "$out/results.md"
runs "make bench: results.md is dated" grep -q "^| date | $(date -u +%Y-%m-%d) [0-9:]* UTC, " "$out/mb/results.md"
runs "make bench: results.md names the machine: CPU model and cores" \
	grep -q "^| machine | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | sed 's/[][\\.*^$]/\\&/g'), $(grep -c '^processor' /proc/cpuinfo) cores, " "$out/mb/results.md"
runs "make bench: results.md names the kernel" grep -q "^| kernel | Linux $(uname -r) " "$out/mb/results.md"
runs "make bench: results.md has the headline and the scale table" \
	sh -c "grep -q '^## Headline' '$out/mb/results.md' && grep -q '^## Scale' '$out/mb/results.md'"
runs "make bench: the headline first in report.txt, after where it is from" \
	sh -c "awk 'NR > 3 && NF { print; exit }' '$out/mb/report.txt' | grep -q '^headline:'"
runs "make bench: results.json has tun and tapx in the run the headline is from" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
run = r[r["headline_from"]]
assert run["drivers"] == ["tun", "tapx"], run["drivers"]
assert r["host"]["drivers"][0] == "tun"
drop = [h for h in run["headline"] if h["row"] == "xdp-drop-block"][0]
assert drop["tun"]["median_ns"] > 0 and drop["tapx"]["median_ns"] > 0
' "$out/mb/results.json"

# Where the headline came from the VM, its vhost-net rows follow.
if grep -q '"headline_from": "vm"' "$out/mb/results.json"; then
	for row in vhost-tx-drop vhost-tx-pass vhost-tx-guard vhost-tx-drop-1500 vhost-rx-1500; do
		runs "make bench: headline.csv has the vhost row $row, both drivers timed" \
			sh -c "awk -F, '\$1 == \"$row\" { ok = \$(NF - 11) > 0 && \$(NF - 9) > 0 } END { exit !ok }' '$out/mb/headline.csv'"
	done
	runs "make bench: the vhost rows in report.txt" grep -q '^vhost-net: ns per guest frame' "$out/mb/report.txt"
	# The VM's firewall table: tun.ko's taps, then tapx's, each row
	# measured in ns and, with the instruction counter, in instructions.
	vfw="$out/mb/vm/firewall.txt"
	runs "make bench: the VM firewall table in report.txt and results.md" \
		sh -c "grep -q '^==== VM firewall' '$out/mb/report.txt' && grep -q '^## VM firewall' '$out/mb/results.md'"
	runs "make bench: the VM firewall table on tun.ko's taps, then tapx's, bridge-family conntrack" \
		sh -c "grep -o '^one security group.* on [a-z ]*\$' '$vfw' | sed 's/.* on //' | tr '\n' , |
			grep -qx 'stock tun,tapx,' && test \$(grep -c 'bridge-family table with its own conntrack' '$vfw') = 2"
	# a row of the cells: four groups of three figures (the floors' and
	# the programs' times have fewer)
	cells='( +-?[0-9]+){3} \|'
	for rules in 1 10; do
		runs "make bench: VM firewall row of $rules rules measured on both drivers, ns and insns" \
			sh -c "test \$(grep -E -c '^ +$rules +1k \|($cells){4}\$' '$vfw') = 4"
	done
	runs "make bench: VM firewall, guest to guest judged at 0.5x on tun.ko's taps, 0.3x on tapx's" \
		sh -c "test \$(grep -c '^  established g2g <= 0.5x bridge+nftables ' '$vfw') = 1 &&
			test \$(grep -c '^  established g2g <= 0.3x bridge+nftables (tapx) ' '$vfw') = 1"
	runs "make bench: VM firewall, no FAIL in the guest" sh -c "! grep -q '^FAIL' '$vfw'"
fi

runs "make bench: the scale table in report.txt and in the summary" \
	sh -c "grep -q '^==== scale' '$out/mb/report.txt' && grep -q '^    20  *[0-9.]* KiB ' '$out/mbout'"
runs "make bench: results.json holds the scale rows" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [row["taps"] for row in r["scale"]["rows"]] == [1, 20]
' "$out/mb/results.json"
runs "make bench: the firewall table in report.txt, results.md and the summary" \
	sh -c "grep -q '^==== firewall' '$out/mb/report.txt' && grep -q '^## Firewall' '$out/mb/results.md' && grep -q '^    1    1k |' '$out/mbout'"
runs "make bench: the firewall table's Proxmox VE row in report.txt" \
	grep -q '^vm104    1k |  *[0-9]' "$out/mb/report.txt"
runs "make bench: results.json holds the firewall rows, the security group's and VM 104's" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [(row["rules"], row["conns"]) for row in r["firewall"]["rows"]] == [(1, 1000), (0, 1000)]
assert r["firewall"]["rows"][1]["proxmox"]["vmid"] == 104
' "$out/mb/results.json"

# The scale table: taps bound to one policy through the CLI. The
# figures are the machine's; what must hold anywhere is checked.
"$BIN" --json --scale --taps 1,50 --singles 5 --out "$out/sc" \
	>"$out/sc.json" 2>"$out/sc.err"
rc=$?
runs "bench --scale exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 5 "$out/sc.err"
runs "bench --scale: the table on stderr with --json" grep -q '^    50  *[0-9.]* KiB ' "$out/sc.err"
for f in scale.txt scale.csv scale.json scale.svg scale.png; do
	runs "bench --scale: $f written" test -s "$out/sc/$f"
done
runs "bench --scale: per tap, the plane costs kilobytes, once per host megabytes" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
one, fifty = r["rows"]
assert one["taps"] == 1 and fifty["taps"] == 50
assert r["plane"]["memlock_bytes"] > 1 << 20, r["plane"]
assert 0 <= fifty["plane"]["memlock_per_tap_bytes"] < 64 << 10, fifty["plane"]
assert set(one) == {"taps", "plane"}, sorted(one)
' "$out/sc.json"
runs "bench --scale: no design column left in scale.csv" \
	sh -c "head -n 1 '$out/sc/scale.csv' | grep -qx 'taps,memlock_per_tap_bytes,.*,unbind_all_s'"
runs "bench --scale: 5 single-tap calls timed, status and stats of 50 taps" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["rows"][1]["plane"]
assert p["singles"] == 5 and p["single_worst_ms"] >= p["single_median_ms"] > 0, p
assert p["status_s"] > 0 and p["stats_s"] > 0 and p["unbind_all_s"] > 0, p
assert p["memlock_left_after_unbind_bytes"] <= 0, p
' "$out/sc.json"
runs "bench --scale: the goals are judged" grep -q "^  1000 taps bound in <= 2 s in one call  *- *not measured" "$out/sc/scale.txt"
"$BIN" --scale --taps 100,1 >/dev/null 2>"$out/err"
runs "bench --scale: counts not ascending are a usage error (exit 1)" test $? -eq 1
runs "bench --scale: ... which says so" grep -q "ascending" "$out/err"
"$BIN" --scale --programs xdp-tx >/dev/null 2>"$out/err"
runs "bench --scale with a matrix option is a usage error" test $? -eq 1
"$BIN" --taps 1 >/dev/null 2>"$out/err"
runs "bench --taps without --scale is a usage error" grep -q "go with --scale" "$out/err"

# The firewall table: tap-accel and nftables side by side. The figures are
# the machine's; what must hold anywhere is checked: every row and cell
# measured, every frame delivered, the tables filled, sane sizes.
ctmax0=$(sysctl -n net.netfilter.nf_conntrack_max 2>/dev/null)
nft0=$(nft list tables 2>&1)
"$BIN" --json --firewall --rules 1,100 --conns 1000 --frames 2000 --reps 3 --out "$out/fw" \
	--pve tests/import/pve/104.fw >"$out/fw.json" 2>"$out/fw.err"
rc=$?
runs "bench --firewall exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 5 "$out/fw.err"
runs "bench --firewall: nft is installed (make deps)" sh -c "command -v nft >/dev/null"
runs "bench --firewall: the table on stderr with --json, a line per row" \
	sh -c "grep -q '^    1    1k |  *[0-9]' '$out/fw.err' && grep -q '^  100    1k |  *[0-9]' '$out/fw.err'"
runs "bench --firewall: the Proxmox VE VM's row, measured on both sides (no set variant)" \
	grep -q '^vm104    1k |  *[0-9][0-9]*  *[0-9][0-9]*  *- |' "$out/fw.err"
runs "bench --firewall: the ratios and the goals are printed" \
	sh -c "grep -q '^ratio tap-accel / nftables' '$out/fw.err' && grep -q '^  established g2g <= 0.5x bridge+nftables  .* \(met\|not met\)\$' '$out/fw.err'"
for f in firewall.txt firewall.csv firewall.json; do
	runs "bench --firewall: $f written" test -s "$out/fw/$f"
done
runs "bench --firewall: every cell measured, delivered, and sane" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [(row["rules"], row["conns"]) for row in r["rows"]] == [(1, 1000), (100, 1000), (0, 1000)]
# the last, VM 104 of tests/import/pve: its ruleset has no set variant
pve = r["rows"][2]["proxmox"]
assert pve["vmid"] == 104 and pve["cluster"].endswith("/cluster.fw"), pve
assert "set_ns" not in r["rows"][2]["nftables"], r["rows"][2]["nftables"]
cells = ["established_g2g", "established_g2s", "established_s2g", "new_connections"]
for row in r["rows"]:
    ta, nft = row["tap_accel"], row["nftables"]
    nft_keys = ["chain_ns"] if "proxmox" in row else ["chain_ns", "set_ns"]
    for side, keys in ((ta, ["ns"]), (nft, nft_keys)):
        assert "error" not in side, side
        # a tap write is at least ~100 ns; nothing here takes a millisecond
        for k in keys:
            for c in cells:
                assert 100 < side[k][c] < 1e6, (k, c, side[k][c])
        assert side["tracked_after_fill"] >= 1000, side
        # the new-connection cells each add theirs: 3 reps + a tenth
        assert side["tracked_at_end"] >= 1000 + 6000, side
    # the floors: a bare program, and one that keeps a table like ta_ct;
    # making two entries a connection takes the latter far longer
    for floor in ("floor_ns", "table_floor_ns"):
        assert sorted(ta[floor]) == sorted(c for c in cells if c != "established_s2g"), ta[floor]
        for c, ns in ta[floor].items():
            assert 100 < ns < 1e6, (floor, c, ns)
    assert ta["table_floor_ns"]["new_connections"] > 1.3 * ta["floor_ns"]["new_connections"], ta
    assert 64 <= ta["bytes_per_connection"] <= 1024, ta
    assert 64 <= nft["bytes_per_connection"] <= 1024, nft
    for c in ("established_g2g", "new_connections"):
        assert 0.05 < row["ratio"][c + "_chain"] < 20, (c, row["ratio"])
assert len(r["goals"]) == 5 and all(g["met"] in (True, False) for g in r["goals"]), r["goals"]
' "$out/fw.json"
runs "bench --firewall: no cell lost frames" sh -c "! grep -q 'delivered only' '$out/fw.err'"
runs "bench --firewall: VM 104's policy beside the figures, valid, without its guard" \
	sh -c "build/user/tap-accel policy check '$out/fw/vm104.policy' >/dev/null && ! grep -q '^guard' '$out/fw/vm104.policy' && grep -q '^rule pass in proto tcp src 10.20.12.0/24 dport 5432 ' '$out/fw/vm104.policy'"
runs "bench --firewall: VM 104's nftables ruleset beside them, valid, in Proxmox VE's shape" \
	sh -c "unshare -n nft -c -f '$out/fw/vm104.nft' && grep -q '^  chain group-database-in ' '$out/fw/vm104.nft' && grep -q '^    jump group-admin-in ' '$out/fw/vm104.nft' && grep -q '^  set v4-dc-office ' '$out/fw/vm104.nft'"
runs "bench --firewall: the host's conntrack limit untouched" \
	test "$(sysctl -n net.netfilter.nf_conntrack_max)" = "$ctmax0"
runs "bench --firewall: no nft table left on the host" test "$(nft list tables 2>&1)" = "$nft0"
"$BIN" --rules 1 >/dev/null 2>"$out/err"
runs "bench --rules without --firewall is a usage error" grep -q "go with --firewall" "$out/err"
mkdir -p "$out/pve-alone" && cp tests/import/pve/104.fw "$out/pve-alone/"
"$BIN" --firewall --rules 1 --pve "$out/pve-alone/104.fw" >/dev/null 2>"$out/err"
runs "bench --firewall --pve without cluster.fw beside it fails and says so" \
	sh -c "test $? -ne 0 && grep -q 'cluster.fw: No such file or directory (--pve takes DIR/VMID.fw with cluster.fw beside it)' '$out/err'"
"$BIN" --firewall --rules 1 --pve tests/import/pve/cluster.fw >/dev/null 2>"$out/err"
runs "bench --firewall --pve names a VM's file" grep -q "a VM's firewall file, DIR/VMID.fw" "$out/err"
"$BIN" --firewall --programs xdp-tx >/dev/null 2>"$out/err"
runs "bench --firewall with a matrix option is a usage error" test $? -eq 1
"$BIN" --firewall --conns 0 >/dev/null 2>"$out/err"
runs "bench --firewall: --conns 0 is a usage error that says so" grep -q "counts from 1" "$out/err"

# Ctrl-C in the middle, as a terminal sends it (to the whole session):
# nothing of the run is left. The state to compare with first.
links() { ip -o link show | awk -F': ' '{ print $2 }' | sort | tr '\n' ' '; }
pins() { find /sys/fs/bpf 2>/dev/null | sort | tr '\n' ' '; }
netns() { ip netns list 2>/dev/null | sort | tr '\n' ' '; }
links0=$(links) pins0=$(pins) netns0=$(netns)
# interrupt WHAT COND ARGS...: run mk/bench.sh ARGS in a session of its
# own, in the foreground (so that SIGINT is not ignored in it, as it would
# be in a background job of this shell), with SIGINT's default action (a
# suite started from a background job inherits it ignored, and a shell
# cannot trap a signal ignored when it started), and SIGINT the session
# once the shell condition COND holds ($sid is the session).
interrupt() {
	iwhat=$1 cond=$2 # not $desc: runs() sets it
	shift 2
	rm -f "$out/int.pid" "$out/int.alive"
	(
		i=0
		until [ -s "$out/int.pid" ] && sid=$(cat "$out/int.pid") && eval "$cond"; do
			i=$((i + 1))
			[ $i -lt 1200 ] || break
			sleep 0.1
		done
		sleep 1
		kill -0 "$sid" 2>/dev/null && touch "$out/int.alive"
		kill -INT "-$sid" # dash's kill takes no --
	) &
	killer=$!
	setsid -w env --default-signal=INT sh -c 'echo $$ >"$0"; exec sh mk/bench.sh "$@"' \
		"$out/int.pid" "$@" \
		>"$out/int.out" 2>&1
	rc=$?
	wait $killer
	sid=$(cat "$out/int.pid")
	runs "$iwhat: still running when interrupted" test -e "$out/int.alive"
	runs "$iwhat: exits 130" test $rc -eq 130
	[ $rc -eq 130 ] || tail -n 10 "$out/int.out"
	runs "$iwhat: no process of the run left" sh -c "! pgrep -s $sid -f 'tap-accel|qemu-system'"
	runs "$iwhat: no tap left" test "$(links)" = "$links0"
	runs "$iwhat: no pin left" test "$(pins)" = "$pins0"
	runs "$iwhat: no named netns left" test "$(netns)" = "$netns0"
	runs "$iwhat: no tapx module left" sh -c "! grep -q '^tapx ' /proc/modules 2>/dev/null"
}
BENCH_SCALE_TAPS=none BENCH_FIREWALL_CONNS=none
export BENCH_SCALE_TAPS BENCH_FIREWALL_CONNS
interrupt "Ctrl-C in the bench" "grep -q '^tap-accel-bench: [0-9]* cells' '$out/int.out'" \
	--no-vm --out "$out/i1" -- \
	--frames 50000 --reps 32 --sizes 64 --programs xdp-drop-native --writers block
interrupt "Ctrl-C in the VM" 'pgrep -s "$sid" -f qemu-system >/dev/null' --out "$out/i2" -- \
	--frames 500 --reps 1 --sizes 64 --programs xdp-drop-native --writers block
BENCH_SCALE_TAPS=1,1000 interrupt "Ctrl-C in the scale table" \
	"grep -q '^tap-accel-bench --scale: 1000 taps' '$out/int.out'" --no-vm --out "$out/i3" -- \
	--frames 500 --reps 1 --sizes 64 --programs xdp-drop-native --writers block
# In the firewall table, while nftables' side fills its table to 10^6
# (the host's conntrack limit raised for it): also no nft table left and
# the limit put back.
BENCH_FIREWALL_CONNS=1000000 BENCH_FIREWALL_RULES=1 interrupt "Ctrl-C in the firewall table" \
	"grep -q '^\[1/2\] 1 rules, 1000000 connections: ' '$out/int.out'" --no-vm \
	--out "$out/i4" -- --frames 500 --reps 1 --sizes 64 --programs xdp-drop-native --writers block
runs "Ctrl-C in the firewall table: the host's conntrack limit was raised for it" \
	grep -q "nf_conntrack_max $ctmax0 -> " "$out/int.out"
runs "Ctrl-C in the firewall table: ... and put back" \
	test "$(sysctl -n net.netfilter.nf_conntrack_max)" = "$ctmax0"
runs "Ctrl-C in the firewall table: no nft table left on the host" \
	test "$(nft list tables 2>&1)" = "$nft0"
finish
