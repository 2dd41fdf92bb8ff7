#!/bin/sh
# The Debian packages of `make deb` (tap-accel, tapx-dkms, tapx-as-tun) as
# an operator gets them: lintian, then apt in a clean Debian 12 root
# (tests/deb/root.sh: cached, with the headers of the kernels of
# mk/kernels.sh installed here from Debian 12) mounted as an overlay under
# build/deb-test, then a guest of each kernel loading what the packages
# installed; then apt in a clean Debian 13 root with trixie-backports'
# headers of the 7.3 kernel and gcc-14, and a 7.3 guest running the module
# its DKMS built.
#   fresh    `apt install ./tap-accel_*.deb ./tapx-dkms_*.deb
#            ./tapx-as-tun_*.deb`: DKMS builds tapx and tapx_tun for each
#            kernel, and again when a kernel's headers are configured;
#            `apt remove tapx-as-tun` keeps tapx.ko alone; `apt purge`
#            leaves the root's files as they were.
#   upgrade  from the packages of a lower version (built from this tree),
#            tapx-as-tun added to them after tapx.ko was built alone: the
#            configuration in /etc/tap-accel stays, DKMS builds the new
#            version; purge leaves only the operator's own files.
#   guests   Debian's depmod and modprobe load tun and vhost_net with the
#            modules and modprobe.d files of the fresh install (tapx serves
#            tun) and of tapx-as-tun's removal (stock tun).
#   debian13 `apt install` of the three: DKMS builds tapx and tapx_tun for
#            7.3 with its packaged headers and gcc-14; a kernel tapx does not
#            support fails with the line that says so; `apt purge` leaves
#            the root as it was; the 7.3 guest loads tapx.ko and writes
#            frames through it (tests/vm/run.sh's load and xdp suites).
# Ends with "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/deb-test
R=$OUT/root

. "$TOP/tests/lib/check.sh"
. "$TOP/tests/lib/initramfs.sh"
. "$TOP/tests/lib/guestko.sh"

[ "$(id -u)" = 0 ] || { bad "the deb test needs root (chroot, mounts)"; finish; }
for t in dpkg-buildpackage lintian debootstrap qemu-system-x86_64 readelf; do
	command -v $t >/dev/null 2>&1 || { bad "$t is not installed (make deps)"; finish; }
done

# Mounts under $OUT come off (deepest first) before anything there is
# removed, also when a run is stopped; a mount that stays keeps its tree.
mounts_under_out() {
	awk -v p="$OUT/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r
}
cleanup() {
	for m in $(mounts_under_out); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	if [ -n "$(mounts_under_out)" ]; then
		echo "deb: still mounted under $OUT, left as it is:" $(mounts_under_out)
		return
	fi
	rm -rf --one-file-system "$OUT/upper" "$OUT/work" "$R"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cleanup
[ -z "$(mounts_under_out)" ] || { bad "an earlier run left mounts under $OUT: $(mounts_under_out)"; finish; }
rm -rf --one-file-system "$OUT"
tmp=$OUT/tmp
mkdir -p "$tmp"

VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
PREV=0.0.1 # the previous version's packages, to upgrade from
dpkg --compare-versions "$PREV" lt "$VERSION" ||
	{ bad "the test's previous version $PREV is not below $VERSION"; finish; }
# Debian 12's kernels: those installed here from this machine's apt;
# Debian 13's: trixie-backports' 7.3.
KVERS=
for s in $(sh "$TOP/mk/kernels.sh" --host); do
	k=$(sh "$TOP/mk/kernels.sh" "$s" | sed -n 's/^KVER=//p')
	[ -n "$k" ] || { bad "no $s kernel (make deps)"; finish; }
	KVERS="$KVERS $k"
done
SERIES13=7.3

echo "# make deb"
mkdir -p "$tmp/tree"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$tmp/tree" -xf -
echo 9.9 >"$tmp/tree/VERSION"
expect_exit 1 "VERSION says 9.9, debian/changelog says $VERSION" sh "$tmp/tree/mk/deb.sh"
rm -rf "$tmp/tree"
runs "make deb ($VERSION)" env DEB_OUT="$OUT/new" sh "$TOP/mk/deb.sh"
runs "make deb ($PREV)" env DEB_VERSION=$PREV DEB_OUT="$OUT/old" sh "$TOP/mk/deb.sh"
# What dpkg-buildpackage writes beside and into a tree it builds in.
left=$(ls -d "$TOP"/../tap-accel_* "$TOP"/../tapx-* "$TOP/debian/files" "$TOP/debian/.debhelper" \
	"$TOP/debian/debhelper-build-stamp" "$TOP"/debian/*.substvars "$TOP/debian/tap-accel" \
	"$TOP/debian/tapx-dkms" "$TOP/debian/tapx-as-tun" 2>/dev/null)
check "files make deb left in the checkout" "" "$left"
NEW="$OUT/new/tap-accel_${VERSION}_amd64.deb $OUT/new/tapx-dkms_${VERSION}_all.deb $OUT/new/tapx-as-tun_${VERSION}_all.deb"
for f in $NEW; do
	[ -f "$f" ] || { bad "make deb made no $(basename "$f")"; finish; }
done

echo "# the packages"
runs "lintian --fail-on error" lintian --fail-on error $NEW
ta=$OUT/new/tap-accel_${VERSION}_amd64.deb
# The programs run on stock tun: tapx is recommended, not required.
check "tap-accel recommends its tapx-dkms" "tapx-dkms (= $VERSION)" \
	"$(dpkg-deb -f "$ta" Recommends | tr ',' '\n' | sed 's/^ //' | grep '^tapx-dkms')"
check "tap-accel does not require tapx-dkms" "" \
	"$(dpkg-deb -f "$ta" Depends | tr ',' '\n' | sed 's/^ //' | grep '^tapx-dkms')"
check "tap-accel breaks other tapx-dkms" "tapx-dkms (<< $VERSION)
tapx-dkms (>> $VERSION)" "$(dpkg-deb -f "$ta" Breaks | tr ',' '\n' | sed 's/^ //' | sort)"
check "tapx-as-tun's tapx-dkms" "tapx-dkms (= $VERSION)" \
	"$(dpkg-deb -f "$OUT/new/tapx-as-tun_${VERSION}_all.deb" Depends | tr ',' '\n' | sed 's/^ //' | grep '^tapx-dkms')"
mkdir -p "$tmp/ta"
dpkg-deb -x "$ta" "$tmp/ta"
for o in "$tmp"/ta/usr/lib/tap-accel/bpf/*.bpf.o; do
	n=$(basename "$o")
	check "$n's mode" 644 "$(stat -c %a "$o")"
	sections=$(readelf -S -W "$o" 2>/dev/null)
	for sec in .BTF .debug_info; do
		case $sections in
		*" $sec "*) good ;;
		*) bad "$n has no $sec section: stripped" ;;
		esac
	done
done
# where make install puts them too (mk/install.sh)
check "the man page" 644 "$(stat -c %a "$tmp/ta/usr/share/man/man8/tap-accel.8.gz" 2>&1)"
check "the benchmark's man page" 644 "$(stat -c %a "$tmp/ta/usr/share/man/man8/tap-accel-bench.8.gz" 2>&1)"
check "the benchmark beside the CLI" 755 "$(stat -c %a "$tmp/ta/usr/sbin/tap-accel-bench" 2>&1)"
runs "the CLI links no liburing (the benchmark alone does)" \
	sh -c "! readelf -d '$tmp/ta/usr/sbin/tap-accel' | grep -q liburing && readelf -d '$tmp/ta/usr/sbin/tap-accel-bench' | grep -q liburing"
check "bash completion" 644 "$(stat -c %a "$tmp/ta/usr/share/bash-completion/completions/tap-accel" 2>&1)"

echo "# a clean Debian 12 root"
# What tap-accel's packages depend on is in the root already: installing
# them adds them alone.
deps=$(for f in $NEW; do dpkg-deb -f "$f" Depends; done | tr ',' '\n' |
	sed 's/^ *//; s/ .*//; s/|.*//' | grep -v -e '^tapx-' -e '^tap-accel' | sort -u)
ROOT=$(sh "$HERE/root.sh" $KVERS -- $deps) || { bad "no Debian 12 root (tests/deb/root.sh)"; finish; }
# mount_root ROOT: a writable copy of the cached ROOT at $R (an overlay),
# with proc, tmp and bpf mounted and the new packages in /tmp/new.
mount_root() {
	mkdir -p "$OUT/upper" "$OUT/work" "$R"
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$OUT/upper,workdir=$OUT/work" "$R" ||
		{ bad "cannot mount the root's overlay"; return 1; }
	mkdir -p "$R/sys/fs/bpf"
	mount -t proc proc "$R/proc" && mount -t tmpfs tmpfs "$R/tmp" && mount -t bpf bpf "$R/sys/fs/bpf" ||
		{ bad "cannot mount proc, tmp and bpf in the root"; return 1; }
	mkdir -p "$R/tmp/new" && cp $NEW "$R/tmp/new/"
}
mount_root "$ROOT" || finish
mkdir -p "$R/tmp/old"
cp "$OUT"/old/*.deb "$R/tmp/old/"

# CMD... in the root, with a clean environment.
in_root() {
	chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive HOME=/root "$@"
}
# apt_in_root NAME SHELL-COMMAND: in the root, its output in $OUT/NAME.log;
# the end of it when it fails.
apt_in_root() {
	name=$1
	shift
	in_root sh -c "$*" >"$OUT/$name.log" 2>&1 && return 0
	tail -n 30 "$OUT/$name.log"
	return 1
}
# The root's files and folders, but for the mounts (proc, tmp, sys, dev,
# run) and what dpkg and apt write about every operation (their logs).
root_files() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/log \) -prune -o -print) | sort
}
packages_in_root() { in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }'; }
dkms_status() { in_root dkms status -m tapx 2>/dev/null; }
# The DKMS modules of kernel $1, by name (tapx tapx_tun), as installed.
modules_of() {
	ls "$R/lib/modules/$1/updates/dkms" 2>/dev/null | sed 's/\.ko.*//' | sort | tr '\n' ' ' | sed 's/ $//'
}
# dkms_want VERSION KVER...: the status DKMS reports when tapx VERSION is
# installed for each KVER, one a line.
dkms_want() {
	v=$1
	shift
	for k in "$@"; do echo "tapx/$v, $k, x86_64: installed"; done
}
root_files >"$tmp/files-clean"
packages_in_root >"$tmp/packages-clean"

echo "# fresh: apt install of the three packages"
runs "apt install" apt_in_root apt-install \
	"cd /tmp/new && apt install -y ./tap-accel_*.deb ./tapx-dkms_*.deb ./tapx-as-tun_*.deb"
check "apt installed the three alone" "tap-accel tapx-as-tun tapx-dkms" \
	"$(packages_in_root | grep -v -x -F -f "$tmp/packages-clean" | tr '\n' ' ' | sed 's/ $//')"
check "DKMS status" "$(dkms_want "$VERSION" $KVERS)" "$(dkms_status)"
for k in $KVERS; do
	check "modules DKMS installed for $k" "tapx tapx_tun" "$(modules_of "$k")"
	ko=$(ls "$R/lib/modules/$k/updates/dkms/"tapx.ko* 2>/dev/null | head -n 1)
	check "vermagic of tapx for $k" "$k" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
done
runs "the modprobe.d file is mk/modprobe.d/tapx.conf" cmp "$TOP/mk/modprobe.d/tapx.conf" "$R/lib/modprobe.d/tapx.conf"
expect_exit 0 "tapx serves tun from the next load of tun; nothing was unloaded" cat "$OUT/apt-install.log"
expect_exit 0 "Usage: tap-accel" in_root tap-accel --help
expect_exit 0 "Usage: tap-accel-bench" in_root tap-accel-bench --help
for o in tap_accel xdp_basic; do
	check "$o.bpf.o installed" 644 "$(stat -c %a "$R/usr/lib/tap-accel/bpf/$o.bpf.o" 2>/dev/null)"
done

echo "# fresh: the agent, its unit and the adapters"
runs "the agent's unit is enabled" test -L "$R/etc/systemd/system/multi-user.target.wants/tap-accel.service"
for a in libvirt-qemu qemu-ifup qemu-ifdown; do
	check "/usr/lib/tap-accel/$a is executable" 755 "$(stat -c %a "$R/usr/lib/tap-accel/$a" 2>/dev/null)"
done
check "libvirt's qemu.d hook" /usr/lib/tap-accel/libvirt-qemu \
	"$(in_root readlink -f /etc/libvirt/hooks/qemu.d/tap-accel)"
expect_exit 0 "^/etc/tap-accel: ok, 0 policies, 0 bindings in 0 files, unbound pass, watching host$" \
	in_root tap-accel agent --check
# The package's configuration binds nothing: the agent, run as the unit
# runs it, loads no program until it does.
in_root timeout --preserve-status -s TERM 3 tap-accel agent >"$tmp/agent.log" 2>&1
check "the agent, stopped: exit 0" "0" "$?"
expect_exit 0 "^the configuration binds no tap: no program loaded until it does$" cat "$tmp/agent.log"
runs "nothing pinned by the agent" test ! -e "$R/sys/fs/bpf/tap-accel"

# The copies the guests load: the DKMS modules and modprobe.d as installed.
save_state() {
	for k in $KVERS; do
		d=$OUT/state-$k/$1
		mkdir -p "$d/lib/modules/$k/updates" "$d/lib" "$d/etc"
		cp -a "$R/lib/modules/$k/updates/dkms" "$d/lib/modules/$k/updates/"
		cp -a "$R/lib/modprobe.d" "$d/lib/"
		cp -a "$R/etc/modprobe.d" "$d/etc/"
	done
}
save_state as-tun

# A kernel's headers configured (installed or upgraded): DKMS's hook
# builds tapx for it, in the mode modprobe.d says (tapx-as-tun's file).
klast=${KVERS##* }
runs "dkms remove for $klast" in_root dkms remove -m tapx -v "$VERSION" -k "$klast"
check "no tapx for $klast" "" "$(modules_of "$klast")"
runs "linux-headers-$klast configured" in_root sh "/var/lib/dpkg/info/linux-headers-$klast.postinst" configure
check "the headers' hook built tapx for $klast" "tapx tapx_tun" "$(modules_of "$klast")"

# State pinned by tap-accel, in the root's own bpffs.
mkdir -p "$R/sys/fs/bpf/tap-accel/net:1/deb0"
runs "a pin under /sys/fs/bpf/tap-accel" bpftool map create "$R/sys/fs/bpf/tap-accel/net:1/deb0/counters" \
	type array key 4 value 8 entries 1 name deb_test

echo "# fresh: apt remove tapx-as-tun"
runs "apt remove tapx-as-tun" apt_in_root apt-remove-as-tun apt remove -y tapx-as-tun
runs "the modprobe.d file is gone" test ! -e "$R/lib/modprobe.d/tapx.conf"
check "DKMS status" "$(dkms_want "$VERSION" $KVERS)" "$(dkms_status)"
for k in $KVERS; do
	check "modules for $k without tapx-as-tun" "tapx" "$(modules_of "$k")"
done
save_state removed
runs "apt remove tap-accel" apt_in_root apt-remove apt remove -y tap-accel
runs "remove keeps the pins" test -e "$R/sys/fs/bpf/tap-accel/net:1/deb0/counters"

echo "# fresh: apt purge"
runs "apt purge" apt_in_root apt-purge apt purge -y tap-accel tapx-dkms tapx-as-tun
runs "purge removed the pins" test ! -e "$R/sys/fs/bpf/tap-accel"
check "DKMS knows no tapx after purge" "" "$(dkms_status)"
root_files >"$tmp/files-purged"
check "files apt purge left or took" "" "$(diff "$tmp/files-clean" "$tmp/files-purged" | grep '^[<>]')"

echo "# upgrade: from $PREV, on the newest kernel"
# With the newest kernel's headers alone, which halves this part's DKMS
# builds (the fresh install built for every kernel).
for k in $KVERS; do
	[ "$k" = "$klast" ] || mv "$R/lib/modules/$k/build" "$R/lib/modules/$k/build.hidden"
done
runs "apt install of $PREV" apt_in_root apt-install-prev \
	"cd /tmp/old && apt install -y ./tap-accel_${PREV}_*.deb ./tapx-dkms_${PREV}_*.deb"
check "DKMS status of $PREV" "$(dkms_want "$PREV" "$klast")" "$(dkms_status)"
check "modules of $PREV" "tapx" "$(modules_of "$klast")"
# Added to a host where tapx.ko is built alone: DKMS builds it again, with
# tapx_tun.ko.
runs "apt install of tapx-as-tun $PREV" apt_in_root apt-install-prev-as-tun \
	"cd /tmp/old && apt install -y ./tapx-as-tun_${PREV}_*.deb"
check "DKMS status of $PREV with tapx-as-tun" "$(dkms_want "$PREV" "$klast")" "$(dkms_status)"
check "modules of $PREV with tapx-as-tun" "tapx tapx_tun" "$(modules_of "$klast")"
# The operator's configuration: a policy of their own (a name no package
# ships), and an edit to every conffile of tap-accel.
mine=etc/tap-accel/policies/operator-site.policy
mkdir -p "$R/$(dirname $mine)"
printf 'rule drop proto udp dport 9\n' >"$R/$mine"
conffiles=$(in_root dpkg-query -W -f '${Conffiles}\n' tap-accel | awk 'NF { print $1 }')
for c in $conffiles; do
	echo "# edited by the operator" >>"$R$c"
done
echo "tap-accel has $(echo $conffiles | wc -w) conffiles"
(cd "$R" && sha256sum $mine $(echo "$conffiles" | sed 's|^/||')) >"$tmp/config"
runs "apt install of $VERSION (an upgrade)" apt_in_root apt-upgrade \
	"cd /tmp/new && apt install -y ./tap-accel_*.deb ./tapx-dkms_*.deb ./tapx-as-tun_*.deb"
check "versions after the upgrade" "$VERSION $VERSION $VERSION" \
	"$(in_root dpkg-query -W -f '${Version} ' tap-accel tapx-dkms tapx-as-tun | sed 's/ $//')"
runs "the configuration kept" sh -c "cd '$R' && sha256sum -c --quiet '$tmp/config'"
check "DKMS status after the upgrade" "$(dkms_want "$VERSION" "$klast")" "$(dkms_status)"
check "modules after the upgrade" "tapx tapx_tun" "$(modules_of "$klast")"
runs "$PREV is gone from DKMS and /usr/src" test ! -e "$R/var/lib/dkms/tapx/$PREV" -a ! -e "$R/usr/src/tapx-$PREV"
runs "apt purge after the upgrade" apt_in_root apt-purge-upgraded apt purge -y tap-accel tapx-dkms tapx-as-tun
for k in $KVERS; do
	[ "$k" = "$klast" ] || mv "$R/lib/modules/$k/build.hidden" "$R/lib/modules/$k/build"
done
root_files >"$tmp/files-purged"
{
	cat "$tmp/files-clean"
	printf '%s\n' ./etc/tap-accel ./etc/tap-accel/policies ./$mine
} | sort >"$tmp/files-operator"
check "files after purge, but the operator's own" "" "$(diff "$tmp/files-operator" "$tmp/files-purged" | grep '^[<>]')"
cleanup

echo "# guests: modprobe with the packages' files"
for k in $KVERS; do
	G=$OUT/guest-$k
	{
		ird_new "$G" && ird_busybox "$G" && ird_bin "$G" /bin/kmod /usr/sbin/ip /usr/sbin/ethtool &&
			ird_kmod_tree "$G/stock" "/lib/modules/$k" tun tap vhost_iotlb vhost vhost_net &&
			mkdir -p "$G/states" && cp -a "$OUT/state-$k/." "$G/states/" &&
			cp "$HERE/guest.sh" "$G/init" && chmod +x "$G/init" &&
			ird_pack "$G" "$OUT/initramfs-$k.gz"
	} || { bad "cannot make the $k guest's initramfs"; continue; }
	timeout --foreground -k 10 600 qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 512 -smp 1 \
		-nographic -no-reboot -nic none -kernel "/boot/vmlinuz-$k" -initrd "$OUT/initramfs-$k.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=1" </dev/null 2>&1 | tr -d '\r' >"$OUT/console-$k.log"
	grep -q '^==== GUEST END' "$OUT/console-$k.log" ||
		{ bad "the $k guest did not finish (console: $OUT/console-$k.log)"; tail -n 20 "$OUT/console-$k.log"; }
	n=0
	while IFS="$(printf '\t')" read -r tag desc want got; do
		[ "$tag" = CHECK ] || continue
		check "$k: $desc" "$want" "$got"
		n=$((n + 1))
	done <"$OUT/console-$k.log"
	check "$k: checks the guest ran" 23 "$n"
	grep '^    ' "$OUT/console-$k.log" | head -n 20
done

# Debian 13, as its operator gets tapx: trixie-backports' headers of the
# kernel mk/kernels.sh boots for 7.3, Debian 13's dkms and gcc-14.
debian13() {
	env13=$(sh "$TOP/mk/kernels.sh" $SERIES13) || { bad "no $SERIES13 kernel (make deps)"; return; }
	k13=$(echo "$env13" | sed -n 's/^KVER=//p')
	echo "# Debian 13: apt install, DKMS for $k13"
	root13=$(sh "$HERE/root.sh" --suite trixie "$k13" -- gcc-14 dkms $deps) ||
		{ bad "no Debian 13 root (tests/deb/root.sh --suite trixie)"; return; }
	mount_root "$root13" || return
	root_files >"$tmp/files-clean"
	packages_in_root >"$tmp/packages-clean"
	runs "apt install on Debian 13" apt_in_root apt-install-13 \
		"cd /tmp/new && apt install -y ./tap-accel_*.deb ./tapx-dkms_*.deb ./tapx-as-tun_*.deb"
	check "apt installed the three alone on Debian 13" "tap-accel tapx-as-tun tapx-dkms" \
		"$(packages_in_root | grep -v -x -F -f "$tmp/packages-clean" | tr '\n' ' ' | sed 's/ $//')"
	check "DKMS status on Debian 13" "$(dkms_want "$VERSION" "$k13")" "$(dkms_status)"
	check "modules DKMS installed for $k13" "tapx tapx_tun" "$(modules_of "$k13")"
	mkdir -p "$OUT/ko-$k13"
	for m in tapx tapx_tun; do
		f=$(ls "$R/lib/modules/$k13/updates/dkms/$m".ko* 2>/dev/null | head -n 1)
		[ -n "$f" ] && cp "$f" "$OUT/ko-$k13/" && plain_ko "$OUT/ko-$k13/$(basename "$f")" "$OUT/ko-$k13" >/dev/null
	done
	ko=$OUT/ko-$k13/tapx.ko tko=$OUT/ko-$k13/tapx_tun.ko
	check "vermagic of tapx for $k13" "$k13" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
	check "tapx for $k13 compiled by gcc" 14 \
		"$(readelf -p .comment "$ko" 2>/dev/null | sed -n 's/.*GCC: (Debian \([0-9]*\)\..*/\1/p' | sort -u)"
	expect_exit 0 "Usage: tap-accel" in_root tap-accel --help

	# A kernel tapx does not support, with headers (a fake tree: DKMS wants
	# include/, and runs make clean there): the maintainer script's sync
	# names it and tapx's range, and leaves the other kernels' tapx be.
	fake=lib/modules/7.9.0-1-amd64/build
	mkdir -p "$R/$fake/include" && printf 'clean:\n' >"$R/$fake/Makefile"
	expect_exit 1 "^tapx-dkms: DKMS could not build tapx for 7\\.9\\.0-1-amd64: kernel 7\\.9\\.0-1-amd64 is not supported: tapx $(echo "$VERSION" | sed 's/[.+]/\\&/g') builds for Linux [0-9.]+ to [0-9.]+$" \
		in_root /usr/lib/tapx-dkms/tapx-dkms-kernels sync
	check "no compiler error in DKMS's make.log" 0 \
		"$(grep -c -i error "$R/var/lib/dkms/tapx/$VERSION/build/make.log" 2>/dev/null)"
	check "DKMS status with the unsupported kernel" "$(dkms_want "$VERSION" "$k13")" "$(dkms_status)"
	rm -rf "$R/lib/modules/7.9.0-1-amd64"

	runs "apt purge on Debian 13" apt_in_root apt-purge-13 apt purge -y tap-accel tapx-dkms tapx-as-tun
	check "DKMS knows no tapx after purge on Debian 13" "" "$(dkms_status)"
	root_files >"$tmp/files-purged"
	check "files apt purge left or took on Debian 13" "" "$(diff "$tmp/files-clean" "$tmp/files-purged" | grep '^[<>]')"
	cleanup

	echo "# the module Debian 13's DKMS built, in a $k13 guest"
	guest_runs_ko $SERIES13 "$ko" "$tko" load,xdp "$OUT/vm-$k13"
}
debian13
finish
