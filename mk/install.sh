#!/bin/sh
# `make install` and `make uninstall` (mk/install.sh install|uninstall).
#
#   TUN=keep      (default) tapx on its own node, /dev/net/tapx, beside
#                 stock tun.
#   TUN=replace   tapx becomes the host's tun: /etc/modprobe.d/tapx.conf
#                 sets tun_compat=1 and redirects every load of tun
#                 (`modprobe tun`, vhost_net's dependency, the
#                 char-major-10-200 autoload of /dev/net/tun) to tapx.
#   PREFIX        for the CLI and the programs (/usr/local).
#   DESTDIR       install under this root instead of /; DKMS then works in
#                 private trees below it and depmod is not run.
#   KVERS         kernels to build tapx for (default: every kernel under
#                 /lib/modules with headers, the running one included).
#   TAPX_KO       install these prebuilt modules (tapx.ko, tapx_tun.ko) for
#                 KVERS (one kernel) as DKMS would, without DKMS: for hosts
#                 without a compiler (the VM test); `make install` never
#                 sets it.
#
# The module goes through DKMS: sources in /usr/src/tapx-<version>, built
# into /lib/modules/<kernel>/updates/dkms, rebuilt by DKMS's kernel hooks
# when a kernel or its headers are installed. Uninstall undoes all of it;
# a tapx that is loaded stays loaded until rmmod or reboot, and is named.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
ACTION=${1:-}
TUN=${TUN:-keep}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
TAPX_KO=${TAPX_KO:-}
CLI=${TAPX_CLI:-$BUILD/user/tap-accel}
BENCH=${TAPX_BENCH:-$BUILD/user/tap-accel-bench}
PROGS=${TAPX_PROGS:-$BUILD/bpf}

VERSION=$(cat "$TOP/VERSION")
CONF=$DESTDIR/etc/modprobe.d/tapx.conf
BINDIR=$DESTDIR$PREFIX/sbin
PROGDIR=$DESTDIR$PREFIX/lib/tap-accel/bpf
MANDIR=$DESTDIR$PREFIX/share/man/man8
COMPDIR=$DESTDIR$PREFIX/share/bash-completion/completions
MODROOT=$DESTDIR/lib/modules

say() { echo "install: $*"; }
die() {
	echo "install: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (sudo make $ACTION)"
case $TUN in
keep | replace) ;;
*) die "TUN=$TUN: use TUN=keep (tapx beside tun) or TUN=replace (tapx as the host's tun)" ;;
esac

# DKMS in the host's trees, or in private ones below DESTDIR.
dkms_run() {
	if [ -n "$DESTDIR" ]; then
		dkms "$@" --sourcetree "$DESTDIR/usr/src" --dkmstree "$DESTDIR/var/lib/dkms"
	else
		dkms "$@"
	fi
}

# Takes tapx out of DKMS with every module it installed. dkms.conf names
# tapx_tun.ko only with TAPX_TUN=replace (or the modprobe.d file), and DKMS
# sees a build as complete only with the modules dkms.conf names: the
# removal runs in the mode of the build being removed. Below a DESTDIR the
# modules are uninstalled from its tree first.
dkms_remove_all() {
	(
		TAPX_TUN=keep
		ls "$DESTDIR/var/lib/dkms/tapx/$VERSION"/*/*/module/tapx_tun.ko* \
			>/dev/null 2>&1 && TAPX_TUN=replace
		export TAPX_TUN
		if [ -n "$DESTDIR" ]; then
			for kver in $(kernels); do
				dkms_run uninstall -m tapx -v "$VERSION" -k "$kver" \
					--installtree "$MODROOT" --no-depmod >/dev/null 2>&1 || true
			done
		fi
		dkms_run remove -m tapx -v "$VERSION" --all >/dev/null
	)
}

# Kernels to build for: KVERS, or every one whose headers are installed.
kernels() {
	if [ -n "${KVERS:-}" ]; then
		echo "$KVERS"
		return
	fi
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done
}

install_files() {
	[ -x "$CLI" ] || die "$CLI is missing: run make first"
	[ -x "$BENCH" ] || die "$BENCH is missing: run make first"
	ls "$PROGS"/*.bpf.o >/dev/null 2>&1 || die "no programs in $PROGS: run make first"
	mkdir -p "$BINDIR" "$PROGDIR"
	cp "$CLI" "$BINDIR/tap-accel"
	# The benchmark, a tool of its own; beside the CLI, which it runs.
	cp "$BENCH" "$BINDIR/tap-accel-bench"
	chmod 755 "$BINDIR/tap-accel" "$BINDIR/tap-accel-bench"
	cp "$PROGS"/*.bpf.o "$PROGDIR/"
	# The adapters (docs/guests.md); the agent's unit and libvirt's hook
	# link are the package's: they name /usr paths.
	for a in libvirt-qemu qemu-ifup qemu-ifdown; do
		cp "$TOP/user/adapters/$a" "$DESTDIR$PREFIX/lib/tap-accel/$a"
		chmod 755 "$DESTDIR$PREFIX/lib/tap-accel/$a"
	done
	# What the package installs beside them: their man pages and bash
	# completion (debian/tap-accel.manpages, debian/tap-accel.install).
	mkdir -p "$MANDIR" "$COMPDIR"
	cp "$TOP/man/tap-accel.8" "$TOP/man/tap-accel-bench.8" "$MANDIR/"
	cp "$TOP/user/completion/tap-accel" "$COMPDIR/tap-accel"
	chmod 644 "$MANDIR/tap-accel.8" "$MANDIR/tap-accel-bench.8" "$COMPDIR/tap-accel"
	say "CLI $BINDIR/tap-accel, benchmark $BINDIR/tap-accel-bench, programs in $PROGDIR, adapters in $DESTDIR$PREFIX/lib/tap-accel," \
		"man page in $MANDIR, bash completion in $COMPDIR"
}

# Prebuilt modules, placed where DKMS puts the ones it builds, and chosen
# as kmod/dkms.conf chooses them.
install_prebuilt() {
	kver=$(kernels)
	[ "$(echo "$kver" | wc -w)" = 1 ] || die "TAPX_KO needs exactly one kernel in KVERS"
	mkdir -p "$MODROOT/$kver/updates/dkms"
	for ko in $TAPX_KO; do
		[ -f "$ko" ] || die "TAPX_KO: $ko: no such file"
		case $(basename "$ko") in
		tapx_tun.ko) [ "$TUN" = replace ] || continue ;;
		esac
		cp "$ko" "$MODROOT/$kver/updates/dkms/"
		say "$(basename "$ko") for $kver in $MODROOT/$kver/updates/dkms (prebuilt)"
	done
}

install_dkms() {
	command -v dkms >/dev/null 2>&1 || die "dkms is not installed: make deps (or apt-get install dkms)"
	[ -z "$DESTDIR" ] || mkdir -p "$DESTDIR/var/lib/dkms"
	# A reinstall replaces the sources DKMS knows under this version.
	if dkms_run status -m tapx -v "$VERSION" 2>/dev/null | grep -q .; then
		dkms_remove_all
	fi
	mkdir -p "$DESTDIR/usr/src"
	make -s -C "$TOP/kmod" dkms-tree DEST="$DESTDIR/usr/src" >/dev/null
	dkms_run add -m tapx -v "$VERSION" >/dev/null
	built=0
	for kver in $(kernels); do
		if [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
			say "no headers for $kver (apt-get install linux-headers-$kver); DKMS builds tapx when they are installed"
			continue
		fi
		if [ -n "$DESTDIR" ]; then
			mkdir -p "$MODROOT/$kver"
			dkms_run install -m tapx -v "$VERSION" -k "$kver" \
				--installtree "$MODROOT" --no-depmod >/dev/null
		else
			dkms_run install -m tapx -v "$VERSION" -k "$kver" >/dev/null
		fi ||
			die "DKMS could not build or install tapx for $kver (build log: $DESTDIR/var/lib/dkms/tapx/$VERSION/build/make.log)"
		say "tapx.ko for $kver in $MODROOT/$kver/updates/dkms (DKMS)"
		built=$((built + 1))
	done
	[ "$built" -gt 0 ] || say "tapx is added to DKMS but built for no kernel yet"
	running=$(uname -r)
	[ -e "/lib/modules/$running/build/Makefile" ] ||
		say "the running kernel $running has no headers: tapx is not built for it"
}

write_conf() {
	mkdir -p "$(dirname "$CONF")"
	cp "$TOP/mk/modprobe.d/tapx.conf" "$CONF"
	say "$CONF: tapx replaces tun from the next load of tun"
}

run_depmod() {
	[ -z "$DESTDIR" ] || return 0
	for kver in $(kernels); do
		# /sbin/depmod: kmod's, also where a shell prefers its own applets.
		[ -d "/lib/modules/$kver" ] && /sbin/depmod -a "$kver"
	done
}

# A loaded module outlives its files: say which one serves tun now.
report_loaded() {
	[ -z "$DESTDIR" ] || return 0
	if [ -d /sys/module/tapx ]; then
		say "tapx is loaded now; $1"
	fi
}

do_install() {
	install_files
	# First: DKMS builds tapx_tun.ko only where tapx replaces tun.
	if [ "$TUN" = replace ]; then
		write_conf
	elif [ -e "$CONF" ]; then
		rm -f "$CONF"
		say "removed $CONF: stock tun from the next load of tun"
	fi
	if [ -n "$TAPX_KO" ]; then
		install_prebuilt
	else
		# kmod/dkms.conf reads it (DESTDIR has its own modprobe.d).
		export TAPX_TUN="$TUN"
		install_dkms
	fi
	run_depmod
	report_loaded "reload it (rmmod vhost_net tapx; modprobe tapx) for the new one"
}

do_uninstall() {
	rm -f "$CONF" "$BINDIR/tap-accel" "$BINDIR/tap-accel-bench" "$MANDIR/tap-accel.8" \
		"$MANDIR/tap-accel-bench.8" "$COMPDIR/tap-accel"
	rm -rf "$DESTDIR$PREFIX/lib/tap-accel"
	if [ -n "$TAPX_KO" ]; then
		for kver in $(kernels); do
			rm -f "$MODROOT/$kver/updates/dkms/"tapx.ko* \
				"$MODROOT/$kver/updates/dkms/"tapx_tun.ko*
		done
	elif command -v dkms >/dev/null 2>&1 &&
		dkms_run status -m tapx -v "$VERSION" 2>/dev/null | grep -q .; then
		dkms_remove_all
	fi
	rm -rf "$DESTDIR/usr/src/tapx-$VERSION"
	run_depmod
	say "tapx, its modprobe.d file, the CLI and the programs are removed: stock tun from the next load of tun"
	report_loaded "it serves until rmmod vhost_net tapx (or a reboot)"
}

case $ACTION in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "usage: mk/install.sh install|uninstall (make install [TUN=replace], make uninstall)" ;;
esac
