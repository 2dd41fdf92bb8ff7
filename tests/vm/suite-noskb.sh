# DROP, TX and REDIRECT allocate no skb: kprobes on every skb constructor
# count the calls made by the writing process (comm tapx-dev). PASS is the
# control: it must allocate at least one skb per frame.
N=500
probes=$(skb_probes_on)
runs "kprobes on skb constructors ($probes)" test $probes -ge 5
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
			tool env TAPX_DEV_MARK=1 tapx-dev run --quiet --src $X:xa --mode $mode --size $size --count $N $dst
			c=$(skb_calls tapx-dev)
			check "noskb: trace markers for $act $mode $size" 2 "$(marks tapx-dev)"
			if [ $act = pass ]; then
				runs "noskb: control, PASS $mode $size allocated $c skbs (>= $N)" test "$c" -ge $N
			else
				check "noskb: skbs allocated by $N x $act $mode $size" 0 "$c"
			fi
		done
	done
done
xdp_detach xa
skb_probes_off
