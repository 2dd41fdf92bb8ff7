#!/bin/sh
# A clean Debian root for tests/deb/run.sh: debootstrap's minbase, the
# headers of the kernels named (linux-headers-KVER) and the packages named,
# from Debian's packages. SUITE is
#   bookworm  Debian 12, from the mirror this machine's apt uses, with its
#             apt sources (the security suite has the kernels' headers)
#   trixie    Debian 13, from Debian's mirror ($DEBIAN_MIRROR,
#             http://deb.debian.org/debian) with trixie-updates,
#             trixie-security and trixie-backports (the newer kernels'
#             headers) in the root's own apt sources; the machine's are
#             not read or changed
# On Debian 12, depmod is run for each kernel, as its kernel package
# would. Not on Debian 13, since no kernel image is installed: its DKMS
# runs depmod only where modules.dep exists, and deletes what depmod made
# for a kernel without modules, so that a root with modules.dep would not
# be as it was after `apt purge`.
# Cached in $DEB_ROOT_CACHE (/var/cache/tap-accel/deb; trixie's in its
# trixie/ folder)/root-<key>, <key> a hash of what the root holds and where
# it came from, so that only the first run on a machine pays; the downloads
# are kept beside it (archives/) for the next root.
#   tests/deb/root.sh [--suite SUITE] KVER... -- PACKAGE...   print its path
set -eu

CACHE=${DEB_ROOT_CACHE:-/var/cache/tap-accel/deb}
SUITE=bookworm
RECIPE=1 # changes when what this script does to a root changes

die() {
	echo "deb-root: $*" >&2
	exit 1
}

if [ "${1:-}" = --suite ]; then
	SUITE=${2:-}
	shift 2 || die "--suite needs a suite (bookworm or trixie)"
fi
kvers=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	kvers="$kvers $1"
	shift
done
[ $# -gt 0 ] && shift
pkgs="$*"
for k in $kvers; do
	pkgs="$pkgs linux-headers-$k"
done
[ -n "$kvers" ] || die "usage: $0 [--suite bookworm|trixie] KVER... -- PACKAGE..."
for t in debootstrap chroot flock sha256sum; do
	command -v $t >/dev/null 2>&1 || die "$t is missing (make deps)"
done

case $SUITE in
bookworm)
	name="Debian 12"
	# This machine's apt sources, and the mirror of the main suite among them.
	sources=$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
		awk -v s=$SUITE '$2 == s { print $1; exit }')
	[ -n "$mirror" ] || die "no $SUITE in this machine's apt sources"
	root_sources() { for f in $sources; do cat "$f"; done; }
	;;
trixie)
	name="Debian 13"
	# Where earlier roots of other suites are not: each suite's roots are
	# replaced by its next one alone.
	CACHE=$CACHE/trixie
	mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
	root_sources() {
		printf 'Types: deb\nURIs: %s\nSuites: trixie trixie-updates trixie-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' "$mirror"
		printf 'Types: deb\nURIs: %s-security\nSuites: trixie-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror"
	}
	;;
*) die "unknown suite $SUITE: bookworm or trixie" ;;
esac

pkgs=$(echo "$pkgs" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
key=$({
	echo "recipe $RECIPE suite $SUITE mirror $mirror"
	echo "packages $pkgs"
	root_sources
} | sha256sum | cut -c1-16)
ROOT=$CACHE/root-$key

mkdir -p "$CACHE/archives"
exec 9>"$CACHE/.lock"
flock 9 # one build at a time; a waiter then finds it made
if [ -f "$ROOT/.complete" ]; then
	echo "$ROOT"
	exit 0
fi

new=$ROOT.new
log=$CACHE/root-$key.log
# Mounts in the root being made come off before anything is removed.
unmount_new() {
	for m in "$new/var/cache/apt/archives" "$new/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
	return 0
}
trap 'unmount_new' EXIT
trap 'exit 1' INT TERM
unmount_new
rm -rf --one-file-system "$new"

echo "deb-root: making a $name root with $pkgs (once per machine; log: $log)" >&2
debootstrap --variant=minbase --cache-dir="$CACHE/archives" $SUITE "$new" "$mirror" >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "debootstrap failed"; }
rm -f "$new/etc/apt/sources.list"
case $SUITE in
bookworm) for f in $sources; do cp "$f" "$new$f"; done ;;
*) root_sources >"$new/etc/apt/sources.list.d/debian.sources" ;;
esac
cp /etc/resolv.conf "$new/etc/resolv.conf"
mount -t proc proc "$new/proc"
mount --bind "$CACHE/archives" "$new/var/cache/apt/archives"
populate() {
	chroot "$new" apt-get update -q || return 1
	# INITRD=No: no initramfs for a kernel image that headers pull in
	# (6.12's), since nothing boots this root.
	chroot "$new" env DEBIAN_FRONTEND=noninteractive INITRD=No \
		apt-get install -y -q --no-install-recommends $pkgs || return 1
	[ $SUITE = bookworm ] || return 0
	for k in $kvers; do
		chroot "$new" depmod -a "$k" || return 1
	done
}
populate >>"$log" 2>&1 || { tail -n 20 "$log" >&2; die "apt-get in the new root failed"; }
unmount_new
# Its own package archive (and its lock) and caches, as apt leaves them.
chroot "$new" sh -c 'apt-get clean && apt-cache gencaches' >>"$log" 2>&1

touch "$new/.complete"
# Roots of other keys (another kernel, other packages) are not used again.
for old in "$CACHE"/root-*; do
	case $old in "$new" | "$log" | *.lock) continue ;; esac
	rm -rf --one-file-system "$old"
done
mv "$new" "$ROOT"
echo "$ROOT"
