# Attach, replace and detach programs while a writer runs flat out.
snap xa
tapx-dev flood $X:xa 8 1500 >/tmp/flood.out 2>&1 &
fpid=$!
sleep 1
i=0
while [ $i -lt 10 ]; do
	xdp_attach xa xdp_drop
	xdp_attach xa xdp_pass
	xdp_detach xa
	i=$((i + 1))
done
wait $fpid
rc=$?
read -r written bad </tmp/flood.out
check "attach: flood exit status" 0 $rc
check "attach: failed writes" 0 "$bad"
check "attach: rx_packets delta = frames written" "$written" "$(delta xa rx_packets)"
d=$(delta xa xdp_drop)
p=$(delta xa xdp_pass)
runs "attach: both programs saw frames (drop $d, pass $p)" test "$d" -gt 0 -a "$p" -gt 0
runs "attach: verdicts <= frames ($((d + p)) <= $written)" test $((d + p)) -le "$written"
