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
			tool tapxt run --vnet --src $X:xa --size $size --count $N --dst packet:xa --expect $N
			expect xa xdp_pass=$N ;;
		drop)
			tool tapxt run --vnet --src $X:xa --size $size --count $N --self 0
			expect xa xdp_drop=$N ;;
		tx)
			tool tapxt run --vnet --src $X:xa --size $size --count $N --self $N
			expect xa xdp_tx=$N ;;
		redirect)
			tool tapxt run --vnet --src $X:xa --size $size --count $N --dst tap:$X:xb --expect $N
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
		tool tapxt run --vnet --gso --src $X:xa --size 9000 --count $N --self 0
		expect xa xdp_drop=$N xdp_gso_drops=0 ;;
	tx)
		tool tapxt run --vnet --gso --src $X:xa --size 9000 --count $N --self 0
		expect xa xdp_tx=0 xdp_gso_drops=$N ;;
	redirect)
		tool tapxt run --vnet --gso --src $X:xa --size 9000 --count $N --dst tap:$X:xb --expect 0
		expect xa xdp_redirect=0 xdp_gso_drops=$N ;;
	esac
done
xdp_detach xa
