# Random concurrent operations against tapx for vmstress= seconds (default
# 60; vmseed= replays the operation choices): tapx-stress checks every
# outcome and the exact counters of the devices that lived through the run.
# Then the guest's dmesg must be clean, tapx must unload and memory come
# back; tapx is loaded again with xa and xb for the suites after this one.
sunreclaim_kb() {
	slab_shrink
	awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo
}
skb_objs() { awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo; }

dmesg_at=$(dmesg | wc -l)
mem_before=$(free_kb)
cp /proc/meminfo /tmp/meminfo.before
slab_before=$(sunreclaim_kb)
skb_before=$(skb_objs)
tool tapx-stress
check "stress: tapx-stress exit status" 0 $?
# A bug found by reading the write path, checked on its own.
tool tapx-stress --probe-vnet

# The runner fails the boot on these too; here they are tied to this suite.
bad=$(kernel_problems_since "$dmesg_at")
if [ -z "$bad" ]; then
	good "stress: dmesg clean after the run"
else
	bad "stress: kernel problems in dmesg after the run:"
	echo "$bad" | head -n 40 | sed 's/^/    /'
fi
dmesg | tail -n +$((dmesg_at + 1)) | grep -v 'IFF_TUN is not supported' | tail -n 20 | sed 's/^/    dmesg: /'

runs "stress: rmmod tapx after the run" rmmod tapx
sleep 1
grep -h FRAG /proc/net/sockstat /proc/net/sockstat6 | sed 's/^/    after rmmod: /'
mem_after=$(free_kb)
# Deleted devices and their buffers go after RCU grace periods, which a
# busy host stretches: up to 20 s more before memory counts as lost.
tries=0
while [ $((mem_before - mem_after)) -ge 8192 ] && [ $tries -lt 4 ]; do
	sleep 5
	mem_after=$(free_kb)
	tries=$((tries + 1))
done
slab_after=$(sunreclaim_kb)
skb_after=$(skb_objs)
mem_check="stress: free memory (MemFree + per-CPU lists) $mem_before -> $mem_after kB $((1 + 5 * tries)) s after rmmod (within 8 MB)"
if [ $((mem_before - mem_after)) -lt 8192 ]; then
	good "$mem_check"
else
	bad "$mem_check"
	awk 'NR == FNR { b[$1] = $2; next }
		$2 != b[$1] { printf "    meminfo %s %d -> %d kB\n", $1, b[$1], $2 }' \
		/tmp/meminfo.before /proc/meminfo
	grep -h FRAG /proc/net/sockstat /proc/net/sockstat6 | sed 's/^/    now: /'
	echo "    skbuff_head_cache now $(skb_objs) objects"
	# Lost, or only held longer: say which (still a failure).
	waited=0
	while [ $((mem_before - $(free_kb))) -ge 8192 ] && [ $waited -lt 90 ]; do
		sleep 10
		waited=$((waited + 10))
	done
	echo "    $waited s later: $(free_kb) kB free"
fi
runs "stress: SUnreclaim $slab_before -> $slab_after kB (within 2 MB)" \
	test $((slab_after - slab_before)) -lt 2048
runs "stress: skbuff_head_cache $skb_before -> $skb_after objects (within 256)" \
	test $((skb_after - skb_before)) -lt 256

# What suite-load made, for the suites that follow.
runs "stress: insmod tapx.ko again" insmod /modules/tapx.ko
runs "stress: recreate xa" tapx-dev mk $X xa 65521
runs "stress: recreate xb" tapx-dev mk $X xb 65521
set_port xb
