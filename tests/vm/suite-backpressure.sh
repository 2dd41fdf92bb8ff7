# IFF_BACKPRESSURE (tun from 7.3 on), on tun.ko and tapx in one boot: a tap
# made with the flag, whose reader falls behind, stops its tx queue when
# the reader's ring is full instead of dropping, so that a qdisc holds what
# the stack sends meanwhile and the reader gets every frame (tapx-ident bp
# sends BN frames before it reads any). Without the flag, or without a
# qdisc that queues (noqueue, a tapx tap's default), a full ring drops, as
# before. Where the kernel's tun has no IFF_BACKPRESSURE neither driver
# offers it, TUNSETIFF ignores the bit, and the ring drops.
BN=3000
BP=0x80
# bp_get KEY: one key=value of the last tapx-ident bp line
bp_get() { echo "$bp_out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
tx_dropped() { cat /sys/class/net/"$1"/statistics/tx_dropped; }
# bp_backlog DEV: the frames DEV's qdiscs hold
bp_backlog() {
	/bin/tc -s qdisc show dev "$1" | sed -n 's/.*backlog [^ ]* \([0-9]*\)p.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}
bp_clean() { for _d in bpt bpx; do ip link del $_d 2>/dev/null; done; }
# bp_mk NODE NAME: NAME made persistent, without IPv6: no router
# solicitation or report of its own takes a place in the reader's ring.
bp_mk() {
	runs "$2: create" tapx-dev mk $1 $2 || return
	echo 1 >/proc/sys/net/ipv6/conf/$2/disable_ipv6
}

# bp_run NODE NAME FLAGS QDISC: NAME made persistent and up, QDISC (tc's
# words for its root qdisc, or "default") put on it, then tapx-ident bp
# with FLAGS; bp_out is its line, bp_drops the device's tx_dropped after
# it, bp_flags its tun_flags, bp_qdisc its root qdisc.
bp_run() {
	bp_out= bp_drops= bp_flags= bp_qdisc=
	bp_mk $1 $2 || return
	[ "$4" = default ] || runs "$2: tc qdisc replace root $4" /bin/tc qdisc replace dev $2 root $4
	bp_qdisc=$(qdisc_of $2)
	bp_out=$(tapx-ident bp $1 $2 $3 $BN)
	bp_drops=$(tx_dropped $2)
	bp_flags=$(cat /sys/class/net/$2/tun_flags)
	runs "$2: remove" ip link del $2
}

# bp_queued WHAT: every frame sent was read, none dropped.
bp_queued() {
	check "$1: frames sent" $BN "$(bp_get sent)"
	check "$1: frames read" $BN "$(bp_get got)"
	check "$1: tx_dropped" 0 "$bp_drops"
}
# bp_dropped WHAT [any]: a ring's worth read, the rest dropped and
# counted. With "any" the sender need not have got BN through: without a
# qdisc tun also returns each drop to the sender (ENOBUFS), where tapx
# only counts it.
bp_dropped() {
	[ "${2:-}" = any ] || check "$1: frames sent" $BN "$(bp_get sent)"
	at_most "$1: frames read (one ring)" 1024 "$(bp_get got)"
	check "$1: read + tx_dropped" $BN $(($(bp_get got) + ${bp_drops:-0}))
}

bp_clean
# tun.ko is the reference for whether this kernel has the flag.
bp_run $T bpt $BP "pfifo limit 5000"
tun_features=$(bp_get features)
tun_flags=$bp_flags
has=no
[ $((${tun_features:-0} & BP)) = 0 ] || has=yes
case $(uname -r) in
6.* | 7.[0-2].*) check "tun offers IFF_BACKPRESSURE on $(uname -r)" no $has ;;
*) check "tun offers IFF_BACKPRESSURE on $(uname -r)" yes $has ;;
esac
if [ $has = yes ]; then bp_queued "tun, flag, pfifo"; else bp_dropped "tun, flag ignored, pfifo"; fi

bp_run $X bpx $BP "pfifo limit 5000"
check "tapx TUNGETFEATURES as tun's" "$tun_features" "$(bp_get features)"
check "tapx tun_flags after TUNSETIFF with the flag, as tun's" "$tun_flags" "$bp_flags"
if [ $has = yes ]; then bp_queued "tapx, flag, pfifo"; else bp_dropped "tapx, flag ignored, pfifo"; fi

# Without the flag: the ring drops whatever the qdisc.
bp_run $T bpt 0 "pfifo limit 5000"
bp_dropped "tun, no flag, pfifo"
bp_run $X bpx 0 "pfifo limit 5000"
bp_dropped "tapx, no flag, pfifo"

# The flag without a queueing qdisc: nothing would hold the frames, so the
# queue never stops and the ring drops.
bp_run $T bpt $BP noqueue
bp_dropped "tun, flag, noqueue" any
bp_run $X bpx $BP default
check "tapx's default qdisc" noqueue "$bp_qdisc"
bp_dropped "tapx, flag, its default noqueue"

# A reader that leaves while its queue is stopped (tapx-ident bp noread:
# the ring full, the qdisc holding the rest) does not leave it stopped: the
# queue restarts, and what the qdisc held finds no reader and is dropped
# and counted (as many as its ring did not take). The next reader gets all
# it is sent, nothing dropped.
bp_next() {
	bp_mk $1 $2 || return
	runs "$2: tc qdisc replace root pfifo" /bin/tc qdisc replace dev $2 root pfifo limit 5000
	bp_out=$(tapx-ident bp $1 $2 $BP $BN noread)
	check "$2, reader that left without reading: frames read" 0 "$(bp_get got)"
	# The restarted queue hands its qdisc's frames on in the softirq,
	# which a busy guest runs late: counted once the qdisc is empty.
	_w=0
	while [ "$(bp_backlog $2)" != 0 ] && [ $_w -lt 100 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	_held=$(tx_dropped $2)
	at_least "$2, the qdisc's frames dropped once no reader is left" $((BN - 1024)) "$_held"
	at_most "$2, the qdisc's frames dropped once no reader is left" $((BN - 1000)) "$_held"
	bp_out=$(tapx-ident bp $1 $2 $BP $BN)
	check "$2, next reader: frames read" $BN "$(bp_get got)"
	check "$2, next reader: tx_dropped" 0 $(($(tx_dropped $2) - _held))
	runs "$2: remove" ip link del $2
}
if [ $has = yes ]; then
	bp_next $T bpt
	bp_next $X bpx
fi
bp_clean
