#!/bin/sh
# The Debian kernels tapx is built for and tested on, one line a series:
#   SERIES  SUITE              FROM
KERNELS="
6.1     bookworm           host
6.12    bookworm-security  host
7.3     trixie-backports   cache
7.2     forky              cache
"
# host:  installed by make deps through the machine's own apt sources
#        (linux-image-amd64 / -6.12-amd64 with their headers).
# cache: fetched by `mk/kernels.sh --fetch SERIES` from Debian's mirror
#        through a private sources list and lists folder (never the
#        machine's), unpacked under $TAP_ACCEL_CACHE/kernels/SERIES: the
#        image (linux-binary-*), the modules (linux-modules-*, depmod'ed
#        there) and a build tree prepared from linux-source-SERIES with
#        Debian's config, Module.symvers and vmlinux: its packaged headers
#        need a newer glibc and gcc than Debian 12 has.
#
#   mk/kernels.sh SERIES      print the env of SERIES' kernel, one VAR=value
#                             a line, for eval:
#       KVER    its release (uname -r)   KERNEL  its image
#       MODBASE modinfo -b base          MODDIR  MODBASE/lib/modules/KVER
#       KDIR    the tree to build tapx against
#     exit 1, naming the fix, when it is not installed or fetched
#   mk/kernels.sh --fetch SERIES...   fetch and prepare cache series (no-op
#                             when done; host series: nothing to do)
#   mk/kernels.sh --series    every series, one a line
#   mk/kernels.sh --tested    the series `make test` boots
#   mk/kernels.sh --host      the series installed through the host's apt
set -eu

TESTED="6.1 6.12 7.3"
CACHE=${TAP_ACCEL_CACHE:-/var/cache/tap-accel}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "kernels: $*" >&2; exit 1; }

series_line() {
	echo "$KERNELS" | awk -v s="$1" '$1 == s { print; found = 1 } END { exit !found }'
}

# Installed through the host's apt: the newest generic-flavour kernel of
# the series with its modules and headers.
host_env() {
	case $1 in
	6.1) pat='6.1.0-*-amd64' pkg='linux-image-amd64 linux-headers-amd64' ;;
	6.12) pat='6.12.*-amd64' pkg='linux-image-6.12-amd64 linux-headers-6.12-amd64' ;;
	esac
	kver=""
	for img in $(ls -d /boot/vmlinuz-$pat 2>/dev/null | grep -v -e '-cloud-' -e '-rt-' | sort -V -r); do
		k=${img#/boot/vmlinuz-}
		if [ -d "/lib/modules/$k/kernel" ] && [ -f "/usr/src/linux-headers-$k/Makefile" ]; then
			kver=$k
			break
		fi
	done
	[ -n "$kver" ] || die "no Debian $1 kernel with its modules and headers installed (make deps, or apt-get install $pkg)"
	printf 'KVER=%s\nKERNEL=%s\nMODBASE=\nMODDIR=%s\nKDIR=%s\n' \
		"$kver" "/boot/vmlinuz-$kver" "/lib/modules/$kver" "/usr/src/linux-headers-$kver"
}

cache_env() {
	d=$CACHE/kernels/$1
	[ -f "$d/ready" ] || die "Debian's $1 kernel is not fetched (make deps, or mk/kernels.sh --fetch $1)"
	kver=$(cat "$d/ready")
	printf 'KVER=%s\nKERNEL=%s\nMODBASE=%s\nMODDIR=%s\nKDIR=%s\n' \
		"$kver" "$d/root/usr/lib/modules/$kver/vmlinuz" "$d/root/usr" \
		"$d/root/usr/lib/modules/$kver" "$d/build"
}

. "$(dirname "$0")/apt-private.sh"

fetch() {
	line=$(series_line "$1") || die "unknown series $1 ($(echo "$KERNELS" | awk 'NF { printf "%s ", $1 }'))"
	set -- $line
	series=$1 suite=$2 from=$3
	[ "$from" = cache ] || return 0
	d=$CACHE/kernels/$series
	[ -f "$d/ready" ] && return 0
	[ "$(id -u)" = 0 ] || die "fetching Debian's $series kernel needs root (make deps)"
	echo "kernels: fetching Debian's $series kernel from $suite into $d"

	apt_private "$suite" "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $suite main" ||
		die "apt-get update of $suite failed"
	# The newest generic amd64 kernel of the series in the suite.
	abi=$(apt_run "$suite" apt-cache pkgnames "linux-binary-$series." |
		sed -n "s/^linux-binary-\($series\.[0-9]*+deb[0-9]*-amd64\)\$/\1/p" | sort -V | tail -n 1)
	[ -n "$abi" ] || die "no linux-binary-$series.*-amd64 in $suite"
	common=${abi%-amd64}-common
	kbuild=linux-kbuild-${abi%-amd64}
	ver=$(apt_run "$suite" apt-cache show "linux-binary-$abi" | sed -n 's/^Version: //p' | head -n 1)

	rm -rf "$d"
	mkdir -p "$d/debs" "$d/root"
	(cd "$d/debs" && apt_run "$suite" apt-get -o APT::Sandbox::User=root download "linux-binary-$abi" "linux-modules-$abi" \
		"linux-headers-$abi" "linux-source-$series=$ver" >/dev/null) ||
		die "cannot download $series's packages ($ver) from $suite"
	for p in "$d"/debs/linux-binary-* "$d"/debs/linux-modules-* "$d"/debs/linux-headers-*; do
		dpkg-deb -x "$p" "$d/root"
	done
	# Debian 13 ships no modules.order or modules.builtin: depmod warns.
	depmod -b "$d/root/usr" "$abi" 2>"$d/depmod.log" ||
		{ cat "$d/depmod.log" >&2; die "depmod of $series's modules failed"; }

	# The build tree: Debian's sources, config and symbols, Debian 12's gcc.
	hdr=$d/root/usr/src/linux-headers-$abi
	dpkg-deb --fsys-tarfile "$d"/debs/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" | xz -dc | tar -x -C "$d"
	mv "$d/linux-source-$series" "$d/build"
	cp "$hdr/.config" "$hdr/Module.symvers" "$d/build/"
	[ ! -f "$hdr/vmlinux" ] || cp "$hdr/vmlinux" "$d/build/"
	# Debian's release is the upstream version and the ABI's suffix.
	lv=${abi#$(make -s -C "$d/build" kernelversion)}
	log=$d/prepare.log
	if ! make -C "$d/build" -j"$(nproc)" LOCALVERSION="$lv" olddefconfig modules_prepare >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "preparing the $series tree failed (all of it in $log)"
	fi
	# The release must be the image's, or no module built here loads.
	got=$(cat "$d/build/include/config/kernel.release")
	[ "$got" = "$abi" ] || die "the $series tree says release $got, the image $abi"
	rm -rf "$d/debs"
	echo "$abi" >"$d/ready"
}

case "${1:-}" in
--series) echo "$KERNELS" | awk 'NF { print $1 }' ;;
--tested) echo "$TESTED" | tr ' ' '\n' ;;
--host) echo "$KERNELS" | awk '$3 == "host" { print $1 }' ;;
--fetch)
	shift
	for s in "$@"; do fetch "$s"; done
	;;
"" | -*) die "usage: $0 SERIES | --fetch SERIES... | --series | --tested" ;;
*)
	line=$(series_line "$1") || die "unknown series $1 ($(echo "$KERNELS" | awk 'NF { printf "%s ", $1 }'))"
	set -- $line
	case $3 in
	host) host_env "$1" ;;
	cache) cache_env "$1" ;;
	esac
	;;
esac
