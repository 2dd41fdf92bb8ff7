#!/bin/sh
# The TCG plugin API of the installed QEMU (include/qemu/qemu-plugin.h),
# which Debian ships only in QEMU's source package: fetched from Debian's
# mirror through a private deb-src sources list and lists folder (never
# the machine's sources, mk/apt-private.sh), the source version of the
# installed qemu-system-x86, and kept under
# $TAP_ACCEL_CACHE/qemu-plugin/VERSION/. The VM bench's instruction
# counter (tests/vm/icount) is built against it.
#   mk/qemu-plugin.sh           print the folder holding qemu-plugin.h;
#                               exit 1, naming the fix, when not fetched
#   mk/qemu-plugin.sh --fetch   fetch it (no-op when done; needs root)
set -eu

CACHE=${TAP_ACCEL_CACHE:-/var/cache/tap-accel}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://security.debian.org/debian-security}
. "$(dirname "$0")/apt-private.sh"

die() { echo "qemu-plugin: $*" >&2; exit 1; }

ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (make deps)"
d=$CACHE/qemu-plugin/$(echo "$ver" | tr ':' '_')

case "${1:-}" in
"")
	[ -f "$d/qemu-plugin.h" ] ||
		die "QEMU $ver's plugin API header is not fetched (make deps, or sh mk/qemu-plugin.sh --fetch)"
	echo "$d"
	;;
--fetch)
	[ -f "$d/qemu-plugin.h" ] && exit 0
	[ "$(id -u)" = 0 ] || die "fetching QEMU's source package needs root (make deps)"
	echo "qemu-plugin: fetching qemu $ver's source for its plugin API header"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	# Debian 12's QEMU comes with point releases (bookworm) or, between
	# them, from the security suite.
	apt_private qemu-src "deb-src [signed-by=$key] $MIRROR bookworm main
deb-src [signed-by=$key] $SECURITY_MIRROR bookworm-security main" ||
		die "apt-get update of the deb-src lists failed"
	rm -rf "$d.tmp"
	mkdir -p "$d.tmp"
	(cd "$d.tmp" && apt_run qemu-src apt-get -o APT::Sandbox::User=root source --download-only "qemu=$ver" >/dev/null) ||
		die "cannot download qemu $ver's source package"
	tar -xJf "$d.tmp"/qemu_*.orig.tar.xz -C "$d.tmp" --wildcards '*/include/qemu/qemu-plugin.h' ||
		die "qemu $ver's source has no include/qemu/qemu-plugin.h"
	mkdir -p "$d"
	mv "$d.tmp"/*/include/qemu/qemu-plugin.h "$d/"
	rm -rf "$d.tmp"
	;;
*) die "usage: $0 [--fetch]" ;;
esac
