#!/bin/sh
# Install the Debian packages tap-accel needs, only those missing.
# Idempotent, and silent when everything is already there.
#   mk/deps.sh            every package (make deps, bench, deb, the VM targets,
#                         and make test when SUITES is unset)
#   mk/deps.sh SUITE...   what a build and those test suites need (make test
#                         passes SUITES; vm-6.12+vm-7.3 counts as both)
#   mk/deps.sh --print [SUITE...]  say which packages and kernels that would
#                         be, and which are missing; install nothing
#   mk/deps.sh --build    only check the packages a build needs; install
#                         nothing (a plain make, also as a non-root user)
set -eu
KERNELS_SH="sh $(dirname "$0")/kernels.sh"

# What building bpf/, user/ and kmod/ takes (kmod/ also a kernel's headers).
BUILD_PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config
liburing-dev libxml2-dev"

# What the suites need besides, by kind (tests/README.md, "The suites"):
# suites on real taps of this host, as root (setpriv, unshare: util-linux).
HOST_PKGS="iproute2 ethtool kmod util-linux libcap2-bin"
# The host suites' Python: the agent's HTTP client and listeners, and the
# host suite reads `stats --prometheus` with Prometheus' own parser.
PY_PKGS="python3 python3-prometheus-client"
# QEMU, and what its guests' initramfs holds besides tapx (strace: QEMU's
# ioctls on tun.ko and tapx in tests/vm/suite-qemu.sh; perf: make vmprofile).
QEMU_PKGS="qemu-system-x86"
GUEST_PKGS="cpio busybox-static strace linux-perf nftables"
# The guest kernels tapx is tested on (mk/kernels.sh): Debian 12's 6.1 and
# the 6.12 of its security suite, each image with its modules and headers;
# 7.3 comes from Debian 13's backports, fetched into /var/cache/tap-accel
# by mk/kernels.sh, which prepares its tree from linux-source with these.
KERNEL_6_1_PKGS="linux-headers-amd64 linux-image-amd64"
KERNEL_6_12_PKGS="linux-headers-6.12-amd64 linux-image-6.12-amd64"
FETCH_PKGS="bc flex bison libssl-dev xz-utils"
# mk/debug-kernel.sh: 6.1's sources, BTF needs pahole (from dwarves).
DEBUG_KERNEL_PKGS="linux-source-6.1 bc flex bison libssl-dev dwarves rsync xz-utils"
# make deb and tests/deb (lintian; debootstrap, for a clean Debian 12 root).
DEB_PKGS="dpkg-dev debhelper dh-dkms lintian debootstrap dkms"

need() { PKGS="$PKGS $*"; }

# need_kernel SERIES: the packages of a guest kernel series, or the tools
# to fetch it and the series into $fetch.
# need_plugin: QEMU's plugin API header, for the VM bench's instruction
# counter (tests/vm/icount): QEMU, and xz to unpack its source.
need_plugin() {
	need "$QEMU_PKGS xz-utils"
	plugin=1
}

need_kernel() {
	case $1 in
	6.1) need "$KERNEL_6_1_PKGS" ;;
	6.12) need "$KERNEL_6_12_PKGS" ;;
	*)
		$KERNELS_SH --series | grep -qx "$1" ||
			die "no kernel series $1 (mk/kernels.sh --series lists them)"
		need "$FETCH_PKGS"
		fetch="$fetch $1"
		;;
	esac
}

# need_suite SUITE: what a suite of tests/run-all.sh needs besides the build.
need_suite() {
	case $1 in
	unit) ;;
	bpf | security | diff) need "$HOST_PKGS" ;;
	host | agent | agent-fault) need "$HOST_PKGS $PY_PKGS" ;;
	import)
		need "$HOST_PKGS $PY_PKGS"
		nwfilter=1
		;;
	adapters)
		need "$HOST_PKGS $PY_PKGS $QEMU_PKGS"
		nwfilter=1
		;;
	bench)
		need "$HOST_PKGS $PY_PKGS $QEMU_PKGS $GUEST_PKGS gnuplot-nox $(running_headers)"
		need_kernel "${VM_KERNEL:-6.1}"
		need_plugin
		;;
	icount)
		need "$QEMU_PKGS $GUEST_PKGS"
		need_kernel "${VM_KERNEL:-6.1}"
		need_plugin
		;;
	fuzz) need libclang-rt-14-dev ;;
	vm-debug) need "$QEMU_PKGS $GUEST_PKGS $DEBUG_KERNEL_PKGS" ;;
	vm-*)
		need "$QEMU_PKGS $GUEST_PKGS"
		need_kernel "${1#vm-}"
		;;
	guests)
		need "$HOST_PKGS $PY_PKGS $QEMU_PKGS $GUEST_PKGS"
		need_kernel "${VM_KERNEL:-6.1}"
		;;
	dkms | deb)
		need "$HOST_PKGS $QEMU_PKGS $GUEST_PKGS dkms"
		[ "$1" = dkms ] || need "$DEB_PKGS"
		for s in $($KERNELS_SH --tested); do
			need_kernel "$s"
		done
		;;
	*) die "no test suite '$1' (tests/README.md lists them)" ;;
	esac
}

die() {
	echo "deps: $*" >&2
	exit 1
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# The running kernel's headers where it is a Debian kernel package: make
# bench builds tapx.ko for this kernel when it can load modules.
running_headers() {
	installed "linux-image-$(uname -r)" && echo "linux-headers-$(uname -r)" || true
}

if [ "${1:-}" = --build ]; then
	missing=""
	for p in $BUILD_PKGS; do
		installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && exit 0
	echo "deps: a build needs Debian packages that are missing:$missing" >&2
	echo "deps: 'make deps' as root installs them (or: apt-get install$missing)" >&2
	exit 1
fi

print=
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
fetch=""
plugin=""
# libvirt's shipped nwfilter filters (mk/nwfilter.sh), for the suites
# that translate them
nwfilter=""
if [ $# = 0 ]; then
	plugin=1
	nwfilter=1
	# Everything: every suite, every kernel make test boots, and make bench.
	PKGS="$BUILD_PKGS $HOST_PKGS $PY_PKGS $QEMU_PKGS $GUEST_PKGS gnuplot-nox
	libclang-rt-14-dev $DEBUG_KERNEL_PKGS $DEB_PKGS $(running_headers)"
	for s in $($KERNELS_SH --tested); do
		need_kernel "$s"
	done
else
	PKGS=$BUILD_PKGS
	for arg; do
		for suite in $(echo "$arg" | tr '+' ' '); do
			need_suite "$suite"
		done
	done
fi
# each once, in order
PKGS=$(echo $PKGS | tr ' ' '\n' | awk 'NF && !seen[$0]++' | paste -sd ' ')
fetch=$(echo $fetch | tr ' ' '\n' | awk 'NF && !seen[$0]++' | paste -sd ' ')

# What no suite of the host's apt has, fetched into /var/cache/tap-accel
# once the tools it takes are installed: the guest kernels (7.3, by
# mk/kernels.sh) and QEMU's plugin API header (mk/qemu-plugin.sh).
fetch_cached() {
	for s in $fetch; do
		$KERNELS_SH --fetch "$s" || exit 1
	done
	[ -z "$plugin" ] || sh "$(dirname "$0")/qemu-plugin.sh" --fetch || exit 1
	[ -z "$nwfilter" ] || sh "$(dirname "$0")/nwfilter.sh" --fetch || exit 1
}

missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$print" ]; then
	echo "packages: $PKGS"
	echo "missing:${missing:- none}"
	echo "kernels fetched: ${fetch:-none}"
	echo "QEMU's plugin header fetched: $([ -n "$plugin" ] && echo yes || echo no)"
	echo "libvirt's nwfilter filters fetched: $([ -n "$nwfilter" ] && echo yes || echo no)"
	exit 0
fi
if [ -z "$missing" ]; then
	fetch_cached
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run 'make deps' as root, or: apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $missing; } >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	rm -f "$log"
	echo "deps: apt-get failed (see above)" >&2
	exit 1
fi
rm -f "$log"
fetch_cached
