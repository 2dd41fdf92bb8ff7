# Multi-queue tapx: the IFF_MULTI_QUEUE/TUNSETQUEUE ABI, XDP and counters
# per queue, redirect and stack traffic spread over queues, and every
# attach/detach/reattach/close/delete ordering under background traffic,
# with memory and skbs back afterwards. Then rmmod with only a persistent
# multi-queue device left (xa and xb are recreated for the later suites).
tool tapx-mq abi $X

runs "mq: create mqv" tapx-mq mk $X mqv
xdp_attach mqv xdp_drop
tool tapx-mq verdict $X mqv 4 200 drop
xdp_attach mqv xdp_tx
tool tapx-mq verdict $X mqv 4 200 tx
xdp_detach mqv

# Two writers on two CPUs, each on its own queue of mqsrc, redirect to mqv.
runs "mq: create mqsrc" tapx-mq mk $X mqsrc
set_port mqv
xdp_attach mqsrc xdp_redirect
snap mqv
tool tapx-mq redirect $X mqsrc mqv 2 500
expect mqv xdp_xmit=1000 tx_packets=1000 xdp_xmit_errors=0
tool tapx-mq stack $X mqv 4 256
ip link del mqsrc
ip link del mqv

# No qdisc by default (tapx never stops a queue, so one would only add a
# lock); one added with tc sees every frame the stack sends, and deleting
# it leaves none again.
# (/bin/tc: the shell prefers busybox's applet of that name.)
sent_of() { /bin/tc -s qdisc show dev "$1" | awk '$1 == "Sent" { print $4; exit }'; }
runs "mq: create mqq" tapx-mq mk $X mqq
check "mq: mqq's default qdisc" noqueue "$(qdisc_of mqq)"
check "mq: xa's default qdisc" noqueue "$(qdisc_of xa)"
runs "mq: tc adds pfifo to mqq" /bin/tc qdisc add dev mqq root pfifo limit 1000
tool tapx-mq stack $X mqq 4 256
check "mq: frames through mqq's pfifo" 256 "$(sent_of mqq)"
runs "mq: tc deletes mqq's pfifo" /bin/tc qdisc del dev mqq root
check "mq: mqq's qdisc after tc del" noqueue "$(qdisc_of mqq)"
ip link del mqq

# Memory, slab and per-CPU use, and live skbs, before and after.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
mem_snap() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	slab_shrink
	sleep 1
	echo "$(free_kb) $(meminfo Slab) $(meminfo Percpu)" \
		"$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo)"
}
read -r free0 slab0 pcpu0 skb0 <<EOM
$(mem_snap)
EOM

# Orderings under traffic: a writer on its own queue of mqo, redirects
# into mqo from xa (ndo_xdp_xmit) and stack frames (ndo_start_xmit). The
# writer ends when mqo is deleted, the others when killed: their time
# limits only stop a broken run (a limit a slow run could reach would end
# the writer before the deletion and fail the check below). On a KASAN
# kernel (make vmtest-debug) under these floods a round takes from about a
# second to a minute, so 4 rounds there; each round has every ordering.
MQ_ROUNDS=20
FLOOD_LIMIT=3000
kasan_kernel && MQ_ROUNDS=4
runs "mq: create mqo" tapx-mq mk $X mqo
xdp_attach mqo xdp_tx
set_port mqo
xdp_attach xa xdp_redirect
tapx-mq flood $X mqo $FLOOD_LIMIT >/tmp/mqflood.out 2>&1 &
fpid=$!
tapx-dev flood $X:xa $FLOOD_LIMIT 100 >/dev/null 2>&1 &
xpid=$!
tapx-mq pflood mqo $FLOOD_LIMIT >/dev/null 2>&1 &
ppid=$!
sleep 1
t0=$(date +%s)
tool tapx-mq orderings $X mqo $MQ_ROUNDS
echo "INFO mq: $MQ_ROUNDS rounds of orderings and the deletion under traffic in $(($(date +%s) - t0)) s"
wait $fpid
rc=$?
read -r written bad gone </tmp/mqflood.out
check "mq: background writer exit status" 0 $rc
check "mq: background writer ended by the deletion" 1 "$gone"
runs "mq: background writer wrote frames ($written)" test "${written:-0}" -gt 0

# Persistent device, all queues closed, then reattached; under traffic.
runs "mq: create mqp" tapx-mq mk $X mqp
xdp_attach mqp xdp_tx
set_port mqp
kill $ppid
wait $ppid
tapx-mq pflood mqp $FLOOD_LIMIT >/dev/null 2>&1 &
ppid=$!
tool tapx-mq persist $X mqp
kill $ppid $xpid
wait $ppid $xpid
xdp_detach xa
ip link del mqp

# Measurement (no assertion on speed): 1 writer on 1 queue vs 2 writers on
# 2 queues pinned to the 2 vCPUs, xdp_drop.
runs "mq: create mqb" tapx-mq mk $X mqb
xdp_attach mqb xdp_drop
tool tapx-mq bench $X mqb 2 3
ip link del mqb

read -r free1 slab1 pcpu1 skb1 <<EOM
$(mem_snap)
EOM
runs "mq: free memory (MemFree + per-CPU lists) $free0 -> $free1 kB (within 8 MB)" test $((free0 - free1)) -lt 8192
runs "mq: Slab $slab0 -> $slab1 kB (within 2 MB)" test $((slab1 - slab0)) -lt 2048
runs "mq: Percpu $pcpu0 -> $pcpu1 kB (within 256 kB)" test $((pcpu1 - pcpu0)) -lt 256
runs "mq: skbuff_head_cache $skb0 -> $skb1 objects (within 256)" test $((skb1 - skb0)) -lt 256

# rmmod after every queue closed, with a persistent multi-queue device and
# its program left; then the module and xa, xb as suite-load made them.
runs "mq: create mqr" tapx-mq mk $X mqr
xdp_attach mqr xdp_drop
runs "mq: rmmod tapx with mqr left" rmmod tapx
runs "mq: mqr gone with the module" test ! -e /sys/class/net/mqr
runs "mq: insmod tapx again" insmod /modules/tapx.ko
runs "mq: recreate xa" tapx-dev mk $X xa 65521
runs "mq: recreate xb" tapx-dev mk $X xb 65521
