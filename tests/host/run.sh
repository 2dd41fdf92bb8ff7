#!/bin/sh
# Host tests of tap-accel on real taps of the running kernel (stock tun),
# in a private network namespace that this script creates and always
# removes. Frames are written by tapio (tests/host/tapio.c) into tap A,
# nonblocking (tun's native XDP) and blocking (generic XDP); it reports
# what came back at A's reader (tx), at B's reader (redirect) and into the
# stack (pass). Counters from 'tap-accel stats --json' must equal what was
# sent, per rule and per verdict. Then every way of running tap-accel for
# a namespace (ip netns exec, its own shell, nsenter, --netns), and two
# same-named taps in two namespaces. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")"
TOP=$(cd ../.. && pwd)
BUILD=${BUILD:-$TOP/build}
TA_BIN=$BUILD/user/tap-accel
TAPIO=$BUILD/tests/host/tapio
BPF_OBJ=$BUILD/bpf/tap_accel.bpf.o
ROOT=/sys/fs/bpf/tap-accel

. "$TOP/tests/lib/check.sh"

if [ "$(id -u)" != 0 ]; then
	bad "the host tests need root (network namespaces, taps, BPF)"
	finish
fi
[ -x "$TA_BIN" ] && [ -f "$BPF_OBJ" ] || make -s -C "$TOP" bpf user >/dev/null 2>&1
if ! make -s -C "$TOP/tests/host"; then
	bad "tapio does not build"
	finish
fi
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built"; finish; }

# Unique names: bpffs is shared with the host and with other runs.
ID=$$
NS=tahost$ID
A=ta${ID}a
B=ta${ID}b
C=ta${ID}c
D=ta${ID}d
E=ta${ID}e
V=ta${ID}v
tmp=$(mktemp -d)
BT=/sys/fs/bpf/tahost$ID
# A copy, so that a rebuild during the run does not pull the binary away.
cp "$TA_BIN" "$tmp/tap-accel" && TA_BIN=$tmp/tap-accel

# The pin folder of namespace $1 (tap-accel names it by its inode).
ns_pins() { echo "$ROOT/net:$(stat -L -c %i "/run/netns/$1")"; }

cleanup() {
	for n in "$NS" "${NS}b" "${NS}x" "${NS}y"; do
		[ -e "/run/netns/$n" ] && rm -rf "$(ns_pins "$n")"
		ip netns del "$n" 2>/dev/null
	done
	for i in "$A" "$B" "$C" "$D" "$E"; do rm -rf "${ROOT:?}/$i"; done
	rm -rf "$BT" "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Run inside the namespace. nsenter keeps our mount namespace: 'ip netns
# exec' would mount a fresh /sys and hide the bpffs at /sys/fs/bpf.
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
ta() { in_ns "$TA_BIN" "$@"; }
tapio() { in_ns "$TAPIO" "$@"; }

ip netns add "$NS" || { bad "cannot create netns $NS"; finish; }
PINS=$(ns_pins "$NS")
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for t in "$A" "$B" "$C" "$D" "$E"; do
	ip -n "$NS" tuntap add "$t" mode tap && ip -n "$NS" link set "$t" up ||
		{ bad "cannot create tap $t"; finish; }
done
ip -n "$NS" link add "$V" type veth peer name "${V}p"
ip -n "$NS" link set lo up

# ---- helpers ---------------------------------------------------------------



# send WANT TAPIO-ARGS...: tapio's report must be WANT.
send() {
	want=$1
	shift
	got=$(tapio "$@")
	check "tapio $*" "$want" "$got"
}

# Counters from 'stats IFACE --json' (one line): verdict NAME, rule N,
# prev_rule N (the replaced policy), group NAME (guard/parse/event names).
stats_json() { ta stats "$1" --json >"$tmp/stats.json" 2>&1 || cat "$tmp/stats.json"; }
packets_of() { grep -o "$1" | head -n 1 | grep -o '[0-9]*$'; }
verdict() { sed 's/"rules":.*//' "$tmp/stats.json" | packets_of "\"$1\":{\"packets\":[0-9]*"; }
counter() { packets_of "\"$1\":{\"packets\":[0-9]*" <"$tmp/stats.json"; }
rule() {
	sed 's/"previous_rules".*//' "$tmp/stats.json" |
		packets_of "\"rule\":$1,\"action\":\"[^\"]*\",\"packets\":[0-9]*"
}
prev_rule() {
	sed 's/.*"previous_rules"//' "$tmp/stats.json" |
		packets_of "\"rule\":$1,\"action\":\"[^\"]*\",\"packets\":[0-9]*"
}
status_of() { ta status --json | grep -o "{\"ifname\":\"$1\"[^}]*}"; }
digest_of() { status_of "$1" | grep -o '"digest":"[0-9a-f]*"'; }
prog_of() { status_of "$1" | grep -o '"prog_id":[0-9]*'; }
xdp_id() { ip -n "$NS" -d link show "$1" | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$'; }

# The rules every verdict test uses: one per action, CIDRs and a range.
cat >"$tmp/p1.policy" <<EOF
# one rule per action
rule drop proto udp dport 9
rule tx proto udp dport 10
rule redirect $B proto udp dport 11
rule drop src 10.9.0.0/16 proto udp dport 1000-2000
rule pass proto tcp dport 22
default pass
EOF

# verdict_suite LABEL N [--block]: N frames per case; counters add up.
verdict_suite() {
	label=$1 n=$2
	shift 2
	send "sent $n tx 0 redirect 0 pass 0" "$A" --peer "$B" --count "$n" --dport 9 "$@"
	send "sent $n tx $n redirect 0 pass 0" "$A" --peer "$B" --count "$n" --dport 10 "$@"
	send "sent $n tx 0 redirect $n pass 0" "$A" --peer "$B" --count "$n" --dport 11 "$@"
	send "sent $n tx 0 redirect 0 pass 0" "$A" --peer "$B" --count "$n" --src 10.9.3.4 --dport 1500 "$@"
	send "sent $n tx 0 redirect 0 pass $n" "$A" --peer "$B" --count "$n" --src 10.9.3.4 --dport 2001 "$@"
	send "sent $n tx 0 redirect 0 pass $n" "$A" --peer "$B" --count "$n" --proto tcp --dport 22 "$@"
}

# check_counts N: after verdict_suite with N frames in each mode so far.
check_counts() {
	n=$1
	stats_json "$A"
	check "rule 0 (drop dport 9)" "$n" "$(rule 0)"
	check "rule 1 (tx)" "$n" "$(rule 1)"
	check "rule 2 (redirect)" "$n" "$(rule 2)"
	check "rule 3 (drop CIDR+range)" "$n" "$(rule 3)"
	check "rule 4 (pass tcp 22)" "$n" "$(rule 4)"
	check "default" "$n" "$(rule '"default"')"
	check "verdict drop" "$((2 * n))" "$(verdict drop)"
	check "verdict tx" "$n" "$(verdict tx)"
	check "verdict redirect" "$n" "$(verdict redirect)"
	check "verdict pass" "$((2 * n))" "$(verdict pass)"
	check "verdict aborted" "0" "$(verdict aborted)"
}

# ---- attach, verdicts on the native path (nonblocking writer) ----------------
echo "# native mode"
expect_exit 0 "attached tap-accel to $A \(native mode\)" ta attach "$A" --policy "$tmp/p1.policy"
[ -e "$PINS/$A/prog" ] && [ -e "$PINS/$A/ta_config" ] && [ -e "$PINS/$A/ta_st_verdict" ] && good ||
	bad "pins missing under $PINS/$A"
check "status" "1" "$(status_of "$A" | grep -c '"state":"attached","mode":"native"')"
check "XDP program on $A is the pinned one" "\"prog_id\":$(xdp_id "$A")" "$(prog_of "$A")"
verdict_suite native 100
check_counts 100
echo "# native attach, blocking writer (tun runs the program as generic XDP)"
verdict_suite native-block 50 --block
check_counts 150

# ---- re-attach keeps maps; generic mode --------------------------------------
echo "# re-attach"
before_digest=$(digest_of "$A")
before_prog=$(prog_of "$A")
expect_exit 0 "attached tap-accel to $A" ta attach "$A"
check "re-attach keeps the policy" "$before_digest" "$(digest_of "$A")"
[ "$before_prog" != "$(prog_of "$A")" ] && good || bad "re-attach did not replace the program"
stats_json "$A"
check "re-attach keeps the counters" "150" "$(rule 0)"
expect_exit 1 "has tap-accel attached in native mode; detach it first" ta attach "$A" --mode generic

echo "# generic mode"
expect_exit 0 "detached tap-accel from $A" ta detach "$A"
expect_exit 0 "attached tap-accel to $A \(generic mode\)" ta attach "$A" --mode generic --policy "$tmp/p1.policy"
check "status generic" "1" "$(status_of "$A" | grep -c '"mode":"generic"')"
check "generic: XDP program on $A is the pinned one" "\"prog_id\":$(xdp_id "$A")" "$(prog_of "$A")"
verdict_suite generic 40 --block
verdict_suite generic-nonblock 40
check_counts 80

# ---- policy show, reading the instance back --------------------------------------
expect_exit 0 "^rule redirect $B proto udp dport 11$" ta policy show "$A"
expect_exit 0 '"rules":\[\{"action":"drop","proto":17,"dport":"9"\}' ta policy show --json "$A"

# ---- two taps, two policies ---------------------------------------------------
echo "# two taps"
printf 'rule drop proto udp dport 10\n' >"$tmp/p2.policy"
expect_exit 0 "^\{\"ifname\":\"$C\",\"mode\":\"native\",\"prog_id\":[1-9][0-9]*,\"pins\":\"$PINS/$C\"\}$" \
	ta attach --json "$C" --policy "$tmp/p2.policy"
send "sent 30 tx 0 redirect 0 pass 0" "$C" --count 30 --dport 10
send "sent 30 tx 0 redirect 0 pass 30" "$C" --count 30 --dport 11
send "sent 30 tx 30 redirect 0 pass 0" "$A" --peer "$B" --count 30 --dport 10
stats_json "$C"
check "$C rule 0" "30" "$(rule 0)"
check "$C default" "30" "$(rule '"default"')"
check "$C saw no frame of $A" "60" "$(($(verdict drop) + $(verdict pass)))"
stats_json "$A"
check "$A rule 1 unaffected by $C" "110" "$(rule 1)"
check "$A saw no frame of $C (no dport 11 redirect added)" "80" "$(rule 2)"

# ---- atomic swap under traffic ---------------------------------------------------------
echo "# policy swap under traffic"
printf 'rule drop proto udp dport 7\n' >"$tmp/s1.policy"
printf 'rule tx proto udp dport 7\n' >"$tmp/s2.policy"
expect_exit 0 "attached tap-accel to $D" ta attach "$D" --policy "$tmp/s1.policy"
N=600000
tapio "$D" --count $N --dport 7 >"$tmp/swap.out" &
writer=$!
# swap once the old policy is seen working on the traffic
tries=0
while stats_json "$D" && [ "$(verdict drop)" = 0 ] && [ $tries -lt 200 ]; do
	sleep 0.01
	tries=$((tries + 1))
done
expect_exit 0 "loaded .*s2.policy into $D: 1 rules" ta policy load "$D" "$tmp/s2.policy"
wait $writer
read -r _ sent _ txed _ _ _ passed <"$tmp/swap.out"
stats_json "$D"
drops=$(prev_rule 0)
txs=$(rule 0)
check "swap: every frame sent was counted" "$N" "$((drops + txs))"
check "swap: verdict drop = frames under the old policy" "$drops" "$(verdict drop)"
check "swap: verdict tx = frames under the new policy" "$txs" "$(verdict tx)"
check "swap: tx read back = tx counted" "$txs" "$txed"
check "swap: no frame fell through to the default" "0 0" "$passed $(verdict pass)"
[ "$drops" -gt 0 ] && [ "$txs" -gt 0 ] && good ||
	bad "swap did not happen under traffic (old $drops, new $txs); the test proved nothing"

# ---- fdb, guard, rate ----------------------------------------------------------------
echo "# fdb"
cat >"$tmp/fdb.policy" <<EOF
fdb 52:54:00:00:00:0b dev $B
default forward
EOF
expect_exit 0 "loaded" ta policy load "$D" "$tmp/fdb.policy"
send "sent 20 tx 0 redirect 20 pass 0" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0b
send "sent 20 tx 0 redirect 0 pass 20" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
expect_exit 0 "fdb 52:54:00:00:00:0c dev $B added" ta fdb add "$D" 52:54:00:00:00:0c "$B"
expect_exit 0 "fdb 52:54:00:00:00:0c dev $B" ta fdb list "$D"
send "sent 20 tx 0 redirect 20 pass 0" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
expect_exit 0 "fdb 52:54:00:00:00:0c deleted" ta fdb del "$D" 52:54:00:00:00:0c
expect_exit 1 "has no fdb entry for 52:54:00:00:00:0c" ta fdb del "$D" 52:54:00:00:00:0c
expect_exit 1 "is a group address" ta fdb add "$D" ff:ff:ff:ff:ff:ff "$B"
send "sent 20 tx 0 redirect 0 pass 20" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
stats_json "$D"
check "fdb hits" "40" "$(counter fdb_hit)"
check "fdb misses" "40" "$(counter fdb_miss)"

echo "# guard"
printf 'guard mac 52:54:00:00:00:01 ip 10.0.0.1\n' >"$tmp/guard.policy"
expect_exit 0 "loaded" ta policy load "$D" "$tmp/guard.policy"
send "sent 10 tx 0 redirect 0 pass 10" "$D" --count 10
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --smac 52:54:00:00:00:66
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --src 10.0.0.66
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --proto arp --src 10.0.0.66
stats_json "$D"
check "guard src_mac" "10" "$(counter src_mac)"
check "guard ip4_src" "10" "$(counter ip4_src)"
check "guard arp_spa" "10" "$(counter arp_spa)"

echo "# rate"
printf 'rate 100pps burst 100\n' >"$tmp/rate.policy"
expect_exit 0 "loaded" ta policy load "$D" "$tmp/rate.policy"
stats_json "$D"
pass_before=$(verdict pass)
tapio "$D" --count 1000 >/dev/null
stats_json "$D"
limited=$(counter rate_drop)
passed=$(($(verdict pass) - pass_before))
check "rate: passed + limited = sent" "1000" "$((passed + limited))"
[ "$passed" -ge 100 ] && [ "$passed" -lt 400 ] && good || bad "rate: $passed of 1000 passed at 100pps burst 100"

echo "# 1000 rules"
i=0
while [ $i -lt 1000 ]; do
	echo "rule drop proto udp src 10.$((i / 256)).$((i % 256)).0/24 dport $((1000 + i))-$((1100 + i))"
	i=$((i + 1))
done >"$tmp/r1000.policy"
ta policy load --json "$D" "$tmp/r1000.policy" >"$tmp/load.json"
load_ms=$(grep -o '"load_ms":[0-9.]*' "$tmp/load.json" | cut -d: -f2)
check "1000 rules loaded" "1" "$(grep -c '"rules":1000' "$tmp/load.json")"
echo "policy load of 1000 rules: ${load_ms:-?} ms"
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --src 10.3.231.9 --dport 2099
send "sent 10 tx 0 redirect 0 pass 10" "$D" --count 10 --src 10.3.231.9 --dport 2101
stats_json "$D"
check "rule 999 of 1000" "10" "$(rule 999)"

echo "# every example loads"
for t in vm2-tap0 vm3-tap0 game0 vnet-a vnet-b; do ip -n "$NS" tuntap add "$t" mode tap; done
# rules_of FILE: the rules and default of a policy file, as JSON
rules_of() { ta policy check --json "$1" | sed 's/"line":[0-9]*,//g; s/.*"rules"/"rules"/; s/,"guard".*//'; }
for f in "$TOP"/examples/*.policy "$tmp/p1.policy"; do
	expect_exit 0 "loaded $f into $D" ta policy load "$D" "$f"
	# policy show reads the maps back as a policy file: the same rules,
	# and loading what it shows shows the same again.
	ta policy show "$D" >"$tmp/shown.policy"
	check "policy show of $f has its rules" "$(rules_of "$f")" "$(rules_of "$tmp/shown.policy")"
	ta policy load "$D" "$tmp/shown.policy" >/dev/null
	ta policy show "$D" | sed 1d >"$tmp/shown2.policy"
	check "policy show of $f is a fixpoint" "$(sed 1d "$tmp/shown.policy")" "$(cat "$tmp/shown2.policy")"
done
ta policy load "$D" "$tmp/r1000.policy" >/dev/null
ta policy show "$D" >"$tmp/shown.policy"
check "policy show of 1000 rules" "$(rules_of "$tmp/r1000.policy")" "$(rules_of "$tmp/shown.policy")"

# ---- bad input leaves the previous state intact --------------------------------------
echo "# bad input"
state_a=$(status_of "$A")
stats_json "$A"
counts_a=$(rule 1)
printf 'rule drop proto udp\nrule drop proto tcp dport 70000\n' >"$tmp/bad-port.policy"
printf 'rule drop proto udp\nrule tx proto udp\n' >"$tmp/dup.policy"
printf 'rule drop smac 52:54:00:zz:00:01\n' >"$tmp/bad-mac.policy"
printf 'rule drop dst 10.0.0.0/33\n' >"$tmp/bad-cidr.policy"
printf 'rule drop dport 2000-1000\n' >"$tmp/bad-range.policy"
printf 'rule redirect nosuch0 proto udp\n' >"$tmp/bad-dev.policy"
printf 'rule drop proto udp\nrulez drop\n' >"$tmp/syntax.policy"
i=0
while [ $i -le 1024 ]; do echo "rule drop proto udp dport $i"; i=$((i + 1)); done >"$tmp/many.policy"
expect_exit 1 "interface nosuch0 not found" ta attach nosuch0
expect_exit 1 "$V is not a tap device \(it is veth\)" ta attach "$V"
expect_exit 1 "lo is not a tap device" ta attach lo
expect_exit 1 "^$tmp/syntax.policy:2:1: expected a statement" ta policy load "$A" "$tmp/syntax.policy"
expect_exit 1 "^$tmp/bad-port.policy:2:27: expected a port 0..65535" ta policy load "$A" "$tmp/bad-port.policy"
expect_exit 1 "^$tmp/dup.policy:2:1: duplicate rule" ta policy load "$A" "$tmp/dup.policy"
expect_exit 1 "^$tmp/many.policy:1025:1: too many rules: a policy holds at most 1024" ta policy load "$A" "$tmp/many.policy"
expect_exit 1 "^$tmp/bad-mac.policy:1:16: expected a MAC address" ta policy load "$A" "$tmp/bad-mac.policy"
expect_exit 1 "^$tmp/bad-cidr.policy:1:24: expected a prefix length 0..32" ta policy load "$A" "$tmp/bad-cidr.policy"
expect_exit 1 "^$tmp/bad-range.policy:1:17: expected a port range LOW-HIGH" ta policy load "$A" "$tmp/bad-range.policy"
expect_exit 1 "^$tmp/bad-dev.policy:1:1: interface nosuch0 not found" ta policy load "$A" "$tmp/bad-dev.policy"
expect_exit 1 "^$tmp/syntax.policy:2:1: expected a statement" ta attach "$E" --policy "$tmp/syntax.policy"
[ ! -e "$PINS/$E" ] && [ -z "$(xdp_id "$E")" ] && good || bad "a failed attach left a program or pins on $E"
expect_exit 1 "$E has no tap-accel program; attach one" ta policy load "$E" "$tmp/p2.policy"
expect_exit 1 "$E has no tap-accel program" ta detach "$E"

echo "# bad input: a pinned map of an older layout"
slot=$(bpftool -j map lookup pinned "$PINS/$A/ta_config" key 0 0 0 0 | grep -o '"active_slot":[0-9]' | grep -o '[0-9]$')
bpftool map update pinned "$PINS/$A/ta_config" key 0 0 0 0 value 0 0 0 0 "$slot" 0 0 0
expect_exit 1 "layout version 0, this build uses 3.*tap-accel detach $A && tap-accel attach $A" \
	ta policy load "$A" "$tmp/p2.policy"
expect_exit 1 "layout version 0" ta stats "$A"
expect_exit 1 "layout version 0" ta attach "$A" --mode generic
bpftool map update pinned "$PINS/$A/ta_config" key 0 0 0 0 value 3 0 0 0 "$slot" 0 0 0

echo "# bad input: a pinned map of another shape"
expect_exit 0 "attached" ta attach "$E"
rm "$PINS/$E/ta_rules"
bpftool map create "$PINS/$E/ta_rules" type array key 4 value 4 entries 2048 name ta_rules
expect_exit 1 "map ta_rules: type 2 key 4 value 4, expected type 2 key 4 value 8" ta policy load "$E" "$tmp/p2.policy"
expect_exit 1 "map ta_rules: .*expected" ta policy show "$E"
expect_exit 0 "detached tap-accel from $E" ta detach "$E"
[ ! -e "$PINS/$E" ] && [ -z "$(xdp_id "$E")" ] && good || bad "detach of $E left a program or pins"
expect_exit 1 "interface nosuch0 not found" ta policy load nosuch0 "$tmp/p2.policy"
expect_exit 1 "interface nosuch0 not found" ta fdb add nosuch0 52:54:00:00:00:01 "$B"

echo "# bad input: another XDP program"
bpftool prog loadall "$BUILD/bpf/xdp_basic.bpf.o" "$BT" >/dev/null 2>&1
in_ns bpftool net attach xdpdrv pinned "$BT/xdp_pass" dev "$E"
foreign=$(xdp_id "$E")
[ -n "$foreign" ] && good || bad "could not attach a foreign XDP program to $E"
expect_exit 1 "$E has an XDP program tap-accel did not attach \(id $foreign\); use --force to replace it" ta attach "$E"
check "the foreign program is still there" "$foreign" "$(xdp_id "$E")"
expect_exit 1 "its XDP program \(id $foreign\) was not attached by tap-accel" ta detach "$E"
expect_exit 0 "attached tap-accel to $E" ta attach "$E" --force --mode generic
check "--force replaced it" "\"prog_id\":$(xdp_id "$E")" "$(prog_of "$E")"

echo "# bad input: bpffs missing (private mount and pid namespace: no caller's to go to)"
private() { unshare -m -p -f --mount-proc sh -c "umount /sys/fs/bpf && $*"; }
expect_exit 2 "no bpffs is mounted at /sys/fs/bpf.*mount -t bpf bpf /sys/fs/bpf" \
	private nsenter --net=/run/netns/$NS $TA_BIN status
expect_exit 1 "$A has a tap-accel program \(id [0-9]*\) whose pins are missing" \
	private nsenter --net=/run/netns/$NS $TA_BIN attach $A
echo "# a private mount namespace without bpffs uses its caller's"
expect_exit 0 "^$A +generic .* attached$" \
	unshare -m sh -c "umount /sys/fs/bpf && nsenter --net=/run/netns/$NS $TA_BIN status"

echo "# bad input: no CAP_NET_ADMIN"
nocap() { in_ns setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all "$TA_BIN" "$@"; }
expect_exit 2 "policy load needs CAP_NET_ADMIN" nocap policy load "$A" "$tmp/p2.policy"
expect_exit 2 "attach needs CAP_NET_ADMIN" nocap attach "$E"
expect_exit 2 "detach needs CAP_NET_ADMIN" nocap detach "$A"
expect_exit 2 "fdb needs CAP_NET_ADMIN" nocap fdb add "$A" 52:54:00:00:00:01 "$B"

echo "# the state of $A survived all of it"
check "status of $A unchanged" "$state_a" "$(status_of "$A")"
send "sent 10 tx 10 redirect 0 pass 0" "$A" --peer "$B" --count 10 --dport 10
stats_json "$A"
check "policy of $A still applies" "$((counts_a + 10))" "$(rule 1)"

echo "# rates"
tapio "$A" --peer "$B" --count 400000 --dport 10 >/dev/null &
writer=$!
ta stats "$A" --json --interval 0.3 --count 2 >"$tmp/rates.json"
wait $writer
check "two samples" "2" "$(grep -c '"interval":0.3' "$tmp/rates.json")"
rate=$(grep -o '"tx":{"packets_per_sec":[0-9]*' "$tmp/rates.json" | head -n 1 | grep -o '[0-9]*$')
[ "${rate:-0}" -gt 1000 ] && good || bad "tx rate under traffic: '$rate' packets/s"
expect_exit 0 "verdict tx .* pps" ta stats "$A" --interval 0.1 --count 1

# ---- detach and clean --------------------------------------------------------------------
echo "# detach"
expect_exit 0 "detached tap-accel from $A" ta detach "$A"
[ -z "$(xdp_id "$A")" ] && good || bad "a program is still attached to $A"
[ ! -e "$PINS/$A" ] && good || bad "pins of $A are left"
expect_exit 1 "$A has no tap-accel program" ta detach "$A"
send "sent 10 tx 0 redirect 0 pass 10" "$A" --count 10 --dport 9

echo "# clean"
ip -n "$NS" link del "$C"
expect_exit 0 "^$C +- +0 .* gone$" ta status
expect_exit 0 "removed the pins of $C \(interface gone\)" ta clean "$C"
[ ! -e "$PINS/$C" ] && good || bad "clean left $PINS/$C"
[ -e "$PINS/$D/prog" ] && good || bad "clean removed the pins of a live interface"

# Deleted and made again under its name: the old pins are stale, not its.
ip -n "$NS" link del "$D" && ip -n "$NS" tuntap add "$D" mode tap && ip -n "$NS" link set "$D" up
expect_exit 1 "pins of $D are of an earlier $D \(ifindex [0-9]+\), gone with its program" ta stats "$D"
expect_exit 0 "attached tap-accel to $D" ta attach "$D"
expect_exit 0 "verdict pass +0 pkts" ta stats "$D"

# ---- every way of running tap-accel for a namespace --------------------------------
NSX=${NS}x
NSY=${NS}y
W=ta${ID}w
printf 'rule drop proto udp dport 9\ndefault pass\n' >"$tmp/ns.policy"
ip netns add "$NSX" && ip netns add "$NSY" || bad "cannot create netns $NSX and $NSY"
for n in "$NSX" "$NSY"; do
	ip -n "$n" tuntap add "$W" mode tap && ip -n "$n" link set "$W" up ||
		bad "cannot create tap $W in $n"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
PX=$(ns_pins "$NSX")
PY=$(ns_pins "$NSY")
nsx() { ip netns exec "$NSX" "$@"; }
nsy() { ip netns exec "$NSY" "$@"; }
# frames N DPORT NETNS PASSED: N frames to udp port DPORT into tap $W of NETNS
frames() { check "tapio into $W of $3" "sent $1 tx 0 redirect 0 pass $4" \
	"$(ip netns exec "$3" "$TAPIO" "$W" --count "$1" --dport "$2")"; }
drops_passes() { echo "$(verdict drop) $(verdict pass)"; }

echo "# ip netns exec, on a machine without bpffs"
# A private mount and pid namespace with no bpffs stands for a new machine:
# ip netns exec's fresh /sys hides nothing there, and tap-accel must find
# (and mount) the bpffs of the mount namespace it was called from.
cat >"$tmp/session.sh" <<EOF
while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf; done
x() { echo "\$ \$*"; ip netns exec $NSX "\$@" 2>&1; echo "rc \$?"; }
x $TA_BIN attach $W --policy $tmp/ns.policy
x $TA_BIN status
x $TAPIO $W --count 300 --dport 9
x $TAPIO $W --count 200 --dport 10
x $TA_BIN stats $W --json
x $TA_BIN detach $W
echo "xdp \$(ip -n $NSX -d link show $W | grep -c 'prog/xdp')"
echo "pins \$(find $PX -mindepth 1 2>/dev/null | wc -l)"
EOF
unshare -m -p -f --mount-proc sh "$tmp/session.sh" >"$tmp/session.out" 2>&1
sed 's/^/    /' "$tmp/session.out"
check "session: attach" "1" "$(grep -c "^attached tap-accel to $W (native mode)$" "$tmp/session.out")"
check "session: attach mounted a bpffs" "1" "$(grep -c "mounted a bpffs at /sys/fs/bpf" "$tmp/session.out")"
check "session: status lists $W attached" "1" \
	"$(grep -cE "^$W +native +[1-9][0-9]* +1 +pass .* attached$" "$tmp/session.out")"
grep '^{"ifname"' "$tmp/session.out" >"$tmp/stats.json"
check "session: stats counts the frames written into $W" "300 200" "$(drops_passes)"
check "session: rule 0 counted" "300" "$(rule 0)"
check "session: detach" "1" "$(grep -c "^detached tap-accel from $W$" "$tmp/session.out")"
check "session: every command succeeded" "6 6" \
	"$(grep -c '^rc ' "$tmp/session.out") $(grep -c '^rc 0$' "$tmp/session.out")"
check "session: program detached, pins gone" "xdp 0 pins 0" \
	"$(grep '^xdp ' "$tmp/session.out") $(grep '^pins ' "$tmp/session.out")"

echo "# ip netns exec, with the host's bpffs"
expect_exit 0 "^attached tap-accel to $W \(native mode\)$" nsx "$TA_BIN" attach "$W" --policy "$tmp/ns.policy"
[ -e "$PX/$W/prog" ] && [ -e "$PX/$W/tap" ] && good || bad "pins of $W missing under $PX/$W"
expect_exit 0 "^$W +native .* attached$" nsx "$TA_BIN" status
frames 30 9 "$NSX" 0
frames 20 10 "$NSX" 20
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "ip netns exec: stats" "30 20" "$(drops_passes)"
expect_exit 0 "^rule drop proto udp dport 9$" nsx "$TA_BIN" policy show "$W"

echo "# the namespace's own shell"
nsx sh -c "'$TA_BIN' policy load '$W' '$tmp/ns.policy' && '$TAPIO' '$W' --count 10 --dport 9 &&
	'$TA_BIN' stats '$W' --json" >"$tmp/shell.out" 2>&1
grep '^{"ifname"' "$tmp/shell.out" >"$tmp/stats.json"
check "own shell: stats" "40 20" "$(drops_passes)"

echo "# nsenter --net="
nsenter --net="/run/netns/$NSX" "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "nsenter: stats" "40 20" "$(drops_passes)"
expect_exit 0 "fdb 52:54:00:00:00:0e dev $W added" \
	nsenter --net="/run/netns/$NSX" "$TA_BIN" fdb add "$W" 52:54:00:00:00:0e "$W"

echo "# --netns NAME from the root namespace"
expect_exit 0 "^fdb 52:54:00:00:00:0e dev $W$" "$TA_BIN" --netns "$NSX" fdb list "$W"
"$TA_BIN" --netns "$NSX" stats "$W" --json >"$tmp/stats.json" 2>&1
check "--netns: stats" "40 20" "$(drops_passes)"
"$TA_BIN" stats "$W" --json --netns "$NSX" >"$tmp/stats.json" 2>&1
check "--netns after the verb: stats" "40 20" "$(drops_passes)"
expect_exit 0 "^$W +native .* attached$" "$TA_BIN" -n "$NSX" status
expect_exit 0 "loaded $tmp/ns.policy into $W" "$TA_BIN" --netns "$NSX" policy load "$W" "$tmp/ns.policy"
expect_exit 1 "network namespace nosuchns$ID not found.*ip netns" "$TA_BIN" --netns "nosuchns$ID" status
expect_exit 0 "^$W +native .* attached$" "$TA_BIN" --netns "/run/netns/$NSX" status

echo "# two taps named $W, in $NSX and $NSY"
printf 'rule tx proto udp dport 9\ndefault drop\n' >"$tmp/ns2.policy"
expect_exit 0 "^attached tap-accel to $W \(generic mode\)$" nsy "$TA_BIN" attach "$W" --mode generic --policy "$tmp/ns2.policy"
[ -e "$PY/$W/prog" ] && [ "$PX" != "$PY" ] && good || bad "no pins of $W under $PY"
check "tapio into $W of $NSY" "sent 15 tx 15 redirect 0 pass 0" \
	"$(nsy "$TAPIO" "$W" --count 15 --dport 9 --block)"
check "tapio into $W of $NSY" "sent 25 tx 0 redirect 0 pass 0" \
	"$(nsy "$TAPIO" "$W" --count 25 --dport 10 --block)"
frames 5 9 "$NSX" 0
nsy "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "$W of $NSY: its own counters" "15 25 0" "$(verdict tx) $(verdict drop) $(verdict pass)"
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "$W of $NSX: its own counters" "45 20" "$(drops_passes)"
expect_exit 0 "^$W +generic .* 1 +drop .* attached$" nsy "$TA_BIN" status
check "status in $NSY lists only its $W" "1" "$(nsy "$TA_BIN" status | grep -c "^$W ")"
nx=${PX#"$ROOT"/}
ny=${PY#"$ROOT"/}
expect_exit 0 "^\{\"removed\":\[\],\"kept\":\[\"$nx/$W\"\]\}$" nsy "$TA_BIN" --json clean "$W"
expect_exit 0 "^detached tap-accel from $W$" nsy "$TA_BIN" detach "$W"
[ ! -e "$PY/$W" ] && [ -e "$PX/$W/prog" ] && good || bad "detach in $NSY touched the pins of $NSX"
expect_exit 0 "^$W +native .* attached$" nsx "$TA_BIN" status

echo "# clean: a namespace gone, another live"
expect_exit 0 "attached tap-accel to $W" nsy "$TA_BIN" attach "$W" --policy "$tmp/ns2.policy"
expect_exit 0 "kept the pins of $W in $ny \(a tap in another network namespace\)" "$TA_BIN" clean "$W"
ip netns del "$NSY"
# The kernel deletes the namespace's taps a moment later.
tries=0
while [ -e "$PY/$W" ] && [ $tries -lt 50 ]; do
	"$TA_BIN" --json clean "$W" >"$tmp/clean.json" 2>&1
	grep -q "\"removed\":\[\"$ny/$W\"\]" "$tmp/clean.json" && break
	sleep 0.1
	tries=$((tries + 1))
done
check "clean removed the pins of the namespace gone" "1" "$(grep -c "\"removed\":\[\"$ny/$W\"\]" "$tmp/clean.json")"
check "clean kept the live tap of $NSX" "1" "$(grep -c "\"kept\":\[\"$nx/$W\"\]" "$tmp/clean.json")"
[ ! -e "$PY" ] && [ -e "$PX/$W/prog" ] && good || bad "clean: $PY left, or $PX/$W removed"

echo "# pins of the old layout ($ROOT/IFACE, no tap devmap)"
mv "$PX/$W" "$ROOT/$W" && rm "$ROOT/$W/tap" || bad "cannot make old-layout pins of $W"
expect_exit 0 "^$W +native .* attached$" nsx "$TA_BIN" status
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "old layout: stats" "45 20" "$(drops_passes)"
expect_exit 0 "^attached tap-accel to $W" nsx "$TA_BIN" attach "$W"
[ -e "$PX/$W/tap" ] && [ ! -e "$ROOT/$W" ] && good || bad "re-attach did not move the old pins to $PX/$W"
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "old layout moved: counters kept" "45 20" "$(drops_passes)"
expect_exit 0 "^detached tap-accel from $W$" nsx "$TA_BIN" detach "$W"
[ ! -e "$PX" ] && [ -z "$(ip -n "$NSX" -d link show "$W" | grep 'prog/xdp')" ] && good ||
	bad "detach left pins under $PX or a program on $W"
ip netns del "$NSX"

# ---- the bpftool-only path (docs/bpftool.md) --------------------------------------------
echo "# bpftool only"
sh ./bpftool-path.sh "$NS" "$B" "$BPF_OBJ" "$TAPIO" "$BT/only" >"$tmp/bt.out" 2>&1
if grep -q '^bpftool path: ok$' "$tmp/bt.out"; then good; else bad "bpftool path:"; sed 's/^/    /' "$tmp/bt.out"; fi

finish
