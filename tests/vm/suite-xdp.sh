# Every XDP verdict in every write mode and size, exact counts at the
# destination and in ethtool -S. basic_ports[0] = xb for redirects.
N=${N:-100}
set_port xb
for act in pass drop tx redirect; do
	xdp_attach xa xdp_$act || bad "attach xdp_$act to xa"
	for mode in block nonblock writev; do
		for size in 60 1500 4000 9000 65535; do
			# Up to a jumbo buffer (15808 B) a frame is one buffer,
			# sent on as it is; larger ones are copied into one first.
			lin=0
			[ $size -gt 15808 ] && lin=$N
			snap xa
			snap xb
			case $act in
			pass)
				tool tapx-dev run --src $X:xa --mode $mode --size $size --count $N \
					--dst packet:xa --expect $N
				expect xa rx_packets=$N xdp_pass=$N xdp_drop=0 xdp_aborted=0
				;;
			drop)
				tool tapx-dev run --src $X:xa --mode $mode --size $size --count $N \
					--self 0 --dst packet:xa --expect 0
				expect xa rx_packets=$N xdp_drop=$N xdp_pass=0 tx_packets=0
				;;
			tx)
				tool tapx-dev run --src $X:xa --mode $mode --size $size --count $N \
					--self $N
				expect xa rx_packets=$N xdp_tx=$N tx_packets=$N xdp_tx_errors=0 \
					ring_full_drops=0 xdp_tx_linearized=$lin
				;;
			redirect)
				tool tapx-dev run --src $X:xa --mode $mode --size $size --count $N \
					--dst tap:$X:xb --expect $N
				expect xa rx_packets=$N xdp_redirect=$N xdp_redirect_errors=0 \
					xdp_redirect_linearized=$lin
				expect xb xdp_xmit=$N tx_packets=$N rx_packets=0
				;;
			esac
		done
	done
done
xdp_detach xa
