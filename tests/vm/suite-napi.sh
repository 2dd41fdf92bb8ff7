# PASS delivery: per frame (napi=0) and through NAPI + GRO (napi=1). The
# parameter is runtime (0644) and read when a file attaches, so both modes
# run in one boot: every tool below attaches a fresh fd.
P=/sys/module/tapx/parameters/napi
runs "napi: parameter is writable" test -w $P
napi_was=$(cat $P)
runs "napi: create tapx xn0" tapx-dev mk $X xn0 65521
ip addr add 10.9.0.1/24 dev xn0
# The peer the tools play; a permanent entry, so no ARP on the way back
# (iproute2: busybox's ip has no neigh replace).
runs "napi: neighbour 10.9.0.2 on xn0" /bin/ip neigh replace 10.9.0.2 lladdr 02:00:00:00:00:02 dev xn0 nud permanent
GFT=/sys/class/net/xn0/gro_flush_timeout
slab_skb() { awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo; }

N=200
for mode in 1 0; do
	echo $mode >$P
	check "napi=$mode: parameter reads back" "$( [ $mode = 1 ] && echo Y || echo N)" "$(cat $P)"
	# No program, then xdp_pass: every size arrives once, in order, at a
	# packet socket and at a UDP socket; the NAPI id says which path.
	for prog in none pass; do
		[ $prog = pass ] && xdp_attach xn0 xdp_pass
		for size in 60 1500 9000 65535; do
			snap xn0
			tool tapx-dev run --quiet --src $X:xn0 --size $size --count $N --dst packet:xn0 --expect $N
			tool tapx-napi udp $X xn0 $size $N --napi-id $mode
			if [ $prog = pass ]; then
				expect xn0 rx_packets=$((2 * N)) xdp_pass=$((2 * N)) rx_dropped=0
			else
				expect xn0 rx_packets=$((2 * N)) xdp_pass=0 rx_dropped=0
			fi
		done
		[ $prog = pass ] && xdp_detach xn0
	done
	# Frames above a page held by the socket until the last is written:
	# their pages are carved again only once freed, so each stays intact.
	for size in 9000 65535; do
		snap xn0
		tool tapx-napi udp $X xn0 $size 64 --napi-id $mode --hold 1
		expect xn0 rx_packets=64 rx_dropped=0
	done
	# vnet GSO frames (6 segments each, checksum left to the receiver)
	# reach a TCP socket; the packet socket sees their GSO metadata.
	tool tapx-napi tcp $X xn0 300 --gso 6
	xdp_attach xn0 xdp_pass
	tool tapx-napi tcp $X xn0 300 --gso 6
	xdp_detach xn0
done

# GRO: MSS-sized segments of one TCP stream, one write each. A poll per
# write flushes GRO at its end, so merging across writes needs the
# device's gro_flush_timeout (the batch path merges within a batch).
echo 20000000 >$GFT
echo 1 >$P
tool tapx-napi tcp $X xn0 400 --merged 1
echo 0 >$P
tool tapx-napi tcp $X xn0 400 --merged 0
echo 0 >$GFT

# Teardown with frames still held: GRO keeps the last segments for 2 s, the
# fd closes (or the device goes) at once. Nothing may leak; the debug
# kernel's kmemleak checks the same run.
echo 1 >$P
echo 2000000000 >$GFT
tool tapx-napi hold $X xn0 4 --seen-below 4
skb_before=$(slab_skb)
i=0
while [ $i -lt 300 ]; do
	tapx-napi hold $X xn0 4 || break
	i=$((i + 1))
done
check "hold: 300 writers closed with GRO holding their frames" 300 $i
# Threaded NAPI: the poll runs in a kthread; detach waits for it.
tapx-dev hold $X xn0 3 >/dev/null &
hpid=$!
sleep 1
runs "threaded NAPI on xn0" sh -c "echo 1 >/sys/class/net/xn0/threaded"
wait $hpid
i=0
while [ $i -lt 100 ]; do
	tapx-napi hold $X xn0 8 || break
	i=$((i + 1))
done
check "hold: 100 writers closed under threaded NAPI" 100 $i
# The flag can only change while a NAPI instance exists.
tapx-dev hold $X xn0 3 >/dev/null &
hpid=$!
sleep 1
runs "threaded NAPI off on xn0" sh -c "echo 0 >/sys/class/net/xn0/threaded"
wait $hpid
# Device deletion while a writer's frames are held.
runs "napi: create tapx xd0" tapx-dev mk $X xd0 65521
ip addr add 10.9.1.1/24 dev xd0
runs "napi: neighbour 10.9.1.2 on xd0" /bin/ip neigh replace 10.9.1.2 lladdr 02:00:00:00:00:02 dev xd0 nud permanent
echo 2000000000 >/sys/class/net/xd0/gro_flush_timeout
tapx-napi hold $X xd0 4 --linger 2 &
hpid=$!
sleep 1
runs "napi: delete xd0 with frames held" ip link del xd0
wait $hpid
check "napi: writer of deleted xd0 exits cleanly" 0 $?
sleep 1
skb_after=$(slab_skb)
runs "napi: skbuff_head_cache $skb_before -> $skb_after objects (within 200)" \
	test $((skb_after - skb_before)) -lt 200
echo 0 >$GFT

# Measurement (vmnapibench=COUNT [vmnapireps=N] on the kernel command line; no assertions
# on time): ns per blocking write of a UDP frame to a local port without a
# socket, no program; tun.ko (ta) plain and with IFF_NAPI, tapx napi=0/1.
NB= NR=7
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vmnapibench=*) NB=${arg#vmnapibench=} ;;
	vmnapireps=*) NR=${arg#vmnapireps=} ;;
	esac
done
if [ -n "$NB" ]; then
	ip addr add 10.9.2.1/24 dev ta
	/bin/ip neigh replace 10.9.2.2 lladdr 02:00:00:00:00:02 dev ta nud permanent
	best() { tr ' ' '\n' | grep . | sort -n | head -n 1; }
	# One run: its ns per frame. It runs in a command substitution, whose
	# checks would not count: a run with failed writes is noted in
	# /tmp/napibench.bad, a failed check after each size.
	cell() {
		set -- $("$@")
		[ "${2:-1}" = 0 ] || echo "failed writes ($*)" >>/tmp/napibench.bad
		echo "${1:-0}"
	}
	snap xn0
	echo "--- napi bench: ns per frame, PASS without program, $NB blocking writes, min of $NR interleaved runs"
	printf '%-6s %8s %8s %8s %8s %8s\n' size floor tun tun-napi tapx-0 tapx-1
	for size in 64 1500; do
		fl= t0= t1= x0= x1= r=0
		while [ $r -lt $NR ]; do
			fl="$fl $(cell tapx-bench floor - $size block $NB)"
			t0="$t0 $(cell tapx-napi bench $T ta $size $NB)"
			t1="$t1 $(cell tapx-napi bench $T ta $size $NB --tun-napi)"
			echo 0 >$P
			x0="$x0 $(cell tapx-napi bench $X xn0 $size $NB)"
			echo 1 >$P
			x1="$x1 $(cell tapx-napi bench $X xn0 $size $NB)"
			r=$((r + 1))
		done
		echo "    $size B runs: floor$fl / tun$t0 / tun-napi$t1 / tapx-0$x0 / tapx-1$x1"
		if [ -s /tmp/napibench.bad ]; then
			bad "napi bench $size B: $(cat /tmp/napibench.bad)"
			rm -f /tmp/napibench.bad
		fi
		printf '%-6s %8s %8s %8s %8s %8s\n' $size $(echo $fl | best) $(echo $t0 | best) \
			$(echo $t1 | best) $(echo $x0 | best) $(echo $x1 | best)
	done
	# Frames tapx dropped (napi=1: its queue full while softirqs waited
	# for ksoftirqd); reported, not asserted.
	echo "    xn0 during the bench: rx_packets +$(delta xn0 rx_packets), rx_dropped +$(delta xn0 rx_dropped)"
	ip addr flush dev ta
fi

echo "$napi_was" >$P
runs "napi: delete xn0" ip link del xn0
