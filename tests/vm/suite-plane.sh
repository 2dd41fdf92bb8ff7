# The policy plane (one pinned program, a BPF link and map entries per
# bound tap) on tapx taps made through /dev/net/tapx, as tests/host and
# tests/security check it on stock tun: many taps bound and unbound in one
# call, exact counters on a sample of them, two taps of one ifindex in two
# namespaces, a policy replaced under traffic with no frame judged by a
# mix, taps sharing a policy kept apart (counters, rate bucket, guard), an
# unprivileged user refused, and nothing left in bpftool's lists after.
# Frames are written by tapio, the host suite's writer built for the guest
# with its taps opened through /dev/net/tapx (tests/vm/tapio.c): it reports
# what it read back from the tap (tx), from the peer (redirect) and saw
# enter the stack (pass).
#
# Sizes, for TCG on a shared 2-core machine (the whole suite must add about
# a minute per kernel to the VM run). PL_TAPS taps are bound in one call,
# and the policy they share replaced under traffic: 1000 as on the host
# where that fits. Measured under TCG, per tap: on 6.12, binding 4 ms and
# replacing their policy 0.5 ms (1000 taps: about 5 s); on 6.1, with both
# emulator threads as run.sh gives it, binding 47-58 ms and replacing 25-30
# ms (1000 taps: 47 s to bind and 18 s to replace, more than the whole
# budget), so 300 there. vmplanetaps=N on the kernel command line sets it;
# vmplaneswap=N the frames of each writer's rounds under the replace. A
# KASAN kernel (make vmtest-debug) is several times slower again: 100.
case $(uname -r) in
6.1.* | 6.1-*) PL_TAPS=${vmplanetaps:-300} ;;
*) PL_TAPS=${vmplanetaps:-1000} ;;
esac
kasan_kernel && PL_TAPS=${vmplanetaps:-100}
PL_SWAP=${vmplaneswap:-2000}
PL=/tmp/plane
ROOT=/sys/fs/bpf/tap-accel
TA_BIN=/bin/tap-accel
export TAPIO_NODE=$X
mkdir -p $PL
chmod 755 $PL

if [ ! -x $TA_BIN ]; then
	bad "plane: build/user/tap-accel missing (make user)"
else
	. /tests/ns.sh
	# busybox's sh runs its own applets before what PATH holds: ip (and
	# ns.sh's) is iproute2's for netns and -n, setpriv util-linux's for
	# --reuid, both named by path (ip() is unset again at the end).
	ip() { /bin/ip "$@"; }
	# pl_num X: X if a number, else 0 (no arithmetic error ends the run).
	pl_num() { case $1 in '' | *[!0-9]*) echo 0 ;; *) echo "$1" ;; esac; }
	# pl_names PREFIX N: PREFIX1 ... PREFIXN (busybox's seq has no -f).
	pl_names() { awk -v p="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "%s%d ", p, i }'; }

	# pl_t: seconds since boot, to the hundredth (the sizes above).
	pl_t() { cut -d' ' -f1 /proc/uptime; }
	pl_took() { echo "plane: $1 took $(echo "$(pl_t) $2" | awk '{ printf "%.1f", $1 - $2 }') s"; }
	send() {
		_want=$1
		shift
		check "plane: tapio $*" "$_want" "$(in_ns tapio "$@")"
	}
	# The counters of 'stats IFACE --json' (tests/host/run.sh's readers).
	stats_json() { ta stats "$1" --json >$PL/stats.json 2>&1 || cat $PL/stats.json; }
	packets_of() { grep -o "$1" | head -n 1 | grep -o '[0-9]*$'; }
	verdict() { sed 's/"rules":.*//' $PL/stats.json | packets_of "\"$1\":{\"packets\":[0-9]*"; }
	counter() { packets_of "\"$1\":{\"packets\":[0-9]*" <$PL/stats.json; }
	rule() {
		sed 's/"previous_rules".*//' $PL/stats.json |
			packets_of "\"rule\":$1,\"action\":\"[^\"]*\",\"packets\":[0-9]*"
	}
	prev_rule() {
		sed 's/.*"previous_rules"//' $PL/stats.json |
			packets_of "\"rule\":$1,\"action\":\"[^\"]*\",\"packets\":[0-9]*"
	}
	verdicts() { echo "$(verdict drop) $(verdict tx) $(verdict redirect) $(verdict pass) $(verdict aborted)"; }
	links() { ls $ROOT/links 2>/dev/null | wc -l; }
	# pl_entries MAP: the entries of the plane's map MAP (bpftool's dump).
	pl_entries() { bpftool -j map dump pinned $ROOT/$1 | grep -o '"key":\[' | wc -l; }
	# same_list DESC WANT GOT: two of bpftool's lists alike, or their diff.
	same_list() {
		if [ "$2" = "$3" ]; then
			good
		else
			bad "$1 (- want, + got):"
			echo "$2" >$PL/want
			echo "$3" >$PL/got
			diff $PL/want $PL/got | grep '^[-+][a-z]' | sed 's/^/    /'
		fi
	}

	# What an earlier suite (cli) left of the plane goes first: the lists
	# start from nothing of tap-accel, and must end there.
	pl_start=$(pl_t)
	$TA_BIN clean --all >/dev/null 2>&1
	initial=$(tap_accel_objects)
	check "plane: bpftool lists nothing of tap-accel to start with" "" "$initial"

	# ---- many taps, bound and unbound in one call -----------------------------
	echo "# plane: $PL_TAPS tapx taps bound in one call"
	NS=plm
	ns_add $NS || bad "plane: cannot create netns $NS"
	t0=$(pl_t)
	runs "plane: $PL_TAPS tapx taps made through $X" in_ns tapio --mk $X m $PL_TAPS
	pl_took "making $PL_TAPS taps" $t0
	check "plane: m1 is a tapx device" tapx "$(in_ns ethtool -i m1 | awk '/^driver:/ { print $2 }')"
	printf 'rule drop proto udp dport 7\n' >$PL/swap-a.policy
	printf 'rule tx proto udp dport 7\n' >$PL/swap-b.policy
	expect_exit 0 "loaded .* as policy swap: 1 rules" ta policy load swap $PL/swap-a.policy
	# Replaced first, with no tap bound: the first replace waits out the
	# frames in flight with a map it makes and the plane keeps
	# (ta_sync_inner, user/lib/plane/plane.c), so that from here on what binding
	# adds to bpftool's lists is only the taps'.
	expect_exit 0 "replaced for 0 taps" ta policy load swap $PL/swap-b.policy
	expect_exit 0 "replaced for 0 taps" ta policy load swap $PL/swap-a.policy
	before=$(tap_accel_objects)
	links_before=$(links)
	info_before=$(pl_entries ta_tap_info)
	t0=$(pl_t)
	# shellcheck disable=SC2046
	expect_exit 0 "attached tap-accel to m$PL_TAPS \(native mode\), policy swap" \
		ta attach $(pl_names m $PL_TAPS) --policy swap
	pl_took "binding $PL_TAPS taps in one call" $t0
	t0=$(pl_t)
	check "plane: $PL_TAPS taps attached" "$PL_TAPS" "$(ta status | grep -c ' attached$')"
	pl_took "status of $PL_TAPS taps" $t0
	check "plane: a link pin per tap" "$((links_before + PL_TAPS))" "$(links)"
	check "plane: a ta_tap_info entry per tap" "$((info_before + PL_TAPS))" "$(pl_entries ta_tap_info)"
	# bpftool's lists: the taps' links added, nothing else.
	bound=$(tap_accel_objects)
	# and no program; maps only of the counters' chunks (ta_counters, made
	# as taps need them, TA_COUNTER_CHUNK counters each: bpf/tap_accel.h)
	echo "$before" >$PL/before
	echo "$bound" | grep -v '^link ' >$PL/bound
	extra=$(awk 'NR == FNR { b[$0] = 1; next } !($0 in b)' $PL/before $PL/bound)
	check "plane: bpftool lists the maps and program of before" "" \
		"$(awk 'NR == FNR { b[$0] = 1; next } !($0 in b)' $PL/bound $PL/before)"
	check "plane: no map more but counter chunks" "" "$(echo "$extra" | while read -r k id; do
		[ -n "$id" ] && bpftool $k show id $id | head -n 1 | grep -v ' name ta_counters '; done)"
	echo "plane: binding $PL_TAPS taps made $(echo "$extra" | grep -c '^map ') counter chunks"
	check "plane: bpftool lists a link more per tap" "$PL_TAPS" \
		"$(($(echo "$bound" | grep -c '^link ') - $(echo "$before" | grep -c '^link ')))"
	# the policy program, and the two of frames to guests (tcx, devmap)
	check "plane: one program for all, and its two of the way in" "3" \
		"$(bpftool -j prog show | tr '}' '\n' | grep -c '"name":"tap_accel')"
	prog=$(bpftool -j prog show pinned $ROOT/prog | grep -o '"id":[0-9]*' | head -n 1 | cut -d: -f2)
	check "plane: m$PL_TAPS runs the plane's program (native, tapx's driver)" "$prog" \
		"$(ip -n $NS -d link show m$PL_TAPS | grep -o 'prog/xdp id [0-9]*' | grep -o '[0-9]*$')"

	echo "# plane: swap replaced under traffic on $PL_TAPS taps"
	# Three writers on three taps, the old version dropping what the new
	# one sends back (tx): every frame is counted once, by one version's
	# rule and its verdict, and what was sent back is exactly what the new
	# version counted. A mix would show as a verdict of the default
	# (pass), or counts that do not add up. Each writer runs tapio in
	# rounds of PL_SWAP frames until the new version has judged some of its
	# frames: replacing a policy on many taps takes seconds under TCG
	# (counters are prepared for each tap), and the traffic must span it.
	rm -f $PL/stop
	pids=
	for w in 4 5 6; do
		(
			while [ ! -e $PL/stop ]; do
				in_ns tapio m$w --count $PL_SWAP --dport 7 || echo "tapio failed"
			done
		) >$PL/swap$w.out 2>&1 &
		pids="$pids $!"
	done
	tries=0
	while stats_json m4 && [ "$(verdict drop)" = 0 ] && [ $tries -lt 100 ]; do
		sleep 0.05
		tries=$((tries + 1))
	done
	t0=$(pl_t)
	expect_exit 0 "as policy swap: 1 rules, .*replaced for $PL_TAPS taps" ta policy load swap $PL/swap-b.policy
	pl_took "replacing the policy of $PL_TAPS taps" $t0
	for w in 4 5 6; do
		tries=0
		while stats_json m$w && [ "$(rule 0)" = 0 ] && [ $tries -lt 100 ]; do
			sleep 0.05
			tries=$((tries + 1))
		done
	done
	touch $PL/stop
	# shellcheck disable=SC2086
	wait $pids
	pl_took "the writers, from the first drop" $t0
	for w in 4 5 6; do
		check "plane: swap m$w: every round of tapio reported" "0" \
			"$(grep -vc '^sent [0-9]* tx [0-9]* redirect 0 pass [0-9]*$' $PL/swap$w.out)"
		sent=$(awk '{ n += $2 } END { print n + 0 }' $PL/swap$w.out)
		txed=$(awk '{ n += $4 } END { print n + 0 }' $PL/swap$w.out)
		passed=$(awk '{ n += $8 } END { print n + 0 }' $PL/swap$w.out)
		stats_json m$w
		drops=$(prev_rule 0)
		txs=$(rule 0)
		check "plane: swap m$w: every frame counted once" "$sent" "$((${drops:-0} + ${txs:-0}))"
		check "plane: swap m$w: verdict drop = old version's" "$drops" "$(verdict drop)"
		check "plane: swap m$w: verdict tx = new version's" "$txs" "$(verdict tx)"
		check "plane: swap m$w: tx read back = tx counted" "$txs" "$txed"
		check "plane: swap m$w: no frame fell to the default" "0 0" "$passed $(verdict pass)"
		[ "${drops:-0}" -gt 0 ] && [ "${txs:-0}" -gt 0 ] && good ||
			bad "plane: swap m$w did not happen under traffic (old $drops, new $txs)"
		eval "swap_sent$w=\$sent"
	done

	echo "# plane: a sample of the $PL_TAPS taps, each its own counters"
	mid=$((PL_TAPS / 2))
	# A count of its own for each (41, 42, 43), so that no tap's counters
	# can be another's.
	n=40
	for t in 1 $mid $PL_TAPS; do
		n=$((n + 1))
		send "sent $n tx $n redirect 0 pass 0" m$t --count $n --dport 7
		send "sent 3 tx 0 redirect 0 pass 3" m$t --count 3 --dport 8
	done
	n=40
	for t in 1 $mid $PL_TAPS; do
		n=$((n + 1))
		stats_json m$t
		check "plane: m$t: its own rule 0" "$n" "$(rule 0)"
		check "plane: m$t: its own default" "3" "$(rule '"default"')"
		check "plane: m$t: its own verdicts (drop tx redirect pass aborted)" "0 $n 0 3 0" "$(verdicts)"
	done
	stats_json m2
	check "plane: m2 saw none of it" "0 0 0 0 0" "$(verdicts)"
	stats_json m4
	d=$(verdict drop) x=$(verdict tx)
	check "plane: m4 has only its swap frames" "$swap_sent4" "$((${d:-0} + ${x:-0}))"

	t0=$(pl_t)
	# shellcheck disable=SC2046
	expect_exit 0 "detached tap-accel from m$PL_TAPS" ta detach $(pl_names m $PL_TAPS)
	pl_took "unbinding $PL_TAPS taps in one call" $t0
	check "plane: no tap listed" "0" "$(ta status | grep -c ' attached$')"
	check "plane: their link pins gone" "$links_before" "$(links)"
	check "plane: their ta_tap_info entries gone" "$info_before" "$(pl_entries ta_tap_info)"
	same_list "plane: nothing of the $PL_TAPS taps left (bpftool's lists)" "$before" "$(tap_accel_objects)"
	check "plane: no XDP program left on m$PL_TAPS" "" \
		"$(ip -n $NS -d link show m$PL_TAPS | grep -o 'prog/xdp')"
	send "sent 5 tx 0 redirect 0 pass 5" m1 --count 5 --dport 7
	t0=$(pl_t)
	ns_del $NS
	pl_took "deleting the namespace of $PL_TAPS taps" $t0

	# ---- two taps of one ifindex, in two namespaces ---------------------------
	pl_took "so far, the plane suite" $pl_start
	echo "# plane: two tapx taps of one ifindex, in plx and ply"
	for n in plx ply; do
		ns_add $n || bad "plane: cannot create netns $n"
		NS=$n
		runs "plane: tapx w in $n" in_ns tapio --mk $X w 1
	done
	ifx=$(ip -n plx -o link show w1 | cut -d: -f1)
	ify=$(ip -n ply -o link show w1 | cut -d: -f1)
	check "plane: the same ifindex in both namespaces" "$ifx" "$ify"
	printf 'rule drop proto udp dport 9\ndefault pass\n' >$PL/nsx.policy
	printf 'rule tx proto udp dport 9\ndefault drop\n' >$PL/nsy.policy
	NS=plx
	expect_exit 0 "^attached tap-accel to w1 \(native mode\), policy nsx, guard -$" ta attach w1 --policy $PL/nsx.policy
	NS=ply
	expect_exit 0 "^attached tap-accel to w1 \(native mode\), policy nsy, guard -$" ta attach w1 --policy $PL/nsy.policy
	check "plane: two link pins of ifindex $ifx, one per namespace" "2" "$(ls $ROOT/links | grep -c ":$ifx\$")"
	NS=plx
	send "sent 30 tx 0 redirect 0 pass 0" w1 --count 30 --dport 9
	send "sent 20 tx 0 redirect 0 pass 20" w1 --count 20 --dport 10
	NS=ply
	send "sent 15 tx 15 redirect 0 pass 0" w1 --count 15 --dport 9
	send "sent 25 tx 0 redirect 0 pass 0" w1 --count 25 --dport 10
	stats_json w1
	check "plane: w1 of ply: its own counters (drop tx redirect pass aborted)" "25 15 0 0 0" "$(verdicts)"
	check "plane: w1 of ply: its own policy's rule" "15" "$(rule 0)"
	NS=plx
	stats_json w1
	check "plane: w1 of plx: its own counters (drop tx redirect pass aborted)" "30 0 0 20 0" "$(verdicts)"
	check "plane: w1 of plx: its own policy's rule" "30" "$(rule 0)"
	check "plane: status in plx lists only its w1" "1" "$(ta status | grep -c '^w1 ')"
	expect_exit 0 "^w1 +native +nsx " ta status
	check "plane: status --all lists both" "2" "$(ta status --all | grep -c 'w1 ')"
	NS=ply
	expect_exit 0 "^detached tap-accel from w1$" ta detach w1
	NS=plx
	expect_exit 0 "^w1 +native +nsx .* attached$" ta status
	send "sent 10 tx 0 redirect 0 pass 0" w1 --count 10 --dport 9
	stats_json w1
	check "plane: w1 of plx still judged by its policy" "40" "$(rule 0)"
	expect_exit 0 "^detached tap-accel from w1$" ta detach w1
	ns_del plx ply

	# ---- taps sharing a policy keep apart (tests/security) ---------------------
	pl_took "so far, the plane suite" $pl_start
	echo "# plane: two tapx taps, one policy: counters, rate buckets and guards their own"
	NS=pls
	ns_add $NS || bad "plane: cannot create netns $NS"
	runs "plane: tapx s1 and s2" in_ns tapio --mk $X s 2
	printf 'rule drop proto udp dport 9\nrate 20pps burst 20\n' >$PL/shared.policy
	chmod 644 $PL/*.policy
	expect_exit 0 "policy shared" ta attach s1 --policy $PL/shared.policy --guard mac=52:54:00:00:00:01
	expect_exit 0 "policy shared" ta attach s2 --policy shared --guard mac=52:54:00:00:00:02
	before_t=$(ta stats s2 --json)
	check "plane: frames with s2's MAC into s1" "sent 20 tx 0 redirect 0 pass 0" \
		"$(in_ns tapio s1 --count 20 --smac 52:54:00:00:00:02)"
	in_ns tapio s1 --count 200 --dport 10 >$PL/s.out
	read -r _ _ _ _ _ _ _ s_passed <$PL/s.out
	at_most "plane: s1: frames passed its bucket (20 and what the time taken refills)" 60 "$s_passed"
	at_least "plane: s1: its bucket's burst passed" 20 "$s_passed"
	check "plane: s2's counters unchanged by s1's frames" "$before_t" "$(ta stats s2 --json)"
	check "plane: s2: a full bucket of its own, its MAC passing" "sent 20 tx 0 redirect 0 pass 20" \
		"$(in_ns tapio s2 --count 20 --smac 52:54:00:00:00:02 --dport 10)"
	check "plane: s2: s1's MAC dropped by s2's guard" "sent 10 tx 0 redirect 0 pass 0" \
		"$(in_ns tapio s2 --count 10 --smac 52:54:00:00:00:01 --dport 10)"
	stats_json s1
	check "plane: s1: guard src_mac" "20" "$(counter src_mac)"
	d=$(counter rate_drop)
	check "plane: s1: rate drops and passes add up" "200" "$((${d:-0} + $(pl_num "$s_passed")))"
	stats_json s2
	check "plane: s2: guard src_mac" "10" "$(counter src_mac)"
	check "plane: s2: no rate drop" "0" "$(counter rate_drop)"
	check "plane: s2: its verdicts (drop tx redirect pass aborted)" "10 0 0 20 0" "$(verdicts)"

	# ---- an unprivileged user -----------------------------------------------------
	pl_took "so far, the plane suite" $pl_start
	echo "# plane: another user, no capabilities"
	as_nobody() {
		in_ns /bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all "$@"
	}
	state_s1=$(ta status --json)
	stats_s1=$(ta stats s1 --json)
	check "plane: setpriv drops to uid 65534" "65534" "$(as_nobody id -u)"
	expect_exit 2 "attach needs CAP_NET_ADMIN" as_nobody $TA_BIN attach s2 --policy swap
	expect_exit 2 "attach needs CAP_NET_ADMIN" as_nobody $TA_BIN attach s1 --guard none
	expect_exit 2 "detach needs CAP_NET_ADMIN" as_nobody $TA_BIN detach s1
	expect_exit 2 "policy load needs CAP_NET_ADMIN" as_nobody $TA_BIN policy load shared $PL/swap-a.policy
	expect_exit 2 "needs CAP_NET_ADMIN" as_nobody $TA_BIN policy load s1 $PL/swap-a.policy
	expect_exit 2 "needs CAP_NET_ADMIN" as_nobody $TA_BIN policy unload swap
	for verb in "status" "stats s1" "stats" "policy show s1" "policy show shared" "policy list"; do
		# shellcheck disable=SC2086
		expect_exit 2 "CAP_BPF|root|[Pp]ermission" as_nobody $TA_BIN $verb
	done
	if as_nobody bpftool map dump pinned $ROOT/ta_tap_slots >/dev/null 2>&1; then
		bad "plane: another user could read a map pin"
	else
		good
	fi
	if as_nobody rm -f $ROOT/links/"$(ls $ROOT/links | head -n 1)" 2>/dev/null; then
		bad "plane: another user could remove a link pin"
	else
		good
	fi
	expect_exit 0 ": ok, 1 rules" as_nobody $TA_BIN policy check $PL/swap-a.policy
	check "plane: the bindings unchanged" "$state_s1" "$(ta status --json)"
	check "plane: s1's counters unchanged" "$stats_s1" "$(ta stats s1 --json)"
	send "sent 10 tx 0 redirect 0 pass 0" s1 --count 10 --dport 9
	stats_json s1
	check "plane: s1 still judged by shared" "10" "$(rule 0)"
	expect_exit 0 "detached tap-accel from s2" ta detach s1 s2
	ns_del $NS

	pl_took "so far, the plane suite" $pl_start
	# ---- nothing left ---------------------------------------------------------------
	expect_exit 0 "removed every tap-accel program, link, map and pin" $TA_BIN clean --all
	check "plane: $ROOT gone" "" "$(ls -d $ROOT 2>/dev/null)"
	tries=0
	while [ "$(tap_accel_objects)" != "$initial" ] && [ $tries -lt 50 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	same_list "plane: bpftool lists back to where they were" "$initial" "$(tap_accel_objects)"
	pl_took "the plane suite" $pl_start
	# Sourced by suite-all.sh: nothing of ours for the suites after.
	NS=
	unset -f ip pl_t pl_took pl_num pl_names send stats_json packets_of verdict counter rule \
		prev_rule verdicts links pl_entries same_list as_nobody
	unset TAPIO_NODE
fi
