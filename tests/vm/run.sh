#!/bin/sh
# VM suite for tapx.ko: builds a busybox initramfs, boots a Debian kernel
# (VM_KERNEL=6.1, the default, or 6.12) under qemu (TCG), builds tapx for
# exactly that kernel, runs the suites in the guest and prints their results.
#   tests/vm/run.sh           run the suites; exit non-zero on any failure or
#                             on a WARN/BUG/oops/... in the guest's dmesg
#   tests/vm/run.sh --bench   boot the same VM, run `tap-accel-bench --vm`
#                             (if built) and the tapx-bench measurement
#   tests/vm/run.sh --profile boot it and profile a tapx write path with
#                             perf (tests/vm/profile.sh)
#   tests/vm/run.sh --ab REV  boot it with this tree's tapx.ko and REV's
#                             (a git revision) and time tapx's write paths
#                             with each, alternating (tests/vm/ab.sh): a
#                             change to the driver against what it changed
# Environment: VM_KERNEL (a series of mk/kernels.sh, resolved to the newest
# installed kernel of it), or all of KVER (guest kernel), KERNEL (its image),
# MODBASE (root holding lib/modules/KVER) and KDIR (tree to build tapx
# against), as `make vmtest-debug` gives them for the debug kernel of
# mk/debug-kernel.sh; KMOD_BUILD (where tapx is built, per kernel by
# default), TAPX_KO (a tapx.ko built elsewhere, by DKMS say, to test instead
# of building one) and TAPX_TUN_KO (its tapx_tun.ko; by default the one
# beside TAPX_KO), VM_OUT (work folder, per kernel by default). VM_TIMEOUT (s),
# VM_STALL (s without console output before the guest counts as stuck),
# VM_CPU (qemu -cpu), VM_ACCEL (qemu -accel), VM_QEMU_OPTS (more qemu
# options), VM_ICOUNT (1: load the instruction counter, tests/vm/icount;
# the default in --bench and --ab, 0 elsewhere), VM_ICOUNT_PROFILE (a
# file: the counter's per-block profile of each counted interval),
# VM_APPEND (extra kernel arguments: the vm*= ones are in the table of
# tests/vm/README.md, and one not there is refused), VM_BPF_TEST_ALSO
# (LABEL=FILE ...: other trees' build/tests/bpf/bpf_test, whose cost
# tables vmbpfcost= prints beside this tree's).
# The default CPU is qemu's "max" without ERMS/FSRM: with them the guest
# copies with `rep movsb`, which TCG emulates byte by byte, so every copy
# (tun's and tapx's, not the /dev/null floor's) would cost several times
# what it costs on hardware and drown the per-frame overheads compared here.
# Without la57 (5-level paging) too: with it, the KASAN kernel of
# `make vmtest-debug` sometimes reports a wild access in an early-boot
# interrupt, which taints it and turns lockdep off for the whole run.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
. "$TOP/tests/lib/initramfs.sh"
. "$HERE/knobs.sh"
# A misspelt vm*= argument would be ignored in the guest without a word.
set -f
unknown=$(knobs_unknown "$HERE/README.md" ${VM_APPEND:-})
set +f
if [ -n "$unknown" ]; then
	echo "vm: unknown kernel argument(s) in VM_APPEND:" $unknown "- the vm*= arguments" \
		"the suites read are in tests/vm/README.md (Kernel arguments)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
VM_KERNEL=${VM_KERNEL:-6.1}
if [ -z "${KVER:-}" ]; then
	env=$(sh "$TOP/mk/kernels.sh" "$VM_KERNEL") || {
		echo "0 passed, 1 failed"
		exit 1
	}
	eval "$env"
fi
KERNEL=${KERNEL:-/boot/vmlinuz-$KVER}
MODBASE=${MODBASE:-}
MODDIR=$MODBASE/lib/modules/$KVER
KDIR=${KDIR:-$MODDIR/build}
KMOD_BUILD=${KMOD_BUILD:-$BUILD/kmod-build/$KVER}
OUT=${VM_OUT:-$BUILD/vm/$KVER}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
VM_TIMEOUT=${VM_TIMEOUT:-1200}
VM_CPU=${VM_CPU:-max,-erms,-fsrm,-la57}
VM_QEMU_OPTS=${VM_QEMU_OPTS:-}
MODE=test
[ "${1:-}" = "--bench" ] && MODE=bench
[ "${1:-}" = "--profile" ] && MODE=profile
AB_REV=
[ "${1:-}" = "--ab" ] && MODE=ab AB_REV=${2:-}
[ $MODE != ab ] || [ -n "$AB_REV" ] || {
	echo "usage: tests/vm/run.sh --ab REV (make vmbench-ab AB=REV)" >&2
	exit 2
}
# 6.12's suites run on one emulator thread: under multi-threaded TCG it can
# die in bpf_dispatcher_xdp_func (an int3 of text patching seen by the other
# vCPU) when native XDP programs are swapped under traffic, on stock tun.ko
# as on tapx (tests/vm/suite-dispatcher.sh shows it). On 6.1 it has been
# rare enough that its suites keep both threads, as they were tuned. The
# bench and profile swap programs only between runs: both threads, so that
# writer and reader run in parallel as on hardware.
case $MODE:$KVER in
test:6.1.* | test:6.1-* | bench:* | profile:* | ab:*) VM_ACCEL=${VM_ACCEL:-tcg} ;;
*) VM_ACCEL=${VM_ACCEL:-tcg,thread=single} ;;
esac

fail() {
	echo "vm: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

case $MODE in bench | ab) VM_ICOUNT=${VM_ICOUNT:-1} ;; esac
VM_ICOUNT=${VM_ICOUNT:-0}

for t in qemu-system-x86_64 cpio gzip gcc; do
	command -v $t >/dev/null 2>&1 || fail "$t is not installed (make deps)"
done
[ -r "$KERNEL" ] || fail "$KERNEL missing (apt-get install linux-image-$KVER)"
[ -d "$MODDIR" ] || fail "$MODDIR missing"
[ -x /bin/busybox ] || fail "busybox-static missing"

# The module and the BPF objects come from the top-level build.
if [ -z "${TAPX_KO:-}" ]; then
	make -s -C "$TOP/kmod" BUILD="$KMOD_BUILD" KDIR="$KDIR" >/dev/null ||
		fail "kmod build for $KVER failed (KDIR=$KDIR)"
	TAPX_KO=$KMOD_BUILD/kmod/tapx.ko
fi
[ -f "$TAPX_KO" ] || fail "$TAPX_KO missing"
TAPX_TUN_KO=${TAPX_TUN_KO:-$(dirname "$TAPX_KO")/tapx_tun.ko}
[ -f "$TAPX_TUN_KO" ] || fail "$TAPX_TUN_KO missing"
built_for=$(modinfo -F vermagic "$TAPX_KO" | cut -d' ' -f1)
[ "$built_for" = "$KVER" ] || fail "$TAPX_KO was built for $built_for, not for $KVER"
# --ab: REV's tapx, built from its own tree for the same kernel.
if [ $MODE = ab ]; then
	AB_TREE=$OUT/ab-tree
	rm -rf "$AB_TREE" && mkdir -p "$AB_TREE"
	git -C "$TOP" archive "$AB_REV" | tar -x -C "$AB_TREE" || fail "no tree for $AB_REV"
	make -s -C "$AB_TREE/kmod" BUILD="$AB_TREE/build" KDIR="$KDIR" >/dev/null ||
		fail "kmod build of $AB_REV for $KVER failed"
	TAPX_KO_B=$AB_TREE/build/kmod/tapx.ko
	[ -f "$TAPX_KO_B" ] || fail "the build of $AB_REV left no $TAPX_KO_B"
	# Its tapx_tun.ko, for vmabvhost (tests/vm/ab.sh), where REV has one.
	TAPX_TUN_KO_B=$AB_TREE/build/kmod/tapx_tun.ko
fi
make -s -C "$TOP/kmod" BUILD="$KMOD_BUILD" KDIR="$KDIR" copyfloor >/dev/null ||
	fail "copyfloor build failed"
# What two VM runs side by side (tests/run-all.sh) build in one place is
# built by one at a time.
mkdir -p "$BUILD"
exec 8>"$BUILD/.vm-shared-build.lock"
flock 8
[ -f "$BUILD/bpf/xdp_basic.bpf.o" ] || make -s -C "$TOP/bpf" BUILD="$BUILD" >/dev/null ||
	fail "bpf build failed"
[ -f "$BUILD/bpf/xdp_basic.bpf.o" ] || fail "build/bpf/xdp_basic.bpf.o missing (make bpf)"

rm -rf "$OUT/root"
mkdir -p "$OUT/root"
R=$OUT/root
mkdir -p $R/bin $R/sbin $R/lib $R/lib64 $R/proc $R/sys $R/dev $R/tmp $R/run \
	$R/modules $R/bpf $R/tests $R/etc $R/usr/bin

# Static test programs: every tests/vm/*.c but the BPF ones and their
# shared helper, and every tests/vm folder with a main.c, built by
# tests/vm/Makefile (with liburing, for tapx-bench's io_uring writer).
make -s -C "$HERE" OUT="$OUT" >/dev/null || fail "cannot build the test tools (make -C tests/vm)"
for p in $(make -s -C "$HERE" OUT="$OUT" tools); do
	cp "$OUT/$p" $R/bin/
done

cp /bin/busybox $R/bin/busybox
for a in $(/bin/busybox --list); do
	[ -e $R/bin/$a ] || ln -s busybox $R/bin/$a
done

# Dynamic tools plus their libraries.
copy_bin() {
	cp "$1" $R/bin/
	ldd "$1" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
		[ -n "$lib" ] && [ -f "$lib" ] || continue
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
# util-linux's setpriv: busybox's cannot change user (suite-plane.sh).
# nft and bridge: the bench's firewall table (tap-accel-bench --firewall).
for b in /usr/sbin/bpftool /usr/sbin/ethtool /usr/sbin/ip /usr/sbin/tc /usr/bin/setpriv /usr/sbin/nft \
	/usr/sbin/bridge; do
	[ -x $b ] || fail "$b missing"
	rm -f $R/bin/$(basename $b)
	copy_bin $b
done
if [ $MODE = profile ]; then
	[ -x /usr/bin/perf ] || fail "perf is not installed (make deps: linux-perf)"
	copy_bin /usr/bin/perf
fi
# suite-qemu.sh: Debian's QEMU (its TCG accelerator is a module) and
# strace; packed only for test boots that run that suite (not for the
# bench, profiles or vm-debug's list), whose boots they would slow.
pack_qemu=
if [ $MODE = test ]; then
	case " ${VM_APPEND:-} " in
	*" vmsuites="*qemu*) pack_qemu=1 ;;
	*" vmsuites="* | *" vmskip="*qemu*) ;;
	*) pack_qemu=1 ;;
	esac
fi
if [ -n "$pack_qemu" ]; then
	for b in /usr/bin/qemu-system-x86_64 /usr/bin/strace; do
		[ -x $b ] || fail "$b missing (make deps)"
		copy_bin $b
	done
	acc=$(dirname "$(ldd /usr/bin/qemu-system-x86_64 | awk '/libglib/ { print $3 }')")/qemu/accel-tcg-x86_64.so
	[ -f "$acc" ] || fail "$acc missing (make deps: qemu-system-x86)"
	copy_bin "$acc"
	mkdir -p "$R$(dirname "$acc")"
	mv $R/bin/accel-tcg-x86_64.so "$R$acc"
fi
for b in tap-accel tap-accel-bench; do
	[ ! -x "$BUILD/user/$b" ] || copy_bin "$BUILD/user/$b"
done
# Other trees' runners first (VM_BPF_TEST_ALSO="LABEL=FILE ...", packed
# as bpf_test-LABEL), for vmbpfcost='s tables beside this tree's.
for t in ${VM_BPF_TEST_ALSO:-}; do
	label=${t%%=*} file=${t#*=}
	case $t in *=?*) ;; *) fail "VM_BPF_TEST_ALSO: '$t' is not LABEL=FILE" ;; esac
	[ -x "$file" ] || fail "VM_BPF_TEST_ALSO: $file is not an executable"
	copy_bin "$file"
	mv "$R/bin/$(basename "$file")" "$R/bin/bpf_test-$label"
done
# The in-kernel tests of the policy program, run again on this kernel.
make -s -C "$TOP/tests/bpf" BUILD="$BUILD" >/dev/null && copy_bin "$BUILD/tests/bpf/bpf_test"
flock -u 8

# The instruction counter: a TCG plugin of this QEMU, answering the guest
# on its second serial port (vmicount=), fed by a FIFO pair (BASE.in the
# plugin writes, BASE.out the guest's writes, unread).
ICOUNT_OPTS= ICOUNT_APPEND=
if [ "$VM_ICOUNT" = 1 ]; then
	inc=$(sh "$TOP/mk/qemu-plugin.sh") || fail "no QEMU plugin API header for the instruction counter"
	make -s -C "$HERE" OUT="$OUT" QEMU_PLUGIN_INC="$inc" icount >/dev/null ||
		fail "cannot build the instruction counter (make -C tests/vm icount)"
	rm -f "$OUT/icount.in" "$OUT/icount.out"
	mkfifo "$OUT/icount.in" "$OUT/icount.out" || fail "mkfifo $OUT/icount.in"
	ICOUNT_OPTS="-plugin file=$OUT/icount.so,out=$OUT/icount.in${VM_ICOUNT_PROFILE:+,profile=$VM_ICOUNT_PROFILE}
		-serial mon:stdio -serial pipe:$OUT/icount"
	ICOUNT_APPEND=vmicount=/dev/ttyS1
fi

# Modules: tapx and tapx_tun, the bench's copy floor, the stock tun, what
# the bench's tc and bridge cells need (loaded in --bench mode), and
# vhost-net with what it needs (suite-vhost.sh, suite-vhostlink.sh,
# suite-install.sh), each listed after its dependencies; the loop below
# checks that list against modinfo for this kernel.
MODS="tun veth llc stp bridge sch_ingress cls_bpf vhost_iotlb vhost tap vhost_net"
cp "$TAPX_KO" $R/modules/tapx.ko
[ $MODE != ab ] || cp "$TAPX_KO_B" $R/modules/tapx-b.ko
[ $MODE != ab ] || [ ! -f "$TAPX_TUN_KO_B" ] || cp "$TAPX_TUN_KO_B" $R/modules/tapx_tun-b.ko
cp "$TAPX_TUN_KO" $R/modules/tapx_tun.ko
cp "$KMOD_BUILD/copyfloor/copyfloor.ko" $R/modules/
for m in $MODS; do
	f=$(modinfo ${MODBASE:+-b "$MODBASE"} -k "$KVER" -n $m) || fail "module $m not found for $KVER"
	case $f in
	*.xz) xz -dc "$f" >$R/modules/$m.ko ;;
	*.zst) zstd -qdc "$f" >$R/modules/$m.ko ;;
	*) cp "$f" $R/modules/$m.ko ;;
	esac
	for d in $(modinfo ${MODBASE:+-b "$MODBASE"} -k "$KVER" -F depends $m | tr ',' ' '); do
		[ -f $R/modules/$d.ko ] || fail "module $m needs $d: not packed"
	done
done

# The bench's firewall table: nftables with conntrack, in the bridge
# family (nf_conntrack_bridge) and with br_netfilter, each listed after
# its dependencies (libcrc32c needs the crc32c algorithm loaded first:
# crc32c_generic; the guest has no modprobe to fetch it). Those this
# kernel has as modules are packed (libcrc32c went in later kernels;
# built-in ones need nothing); the guest loads what it finds
# (tests/vm/bench.sh) and nft says what is missing.
FW_MODS="crc32c_generic libcrc32c nfnetlink nf_tables nf_defrag_ipv4 nf_defrag_ipv6 nf_conntrack nft_ct
nft_meta_bridge nf_conntrack_bridge br_netfilter nf_reject_ipv4 nf_reject_ipv6 nft_reject nft_reject_inet"
for m in $FW_MODS; do
	f=$(modinfo ${MODBASE:+-b "$MODBASE"} -k "$KVER" -n $m 2>/dev/null) || continue
	case $f in
	*.ko | *.ko.xz | *.ko.zst) ;;
	*) continue ;; # built in
	esac
	case $f in
	*.xz) xz -dc "$f" >$R/modules/$m.ko ;;
	*.zst) zstd -qdc "$f" >$R/modules/$m.ko ;;
	*) cp "$f" $R/modules/$m.ko ;;
	esac
	# one whose dependency is not packed is left out: the firewall table
	# then says what nft misses, and no other suite needs these
	for d in $(modinfo ${MODBASE:+-b "$MODBASE"} -k "$KVER" -F depends $m | tr ',' ' '); do
		[ -f $R/modules/$d.ko ] || {
			echo "vm: $m left out of the initramfs: it needs $d, not packed" >&2
			rm -f $R/modules/$m.ko
			break
		}
	done
done
echo "$FW_MODS" >$R/modules/firewall.list

# suite-install.sh: Debian's kmod, the kernel's modules that load tun
# (vhost_net and its dependencies) at their paths in the package, and what
# depmod reads besides them, staged apart from /lib/modules.
copy_bin /bin/kmod
ird_kmod_tree "$R/stock-modules/$KVER" "$MODDIR" tun tap vhost_iotlb vhost vhost_net ||
	fail "cannot stage the stock modules of $KVER"
mkdir -p $R/mk/modprobe.d $R/user/adapters $R/user/completion $R/man
cp "$TOP/mk/install.sh" $R/tests/install.sh
cp "$TOP"/user/adapters/* $R/user/adapters/
cp "$TOP/user/completion/tap-accel" $R/user/completion/
cp "$TOP/man/tap-accel.8" "$TOP/man/tap-accel-bench.8" $R/man/
cp "$TOP/mk/modprobe.d/tapx.conf" $R/mk/modprobe.d/
cp "$TOP/VERSION" $R/VERSION

cp "$BUILD"/bpf/*.bpf.o $R/bpf/
command -v clang >/dev/null 2>&1 || fail "clang is not installed (make deps)"
for src in "$HERE"/*.bpf.c; do
	o=$(basename "$src" .c).o
	clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) \
		-c "$src" -o $R/bpf/$o || fail "cannot build $o"
done
cp "$HERE"/init.sh $R/init
cp "$HERE"/suite-*.sh "$HERE"/lib.sh "$HERE"/knobs.sh "$HERE"/bench.sh "$HERE"/profile.sh "$HERE"/ab.sh $R/tests/
cp "$TOP/tests/lib/check.sh" $R/tests/check.sh
cp "$TOP/tests/lib/ns.sh" $R/tests/ns.sh
# make bench's own script, for suite-benchload.sh.
cp "$TOP/mk/bench.sh" $R/tests/make-bench.sh
chmod +x $R/init $R/tests/*.sh
echo "root:x:0:0:root:/:/bin/sh" >$R/etc/passwd
echo "root:x:0:" >$R/etc/group

(cd $R && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.gz"

LOG=$OUT/console-$MODE.log

# A guest that prints nothing for VM_STALL seconds is stuck as a whole: when
# only a suite hangs, its own watchdog (suite-all.sh) speaks up long before,
# but a hang that stops every CPU leaves it none to run on. Then where the
# vCPUs are is shown (tests/vm/vcpus.py, through QEMU's monitor) and QEMU
# is stopped. By default the guest watchdog's limit plus 300 s in test
# mode; 0 (never) in the bench modes, whose cells may be quiet for long.
knob() { echo " ${VM_APPEND:-} " | sed -n "s/.* $1=\([0-9][0-9]*\) .*/\1/p"; }
if [ "$MODE" = test ]; then
	limit=$(knobs_suite_limit "$(knob vmsuitelimit)" "$(knob vmfuzz)" "$(knob vmstress)")
	VM_STALL=${VM_STALL:-$((limit + 300))}
fi
VM_STALL=${VM_STALL:-0}
MON=$(mktemp -u /tmp/tapx-vm-monitor.XXXXXX)
SYSMAP=$KDIR/System.map
[ -e "$SYSMAP" ] || SYSMAP=$(dirname "$KERNEL")/System.map-$KVER
rm -f "$OUT/stalled"
stall_watch() {
	size=-1
	quiet=0
	while sleep 15; do
		now=$(stat -c %s "$LOG" 2>/dev/null || echo 0)
		if [ "$now" != "$size" ]; then
			size=$now
			quiet=0
			continue
		fi
		quiet=$((quiet + 15))
		[ $quiet -ge "$VM_STALL" ] || continue
		: >"$OUT/stalled"
		echo "vm: the guest printed nothing for $quiet s; where its vCPUs are:"
		python3 "$HERE/vcpus.py" "$MON" "$SYSMAP" \
			"$(tr -d '\r' <"$LOG" | sed -n 's/.*==== KTEXT \([0-9a-f]*\).*/\1/p' | head -n 1)"
		return
	done
}
watcher=
if [ "$VM_STALL" -gt 0 ]; then
	stall_watch &
	watcher=$!
fi

echo "vm: booting $KVER ($MODE), log in ${LOG#$TOP/}"
start=$(date +%s)
# The guest's results are shown as they come (its failed and skipped
# checks, each suite's counts, the bench output), so that a run stopped
# from outside still shows how far the guest got.
rm -f "$OUT/qemu.rc"
set +e
{
	timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 \
		-accel "$VM_ACCEL" $VM_QEMU_OPTS $ICOUNT_OPTS -cpu "$VM_CPU" -m 1G -smp 2 -nographic -no-reboot \
		-kernel "$KERNEL" -initrd "$OUT/initramfs.gz" \
		-append "console=ttyS0 panic=-1 loglevel=3 vmmode=$MODE ${AB_REV:+vmabrev=$AB_REV} $ICOUNT_APPEND ${VM_APPEND:-}" \
		-nic none -monitor unix:"$MON",server=on,wait=off </dev/null 2>&1
	echo $? >"$OUT/qemu.rc"
} | tee "$LOG" | sed -u -n 's/\r$//; /==== OUTPUT BEGIN/,/^==== OUTPUT END/{/==== OUTPUT /!p}'
qrc=$(cat "$OUT/qemu.rc")
[ -z "$watcher" ] || kill "$watcher" 2>/dev/null
rm -f "$MON"
set -e
end=$(date +%s)
echo "vm: qemu exited with $qrc after $((end - start)) s"

tr -d '\r' <"$LOG" >"$LOG.txt"
sed -n '/^==== DMESG BEGIN/,/^==== DMESG END/p' "$LOG.txt" >"$OUT/dmesg-$MODE.txt"

status=0
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "vm: timed out after $VM_TIMEOUT s"
	status=1
fi
if [ -e "$OUT/stalled" ]; then
	echo "vm: stopped after $VM_STALL s without a word from the guest (VM_STALL)"
	status=1
fi
if ! grep -q '^==== DMESG END' "$LOG.txt"; then
	echo "vm: the guest did not finish; last console lines:"
	tail -n 30 "$LOG.txt"
	status=1
fi
# Everything but the tests' own output: the kernel's console and dmesg
# (less its echo of our vm*= arguments, e.g. vmsuites=...,leak,...).
bad=$(sed '/==== OUTPUT BEGIN/,/^==== OUTPUT END/d' "$LOG.txt" |
	grep -E 'WARNING:|BUG:|Oops|general protection|scheduling while atomic|sleeping function called|refcount_t|leak|unreferenced object|ODEBUG|Call Trace|[Kk]ernel panic' |
	grep -v -E 'Kernel memory leak detector initialized|(^|[ "])vm[a-z]+=' || true)
if [ -n "$bad" ]; then
	echo "vm: kernel problems in the guest's dmesg:"
	echo "$bad" | head -n 40
	status=1
fi

line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG.txt" | tail -n 1)
if [ -z "$line" ]; then
	echo "vm: no result line from the guest"
	echo "0 passed, 1 failed"
	exit 1
fi
p=${line%% passed*}
f=${line#*passed, }
f=${f%% failed*}
k=0
case $line in *" skipped"*) k=${line##*failed, } k=${k%% skipped*} ;; esac
[ "$f" -eq 0 ] || status=1
if [ $status -ne 0 ] && [ "$f" -eq 0 ]; then
	f=1
fi
if [ "$k" -gt 0 ]; then
	echo "$p passed, $f failed, $k skipped"
else
	echo "$p passed, $f failed"
fi
exit $status
