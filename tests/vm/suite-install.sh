# make install's module half with the real kmod tools (Debian's kmod:
# depmod, modprobe; busybox's are not used here): the stock tun first, then
# mk/install.sh install with TUN=keep, then with TUN=replace, then
# uninstall. In the guest the modules are the ones this run built
# (TAPX_KO; there is no compiler for DKMS, which tests/dkms runs on the
# host), installed where DKMS puts them. The
# stock modules come from the kernel package at their own paths, staged in
# /stock-modules; this suite makes /lib/modules and /sbin/modprobe only for
# its own run, so that no other suite autoloads anything.
KVER=$(uname -r)
ML=/lib/modules/$KVER

loaded() { [ -d /sys/module/$1 ] && echo yes || echo no; }
# driver_of DEV: the driver behind a netdev, as ethtool reports it: tapx
# in tun's place says driver tun and names itself in the version field.
driver_of() {
	ethtool -i "$1" 2>/dev/null | awk '/^driver:/ { d = $2 }
		/^version: tapx / { d = "tapx" } END { print d }'
}
unload_all() {
	for m in vhost_net vhost vhost_iotlb tap tapx_tun tapx tun; do
		[ -d /sys/module/$m ] && rmmod $m
	done
	return 0
}
# open_tun NAME: a tap made through /dev/net/tun by iproute2, as an
# operator would (iproute2: ash runs busybox applets before PATH); the
# node is made if no module registered it yet.
open_tun() {
	[ -e $T ] || { mkdir -p /dev/net && mknod $T c 10 200; }
	/bin/ip tuntap add dev "$1" mode tap
}

if [ -d /sys/module/tapx ] || [ -d /sys/module/tun ]; then
	bad "install: tapx or tun is loaded before the suite"
	unload_all
fi
mkdir -p /lib/modules /sbin /etc/modprobe.d
cp -a /stock-modules/$KVER /lib/modules/
for t in modprobe depmod insmod rmmod lsmod modinfo; do
	ln -sf /bin/kmod /sbin/$t
done
# The kernel runs /sbin/modprobe for request_module (char-major-10-200).
[ -w /proc/sys/kernel/modprobe ] && echo /sbin/modprobe >/proc/sys/kernel/modprobe
check "install: modprobe is kmod's" kmod "$(/sbin/modprobe --version 2>&1 | head -n 1 | cut -d' ' -f1)"

# The stock kernel, before anything is installed.
runs "install: depmod (stock)" /sbin/depmod -a
runs "install: stock modprobe tun" /sbin/modprobe tun
check "install: stock tun loaded" yes "$(loaded tun)"
runs "install: stock tap on /dev/net/tun" open_tun inst0
check "install: stock inst0 driver" tun "$(driver_of inst0)"
ip link del inst0 2>/dev/null
unload_all

# The default install (TUN=keep): tapx on its own node, stock tun stays
# the host's, vhost_net's too (no tapx_tun.ko for depmod to prefer).
PREBUILT="/modules/tapx.ko /modules/tapx_tun.ko"
runs "install: mk/install.sh install (TUN=keep)" env KVERS=$KVER \
	TAPX_KO="$PREBUILT" TAPX_CLI=/bin/tap-accel TAPX_BENCH=/bin/tap-accel-bench TAPX_PROGS=/bpf \
	sh /tests/install.sh install
runs "install: kept no modprobe.d file" test ! -e /etc/modprobe.d/tapx.conf
runs "install: kept no tapx_tun.ko" test ! -e $ML/updates/dkms/tapx_tun.ko
runs "install: kept modprobe tapx" /sbin/modprobe tapx
runs "install: kept /dev/net/tapx" test -c $X
runs "install: kept modprobe vhost_net" /sbin/modprobe vhost_net
check "install: kept vhost_net loads tun.ko" yes "$(loaded tun)"
check "install: kept tun_compat" N "$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)"
unload_all

# TUN=replace.
runs "install: mk/install.sh install TUN=replace" env TUN=replace KVERS=$KVER \
	TAPX_KO="$PREBUILT" TAPX_CLI=/bin/tap-accel TAPX_BENCH=/bin/tap-accel-bench TAPX_PROGS=/bpf \
	sh /tests/install.sh install
runs "install: tapx.ko in updates/dkms" test -f $ML/updates/dkms/tapx.ko
runs "install: tapx_tun.ko in updates/dkms" test -f $ML/updates/dkms/tapx_tun.ko
# depmod names tapx_tun as the provider of vhost_net's tun symbols, or
# tun.ko where the kernel ships no modules.order (Debian's 7.x), which the
# modprobe.d file's install line turns into tapx and tapx_tun.
case $(grep "^kernel/drivers/vhost/vhost_net.ko" $ML/modules.dep) in
*updates/dkms/tapx_tun.ko*) provider=tapx_tun ;;
*drivers/net/tun.ko*) provider=tun ;;
*) provider="neither" ;;
esac
if [ -f $ML/modules.order ]; then
	check "install: depmod takes tapx_tun for vhost_net's tun symbols" tapx_tun "$provider"
else
	check "install: without modules.order, depmod takes tun.ko for vhost_net's tun symbols" tun "$provider"
fi
runs "install: modprobe.d sets tun_compat" grep -qx "options tapx tun_compat=1" /etc/modprobe.d/tapx.conf
runs "install: modprobe.d redirects tun" grep -qx "install tun /sbin/modprobe --ignore-install tapx \$CMDLINE_OPTS && /sbin/modprobe tapx_tun" /etc/modprobe.d/tapx.conf
runs "install: CLI installed" /usr/local/sbin/tap-accel --help
runs "install: the benchmark installed beside it" /usr/local/sbin/tap-accel-bench --help
runs "install: programs installed" test -f /usr/local/lib/tap-accel/bpf/xdp_basic.bpf.o
runs "install: the QEMU script installed" test -x /usr/local/lib/tap-accel/qemu-ifup
runs "install: the man pages installed" test -f /usr/local/share/man/man8/tap-accel.8 -a \
	-f /usr/local/share/man/man8/tap-accel-bench.8
runs "install: bash completion installed" test -f /usr/local/share/bash-completion/completions/tap-accel
runs "install: modules.dep has tapx" grep -q "^updates/dkms/tapx.ko:" $ML/modules.dep

runs "install: replaced modprobe tun" /sbin/modprobe tun
check "install: replaced tapx loaded by modprobe tun" yes "$(loaded tapx)"
check "install: replaced tun.ko not loaded" no "$(loaded tun)"
check "install: replaced tapx_tun loaded by modprobe tun" yes "$(loaded tapx_tun)"
check "install: replaced tun_compat" Y "$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)"
runs "install: replaced tap on /dev/net/tun" open_tun inst1
check "install: replaced inst1 driver" tapx "$(driver_of inst1)"
ip link del inst1 2>/dev/null
unload_all

# Opening /dev/net/tun with nothing loaded: char-major-10-200 autoload.
runs "install: replaced autoload on open" open_tun inst2
check "install: replaced autoload loads tapx" yes "$(loaded tapx)"
check "install: replaced autoload never tun.ko" no "$(loaded tun)"
check "install: replaced inst2 driver" tapx "$(driver_of inst2)"
ip link del inst2 2>/dev/null
unload_all

# vhost_net's dependency on tun's symbols: tapx_tun serves them, tun.ko
# stays out.
runs "install: replaced modprobe vhost_net" /sbin/modprobe vhost_net
check "install: replaced vhost_net loaded" yes "$(loaded vhost_net)"
check "install: replaced vhost_net loads tapx_tun" yes "$(loaded tapx_tun)"
check "install: replaced vhost_net loads tapx" yes "$(loaded tapx)"
check "install: replaced vhost_net never tun.ko" no "$(loaded tun)"
check "install: replaced tun_compat under vhost_net" \
	Y "$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)"
unload_all

# Uninstall: stock tun again.
runs "install: mk/install.sh uninstall" env KVERS=$KVER TAPX_KO="$PREBUILT" \
	sh /tests/install.sh uninstall
runs "install: modprobe.d file removed" test ! -e /etc/modprobe.d/tapx.conf
runs "install: tapx.ko removed" sh -c "! ls $ML/updates/dkms/tapx.ko* 2>/dev/null"
runs "install: CLI and benchmark removed" test ! -e /usr/local/sbin/tap-accel -a \
	! -e /usr/local/sbin/tap-accel-bench
runs "install: man page and completion removed" sh -c "test ! -e /usr/local/share/man/man8/tap-accel.8 && test ! -e /usr/local/share/man/man8/tap-accel-bench.8 && test ! -e /usr/local/share/bash-completion/completions/tap-accel"
runs "install: modules.dep without tapx" sh -c "! grep -q tapx $ML/modules.dep"
runs "install: uninstalled modprobe vhost_net" /sbin/modprobe vhost_net
check "install: uninstalled vhost_net loads tun.ko" yes "$(loaded tun)"
check "install: uninstalled vhost_net without tapx" no "$(loaded tapx)"
unload_all
runs "install: uninstalled modprobe tun" /sbin/modprobe tun
check "install: uninstalled tun.ko loaded" yes "$(loaded tun)"
check "install: uninstalled tapx not loaded" no "$(loaded tapx)"
runs "install: uninstalled tap on /dev/net/tun" open_tun inst3
check "install: uninstalled inst3 driver" tun "$(driver_of inst3)"
ip link del inst3 2>/dev/null
unload_all

rm -f /sbin/modprobe /sbin/depmod /sbin/insmod /sbin/rmmod /sbin/lsmod /sbin/modinfo
rm -rf /lib/modules /etc/modprobe.d
