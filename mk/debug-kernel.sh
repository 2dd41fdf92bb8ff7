#!/bin/sh
# Build (once per machine) a debug guest kernel from Debian's linux-source-6.1:
# defconfig + kvm_guest.config + what the VM suites need + KASAN (generic,
# inline), kmemleak, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_OBJECTS,
# minus the subsystems the guest never uses (TRIM), since `make test` (the
# vm-debug suite) may have to build it cold.
#   mk/debug-kernel.sh              build if not cached, then print the env
#   mk/debug-kernel.sh --print-env  print the env of a cached build, never
#                                   build (exit 1 when there is none)
# Stdout is only the env, one VAR=value a line, for `eval "$(...)"`:
#   KERNEL  bzImage             KVER     its release (uname -r)
#   MODBASE modinfo -b / depmod -b base; MODDIR=$MODBASE/lib/modules/$KVER
#   KDIR    the kept build tree, for out-of-tree modules (make KDIR=...)
#   DEBUG_KERNEL_DIR the cache entry holding all of the above
# The result lives outside the repo in $DEBUG_KERNEL_CACHE (default
# /var/cache/tap-accel/debug-kernel)/<key>, <key> being a hash of the final
# .config and the source package's version.
# kmemleak: DEBUG_KMEMLEAK_AUTO_SCAN is OFF, so reports come only from an
# explicit `echo scan > /sys/kernel/debug/kmemleak` (the suite does it after
# its runs): no scan thread racing the tests, no spurious mid-run reports.
set -eu

CACHE=${DEBUG_KERNEL_CACHE:-/var/cache/tap-accel/debug-kernel}
PKG=linux-source-6.1
TARBALL=/usr/src/linux-source-6.1.tar.xz
LOCALVERSION=-tapx-debug
JOBS=${JOBS:-2}
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

PRINT_ONLY=0
case "${1:-}" in
--print-env) PRINT_ONLY=1 ;;
"") ;;
*) echo "usage: $0 [--print-env]" >&2; exit 2 ;;
esac

# Keep stdout for the env alone; everything else goes to stderr.
exec 3>&1 1>&2

die() { echo "debug-kernel: $*" >&2; exit 1; }

# Options, as NAME=VALUE; "n" means must be off (unset or "is not set").
# Only these are asked for; olddefconfig fills in the rest.
WANT="
MODULES=y MODULE_UNLOAD=y MODULE_SIG=n MODULE_COMPRESS_NONE=y LOCALVERSION_AUTO=n
TUN=m VETH=m VIRTIO=y VIRTIO_PCI=y VIRTIO_NET=y VIRTIO_CONSOLE=y
VHOST_NET=m MACVLAN=m MACVTAP=m TAP=m
BRIDGE=m NET_SCHED=y NET_CLS_ACT=y NET_SCH_INGRESS=m NET_CLS_BPF=m
BPF=y BPF_SYSCALL=y BPF_JIT=y BPF_EVENTS=y XDP_SOCKETS=y IPV6=y NET_NS=y
DEBUG_INFO_NONE=n DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n DEBUG_INFO_DWARF4=n
DEBUG_INFO_DWARF5=y DEBUG_INFO_REDUCED=n DEBUG_INFO_SPLIT=n DEBUG_INFO_BTF=y
BLK_DEV_INITRD=y RD_GZIP=y DEVTMPFS=y TMPFS=y PROC_FS=y SYSFS=y DEBUG_FS=y
SERIAL_8250=y SERIAL_8250_CONSOLE=y KALLSYMS=y KALLSYMS_ALL=y
FTRACE=y TRACING=y FUNCTION_TRACER=y DYNAMIC_FTRACE=y KPROBES=y KPROBE_EVENTS=y
SLUB_DEBUG=y
DEBUG_KERNEL=y KASAN=y KASAN_GENERIC=y KASAN_OUTLINE=n KASAN_INLINE=y
DEBUG_KMEMLEAK=y DEBUG_KMEMLEAK_DEFAULT_OFF=n DEBUG_KMEMLEAK_AUTO_SCAN=n
PROVE_LOCKING=y DEBUG_ATOMIC_SLEEP=y DEBUG_LIST=y
DEBUG_OBJECTS=y DEBUG_OBJECTS_FREE=y DEBUG_OBJECTS_TIMERS=y DEBUG_OBJECTS_WORK=y
PANIC_ON_OOPS=n BOOTPARAM_SOFTLOCKUP_PANIC=n BOOTPARAM_HUNG_TASK_PANIC=n
DRM=n SOUND=n WIRELESS=n WLAN=n NETWORK_FILESYSTEMS=n ETHERNET=n USB_SUPPORT=n
"
# Off only to build less (the cold build is part of `make test`): whole
# subsystems a diskless, NIC-less initramfs guest on a serial console never
# touches. Best effort: something still selecting one of them wins, and
# the check below does not ask for them.
TRIM="
EXPERT=y VT=n INPUT=n HID=n BLOCK=n IO_URING=n EFI=n NETFILTER=n NET_9P=n
SECURITY=n AUDIT=n NETLABEL=n PCCARD=n I2C=n AGP=n HWMON=n THERMAL=n
WATCHDOG=n RTC_CLASS=n IOMMU_SUPPORT=n X86_PLATFORM_DEVICES=n RFKILL=n
CPU_FREQ=n ACPI_PROCESSOR=n ACPI_AC=n ACPI_BATTERY=n ACPI_BUTTON=n
ACPI_VIDEO=n ACPI_FAN=n ACPI_DOCK=n ACPI_CONTAINER=n ACPI_TABLE_UPGRADE=n
ACPI_BGRT=n ACPI_PRMT=n ACPI_APEI=n ACPI_NFIT=n ACPI_PCI_SLOT=n
PERF_EVENTS_INTEL_UNCORE=n PERF_EVENTS_INTEL_RAPL=n PERF_EVENTS_INTEL_CSTATE=n
PERF_EVENTS_AMD_UNCORE=n MICROCODE=n X86_MCE=n NUMA=n HIBERNATION=n SUSPEND=n
KEXEC=n CRASH_DUMP=n HUGETLBFS=n AUTOFS4_FS=n AUTOFS_FS=n XFRM_USER=n NET_KEY=n
SCHED_MC_PRIO=n X86_INTEL_PSTATE=n X86_ACPI_CPUFREQ=n ACPI_THERMAL=n
PHYLIB=n DMADEVICES=n IP_PNP=n HOTPLUG_PCI=n POWER_SUPPLY=n BACKLIGHT_CLASS_DEVICE=n
SERIAL_8250_PCI=n SERIAL_8250_EXAR=n SERIAL_8250_EXTENDED=n SERIAL_8250_LPSS=n
SERIAL_8250_MID=n SERIAL_8250_PERICOM=n INET_AH=n INET_ESP=n INET6_AH=n INET6_ESP=n
CRYPTO_CCM=n CRYPTO_GCM=n CRYPTO_SEQIV=n CRYPTO_ECHAINIV=n CRYPTO_CMAC=n
CRYPTO_GHASH=n CRYPTO_SHA3=n CRYPTO_SHA512=n CRYPTO_RSA=n CRYPTO_AUTHENC=n
CGROUP_DEBUG=n CGROUP_RDMA=n CGROUP_MISC=n PNP_DEBUG_MESSAGES=n
"
# Selected (no prompt) or gone in 6.1: only checked, or skipped if absent.
CHECK="LLC=m STP=m PAGE_POOL=y DEBUG_INFO_BTF_MODULES=y TRACEPOINTS=y LOCKDEP=y
DEBUG_LOCK_ALLOC=y"
OPTIONAL="REFCOUNT_FULL=y"

[ -r "$TARBALL" ] || die "$TARBALL missing (make deps: apt-get install $PKG)"
PKGVER=$(dpkg-query -W -f='${Version}' $PKG 2>/dev/null) || die "$PKG is not installed"
for t in gcc make bc flex bison pahole xz rsync depmod; do
	command -v $t >/dev/null 2>&1 || die "$t is not installed (make deps)"
done

# The env is printed unquoted: keep it word-safe.
case $CACHE in *[[:space:]]*) die "DEBUG_KERNEL_CACHE must not contain spaces" ;; esac
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9 # one build at a time; a waiter then finds the cache filled

# Fast path: a key over every input (this script, the package, the tools)
# names the entry its last build resolved to, so a cached run does no work.
INKEY=$({ cat "$SELF"; echo "$PKGVER"; gcc --version | head -1; pahole --version; } |
	sha256sum | cut -c1-16)
print_env() {
	e=$1
	. "$e/env"
	printf 'KERNEL=%s\nKVER=%s\nMODBASE=%s\nMODDIR=%s\nKDIR=%s\nDEBUG_KERNEL_DIR=%s\n' \
		"$KERNEL" "$KVER" "$MODBASE" "$MODDIR" "$KDIR" "$e" >&3
}
if [ -f "$CACHE/inputs/$INKEY" ]; then
	e=$CACHE/$(cat "$CACHE/inputs/$INKEY")
	[ -f "$e/env" ] && { print_env "$e"; exit 0; }
fi

# The pristine source, extracted once per package version; builds use O=.
SRC=$CACHE/src/$PKGVER/linux-source-6.1
if [ ! -f "$SRC/Makefile" ]; then
	[ $PRINT_ONLY = 1 ] && die "no cached debug kernel (run mk/debug-kernel.sh)"
	echo "debug-kernel: extracting $TARBALL ($PKGVER)"
	rm -rf "$CACHE/src/$PKGVER.tmp"
	mkdir -p "$CACHE/src/$PKGVER.tmp"
	tar -C "$CACHE/src/$PKGVER.tmp" -xJf "$TARBALL"
	[ -f "$CACHE/src/$PKGVER.tmp/linux-source-6.1/Makefile" ] || die "unexpected tarball layout"
	rm -rf "$CACHE/src/$PKGVER"
	mv "$CACHE/src/$PKGVER.tmp" "$CACHE/src/$PKGVER"
fi

# Resolve the final config in a scratch output dir.
CFG=$CACHE/cfg.$$
rm -rf "$CFG"
mkdir -p "$CFG"
trap 'rm -rf "$CFG"' EXIT
make -s -C "$SRC" O="$CFG" defconfig kvm_guest.config >/dev/null
# One scripts/config run for all of them: it is a shell script that
# rereads .config per option, minutes for this list on a loaded machine.
ARGS=""
for kv in $WANT $TRIM; do
	k=${kv%%=*} v=${kv#*=}
	case $v in
	y) ARGS="$ARGS --enable $k" ;;
	m) ARGS="$ARGS --module $k" ;;
	n) ARGS="$ARGS --disable $k" ;;
	*) die "bad option $kv" ;;
	esac
done
apply() {
	# shellcheck disable=SC2086 # ARGS is a word list
	"$SRC/scripts/config" --file "$CFG/.config" $ARGS --set-str LOCALVERSION "$LOCALVERSION"
	make -s -C "$SRC" O="$CFG" olddefconfig >/dev/null
}
# Twice: an option whose dependency was itself only just enabled sticks
# on the second pass.
apply
apply
missing=""
for kv in $WANT $CHECK; do
	k=${kv%%=*} v=${kv#*=}
	if [ "$v" = n ]; then
		grep -q "^CONFIG_$k=[ym]" "$CFG/.config" && missing="$missing $k(want n)"
	else
		grep -qx "CONFIG_$k=$v" "$CFG/.config" || missing="$missing $k(want $v)"
	fi
done
[ -z "$missing" ] || die "config options did not stick:$missing"

KEY=$({ grep -v '^#' "$CFG/.config" | grep -v '^$'; echo "$PKGVER"; } | sha256sum | cut -c1-16)
E=$CACHE/$KEY
if [ ! -f "$E/env" ]; then
	[ $PRINT_ONLY = 1 ] && die "no cached debug kernel for this config (run mk/debug-kernel.sh)"
	B=$E/build
	rm -rf "$E"
	mkdir -p "$B"
	cp "$CFG/.config" "$B/.config"
	echo "debug-kernel: building $PKGVER as $KEY in $B (-j$JOBS, log on stderr)"
	for kv in $OPTIONAL; do
		k=${kv%%=*}
		grep -rqs "^config $k\$" "$SRC" --include='Kconfig*' ||
			echo "debug-kernel: note: CONFIG_$k does not exist in this tree (skipped)"
	done
	start=$(date +%s)
	nice -n 10 make -C "$SRC" O="$B" -j"$JOBS" olddefconfig
	cmp -s "$CFG/.config" "$B/.config" || die "config changed under olddefconfig"
	nice -n 10 make -C "$SRC" O="$B" -j"$JOBS" bzImage modules
	KVER=$(make -s -C "$SRC" O="$B" kernelrelease)
	# Stripped of DWARF (BTF stays): smaller initramfs, same reports.
	make -C "$SRC" O="$B" INSTALL_MOD_PATH="$E/modules" INSTALL_MOD_STRIP=1 modules_install
	cp "$B/arch/x86/boot/bzImage" "$E/bzImage"
	[ -d "$E/modules/lib/modules/$KVER" ] || die "modules_install left no $KVER"
	{
		echo "KERNEL=$E/bzImage"
		echo "KVER=$KVER"
		echo "MODBASE=$E/modules"
		echo "MODDIR=$E/modules/lib/modules/$KVER"
		echo "KDIR=$B"
	} >"$E/env.tmp"
	mv "$E/env.tmp" "$E/env"
	echo "debug-kernel: built in $(($(date +%s) - start)) s"
fi
mkdir -p "$CACHE/inputs"
echo "$KEY" >"$CACHE/inputs/$INKEY"
print_env "$E"
