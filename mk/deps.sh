#!/bin/sh
# Install the Debian packages tap-accel needs, only those missing.
# Idempotent, and silent when everything is already there.
#   mk/deps.sh           every package (make deps, test, bench, VM targets)
#   mk/deps.sh --build   only check the packages a build needs; install
#                        nothing (a plain make, also as a non-root user)
set -eu

# What building bpf/, user/ and kmod/ takes (kmod/ also a kernel's headers).
BUILD_PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config
liburing-dev"

# The guest kernels tapx is tested on (mk/kernels.sh): Debian 12's 6.1 and the
# 6.12 of its security suite, each image with its modules and headers (7.3
# comes from Debian 13's backports, fetched below; linux-source-6.1's build
# tools also prepare its tree: bc flex bison libssl-dev libelf-dev); dkms
# for the DKMS test. The next-to-last line is for mk/debug-kernel.sh (6.1
# sources; BTF needs pahole, from dwarves), the last one for make deb and
# tests/deb (lintian; debootstrap, for a clean Debian 12 root).
# strace: QEMU's ioctls on tun.ko and tapx, in the VM (tests/vm/suite-qemu.sh).
# python3-prometheus-client: the host suite reads `stats --prometheus`
# with Prometheus' own parser of the exposition format.
PKGS="$BUILD_PKGS
iproute2 ethtool kmod cpio util-linux libcap2-bin liburing-dev gnuplot-nox
python3-prometheus-client
linux-headers-amd64 linux-image-amd64 linux-headers-6.12-amd64 linux-image-6.12-amd64
qemu-system-x86 strace busybox-static linux-perf python3 libclang-rt-14-dev dkms
linux-source-6.1 bc flex bison libssl-dev dwarves rsync xz-utils
dpkg-dev debhelper dh-dkms lintian debootstrap"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

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

# The running kernel's headers where it is a Debian kernel package: make
# bench builds tapx.ko for this kernel when it can load modules.
kver=$(uname -r)
installed "linux-image-$kver" && PKGS="$PKGS linux-headers-$kver"

# What no suite of the host's apt has, fetched into /var/cache/tap-accel
# once the tools it takes are installed: the guest kernels (7.3, by
# mk/kernels.sh) and QEMU's plugin API header (mk/qemu-plugin.sh).
fetch_cached() {
	for s in $(sh "$(dirname "$0")/kernels.sh" --tested); do
		sh "$(dirname "$0")/kernels.sh" --fetch "$s" || exit 1
	done
	sh "$(dirname "$0")/qemu-plugin.sh" --fetch || exit 1
}

missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
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
