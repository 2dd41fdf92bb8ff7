# The batch ioctls (TAPXSUBMIT, TAPXRECV; kmod/uapi/linux/tapx.h): every verdict
# at every size and batch size, in order, with exact counts; mixed verdicts
# and malformed frames in one batch; bad batches and bad frames; batched
# reads of skbs and xdp_frames; no skb allocated on DROP/TX/REDIRECT.
set_port xb
for act in pass drop tx redirect; do
	xdp_attach xa xdp_$act
	# 61 to 257: the word copy's tail and its last size; a cycle of sizes
	# mixes the short-frame copy with the others in every batch.
	for sb in 60:1 60:7 60:256 61:64 256:64 257:64 1500:64 4000:64 \
		9000:64 65535:64 60,257,9000,61,256,1500,65535:64; do
		size=${sb%:*}
		batch=${sb#*:}
		N=200
		case $size in *,* | ????? | [5-9]???) N=100 ;; esac
		snap xa
		snap xb
		run="tapx-batch run --src $X:xa --size $size --count $N --batch $batch"
		case $act in
		pass)
			tool $run --dst packet:xa --expect $N
			expect xa rx_packets=$N xdp_pass=$N xdp_drop=0 rx_errors=0 ;;
		drop)
			tool $run --self 0 --dst packet:xa --expect 0
			expect xa rx_packets=$N xdp_drop=$N xdp_pass=0 tx_packets=0 ;;
		tx)
			tool $run --self $N
			expect xa rx_packets=$N xdp_tx=$N tx_packets=$N xdp_tx_errors=0 \
				ring_full_drops=0 ;;
		redirect)
			tool $run --dst tap:$X:xb --expect $N
			expect xa rx_packets=$N xdp_redirect=$N xdp_redirect_errors=0
			expect xb xdp_xmit=$N tx_packets=$N ;;
		esac
	done
	# vnet headers, on short frames, single and multi-buffer; the PI
	# header too (no IFF_NO_PI) with the last.
	for size in 60 1500 65535 60,1500,65535 pi:60,1500,65535; do
		N=50
		snap xa
		pi=
		case $size in pi:*) pi=--pi size=${size#pi:} ;; esac
		run="tapx-batch run $pi --vnet --src $X:xa --size $size --count $N --batch 16"
		case $act in
		pass) tool $run --dst packet:xa --expect $N ;;
		drop) tool $run --self 0 ;;
		tx) tool $run --self $N ;;
		redirect) tool $run --dst tap:$X:xb --expect $N ;;
		esac
		expect xa rx_packets=$N xdp_$act=$N rx_errors=0 xdp_gso_drops=0
	done
done

# Mixed verdicts in one batch, chosen by a byte of each frame, with a runt
# in the middle of every batch (reported, counted, the batch goes on).
runs "batch: xdp_extra loads with its maps" \
	bpftool prog loadall /bpf/xdp_extra.bpf.o /sys/fs/bpf/xbt pinmaps /sys/fs/bpf/xbtm
i=$(cat /sys/class/net/xb/ifindex)
bpftool map update pinned /sys/fs/bpf/xbtm/by_byte_port key hex 00 00 00 00 \
	value hex $(printf '%02x %02x 00 00' $((i & 255)) $((i >> 8 & 255)))
runs "batch: attach xdp_by_byte" \
	bpftool net attach xdpdrv pinned /sys/fs/bpf/xbt/xdp_by_byte dev xa overwrite
for size in 60 9000; do
	N=630
	snap xa
	snap xb
	tool tapx-batch mixed $X:xa $X:xb $size $N
	# Its "drop=D tx=T pass=P ..." line, as mixed_drop=D ...
	eval "$(sed -n '/^drop=/s/\([a-z]*\)=/mixed_\1=/gp' /tmp/tool.out)"
	runs "mixed $size B: every verdict taken" test "$mixed_drop" -gt 0 \
		-a "$mixed_tx" -gt 0 -a "$mixed_pass" -gt 0 \
		-a "$mixed_redirect" -gt 0 -a "$mixed_malformed" -gt 0
	expect xa rx_packets=$N xdp_drop=$mixed_drop xdp_tx=$mixed_tx \
		xdp_pass=$mixed_pass xdp_redirect=$mixed_redirect \
		rx_errors=$mixed_malformed xdp_aborted=0 tx_packets=$mixed_tx \
		xdp_redirect_errors=0
	expect xb xdp_xmit=$mixed_redirect tx_packets=$mixed_redirect
done
xdp_detach xa
rm -rf /sys/fs/bpf/xbt /sys/fs/bpf/xbtm

# A bad frame address at descs[k]: -EFAULT, done = k, exactly k counted.
# 65535 B frames go one per round (each passes TAPX_ROUND_BYTES of
# buffers alone): the bad one is in the 41st round, and in the first.
xdp_attach xa xdp_drop
# Short frames are copied in runs: the bad one first, inside and last in
# a run, after a long frame, and with only its first bytes readable.
for kns in 0:4:60 5:10:60 255:256:60 40:64:65535 1:64:65535 \
	3:8:60,9000 4:8:9000,60,60 5:8:9000,60,60 0:1:60:tail 9:16:60,257:tail \
	9:16:257,60:tail; do
	set -- $(echo $kns | tr : ' ')
	snap xa
	tool tapx-batch efault $X:xa $1 $2 $3 $4
	expect xa rx_packets=$1 xdp_drop=$1 rx_errors=0 rx_dropped=0
done
xdp_detach xa

# Bad batches, malformed frames and the receive cases, on a device of their
# own without IPv6 (whose own traffic would land in the ring).
v6=$(cat /proc/sys/net/ipv6/conf/default/disable_ipv6)
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
runs "batch: create tapx xc" tapx-dev mk $X xc
echo "$v6" >/proc/sys/net/ipv6/conf/default/disable_ipv6
snap xc
tool tapx-batch errors $X:xc
expect xc rx_packets=8 rx_errors=3 rx_dropped=0

# Batched reads of xdp_frames (XDP_TX) and skbs (from the stack) together.
xdp_attach xa xdp_tx
tool tapx-batch recvmix $X:xa 200
xdp_detach xa
ip link del xc

# No skb on DROP, TX or REDIRECT through TAPXSUBMIT (as suite-noskb does
# for write()); PASS is the control.
N=512
probes=$(skb_probes_on)
runs "batch noskb: kprobes on skb constructors ($probes)" test $probes -ge 5
for act in drop tx redirect pass; do
	xdp_attach xa xdp_$act
	for size in 60 9000; do
		case $act in
		drop) dst="--self 0" ;;
		tx) dst="--self $N" ;;
		redirect) dst="--dst tap:$X:xb --expect $N" ;;
		pass) dst="" ;;
		esac
		echo >$TR/trace
		tool env TAPXB_MARK=1 tapx-batch run --quiet --src $X:xa --size $size --count $N \
			--batch 64 $dst
		c=$(skb_calls tapx-batch)
		check "batch noskb: trace markers for $act $size" 2 "$(marks tapx-batch)"
		if [ $act = pass ]; then
			runs "batch noskb: control, PASS $size allocated $c skbs (>= $N)" test "$c" -ge $N
		else
			check "batch noskb: skbs allocated by $N x $act $size in batches of 64" 0 "$c"
		fi
	done
done
xdp_detach xa
skb_probes_off
