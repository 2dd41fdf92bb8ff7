#!/bin/sh
# /init of a test guest (tests/guests/run.sh). Loads virtio-net, configures
# eth0 from the kernel command line, then serves a shell on ttyS0 for
# console.py: no echo, no prompt (stdin is a pipe, so sh is not interactive).
# xip is iproute2's ip (busybox sh would run its own ip applet for "ip").
#   g.name=NAME g.ip4=ADDR/LEN g.ip6=ADDR/LEN
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
dmesg -n 1

name=guest ip4= ip6=
for a in $(cat /proc/cmdline); do
	case $a in
	g.name=*) name=${a#g.name=} ;;
	g.ip4=*) ip4=${a#g.ip4=} ;;
	g.ip6=*) ip6=${a#g.ip6=} ;;
	esac
done
hostname "$name"

# Quiet IPv6: no router solicitations, no RAs, no DAD delay; keep the
# link-local address (the guard allows it) and MLD.
for k in all default; do
	echo 0 >/proc/sys/net/ipv6/conf/$k/accept_ra
	echo 0 >/proc/sys/net/ipv6/conf/$k/router_solicitations
	echo 0 >/proc/sys/net/ipv6/conf/$k/accept_dad
	echo 0 >/proc/sys/net/ipv6/conf/$k/dad_transmits
	echo 10 >/proc/sys/net/ipv6/conf/$k/mldv1_unsolicited_report_interval
	echo 10 >/proc/sys/net/ipv6/conf/$k/mldv2_unsolicited_report_interval
done
# arping -s with an address this guest does not own (the spoofing tests)
echo 1 >/proc/sys/net/ipv4/ip_nonlocal_bind
echo 1 >/proc/sys/net/ipv6/ip_nonlocal_bind

# after the sysctls, so eth0 starts with them
for m in $(cat /modules/order); do
	insmod /modules/$m.ko || echo "init: insmod $m failed"
done

xip link set lo up
i=0
while ! [ -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
xip link set eth0 up
[ -n "$ip4" ] && xip addr add "$ip4" dev eth0
[ -n "$ip6" ] && xip -6 addr add "$ip6" dev eth0 nodad

stty -F /dev/ttyS0 -echo
echo "@@READY $name" >/dev/ttyS0
while :; do
	cat /dev/ttyS0 | sh >/dev/ttyS0 2>&1
	echo "init: shell ended, restarting" >/dev/ttyS0
done
