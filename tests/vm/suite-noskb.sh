# DROP, TX and REDIRECT allocate no skb: kprobes on every skb constructor
# count the calls made by the writing process (comm tapxt). PASS is the
# control: it must allocate at least one skb per frame.
TR=/sys/kernel/tracing
[ -d $TR/events ] || TR=/sys/kernel/debug/tracing
N=500
probes=0
for fn in __alloc_skb __build_skb build_skb build_skb_around napi_build_skb \
	__napi_build_skb __napi_alloc_skb __netdev_alloc_skb skb_clone \
	__pskb_copy_fclone skb_copy; do
	grep -q " $fn\$" /proc/kallsyms || continue
	echo "p:skb_$fn $fn" >>$TR/kprobe_events 2>/dev/null && probes=$((probes + 1))
done
ok "kprobes on skb constructors ($probes)" test $probes -ge 5
echo 1 >$TR/events/kprobes/enable
echo 16384 >$TR/buffer_size_kb

# skb constructor calls by tapxt between its begin/end markers (the write
# loop only; attach and close are outside).
skb_calls() {
	awk '/tapxt-begin/ { on = 1 } /tapxt-end/ { on = 0 }
	     on && / tapxt-[0-9]+ / && /skb_/ { n++ } END { print n + 0 }' $TR/trace
}
marks() { grep -c 'tapxt-begin\|tapxt-end' $TR/trace; }
set_port xb
for act in drop tx redirect pass; do
	xdp_attach xa xdp_$act
	for mode in block nonblock; do
		for size in 60 9000; do
			case $act in
			drop) dst="--self 0" ;;
			tx) dst="--self $N" ;;
			redirect) dst="--dst tap:$X:xb --expect $N" ;;
			pass) dst="" ;;
			esac
			echo >$TR/trace
			TAPXT_MARK=1 tapxt run --quiet --src $X:xa --mode $mode --size $size --count $N $dst
			c=$(skb_calls)
			eq "noskb: trace markers for $act $mode $size" "$(marks)" 2
			if [ $act = pass ]; then
				ok "noskb: control, PASS $mode $size allocated $c skbs (>= $N)" test "$c" -ge $N
			else
				eq "noskb: skbs allocated by $N x $act $mode $size" "$c" 0
			fi
		done
	done
done
xdp_detach xa
echo 0 >$TR/events/kprobes/enable
echo >$TR/kprobe_events
echo 1408 >$TR/buffer_size_kb
