# tapx in tun's place (tun_compat=1) as the host's tools see it: the same
# devices made on stock tun.ko and then on tapx, both through
# /dev/net/tun, read with iproute2 (ip tuntap show, ip -d tuntap show,
# ip -d link, ip link add type tun), with rtnetlink directly (tapx-ident
# nl), in sysfs and with ethtool -i. Every reading agrees but the version
# field, which names tapx. Runs after suite-unload (tun and tapx unloaded)
# and leaves tun and tapx as it found them (but not tun's devices ta, tb:
# removed to unload tun, when it was loaded).
ID=/tmp/ident
# iproute2's ip (busybox's applet would answer a plain "ip").
IP=/bin/ip
IDS="idtap0 idtun0 idtap1 idtun1 idtap2"

# id_make: the devices, as an operator's ip tuntap and as programs make
# them. idtap0: persistent multi-queue tap, vnet header, owner and group;
# idtun0: persistent tun; idtap1: a program's tap, one queue (up);
# idtun1: a program's multi-queue tun, three queues, one detached;
# idtap2: a program's tap with PI, vnet header, IFF_NAPI|IFF_NAPI_FRAGS.
id_make() {
	id_drv=$1
	$IP tuntap add dev idtap0 mode tap multi_queue vnet_hdr user 1000 group 100
	$IP tuntap add dev idtun0 mode tun
	id_pids=
	# One after the other: the devices' order is what ip lists.
	for h in "idtap1 0x1002 1 0" "idtun1 0x1101 3 1" "idtap2 0x4032 1 0"; do
		set -- $h
		# The shell truncates the file in the background job: the other
		# driver's "holding" must be gone before the wait reads it.
		rm -f $ID/hold.$1
		tapx-ident hold $T $1 $2 $3 $4 >$ID/hold.$1 2>&1 &
		id_pids="$id_pids $!"
		i=0
		# 20 s at most: TCG on a busy host can take seconds
		while ! grep -q holding $ID/hold.$1 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		check "ident: $id_drv holds $1" holding "$(cat $ID/hold.$1 2>&1)"
	done
	$IP link set idtap0 up
	$IP link set idtap1 up
}

# id_settle: waits (15 s at most) until the devices' operstates hold still
# for 1.5 s and every device that is up has the operstate its carrier
# gives. ip's NO-CARRIER and state come from the operstate, which
# linkwatch sets after a carrier change, up to a second later (longer on a
# busy TCG guest); the carrier itself changes at once.
id_settle() {
	_prev=
	for _ in $(seq 1 10); do
		_now=
		_late=
		for n in $IDS; do
			_o=$(cat /sys/class/net/$n/operstate)
			_now="$_now $n:$_o"
			_c=$(cat /sys/class/net/$n/carrier 2>/dev/null) || continue
			[ "$_c" = 1 ] && [ "$_o" = down ] && _late=1
			[ "$_c" = 0 ] && [ "$_o" != down ] && _late=1
		done
		[ -z "$_late" ] && [ "$_now" = "$_prev" ] && return
		_prev=$_now
		sleep 1.5
	done
	bad "ident: operstates not settled after 15 s:$_now"
}

# id_collect DRV: every reading, one file each, into $ID/DRV.
id_collect() {
	d=$ID/$1
	mkdir -p $d
	$IP tuntap show >$d/tuntap 2>&1
	# ip walks every process's fds to name those attached; one that exits
	# meanwhile makes it say "readlink: ..." (seen on the slow debug
	# kernel): not a reading of the driver's
	$IP -d tuntap show 2>&1 | grep -v '^readlink: ' |
		sed -E 's/\([0-9]+\)/(PID)/g' >$d/tuntap-d
	id_settle
	for n in $IDS; do
		# The qdisc differs on purpose (kmod/README.md): read apart.
		$IP -d link show dev $n 2>&1 |
			sed -E '1s/^[0-9]+: //; 1s/ qdisc [^ ]+ / qdisc Q /; s#link/ether [0-9a-f:]+#link/ether ADDR#' >$d/link.$n
		qdisc_of $n >$d/qdisc.$n
		tapx-ident nl $n >$d/netlink.$n 2>&1
		for a in tun_flags owner group type addr_len tx_queue_len mtu \
			flags carrier; do
			echo "$a: $(cat /sys/class/net/$n/$a 2>&1)"
		done >$d/sysfs.$n
		ls /sys/class/net/$n >$d/sysfs-files.$n
		ls /sys/class/net/$n/queues >$d/queues.$n
		# tun has no counters for ethtool -S; tapx keeps its own.
		ethtool -i $n 2>&1 | grep -vE '^(version|supports-statistics):' >$d/ethtool-i.$n
		ethtool -i $n 2>&1 | sed -n 's/^version: //p' >$d/version.$n
	done
	$IP link add idnew type tun >$d/link-add 2>&1
	echo "exit $?" >>$d/link-add
}

id_remove() {
	for p in $id_pids; do
		kill $p
		wait $p 2>/dev/null
	done
	$IP tuntap del dev idtap0 mode tap multi_queue
	$IP tuntap del dev idtun0 mode tun
	runs "ident: $1 devices gone" sh -c "! ls /sys/class/net | grep -q '^id'"
}

# id_same FILE: tun's reading and tapx's agree; the difference otherwise.
id_same() {
	if cmp -s $ID/tun/$1 $ID/tapx/$1; then
		good
	else
		bad "ident: $1 differs (- tun, + tapx):"
		diff -u $ID/tun/$1 $ID/tapx/$1 | tail -n +3 | sed 's/^/    /'
	fi
}

id_main() {
	rm -rf $ID
	mkdir -p $ID
	as_tun ident
	id_make tun
	id_collect tun
	id_remove tun
	as_tapx ident
	id_make tapx
	id_collect tapx
	id_remove tapx
	as_before ident

	# The tun side is what it should be (else both could agree on nothing).
	check "ident: tun lists five devices" 5 "$(grep -c '^id' $ID/tun/tuntap)"
	check "ident: tun idtap0 tun_flags" "tun_flags: 0x5902" "$(head -n 1 $ID/tun/sysfs.idtap0)"
	runs "ident: tun idtap0 is kind tun, a tap" grep -q "tun type tap" $ID/tun/link.idtap0
	runs "ident: tun idtap0 netlink kind tun" grep -q "^kind=tun type(1)=2" $ID/tun/netlink.idtap0
	check "ident: tun ip link add type tun" "exit 2" "$(tail -n 1 $ID/tun/link-add)"
	for f in tuntap tuntap-d link-add; do
		id_same $f
	done
	for n in $IDS; do
		for f in link netlink sysfs sysfs-files queues ethtool-i; do
			id_same $f.$n
		done
		check "ident: $n version field names tapx" "tapx $(cat /VERSION)" \
			"$(cat $ID/tapx/version.$n)"
	done
	# tun's taps that are up get the host's default qdisc (under mq for a
	# multi-queue one); tapx's have none.
	check "ident: tun idtap0's qdisc" mq "$(cat $ID/tun/qdisc.idtap0)"
	check "ident: tun idtap1's qdisc" "$(cat /proc/sys/net/core/default_qdisc)" \
		"$(cat $ID/tun/qdisc.idtap1)"
	for n in idtap0 idtap1; do
		check "ident: tapx $n's qdisc" noqueue "$(cat $ID/tapx/qdisc.$n)"
	done

}
id_main
