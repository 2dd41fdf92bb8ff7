#!/bin/sh
# /init of tests/deb/run.sh's guest: for each state of the packaged root
# in /states (as-tun: the three packages installed; removed: tapx-as-tun
# removed), its DKMS modules and modprobe.d files beside the kernel's stock
# modules (/stock), then Debian's depmod and modprobe load tun and
# vhost_net as a host's would. Each result is a line
# "CHECK<tab>description<tab>wanted<tab>got" for the host's check.sh.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
KVER=$(uname -r)
T=/dev/net/tun

result() { printf 'CHECK\t%s\t%s\t%s\n' "$1" "$2" "$3"; }
loaded() { [ -d /sys/module/$1 ] && echo yes || echo no; }
# exit status of CMD..., its output on the console when it fails
status_of() {
	"$@" >/tmp/out 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/    /' /tmp/out >&2
	echo $rc
}
tun_compat() { cat /sys/module/tapx/parameters/tun_compat 2>/dev/null || echo none; }
# The driver behind a netdev: tapx in tun's place says driver tun and
# names itself in the version field.
driver_of() {
	/bin/ethtool -i "$1" 2>/dev/null | awk '/^driver:/ { d = $2 }
		/^version: tapx / { d = "tapx" } END { print d }'
}
unload_all() {
	for m in vhost_net vhost vhost_iotlb tap tapx_tun tapx tun; do
		[ -d /sys/module/$m ] && /sbin/rmmod $m
	done
	return 0
}
# A tap made through /dev/net/tun as an operator would (iproute2); the
# node is made if no module registered it yet, so that opening it
# autoloads (char-major-10-200).
tap_driver() {
	[ -e $T ] || { mkdir -p /dev/net && mknod $T c 10 200; }
	/bin/ip tuntap add dev "$1" mode tap >/dev/null 2>&1 || { echo "no tap"; return; }
	driver_of "$1"
	/bin/ip link del "$1"
}

for t in modprobe depmod insmod rmmod modinfo; do
	ln -sf /bin/kmod /sbin/$t
done
# The kernel's request_module (the autoload of /dev/net/tun) runs it.
echo /sbin/modprobe >/proc/sys/kernel/modprobe

echo "==== GUEST BEGIN"
for s in as-tun removed; do
	unload_all
	rm -rf /lib/modules /lib/modprobe.d /etc/modprobe.d
	mkdir -p /lib/modules /lib/modprobe.d /etc/modprobe.d
	cp -a /stock /lib/modules/$KVER
	cp -a /states/$s/. /
	result "$s: depmod" 0 "$(status_of /sbin/depmod -a)"
	case $s in
	as-tun)
		result "$s: modprobe tun" 0 "$(status_of /sbin/modprobe tun)"
		result "$s: modprobe tun loads tapx" yes "$(loaded tapx)"
		result "$s: modprobe tun loads no tun.ko" no "$(loaded tun)"
		result "$s: tapx's tun_compat" Y "$(tun_compat)"
		result "$s: a tap on /dev/net/tun" tapx "$(tap_driver deb0)"
		unload_all
		result "$s: opening /dev/net/tun autoloads" tapx "$(tap_driver deb1)"
		result "$s: the autoload loads no tun.ko" no "$(loaded tun)"
		unload_all
		result "$s: modprobe vhost_net" 0 "$(status_of /sbin/modprobe vhost_net)"
		result "$s: vhost_net on tapx_tun" yes "$(loaded tapx_tun)"
		result "$s: vhost_net with tapx" yes "$(loaded tapx)"
		result "$s: vhost_net without tun.ko" no "$(loaded tun)"
		;;
	removed)
		result "$s: modprobe tun" 0 "$(status_of /sbin/modprobe tun)"
		result "$s: modprobe tun loads tun.ko" yes "$(loaded tun)"
		result "$s: modprobe tun loads no tapx" no "$(loaded tapx)"
		result "$s: a tap on /dev/net/tun" tun "$(tap_driver deb2)"
		unload_all
		result "$s: modprobe vhost_net" 0 "$(status_of /sbin/modprobe vhost_net)"
		result "$s: vhost_net on tun.ko" yes "$(loaded tun)"
		result "$s: vhost_net without tapx_tun" no "$(loaded tapx_tun)"
		result "$s: modprobe tapx, beside tun" 0 "$(status_of /sbin/modprobe tapx)"
		result "$s: tapx on its own node" yes "$([ -c /dev/net/tapx ] && echo yes || echo no)"
		result "$s: tapx's tun_compat" N "$(tun_compat)"
		;;
	esac
done
unload_all
echo "==== GUEST END"
sync
poweroff -f
