#!/bin/sh
# Real guests on taps: two QEMU (TCG) guests with virtio-net on host taps in
# a private netns, joined by a Linux bridge, guarded and forwarded by
# tap-accel. Driven over their serial consoles (console.py).
#
#   tests/guests/run.sh [SCENARIO...]   boot, ping, guard, forward, acl, rate
#                                       (default: all, in that order)
# Environment: KVER (guest kernel, default 6.1.0-57-amd64), BUILD.
# Ends with "N passed, N failed"; console logs stay in build/guests/.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/guests
KVER=${KVER:-6.1.0-57-amd64}
KERNEL=/boot/vmlinuz-$KVER
TA=$BUILD/user/tap-accel
PY=${PYTHON:-python3}
SCENARIOS=${*:-"ping guard forward acl rate"}

# Names carry the pid: the pins live in the host's bpffs, named by tap.
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

npass=0
nfail=0
pass() {
	npass=$((npass + 1))
	echo "PASS $*"
}
fail() {
	nfail=$((nfail + 1))
	echo "FAIL $*"
}
# Setup failures end the run.
abort() {
	echo "guests: $*" >&2
	nfail=$((nfail + 1))
	exit 1
}

eq() { # DESC GOT WANT
	if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1 = '$2', want '$3'"; fi
}
ge() { # DESC GOT MIN
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then
		pass "$1 = $2 (>= $3)"
	else
		fail "$1 = '$2', want >= $3"
	fi
}
le() { # DESC GOT MAX
	if [ -n "$2" ] && [ "$2" -le "$3" ] 2>/dev/null; then
		pass "$1 = $2 (<= $3)"
	else
		fail "$1 = '$2', want <= $3"
	fi
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
rm -f "$OUT"/*.log "$OUT"/*.in "$OUT"/*.out "$OUT"/*.pid "$OUT"/*.json "$OUT"/*.pol

# ---- cleanup --------------------------------------------------------------

cleanup() {
	rc=$?
	trap - EXIT INT TERM
	for t in $TAPA $TAPB; do
		if [ -d "/sys/fs/bpf/tap-accel/$t" ]; then
			nsenter --net="/run/netns/$NS" "$TA" detach "$t" >/dev/null 2>&1
			rm -rf "/sys/fs/bpf/tap-accel/$t"
		fi
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
	if [ "$nfail" -gt 0 ] || [ "$rc" -ne 0 ]; then
		echo "guests: console logs kept: $OUT/a.log $OUT/b.log"
		[ "$nfail" -gt 0 ] || nfail=1
	fi
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit $?
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
# tap-accel in the netns but with the host's /sys (its bpffs holds the pins;
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
g() {
	_g=$1 _t=$2
	shift 2
	"$PY" "$HERE/console.py" "$OUT/$_g" --timeout "$_t" "$*"
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
	ta --json stats "$2" >"$OUT/$1.json" || fail "tap-accel --json stats $2"
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
hostrx() { inns cat "/sys/class/net/$1/statistics/rx_packets"; }
gstat() { g "$1" 30 cat "/sys/class/net/eth0/statistics/$2"; }

# policy NAME TEXT: write $OUT/NAME.pol
policy() {
	printf '%s\n' "$2" >"$OUT/$1.pol"
}

# ---- scenarios --------------------------------------------------------------

sc_ping() {
	echo "== bridge: both guests reach each other (no tap-accel)"
	ga ping -c 3 -w 10 $IP4B >/dev/null && pass "a pings b (IPv4)" || fail "a pings b (IPv4)"
	gb ping -c 3 -w 10 $IP4A >/dev/null && pass "b pings a (IPv4)" || fail "b pings a (IPv4)"
	ga ping6 -c 3 -w 10 $IP6B >/dev/null && pass "a pings b (IPv6)" || fail "a pings b (IPv6)"
	ga ping6 -c 3 -w 10 $LLB%eth0 >/dev/null && pass "a pings b (link-local)" ||
		fail "a pings b (link-local)"
}

for s in $SCENARIOS; do
	command -v "sc_$s" >/dev/null || abort "unknown scenario $s"
	"sc_$s"
done
echo "guests: done after $(($(date +%s) - start)) s"
