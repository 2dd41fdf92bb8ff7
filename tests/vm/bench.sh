# VM measurement: stock tun.ko and tapx.ko in one boot, XDP_DROP, blocking
# and nonblocking write(), writev() and io_uring writers (nonblocking fds,
# the floor and the copy floor with the same writer), and tapx's batches of
# 64 (TAPXSUBMIT; tun then writes per frame, nonblocking, and the floor is
# one write() per frame),
# against the write()-to-/dev/null floor and the copy floor (/dev/copyfloor:
# the least a driver that copies each frame once can take per write).
# Kernel arguments (VM_APPEND) that size or narrow the run:
#   vmbenchreps=N vmbenchframes=N           tap-accel-bench --reps/--frames
#   vmbenchwriters=L vmbenchprograms=L vmbenchsizes=L   its comma lists
#   vmbenchcsv=1 prints tap-accel-bench's results.csv too (lines "csv,...")
#   vmbenchfiles=1 prints its results folder as a gzipped tar in base64
#     between "==== FILES BEGIN" and "==== FILES END" (mk/bench.sh)
#   vmnotapaccel=1 skips tap-accel-bench, vmnotapxbench=1 the tapx-bench runs
#   vmreps=N vmcount=N size the tapx-bench runs (vmreps the vhost bench's too)
#   vmtapxsizes=L the tapx-bench sizes (64,1500,9000)
#   vmnovhostbench=1 skips the guests' traffic through
#     vhost-net (tapx-vhost bench) on tun.ko and on tapx; vmvhostcells=L,
#     vmvhostsizes=L and vmvhostframes=N narrow and size it, vmvhostruns=N
#     runs every cell N times a round (1)
#   vmfwdrivers=L the firewall table's taps, one table each (tun,tapx;
#     none skips it); vmfwrules=L vmfwconns=L vmfwframes=N vmfwreps=N size
#     it, vmfwfamily=inet puts br_netfilter's inet table in place of the
#     bridge family's
. /tests/check.sh
. /tests/lib.sh
insmod /modules/tun.ko
insmod /modules/tapx.ko
insmod /modules/copyfloor.ko
# For tap-accel-bench's tc ingress and bridge cells.
for m in llc stp bridge sch_ingress cls_bpf; do
	insmod /modules/$m.ko || bad "bench: insmod $m"
done
runs "bench: /dev/net/tapx exists" test -c $X
runs "bench: /dev/net/tun exists" test -c $T
bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM

# vhost-net, tapx-vhost playing the guests (tests/vm/tapx-vhost/bench.c):
# ns per frame of guest TX with XDP_DROP, xdp_pass, no program and the
# guard (tap-accel, the guest's own addresses: every frame passes); guest
# RX of frames the host stack sends into the tap and of frames redirected
# into it from another tap; guest to guest through a Linux bridge and
# through tap-accel's forwarding. tun.ko and tapx in this boot. vhost_net
# binds to whichever module exports tun_get_socket, tun.ko or tapx_tun.ko,
# never both: each round runs tun.ko's cells, swaps tun.ko for
# tapx_tun.ko, runs tapx's, and swaps back; the minimum of the rounds per
# cell. vmvhostcells=LIST and vmvhostsizes=LIST narrow the cells
# (tapx-vhost bench --cells, --sizes), vmvhostframes=N sizes them,
# vmvhostruns=N repeats them within a round (--reps: interleaved, the
# minimum kept), for more runs than module swaps.
vhost_round() { # NODE OUT
	insmod /modules/vhost_net.ko || bad "bench: insmod vhost_net"
	tapx-vhost bench --node $1 --name bv0 --reps ${vmvhostruns:-1} --frames ${vmvhostframes:-4000} \
		--cells ${vmvhostcells:-all} --sizes ${vmvhostsizes:-all} >/tmp/vb.out ||
		bad "bench: tapx-vhost bench on $1"
	# Its failures, and what it printed about them.
	grep -v -E '^([a-z0-9]+-[a-z]+ |--- |PASS)' /tmp/vb.out
	grep -E '^[a-z0-9]+-[a-z]+ [0-9k]+ ' /tmp/vb.out >>$2
	rmmod vhost_net || bad "bench: rmmod vhost_net"
}
vhost_bench() {
	for m in vhost_iotlb vhost tap; do
		insmod /modules/$m.ko || bad "bench: insmod $m"
	done
	# tun.ko leaves only with its devices.
	for d in bt0 ta tb; do [ -e /sys/class/net/$d ] && ip link del $d; done
	: >/tmp/vb.tun
	: >/tmp/vb.tapx
	r=0
	while [ $r -lt "${vmreps:-5}" ]; do
		vhost_round $T /tmp/vb.tun
		rmmod tun || bad "bench: rmmod tun"
		insmod /modules/tapx_tun.ko || bad "bench: insmod tapx_tun"
		vhost_round $X /tmp/vb.tapx
		rmmod tapx_tun || bad "bench: rmmod tapx_tun"
		insmod /modules/tun.ko || bad "bench: insmod tun"
		r=$((r + 1))
	done
	echo "--- vhost-net: tapx-vhost bench, ns per frame, min of ${vmreps:-5} rounds;"
	echo "    64k: 64 KiB TCP GSO frames; path: vhost's TX path for the frame"
	vhost_table /tmp/vb.tun /tmp/vb.tapx
	# vmvhostraw=1: every round's figures too.
	[ -z "${vmvhostraw:-}" ] || paste /tmp/vb.tun /tmp/vb.tapx | sed 's/^/raw /'
	for m in tap vhost vhost_iotlb; do
		rmmod $m || bad "bench: rmmod $m"
	done
}
# vhost_table TUN TAPX: per cell and size the minimum of each driver's
# rounds side by side, then the guard's cost on a passing frame (guarded
# PASS less PASS with no program) for each driver. Also "vhost,..." CSV
# lines for mk/bench.sh.
# With the instruction counter (tests/vm/icount), instructions per frame
# (the kernel's on CPU 0, where guests and workers run; the minimum of
# the rounds) beside: tun-insn, tapx-insn and
# their ratio, also at the end of the CSV lines.
vhost_table() {
	printf '%-12s %-5s %-8s %9s %9s %9s' cell size path tun tapx tapx/tun
	[ -z "${vmicount:-}" ] || printf ' %10s %10s %9s' tun-insn tapx-insn tapx/tun
	echo
	awk '{ k = $1 " " $2; d = (FILENAME == ARGV[1] ? "t" : "x")
		if (!(k in seen)) { seen[k] = 1; order[++n] = k; path[k] = $3 }
		if ($4 > 0 && (!((d k) in m) || $4 < m[d k])) m[d k] = $4
		if ($5 > 0 && (!((d k) in mi) || $5 < mi[d k])) mi[d k] = $5 }
	END { for (i = 1; i <= n; i++) { k = order[i]; split(k, a, " ")
			t = m["t" k]; x = m["x" k]; ti = mi["t" k]; xi = mi["x" k]
			printf "%-12s %-5s %-8s %9d %9d %9.2f", a[1], a[2], path[k], t, x, t ? x / t : 0
			if (ti || xi)
				printf " %10.1f %10.1f %9.3f", ti, xi, ti ? xi / ti : 0
			printf "\n"
			csv = csv sprintf("vhost,%s,%s,%d,%d", a[1], a[2], t, x)
			csv = csv (ti || xi ? sprintf(",%.1f,%.1f\n", ti, xi) : "\n") }
		printf "guard cost on a passing frame (tx-guard - tx-noprog), ns:\n"
		for (i = 1; i <= n; i++) { k = order[i]; split(k, a, " ")
			if (a[1] != "tx-guard") continue
			p = "tx-noprog " a[2]
			printf "  %-5s tun %6d  tapx %6d\n", a[2], m["t" k] - m["t" p], m["x" k] - m["x" p] }
		printf "%s", csv }' "$1" "$2"
}

if [ -x /bin/tap-accel-bench ] && [ -z "${vmnotapaccel:-}" ]; then
	args=
	[ -n "${vmbenchreps:-}" ] && args="$args --reps $vmbenchreps"
	[ -n "${vmbenchframes:-}" ] && args="$args --frames $vmbenchframes"
	[ -n "${vmbenchwriters:-}" ] && args="$args --writers $vmbenchwriters"
	[ -n "${vmbenchprograms:-}" ] && args="$args --programs $vmbenchprograms"
	[ -n "${vmbenchsizes:-}" ] && args="$args --sizes $vmbenchsizes"
	echo "--- tap-accel-bench --vm$args"
	# shellcheck disable=SC2086 # word splitting wanted
	if tap-accel-bench --vm --out /tmp/bench-results $args; then
		good "bench: tap-accel-bench --vm"
	else
		bad "bench: tap-accel-bench --vm (exit $?)"
	fi
	[ -n "${vmbenchcsv:-}" ] && sed 's/^/csv,/' /tmp/bench-results/results.csv
	if [ -n "${vmbenchfiles:-}" ]; then
		echo "==== FILES BEGIN"
		tar czf - -C /tmp/bench-results . | base64
		echo "==== FILES END"
	fi
fi
# The firewall table last: its modules (br_netfilter above all) would
# weigh on the bridge cells before it. tap-accel-bench --firewall on tun.ko's
# taps, then on tapx's, in this boot: nftables in the bridge family with
# its own conntrack (nf_conntrack_bridge; vmfwfamily=inet: br_netfilter
# and an inet table). Small: the CPU is emulated. The tables go between
# "==== FIREWALL BEGIN" and "==== FIREWALL END" (mk/bench.sh).
firewall_bench() {
	drivers=${vmfwdrivers:-tun,tapx}
	[ "$drivers" != none ] || return 0
	family=${vmfwfamily:-bridge}
	for m in $(cat /modules/firewall.list); do
		[ "$family" = bridge ] && [ $m = br_netfilter ] && continue
		[ ! -f /modules/$m.ko ] || insmod /modules/$m.ko || bad "bench: insmod $m"
	done
	echo "==== FIREWALL BEGIN"
	for d in $(echo $drivers | tr , ' '); do
		echo "--- tap-accel-bench --firewall --drivers $d --nft-family $family"
		if tap-accel-bench --firewall --drivers $d --nft-family $family \
			--rules ${vmfwrules:-1,100} --conns ${vmfwconns:-1000} \
			--frames ${vmfwframes:-200} --reps ${vmfwreps:-5} --out /tmp/fw-$d \
			>/tmp/fw-$d.txt 2>/tmp/fw-$d.err; then
			good "bench: tap-accel-bench --firewall on $d"
		else
			bad "bench: tap-accel-bench --firewall on $d"
			cat /tmp/fw-$d.err
		fi
		cat /tmp/fw-$d.txt
	done
	echo "==== FIREWALL END"
}

if [ -n "${vmnotapxbench:-}" ]; then
	[ -n "${vmnovhostbench:-}" ] || vhost_bench
	firewall_bench
	finish
fi

# bench_taps N PROG: tun's bt<N> and tapx's bx<N>, PROG of xdp_basic on both
bench_taps() {
	runs "bench: create tun bt$1" tapx-dev mk $T bt$1 65521
	runs "bench: create tapx bx$1" tapx-dev mk $X bx$1 65521
	runs "bench: $2 on bt$1" xdp_attach bt$1 $2
	runs "bench: $2 on bx$1" xdp_attach bx$1 $2
	snap bx$1
}

# Instructions per frame (the QEMU plugin tests/vm/icount; the writer's
# CPU 0, with -r also the reader's CPU 1), where QEMU counts them:
# tapx-bench's last field. icount_add COL N CELL
# keeps a run's count, icount_row SIZE WRITER closes a row (the minimum of
# its runs per column), icount_table TITLE COLS RATIOS prints the rows.
# vmicountlabels=1 (tests/vm/icount-profile.sh) names each counted
# interval, "icount-interval N COL SIZE WRITER", and prints the kernel's
# and the modules' text symbols at the end (/proc/kallsyms, gzipped, in
# base64 between "==== KSYMS BEGIN" and "==== KSYMS END").
: >/tmp/icount.rows
icount_n=0
icount_add() {
	[ -n "${vmicount:-}" ] || return 0
	[ -n "${2:-}" ] || { bad "bench: tapx-bench gave no instruction count ($1)"; return 0; }
	echo "$1 $2" >>/tmp/icount.run
	icount_n=$((icount_n + 1))
	[ -z "${vmicountlabels:-}" ] || echo "icount-interval $icount_n $1 $3"
}
icount_row() {
	[ -s /tmp/icount.run ] || return 0
	awk -v s=$1 -v w=$2 '!($1 in m) || $2 < m[$1] { m[$1] = $2 }
		END { printf "%s %s", s, w; for (c in m) printf " %s=%s", c, m[c]; print "" }' \
		/tmp/icount.run >>/tmp/icount.rows
	rm -f /tmp/icount.run
}
icount_table() {
	[ -s /tmp/icount.rows ] || return 0
	echo "--- $1: instructions per frame, the minimum of the runs"
	awk -v cols="$2" -v ratios="$3" 'BEGIN { nc = split(cols, c, " "); nr = split(ratios, r, " ")
		printf "%-6s %-9s", "size", "writer"
		for (i = 1; i <= nc; i++) printf " %10s", c[i]
		for (i = 1; i <= nr; i++) printf " %10s", r[i] == "(tapx-copy)/(tun-copy)" ? "tapx-c/tun-c" : r[i]
		print "" }
	{ delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%-6s %-9s", $1, $2
		for (i = 1; i <= nc; i++) printf " %10.1f", v[c[i]]
		for (i = 1; i <= nr; i++) {
			if (r[i] == "tapx/tun") x = v["tun"] ? v["tapx"] / v["tun"] : 0
			else x = v["tun"] > v["copy"] ? (v["tapx"] - v["copy"]) / (v["tun"] - v["copy"]) : 0
			printf " %10.3f", x }
		print "" }' /tmp/icount.rows
	: >/tmp/icount.rows
}

REPS=${vmreps:-7}
COUNT=${vmcount:-20000}
echo "--- tapx-bench: ns per frame, XDP_DROP (xdp_drop of xdp_basic)"
echo "    $COUNT frames per run (9000 B: $((COUNT / 4))), $REPS interleaved runs per cell, minimum"
bench_taps 0 xdp_drop
frames=0
# The host is shared: the fastest of the runs is the least disturbed one.
best() { tr ' ' '\n' | grep . | sort -n | head -n 1; }
# copy: /dev/copyfloor, the least a driver that copies each written frame
# once can take per write(), or per frame of a TAPXSUBMIT batch
# (tests/vm/copyfloor).
printf '%-6s %-9s %8s %8s %8s %8s %9s %9s %9s\n' size writer floor copy tun tapx \
	copy/floor tun/floor tapx/floor
for size in $(echo ${vmtapxsizes:-64,1500,9000} | tr , ' '); do
	for mode in block nonblock writev uring batch64; do
		fmode=$mode tmode=$mode
		[ $mode = batch64 ] && fmode=block tmode=nonblock
		n=$COUNT
		[ $size = 9000 ] && n=$((COUNT / 4))
		fl= cf= tu= tx= bad=0
		r=0
		# Interleaved (floor, copy, tun, tapx, floor, ...) so drift hits all.
		while [ $r -lt $REPS ]; do
			set -- $(tapx-bench floor - $size $fmode $n) && fl="$fl $1" && icount_add floor $3 "$size $fmode" || bad=1
			set -- $(tapx-bench copyfloor - $size $mode $n) && cf="$cf $1" && icount_add copy $3 "$size $mode" || bad=1
			set -- $(tapx-bench $T bt0 $size $tmode $n) && tu="$tu $1" && icount_add tun $3 "$size $tmode" || bad=1
			set -- $(tapx-bench $X bx0 $size $mode $n) && tx="$tx $1" && icount_add tapx $3 "$size $mode" || bad=1
			frames=$((frames + n + n / 10))
			r=$((r + 1))
		done
		icount_row $size $mode
		[ $bad = 0 ] || bad "bench: a run of $size $mode failed"
		fl=$(echo $fl | best)
		cf=$(echo $cf | best)
		tu=$(echo $tu | best)
		tx=$(echo $tx | best)
		awk -v s=$size -v m=$mode -v f=$fl -v c=$cf -v u=$tu -v x=$tx 'BEGIN {
			printf "%-6s %-9s %8d %8d %8d %8d %9.2f %9.2f %9.2f\n", s, m, f, c, u, x, c / f, u / f, x / f }'
	done
done
icount_table "tapx-bench, XDP_DROP (the runs above)" \
	"floor copy tun tapx" "tapx/tun (tapx-copy)/(tun-copy)"
# Every frame written to tapx met the program and was dropped.
expect bx0 rx_packets=$frames xdp_drop=$frames xdp_pass=0

# XDP_TX, one nonblocking write() per frame, a reader on the other CPU
# taking the frames back (tapx-bench -r: ns, failed writes, frames the
# reader did not get, which a full queue dropped).
echo "--- tapx-bench -r: ns per frame, XDP_TX (xdp_tx of xdp_basic), nonblocking"
echo "    write(), the frames read back on the other CPU; unread: dropped, queue full"
bench_taps 1 xdp_tx
frames=0 unread=0
printf '%-6s %-9s %8s %8s %9s %11s %11s\n' size writer tun tapx tapx/tun \
	tun-unread tapx-unread
for size in $(echo ${vmtapxsizes:-64,1500,9000} | tr , ' '); do
	[ $size -le 1500 ] || continue
	tu= tx= lu=0 lx=0 bad=0
	r=0
	while [ $r -lt $REPS ]; do
		set -- $(tapx-bench -r $T bt1 $size nonblock $COUNT) &&
			tu="$tu $1" lu=$((lu + $3)) && icount_add tun $4 "$size nonblock" || bad=1
		set -- $(tapx-bench -r $X bx1 $size nonblock $COUNT) &&
			tx="$tx $1" lx=$((lx + $3)) && icount_add tapx $4 "$size nonblock" || bad=1
		frames=$((frames + COUNT + COUNT / 10))
		r=$((r + 1))
	done
	icount_row $size nonblock
	[ $bad = 0 ] || bad "bench: a reader run of $size failed"
	unread=$((unread + lx))
	tu=$(echo $tu | best)
	tx=$(echo $tx | best)
	n=$((REPS * (COUNT + COUNT / 10)))
	awk -v s=$size -v u=$tu -v x=$tx -v lu=$lu -v lx=$lx -v n=$n 'BEGIN {
		printf "%-6s %-9s %8d %8d %9.2f %10.1f%% %10.1f%%\n", s, "nonblock", u, x, x / u, 100 * lu / n, 100 * lx / n }'
done
icount_table "tapx-bench -r, XDP_TX (the runs above)" \
	"tun tapx" "tapx/tun"
# Every frame met the program and was sent back; tun.ko leaves only
# without its devices (vhost_bench swaps it out).
expect bx1 rx_packets=$frames
check "  bx1 xdp_tx + xdp_tx_errors delta" \
	$frames $(($(delta bx1 xdp_tx) + $(delta bx1 xdp_tx_errors)))
check "  bx1 frames not read: ring_full_drops delta" "$(delta bx1 ring_full_drops)" "$unread"
runs "bench: delete bt1" ip link del bt1
runs "bench: delete bx1" ip link del bx1

if [ -n "${vmicountlabels:-}" ]; then
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo "==== KSYMS BEGIN"
	awk '$2 ~ /^[tTwW]$/' /proc/kallsyms | gzip | base64
	echo "==== KSYMS END"
fi
[ -n "${vmnovhostbench:-}" ] || vhost_bench
firewall_bench
finish
