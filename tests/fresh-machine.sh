#!/bin/sh
# Make this machine look like one that has never run tap-accel, before a
# clean-clone check or a CI run:
#   - no bpffs at /sys/fs/bpf (every stacked mount of it undone; its pins go
#     with it, since each bpffs mount is an instance of its own),
#   - none of the network namespaces the suites create (tahost*, tasec*,
#     taag*, taad*, tag-*, taimp*), with the taps, veths and attached programs
#     inside them,
#   - none of the taps, veths or pins those suites name in the root
#     namespace (ta<pid>*, ta-test-*) left behind by a killed run.
#   tests/fresh-machine.sh           do the above; prints what it removed
#   tests/fresh-machine.sh --cold    also move /var/cache/tap-accel (the debug
#                                    kernel, the deb suite's Debian 12 root)
#                                    aside, so the next `make test` builds them
#                                    as a new machine would
#   tests/fresh-machine.sh --restore put a cache moved aside by --cold back
# Packages stay installed: `make deps` is what a new machine runs for those.
set -eu

CACHE=/var/cache/tap-accel
ASIDE=/var/cache/tap-accel.aside
COLD=0
case "${1:-}" in
--cold) COLD=1 ;;
--restore)
	[ -d "$ASIDE" ] || { echo "fresh-machine: nothing moved aside ($ASIDE missing)" >&2; exit 1; }
	[ -e "$CACHE" ] && { echo "fresh-machine: $CACHE exists; remove it first" >&2; exit 1; }
	mv "$ASIDE" "$CACHE"
	echo "fresh-machine: restored $CACHE"
	exit 0
	;;
"") ;;
-h | --help)
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) echo "usage: $0 [--cold | --restore]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root" >&2; exit 1; }

said() { echo "fresh-machine: $*"; }

for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
	case $ns in
	tahost* | tasec* | taag* | taad* | tag-* | taimp*) ip netns del "$ns" && said "removed netns $ns" ;;
	esac
done

for dev in $(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
	case $dev in
	ta[0-9]*) ip link del "$dev" 2>/dev/null && said "removed link $dev" ;;
	esac
done

n=0
while mountpoint -q /sys/fs/bpf; do
	umount /sys/fs/bpf || { echo "fresh-machine: cannot unmount /sys/fs/bpf" >&2; exit 1; }
	n=$((n + 1))
done
[ $n -gt 0 ] && said "unmounted bpffs from /sys/fs/bpf ($n mount(s), with their pins)"

if [ $COLD = 1 ] && [ -d "$CACHE" ]; then
	rm -rf "$ASIDE"
	mv "$CACHE" "$ASIDE"
	said "moved $CACHE to $ASIDE (tests/fresh-machine.sh --restore puts it back)"
fi

# What a new machine shows: nothing of ours left.
if mount | grep -q ' type bpf '; then
	echo "fresh-machine: a bpffs is still mounted elsewhere:" >&2
	mount | grep ' type bpf ' >&2
fi
exit 0
