#!/bin/sh
# `make bench`: stock tun and tapx side by side, on any host.
#   mk/bench.sh [--full] [--no-vm] [--out DIR] [--results FILE]
#               [-- tap-accel-bench options]
# Where this kernel can load modules (root, module support, loading not
# disabled, no lockdown) and tapx.ko builds for it: tapx.ko is loaded on
# its own node, /dev/net/tapx (never tun_compat: tun's users are not
# touched), tap-accel-bench runs the matrix on both drivers in one run,
# and tapx.ko is unloaded again, also on failure or Ctrl-C. Where it
# cannot, one line says why, the host's stock tun matrix runs, then the VM
# comparison: tun.ko and tapx.ko in one boot of a Debian kernel under qemu
# (tests/vm/run.sh --bench), sized to keep `make bench` within 6 minutes
# on 2 cores.
# Then the scale table: taps bound to one policy on the host's stock tun
# (1, 100 and 1000; --full: and 4096), their kernel memory and the time to
# bind, list and count them (tap-accel-bench --scale). Then the firewall
# table: one security group enforced by tap-accel and by bridge +
# br_netfilter + nftables, side by side (tap-accel-bench --firewall); the
# VM boot runs it too, on tun.ko's taps and on tapx's, with the bridge
# family's own conntrack, in instructions per frame.
# One report, in OUT (default build/bench/<UTC stamp>/): report.txt (the
# headline, then every full matrix, then the scale and firewall tables), headline.csv,
# results.csv, results.json, results.md, chart.svg and chart.png; host/,
# vm/, scale/ and firewall/ hold each run's own files. results.md is the report for
# docs: dated, with the machine it ran on (kernel, CPU model, cores);
# --results FILE copies it there when the run succeeded (`make bench`:
# docs/results.md). The terminal gets the progress, then the headline and where the
# files are.
#   --full    the long matrix (every size; in the VM the --vm matrix)
#   --no-vm   no VM comparison where tapx cannot load here
# Environment: BUILD, BIN (tap-accel-bench; the scale table runs the
# tap-accel beside it), KDIR (this kernel's headers),
# TAPX_KO (a tapx.ko built for this kernel: used instead of building one),
# VM_KERNEL (the VM's series, mk/kernels.sh), BENCH_VM_FRAMES and
# BENCH_VM_REPS (the VM matrix's size), BENCH_VM_VHOST_REPS and
# BENCH_VM_VHOST_FRAMES (the vhost rows' rounds and frames per cell: 3,
# 4000), BENCH_SCALE_TAPS (the scale rows,
# e.g. 1,100,1000; "none" leaves the table out), BENCH_FIREWALL_CONNS (the
# firewall table's connection counts, each with every rule count, e.g.
# 1000,1000000; "none" leaves the table out), BENCH_FIREWALL_RULES (its
# rule counts, e.g. 1,1000), BENCH_FIREWALL_FRAMES (frames per
# repetition of its cells) and BENCH_FIREWALL_PVE (the Proxmox VE VM whose
# firewall makes the table's last row: tests/import/pve/104.fw; "none"
# leaves the row out); BENCH_VM_FIREWALL_RULES, _CONNS and _FRAMES
# the VM's firewall table (1,100, 1000 and 100; its _DRIVERS=none leaves
# it out).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BIN=${BIN:-$BUILD/user/tap-accel-bench}
mode=--quick
vm=1
OUT=
results=
while [ $# -gt 0 ]; do
	case $1 in
	--full) mode=--full ;;
	--quick) mode=--quick ;;
	--no-vm) vm= ;;
	--out) OUT=$2; shift ;;
	--results) results=$2; shift ;;
	--) shift; break ;;
	*) echo "bench: unknown option '$1' (mk/bench.sh [--full] [--no-vm] [--out DIR] [--results FILE] [-- tap-accel-bench options])" >&2
	   exit 1 ;;
	esac
	shift
done
stamp=$(date -u +%Y%m%d-%H%M%S)
OUT=${OUT:-$BUILD/bench/$stamp}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

say() { echo "bench: $*" >&2; }

if [ ! -x "$BIN" ]; then
	say "$BIN is not built (make)"
	exit 1
fi

# Why tapx.ko cannot be loaded into this kernel; nothing if it can.
cannot_load() {
	[ "$(id -u)" = 0 ] || { echo "not root (loading a module needs root)"; return; }
	[ -e /proc/modules ] || { echo "this kernel has no module support (CONFIG_MODULES is off)"; return; }
	[ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0)" = 0 ] ||
		{ echo "module loading is disabled (kernel.modules_disabled is 1)"; return; }
	lock=/sys/kernel/security/lockdown
	if [ -r $lock ] && ! grep -q '\[none\]' $lock; then
		echo "the kernel is locked down ($(cat $lock)): it loads signed modules only"
		return
	fi
	if grep -q '^tapx ' /proc/modules; then
		echo "tapx.ko is already loaded (rmmod tapx first; tap-accel-bench --drivers tun,tapx benches it as it is)"
		return
	fi
}

# The tapx.ko for this kernel, built if need be; on stdout, or why not on
# stderr and exit 1.
tapx_ko() {
	kver=$(uname -r)
	if [ -n "${TAPX_KO:-}" ]; then
		ko=$TAPX_KO
		[ -f "$ko" ] || { echo "TAPX_KO=$ko: no such file" >&2; return 1; }
	else
		kdir=${KDIR:-/lib/modules/$kver/build}
		[ -f "$kdir/Makefile" ] || {
			echo "no headers for $kver in $kdir (make deps installs linux-headers-$kver where Debian has them)" >&2
			return 1
		}
		kb=$BUILD/kmod-build/$kver
		make -s -C "$TOP/kmod" BUILD="$kb" KDIR="$kdir" >"$OUT/kmod-build.log" 2>&1 || {
			echo "tapx.ko does not build for $kver (${OUT#$TOP/}/kmod-build.log)" >&2
			return 1
		}
		ko=$kb/kmod/tapx.ko
	fi
	# Its vermagic, without modinfo (busybox's wants /lib/modules).
	built=$(tr '\0' '\n' <"$ko" | grep -a '^vermagic=' | head -n 1 | cut -d= -f2 | cut -d' ' -f1)
	[ "$built" = "$kver" ] || { echo "$ko is built for '$built', this kernel is $kver" >&2; return 1; }
	echo "$ko"
}

# The vhost-net rows of the headline, from the VM's "vhost,CELL,SIZE,TUN,TAPX"
# lines (tests/vm/bench.sh, the minimum of its rounds; with the instruction
# counter also ",TUN_INSNS,TAPX_INSNS"), appended to DIR's headline.txt,
# headline.csv and chart.dat.
vhost_headline() {
	[ -s "$1/vhost.csv" ] || return 0
	insns=$(awk -F, 'NF >= 7 { print "yes"; exit }' "$1/vhost.csv")
	{
		echo
		echo "vhost-net: ns per guest frame through vhost-net, tun.ko and tapx.ko swapped"
		echo "each round (minimum of the rounds; PASS with no program; the guard passes all)"
		[ -z "$insns" ] || echo "and guest instructions per frame (insn)"
		printf '%-37s %-8s %13s %13s %8s' "" "" tun tapx tapx/tun
		[ -z "$insns" ] || printf ' %10s %10s %8s' "tun insn" "tapx insn" "insn x/t"
		echo
	} >>"$1/headline.txt"
	awk -F, -v dir="$1" '
	function row(cell, size, key, label,   k, t, x, ti, xi, ir) {
		k = cell "," size
		if (!(k in tun)) return
		t = tun[k]; x = tapx[k]; ti = tuni[k]; xi = tapxi[k]
		ir = ti && xi ? xi / ti : 0
		printf "%-37s %-8s %13d %13d %8.2f", label, "vhost", t, x,
			t ? x / t : 0 >>(dir "/headline.txt")
		if (ti || xi)
			printf " %10.1f %10.1f %8.2f", ti, xi, ir >>(dir "/headline.txt")
		printf "\n" >>(dir "/headline.txt")
		printf "%s,\"%s\",vhost,%d,%s,%s,%d,,%d,,%.3f,,,,", key, label,
			size, cell, cell, t, x, t ? x / t : 0 >>(dir "/headline.csv")
		if (ti || xi)
			printf ",%.1f,%.1f,%.4f\n", ti, xi, ir >>(dir "/headline.csv")
		else
			printf ",,,\n" >>(dir "/headline.csv")
		printf "%s\t%d\t%d\n", label, t, x >>(dir "/chart.dat")
	}
	{ tun[$2 "," $3] = $4; tapx[$2 "," $3] = $5; tuni[$2 "," $3] = $6; tapxi[$2 "," $3] = $7 }
	END {
		row("tx-drop", 64, "vhost-tx-drop", "vhost: guest TX, XDP_DROP")
		row("tx-drop", 1500, "vhost-tx-drop-1500", "vhost: guest TX, XDP_DROP, 1500 B")
		row("tx-noprog", 64, "vhost-tx-pass", "vhost: guest TX, PASS")
		row("tx-noprog", 1500, "vhost-tx-pass-1500", "vhost: guest TX, PASS, 1500 B")
		row("tx-guard", 64, "vhost-tx-guard", "vhost: guest TX, PASS, guard")
		row("tx-guard", 1500, "vhost-tx-guard-1500", "vhost: guest TX, PASS, guard, 1500 B")
		row("rx-stack", 1500, "vhost-rx-1500", "vhost: guest RX, 1500 B")
	}' "$1/vhost.csv"
}

loaded=
poller=
# Leave the host as it was: tapx.ko out again (once the namespace of the
# last run is gone, its taps are), no progress poller left.
cleanup() {
	[ -n "$poller" ] && kill "$poller" 2>/dev/null
	poller=
	[ -n "$loaded" ] || return 0
	i=0
	while grep -q '^tapx ' /proc/modules; do
		rmmod tapx 2>/dev/null && break
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			say "tapx.ko would not unload: rmmod tapx"
			return 1
		fi
		sleep 0.1
	done
	loaded=
	say "tapx.ko unloaded"
}
trap cleanup EXIT
trap 'say interrupted; exit 130' INT TERM HUP

# Not in a $(...) subshell: `loaded` must stick for cleanup. Sets why if
# it fails.
load_tapx() {
	if ! insmod "$1" 2>"$OUT/insmod.log"; then
		why="insmod $1: $(cat "$OUT/insmod.log")"
		return
	fi
	loaded=1
	i=0
	while [ ! -c /dev/net/tapx ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -c /dev/net/tapx ] || why="tapx.ko loaded but /dev/net/tapx did not appear"
}

why=$(cannot_load)
if [ -z "$why" ]; then
	ko=$(tapx_ko 2>"$OUT/why") || why=$(cat "$OUT/why")
fi
if [ -z "$why" ]; then
	load_tapx "$ko"
	[ -z "$why" ] || cleanup
fi
rm -f "$OUT/why" "$OUT/insmod.log"

rc=0
if [ -z "$why" ]; then
	where="tapx.ko built for $(uname -r), loaded on /dev/net/tapx beside stock tun, unloaded after"
	say "$where"
	"$BIN" $mode --drivers tun,tapx --tapx-dev /dev/net/tapx --out "$OUT/host" "$@" \
		>"$OUT/host.txt" || rc=$?
	cleanup || rc=1
	src=host
else
	where="tapx not on this host: $why"
	say "$where"
	[ -z "$vm" ] || say "stock tun here, then tun.ko and tapx.ko in one VM boot"
	"$BIN" $mode --out "$OUT/host" "$@" >"$OUT/host.txt" || rc=$?
	src=host
fi

# The VM comparison: the headline's cells by default, the --vm matrix (and
# tests/vm/bench.sh's tapx-bench runs) with --full. The guest hands its
# results folder back on the console, as a tar in base64.
if [ -n "$why" ] && [ -n "$vm" ] && [ $rc -eq 0 ]; then
	if [ $mode = --full ]; then
		vmargs="vmbenchfiles=1"
	else
		vmargs="vmbenchfiles=1 vmnotapxbench=1 vmbenchsizes=64
vmvhostcells=tx-drop,tx-noprog,tx-guard,rx-stack vmvhostsizes=64,1500
vmreps=${BENCH_VM_VHOST_REPS:-3} vmvhostframes=${BENCH_VM_VHOST_FRAMES:-4000}
vmbenchprograms=xdp-drop-native,xdp-tx,xdp-redirect,stack-udp,fwd-redirect,fwd-bridge
vmbenchwriters=block,nonblock,writev,io_uring,batch64
vmbenchframes=${BENCH_VM_FRAMES:-20000} vmbenchreps=${BENCH_VM_REPS:-7}"
	fi
	# The firewall table, small: an emulated CPU is ~50 times slower.
	vmargs="$vmargs vmfwdrivers=${BENCH_VM_FIREWALL_DRIVERS:-tun,tapx}
vmfwrules=${BENCH_VM_FIREWALL_RULES:-1,100} vmfwconns=${BENCH_VM_FIREWALL_CONNS:-1000}
vmfwframes=${BENCH_VM_FIREWALL_FRAMES:-100} vmfwreps=3"
	vmout=$BUILD/vm-bench/${VM_KERNEL:-6.1}
	mkdir -p "$vmout" "$OUT/vm"
	rm -f "$vmout/console-bench.log"
	say "VM: building the initramfs, booting Debian's ${VM_KERNEL:-6.1} under qemu"
	# The guest's progress lines, as they reach its console.
	(
		last=
		while sleep 3; do
			[ -f "$vmout/console-bench.log" ] || continue
			l=$(tr -d '\r' <"$vmout/console-bench.log" |
				grep -a '^\[ *[0-9]*/[0-9]*\]' | tail -n 1)
			[ -n "$l" ] && [ "$l" != "$last" ] && echo "vm $l" >&2
			last=$l
		done
	) &
	poller=$!
	VM_OUT=$vmout VM_APPEND="$(echo $vmargs) ${VM_APPEND:-}" \
		sh "$TOP/tests/vm/run.sh" --bench >"$OUT/vm.log" 2>&1 || rc=$?
	kill "$poller" 2>/dev/null
	poller=
	sed -n '/^==== FILES BEGIN/,/^==== FILES END/p' "$OUT/vm.log" | sed '1d;$d' |
		base64 -d 2>/dev/null | tar xzf - -C "$OUT/vm" 2>/dev/null
	if [ -f "$OUT/vm/results.json" ]; then
		src=vm
		grep '^vhost,' "$OUT/vm.log" >"$OUT/vm/vhost.csv"
		# The vhost table as the guest printed it: with the instruction
		# counter (tests/vm/icount), instructions per frame beside ns.
		sed -n '/^--- vhost-net: tapx-vhost bench/,/^guard cost/p' "$OUT/vm.log" |
			sed '$d' >"$OUT/vm/vhost.txt"
		vhost_headline "$OUT/vm"
		# The firewall tables as the guest printed them, its kernel's
		# console lines left out.
		sed -n '/^==== FIREWALL BEGIN/,/^==== FIREWALL END/p' "$OUT/vm.log" | sed '1d;$d' |
			grep -a -v '^\[ *[0-9]*\.[0-9]*\] ' >"$OUT/vm/firewall.txt"
		# The guest has no gnuplot: its chart is drawn here.
		command -v gnuplot >/dev/null && (cd "$OUT/vm" && gnuplot chart.gp 2>/dev/null)
	else
		say "VM: no results came back (${OUT#$TOP/}/vm.log)"
		tail -n 15 "$OUT/vm.log" >&2
		[ $rc -ne 0 ] || rc=1
	fi
fi

# The scale table, on the host whatever the driver.
scale=${BENCH_SCALE_TAPS:-}
if [ "$scale" != none ]; then
	say "scale: taps bound to one policy, kernel memory and time"
	set -- --scale ${scale:+--taps "$scale"}
	[ $mode = --full ] && set -- "$@" --full
	"$BIN" "$@" --out "$OUT/scale" >"$OUT/scale.txt" || {
		say "scale: failed"
		rc=1
	}
fi

# The firewall table: one security group by tap-accel and by bridge +
# br_netfilter + nftables, on the host's stock tun; its last row the
# corpus's largest Proxmox VE VM (its groups and ipsets in cluster.fw),
# tap-accel's translation against nftables in Proxmox VE's shape.
fwconns=${BENCH_FIREWALL_CONNS:-}
fwpve=${BENCH_FIREWALL_PVE:-$TOP/tests/import/pve/104.fw}
if [ "$fwconns" != none ]; then
	say "firewall: tap-accel against bridge + br_netfilter + nftables"
	set -- --firewall ${fwconns:+--conns "$fwconns"} \
		${BENCH_FIREWALL_RULES:+--rules "$BENCH_FIREWALL_RULES"} \
		${BENCH_FIREWALL_FRAMES:+--frames "$BENCH_FIREWALL_FRAMES"}
	[ "$fwpve" = none ] || set -- "$@" --pve "$fwpve"
	[ $mode = --full ] && set -- "$@" --full
	"$BIN" "$@" --out "$OUT/firewall" >"$OUT/firewall.txt" || {
		say "firewall: failed"
		rc=1
	}
fi

# ---- the report of the run ----
case $src in
host) from="this host, $(uname -r): both drivers in one run" ;;
vm) from="the VM ($(sed -n 's/^tap-accel-bench: Linux \([^,]*\),.*/\1/p' "$OUT/vm/table.txt" | head -n 1), emulated CPU): tun.ko and tapx.ko in one boot; only ratios within the boot compare" ;;
esac
[ -z "$why" ] || [ $src = vm ] || from="this host, stock tun only (no VM comparison)"
{
	echo "tap-accel make bench, $stamp UTC, $(($(date +%s) - start)) s"
	echo "$where"
	echo "headline from $from"
	[ -f "$OUT/$src/headline.txt" ] && cat "$OUT/$src/headline.txt"
	echo
	echo "==== host: $(uname -r), stock tun$([ -n "$why" ] || echo " and tapx")"
	cat "$OUT/host/table.txt" 2>/dev/null
	if [ $src = vm ]; then
		echo "==== VM: tun.ko and tapx.ko in one boot (emulated CPU: times are not the host's)"
		cat "$OUT/vm/table.txt"
		if [ -s "$OUT/vm/vhost.txt" ]; then
			echo
			echo "==== VM: vhost-net, ns per frame (and instructions per frame)"
			cat "$OUT/vm/vhost.txt"
		fi
	fi
	if [ -s "$OUT/scale.txt" ]; then
		echo
		echo "==== scale: taps bound to one policy on this host's stock tun"
		cat "$OUT/scale.txt"
	fi
	if [ -s "$OUT/firewall.txt" ]; then
		echo
		echo "==== firewall: tap-accel against bridge + br_netfilter + nftables, stock tun"
		cat "$OUT/firewall.txt"
	fi
	if [ $src = vm ] && [ -s "$OUT/vm/firewall.txt" ]; then
		echo
		echo "==== VM firewall: tap-accel against bridge + nftables, tun.ko's taps then tapx's in one boot"
		echo "(emulated CPU: instructions per frame are the figures; ns compare only within the boot)"
		cat "$OUT/vm/firewall.txt"
	fi
} >"$OUT/report.txt"
# results.md: the same figures for docs/, with the date and the machine.
fence() { # TITLE FILE: a section of results.md, FILE as it is
	[ -s "$2" ] || return 0
	printf '\n## %s\n\n```text\n' "$1"
	sed '/./,$!d' "$2"
	printf '```\n'
}
{
	echo "# Benchmark results"
	echo
	echo "Written by \`make bench\` (mk/bench.sh) from the report of its run; run it"
	echo "again to replace them. [bench.md](bench.md) says what the cells measure and"
	echo "how to read them. Figures are this machine's: compare ratios, not"
	echo "nanoseconds, with another's."
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| date | $(date -u -d "@$start" '+%Y-%m-%d %H:%M') UTC, $(($(date +%s) - start)) s, \`make bench$([ $mode = --full ] && echo " FULL=1")\` |"
	echo "| machine | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(grep -c '^processor' /proc/cpuinfo) cores, $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) |"
	echo "| kernel | Linux $(uname -r) ($(uname -v)) |"
	echo "| load average | $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (a busy host widens the spreads) |"
	echo "| tree | $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo "not a git checkout"), tap-accel $(cat "$TOP/VERSION") |"
	echo "| tapx | $where |"
	echo "| headline from | $from |"
	fence "Headline" "$OUT/$src/headline.txt"
	fence "Host: $(uname -r), stock tun$([ -n "$why" ] || echo " and tapx")" "$OUT/host/table.txt"
	[ $src = vm ] && fence "VM: tun.ko and tapx.ko in one boot (emulated CPU)" "$OUT/vm/table.txt"
	fence "Scale: taps bound to one policy on this host's stock tun" "$OUT/scale.txt"
	fence "Firewall: tap-accel against bridge + br_netfilter + nftables" "$OUT/firewall.txt"
	[ $src = vm ] && fence "VM firewall: tap-accel against bridge + nftables, tun.ko's taps then tapx's (emulated CPU: instructions per frame)" "$OUT/vm/firewall.txt"
} >"$OUT/results.md"
if [ -n "$results" ]; then
	if [ $rc -eq 0 ]; then
		cp "$OUT/results.md" "$results"
	else
		say "not written to $results: the run failed"
	fi
fi
for f in headline.csv headline.txt chart.gp chart.dat chart.svg chart.png; do
	[ -f "$OUT/$src/$f" ] && cp "$OUT/$src/$f" "$OUT/$f"
done
# Every cell of every run, with where it ran.
for w in host vm; do
	[ -f "$OUT/$w/results.csv" ] || continue
	awk -v w=$w 'NR == 1 { if (!h) print "where," $0; next } { print w "," $0 }' \
		h=$([ $w = host ] && echo 0 || echo 1) "$OUT/$w/results.csv"
done >"$OUT/results.csv"
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
{
	printf '{\n"stamp": "%s",\n"tapx_on_host": ' "$stamp"
	if [ -z "$why" ]; then printf 'true'; else printf 'false,\n"why": "%s"' "$(esc "$why")"; fi
	printf ',\n"headline_from": "%s",\n"host": ' $src
	if [ -s "$OUT/host/results.json" ]; then cat "$OUT/host/results.json"; else printf 'null'; fi
	printf ',\n"vm": '
	if [ -s "$OUT/vm/results.json" ]; then cat "$OUT/vm/results.json"; else printf 'null'; fi
	printf ',\n"scale": '
	if [ -s "$OUT/scale/scale.json" ]; then cat "$OUT/scale/scale.json"; else printf 'null'; fi
	printf ',\n"firewall": '
	if [ -s "$OUT/firewall/firewall.json" ]; then cat "$OUT/firewall/firewall.json"; else printf 'null'; fi
	printf '}\n'
} >"$OUT/results.json"

# The quiet summary: the headline and where everything is.
echo
echo "$where"
echo "headline from $from"
[ -f "$OUT/headline.txt" ] && cat "$OUT/headline.txt"
echo
if [ -s "$OUT/scale.txt" ]; then
	cat "$OUT/scale.txt"
	echo
fi
if [ -s "$OUT/firewall.txt" ]; then
	cat "$OUT/firewall.txt"
	echo
fi
charts=
[ -f "$OUT/chart.png" ] && charts=", chart.svg, chart.png"
[ -f "$OUT/scale/scale.png" ] && charts="$charts, scale/scale.svg"
echo "report in ${OUT#$TOP/}/: report.txt (headline, then every full matrix), results.md, results.json, results.csv, headline.csv$charts$([ -n "$results" ] && [ $rc -eq 0 ] && echo "; figures in ${results#$TOP/}"); $(($(date +%s) - start)) s"
[ $rc -eq 0 ] || say "something failed (exit $rc): see ${OUT#$TOP/}/"
exit $rc
