#!/bin/sh
# The bpftool-only path of docs/bpftool.md, command for command: load and
# pin, write one policy, bind a tap with a guard, attach, send, read the
# counters, detach.
# Usage: bpftool-path.sh NETNS TAP OBJDIR TAPIO PINDIR
# Prints "bpftool path: ok" when every counter is what was sent.
set -eu
NS=$1 TAP=$2 OBJDIR=$3 TAPIO=$4 DIR=$5
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
fail() { echo "bpftool path: $*"; exit 1; }

# hex BYTES...: the bytes, padded with zeros to $size bytes (as in the doc).
hex() { echo "$@" $(yes 00 | head -n $(($size - $#))); }
# le32 N: a __u32 as its 4 bytes.
le32() { printf '%02x %02x %02x %02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

# packets N: packets of counter N (chunk 0: a map bpftool made, without
# BTF, so its values are bytes), summed over the CPUs. A struct ta_counter
# starts with the __u64 packets, little-endian.
packets() {
	bpftool map lookup pinned "$DIR/chunk0" key hex $(le32 "$1") | grep 'CPU' |
		{
			sum=0
			while read -r _ _ _ b0 b1 b2 b3 _; do
				sum=$((sum + 0x$b0 + (0x$b1 << 8) + (0x$b2 << 16) + (0x$b3 << 24)))
			done
			echo $sum
		}
}

# 1. the object this kernel takes, loaded; the program and every map pinned
OBJ=$OBJDIR/tap_accel_compat.bpf.o
bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "FUNC 'bpf_cast_to_kern_ctx'" &&
	OBJ=$OBJDIR/tap_accel.bpf.o
bpftool prog loadall "$OBJ" "$DIR" pinmaps "$DIR/maps"
M=$DIR/maps

# 2. ta_config: layout version 6; unbound taps pass
size=24
bpftool map update pinned "$M/ta_config" key 0 0 0 0 value hex $(hex 06)

# 3. one chunk of counters, recorded as counters 1-44 (the tap's) and
#    45-46 (its rule 0 and default)
bpftool map create "$DIR/chunk0" type percpu_array key 4 value 16 entries 4096 name ta_counters
bpftool map update pinned "$M/ta_counters" key 0 0 0 0 value pinned "$DIR/chunk0"
bpftool map update pinned "$M/ta_counter_blocks" key 1 0 0 0 value 44 0 0 0
bpftool map update pinned "$M/ta_counter_blocks" key 45 0 0 0 value 2 0 0 0

# 4. policy 0, slot 0: "rule drop proto udp src 10.0.0.0/8 dport 9"
size=64
bpftool map update pinned "$M/ta_policy_names" key 0 0 0 0 value hex $(hex 6f 6e 6c 79)
#    bit-vector 1 holds rule 0 (bit-vector 0 stays empty: no rule)
size=128
bpftool map update pinned "$M/ta_bitvecs" key 1 0 0 0 value hex $(hex 01)
#    rule 0 drops (action 1, port 0)
bpftool map update pinned "$M/ta_rules" key 0 0 0 0 value 1 0 0 0 0 0 0 0
#    the protocol table at 0: protocol 17 -> bit-vector 1
bpftool map update pinned "$M/ta_tables" key 17 0 0 0 value 1 0 0 0
#    the port table at 256: ports 0-255 in page 0, port 9 -> bit-vector 1
bpftool map update pinned "$M/ta_tables" key hex $(le32 256) value hex $(le32 $((0x80000000)))
bpftool map update pinned "$M/ta_tables" key hex $(le32 $((256 + 256 + 9))) value 1 0 0 0
#    version 0's source prefixes: 10.0.0.0/8 -> bit-vector 1
bpftool map create "$DIR/src_ip0" type lpm_trie key 24 value 4 entries 16 name ta_src_ip flags 1
bpftool map update pinned "$DIR/src_ip0" \
	key hex 78 00 00 00  04 00  00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 00  00 00 \
	value 1 0 0 0
bpftool map update pinned "$M/ta_src_ip" key 0 0 0 0 value pinned "$DIR/src_ip0"
#    the header: 1 rule, default pass, fields src, proto and dport (0x150),
#    2 bit-vectors from 0, tables from 0 (proto at 0, dport at 256); no
#    connection tracking (ct_flags 0, the rest of it zeros)
size=224
bpftool map update pinned "$M/ta_policy" key 0 0 0 0 value hex $(hex \
	01 00 00 00  00 00 00 00  00 00 00 00  50 01 00 00 \
	$(yes 00 | head -n 40) \
	00 00 00 00  00 00 00 00  02 00 00 00  00 00 00 00 \
	00 00 00 00  00 00 00 00  00 01 00 00  00 00 00 00 \
	00 03 00 00)

# 5. the tap bound (key: any namespace, its ifindex), tap id 1 in slot 2,
#    policy 0, guard: only source MAC 52:54:00:00:00:01 (flag 1)
IFINDEX=$(ip -n "$NS" -o link show "$TAP" | cut -d: -f1)
size=80
bpftool map update pinned "$M/ta_tap_slots" key 2 0 0 0 value hex $(hex \
	00 00 00 00 00 00 00 00  $(le32 "$IFINDEX")  00 00 00 00 \
	01 00 00 00  00 00 00 00  01 00 00 00  01 00 00 00 \
	2d 00 00 00  00 00 00 00  52 54 00 00 00 01 00 00)
size=16
bpftool map update pinned "$M/ta_tap_index" key hex $(le32 "$IFINDEX") value hex $(hex \
	00 00 00 00 00 00 00 00  02 00 00 00)

# 6. attach (native XDP; xdpgeneric for generic)
in_ns bpftool net attach xdpdrv pinned "$DIR/tap_accel_policy" dev "$TAP"
in_ns ip link show dev "$TAP" | grep -q "prog/xdp id" || fail "not attached"

# 7. traffic: 10 frames the rule drops, 10 it passes (port 10, and port 9
#    from outside 10.0.0.0/8), 10 the guard drops
in_ns "$TAPIO" "$TAP" --count 10 --dport 9 >/dev/null
in_ns "$TAPIO" "$TAP" --count 5 --dport 9 --src 192.0.2.1 >/dev/null
in_ns "$TAPIO" "$TAP" --count 5 --dport 10 >/dev/null
in_ns "$TAPIO" "$TAP" --count 10 --dport 10 --smac 52:54:00:00:00:66 >/dev/null

# 8. counters: the tap's from 1: verdict DROP is 1 + 1, PASS 1 + 2, guard
#    reason src_mac 1 + 5; its rule 0 is counter 45
[ "$(packets 2)" = 20 ] || fail "verdict drop $(packets 2), want 20"
[ "$(packets 3)" = 10 ] || fail "verdict pass $(packets 3), want 10"
[ "$(packets 45)" = 10 ] || fail "rule 0: $(packets 45), want 10"
[ "$(packets 6)" = 10 ] || fail "guard src_mac: $(packets 6), want 10"

# 9. detach and unpin
in_ns bpftool net detach xdpdrv dev "$TAP"
rm -rf "$DIR"
echo "bpftool path: ok"
