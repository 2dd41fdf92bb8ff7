#!/bin/sh
# Host tests of tap-accel on real taps of the running kernel (stock tun), in
# private network namespaces this script creates and always removes, with a
# bpffs of its own (tests/lib/ns.sh). Frames are written by tapio
# (tests/host/tapio.c) into tap A, nonblocking (tun's native XDP) and
# blocking (generic XDP); it reports what came back at A's reader (tx), at
# B's reader (redirect) and into the stack (pass). Counters from 'tap-accel
# stats --json' must equal what was sent, per rule and per verdict, on each
# tap's own counters. Then: policies shared by many taps and replaced under
# traffic, a thousand taps bound and unbound, bad input, every way of
# running tap-accel for a namespace, two taps of one ifindex in two
# namespaces, stats --prometheus (prometheus.sh), and the bpftool-only
# path. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")"
SUITE=$(pwd)/run.sh
TOP=$(cd ../.. && pwd)
BUILD=${BUILD:-$TOP/build}
TA_BIN=$BUILD/user/tap-accel
TAPIO=$BUILD/tests/host/tapio
PROMFILE=$BUILD/tests/host/promfile
ROOT=/sys/fs/bpf/tap-accel

. "$TOP/tests/lib/check.sh"
. "$TOP/tests/lib/ns.sh"

if [ "$(id -u)" != 0 ]; then
	bad "the host tests need root (network namespaces, taps, BPF)"
	finish
fi
own_bpffs "$@"
[ -x "$TA_BIN" ] || make -s -C "$TOP" bpf user >/dev/null 2>&1
if ! make -s -C "$TOP/tests/host"; then
	bad "tapio or promfile does not build"
	finish
fi
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built"; finish; }

# Unique names: netns names are the host's.
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

cleanup() {
	ns_del "$NS" "${NS}x" "${NS}y" "${NS}s" "${NS}p"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ns_add "$NS" || { bad "cannot create netns $NS"; finish; }
taps_add "$NS" "$A" "$B" "$C" "$D" "$E" || { bad "cannot create taps"; finish; }
ip -n "$NS" link add "$V" type veth peer name "${V}p"
tapio() { in_ns "$TAPIO" "$@"; }

# ---- helpers ---------------------------------------------------------------

# send WANT TAPIO-ARGS...: tapio's report must be WANT.
send() {
	want=$1
	shift
	check "tapio $*" "$want" "$(tapio "$@")"
}

# Counters from 'stats IFACE --json' (one line): verdict NAME, rule N,
# prev_rule N (the version replaced), counter NAME (guard/parse/event).
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
field_of() { status_of "$1" | grep -oE "\"$2\":(\"[^\"]*\"|[0-9]*)"; }
xdp_id() { ip -n "$NS" -d link show "$1" | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$'; }
prog_id() { bpftool -j prog show pinned "$ROOT/prog" | grep -o '"id":[0-9]*' | head -n 1 | cut -d: -f2; }

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

# verdict_suite N [--block]: N frames per case; counters add up.
verdict_suite() {
	n=$1
	shift
	send "sent $n tx 0 redirect 0 pass 0" "$A" --peer "$B" --count "$n" --dport 9 "$@"
	send "sent $n tx $n redirect 0 pass 0" "$A" --peer "$B" --count "$n" --dport 10 "$@"
	send "sent $n tx 0 redirect $n pass 0" "$A" --peer "$B" --count "$n" --dport 11 "$@"
	send "sent $n tx 0 redirect 0 pass 0" "$A" --peer "$B" --count "$n" --src 10.9.3.4 --dport 1500 "$@"
	send "sent $n tx 0 redirect 0 pass $n" "$A" --peer "$B" --count "$n" --src 10.9.3.4 --dport 2001 "$@"
	send "sent $n tx 0 redirect 0 pass $n" "$A" --peer "$B" --count "$n" --proto tcp --dport 22 "$@"
}

# check_counts IFACE N: after verdict_suite with N frames in each case.
check_counts() {
	stats_json "$1"
	n=$2
	check "$1 rule 0 (drop dport 9)" "$n" "$(rule 0)"
	check "$1 rule 1 (tx)" "$n" "$(rule 1)"
	check "$1 rule 2 (redirect)" "$n" "$(rule 2)"
	check "$1 rule 3 (drop CIDR+range)" "$n" "$(rule 3)"
	check "$1 rule 4 (pass tcp 22)" "$n" "$(rule 4)"
	check "$1 default" "$n" "$(rule '"default"')"
	check "$1 verdict drop" "$((2 * n))" "$(verdict drop)"
	check "$1 verdict tx" "$n" "$(verdict tx)"
	check "$1 verdict redirect" "$n" "$(verdict redirect)"
	check "$1 verdict pass" "$((2 * n))" "$(verdict pass)"
	check "$1 verdict aborted" "0" "$(verdict aborted)"
}

initial=$(tap_accel_objects)

# ---- the first attach makes the plane ---------------------------------------
echo "# attach: the program loaded once, the tap bound"
expect_exit 0 "attached tap-accel to $A \(native mode\), policy p1" ta attach "$A" --policy "$tmp/p1.policy"
[ -e "$ROOT/prog" ] && [ -e "$ROOT/ta_config" ] && [ -e "$ROOT/ta_tap_slots" ] && good ||
	bad "the plane's pins are missing under $ROOT"
links=$(ls "$ROOT/links")
check "one link pin" "1" "$(echo "$links" | grep -c ':')"
check "the link is the tap's" "$(ip -n "$NS" -o link show "$A" | cut -d: -f1)" "${links##*:}"
check "status" '"state":"attached"' "$(field_of "$A" state)"
check "status: its policy" '"policy":"p1"' "$(field_of "$A" policy)"
check "XDP program on $A is the plane's" "$(prog_id)" "$(xdp_id "$A")"
expect_exit 0 "^p1 +5 +pass +[0-9a-f]{16} +1$" ta policy list
verdict_suite 100
check_counts "$A" 100
echo "# blocking writer (tun runs the program as generic XDP)"
verdict_suite 50 --block
check_counts "$A" 150

echo "# attach again: nothing lost"
prog=$(xdp_id "$A")
expect_exit 0 "^$A: policy p1, guard - \(bound already: switched at once\)$" ta attach "$A"
check "the program stays" "$prog" "$(xdp_id "$A")"
stats_json "$A"
check "counters kept" "150" "$(rule 0)"
expect_exit 1 "$A is bound in native mode; detach it first to change the mode" ta attach "$A" --mode generic
expect_exit 0 "attached tap-accel to $C \(generic mode\), policy p1" ta attach "$C" --mode generic --policy p1
check "one program for both modes" "$(prog_id)" "$(ip -n "$NS" -d link show "$C" | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$')"
check "status generic" '"mode":"generic"' "$(field_of "$C" mode)"

# ---- a policy shared ----------------------------------------------------------
echo "# two taps, one policy, each its own counters"
send "sent 30 tx 0 redirect 0 pass 0" "$C" --count 30 --dport 9 --block
send "sent 20 tx 0 redirect 0 pass 20" "$C" --count 20 --dport 12 --block
stats_json "$C"
check "$C rule 0" "30" "$(rule 0)"
check "$C default" "20" "$(rule '"default"')"
check "$C saw no frame of $A" "30 20" "$(verdict drop) $(verdict pass)"
check_counts "$A" 150
expect_exit 0 "^p1 +5 +pass +[0-9a-f]{16} +2$" ta policy list
expect_exit 0 '^\[\{"policy":"p1","rules":5,"default":"pass","digest":"[0-9a-f]{16}","taps":2,"unbound":false\}\]$' \
	ta policy list --json

echo "# policy show: the maps read back as a policy file"
expect_exit 0 "^rule redirect $B proto udp dport 11$" ta policy show p1
expect_exit 0 "^# policy p1: 5 rules, digest [0-9a-f]{16}, 2 taps$" ta policy show p1
expect_exit 0 "^# $A: policy p1, 5 rules" ta policy show "$A"
expect_exit 0 '"rules":\[\{"action":"drop","proto":17,"dport":"9"\}' ta policy show --json p1

# ---- replacing a policy -------------------------------------------------------
echo "# policy load NAME: a new version for every tap bound"
printf 'rule drop proto udp dport 9\nrule tx proto udp dport 12\ndefault drop\n' >"$tmp/p1b.policy"
expect_exit 0 "loaded $tmp/p1b.policy as policy p1: 2 rules, default drop, .*replaced for 2 taps" \
	ta policy load p1 "$tmp/p1b.policy"
send "sent 10 tx 10 redirect 0 pass 0" "$A" --count 10 --dport 12
send "sent 10 tx 10 redirect 0 pass 0" "$C" --count 10 --dport 12 --block
stats_json "$C"
check "$C: new version's rule 1" "10" "$(rule 1)"
check "$C: the version before still reads" "30" "$(prev_rule 0)"
expect_exit 0 "unchanged, 2 taps" ta policy load p1 "$tmp/p1b.policy"
expect_exit 0 "^# policy p1 \(the version before\): 5 rules" ta policy show p1 --previous
printf 'guard mac 52:54:00:00:00:01\nrule drop\n' >"$tmp/guarded.policy"
expect_exit 1 "policy p1: a guard holds one guest's addresses, so it belongs to a tap" \
	ta policy load p1 "$tmp/guarded.policy"
expect_exit 0 "^p1 +2 +drop" ta policy list
printf '# the same rules, written otherwise\nrule drop proto 17 dport 9 # udp\n\nrule tx  proto udp dport 12\ndefault drop\n' >"$tmp/p1c.policy"
expect_exit 0 "unchanged, 2 taps" ta policy load p1 "$tmp/p1c.policy"

echo "# policy load binds no tap, and loads policy default only when told"
expect_exit 1 "^tap-accel: policy load: $A is an interface, not a loaded policy, and 'policy load' binds no tap: bind it to the policy $tmp/p1b.policy makes with 'tap-accel attach $A --policy $tmp/p1b.policy'" \
	ta policy load "$A" "$tmp/p1b.policy"
check "policy load IFACE: no policy of that name" 0 "$(ta policy list | grep -c "^$A ")"
check "policy load IFACE: $A still on p1" '"policy":"p1"' "$(field_of "$A" policy)"
printf 'rule drop proto udp dport 7\ndefault pass\n' >"$tmp/def.policy"
expect_exit 1 "^tap-accel: policy load: policy default is what every 'attach' without --policy binds a new tap to: replace it with 'tap-accel policy load --default $tmp/def.policy'" \
	ta policy load default "$tmp/def.policy"
expect_exit 1 "policy load: --default loads FILE as policy default: give FILE alone" \
	ta policy load --default web "$tmp/def.policy"
expect_exit 0 "^loaded $tmp/def.policy as policy default: 1 rules" \
	ta policy load --default "$tmp/def.policy"
printf 'default pass\n' >"$tmp/def.policy"
expect_exit 0 "^loaded $tmp/def.policy as policy default: 0 rules" \
	ta policy load --default "$tmp/def.policy"

echo "# replaced under traffic on 100 taps: no frame judged by a mix"
ns_add "${NS}s" || bad "cannot create ${NS}s"
taps_batch "${NS}s" s 100 || bad "cannot create 100 taps"
printf 'rule drop proto udp dport 7\n' >"$tmp/swap-a.policy"
printf 'rule tx proto udp dport 7\n' >"$tmp/swap-b.policy"
NS0=$NS
NS=${NS}s
expect_exit 0 "loaded .* as policy swap: 1 rules" ta policy load swap "$tmp/swap-a.policy"
taps=$(seq -f 's%g' 1 100)
# shellcheck disable=SC2086
expect_exit 0 "attached tap-accel to s100" ta attach $taps --policy swap
N=200000
for w in 1 2 3; do
	in_ns "$TAPIO" "s$w" --count $N --dport 7 >"$tmp/swap$w.out" &
done
tries=0
while stats_json s1 && [ "$(verdict drop)" = 0 ] && [ $tries -lt 200 ]; do
	sleep 0.01
	tries=$((tries + 1))
done
expect_exit 0 "as policy swap: 1 rules, .*replaced for 100 taps" ta policy load swap "$tmp/swap-b.policy"
wait
for w in 1 2 3; do
	read -r _ _ _ txed _ _ _ passed <"$tmp/swap$w.out"
	stats_json "s$w"
	drops=$(prev_rule 0)
	txs=$(rule 0)
	check "swap s$w: every frame counted once" "$N" "$((drops + txs))"
	check "swap s$w: verdict drop = old version's" "$drops" "$(verdict drop)"
	check "swap s$w: verdict tx = new version's" "$txs" "$(verdict tx)"
	check "swap s$w: tx read back = tx counted" "$txs" "$txed"
	check "swap s$w: no frame fell to the default" "0 0" "$passed $(verdict pass)"
	[ "${drops:-0}" -gt 0 ] && [ "${txs:-0}" -gt 0 ] && good ||
		bad "swap s$w did not happen under traffic (old $drops, new $txs)"
done
# shellcheck disable=SC2086
expect_exit 0 "detached tap-accel from s100" ta detach $taps
NS=$NS0

# ---- fdb, guard, rate ----------------------------------------------------------------
echo "# fdb"
cat >"$tmp/fdb.policy" <<EOF
fdb 52:54:00:00:00:0b dev $B
default forward
EOF
expect_exit 0 "attached tap-accel to $D .*policy fdb" ta attach "$D" --policy "$tmp/fdb.policy"
send "sent 20 tx 0 redirect 20 pass 0" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0b
send "sent 20 tx 0 redirect 0 pass 20" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
expect_exit 0 "fdb 52:54:00:00:00:0c dev $B added" ta fdb add "$D" 52:54:00:00:00:0c "$B"
expect_exit 0 "fdb 52:54:00:00:00:0c dev $B" ta fdb list "$D"
send "sent 20 tx 0 redirect 20 pass 0" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
expect_exit 0 "fdb 52:54:00:00:00:0c deleted" ta fdb del "$D" 52:54:00:00:00:0c
expect_exit 1 "has no fdb entry for 52:54:00:00:00:0c" ta fdb del "$D" 52:54:00:00:00:0c
expect_exit 1 "is a group address" ta fdb add "$D" ff:ff:ff:ff:ff:ff "$B"
expect_exit 1 "^tap-accel: fdb add: $D is $D itself: its guest's frames would come back to it; give another tap or a NIC" \
	ta fdb add "$D" 52:54:00:00:00:0d "$D"
expect_exit 1 "^tap-accel: fdb add: lo is a loopback device, where forwarded frames go nowhere" \
	ta fdb add "$D" 52:54:00:00:00:0d lo
expect_exit 1 "has no fdb entry for 52:54:00:00:00:0d" ta fdb del "$D" 52:54:00:00:00:0d
send "sent 20 tx 0 redirect 0 pass 20" "$D" --peer "$B" --count 20 --dmac 52:54:00:00:00:0c
stats_json "$D"
check "fdb hits" "40" "$(counter fdb_hit)"
check "fdb misses" "40" "$(counter fdb_miss)"

echo "# guard: the tap's, given at attach"
expect_exit 0 "^$D: policy default, guard mac,ip4 \(bound already" ta attach "$D" --policy default --guard mac=52:54:00:00:00:01,ip=10.0.0.1
check "status: the guard" '"guard":"mac,ip4"' "$(field_of "$D" guard)"
send "sent 10 tx 0 redirect 0 pass 10" "$D" --count 10
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --smac 52:54:00:00:00:66
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --src 10.0.0.66
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --proto arp --src 10.0.0.66
stats_json "$D"
check "guard src_mac" "10" "$(counter src_mac)"
check "guard ip4_src" "10" "$(counter ip4_src)"
check "guard arp_spa" "10" "$(counter arp_spa)"
expect_exit 0 "^guard mac 52:54:00:00:00:01 ip 10.0.0.1$" ta policy show "$D"
# an IPv4-mapped address is no IPv4 guard: refused, and the guard kept
expect_exit 1 "^tap-accel: attach: --guard: guard address '::ffff:10.0.0.1' is IPv4-mapped \(::ffff:0:0/96\), which never appears on the wire: give the IPv4 address, 10.0.0.1$" \
	ta attach "$D" --guard mac=52:54:00:00:00:01,ip=::ffff:10.0.0.1
check "a refused guard: the one before kept" '"guard":"mac,ip4"' "$(field_of "$D" guard)"
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --src 10.99.99.99
stats_json "$D"
check "a refused guard: IPv4 still guarded" "20" "$(counter ip4_src)"
expect_exit 0 "^$D: policy default, guard mac,ip4 \(bound already" ta attach "$D"
check "an attach that says nothing of the guard keeps it" '"guard":"mac,ip4"' "$(field_of "$D" guard)"
expect_exit 0 "^$D: policy default, guard - \(bound already" ta attach "$D" --guard none
check "--guard none" '"guard":"-"' "$(field_of "$D" guard)"

echo "# rate: the policy's, a bucket per tap"
printf 'rate 100pps burst 100\n' >"$tmp/rate.policy"
expect_exit 0 "^$D: policy rate, guard - \(bound already" ta attach "$D" --policy "$tmp/rate.policy"
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
ta policy load --json r1000 "$tmp/r1000.policy" >"$tmp/load.json"
ta attach "$D" --policy r1000 >/dev/null || bad "attach $D --policy r1000"
check "1000 rules loaded" "1" "$(grep -c '"rules":1000' "$tmp/load.json")"
echo "policy load of 1000 rules: $(grep -o '"load_ms":[0-9.]*' "$tmp/load.json" | cut -d: -f2) ms"
send "sent 10 tx 0 redirect 0 pass 0" "$D" --count 10 --src 10.3.231.9 --dport 2099
send "sent 10 tx 0 redirect 0 pass 10" "$D" --count 10 --src 10.3.231.9 --dport 2101
stats_json "$D"
check "rule 999 of 1000" "10" "$(rule 999)"

echo "# every example loads, and shows as it loads"
for t in vm2-tap0 vm3-tap0 game0 vnet-a vnet-b; do ip -n "$NS" tuntap add "$t" mode tap; done
# rules_of FILE: the rules and default of a policy file, as JSON
rules_of() { ta policy check --json "$1" | sed 's/"line":[0-9]*,//g; s/.*"rules"/"rules"/; s/,"guard".*//'; }
cp "$tmp/p1.policy" "$tmp/p1-copy.policy"
for f in "$TOP"/examples/*.policy "$tmp/p1-copy.policy"; do
	expect_exit 0 "^$D: policy " ta attach "$D" --policy "$f"
	# policy show reads the maps back as a policy file: the same rules,
	# and loading what it shows shows the same again.
	ta policy show "$D" >"$tmp/shown.policy"
	check "policy show of $f has its rules" "$(rules_of "$f")" "$(rules_of "$tmp/shown.policy")"
	ta attach "$D" --policy "$tmp/shown.policy" >/dev/null
	ta policy show "$D" | sed 1d >"$tmp/shown2.policy"
	check "policy show of $f is a fixpoint" "$(sed 1d "$tmp/shown.policy")" "$(cat "$tmp/shown2.policy")"
done
ta policy load r1000 "$tmp/r1000.policy" >/dev/null
ta policy show r1000 >"$tmp/shown.policy"
check "policy show of 1000 rules" "$(rules_of "$tmp/r1000.policy")" "$(rules_of "$tmp/shown.policy")"
expect_exit 0 "unloaded policy r1000" ta policy unload r1000
expect_exit 1 "policy p1 is bound to 2 taps; bind them to another policy or detach them first" \
	ta policy unload p1
expect_exit 1 "no policy nosuch is loaded" ta policy unload nosuch

# ---- bad input leaves the state intact --------------------------------------
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
expect_exit 1 "^$tmp/syntax.policy:2:1: expected a statement" ta policy load p1 "$tmp/syntax.policy"
expect_exit 1 "^$tmp/bad-port.policy:2:27: expected a port 0..65535" ta policy load p1 "$tmp/bad-port.policy"
expect_exit 1 "^$tmp/dup.policy:2:1: duplicate rule" ta policy load p1 "$tmp/dup.policy"
expect_exit 1 "^$tmp/many.policy:1025:1: too many rules: a policy holds at most 1024" ta policy load p1 "$tmp/many.policy"
expect_exit 1 "^$tmp/bad-mac.policy:1:16: expected a MAC address" ta policy load p1 "$tmp/bad-mac.policy"
expect_exit 1 "^$tmp/bad-cidr.policy:1:24: expected a prefix length 0..32" ta policy load p1 "$tmp/bad-cidr.policy"
expect_exit 1 "^$tmp/bad-range.policy:1:17: expected a port range LOW-HIGH" ta policy load p1 "$tmp/bad-range.policy"
expect_exit 1 "^$tmp/bad-dev.policy:1:1: interface nosuch0 not found" ta policy load p1 "$tmp/bad-dev.policy"
expect_exit 1 "'bad name' is not a policy name" ta policy load "bad name" "$tmp/p1.policy"
expect_exit 1 "^$tmp/syntax.policy:2:1: expected a statement" ta attach "$E" --policy "$tmp/syntax.policy"
expect_exit 1 "no policy nosuch is loaded" ta attach "$E" --policy nosuch
[ -z "$(xdp_id "$E")" ] && [ -z "$(status_of "$E")" ] && good || bad "a failed attach left a program or a binding on $E"
expect_exit 1 "$E has no tap-accel program" ta detach "$E"
expect_exit 1 "$E is not bound to a policy; bind it with 'tap-accel attach $E'" ta stats "$E"
printf 'rule drop proto udp dport 99\n' >"$tmp/p1.policy"
expect_exit 1 "policy p1 is bound to 2 other taps and holds other rules than $tmp/p1.policy" \
	ta attach "$E" --policy "$tmp/p1.policy"

echo "# bad input: state of another layout"
cfg=$(bpftool -j map lookup pinned "$ROOT/ta_config" key 0 0 0 0 | grep -o '"value":{[^}]*}')
bpftool map update pinned "$ROOT/ta_config" key 0 0 0 0 value 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
expect_exit 1 "layout version 0, this build uses 4.*tap-accel clean --all" ta status
expect_exit 1 "layout version 0" ta attach "$E"
expect_exit 1 "layout version 0" ta policy load p1 "$tmp/p1b.policy"
layout() { echo "$cfg" | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }
le32() { printf '%d %d %d %d' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
# shellcheck disable=SC2046
bpftool map update pinned "$ROOT/ta_config" key 0 0 0 0 value $(le32 4) $(le32 "$(layout unbound_action)") \
	$(le32 "$(layout unbound_policy)") $(le32 "$(layout unbound_stats)") $(le32 0) $(le32 0)
expect_exit 0 "$A " ta status
# stock tun: no word of tapx's default program, in either form
check "status: nothing of tapx" "" "$(ta status | grep "^tapx:"; ta status --json | grep -o tapx_default)"

echo "# bad input: another XDP program"
mkdir -p "$BT"
bpftool prog loadall "$BUILD/bpf/xdp_basic.bpf.o" "$BT" >/dev/null 2>&1
in_ns bpftool net attach xdpdrv pinned "$BT/xdp_pass" dev "$E"
foreign=$(xdp_id "$E")
[ -n "$foreign" ] && good || bad "could not attach a foreign XDP program to $E"
expect_exit 1 "another XDP program is attached to $E \(id $foreign, xdp_pass\); use --force to replace it" ta attach "$E"
check "the foreign program is still there" "$foreign" "$(xdp_id "$E")"
[ -z "$(status_of "$E")" ] && good || bad "the refused attach left a binding on $E"
expect_exit 0 "attached tap-accel to $E \(generic mode\)" ta attach "$E" --force --mode generic
check "--force replaced it" "$(prog_id)" "$(ip -n "$NS" -d link show "$E" | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$')"
echo "# nothing replaces the link silently"
in_ns bpftool net attach xdpdrv pinned "$BT/xdp_pass" dev "$A" overwrite 2>/dev/null &&
	bad "bpftool replaced the program of a tap tap-accel holds with a link" || good
in_ns ip link set dev "$A" xdp off 2>/dev/null &&
	bad "ip link detached the program of a tap tap-accel holds with a link" || good
check "the link held" "$(prog_id)" "$(xdp_id "$A")"
rm -rf "$BT"

echo "# bad input: no CAP_NET_ADMIN"
nocap() { in_ns setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all "$TA_BIN" "$@"; }
expect_exit 2 "policy load needs CAP_NET_ADMIN" nocap policy load p1 "$tmp/p1b.policy"
expect_exit 2 "attach needs CAP_NET_ADMIN" nocap attach "$E"
expect_exit 2 "detach needs CAP_NET_ADMIN" nocap detach "$A"
expect_exit 2 "fdb needs CAP_NET_ADMIN" nocap fdb add "$A" 52:54:00:00:00:01 "$B"

echo "# the state of $A survived all of it"
check "status of $A unchanged" "$state_a" "$(status_of "$A")"
send "sent 10 tx 10 redirect 0 pass 0" "$A" --count 10 --dport 12
stats_json "$A"
check "policy of $A still applies" "$((counts_a + 10))" "$(rule 1)"

echo "# rates"
tapio "$A" --count 400000 --dport 12 >/dev/null &
writer=$!
ta stats "$A" --json --interval 0.3 --count 2 >"$tmp/rates.json"
wait $writer
check "two samples" "2" "$(grep -c '"interval":0.3' "$tmp/rates.json")"
rate=$(grep -o '"tx":{"packets_per_sec":[0-9]*' "$tmp/rates.json" | head -n 1 | grep -o '[0-9]*$')
[ "${rate:-0}" -gt 1000 ] && good || bad "tx rate under traffic: '$rate' packets/s"
expect_exit 0 "verdict tx .* pps" ta stats "$A" --interval 0.1 --count 1

# ---- stats --prometheus ------------------------------------------------------------
# prometheus.sh binds taps of its own here and in ${NS}p, checks, unbinds
# them, and ends with its own "N passed, N failed": added to ours.
sh ./prometheus.sh "$NS" "$TA_BIN" "$TAPIO" "$PROMFILE" >"$tmp/prom.out" 2>&1
sed '$d' "$tmp/prom.out"
tally prometheus.sh "$(tail -n 1 "$tmp/prom.out")"

# ---- detach and clean --------------------------------------------------------------------
echo "# detach"
expect_exit 0 "detached tap-accel from $A" ta detach "$A"
[ -z "$(xdp_id "$A")" ] && good || bad "a program is still attached to $A"
[ -z "$(status_of "$A")" ] && good || bad "$A is still listed"
expect_exit 1 "$A has no tap-accel program" ta detach "$A"
send "sent 10 tx 0 redirect 0 pass 10" "$A" --count 10 --dport 9

echo "# clean"
ip -n "$NS" link del "$C"
expect_exit 0 "^$C .* gone$" ta status
expect_exit 0 "removed the binding of $C \(interface gone\)" ta clean "$C"
[ -z "$(status_of "$C")" ] && good || bad "clean left the binding of $C"
check "clean kept the live $D" '"state":"attached"' "$(field_of "$D" state)"
# Deleted and made again under its name: a new tap, not bound.
ip -n "$NS" link del "$D" && ip -n "$NS" tuntap add "$D" mode tap && ip -n "$NS" link set "$D" up
expect_exit 1 "$D is not bound to a policy" ta stats "$D"
expect_exit 0 "attached tap-accel to $D" ta attach "$D"
expect_exit 0 "verdict pass +0 pkts" ta stats "$D"
expect_exit 0 "removed the binding of $D \(interface gone\)" ta clean

# ---- every way of running tap-accel for a namespace --------------------------------
NSX=${NS}x
NSY=${NS}y
W=ta${ID}w
printf 'rule drop proto udp dport 9\ndefault pass\n' >"$tmp/ns.policy"
ns_add "$NSX" && ns_add "$NSY" || bad "cannot create netns $NSX and $NSY"
taps_add "$NSX" "$W" && taps_add "$NSY" "$W" || bad "cannot create tap $W in $NSX and $NSY"
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
echo "links \$(ls $ROOT/links | wc -l)"
EOF
unshare -m -p -f --mount-proc sh "$tmp/session.sh" >"$tmp/session.out" 2>&1
sed 's/^/    /' "$tmp/session.out"
check "session: attach" "1" "$(grep -c "^attached tap-accel to $W (native mode), policy ns, guard -$" "$tmp/session.out")"
check "session: attach mounted a bpffs" "1" "$(grep -c "mounted a bpffs at /sys/fs/bpf" "$tmp/session.out")"
check "session: status lists $W attached" "1" \
	"$(grep -cE "^$W +native +ns +1 +pass .* attached$" "$tmp/session.out")"
grep '^{"ifname"' "$tmp/session.out" >"$tmp/stats.json"
check "session: stats counts the frames written into $W" "300 200" "$(drops_passes)"
check "session: rule 0 counted" "300" "$(rule 0)"
check "session: detach" "1" "$(grep -c "^detached tap-accel from $W$" "$tmp/session.out")"
check "session: every command succeeded" "6 6" \
	"$(grep -c '^rc ' "$tmp/session.out") $(grep -c '^rc 0$' "$tmp/session.out")"
check "session: program detached, no link" "xdp 0 links 0" \
	"$(grep '^xdp ' "$tmp/session.out") $(grep '^links ' "$tmp/session.out")"

echo "# ip netns exec, its command alone in the mount namespace: no bpffs mounted there"
# A pid namespace of its own, where tap-accel is PID 1 and alone in the
# mount namespace ip netns exec made (as one whose parent has gone, on a
# host whose PID 1 it cannot read): a bpffs mounted there would go with it,
# and the tap's program with it.
cat >"$tmp/alone.sh" <<EOF
while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf; done
exec ip netns exec $NSX $TA_BIN attach $W --policy $tmp/ns.policy
EOF
unshare -m -p -f --mount-proc sh "$tmp/alone.sh" >"$tmp/alone.out" 2>&1
rc=$?
check "alone: attach fails ($(cat "$tmp/alone.out"))" 2 "$rc"
check "alone: why, and the fix" 1 "$(grep -c "no bpffs at /sys/fs/bpf, and this mount namespace ends with this command .*'tap-accel --netns NAME \.\.\.' or 'nsenter --net=/run/netns/NAME tap-accel \.\.\.'" "$tmp/alone.out")"
check "alone: no success reported" 0 "$(grep -c '^attached\|mounted a bpffs' "$tmp/alone.out")"
check "alone: no program left on $W" 0 "$(ip -n "$NSX" -d link show "$W" | grep -c 'prog/xdp')"

echo "# ip netns exec, with the suite's bpffs"
expect_exit 0 "^attached tap-accel to $W \(native mode\), policy ns, guard -$" nsx "$TA_BIN" attach "$W" --policy "$tmp/ns.policy"
expect_exit 0 "^$W +native +ns .* attached$" nsx "$TA_BIN" status
frames 30 9 "$NSX" 0
frames 20 10 "$NSX" 20
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "ip netns exec: stats" "30 20" "$(drops_passes)"
expect_exit 0 "^rule drop proto udp dport 9$" nsx "$TA_BIN" policy show "$W"

echo "# the namespace's own shell"
nsx sh -c "'$TAPIO' '$W' --count 10 --dport 9 && '$TA_BIN' stats '$W' --json" >"$tmp/shell.out" 2>&1
grep '^{"ifname"' "$tmp/shell.out" >"$tmp/stats.json"
check "own shell: stats" "40 20" "$(drops_passes)"

echo "# --netns NAME from the root namespace"
ip -n "$NSX" tuntap add "${W}f" mode tap || bad "cannot create tap ${W}f in $NSX"
expect_exit 0 "fdb 52:54:00:00:00:0e dev ${W}f added" "$TA_BIN" --netns "$NSX" fdb add "$W" 52:54:00:00:00:0e "${W}f"
expect_exit 0 "^fdb 52:54:00:00:00:0e dev ${W}f$" "$TA_BIN" --netns "$NSX" fdb list "$W"
"$TA_BIN" stats "$W" --json --netns "$NSX" >"$tmp/stats.json" 2>&1
check "--netns after the verb: stats" "40 20" "$(drops_passes)"
expect_exit 0 "^$W +native .* attached$" "$TA_BIN" -n "$NSX" status
expect_exit 1 "network namespace nosuchns$ID not found.*ip netns" "$TA_BIN" --netns "nosuchns$ID" status
expect_exit 0 "^$W +native .* attached$" "$TA_BIN" --netns "/run/netns/$NSX" status

echo "# two taps of one ifindex, in $NSX and $NSY"
ifx=$(ip -n "$NSX" -o link show "$W" | cut -d: -f1)
ify=$(ip -n "$NSY" -o link show "$W" | cut -d: -f1)
check "the same ifindex in both namespaces" "$ifx" "$ify"
printf 'rule tx proto udp dport 9\ndefault drop\n' >"$tmp/ns2.policy"
expect_exit 0 "^attached tap-accel to $W \(generic mode\), policy ns2, guard -$" nsy "$TA_BIN" attach "$W" --mode generic --policy "$tmp/ns2.policy"
check "tapio into $W of $NSY" "sent 15 tx 15 redirect 0 pass 0" \
	"$(nsy "$TAPIO" "$W" --count 15 --dport 9 --block)"
check "tapio into $W of $NSY" "sent 25 tx 0 redirect 0 pass 0" \
	"$(nsy "$TAPIO" "$W" --count 25 --dport 10 --block)"
frames 5 9 "$NSX" 0
nsy "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "$W of $NSY: its own counters" "15 25 0" "$(verdict tx) $(verdict drop) $(verdict pass)"
nsx "$TA_BIN" stats "$W" --json >"$tmp/stats.json" 2>&1
check "$W of $NSX: its own counters" "45 20" "$(drops_passes)"
check "status in $NSY lists only its $W" "1" "$(nsy "$TA_BIN" status | grep -c "^$W ")"
check "status --all lists both" "2" "$(nsy "$TA_BIN" status --all | grep -c "$W ")"
expect_exit 0 "^detached tap-accel from $W$" nsy "$TA_BIN" detach "$W"
expect_exit 0 "^$W +native .* attached$" nsx "$TA_BIN" status

echo "# clean: a namespace gone, another live"
expect_exit 0 "attached tap-accel to $W" nsy "$TA_BIN" attach "$W" --policy ns2
ip netns del "$NSY"
# The kernel deletes the namespace's taps a moment later.
tries=0
while [ $tries -lt 50 ]; do
	"$TA_BIN" --json clean >"$tmp/clean.json" 2>&1
	grep -q '"removed":\["net:[0-9]*/'"$W"'"\]' "$tmp/clean.json" && break
	sleep 0.1
	tries=$((tries + 1))
done
check "clean removed the binding of the namespace gone" "1" \
	"$(grep -c '"removed":\["net:[0-9]*/'"$W"'"\]' "$tmp/clean.json")"
expect_exit 0 "^$W +native .* attached$" nsx "$TA_BIN" status
expect_exit 0 "^detached tap-accel from $W$" nsx "$TA_BIN" detach "$W"
ip netns del "$NSX"

# ---- a thousand taps --------------------------------------------------------------
echo "# 1000 taps bound in one call and unbound"
NS=${NS}s
before=$(tap_accel_objects)
links_before=$(ls "$ROOT/links" | wc -l)
taps_batch "$NS" m 1000 || bad "cannot create 1000 taps"
# shellcheck disable=SC2046
expect_exit 0 "attached tap-accel to m1000 \(native mode\), policy swap" ta attach $(seq -f 'm%g' 1 1000) --policy swap
check "1000 taps attached" "1000" "$(ta status | grep -c ' attached$')"
for t in 1 333 1000; do
	send "sent 7$t tx 7$t redirect 0 pass 0" "m$t" --count "7$t" --dport 7
	send "sent 3 tx 0 redirect 0 pass 3" "m$t" --count 3 --dport 8
done
for t in 1 333 1000; do
	stats_json "m$t"
	check "m$t: its own rule 0" "7$t" "$(rule 0)"
	check "m$t: its own verdicts" "7$t 3" "$(verdict tx) $(verdict pass)"
done
stats_json m2
check "m2 saw none of it" "0 0" "$(verdict tx) $(verdict pass)"
# shellcheck disable=SC2046
expect_exit 0 "detached tap-accel from m1000" ta detach $(seq -f 'm%g' 1 1000)
check "nothing of the 1000 taps is left (bpftool's lists)" "$before" "$(tap_accel_objects)"
check "their link pins gone" "$links_before" "$(ls "$ROOT/links" | wc -l)"
NS=$NS0

# ---- the bpftool-only path (docs/bpftool.md) --------------------------------------------
echo "# bpftool only"
sh ./bpftool-path.sh "$NS" "$B" "$BUILD/bpf" "$TAPIO" "/sys/fs/bpf/only$ID" >"$tmp/bt.out" 2>&1
if grep -q '^bpftool path: ok$' "$tmp/bt.out"; then good; else bad "bpftool path:"; sed 's/^/    /' "$tmp/bt.out"; fi

echo "# clean --all: nothing of tap-accel left"
ta detach "$B" "$E" >/dev/null 2>&1
expect_exit 0 "removed every tap-accel program, link, map and pin" ta clean --all
[ ! -e "$ROOT" ] && good || bad "$ROOT is left after clean --all"
# the kernel frees a program and its maps a moment after their last user
tries=0
while [ "$(tap_accel_objects)" != "$initial" ] && [ $tries -lt 50 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
check "no tap-accel object in the kernel but what was there before" "$initial" "$(tap_accel_objects)"

finish
