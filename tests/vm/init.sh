#!/bin/sh
# /init of the VM: mounts, runs the suites (or the bench, profile or A/B), prints the
# results between markers for tests/vm/run.sh, then dmesg, then powers off.
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug
ip link set lo up
# No IPv6 autoconfiguration traffic on the test taps.
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6

mode=test
for a in $(cat /proc/cmdline); do
	case $a in
	vmmode=*) mode=${a#vmmode=} ;;
	vm*=*) export "$a" ;;
	esac
done

# Where KASLR put the kernel's text: tests/vm/vcpus.py names where a stuck
# guest's vCPUs are from it.
echo "==== KTEXT $(grep -m 1 ' T _text$' /proc/kallsyms | cut -d' ' -f1)"
echo "==== OUTPUT BEGIN"
# Each ends with the "N passed, N failed" of tests/lib/check.sh's finish.
if [ "$mode" = bench ] || [ "$mode" = profile ] || [ "$mode" = ab ]; then
	sh /tests/$mode.sh 2>&1
else
	sh /tests/suite-all.sh 2>&1
fi
echo "==== OUTPUT END"
# A debug kernel's kmemleak scans only when asked: once the suites are done,
# after the minimum object age, so that what they leaked is reported here.
if [ -e /sys/kernel/debug/kmemleak ] ||
	{ mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null && [ -e /sys/kernel/debug/kmemleak ]; }; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	echo "==== KMEMLEAK"
	cat /sys/kernel/debug/kmemleak
fi
echo "==== DMESG BEGIN"
dmesg
echo "==== DMESG END"
sync
poweroff -f
