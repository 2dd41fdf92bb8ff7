# VM profile: where the kernel spends a tapx write path's time, by symbol,
# from perf's cpu-clock samples of every CPU while tapx-bench writes.
# Kernel arguments (VM_APPEND):
#   vmprofsize=B (64)  vmprofwriter=block|nonblock|batchN (batch64)
#   vmprofprog=NAME of xdp_basic (xdp_drop)  vmprofframes=N (300000)
#   vmprofcallers=1 adds call chains  vmproflines=N of the report (60)
#   vmprofreader=1 reads the frames back on the other CPU (tapx-bench -r:
#   with vmprofprog=xdp_tx and vmprofwriter=nonblock; writer on CPU 0,
#   reader on CPU 1)  vmprofsort=KEYS of perf report (sym; cpu,sym splits
#   the samples per CPU)
#   vmprofdev=tun profiles stock tun.ko's write path instead (the same
#   writer and program on a tun device), for a side-by-side reading
#   vmprofips=1 adds the hottest addresses in tapx.ko, as offsets into its
#   .text: addr2line -f -i -j .text -e build/kmod-build/<kernel>/kmod/tapx.ko OFFSET
#   vmprofvhost=CELL profiles a cell of tapx-vhost bench instead (tx-noprog,
#   rx-stack, ...; tests/vm/tapx-vhost/) at vmprofsize (1500), with
#   vmprofframes (60000) frames, on tapx through tapx_tun.ko or, with
#   vmprofdev=tun, on stock tun.ko: vhost-net's side by side;
#   vmprofdelay=MS starts the samples that late (perf record -D), past
#   the set-up (tx-guard and g2g-fwd load tap-accel's program first)
. /tests/check.sh
. /tests/lib.sh
if [ -n "${vmprofvhost:-}" ]; then
	insmod /modules/tapx.ko
	# The bench's second guest sits in a bridge too (g2g-bridge).
	for m in vhost_iotlb vhost tap llc stp bridge; do
		insmod /modules/$m.ko || bad "profile: insmod $m"
	done
	if [ "${vmprofdev:-tapx}" = tun ]; then
		insmod /modules/tun.ko || bad "profile: insmod tun"
		node=$T
	else
		insmod /modules/tapx_tun.ko || bad "profile: insmod tapx_tun"
		node=$X
	fi
	insmod /modules/vhost_net.ko || bad "profile: insmod vhost_net"
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
	g=
	[ -n "${vmprofcallers:-}" ] && g=-g
	echo "--- perf record: tapx-vhost bench ${vmprofvhost} ${vmprofsize:-1500} B on ${vmprofdev:-tapx}, ${vmprofframes:-60000} frames"
	runs "profile: perf record" perf record -q $g ${vmprofdelay:+-D $vmprofdelay} -e cpu-clock -F 20000 -a -o /tmp/perf.data -- \
		tapx-vhost bench --node $node --name bp0 --reps 1 --cells $vmprofvhost \
		--sizes ${vmprofsize:-1500} --frames ${vmprofframes:-60000}
	echo "--- tapx-vhost: $(grep "^$vmprofvhost " $tmp/out)"
	perf report -i /tmp/perf.data --stdio --no-children --sort ${vmprofsort:-sym} 2>/dev/null |
		grep -v '^#' | grep . | head -n ${vmproflines:-60}
	finish
	exit
fi
insmod /modules/tapx.ko
[ "${vmprofdev:-tapx}" = tun ] && { insmod /modules/tun.ko || bad "profile: insmod tun"; }
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
node=$X
[ "${vmprofdev:-tapx}" = tun ] && node=$T
runs "profile: create ${vmprofdev:-tapx} bp0" tapx-dev mk $node bp0 65521
runs "profile: ${vmprofprog:-xdp_drop} on bp0" xdp_attach bp0 ${vmprofprog:-xdp_drop}
g= r=
[ -n "${vmprofcallers:-}" ] && g=-g
[ -n "${vmprofreader:-}" ] && r=-r
echo "--- perf record: tapx-bench ${vmprofsize:-64} B ${vmprofwriter:-batch64}, ${vmprofframes:-300000} frames"
runs "profile: perf record" perf record -q $g -e cpu-clock -F 20000 -a -o /tmp/perf.data -- \
	tapx-bench $r $node bp0 ${vmprofsize:-64} ${vmprofwriter:-batch64} ${vmprofframes:-300000}
# tapx-bench's own line: ns per frame, failed writes (-r: and unread).
echo "--- tapx-bench: $(tail -n 1 $tmp/out)"
perf report -i /tmp/perf.data --stdio --no-children --sort ${vmprofsort:-sym} 2>/dev/null |
	grep -v '^#' | grep . | head -n ${vmproflines:-60}
if [ -n "${vmprofips:-}" ]; then
	base=$(cat /sys/module/tapx/sections/.text)
	echo "--- hottest tapx.ko .text offsets (samples, offset, symbol)"
	# The low 32 bits only: awk's numbers are doubles.
	perf script -i /tmp/perf.data -F ip,sym 2>/dev/null | awk -v base=$base '
		function low32(h) { h = substr(h, length(h) - 7); return ("0x" h) + 0 }
		$2 ~ /^tapx_/ { n[$1 " " $2]++ }
		END { b = low32(base)
			for (k in n) { split(k, a, " ")
				printf "%d 0x%x %s\n", n[k], (low32(a[1]) - b + 4294967296) % 4294967296, a[2] } }' |
		sort -rn | head -n ${vmproflines:-60}
fi
finish
