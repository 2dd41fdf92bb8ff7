# Attach, replace and detach programs while a writer runs flat out.
snap xa
tapxt flood $X:xa 8 1500 >/tmp/flood.out 2>&1 &
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
eq "attach: flood exit status" $rc 0
eq "attach: failed writes" "$bad" 0
eq "attach: rx_packets delta = frames written" "$(delta xa rx_packets)" "$written"
d=$(delta xa xdp_drop)
p=$(delta xa xdp_pass)
ok "attach: both programs saw frames (drop $d, pass $p)" test "$d" -gt 0 -a "$p" -gt 0
ok "attach: verdicts <= frames ($((d + p)) <= $written)" test $((d + p)) -le "$written"
