# Unmodified QEMU (Debian's qemu-system-x86_64, -M none: a tap backend and
# no guest) on stock tun.ko and on tapx in tun's place (tun_compat=1):
# - the tap backend's probes (TUNGETFEATURES, TUNSETIFF, TUNSETOFFLOAD,
#   TUNSETVNETHDRSZ, ...), traced with strace, get the same answers from
#   both drivers, with and without vnet_hdr=on;
# - on tapx, QEMU runs tap-accel's qemu-ifup, the agent binds the tap it
#   names, and the frames QEMU writes into the tap (from a socket netdev on
#   the same hub) meet the agent's program: unbound drop before a binding,
#   the guard after it; what passes is counted where qemu-ifup put the tap,
#   on its bridge. qemu-ifdown and the agent clean up when QEMU ends.
# Leaves tun, tapx and the bridge modules as it found them (but not tun's
# devices ta, tb: removed to unload tun, when it was loaded).
QD=/tmp/qemu
QRUN=/tmp/qemu/run
QMAC=52:54:00:ad:00:01
QGUARD=mac=$QMAC,ip=192.0.2.51

# qemu_tap DIR TAP OPTS [VAR=VALUE...]: QEMU with a tap netdev (its -netdev
# options OPTS) joined on hub 0 to a socket netdev listening on
# 127.0.0.1:5555, daemonized once the tap is up. Exit status in $rc,
# stderr in DIR/TAP.err, pid in DIR/TAP.pid.
qemu_tap() {
	_d=$1 _t=$2 _o=$3
	shift 3
	env "$@" qemu-system-x86_64 -M none -nodefaults -display none -accel tcg \
		-netdev "tap,id=n0,ifname=$_t,$_o" -netdev socket,id=s0,listen=127.0.0.1:5555 \
		-netdev hubport,id=p0,hubid=0,netdev=n0 -netdev hubport,id=p1,hubid=0,netdev=s0 \
		-monitor none -daemonize -pidfile $_d/$_t.pid >$_d/$_t.err 2>&1
	rc=$?
}
# qemu_end DIR TAP: SIGTERM to that QEMU; 0 once it has exited (10 s at most).
qemu_end() {
	_qp=$(cat $1/$2.pid 2>/dev/null) || return 0
	kill -TERM $_qp
	for _ in $(seq 1 100); do
		kill -0 $_qp 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 $_qp
	return 1
}

# The tap's offload features, as TUNSETOFFLOAD sets them.
Q_OFFLOADS='tx-checksumming|tx-checksum-ip-generic|tx-tcp-segmentation|tx-tcp-ecn-segmentation|tx-tcp6-segmentation|tx-udp-segmentation'

# q_probe DRV: QEMU's ioctls on its tap, as strace decodes them (fds and
# addresses left out), then what they left on the tap while QEMU holds it
# (its tun_flags and offloads), into $QD/DRV.vnet (vnet_hdr=on) and
# $QD/DRV.plain.
q_probe() {
	for v in vnet plain; do
		o=script=no,downscript=no
		[ $v = vnet ] && o=$o,vnet_hdr=on
		echo quit | strace -f -qq -e trace=ioctl -o $QD/$1.$v.strace \
			qemu-system-x86_64 -M none -nodefaults -display none -accel tcg \
			-netdev "tap,id=n0,ifname=qp0,$o" -monitor stdio >$QD/$1.$v.out 2>&1
		check "qemu: QEMU on $1 ($v) exits 0" 0 $?
		sed -n -E '/ioctl\([0-9]+, TUN/{s/^[0-9]+ +//; s/ioctl\([0-9]+,/ioctl(FD,/;
			s/0x[0-9a-f]{8,}/ADDR/g; s/ +=/ =/; p}' $QD/$1.$v.strace >$QD/$1.$v
		qemu-system-x86_64 -M none -nodefaults -display none -accel tcg \
			-netdev "tap,id=n0,ifname=qp0,$o" -monitor none -daemonize -pidfile $QD/qp0.pid \
			>$QD/qp0.err 2>&1
		rc=$?
		check "qemu: QEMU on $1 ($v) starts ($(cat $QD/qp0.err))" 0 $rc
		echo "tun_flags: $(cat /sys/class/net/qp0/tun_flags 2>&1)" >>$QD/$1.$v
		ethtool -k qp0 2>&1 | grep -E "^[[:space:]]*($Q_OFFLOADS):" >>$QD/$1.$v
		runs "qemu: QEMU on $1 ($v) ends on SIGTERM" qemu_end $QD qp0
	done
}

# The frames QEMU writes: 60-byte UDP broadcasts from 192.0.2.51, two from
# the guard's MAC and one from another, each with the socket netdev's
# 4-byte length before it.
q_bytes() { for b in "$@"; do printf "\\$(printf %03o 0x$b)"; done; }
q_frame() {
	q_bytes 00 00 00 3c ff ff ff ff ff ff $1 08 00 45 00 00 2e 00 00 40 00 40 11 00 00 \
		c0 00 02 33 c0 00 02 ff 00 09 00 09 00 1a 00 00
	for _ in $(seq 1 18); do q_bytes 00; done
}
q_frames() {
	q_frame "52 54 00 ad 00 01"
	q_frame "52 54 00 ad 00 01"
	q_frame "02 00 00 00 00 66"
}
# q_send TAP: the three frames into QEMU's socket netdev; then waits (10 s
# at most) until all three have met the program and what it passed has
# reached the bridge.
q_send() {
	snap $1
	br0=$(q_bridge_rx)
	runs "qemu: frames into QEMU's socket netdev" nc 127.0.0.1 5555 <$QD/frames
	for _ in $(seq 1 100); do
		_pass=$(delta $1 xdp_pass)
		[ $((_pass + $(delta $1 xdp_drop))) -ge 3 ] && [ "$(q_stack_rx)" -ge "$_pass" ] && return
		sleep 0.1
	done
}
# The frames the bridge's port passed up: the tap is its only port.
q_bridge_rx() { cat /sys/class/net/br-q/statistics/rx_packets; }
q_stack_rx() { echo $(($(q_bridge_rx) - br0)); }
q_guard_drops() {
	tap-accel stats --prometheus $1 2>/dev/null |
		awk '/^tapaccel_guard_drops_total/ && /reason="src_mac"/ { n += $2 } END { print n + 0 }'
}
# q_says PATTERN: in the agent's log within 60 s (its start, loading and
# pinning the plane's program, is slow on the debug kernel)
q_says() {
	for _ in $(seq 1 600); do
		grep -qE -- "$1" $QD/agent.log && return 0
		sleep 0.1
	done
	bad "qemu: the agent did not say /$1/:"
	sed 's/^/    /' $QD/agent.log
	return 1
}

# q_agent: on tapx, QEMU's scripts and the agent.
q_agent() {
	mkdir -p $QD/conf/policies $QD/conf/bindings.d $QRUN
	echo "unbound drop" >$QD/conf/agent.conf
	echo "default pass" >$QD/conf/policies/web.policy
	tap-accel agent --config $QD/conf --run-dir $QRUN/bindings.d >$QD/agent.log 2>&1 &
	qa_pid=$!
	q_says '^ready$' && good
	q_bridge_mods=
	for m in llc stp bridge; do
		mod_loaded $m || { insmod /modules/$m.ko && q_bridge_mods="$m $q_bridge_mods"; }
	done
	runs "qemu: bridge br-q" ip link add br-q type bridge
	runs "qemu: bridge br-q up" ip link set br-q up
	ad=/user/adapters
	# QEMU runs its scripts with the tap's name alone: these give them $QRUN
	printf '#!/bin/sh\nexec %s --run-dir %s "$@"\n' $ad/qemu-ifup $QRUN >$QD/ifup
	printf '#!/bin/sh\nexec %s --run-dir %s "$@"\n' $ad/qemu-ifdown $QRUN >$QD/ifdown
	chmod +x $QD/ifup $QD/ifdown
	sc="script=$QD/ifup,downscript=$QD/ifdown,vnet_hdr=on"

	# No policy for the tap: no binding; the unbound default drops all.
	qemu_tap $QD qa0 "$sc" TAP_ACCEL_BRIDGE=br-q
	check "qemu: QEMU with qemu-ifup, no policy, starts ($(cat $QD/qa0.err))" 0 $rc
	runs "qemu: qemu-ifup brought qa0 up in br-q" \
		sh -c "ip link show qa0 | grep -q '[<,]UP[,>].* master br-q '"
	q_send qa0
	expect qa0 xdp_drop=3 xdp_pass=0
	check "qemu: unbound: frames the stack saw" 0 "$(q_stack_rx)"
	runs "qemu: QEMU ends on SIGTERM" qemu_end $QD qa0
	runs "qemu: qa0 went with QEMU" sh -c "! ip link show qa0 2>/dev/null"

	# A policy and guard from QEMU's environment: bound by qemu-ifup's file.
	F=$QRUN/bindings.d/10-qemu-qa1.conf
	qemu_tap $QD qa1 "$sc" TAP_ACCEL_BRIDGE=br-q TAP_ACCEL_POLICY=web \
		TAP_ACCEL_GUARD=$QGUARD
	check "qemu: QEMU with qemu-ifup and a policy starts ($(cat $QD/qa1.err))" 0 $rc
	check "qemu: qemu-ifup's binding" "bind name qa1 policy web guard $QGUARD" "$(grep '^bind' $F)"
	q_says "^bound qa1 \(host\): policy web, guard mac,ip4, by $F:3$" && good
	check "qemu: status: qa1 has policy web, guard mac,ip4" '"policy":"web" "guard":"mac,ip4"' \
		"$(tap-accel --json status | grep -o '"ifname":"qa1"[^}]*' |
			grep -o '"policy":"[^"]*"\|"guard":"[^"]*"' | tr '\n' ' ' | sed 's/ $//')"
	q_send qa1
	expect qa1 xdp_pass=2 xdp_drop=1
	check "qemu: bound: frames the stack saw (the guest's MAC)" 2 "$(q_stack_rx)"
	check "qemu: bound: the guard's src_mac drops" 1 "$(q_guard_drops qa1)"
	runs "qemu: QEMU ends on SIGTERM" qemu_end $QD qa1
	runs "qemu: qemu-ifdown removed the binding" test ! -e $F
	q_says "^unbound qa1 \(host\): (no binding matches it|deleted)$" && good

	kill $qa_pid
	wait $qa_pid
	check "qemu: the agent stops on SIGTERM" 0 $?
	check "qemu: no error in the agent's log" "" "$(grep '^error' $QD/agent.log)"
	runs "qemu: tap-accel clean --all" tap-accel clean --all
	ip link del br-q
	for m in $q_bridge_mods; do
		runs "qemu: rmmod $m" rmmod $m
	done
}

q_main() {
	rm -rf $QD
	mkdir -p $QD
	q_frames >$QD/frames
	for b in qemu-system-x86_64 strace tap-accel; do
		command -v $b >/dev/null || bad "qemu: $b is not in the VM (tests/vm/run.sh packs it)"
	done
	command -v qemu-system-x86_64 >/dev/null && command -v strace >/dev/null || return

	as_tun qemu
	q_probe tun
	as_tapx qemu
	q_probe tapx

	for v in vnet plain; do
		runs "qemu: tun.ko answered QEMU's TUNSETIFF ($v)" grep -q '^ioctl(FD, TUNSETIFF, ADDR) = 0$' $QD/tun.$v
		runs "qemu: QEMU probed the offloads on tun.ko ($v)" grep -q '^ioctl(FD, TUNSETOFFLOAD' $QD/tun.$v
		if cmp -s $QD/tun.$v $QD/tapx.$v; then
			good
		else
			bad "qemu: QEMU's ioctls ($v) differ (- tun, + tapx):"
			diff -u $QD/tun.$v $QD/tapx.$v | tail -n +3 | sed 's/^/    /'
		fi
	done
	runs "qemu: tun.ko's offloads read" grep -q 'tx-checksumming:' $QD/tun.vnet
	echo "qemu: QEMU's tap backend on both drivers (vnet_hdr=on):"
	sed 's/^/    /' $QD/tapx.vnet

	if command -v tap-accel >/dev/null; then
		q_agent
	fi
	as_before qemu
}
q_main
