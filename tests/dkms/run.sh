#!/bin/sh
# DKMS for real: for every kernel series make test boots (mk/kernels.sh
# --tested: Debian's 6.1, 6.12 and 7.3), `dkms add`, `dkms build` and
# `dkms install` tapx from a clean source tree (`make -C kmod dkms-tree`)
# against that kernel's headers (7.3: the tree mk/kernels.sh prepared with
# Debian 12's gcc; the Debian 13 operator's DKMS is the deb suite's), boot
# that kernel (tests/vm/run.sh with TAPX_KO) and load, use and unload the
# module DKMS built. DKMS works in private trees under build/dkms (its
# --sourcetree, --dkmstree and --installtree), so the host's /usr/src,
# /var/lib/dkms and /lib/modules are not touched; the commands are those an
# operator runs (kmod/README.md). Ends with "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/dkms

. "$TOP/tests/lib/check.sh"
. "$TOP/tests/lib/guestko.sh"

command -v dkms >/dev/null 2>&1 || { bad "dkms is not installed (make deps)"; finish; }
[ "$(id -u)" = 0 ] || { bad "the DKMS test needs root"; finish; }

VERSION=$(cat "$TOP/VERSION")
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/dkms" "$OUT/install"
trees="--sourcetree $OUT/src --dkmstree $OUT/dkms"
tmp=$OUT/tmp
mkdir -p "$tmp"

runs "the DKMS source tree" make -s -C "$TOP/kmod" dkms-tree DEST="$OUT/src"
runs "dkms.conf in it" test -f "$OUT/src/tapx-$VERSION/dkms.conf"
runs "dkms add" dkms add -m tapx -v "$VERSION" $trees

# The modules dkms.conf names in the environment ENV... (env's arguments).
dkms_conf_modules() {
	env "$@" bash -c '. "$1"; echo "${BUILT_MODULE_NAME[*]}"' sh "$OUT/src/tapx-$VERSION/dkms.conf"
}
# Where tapx does not replace tun, DKMS installs tapx.ko alone: tapx_tun.ko
# under updates/ would take vhost_net's tun_* symbols from tun.ko.
if [ ! -e /etc/modprobe.d/tapx.conf ] && [ ! -e /lib/modprobe.d/tapx.conf ]; then
	check "dkms.conf's modules without TAPX_TUN" "tapx" "$(dkms_conf_modules -u TAPX_TUN)"
	check "dkms.conf's modules with TAPX_TUN=replace" "tapx tapx_tun" "$(dkms_conf_modules TAPX_TUN=replace)"
fi
# TAPX_TUN=keep whatever modprobe.d says: how the packages' maintainer
# scripts name a build made before tapx-as-tun was installed.
check "dkms.conf's modules with TAPX_TUN=keep" "tapx" "$(dkms_conf_modules TAPX_TUN=keep)"

# A kernel outside the series tapx is tested on (mk/kernels.sh): DKMS's
# build stops before the compiler runs, with one line naming the kernel
# (dkms.conf reads DKMS's kernel release) and the range. Fake kernel trees:
# DKMS wants a folder with include/ in it, and runs its CLEAN (make clean)
# there first.
oldest=$(sh "$TOP/mk/kernels.sh" --series | sort -V | head -n 1)
newest=$(sh "$TOP/mk/kernels.sh" --series | sort -V | tail -n 1)
for k in 5.10.0-30-amd64 7.9.0-1-amd64; do
	fake=$tmp/kernel-$k
	mkdir -p "$fake/include"
	printf 'clean:\n' >"$fake/Makefile"
	expect_exit 10 "Bad return status for module build on kernel: $(printf '%s' "$k" | sed 's/[.+]/\\&/g')" \
		dkms build -m tapx -v "$VERSION" -k "$k" --kernelsourcedir "$fake" $trees
	log=$OUT/dkms/tapx/$VERSION/build/make.log
	check "DKMS's make.log for $k" "tapx: kernel $k is not supported: tapx $VERSION builds for Linux $oldest to $newest" \
		"$(grep '^tapx: ' "$log" 2>/dev/null)"
	check "no compiler error for $k" 0 "$(grep -c -i 'error' "$log" 2>/dev/null)"
done

for series in $(sh "$TOP/mk/kernels.sh" --tested); do
	echo "# DKMS on $series"
	env=$(sh "$TOP/mk/kernels.sh" "$series") || { bad "no $series kernel (make deps)"; continue; }
	eval "$env"
	mkdir -p "$OUT/install/$KVER"
	kre=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g') # for grep -E
	# As `make install TUN=replace` runs it: with tapx_tun.ko (dkms.conf).
	runs "dkms build for $KVER" env TAPX_TUN=replace \
		dkms build -m tapx -v "$VERSION" -k "$KVER" --kernelsourcedir "$KDIR" $trees
	expect_exit 0 "Installing to $OUT/install/$kre/updates/dkms" env TAPX_TUN=replace \
		dkms install -m tapx -v "$VERSION" -k "$KVER" $trees --installtree "$OUT/install" --no-depmod
	ko=$(ls "$OUT/install/$KVER/updates/dkms/"tapx.ko* 2>/dev/null | head -n 1)
	check "vermagic of the DKMS module for $KVER" "$KVER" \
		"$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
	# tun's vhost-net exports, installed beside it (kmod/README.md, vhost-net).
	tko=$(ls "$OUT/install/$KVER/updates/dkms/"tapx_tun.ko* 2>/dev/null | head -n 1)
	check "tapx_tun of the DKMS build for $KVER" "$KVER" \
		"$(modinfo -F vermagic "$tko" 2>/dev/null | cut -d' ' -f1)"
	mkdir -p "$tmp/$KVER"
	ko=$(plain_ko "$ko" "$tmp/$KVER") && tko=$(plain_ko "$tko" "$tmp/$KVER") ||
		bad "cannot uncompress the DKMS modules of $KVER"
	expect_exit 0 "tapx/$VERSION, $kre, x86_64: installed" \
		dkms status -m tapx $trees --installtree "$OUT/install"

	# The CRC check of the build: a tapx_tun.c that does not see tun.c's
	# structs (two includes instead of its list) exports other CRCs, which
	# vhost_net would refuse; symvers-check.sh, run by DKMS's MAKE[0],
	# must say so and fail.
	badsrc=$tmp/badcrc-$KVER
	rm -rf "$badsrc"
	mkdir -p "$badsrc"
	for f in tapx_tun.c tapx_exports.h symvers-check.sh; do
		cp "$OUT/src/tapx-$VERSION/$f" "$badsrc/"
	done
	sed -i '/^#if __has_include/,/^#endif/d; /^#include </d; 1a #include <linux/module.h>\n#include <linux/if_tun.h>' \
		"$badsrc/tapx_tun.c"
	echo 'obj-m := tapx_tun.o' >"$badsrc/Kbuild"
	runs "tapx_tun with two includes builds for $KVER" \
		make -s -C "$KDIR" M="$badsrc" KBUILD_MODPOST_WARN=1 modules
	# Debian's kernels from 6.18 on have no MODVERSIONS: every CRC is 0,
	# vhost_net links by name alone, and the check has nothing to refuse.
	if grep -q '^0x00000000[[:space:]]tun_get_socket[[:space:]]' "$KDIR/Module.symvers"; then
		runs "no MODVERSIONS on $KVER: the check passes a tapx_tun of any includes" \
			sh "$badsrc/symvers-check.sh" "$KDIR" "$badsrc/Module.symvers"
	else
		expect_exit 1 "CRC of tun_get_socket is 0x[0-9a-f]+, the kernel's is 0x" \
			sh "$badsrc/symvers-check.sh" "$KDIR" "$badsrc/Module.symvers"
	fi

	echo "# the DKMS module in a $KVER guest"
	guest_runs_ko "$series" "$ko" "$tko" load,xdp,unload,vhostlink "$OUT/vm-$KVER"
done

runs "dkms remove" dkms remove -m tapx -v "$VERSION" --all $trees --installtree "$OUT/install" --no-depmod

# make install and make uninstall, below a DESTDIR (DKMS in private trees
# there), for the first kernel; the VM's suite-install.sh loads what the
# install sets up with the real modprobe.
echo "# make install TUN=replace DESTDIR=..."
D=$OUT/root
env=$(sh "$TOP/mk/kernels.sh" "$(sh "$TOP/mk/kernels.sh" --series | head -n 1)") && eval "$env"
kre=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g')
runs "make install" make -s -C "$TOP" install TUN=replace DESTDIR="$D" KVERS="$KVER"
runs "the CLI installed" "$D/usr/local/sbin/tap-accel" --help
runs "the benchmark installed beside it" "$D/usr/local/sbin/tap-accel-bench" --help
runs "both man pages installed" test -f "$D/usr/local/share/man/man8/tap-accel.8" -a \
	-f "$D/usr/local/share/man/man8/tap-accel-bench.8"
runs "the programs installed" test -f "$D/usr/local/lib/tap-accel/bpf/xdp_basic.bpf.o"
runs "the libvirt hook installed" test -x "$D/usr/local/lib/tap-accel/libvirt-qemu"
runs "the DKMS sources in /usr/src" test -f "$D/usr/src/tapx-$VERSION/dkms.conf"
ko=$(ls "$D/lib/modules/$KVER/updates/dkms/"tapx.ko* 2>/dev/null | head -n 1)
check "the installed module's vermagic" "$KVER" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
runs "TUN=replace: tapx_tun.ko installed" sh -c "ls $D/lib/modules/$KVER/updates/dkms/tapx_tun.ko*"
expect_exit 0 "tapx/$VERSION, $kre, x86_64: installed" \
	dkms status -m tapx --sourcetree "$D/usr/src" --dkmstree "$D/var/lib/dkms" --installtree "$D/lib/modules"
check "modprobe.d" "options tapx tun_compat=1
install tun /sbin/modprobe --ignore-install tapx \$CMDLINE_OPTS && /sbin/modprobe tapx_tun" "$(grep -v '^#' "$D/etc/modprobe.d/tapx.conf" 2>/dev/null)"
runs "make install again (a reinstall)" make -s -C "$TOP" install DESTDIR="$D" KVERS="$KVER"
runs "TUN=keep: no tapx_tun.ko left from TUN=replace" sh -c "! ls $D/lib/modules/$KVER/updates/dkms/tapx_tun.ko* 2>/dev/null"
runs "TUN=keep removes the modprobe.d file" test ! -e "$D/etc/modprobe.d/tapx.conf"
expect_exit 1 "TUN=bad: use TUN=keep" env TUN=bad sh "$TOP/mk/install.sh" install
runs "make uninstall" make -s -C "$TOP" uninstall DESTDIR="$D" KVERS="$KVER"
left=$(cd "$D" && find . -type f | sort | head -n 5)
check "files left after make uninstall" "" "$left"
check "DKMS knows no tapx after make uninstall" "" \
	"$(dkms status -m tapx --sourcetree "$D/usr/src" --dkmstree "$D/var/lib/dkms" 2>/dev/null)"
rm -rf "$D" "$tmp"
finish
