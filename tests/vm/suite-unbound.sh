# Unbound taps from their first frame: tapx's default program of a network
# namespace (TAPXSETDEFPROG), set by the agent to the plane's program with
# `unbound drop`. A writer sends spoofed frames from the instant TUNSETIFF
# returns; a packet socket on every interface, open before the tap exists,
# counts what reaches the stack. The same run on tun.ko only reports.
UC=/tmp/ub-conf
GUARD=mac=02:00:00:00:0a:01,ip=10.9.0.1
PIN=/sys/fs/bpf/tap-accel/prog
N=50
# race_count FILE KEY: KEY=N of the writer's "counts" line
race_count() { sed -n "s/^counts .*$2=\([0-9]*\).*/\1/p" "$1"; }
# wait_for SECONDS CMD...: CMD until it succeeds, ten times a second
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ $_n -gt 0 ] && ! "$@" 2>/dev/null; do
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@" 2>/dev/null
}
guard_drops() {
	tap-accel stats --prometheus "$1" 2>/dev/null |
		awk '/^tapaccel_guard_drops_total/ && /reason="src_mac"/ { n += $2 } END { print n + 0 }'
}

tool tapx-unbound refuse $X
tool tapx-unbound netns-exit

if [ ! -x /bin/tap-accel ]; then
	bad "unbound: build/user/tap-accel missing (make user)"
else
	mkdir -p $UC/policies $UC/bindings.d /tmp/ub-run
	echo "unbound drop" >$UC/agent.conf
	echo "default pass" >$UC/policies/ubp.policy
	printf 'bind name ubx0 policy ubp guard %s\nbind name ubt0 policy ubp guard %s\n' \
		$GUARD $GUARD >$UC/bindings.d/50-ub.conf
	ub_t0=$(date +%s)
	tap-accel agent --config $UC --run-dir /tmp/ub-run >/tmp/agent.log 2>&1 &
	apid=$!
	# the agent loads the plane first: three programs through the verifier,
	# several times slower under KASAN (make vmtest-debug)
	ub_ready=60
	kasan_kernel && ub_ready=300
	runs "unbound: the agent is ready" wait_for $ub_ready grep -q '^ready' /tmp/agent.log
	echo "INFO unbound: the agent ready after $(($(date +%s) - ub_t0)) s"
	runs "unbound: the agent says tapx serves unbound taps from their creation" grep -qx \
		'tapx: unbound taps of host get the program from their creation (unbound drop)' /tmp/agent.log
	plane=$(bpftool prog show pinned $PIN | sed -n '1s/:.*//p')
	check "unbound: tapx's default is the plane's program" "$plane" "$(tapx-unbound get)"
	runs "unbound: status says so" sh -c "tap-accel status | grep -qx \"tapx: new taps here run the plane's program (id $plane) until bound\""
	check "unbound: status --json is the taps alone" "" "$(tap-accel --json status | grep -o tapx)"

	# The race on tapx: nothing spoofed reaches the stack, before the
	# binding (unbound drop) or after it (the guard).
	tapx-unbound race $X ubx0 1500 >/tmp/race.x
	cat /tmp/race.x | grep '^race'
	wrote=$(race_count /tmp/race.x wrote)
	seen_guest=$(race_count /tmp/race.x seen_guest)
	check "unbound: tapx: spoofed frames that reached the stack" 0 "$(race_count /tmp/race.x seen_spoof)"
	check "unbound: tapx: packet socket drops" 0 "$(race_count /tmp/race.x drops)"
	check "unbound: tapx: failed writes" 0 "$(race_count /tmp/race.x failed)"
	at_least "unbound: tapx: guest frames through once bound" 1 "${seen_guest:-0}"
	runs "unbound: the agent bound ubx0" grep -q '^bound ubx0 (host): policy ubp, guard mac,ip4' /tmp/agent.log
	check "unbound: ubx0: every frame written met the program (xdp_pass + xdp_drop)" "$wrote" \
		$(($(stat_of ubx0 xdp_pass) + $(stat_of ubx0 xdp_drop)))
	check "unbound: ubx0: xdp_pass = guest frames the stack saw" "$seen_guest" "$(stat_of ubx0 xdp_pass)"
	at_least "unbound: ubx0: spoofed frames in the guard's src_mac drops" 1 "$(guard_drops ubx0)"

	# A tap's own program first; the default again once it is detached.
	for size in 60 9000; do
		snap xa
		tool tapx-dev run --src $X:xa --size $size --count $N --dst packet:xa --expect 0
		expect xa xdp_drop=$N
	done
	runs "unbound: xa gets its own program" xdp_attach xa xdp_pass
	snap xa
	tool tapx-dev run --src $X:xa --size 60 --count $N --dst packet:xa --expect $N
	expect xa xdp_pass=$N xdp_drop=0
	runs "unbound: xa's own program detached" xdp_detach xa
	snap xa
	tool tapx-dev run --src $X:xa --size 60 --count $N --dst packet:xa --expect 0
	expect xa xdp_drop=$N xdp_pass=0

	# The same race on stock tun: reported, not asserted.
	tapx-unbound race $T ubt0 1500 >/tmp/race.t
	echo "unbound: tun.ko: $(grep '^race' /tmp/race.t)"
	echo "unbound: tun.ko: $(race_count /tmp/race.t seen_spoof) spoofed frames reached the stack before the binding; guard src_mac drops after it: $(guard_drops ubt0)"

	kill $apid
	wait $apid
	check "unbound: the agent stops on SIGTERM" 0 $?
	check "unbound: the default stays after the agent" "$plane" "$(tapx-unbound get)"
	runs "unbound: tap-accel clean --all" tap-accel clean --all
	check "unbound: clean --all cleared the default" 0 "$(tapx-unbound get)"
	runs "unbound: the plane's program is freed" wait_for 5 sh -c "! bpftool prog show id $plane"
	runs "unbound: status without a default" sh -c 'tap-accel status | grep -qx "tapx: new taps here run no program until bound"'
	snap xa
	tool tapx-dev run --src $X:xa --size 60 --count $N --dst packet:xa --expect $N
	expect xa xdp_pass=0 xdp_drop=0
	ip link del ubx0
	ip link del ubt0
fi

# The default's verdicts are carried out and counted as a tap's own
# program's: XDP_TX back to the writer, XDP_REDIRECT to xb (lib.sh).
runs "unbound: xdp_tx as the default" tapx-unbound set-pinned $B/xdp_tx
snap xa
tool tapx-dev run --src $X:xa --size 60 --count $N --self $N --dst packet:xa --expect 0
expect xa xdp_tx=$N tx_packets=$N
set_port xb
runs "unbound: xdp_redirect as the default" tapx-unbound set-pinned $B/xdp_redirect
for size in 60 9000; do
	snap xa
	snap xb
	tool tapx-dev run --src $X:xa --size $size --count $N --dst tap:$X:xb --expect $N
	expect xa xdp_redirect=$N
	expect xb xdp_xmit=$N
done

# Set and cleared by hand.
id=$(tapx-unbound set-new)
check "unbound: a default set by hand" "$id" "$(tapx-unbound get)"
runs "unbound: cleared by hand" tapx-unbound clear
check "unbound: no default" 0 "$(tapx-unbound get)"
runs "unbound: its program freed" wait_for 5 sh -c "! bpftool prog show id $id"
