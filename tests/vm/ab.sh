# VM A/B: this tree's tapx.ko (a, /modules/tapx.ko) against another
# revision's (b, /modules/tapx-b.ko, built by tests/vm/run.sh --ab REV) in
# one boot. Each round loads one, times tapx-bench's write paths on a tap
# with XDP_DROP and with XDP_PASS, and unloads it, a and b alternating, so
# that drift hits both; the table is the minimum of the rounds, ns per
# frame, and b/a. Kernel arguments: vmreps=N rounds (5), vmcount=N frames
# per run (20000; 9000 B: a quarter), vmtapxsizes=L (64,1500,9000),
# vmabrev=REV (named in the table).
# vmabvhost=CELLS times tapx-vhost bench's cells (tests/vm/tapx-vhost/)
# instead, at vmvhostsizes=L (64,1500) with vmvhostframes=N (8000): each
# round loads a's or b's tapx.ko and tapx_tun.ko under vhost-net, so that
# a change to the vhost-net paths is set against the revision before it
# in one boot, not against stock tun.ko across boots.
. /tests/check.sh
. /tests/lib.sh
bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM ||
	bad "ab: cannot load xdp_basic"
REPS=${vmreps:-5}

# ab_table COL1 COL3 [FIELD]: a's and b's lines "KEY1 SIZE KEY3 NS
# [INSTRUCTIONS]" of /tmp/ab.a and /tmp/ab.b as one table of FIELD (4, ns;
# 5, the instructions per frame of the QEMU plugin tests/vm/icount), the
# minimum of the rounds per cell, b/a last.
ab_table() {
	printf '%-12s %-6s %-9s %10s %10s %7s\n' $1 size $2 a b b/a
	awk -v c=${3:-4} '{ k = $1 " " $2 " " $3; v = FILENAME == "/tmp/ab.a" ? "a" : "b"
		if ($c > 0 && (!((v, k) in m) || $c < m[v, k])) m[v, k] = $c
		if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
	END { for (i = 0; i < n; i++) { k = order[i]; split(k, f, " ")
		printf "%-12s %-6s %-9s %10" (c == 4 ? "d" : ".1f") " %10" (c == 4 ? "d" : ".1f") " %7.3f\n",
			f[1], f[2], f[3], m["a", k], m["b", k],
			m["a", k] ? m["b", k] / m["a", k] : 0 } }' /tmp/ab.a /tmp/ab.b
}
# ab_icount_table COL1 COL3: the instructions' table, where QEMU counted
# them (vmicount=).
ab_icount_table() {
	[ -n "${vmicount:-}" ] || return 0
	echo "--- the same runs: instructions per frame (the cell's CPU), min of the rounds"
	ab_table $1 $2 5
}

# ab_rounds A B: REPS rounds, each A then B (commands with their arguments).
ab_rounds() {
	: >/tmp/ab.a
	: >/tmp/ab.b
	r=0
	while [ $r -lt "$REPS" ]; do
		$1
		$2
		r=$((r + 1))
	done
}

# vround NAME TAPX TAPX_TUN: one tapx-vhost bench run of the cells on
# that build; lines "CELL SIZE PATH NS" appended to /tmp/ab.NAME.
vround() {
	insmod "$2" || { bad "ab: insmod $2"; return; }
	insmod "$3" || bad "ab: insmod $3"
	insmod /modules/vhost_net.ko || bad "ab: insmod vhost_net"
	tapx-vhost bench --node $X --name ab0 --reps 1 \
		--frames ${vmvhostframes:-8000} --cells $vmabvhost \
		--sizes ${vmvhostsizes:-64,1500} >/tmp/vb.out ||
		{ bad "ab: tapx-vhost bench on $1"; sed 's/^/  vb: /' /tmp/vb.out; }
	grep -E '^[a-z0-9]+-[a-z]+ [0-9k]+ ' /tmp/vb.out >>/tmp/ab.$1
	rmmod vhost_net || bad "ab: rmmod vhost_net"
	rmmod tapx_tun || bad "ab: rmmod tapx_tun ($1)"
	rmmod tapx || bad "ab: rmmod tapx ($1)"
}
if [ -n "${vmabvhost:-}" ]; then
	if [ ! -f /modules/tapx_tun-b.ko ]; then
		bad "ab: ${vmabrev:-the other revision} built no tapx_tun.ko for vmabvhost"
		finish
		exit
	fi
	# The g2g cells' second guest sits in a bridge.
	for m in vhost_iotlb vhost tap llc stp bridge; do
		insmod /modules/$m.ko || bad "ab: insmod $m"
	done
	ab_rounds "vround a /modules/tapx.ko /modules/tapx_tun.ko" \
		"vround b /modules/tapx-b.ko /modules/tapx_tun-b.ko"
	echo "--- tapx A/B under vhost-net: a = this tree, b = ${vmabrev:-the other revision};"
	echo "    ns per frame, min of $REPS alternating rounds"
	ab_table cell path
	ab_icount_table cell path
	[ -z "${vmvhostraw:-}" ] || paste /tmp/ab.a /tmp/ab.b | sed 's/^/raw /'
	finish
	exit
fi
COUNT=${vmcount:-20000}
SIZES=$(echo ${vmtapxsizes:-64,1500,9000} | tr , ' ')
WRITERS="block nonblock writev uring batch64"

# round NAME KO: the module loaded, every cell timed once, unloaded; lines
# "PROG SIZE WRITER NS" appended to /tmp/ab.NAME. Every frame written
# must have met the program.
round() {
	name=$1 ko=$2
	insmod "$ko" || { bad "ab: insmod $ko"; return; }
	for prog in xdp_drop xdp_pass; do
		tapx-dev mk $X ab0 65521 >/dev/null && xdp_attach ab0 $prog ||
			{ bad "ab: tap ab0 with $prog on $name"; continue; }
		ip link set ab0 up
		frames=0
		for size in $SIZES; do
			n=$COUNT
			[ $size = 9000 ] && n=$((COUNT / 4))
			for w in $WRITERS; do
				if set -- $(tapx-bench $X ab0 $size $w $n); then
					echo "$prog $size $w $1 ${3:-}" >>/tmp/ab.$name
				else
					bad "ab: $name $prog $size $w"
				fi
				frames=$((frames + n + n / 10))
			done
		done
		verdict=${prog#xdp_}
		check "ab: $name $prog: rx_packets, xdp_$verdict" "$frames $frames" \
			"$(ethtool -S ab0 | awk -v v="xdp_$verdict:" '$1 == "rx_packets:" { r = $2 }
				$1 == v { x = $2 } END { print r, x }')"
		ip link del ab0
	done
	rmmod tapx || bad "ab: rmmod tapx ($name)"
}

ab_rounds "round a /modules/tapx.ko" "round b /modules/tapx-b.ko"
echo "--- tapx A/B: a = this tree, b = ${vmabrev:-the other revision}; ns per frame,"
echo "    min of $REPS alternating rounds of $COUNT frames (9000 B: $((COUNT / 4)))"
ab_table program writer
ab_icount_table program writer
finish
