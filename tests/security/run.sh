#!/bin/sh
# Security tests of the CLI and its pins: pin folders
# and pins under /sys/fs/bpf/tap-accel are not writable by other users,
# also when bpffs itself is world-writable or another user created the
# folder first; the CLI refuses clearly without CAP_NET_ADMIN/CAP_BPF,
# as root without them and as another user. Runs in a private mount
# namespace with its own bpffs (others' pins are never touched), a private
# pid namespace (so that tap-accel, finding no bpffs, has no caller's
# mount namespace outside to go to: lib/netns.h) and a private network
# namespace. Needs root. Ends with "N passed, N failed".
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
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built"; finish; }

# The pid outside: in our pid namespace we are 1, as every other run is,
# and netns names are seen by all of them.
ID=$TA_SECURITY_PRIVATE
NS=tasec$ID
S=ts${ID}a
# Readable by the unprivileged user too: a copy of the CLI and the policy.
tmp=$(mktemp -d)
chmod 755 "$tmp"
cp "$TA_BIN" "$tmp/tap-accel" && TA_BIN=$tmp/tap-accel
printf 'rule drop proto udp dport 53\ndefault pass\n' >"$tmp/p.policy"
chmod 644 "$tmp/p.policy"

cleanup() {
	ip netns del "$NS" 2>/dev/null
	umount /sys/fs/bpf 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
ta() { in_ns "$TA_BIN" "$@"; }
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

ip netns add "$NS" || { bad "cannot create netns $NS"; finish; }
ip -n "$NS" tuntap add "$S" mode tap && ip -n "$NS" link set "$S" up ||
	{ bad "cannot create tap $S"; finish; }
# The namespace's pin folder (tap-accel names it by its inode).
PINS=$ROOT/net:$(stat -L -c %i "/run/netns/$NS")

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

# pins_not_writable: the pin root, the namespace's and the interface's
# folders, every pin.
pins_not_writable() {
	not_writable "$ROOT"
	not_writable "$PINS"
	not_writable "$PINS/$S"
	n=0
	for f in "$PINS/$S"/*; do
		[ -e "$f" ] || continue
		not_writable "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 20 ] && good || bad "only $n pins under $PINS/$S"
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
	denied "create a file in $PINS/$S" touch "$PINS/$S/x"
	denied "remove the pin ta_config" rm "$PINS/$S/ta_config"
	denied "rename the program pin" mv "$PINS/$S/prog" "$PINS/$S/x"
	denied "create a file in $ROOT" touch "$ROOT/x"
	denied "create a folder in $ROOT" mkdir "$ROOT/evil"
	denied "rename $PINS" mv "$PINS" "$ROOT/moved"
	denied "create a file in $PINS" touch "$PINS/x"
	denied "create a folder in $PINS" mkdir "$PINS/evil"
	denied "rename $PINS/$S" mv "$PINS/$S" "$PINS/moved"
	[ -e "$PINS/$S/ta_config" ] && [ -e "$PINS/$S/prog" ] && good ||
		bad "pins of $S are gone"
}

# Whatever happened, start again from nothing attached and no pins.
reset_state() {
	ip -n "$NS" link set "$S" xdp off 2>/dev/null
	ip -n "$NS" link set "$S" xdpgeneric off 2>/dev/null
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
umount /sys/fs/bpf
umount /sys/fs/bpf

# ---- a world-writable bpffs, as some systems mount it -------------------------
echo "# bpffs mode 1777"
mount -t bpf -o mode=1777 bpf /sys/fs/bpf
expect_exit 0 "" ta attach "$S" --policy "$tmp/p.policy" --mode generic
pins_not_writable
nobody_cannot_touch_pins
expect_exit 0 "" ta detach "$S"
rm -rf "$ROOT"

# (Only the root folder can be: the namespaces' folders are made inside
# it, and it must be root's and closed to others.)
first=$ROOT
echo "# the pin folder $first created first by another user"
as_nobody mkdir -m 0777 "$first" || bad "nobody cannot create $first in a 1777 bpffs"
ta attach "$S" --policy "$tmp/p.policy" --mode generic >"$tmp/out" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	# attached: then it must not be inside a folder another user controls
	pins_not_writable
	nobody_cannot_touch_pins
elif grep -q "$first" "$tmp/out"; then
	good # refused, naming the folder
else
	bad "attach with $first owned by another user: exit $rc, unclear message:"
	sed 's/^/    /' "$tmp/out"
fi
reset_state

echo "# a symlink planted by another user as an interface's pin folder"
mkdir "$tmp/victim" && echo keep >"$tmp/victim/keep"
as_nobody mkdir -m 0777 "$ROOT" "$PINS" || bad "nobody cannot create $PINS in a 1777 bpffs"
as_nobody ln -s "$tmp/victim" "$PINS/$S" || bad "nobody cannot plant a symlink in $PINS"
for verb in "attach $S --policy $tmp/p.policy --mode generic" "clean" "detach $S"; do
	# shellcheck disable=SC2086
	ta $verb >/dev/null 2>&1
	[ -e "$tmp/victim/keep" ] && good ||
		bad "'tap-accel $verb' followed $PINS/$S -> $tmp/victim and deleted what is there"
	echo keep >"$tmp/victim/keep"
done
reset_state

echo "# a symlink planted by another user as the namespace's pin folder"
mkdir "$tmp/victim/$S" && echo keep >"$tmp/victim/$S/keep"
as_nobody mkdir -m 0777 "$ROOT" || bad "nobody cannot create $ROOT in a 1777 bpffs"
as_nobody ln -s "$tmp/victim" "$PINS" || bad "nobody cannot plant a symlink in $ROOT"
for verb in "attach $S --policy $tmp/p.policy --mode generic" "clean" "detach $S"; do
	# shellcheck disable=SC2086
	ta $verb >/dev/null 2>&1
	[ -e "$tmp/victim/$S/keep" ] && [ -e "$tmp/victim/keep" ] && good ||
		bad "'tap-accel $verb' followed $PINS -> $tmp/victim and deleted what is there"
	echo keep >"$tmp/victim/keep"
	echo keep >"$tmp/victim/$S/keep"
done
reset_state

echo "# a symlink planted by another user as the pin root"
mkdir -p "$tmp/victim/${PINS#"$ROOT"/}/$S" && echo keep >"$tmp/victim/${PINS#"$ROOT"/}/$S/keep"
as_nobody ln -s "$tmp/victim" "$ROOT" || bad "nobody cannot plant a symlink at $ROOT"
for verb in "attach $S --policy $tmp/p.policy --mode generic" "clean" "detach $S"; do
	# shellcheck disable=SC2086
	ta $verb >/dev/null 2>&1
	[ -e "$tmp/victim/${PINS#"$ROOT"/}/$S/keep" ] && good ||
		bad "'tap-accel $verb' followed $ROOT -> $tmp/victim and deleted what is there"
	echo keep >"$tmp/victim/${PINS#"$ROOT"/}/$S/keep"
done
rm -f "$ROOT"
reset_state

# ---- the CLI without privileges -----------------------------------------------
echo "# another user, no capabilities"
expect_exit 0 "" ta attach "$S" --policy "$tmp/p.policy" --mode generic
for verb in "attach $S" "detach $S" "policy load $S $tmp/p.policy" \
	"fdb add $S 52:54:00:00:00:01 $S" "fdb del $S 52:54:00:00:00:01" "clean"; do
	# shellcheck disable=SC2086
	expect_exit 2 "needs CAP_NET_ADMIN" as_nobody "$TA_BIN" $verb
done
for verb in "status" "stats" "stats $S" "policy show $S" "fdb list $S"; do
	# shellcheck disable=SC2086
	expect_exit 2 "CAP_BPF|root|[Pp]ermission" as_nobody "$TA_BIN" $verb
done
# what needs no privilege still works
expect_exit 0 ": ok, 1 rules" as_nobody "$TA_BIN" policy check "$tmp/p.policy"

echo "# root with only some capabilities"
expect_exit 2 "needs CAP_NET_ADMIN and CAP_BPF" with_caps +net_admin "$TA_BIN" policy load "$S" "$tmp/p.policy"
expect_exit 2 "needs CAP_NET_ADMIN and CAP_BPF" with_caps +bpf,+sys_admin "$TA_BIN" policy load "$S" "$tmp/p.policy"
expect_exit 0 "" with_caps +net_admin,+bpf,+sys_admin "$TA_BIN" policy load "$S" "$tmp/p.policy"
# the attached program and its pins are still intact after all of that
expect_exit 0 "$S" ta status
expect_exit 0 "" ta detach "$S"

finish
