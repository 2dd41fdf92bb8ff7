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
# driver_of DEV: the driver behind a netdev, as ethtool reports it
driver_of() { ethtool -i "$1" 2>/dev/null | awk '/^driver:/ { print $2 }'; }
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
	fail "install: tapx or tun is loaded before the suite"
	unload_all
fi
mkdir -p /lib/modules /sbin /etc/modprobe.d
cp -a /stock-modules/$KVER /lib/modules/
for t in modprobe depmod insmod rmmod lsmod modinfo; do
	ln -sf /bin/kmod /sbin/$t
done
# The kernel runs /sbin/modprobe for request_module (char-major-10-200).
[ -w /proc/sys/kernel/modprobe ] && echo /sbin/modprobe >/proc/sys/kernel/modprobe
eq "install: modprobe is kmod's" "$(/sbin/modprobe --version 2>&1 | head -n 1 | cut -d' ' -f1)" kmod

# The stock kernel, before anything is installed.
ok "install: depmod (stock)" /sbin/depmod -a
ok "install: stock modprobe tun" /sbin/modprobe tun
eq "install: stock tun loaded" "$(loaded tun)" yes
ok "install: stock tap on /dev/net/tun" open_tun inst0
eq "install: stock inst0 driver" "$(driver_of inst0)" tun
ip link del inst0 2>/dev/null
unload_all

# The default install (TUN=keep): tapx on its own node, stock tun stays
# the host's, vhost_net's too (no tapx_tun.ko for depmod to prefer).
PREBUILT="/modules/tapx.ko /modules/tapx_tun.ko"
ok "install: mk/install.sh install (TUN=keep)" env KVERS=$KVER \
	TAPX_KO="$PREBUILT" TAPX_CLI=/bin/tap-accel TAPX_PROGS=/bpf \
	sh /tests/install.sh install
ok "install: kept no modprobe.d file" test ! -e /etc/modprobe.d/tapx.conf
ok "install: kept no tapx_tun.ko" test ! -e $ML/updates/dkms/tapx_tun.ko
ok "install: kept modprobe tapx" /sbin/modprobe tapx
ok "install: kept /dev/net/tapx" test -c $X
ok "install: kept modprobe vhost_net" /sbin/modprobe vhost_net
eq "install: kept vhost_net loads tun.ko" "$(loaded tun)" yes
eq "install: kept tun_compat" "$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)" N
unload_all

# TUN=replace.
ok "install: mk/install.sh install TUN=replace" env TUN=replace KVERS=$KVER \
	TAPX_KO="$PREBUILT" TAPX_CLI=/bin/tap-accel TAPX_PROGS=/bpf \
	sh /tests/install.sh install
ok "install: tapx.ko in updates/dkms" test -f $ML/updates/dkms/tapx.ko
ok "install: tapx_tun.ko in updates/dkms" test -f $ML/updates/dkms/tapx_tun.ko
ok "install: depmod takes tapx_tun for vhost_net's tun symbols" \
	grep -q "^kernel/drivers/vhost/vhost_net.ko[.a-z]*:.*updates/dkms/tapx_tun.ko" $ML/modules.dep
ok "install: modprobe.d sets tun_compat" grep -qx "options tapx tun_compat=1" /etc/modprobe.d/tapx.conf
ok "install: modprobe.d redirects tun" grep -q "^install tun /sbin/modprobe --ignore-install tapx" /etc/modprobe.d/tapx.conf
ok "install: CLI installed" /usr/local/sbin/tap-accel --help
ok "install: programs installed" test -f /usr/local/lib/tap-accel/bpf/xdp_basic.bpf.o
ok "install: modules.dep has tapx" grep -q "^updates/dkms/tapx.ko:" $ML/modules.dep

ok "install: replaced modprobe tun" /sbin/modprobe tun
eq "install: replaced tapx loaded by modprobe tun" "$(loaded tapx)" yes
eq "install: replaced tun.ko not loaded" "$(loaded tun)" no
eq "install: replaced tun_compat" "$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)" Y
ok "install: replaced tap on /dev/net/tun" open_tun inst1
eq "install: replaced inst1 driver" "$(driver_of inst1)" tapx
ip link del inst1 2>/dev/null
unload_all

# Opening /dev/net/tun with nothing loaded: char-major-10-200 autoload.
ok "install: replaced autoload on open" open_tun inst2
eq "install: replaced autoload loads tapx" "$(loaded tapx)" yes
eq "install: replaced autoload never tun.ko" "$(loaded tun)" no
eq "install: replaced inst2 driver" "$(driver_of inst2)" tapx
ip link del inst2 2>/dev/null
unload_all

# vhost_net's dependency on tun's symbols: tapx_tun serves them, tun.ko
# stays out.
ok "install: replaced modprobe vhost_net" /sbin/modprobe vhost_net
eq "install: replaced vhost_net loaded" "$(loaded vhost_net)" yes
eq "install: replaced vhost_net loads tapx_tun" "$(loaded tapx_tun)" yes
eq "install: replaced vhost_net loads tapx" "$(loaded tapx)" yes
eq "install: replaced vhost_net never tun.ko" "$(loaded tun)" no
eq "install: replaced tun_compat under vhost_net" \
	"$(cat /sys/module/tapx/parameters/tun_compat 2>/dev/null)" Y
unload_all

# Uninstall: stock tun again.
ok "install: mk/install.sh uninstall" env KVERS=$KVER TAPX_KO="$PREBUILT" \
	sh /tests/install.sh uninstall
ok "install: modprobe.d file removed" test ! -e /etc/modprobe.d/tapx.conf
ok "install: tapx.ko removed" sh -c "! ls $ML/updates/dkms/tapx.ko* 2>/dev/null"
ok "install: CLI removed" test ! -e /usr/local/sbin/tap-accel
ok "install: modules.dep without tapx" sh -c "! grep -q tapx $ML/modules.dep"
ok "install: uninstalled modprobe vhost_net" /sbin/modprobe vhost_net
eq "install: uninstalled vhost_net loads tun.ko" "$(loaded tun)" yes
eq "install: uninstalled vhost_net without tapx" "$(loaded tapx)" no
unload_all
ok "install: uninstalled modprobe tun" /sbin/modprobe tun
eq "install: uninstalled tun.ko loaded" "$(loaded tun)" yes
eq "install: uninstalled tapx not loaded" "$(loaded tapx)" no
ok "install: uninstalled tap on /dev/net/tun" open_tun inst3
eq "install: uninstalled inst3 driver" "$(driver_of inst3)" tun
ip link del inst3 2>/dev/null
unload_all

rm -f /sbin/modprobe /sbin/depmod /sbin/insmod /sbin/rmmod /sbin/lsmod /sbin/modinfo
rm -rf /lib/modules /etc/modprobe.d
