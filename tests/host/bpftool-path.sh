#!/bin/sh
# The bpftool-only path of docs/bpftool.md, command for command: load and
# pin, write one rule and a guard, attach, send, read the counters, detach.
# Usage: bpftool-path.sh NETNS TAP OBJECT TAPIO PINDIR
# Prints "bpftool path: ok" when every counter is what was sent.
set -eu
NS=$1 TAP=$2 OBJ=$3 TAPIO=$4 DIR=$5
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
fail() { echo "bpftool path: $*"; exit 1; }

# hex BYTES...: the bytes, padded with zeros to $size (as in the doc).
hex() { echo "$@" $(yes 00 | head -n $(( $size - $# ))); }

# packets MAP KEY: packets summed over the CPUs of a per-CPU counter.
packets() {
	bpftool -j map lookup pinned "$DIR/maps/$1" key "$2" 0 0 0 |
		grep -o '"packets":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }'
}

# 1. load the object, pin the program and every map by name
bpftool prog loadall "$OBJ" "$DIR" pinmaps "$DIR/maps"

# 2. ta_config: layout version 3, policy slot 0 active
bpftool map update pinned "$DIR/maps/ta_config" key 0 0 0 0 value 3 0 0 0 0 0 0 0

# 3. one rule in slot 0, "rule drop proto udp dport 9":
#    bit-vector 1 holds rule 0 (bit-vector 0 stays empty: no rule)
size=128
bpftool map update pinned "$DIR/maps/ta_bitvecs" key 1 0 0 0 value hex $(hex 01)
#    protocol 17 and port 9 of slot 0 accept the rules of bit-vector 1
bpftool map update pinned "$DIR/maps/ta_ip_proto" key 17 0 0 0 value 1 0 0 0
bpftool map update pinned "$DIR/maps/ta_dst_port" key 9 0 0 0 value 1 0 0 0
#    rule 0 drops (action 1, ifindex 0)
bpftool map update pinned "$DIR/maps/ta_rules" key 0 0 0 0 value 1 0 0 0 0 0 0 0
#    slot 0 header: 1 rule, default pass, fields proto and dport (0x140)
size=64
bpftool map update pinned "$DIR/maps/ta_policy" key 0 0 0 0 value hex $(hex 01 00 00 00 00 00 00 00 00 00 00 00 40 01 00 00)

# 4. guard: only source MAC 52:54:00:00:00:01 (flag 1)
bpftool map update pinned "$DIR/maps/ta_guard" key 0 0 0 0 value hex 01 00 00 00 52 54 00 00 00 01 00 00

# 5. attach (native XDP; xdpgeneric for generic)
in_ns bpftool net attach xdpdrv pinned "$DIR/tap_accel_policy" dev "$TAP"
in_ns ip link show dev "$TAP" | grep -q "prog/xdp id" || fail "not attached"

# 6. traffic: 10 frames the rule drops, 10 it passes, 10 the guard drops
in_ns "$TAPIO" "$TAP" --count 10 --dport 9 >/dev/null
in_ns "$TAPIO" "$TAP" --count 10 --dport 10 >/dev/null
in_ns "$TAPIO" "$TAP" --count 10 --dport 10 --smac 52:54:00:00:00:66 >/dev/null

# 7. counters: verdict DROP is key 1, PASS key 2; rule 0 of slot 0 is key 0;
#    guard reason src_mac is key 0
bpftool map dump pinned "$DIR/maps/ta_st_verdict" >/dev/null
[ "$(packets ta_st_verdict 1)" = 20 ] || fail "verdict drop $(packets ta_st_verdict 1), want 20"
[ "$(packets ta_st_verdict 2)" = 10 ] || fail "verdict pass $(packets ta_st_verdict 2), want 10"
[ "$(packets ta_st_rule 0)" = 10 ] || fail "rule 0: $(packets ta_st_rule 0), want 10"
[ "$(packets ta_st_guard 0)" = 10 ] || fail "guard src_mac: $(packets ta_st_guard 0), want 10"

# 8. detach and unpin
in_ns bpftool net detach xdpdrv dev "$TAP"
rm -rf "$DIR"
echo "bpftool path: ok"
