# The ABI fuzzer (tapx-fuzz) for vmfuzz= seconds; vmfuzzseed= replays a
# seed. Default: 60 s on the debug kernel (KASAN, lockdep, kmemleak: what
# the fuzzer is for), 15 s on a stock kernel (which adds io_uring and the
# hung-task detector the debug kernel does not have, at little cost to
# the suite's time). Any kernel report, hang or crash fails it with the
# seed and every worker's last calls (printed by tapx-fuzz). Then the
# dmesg must be clean, tapx must unload, kmemleak (debug kernel) must
# find nothing new, and tapx is loaded again with xa and xb.
. /tests/lib.sh
fuzz_secs=${vmfuzz:-}
# rmmod + insmod every 15 s (6 s in runs under a minute); every 45 s on the
# debug kernel, where deleting the devices takes tens of seconds.
epoch=15
if kasan_kernel; then
	epoch=45
	[ -n "$fuzz_secs" ] || fuzz_secs=60
fi
[ -n "$fuzz_secs" ] || fuzz_secs=15
# A short run reloads tapx too.
[ $epoch = 15 ] && [ "${fuzz_secs%.*}" -lt 60 ] && epoch=6
# From 6.9 on, generic XDP mishandles a tail cut of the fragments it
# copied into page_pool pages, on stock tun.ko as on tapx
# (suite-pagepool.sh): no multi-buffer program in generic mode there.
fuzz_opts=
rel=$(uname -r)
maj=${rel%%.*} min=${rel#*.}
min=${min%%[!0-9]*}
if [ "$maj" -gt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -ge 9 ]; }; then
	fuzz_opts=--no-generic-frags
	echo "    fuzz: $rel: generic XDP attaches take the single-buffer program"
fi
KL=/sys/kernel/debug/kmemleak
[ -e $KL ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
kl_count() {
	_n=$(grep -c '^unreferenced object' $KL 2>/dev/null)
	echo "${_n:-0}"
}
if [ -e $KL ]; then
	echo scan >$KL
	kl_before=$(kl_count)
fi
HT=/proc/sys/kernel/hung_task_timeout_secs
if [ -e $HT ]; then
	ht_was=$(cat $HT)
	# Tasks blocked this long get a report (and fail the run).
	echo 30 >$HT
	echo "    fuzz: hung-task detector at 30 s"
else
	echo "    fuzz: no hung-task detector in this kernel: the fuzzer's watchdog only (a call over 120 s)"
fi

rm -rf /sys/fs/bpf/xf /sys/fs/bpf/xfm
runs "fuzz: bpftool loads xdp_fuzz" bpftool prog loadall /bpf/xdp_fuzz.bpf.o /sys/fs/bpf/xf pinmaps /sys/fs/bpf/xfm
dmesg_at=$(dmesg | wc -l)
# shellcheck disable=SC2086 # fuzz_opts: zero or one word
tool tapx-fuzz --time "$fuzz_secs" --epoch $epoch $fuzz_opts
fuzz_rc=$?
seed=$(sed -n 's/^fuzz: seed \([0-9]*\),.*/\1/p' /tmp/tool.out | head -n 1)
check "fuzz: tapx-fuzz exit status (seed $seed, ${fuzz_secs} s)" 0 $fuzz_rc
[ -n "${ht_was:-}" ] && echo "$ht_was" >$HT

bad=$(kernel_problems_since "$dmesg_at")
if [ -z "$bad" ]; then
	good "fuzz: dmesg clean after the run"
else
	bad "fuzz: kernel problems in dmesg after the run (seed $seed):"
	echo "$bad" | head -n 40 | sed 's/^/    /'
fi

# The workers' last closes may still be deleting devices (seconds each on
# the debug kernel): up to a minute.
i=0
while ! rmmod tapx 2>/dev/null && [ $i -lt 30 ]; do
	sleep 2
	i=$((i + 1))
done
runs "fuzz: tapx unloads after the run" sh -c '! grep -q "^tapx " /proc/modules'
if [ -e $KL ]; then
	# Objects younger than kmemleak's minimum age (5 s) are not reported.
	sleep 6
	echo scan >$KL
	kl_after=$(kl_count)
	if [ "$kl_after" -le "$kl_before" ]; then
		good "fuzz: kmemleak finds nothing new ($kl_before -> $kl_after)"
	else
		bad "fuzz: kmemleak: $kl_before -> $kl_after unreferenced objects (seed $seed)"
		head -n 60 $KL | sed 's/^/    /'
	fi
fi

runs "fuzz: insmod tapx.ko again" insmod /modules/tapx.ko
runs "fuzz: recreate xa" tapx-dev mk $X xa 65521
runs "fuzz: recreate xb" tapx-dev mk $X xb 65521
set_port xb
