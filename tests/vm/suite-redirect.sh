# Redirect between drivers: tapx -> stock tun, stock tun -> tapx.
N=${N:-100}
# tapx -> tun: tun's ndo_xdp_xmit takes single-buffer frames only.
set_port tb
xdp_attach xa xdp_redirect
for mode in block nonblock writev; do
	for size in 60 1500; do
		snap xa
		tool tapx-dev run --src $X:xa --mode $mode --size $size --count $N \
			--dst tap:$T:tb --expect $N
		expect xa xdp_redirect=$N xdp_redirect_errors=0
	done
done
xdp_detach xa

# tun -> tapx: native XDP on tun's nonblocking path, generic otherwise.
set_port xb
runs "attach xdp_redirect to tun ta" xdp_attach ta xdp_redirect
for mode in block nonblock writev; do
	for size in 60 1500; do
		snap xb
		tool tapx-dev run --src $T:ta --mode $mode --size $size --count $N \
			--dst tap:$X:xb --expect $N
		# Native (nonblock) arrives as xdp_frames, generic as skbs.
		check "  xb tx_packets delta ($mode $size)" $N "$(delta xb tx_packets)"
	done
done
xdp_detach ta
