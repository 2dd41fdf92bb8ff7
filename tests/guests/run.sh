#!/bin/sh
# Real guests on taps: two QEMU (TCG) guests with virtio-net on host taps in
# a private netns, joined by a Linux bridge, guarded and forwarded by
# tap-accel. Driven over their serial consoles (console.py).
#
#   tests/guests/run.sh [SCENARIO...]   ping, guard, forward, acl, rate
#                                       (default: all, in that order; the
#                                       guests boot first in every case)
# Environment: VM_KERNEL (guest kernel series, default 6.1: mk/kernels.sh)
# or KVER (a release), BUILD.
# Ends with "N passed, N failed"; console logs stay in build/guests/.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SUITE=$HERE/run.sh
. "$TOP/tests/lib/ns.sh"
# The plane in a bpffs of the suite's own: nothing of the host's seen or left.
own_bpffs "$@"
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/guests
if [ -z "${KVER:-}" ]; then
	KVER=$(sh "$TOP/mk/kernels.sh" "${VM_KERNEL:-6.1}" | sed -n 's/^KVER=//p')
fi
KERNEL=/boot/vmlinuz-$KVER
TA=$BUILD/user/tap-accel
PY=${PYTHON:-python3}
SCENARIOS=${*:-"ping guard forward acl rate"}

# Names carry the pid: two runs on one host do not share taps or a netns.
ID=$$
NS=tag-$ID
BR=tagbr
TAPA=tga$ID
TAPB=tgb$ID
MACA=52:54:00:77:00:0a
MACB=52:54:00:77:00:0b
IP4A=10.77.0.1
IP4B=10.77.0.2
IP6A=fd77::1
IP6B=fd77::2
LLA=fe80::5054:ff:fe77:a
LLB=fe80::5054:ff:fe77:b

. "$TOP/tests/lib/check.sh"
# Setup failures end the run.
abort() {
	echo "guests: $*" >&2
	fail=$((fail + 1))
	exit 1
}

# ---- prerequisites --------------------------------------------------------

for t in qemu-system-x86_64 cpio gzip gcc ip nsenter modinfo "$PY"; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "guests: $t is not installed (make deps)"; echo "0 passed, 1 failed"; exit 1; }
done
missing=
[ -r "$KERNEL" ] || missing="$missing $KERNEL (linux-image-$KVER)"
[ -x "$TA" ] || missing="$missing $TA (make bpf user)"
[ -x /bin/busybox ] || missing="$missing /bin/busybox (busybox-static)"
[ -c /dev/net/tun ] || missing="$missing /dev/net/tun"
if [ -n "$missing" ]; then
	echo "guests: missing:$missing"
	echo "0 passed, 1 failed"
	exit 1
fi

mkdir -p "$OUT"
# a private copy: others may rebuild build/user while this runs
cp "$TA" "$OUT/tap-accel.bin" || { echo "guests: cannot copy $TA"; echo "0 passed, 1 failed"; exit 1; }
TA=$OUT/tap-accel.bin
rm -f "$OUT"/*.log "$OUT"/*.in "$OUT"/*.out "$OUT"/*.pid "$OUT"/*.json "$OUT"/*.pol \
	"$OUT"/*.hung

# ---- cleanup --------------------------------------------------------------

# Whether tap $1 of our namespace is bound (tap-accel status).
bound() { nsenter --net="/run/netns/$NS" "$TA" status 2>/dev/null | grep -q "^$1 "; }

cleanup() {
	rc=$?
	trap - EXIT INT TERM
	for t in $TAPA $TAPB; do
		bound "$t" && nsenter --net="/run/netns/$NS" "$TA" detach "$t" >/dev/null 2>&1
	done
	for g in a b; do
		if [ -s "$OUT/$g.pid" ]; then
			pid=$(cat "$OUT/$g.pid")
			kill "$pid" 2>/dev/null
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.2
			done
			kill -9 "$pid" 2>/dev/null
			rm -f "$OUT/$g.pid"
		fi
		if [ -s "$OUT/$g.cat.pid" ]; then
			kill "$(cat "$OUT/$g.cat.pid")" 2>/dev/null
			rm -f "$OUT/$g.cat.pid"
		fi
	done
	ip netns del "$NS" 2>/dev/null
	if [ "$fail" -gt 0 ] || [ "$rc" -ne 0 ]; then
		echo "guests: console logs kept: $OUT/a.log $OUT/b.log"
		[ "$fail" -gt 0 ] || fail=1
	fi
	finish
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- initramfs ------------------------------------------------------------

. "$TOP/tests/lib/initramfs.sh"

R=$OUT/root
gcc -static -O2 -Wall -Wextra -o "$OUT/gtool" "$HERE/gtool.c" || abort "cannot build gtool"
ird_new "$R" || abort "initramfs: cannot create $R"
ird_busybox "$R" || abort "initramfs: busybox"
# iproute2's ip as "xip": busybox sh prefers its own applets, "ip" is busybox's
ird_bin "$R" /usr/sbin/ip && mv "$R/bin/ip" "$R/bin/xip" && ln -s busybox "$R/bin/ip" ||
	abort "initramfs: ip"
cp "$OUT/gtool" "$R/bin/" || abort "initramfs: gtool"
ird_module "$R" "$KVER" virtio_pci virtio_net || abort "initramfs: virtio modules"
cp "$HERE/init.sh" "$R/init" && chmod +x "$R/init" || abort "initramfs: init"
ird_pack "$R" "$OUT/initramfs.gz" || abort "initramfs: pack"

# ---- host network ---------------------------------------------------------

ip netns add "$NS" || abort "cannot create netns $NS"
inns() { ip netns exec "$NS" "$@"; }
# tap-accel in the netns but with our /sys (our bpffs holds the plane;
# `ip netns exec` would mount a fresh /sys without it).
ta() { nsenter --net="/run/netns/$NS" "$TA" "$@"; }

inns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	abort "netns sysctl"
inns ip link set lo up
inns ip link add "$BR" type bridge stp_state 0 forward_delay 0 mcast_snooping 0 ||
	abort "cannot create bridge"
for t in $TAPA $TAPB; do
	inns ip tuntap add "$t" mode tap user "$(id -u)" || abort "cannot create tap $t"
	inns ip link set "$t" master "$BR" || abort "cannot enslave $t"
	inns ip link set "$t" up
done
inns ip link set "$BR" up

# ---- guests ---------------------------------------------------------------

boot() { # NAME TAP MAC IP4 IP6
	mkfifo "$OUT/$1.in" "$OUT/$1.out" || abort "mkfifo"
	inns qemu-system-x86_64 -accel tcg -cpu max -m 256 -smp 1 \
		-display none -monitor none -no-reboot -daemonize -pidfile "$OUT/$1.pid" \
		-chardev "pipe,id=con,path=$OUT/$1" \
		-serial chardev:con \
		-netdev "tap,id=n0,ifname=$2,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n0,mac=$3,romfile=" \
		-kernel "$KERNEL" -initrd "$OUT/initramfs.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=1 g.name=$1 g.ip4=$4/24 g.ip6=$5/64" ||
		abort "qemu for guest $1 did not start"
	# the console's log, read by console.py
	cat "$OUT/$1.out" >"$OUT/$1.log" &
	echo $! >"$OUT/$1.cat.pid"
}

# gX CMD...: run one shell line in guest X; gX_t SECONDS CMD... with a timeout
# A guest that stopped answering once is not waited for again (the checks
# that need it fail at once).
g() {
	_g=$1 _t=$2
	shift 2
	if [ -e "$OUT/$_g.hung" ]; then
		echo "guests: guest $_g stopped answering, not running: $*" >&2
		return 124
	fi
	"$PY" "$HERE/console.py" "$OUT/$_g" --timeout "$_t" "$*"
	_rc=$?
	[ $_rc -eq 124 ] && : >"$OUT/$_g.hung"
	return $_rc
}
ga() { g a 60 "$@"; }
gb() { g b 60 "$@"; }

start=$(date +%s)
boot a "$TAPA" "$MACA" "$IP4A" "$IP6A"
boot b "$TAPB" "$MACB" "$IP4B" "$IP6B"
for x in a b; do
	"$PY" "$HERE/console.py" "$OUT/$x" --ready --timeout 240 ||
		abort "guest $x did not boot; see $OUT/$x.log"
done
echo "guests: both up after $(($(date +%s) - start)) s"
ga xip -br link show eth0 | grep -q "$MACA" || abort "guest a has no eth0 with $MACA"
gb xip -br link show eth0 | grep -q "$MACB" || abort "guest b has no eth0 with $MACB"

# ---- counters -------------------------------------------------------------

# snap NAME TAP: keep `tap-accel stats --json TAP` as NAME
snap() {
	ta --json stats "$2" >"$OUT/$1.json" || bad "tap-accel --json stats $2"
}
# sdelta NAME TAP KEY: KEY now minus in snapshot NAME. KEY is a path like
# guard.src_mac.packets, verdict.redirect.packets, rules.0.packets,
# rules.default.packets (rules are matched by their "rule" field).
sdelta() {
	ta --json stats "$2" >"$OUT/$1.now.json" || { echo "?"; return; }
	"$PY" - "$OUT/$1.json" "$OUT/$1.now.json" "$3" <<'EOF'
import json, sys
def get(path, key):
    v = json.load(open(path))
    for k in key.split("."):
        if isinstance(v, list):
            v = next(r for r in v if str(r.get("rule")) == k)
        else:
            v = v[k]
    return int(v)
try:
    print(get(sys.argv[2], sys.argv[3]) - get(sys.argv[1], sys.argv[3]))
except Exception as e:
    print(f"? ({e})")
EOF
}
# Frames the stack (the bridge) sent out of TAP: its root qdisc's counter.
# XDP redirects into a tap bypass the qdisc. (A tap's rx counters count
# every frame its guest wrote, redirected or not.)
brtx() { inns tc -s qdisc show dev "$1" | awk '/Sent/ { print $4; exit }'; }
gstat() { g "$1" 30 cat "/sys/class/net/eth0/statistics/$2"; }

# policy NAME TEXT: write $OUT/NAME.pol
policy() {
	printf '%s\n' "$2" >"$OUT/$1.pol"
}

# ---- scenarios --------------------------------------------------------------

sc_ping() {
	for f in "$TOP"/examples/guests-*.policy; do
		ta policy check "$f" >/dev/null && good ||
			bad "policy check ${f#$TOP/}: $(ta policy check "$f" 2>&1)"
	done

	echo "== bridge: both guests reach each other (no tap-accel)"
	ga ping -c 3 -w 10 $IP4B >/dev/null && good || bad "a pings b (IPv4)"
	gb ping -c 3 -w 10 $IP4A >/dev/null && good || bad "b pings a (IPv4)"
	ga ping6 -c 3 -w 10 $IP6B >/dev/null && good || bad "a pings b (IPv6)"
	ga ping6 -c 3 -w 10 $LLB%eth0 >/dev/null && good ||
		bad "a pings b (link-local)"
}

# apply TAP FILE: bind the tap to the policy of FILE (switched at once if bound)
apply() {
	ta attach "$1" --policy "$2" >/dev/null || abort "cannot apply $2 to $1"
}
GUARD_A="guard mac $MACA ip $IP4A ip $IP6A ip $LLA"
GUARD_B="guard mac $MACB ip $IP4B ip $IP6B ip $LLB"
REASONS="src_mac ip4_src ip6_src arp_sha arp_spa nd_target nd_lladdr"

# B counts UDP datagrams on PORT for SECONDS in the background; b_count PORT
# waits for every listener and prints its count.
b_listen() { gb "gtool udp-recv $1 $2 >/tmp/r$1 2>&1 &"; }
b_count() { g b $((${2:-10} + 30)) "wait; cat /tmp/r$1" | awk '/^recv/ { print $2 }'; }
# static neighbours in A, so traffic from A needs no ARP/ND in a window
a_static_neigh() {
	ga "xip neigh replace $IP4B lladdr $MACB nud permanent dev eth0 &&" \
		"xip -6 neigh replace $IP6B lladdr $MACB nud permanent dev eth0" ||
		bad "static neighbours in a"
}
neigh_of() { # GUEST: "addr lladdr" lines of its neighbour table
	g "$1" 30 "xip neigh show dev eth0 | awk '{ print \$1, \$3 }' | sort"
}

# attack REASON DESC CMD: run CMD in A (guarded) and check that every frame A
# sent in that window was dropped for REASON and that B saw none of them.
attack() {
	snap att "$TAPA"
	atx0=$(gstat a tx_packets)
	brx0=$(gstat b rx_packets)
	bn0=$(neigh_of b)
	ga "$3" >/dev/null
	sleep 0.5
	atx1=$(gstat a tx_packets)
	brx1=$(gstat b rx_packets)
	bn1=$(neigh_of b)
	sent=$((atx1 - atx0))
	at_least "$2: frames a sent" 1 "$sent"
	check "$2: guard $1 counter delta" "$sent" "$(sdelta att "$TAPA" "guard.$1.packets")"
	check "$2: frames b received" 0 "$((brx1 - brx0))"
	if [ "$bn0" = "$bn1" ]; then
		good
	else
		bad "$2: b's neighbour table changed: before [$bn0] after [$bn1]"
	fi
}

sc_guard() {
	echo "== guard: one shared policy; each tap takes only its guest's own MAC, IPv4 and IPv6"
	# as docs/guests.md binds them: the policy by name, the guard per tap
	policy guests "default pass"
	ta policy load guests "$OUT/guests.pol" >/dev/null || abort "cannot load policy guests"
	ta attach "$TAPA" --policy guests --guard "mac=$MACA,ip=$IP4A,ip=$IP6A,ip=$LLA" >/dev/null ||
		abort "cannot bind $TAPA with its guard"
	ta attach "$TAPB" --policy guests --guard "mac=$MACB,ip=$IP4B,ip=$IP6B,ip=$LLB" >/dev/null ||
		abort "cannot bind $TAPB with its guard"
	snap g0a "$TAPA"
	snap g0b "$TAPB"
	ga ping -c 3 -w 10 $IP4B >/dev/null && good ||
		bad "guarded: a pings b (IPv4)"
	gb ping6 -c 3 -w 10 $IP6A >/dev/null && good ||
		bad "guarded: b pings a (IPv6)"
	ga ping6 -c 3 -w 10 $LLB%eth0 >/dev/null && good ||
		bad "guarded: a pings b (link-local)"
	b_listen 5000 6
	ga gtool udp-send $IP4B 5000 20 50 >/dev/null
	check "guarded: UDP datagrams b received of 20" 20 "$(b_count 5000 6)"
	for r in $REASONS; do
		check "guarded, normal traffic: a guard $r delta" 0 "$(sdelta g0a "$TAPA" guard.$r.packets)"
		check "guarded, normal traffic: b guard $r delta" 0 "$(sdelta g0b "$TAPB" guard.$r.packets)"
	done
	at_least "guarded: frames a's program passed" 26 "$(sdelta g0a "$TAPA" verdict.pass.packets)"

	a_static_neigh
	attack src_mac "a changes its MAC" \
		"xip link set eth0 address 52:54:00:77:00:99; ping -c 3 -w 3 $IP4B"
	ga xip link set eth0 address $MACA
	a_static_neigh # a MAC change flushes them

	ga xip addr add 10.77.0.99/32 dev eth0
	attack ip4_src "a uses a foreign IPv4" "ping -c 3 -w 3 -I 10.77.0.99 $IP4B"
	ga xip addr del 10.77.0.99/32 dev eth0

	ga "xip -6 addr add fd77::99/128 dev eth0 nodad; sleep 1" # its MLD report passes
	attack ip6_src "a uses a foreign IPv6" "ping6 -c 3 -w 3 -I fd77::99 $IP6B"
	ga "xip -6 addr del fd77::99/128 dev eth0; sleep 1"

	attack arp_spa "a sends gratuitous ARP for b's IPv4" \
		"arping -U -c 3 -w 3 -I eth0 -s $IP4B $IP4B"
	attack nd_target "a advertises b's IPv6 (forged NA)" "gtool na eth0 $IP6B $MACA 3 $IP6A"
	attack nd_lladdr "a advertises its IPv6 at b's MAC (forged NA)" \
		"gtool na eth0 $IP6A $MACB 3 $IP6A"

	# control: without the guard the same forgery reaches b and rewrites
	# b's neighbour entry for a (so the checks above can see an attack)
	ta attach "$TAPA" --guard none >/dev/null || abort "cannot drop $TAPA's guard"
	gb ping6 -c 1 -w 5 $IP6A >/dev/null
	ga gtool na eth0 $IP6A $MACB 3 $IP6A >/dev/null
	sleep 0.5
	gb "xip -6 neigh show $IP6A dev eth0" | grep -q "$MACB" &&
		good ||
		bad "control, no guard: the forged NA rewrote b's entry for a ($(gb xip -6 neigh show dev eth0))"
	gb xip -6 neigh del $IP6A dev eth0
}

sc_forward() {
	echo "== forward: unicast between the guests by XDP redirect, the rest by the bridge"
	policy fwd-a "$GUARD_A
fdb $MACB dev $TAPB
default forward"
	policy fwd-b "$GUARD_B
default forward"
	apply "$TAPA" "$OUT/fwd-a.pol"
	apply "$TAPB" "$OUT/fwd-b.pol"
	# b's entry at run time, with the CLI
	ta fdb add "$TAPB" "$MACA" "$TAPA" >/dev/null || bad "tap-accel fdb add $TAPB $MACA $TAPA"
	ta fdb list "$TAPB" | grep -qi "$MACA" && good ||
		bad "forward: fdb list $TAPB shows a's MAC: $(ta fdb list "$TAPB" 2>&1)"

	# ARP is broadcast: through the bridge
	ga xip neigh flush dev eth0 nud all
	gb xip neigh flush dev eth0 nud all
	snap f0a "$TAPA"
	tx0=$(brtx "$TAPB")
	ga ping -c 1 -w 10 $IP4B >/dev/null && good ||
		bad "forward: a resolves and pings b"
	at_least "forward: a's fdb_miss (broadcast ARP) delta" 1 "$(sdelta f0a "$TAPA" event.fdb_miss.packets)"
	at_least "forward: frames the bridge sent to tap b (ARP)" 1 "$(($(brtx "$TAPB") - tx0))"
	ga "xip neigh show $IP4B dev eth0" | grep -q "$MACB" &&
		good ||
		bad "forward: a learnt b's MAC by ARP over the bridge"
	ga ping6 -c 1 -w 10 $IP6B >/dev/null # ND (multicast) likewise

	snap f1a "$TAPA"
	snap f1b "$TAPB"
	txa0=$(brtx "$TAPA")
	txb0=$(brtx "$TAPB")
	out=$(g a 60 "ping -c 20 -i 0.1 -w 20 $IP4B; ping6 -c 10 -i 0.1 -w 20 $IP6B")
	n=$(echo "$out" | awk '/packets received/ { n += $4 } END { print n + 0 }')
	check "forward: echo replies a got of 30" 30 "$n"
	at_least "forward: a's fdb_hit delta" 30 "$(sdelta f1a "$TAPA" event.fdb_hit.packets)"
	at_least "forward: a's redirect verdict delta" 30 "$(sdelta f1a "$TAPA" verdict.redirect.packets)"
	at_least "forward: b's redirect verdict delta (replies)" 30 \
		"$(sdelta f1b "$TAPB" verdict.redirect.packets)"
	at_most "forward: frames the bridge sent to tap b (requests)" 5 "$(($(brtx "$TAPB") - txb0))"
	at_most "forward: frames the bridge sent to tap a (replies)" 5 "$(($(brtx "$TAPA") - txa0))"

	# detach under traffic: the bridge takes over
	ga "ping -c 100 -i 0.05 -W 5 $IP4B >/tmp/pd 2>&1 &"
	sleep 1.5
	txb0=$(brtx "$TAPB")
	at_least "forward: redirects before the detach" 35 "$(sdelta f1a "$TAPA" verdict.redirect.packets)"
	ta detach "$TAPA" >/dev/null || bad "tap-accel detach $TAPA"
	ta detach "$TAPB" >/dev/null || bad "tap-accel detach $TAPB"
	out=$(g a 60 "wait; cat /tmp/pd")
	tx=$(echo "$out" | awk '/packets transmitted/ { print $1 }')
	rx=$(echo "$out" | awk '/packets received/ { print $4 }')
	check "forward: pings a sent across the detach" 100 "$tx"
	at_most "forward: pings lost across the detach" 2 "$((${tx:-0} - ${rx:-0}))"
	at_least "forward: frames the bridge sent to tap b after the detach" 10 \
		"$(($(brtx "$TAPB") - txb0))"
}

sc_acl() {
	echo "== acl: UDP to a blocked address and port never arrives"
	policy acl-a "$GUARD_A
rule drop proto udp dst $IP4B dport 5001
rule drop proto udp dst fd77::/64 dport 5001
default pass"
	policy acl-b "$GUARD_B
default pass"
	apply "$TAPA" "$OUT/acl-a.pol"
	apply "$TAPB" "$OUT/acl-b.pol"
	a_static_neigh
	b_listen 5001 8
	b_listen 5002 8
	snap a0 "$TAPA"
	ga "gtool udp-send $IP4B 5001 50 100; gtool udp-send $IP6B 5001 50 100;" \
		"gtool udp-send $IP4B 5002 50 100; gtool udp-send $IP6B 5002 50 100" >/dev/null
	check "acl: datagrams b received on the blocked port" 0 "$(b_count 5001 8)"
	check "acl: datagrams b received on the open port (control)" 100 "$(b_count 5002 8)"
	check "acl: rule 0 (IPv4 host, port) counter delta" 50 "$(sdelta a0 "$TAPA" rules.0.packets)"
	check "acl: rule 1 (IPv6 /64, port) counter delta" 50 "$(sdelta a0 "$TAPA" rules.1.packets)"
	at_least "acl: default counter delta" 100 "$(sdelta a0 "$TAPA" rules.default.packets)"
	check "acl: drop verdict delta" 100 "$(sdelta a0 "$TAPA" verdict.drop.packets)"
}

RATE=200
BURST=20
sc_rate() {
	echo "== rate: a flood above ${RATE}pps is cut to the limit"
	policy rate-a "$GUARD_A
rate ${RATE}pps burst $BURST
default pass"
	apply "$TAPA" "$OUT/rate-a.pol"
	a_static_neigh
	b_listen 5003 12
	sleep 0.5 # the bucket is full again
	snap r0 "$TAPA"
	atx0=$(gstat a tx_packets)
	out=$(g a 60 gtool udp-send $IP4B 5003 2400 600)
	atx1=$(gstat a tx_packets)
	sent=$(echo "$out" | awk '/^sent/ { print $2 }')
	us=$(echo "$out" | awk '/^sent/ { print $4 }')
	[ -n "$sent" ] && [ -n "$us" ] || { bad "rate: gtool udp-send: $out"; return; }
	passed=$(sdelta r0 "$TAPA" verdict.pass.packets)
	dropped=$(sdelta r0 "$TAPA" event.rate_drop.packets)
	recv=$(b_count 5003 12)
	echo "rate: a sent $sent in $us us; passed $passed, rate drops $dropped, b received $recv"
	# the flood must really be above the limit
	at_least "rate: a's send rate (pps)" $((RATE * 3 / 2)) "$((sent * 1000000 / us))"
	want=$((RATE * us / 1000000 + BURST))
	at_least "rate: frames passed (limit ${RATE}pps over ${us}us + burst = $want, -10%)" \
		$((want * 9 / 10)) "$passed"
	at_most "rate: frames passed (limit ${RATE}pps over ${us}us + burst = $want, +10%)" \
		$((want * 11 / 10)) "$passed"
	check "rate: passed + rate drops = frames a sent" "$((atx1 - atx0))" "$((passed + dropped))"
	at_least "rate: datagrams b received" $((passed - 3)) "$recv"
	at_most "rate: datagrams b received" "$passed" "$recv"
}

for s in $SCENARIOS; do
	command -v "sc_$s" >/dev/null || abort "unknown scenario $s"
	"sc_$s"
done
echo "guests: done after $(($(date +%s) - start)) s"
