# ABORTED (counted, xdp_exception fired) and a program without frags
# support (frames larger than a page are dropped before it, and counted).
N=50
runs "extra programs load" bpftool prog loadall /bpf/xdp_extra.bpf.o /sys/fs/bpf/xe
echo 1 >$TR/events/xdp/xdp_exception/enable
echo >$TR/trace
runs "attach xdp_abort" bpftool net attach xdpdrv pinned /sys/fs/bpf/xe/xdp_abort dev xa overwrite
for size in 60 9000; do
	snap xa
	tool tapx-dev run --src $X:xa --size $size --count $N --self 0 --dst packet:xa --expect 0
	expect xa xdp_aborted=$N xdp_pass=0 xdp_drop=0
done
check "xdp_exception events" $((2 * N)) "$(grep -c 'xdp_exception:' $TR/trace)"
echo 0 >$TR/events/xdp/xdp_exception/enable

# Refused while the MTU (65521) says frames larger than a page are to come,
# with the reason in the netlink extack (bpftool prints it), as veth does.
runs "xdp_drop_nofrags at MTU 65521 refused" sh -c \
	'! bpftool net attach xdpdrv pinned /sys/fs/bpf/xe/xdp_drop_nofrags dev xa overwrite >/tmp/nofrags.out 2>&1'
runs "refusal names xdp.frags" grep -q "without xdp.frags" /tmp/nofrags.out
runs "MTU 3506 on xa (one buffer)" ip link set dev xa mtu 3506
runs "attach xdp_drop_nofrags" bpftool net attach xdpdrv pinned /sys/fs/bpf/xe/xdp_drop_nofrags dev xa overwrite
runs "MTU 3507 refused while it is attached" sh -c '! ip link set dev xa mtu 3507'
snap xa
tool tapx-dev run --src $X:xa --size 1500 --count $N --dst packet:xa --expect 0
expect xa xdp_drop=$N xdp_frags_drops=0
for size in 4000 65535; do
	snap xa
	tool tapx-dev run --src $X:xa --size $size --count $N --dst packet:xa --expect 0
	expect xa xdp_drop=0 xdp_frags_drops=$N rx_packets=$N
done
xdp_detach xa
runs "MTU 65521 on xa again" ip link set dev xa mtu 65521
