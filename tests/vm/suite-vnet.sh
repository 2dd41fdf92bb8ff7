# IFF_VNET_HDR writers: every verdict, single and multi-buffer; GSO frames
# meet XDP, and verdicts that cannot carry GSO metadata drop and count.
N=50
set_port xb
for act in pass drop tx redirect; do
	xdp_attach xa xdp_$act
	for size in 1500 65535; do
		snap xa
		case $act in
		pass)
			tool tapx-dev run --vnet --src $X:xa --size $size --count $N --dst packet:xa --expect $N
			expect xa xdp_pass=$N ;;
		drop)
			tool tapx-dev run --vnet --src $X:xa --size $size --count $N --self 0
			expect xa xdp_drop=$N ;;
		tx)
			tool tapx-dev run --vnet --src $X:xa --size $size --count $N --self $N
			expect xa xdp_tx=$N ;;
		redirect)
			tool tapx-dev run --vnet --src $X:xa --size $size --count $N --dst tap:$X:xb --expect $N
			expect xa xdp_redirect=$N ;;
		esac
	done
done

# GSO (TCPv4, gso_size 1448) frames of 9000 bytes.
for act in drop tx redirect; do
	xdp_attach xa xdp_$act
	snap xa
	case $act in
	drop)
		tool tapx-dev run --vnet --gso --src $X:xa --size 9000 --count $N --self 0
		expect xa xdp_drop=$N xdp_gso_drops=0 ;;
	tx)
		tool tapx-dev run --vnet --gso --src $X:xa --size 9000 --count $N --self 0
		expect xa xdp_tx=0 xdp_gso_drops=$N ;;
	redirect)
		tool tapx-dev run --vnet --gso --src $X:xa --size 9000 --count $N --dst tap:$X:xb --expect 0
		expect xa xdp_redirect=0 xdp_gso_drops=$N ;;
	esac
done
xdp_detach xa

# USO: IPv4/UDP frames of 8000 bytes behind a vnet header asking for UDP
# segmentation (GSO_UDP_L4, gso_size 1000), as QEMU writes a guest's UDP
# GSO traffic once TUNSETOFFLOAD took USO; multi-buffer XDP on tapx. From
# 6.2 on, PASS gives the stack one GSO skb per frame, which the bound UDP
# socket receives as 8 datagrams, as from stock tun; DROP frees it; TX and
# REDIRECT cannot carry GSO metadata and drop it (xdp_gso_drops), so the
# reader and xb get nothing. On 6.1, which has no USO, both drivers refuse
# the write with EINVAL.
UN=20
uso_has=yes
case $(uname -r) in 6.1.* | 6.1-*) uso_has=no ;; esac
# uso_get OUTPUT KEY: one key=value of tapx-ident uso's line
uso_get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# uso_check WHAT OUTPUT WRITES ERR UDP SELF
uso_check() {
	check "uso: $1 writes" "$3" "$(uso_get "$2" writes)"
	check "uso: $1 first error" "$4" "$(uso_get "$2" err)"
	check "uso: $1 UDP datagrams received" "$5" "$(uso_get "$2" udp)"
	[ "$5" = 0 ] || check "uso: $1 UDP bytes received" $((UN * 8000)) "$(uso_get "$2" bytes)"
	check "uso: $1 frames read back" "$6" "$(uso_get "$2" self)"
}
runs "uso: create tun usot" tapx-dev mk $T usot 65521
runs "uso: create tapx usox" tapx-dev mk $X usox 65521
ip addr add 10.99.0.1/24 dev usot
out=$(tapx-ident uso $T usot $UN)
if [ $uso_has = yes ]; then
	uso_check "tun" "$out" $UN 0 $((UN * 8)) 0
else
	uso_check "tun" "$out" 0 EINVAL 0 0
fi
ip addr del 10.99.0.1/24 dev usot
ip addr add 10.99.0.1/24 dev usox
set_port xb
for act in pass drop tx redirect; do
	xdp_attach usox xdp_$act
	snap usox
	snap xb
	out=$(tapx-ident uso $X usox $UN)
	if [ $uso_has = no ]; then
		uso_check "tapx $act" "$out" 0 EINVAL 0 0
		expect usox rx_errors=$UN xdp_$act=0
		break
	fi
	case $act in
	pass)
		uso_check "tapx pass" "$out" $UN 0 $((UN * 8)) 0
		expect usox xdp_pass=$UN xdp_gso_drops=0 rx_errors=0 ;;
	drop)
		uso_check "tapx drop" "$out" $UN 0 0 0
		expect usox xdp_drop=$UN xdp_gso_drops=0 ;;
	tx)
		uso_check "tapx tx" "$out" $UN 0 0 0
		expect usox xdp_tx=0 xdp_gso_drops=$UN ;;
	redirect)
		uso_check "tapx redirect" "$out" $UN 0 0 0
		expect usox xdp_redirect=0 xdp_gso_drops=$UN
		expect xb xdp_xmit=0 ;;
	esac
done
xdp_detach usox
ip link del usot
ip link del usox

# A TCPv4 GSO frame (gso_size 1000, 3000 bytes of payload) behind a vnet
# header without NEEDS_CSUM, whose protocol and transport header the
# kernel probes (from 6.17 through the skb's device, which a write's skb
# must have by then): written, delivered to the stack as one frame (an
# AF_PACKET socket on the tap sees it), counted in rx_packets and not in
# rx_errors, on tun.ko and on tapx, with no program and with xdp_pass.
GSO_OUT="write=3064 seen=1 len=3054"
rx_stat() { cat /sys/class/net/"$1"/statistics/"$2"; }
# gso_probe NAME NODE WHAT
gso_probe() {
	_p0=$(rx_stat $1 rx_packets) _e0=$(rx_stat $1 rx_errors)
	check "gso without NEEDS_CSUM: $3" "$GSO_OUT" "$(tapx-ident gso $2 $1)"
	check "gso without NEEDS_CSUM: $3: rx_packets" 1 $(($(rx_stat $1 rx_packets) - _p0))
	check "gso without NEEDS_CSUM: $3: rx_errors" 0 $(($(rx_stat $1 rx_errors) - _e0))
}
ip link del gsot 2>/dev/null
ip link del gsox 2>/dev/null
runs "gso: create tun gsot" tapx-dev mk $T gsot
runs "gso: create tapx gsox" tapx-dev mk $X gsox
gso_probe gsot $T "tun"
gso_probe gsox $X "tapx, no program"
xdp_attach gsox xdp_pass
gso_probe gsox $X "tapx, xdp_pass"
xdp_detach gsox
runs "gso: remove gsot" ip link del gsot
runs "gso: remove gsox" ip link del gsox

# A vnet header longer than struct virtio_net_hdr (20 bytes): read() writes
# the rest of it as zeros, as tun does on 7.x; 6.x's tun leaves whatever
# the reader's buffer held there (0xff here).
check "vnet header's tail on read: tapx" "len=120 tail=00000000000000000000" \
	"$(tapx-ident hdrtail $X hdrx)"
case $(uname -r) in
6.*) tun_tail=ffffffffffffffffffff ;;
*) tun_tail=00000000000000000000 ;;
esac
check "vnet header's tail on read: tun" "len=120 tail=$tun_tail" "$(tapx-ident hdrtail $T hdrt)"

# GSO over a UDP tunnel (6.17 on): a VXLAN frame around a TCPv4 segment of
# 3000 bytes behind a struct virtio_net_hdr_v1_hash_tunnel (24 bytes) with
# gso_type UDP_TUNNEL_IPV4|TCPV4, gso_size 1000, and its outer transport
# (34) and inner network (64) header offsets (tapx-ident tnl). Written,
# the stack gets one GSO skb, which an AF_PACKET socket reads as TCPv4 GSO
# with the inner checksum's offsets; tun takes the header from a vnet
# header that large, TUNSETOFFLOAD or not (the offloads say what the
# reader takes), and refuses it from a smaller one (12 bytes: EINVAL).
# Bridged to a second tap with the offloads, it is read back whole, with
# its tunnel fields. tapx gives what tun gives, with no program, with
# xdp_pass, and through a bridge; xdp_tx cannot carry GSO metadata
# (xdp_gso_drops). Before 6.17 both refuse the offloads and the write.
TNL_OFF=0x87 # TUN_F_CSUM|TSO4|TSO6|UDP_TUNNEL_GSO
TNL_OFF_CSUM=0x187 # and UDP_TUNNEL_GSO_CSUM
tnl_einval="write=EINVAL seen=0 vnet=0/0x0/0/0/0/0"
case $(uname -r) in
6.*)
	tnl_has=no
	tnl_w="offload=EINVAL $tnl_einval"
	tnl_w0="offload=0 $tnl_einval"
	tnl_fwd="$tnl_w read=none hdr=0/0x0/0/0/0/0/0/0"
	tnl_features="tx-udp_tnl-segmentation: off [fixed]
tx-udp_tnl-csum-segmentation: off [fixed]"
	tnl_fwd_small=$tnl_fwd
	;;
*)
	tnl_has=yes
	tnl_w="offload=0 write=3128 seen=1 vnet=1/0x1/3104/1000/84/16"
	tnl_w0=$tnl_w
	tnl_fwd="$tnl_w read=3128 hdr=1/0x21/3104/1000/84/16/34/64"
	tnl_features="tx-udp_tnl-segmentation: on
tx-udp_tnl-csum-segmentation: on"
	tnl_fwd_small="$tnl_w read=EFAULT hdr=0/0x0/0/0/0/0/0/0"
	;;
esac
tnl_small="${tnl_w%% *} $tnl_einval"
for d in tnlbt tnlbx tnlt1 tnlt2 tnlx1 tnlx2; do ip link del $d 2>/dev/null; done
# The bridge's modules, loaded here and removed at the end if they were not.
tnl_mods=
for m in llc stp bridge; do
	mod_loaded $m || { insmod /modules/$m.ko && tnl_mods="$m $tnl_mods"; }
done
runs "tnl: create tun tnlt1" tapx-dev mk $T tnlt1
runs "tnl: create tun tnlt2" tapx-dev mk $T tnlt2
runs "tnl: create tapx tnlx1" tapx-dev mk $X tnlx1
runs "tnl: create tapx tnlx2" tapx-dev mk $X tnlx2
for drv in t x; do
	node=$T
	[ $drv = x ] && node=$X
	check "tnl: $drv: 24-byte header, offloads $TNL_OFF" "$tnl_w" \
		"$(tapx-ident tnl $node tnl${drv}1 24 $TNL_OFF)"
	check "tnl: $drv: 24-byte header, no offloads" "$tnl_w0" \
		"$(tapx-ident tnl $node tnl${drv}1 24 0)"
	check "tnl: $drv: 12-byte header, offloads $TNL_OFF" "$tnl_small" \
		"$(tapx-ident tnl $node tnl${drv}1 12 $TNL_OFF)"
	runs "tnl: bridge tnlb$drv" ip link add tnlb$drv type bridge
	runs "tnl: tnl${drv}1 into tnlb$drv" ip link set tnl${drv}1 master tnlb$drv
	runs "tnl: tnl${drv}2 into tnlb$drv" ip link set tnl${drv}2 master tnlb$drv
	runs "tnl: tnlb$drv up" ip link set tnlb$drv up
	check "tnl: $drv: bridged, offloads $TNL_OFF_CSUM" "$tnl_fwd" \
		"$(tapx-ident tnl $node tnl${drv}1 24 $TNL_OFF_CSUM tnl${drv}2)"
	check "tnl: $drv: ethtool -k after offloads $TNL_OFF_CSUM" "$tnl_features" \
		"$(ethtool -k tnl${drv}2 | grep udp_tnl)"
	# A reader whose header (12 bytes) cannot hold the offsets its
	# device's offload calls for: read() fails (EFAULT), as tun's.
	check "tnl: $drv: bridged to a 12-byte header" "$tnl_fwd_small" \
		"$(tapx-ident tnl $node tnl${drv}1 24 $TNL_OFF tnl${drv}2:12)"
done
xdp_attach tnlx1 xdp_pass
snap tnlx1
check "tnl: x: xdp_pass, bridged" "$tnl_fwd" \
	"$(tapx-ident tnl $X tnlx1 24 $TNL_OFF_CSUM tnlx2)"
if [ $tnl_has = yes ]; then
	expect tnlx1 xdp_pass=1 rx_errors=0
	tnl_tx="offload=0 write=3128 seen=0 vnet=0/0x0/0/0/0/0"
else
	expect tnlx1 xdp_pass=0 rx_errors=1
	tnl_tx=$tnl_w
fi
xdp_attach tnlx1 xdp_tx
snap tnlx1
check "tnl: x: xdp_tx" "$tnl_tx" "$(tapx-ident tnl $X tnlx1 24 $TNL_OFF)"
if [ $tnl_has = yes ]; then
	expect tnlx1 xdp_tx=0 xdp_gso_drops=1
else
	expect tnlx1 xdp_tx=0 xdp_gso_drops=0
fi
xdp_detach tnlx1
# TAPXSUBMIT: a short frame (150 bytes of payload, gso_size 100, the batch's
# run of short copies) and the large one, each with the 24-byte header.
if [ $tnl_has = yes ]; then
	tnl_sub="offload=0 submit=0/2/0/0 seen=1 vnet=1/0x1/3104/1000/84/16 seen_short=1 vnet_short=1/0x1/254/100/84/16"
else
	tnl_sub="offload=EINVAL submit=0/2/EINVAL/EINVAL seen=0 vnet=0/0x0/0/0/0/0 seen_short=0 vnet_short=0/0x0/0/0/0/0"
fi
check "tnl: x: TAPXSUBMIT" "$tnl_sub" "$(tapx-ident tnl $X tnlx1 24 $TNL_OFF submit)"
for d in tnlbt tnlbx tnlt1 tnlt2 tnlx1 tnlx2; do runs "tnl: remove $d" ip link del $d; done
for m in $tnl_mods; do runs "tnl: rmmod $m" rmmod $m; done
