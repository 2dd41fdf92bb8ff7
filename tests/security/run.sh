#!/bin/sh
# Security tests of the CLI and its pins: the plane's folders and pins
# under /sys/fs/bpf/tap-accel are not writable by other users, also when
# bpffs itself is world-writable or another user created a folder first or
# planted a link; the CLI refuses clearly without CAP_NET_ADMIN/CAP_BPF, as
# root without them and as another user, who can neither bind a tap nor
# replace a policy nor read any tap's state; and taps sharing a policy keep
# apart: one tap's frames never change another's counters, rate bucket or
# guard. Runs in a private mount namespace with its own bpffs (others' pins
# are never touched), a private pid namespace (so that tap-accel, finding
# no bpffs, has no caller's mount namespace outside to go to: lib/sys/netns.h)
# and a private network namespace. Needs root. Ends with "N passed, N
# failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
TA_BIN=$BUILD/user/tap-accel
ROOT=/sys/fs/bpf/tap-accel
NOBODY=65534

. "$TOP/tests/lib/check.sh"

if [ "$(id -u)" != 0 ]; then
	bad "the security tests need root (namespaces, bpffs, taps)"
	finish
fi
if [ -z "${TA_SECURITY_PRIVATE:-}" ]; then
	exec env TA_SECURITY_PRIVATE=$$ unshare --mount --propagation private \
		--pid --fork --mount-proc sh "$0" "$@"
fi
[ -x "$TA_BIN" ] || make -s -C "$TOP" bpf user >/dev/null 2>&1
. "$TOP/tests/lib/ns.sh"
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built"; finish; }

# The pid outside: in our pid namespace we are 1, as every other run is,
# and netns names are seen by all of them.
ID=$TA_SECURITY_PRIVATE
NS=tasec$ID
S=ts${ID}a
T=ts${ID}b
TAPIO=$BUILD/tests/host/tapio
# Readable by the unprivileged user too: a copy of the CLI and the policy.
tmp=$(mktemp -d)
chmod 755 "$tmp"
cp "$TA_BIN" "$tmp/tap-accel" && TA_BIN=$tmp/tap-accel
printf 'rule drop proto udp dport 53\ndefault pass\n' >"$tmp/p.policy"
chmod 644 "$tmp/p.policy"

cleanup() {
	ns_del "$NS"
	umount /sys/fs/bpf 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# As another user, without any capability.
as_nobody() {
	in_ns setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}
# As root with only the capabilities listed (e.g. +net_admin).
with_caps() {
	caps=$1
	shift
	in_ns setpriv --inh-caps=-all,$caps --ambient-caps=-all,$caps \
		--bounding-set=-all,$caps "$@"
}

ns_add "$NS" || { bad "cannot create netns $NS"; finish; }
taps_add "$NS" "$S" "$T" || { bad "cannot create taps $S and $T"; finish; }

# ---- helpers ---------------------------------------------------------------

# not_writable PATH: owned by root, no write bit for group or others.
not_writable() {
	set -- "$1" "$(stat -c '%u %a' "$1" 2>/dev/null)"
	uid=${2%% *} mode=${2#* }
	if [ "$uid" = 0 ] && [ $((0$mode & 022)) = 0 ]; then
		good
	else
		bad "$1: owner uid ${uid:-?} mode ${mode:-?}; want root and no group/other write"
	fi
}

# pins_not_writable: the plane's folder, its links folder, every pin.
pins_not_writable() {
	not_writable "$ROOT"
	not_writable "$ROOT/links"
	n=0
	for f in "$ROOT"/* "$ROOT"/links/*; do
		[ -e "$f" ] || continue
		not_writable "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 20 ] && good || bad "only $n pins under $ROOT"
}

# denied WHAT CMD...: the unprivileged user's CMD must fail.
denied() {
	what=$1
	shift
	if as_nobody "$@" >/dev/null 2>&1; then
		bad "another user could $what"
	else
		good
	fi
}

# nobody_cannot_touch_pins: create, remove, rename under the folders.
nobody_cannot_touch_pins() {
	link=$(ls "$ROOT/links" | head -n 1)
	denied "create a file in $ROOT" touch "$ROOT/x"
	denied "remove the pin ta_config" rm "$ROOT/ta_config"
	denied "rename the program pin" mv "$ROOT/prog" "$ROOT/x"
	denied "create a folder in $ROOT" mkdir "$ROOT/evil"
	denied "rename $ROOT" mv "$ROOT" /sys/fs/bpf/moved
	denied "create a file in $ROOT/links" touch "$ROOT/links/x"
	denied "remove a link pin" rm "$ROOT/links/$link"
	denied "rename $ROOT/links" mv "$ROOT/links" "$ROOT/moved"
	[ -e "$ROOT/ta_config" ] && [ -e "$ROOT/prog" ] && [ -e "$ROOT/links/$link" ] && good ||
		bad "the plane's pins are gone"
}

# Whatever happened, start again from nothing attached and no pins.
reset_state() {
	for t in "$S" "$T"; do
		ip -n "$NS" link set "$t" xdp off 2>/dev/null
		ip -n "$NS" link set "$t" xdpgeneric off 2>/dev/null
	done
	ta clean --all >/dev/null 2>&1
	rm -rf "$ROOT"
}

# ---- bpffs mounted by the CLI itself ---------------------------------------
echo "# no bpffs: tap-accel mounts one"
mount -t tmpfs -o mode=755 none /sys/fs/bpf
expect_exit 0 "" ta attach "$S" --policy "$tmp/p.policy" --mode generic
[ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ] && good || bad "no bpffs mounted on /sys/fs/bpf"
not_writable /sys/fs/bpf
pins_not_writable
expect_exit 0 "" ta detach "$S"
reset_state
umount /sys/fs/bpf
umount /sys/fs/bpf

# ---- a world-writable bpffs, as some systems mount it -------------------------
echo "# bpffs mode 1777"
mount -t bpf -o mode=1777 bpf /sys/fs/bpf
expect_exit 0 "" ta attach "$S" --policy "$tmp/p.policy" --mode generic
pins_not_writable
nobody_cannot_touch_pins
reset_state

echo "# the plane's folder created first by another user"
as_nobody mkdir -m 0777 "$ROOT" || bad "nobody cannot create $ROOT in a 1777 bpffs"
ta attach "$S" --policy "$tmp/p.policy" --mode generic >"$tmp/out" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q "$ROOT is not a folder of this user closed to others" "$tmp/out"; then
	good # refused, naming the folder
else
	bad "attach with $ROOT owned by another user: exit $rc:"
	sed 's/^/    /' "$tmp/out"
fi
rm -rf "$ROOT"
reset_state

echo "# the links folder planted by another user"
ta attach "$S" --policy "$tmp/p.policy" --mode generic >/dev/null 2>&1
ta detach "$S" >/dev/null 2>&1
rmdir "$ROOT/links" && chmod 777 "$ROOT"
as_nobody mkdir -m 0777 "$ROOT/links" || bad "nobody cannot create $ROOT/links"
chmod 700 "$ROOT"
expect_exit 2 "$ROOT/links is not a folder of this user closed to others" \
	ta attach "$S" --policy "$tmp/p.policy" --mode generic
[ -z "$(ip -n "$NS" -d link show "$S" | grep -o 'prog/xdp')" ] && good ||
	bad "an attach went on into a folder another user owns"
reset_state

echo "# symlinks planted by another user"
mkdir "$tmp/victim" && echo keep >"$tmp/victim/keep"
as_nobody ln -s "$tmp/victim" "$ROOT" || bad "nobody cannot plant a symlink at $ROOT"
for verb in "attach $S --policy $tmp/p.policy --mode generic" "clean" "clean --all" "detach $S"; do
	# shellcheck disable=SC2086
	ta $verb >/dev/null 2>&1
	[ -e "$tmp/victim/keep" ] && good ||
		bad "'tap-accel $verb' followed $ROOT -> $tmp/victim and deleted what is there"
	echo keep >"$tmp/victim/keep"
done
rm -f "$ROOT"
reset_state

# ---- the CLI without privileges -----------------------------------------------
echo "# another user, no capabilities"
expect_exit 0 "" ta attach "$S" --policy "$tmp/p.policy" --mode generic
for verb in "attach $S" "attach $T --policy p" "detach $S" "policy load p $tmp/p.policy" \
	"policy load $S $tmp/p.policy" "policy unload p" "fdb add $S 52:54:00:00:00:01 $S" \
	"fdb del $S 52:54:00:00:00:01" "clean" "clean --all" "conntrack flush $S" \
	"conntrack set tap-limit 5" "conntrack set max 1000 timeout udp 5"; do
	# shellcheck disable=SC2086
	expect_exit 2 "needs CAP_NET_ADMIN" as_nobody "$TA_BIN" $verb
done
for verb in "status" "stats" "stats $S" "policy show p" "policy show $S" "policy list" \
	"fdb list $S" "conntrack list" "conntrack list $S" "conntrack show" "conntrack events"; do
	# shellcheck disable=SC2086
	expect_exit 2 "CAP_BPF|root|[Pp]ermission" as_nobody "$TA_BIN" $verb
done
denied "read a map pin" bpftool map dump pinned "$ROOT/ta_tap_slots"
# root can: the pins are there to be refused
expect_exit 0 "ringbuf" bpftool map show pinned "$ROOT/ta_ct_events"
expect_exit 0 "lru_hash" bpftool map show pinned "$ROOT/ta_ct"
denied "read the connection table" bpftool map dump pinned "$ROOT/ta_ct"
denied "open the connection events" bpftool map show pinned "$ROOT/ta_ct_events"
# what needs no privilege still works
expect_exit 0 ": ok, 1 rules" as_nobody "$TA_BIN" policy check "$tmp/p.policy"

echo "# root with only some capabilities"
expect_exit 2 "needs CAP_NET_ADMIN and CAP_BPF" with_caps +net_admin "$TA_BIN" policy load p "$tmp/p.policy"
expect_exit 2 "needs CAP_NET_ADMIN and CAP_BPF" with_caps +bpf,+sys_admin "$TA_BIN" policy load p "$tmp/p.policy"
expect_exit 0 "" with_caps +net_admin,+bpf,+sys_admin "$TA_BIN" policy load p "$tmp/p.policy"
# the attached program and its binding are still intact after all of that
expect_exit 0 "$S .* attached" ta status
expect_exit 0 "" ta detach "$S"

# ---- taps sharing a policy keep apart ------------------------------------------------
echo "# two taps, one policy: counters, rate buckets and guards their own"
make -s -C "$TOP/tests/host" >/dev/null 2>&1
printf 'rule drop proto udp dport 9\nrate 20pps burst 20\n' >"$tmp/shared.policy"
expect_exit 0 "policy shared" ta attach "$S" --policy "$tmp/shared.policy" --guard mac=52:54:00:00:00:01
expect_exit 0 "policy shared" ta attach "$T" --policy shared --guard mac=52:54:00:00:00:02
tapio() { in_ns "$TAPIO" "$@"; }
stats_of() { ta stats "$1" --json; }
packets() { grep -o "\"$2\":{\"packets\":[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }
before_t=$(stats_of "$T")
# S: frames with T's MAC (S's guard drops them), then far more than S's
# bucket holds
check "frames with $T's MAC into $S" "sent 20 tx 0 redirect 0 pass 0" \
	"$(tapio "$S" --count 20 --smac 52:54:00:00:00:02)"
tapio "$S" --count 200 --dport 10 >"$tmp/s.out"
read -r _ _ _ _ _ _ _ s_passed <"$tmp/s.out"
at_most "$S: frames passed its bucket (20 and what a second refills)" 60 "$s_passed"
check "$T's counters unchanged by $S's frames" "$before_t" "$(stats_of "$T")"
# T's bucket is its own and full, its guard its own: its MAC passes
check "$T: a full bucket of its own, its MAC passing" "sent 20 tx 0 redirect 0 pass 20" \
	"$(tapio "$T" --count 20 --smac 52:54:00:00:00:02 --dport 10)"
check "$T: $S's MAC dropped by $T's guard" "sent 10 tx 0 redirect 0 pass 0" \
	"$(tapio "$T" --count 10 --smac 52:54:00:00:00:01 --dport 10)"
stats_of "$S" >"$tmp/s.json"
stats_of "$T" >"$tmp/t.json"
check "$S: guard src_mac" "20" "$(packets "$tmp/s.json" src_mac)"
check "$T: guard src_mac" "10" "$(packets "$tmp/t.json" src_mac)"
check "$T: no rate drop" "0" "$(packets "$tmp/t.json" rate_drop)"
check "$S: rate drops and passes add up" "200" "$(($(packets "$tmp/s.json" rate_drop) + s_passed))"
expect_exit 0 "" ta detach "$S" "$T"

finish
