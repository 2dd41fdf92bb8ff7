#!/bin/sh
# The nwfilter filters libvirt ships (clean-traffic, no-ip-spoofing, ...),
# as Debian 12 packages them in libvirt-daemon-config-nwfilter: the
# package is downloaded from Debian's mirror through a private sources
# list and lists folder (never the machine's sources, mk/apt-private.sh)
# and unpacked, without installing it (its filters are in
# /usr/share/libvirt/nwfilter, which libvirtd defines at its start), under
# $TAP_ACCEL_CACHE/nwfilter/VERSION/. The import tests translate them as
# libvirt installs them, not copies written for the tests.
#   mk/nwfilter.sh           print the folder holding the filters' XML;
#                            exit 1, naming the fix, when not fetched
#   mk/nwfilter.sh --fetch   fetch them (no-op when done; needs root)
set -eu

CACHE=${TAP_ACCEL_CACHE:-/var/cache/tap-accel}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PKG=libvirt-daemon-config-nwfilter
. "$(dirname "$0")/apt-private.sh"

die() { echo "nwfilter: $*" >&2; exit 1; }

# The newest fetched, if any.
current() {
	for f in "$CACHE"/nwfilter/*/clean-traffic.xml; do
		[ -f "$f" ] && d=$(dirname "$f")
	done
	[ -n "${d:-}" ] && echo "$d"
}

case "${1:-}" in
"")
	current || die "libvirt's shipped filters are not fetched (make deps, or sh mk/nwfilter.sh --fetch)"
	;;
--fetch)
	current >/dev/null && exit 0
	[ "$(id -u)" = 0 ] || die "fetching $PKG needs root (make deps)"
	echo "nwfilter: fetching $PKG for libvirt's shipped filters"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	apt_private bookworm "deb [signed-by=$key] $MIRROR bookworm main" ||
		die "apt-get update of the bookworm lists failed"
	t=$CACHE/nwfilter/.tmp
	rm -rf "$t"
	mkdir -p "$t"
	(cd "$t" && apt_run bookworm apt-get -o APT::Sandbox::User=root download "$PKG" >/dev/null) ||
		die "cannot download $PKG"
	dpkg-deb -x "$t"/"$PKG"_*.deb "$t/root" || die "cannot unpack $PKG"
	ver=$(dpkg-deb -f "$t"/"$PKG"_*.deb Version | tr ':' '_')
	[ -f "$t/root/usr/share/libvirt/nwfilter/clean-traffic.xml" ] ||
		die "$PKG has no usr/share/libvirt/nwfilter/clean-traffic.xml"
	rm -rf "$CACHE/nwfilter/$ver"
	mv "$t/root/usr/share/libvirt/nwfilter" "$CACHE/nwfilter/$ver"
	rm -rf "$t"
	;;
*) die "usage: $0 [--fetch]" ;;
esac
