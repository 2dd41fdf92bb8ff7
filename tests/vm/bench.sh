# VM measurement: stock tun.ko and tapx.ko in one boot, XDP_DROP, blocking
# and nonblocking writers, against the write()-to-/dev/null floor.
. /tests/lib.sh
insmod /modules/tun.ko
insmod /modules/tapx.ko
[ -c $X ] || echo "bench: /dev/net/tapx missing"
bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM

if [ -x /bin/tap-accel ]; then
	echo "--- tap-accel bench --vm"
	tap-accel bench --vm
fi

echo "--- tapx-bench: ns per frame, XDP_DROP (xdp_drop of xdp_basic)"
tapxt mk $T bt0 65521
tapxt mk $X bx0 65521
xdp_attach bt0 xdp_drop
xdp_attach bx0 xdp_drop
COUNT=${COUNT:-20000}
printf '%-6s %-9s %8s %8s %8s %9s %9s\n' size writer floor tun tapx tun/floor tapx/floor
for size in 64 1500 9000; do
	for mode in block nonblock; do
		n=$COUNT
		[ $size = 9000 ] && n=$((COUNT / 4))
		fl=$(tapx-bench floor - $size $mode $n | cut -d' ' -f1)
		tu=$(tapx-bench $T bt0 $size $mode $n | cut -d' ' -f1)
		tx=$(tapx-bench $X bx0 $size $mode $n | cut -d' ' -f1)
		awk -v s=$size -v m=$mode -v f=$fl -v u=$tu -v x=$tx 'BEGIN {
			printf "%-6s %-9s %8d %8d %8d %9.2f %9.2f\n", s, m, f, u, x, u / f, x / f }'
	done
done
echo "--- counters"
ethtool -S bx0 | grep -E 'rx_packets|xdp_drop:'
