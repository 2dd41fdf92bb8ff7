# ABORTED (counted, xdp_exception fired) and a program without frags
# support (frames larger than a page are dropped before it, and counted).
N=50
ok "extra programs load" bpftool prog loadall /bpf/xdp_extra.bpf.o /sys/fs/bpf/xe
echo 1 >$TR/events/xdp/xdp_exception/enable
echo >$TR/trace
ok "attach xdp_abort" bpftool net attach xdpdrv pinned /sys/fs/bpf/xe/xdp_abort dev xa overwrite
for size in 60 9000; do
	snap xa
	tapxt run --src $X:xa --size $size --count $N --self 0 --dst packet:xa --expect 0
	expect xa xdp_aborted=$N xdp_pass=0 xdp_drop=0
done
eq "xdp_exception events" "$(grep -c 'xdp_exception:' $TR/trace)" $((2 * N))
echo 0 >$TR/events/xdp/xdp_exception/enable

ok "attach xdp_drop_nofrags" bpftool net attach xdpdrv pinned /sys/fs/bpf/xe/xdp_drop_nofrags dev xa overwrite
snap xa
tapxt run --src $X:xa --size 1500 --count $N --dst packet:xa --expect 0
expect xa xdp_drop=$N xdp_frags_drops=0
for size in 4000 65535; do
	snap xa
	tapxt run --src $X:xa --size $size --count $N --dst packet:xa --expect 0
	expect xa xdp_drop=0 xdp_frags_drops=$N rx_packets=$N
done
xdp_detach xa
