# Two-way policies on tapx taps, as the host suite checks them on stock
# tun: a security group (docs/policy.md) judges what goes to the guests of
# tapx taps, both ways it gets there:
# - what the stack sends to a tap, judged by the in program on the tapx
#   device's egress (tcx from Linux 6.6, clsact before): a new connection
#   to the guest's port 22 reaches it, to port 80 and an echo request not;
#   the answer to a connection the guest opened does;
# - what one tap's guest sends to another's through tap-accel's XDP
#   redirect (forward, by the fdb): the receiver's in policy decides before
#   the redirect, counted in the receiver's counters;
# - what another XDP program redirects into a tap through a devmap entry
#   that runs tap-accel's prog_in_devmap;
# - a policy replaced under an open connection cuts it, both ways.
# The guests are tapx-conn (tests/vm/tapx-conn.c), which writes their TCP
# segments into the taps and reads what comes to them; the stack's end is
# its own sockets. Each step's frames are counted exactly, then the taps'
# counters: the policy's (stats), and tapx's own (ethtool -S).
TW=/tmp/twoway
ROOT=/sys/fs/bpf/tap-accel
TA_BIN=/bin/tap-accel
TWB=/sys/fs/bpf/twoway
export TAPX_NODE=$X
mkdir -p $TW
tw_start=$(cut -d' ' -f1 /proc/uptime)
# The security group, and the same without port 22: what the stack's
# connection to it was opened by.
printf 'rule pass out\nrule pass in proto tcp dport 22\ndefault in drop\ndefault out pass\n' \
	>$TW/sg.policy
printf 'rule pass out\ndefault in drop\ndefault out pass\n' >$TW/sg-cut.policy

if [ ! -x $TA_BIN ]; then
	bad "twoway: build/user/tap-accel missing (make user)"
elif [ ! -x /bin/tapx-conn ]; then
	bad "twoway: tapx-conn missing (make -C tests/vm)"
elif ! { $TA_BIN clean --all && $TA_BIN policy load sg $TW/sg.policy; } >$TW/load.out 2>&1; then
	# Each step would try the plane's programs again, minutes each under
	# TCG when the verifier refuses them: one failure says it.
	bad "twoway: the plane does not load on $(uname -r), nothing else runs: $(tail -n 1 $TW/load.out)"
	$TA_BIN clean --all >/dev/null 2>&1
else
	. /tests/ns.sh
	# iproute2's ip and tc (ns.sh's -n and netns, clsact), not busybox's applets
	# (which busybox's sh and nsenter run before what PATH holds).
	ip() { /bin/ip "$@"; }
	tw_t() { cut -d' ' -f1 /proc/uptime; }
	# Before tcx (Linux 6.6) the in program is a clsact egress filter.
	tcx=1
	case $(uname -r) in [1-5].* | 6.[0-5].* | 6.[0-5]-*) tcx= ;; esac
	if [ -z "$tcx" ]; then
		for m in sch_ingress cls_bpf; do
			mod_loaded $m || insmod /modules/$m.ko || bad "twoway: insmod $m"
		done
	fi
	check "twoway: sg loaded, the plane made" 1 "$(grep -cE 'as policy sg: [0-9]+ rules, default pass, .*new' $TW/load.out)"

	# The counters of 'stats IFACE --json' (stats_to IFACE FILE) read from
	# FILE (its conntrack group, verdicts), and tapx's own of a device
	# (ethtool -S, totals).
	stats_to() { ta stats "$1" --json >"$2" 2>&1 || cat "$2"; }
	ct_of() { grep -o "\"$2\":{\"packets\":[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }
	cts_of() {
		echo "$(ct_of "$1" in_pass) $(ct_of "$1" in_drop) $(ct_of "$1" in_default)" \
			"$(ct_of "$1" new) $(ct_of "$1" invalid) $(ct_of "$1" cut)"
	}
	verdicts_of() {
		sed 's/"rules":.*//' "$1" >$TW/v.json
		echo "$(ct_of $TW/v.json drop) $(ct_of $TW/v.json tx) $(ct_of $TW/v.json redirect)" \
			"$(ct_of $TW/v.json pass)"
	}
	dev_stat() { in_ns ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
	# in_prog TAP: the id of the in program on TAP's egress, or nothing.
	in_prog() {
		if [ -n "$tcx" ]; then
			_i=$(ip -n $NS -o link show "$1" | cut -d: -f1)
			for _p in $ROOT/links/*:"$_i":in; do
				[ -e "$_p" ] || continue
				bpftool -j link show pinned "$_p" | grep -o '"prog_id":[0-9]*' | cut -d: -f2
			done
		else
			in_ns /bin/tc filter show dev "$1" egress | grep -o 'tap_accel_in_tc.* id [0-9]*' |
				grep -o '[0-9]*$'
		fi
	}

	NS=tw
	ns_add $NS || bad "twoway: cannot create netns $NS"
	for t in g1 d1 d2 r1 r2; do
		runs "twoway: tapx $t" in_ns tapx-dev mk $X $t
	done
	# g1's guest is 10.7.0.2 behind the stack's 10.7.0.1, its neighbour
	# entry fixed (no ARP to answer).
	runs "twoway: g1's address" ip -n $NS addr add 10.7.0.1/24 dev g1
	runs "twoway: g1's guest as a neighbour" ip -n $NS neigh replace 10.7.0.2 \
		lladdr 52:54:00:07:00:02 dev g1 nud permanent

	# ---- the stack's frames to a tap ----------------------------------------------
	echo "# twoway: a security group on tapx g1: what the stack sends to it"
	expect_exit 0 "attached tap-accel to g1 .*policy sg" ta attach g1 --policy sg
	in_tc=$(bpftool -j prog show pinned $ROOT/prog_in_tc | grep -o '"id":[0-9]*' | head -n 1 | cut -d: -f2)
	check "twoway: g1 runs the in program on its $([ -n "$tcx" ] && echo tcx || echo clsact) egress" "$in_tc" "$(in_prog g1)"
	# The stack's connection to port 80 is closed as the one to 22 opens,
	# before it would send its SYN again; the one to 22 is answered, and
	# takes data; the guest's own to the stack's 8080 is answered. Then
	# the policy is replaced under the stack's connection to 22: its next
	# data is cut.
	tool in_ns tapx-conn tap g1 52:54:00:07:00:02 10.7.0.2 \
		connect 10.7.0.2 80 recv g1 0 tcp S 80 \
		connect 10.7.0.2 22 recv g1 1 tcp S 22 \
		reply g1 SA recv g1 1 tcp A 22 \
		sockwrite recv g1 1 tcp PA 22 \
		reply g1 A \
		ping 10.7.0.2 recv g1 0 icmp 8 \
		listen 10.7.0.1 8080 \
		send g1 S 40000 10.7.0.1 8080 recv g1 1 tcp SA 40000 \
		reply g1 A \
		run "$TA_BIN stats g1 --json >$TW/g1.json" \
		run "$TA_BIN policy load sg $TW/sg-cut.policy >/dev/null" \
		sockwrite recv g1 0 tcp PA 22 \
		run "$TA_BIN stats g1 --json >$TW/g1-cut.json" ||
		bad "twoway: tapx-conn on g1 failed"
	# in: S 22, its A and PA, the SA of the guest's connection passed; S
	# 80 and the echo request dropped by the default. Connections: 22 (in)
	# and 8080 (out). Out: the guest's SA, A, S, A.
	check "twoway: g1: in pass, drop, default; new, invalid, cut" "4 2 2 2 0 0" "$(cts_of $TW/g1.json)"
	check "twoway: g1: verdicts drop tx redirect pass" "0 0 0 4" "$(verdicts_of $TW/g1.json)"
	# The stack sends its data again after the cut: dropped too, as out of
	# state, so only these are exact.
	check "twoway: g1, replaced: one connection cut" "1" "$(ct_of $TW/g1-cut.json cut)"
	check "twoway: g1, replaced: nothing more passed in" "4" "$(ct_of $TW/g1-cut.json in_pass)"
	at_least "twoway: g1, replaced: the cut frame dropped" 3 "$(ct_of $TW/g1-cut.json in_drop)"
	expect_exit 0 "detached tap-accel from g1" ta detach g1
	check "twoway: g1 detached: no in program" "" "$(in_prog g1)"

	# ---- another XDP program's redirect, through a devmap -----------------------------
	echo "# twoway: another program redirects from tapx d1 into d2, by a devmap entry with prog_in_devmap"
	expect_exit 0 "as policy sg: .*replaced for 0 taps" ta policy load sg $TW/sg.policy
	expect_exit 0 "attached tap-accel to d2 .*policy sg" ta attach d2 --policy sg
	runs "twoway: xdp_devmap loads" bpftool prog loadall /bpf/xdp_devmap.bpf.o $TWB pinmaps $TWB/maps
	runs "twoway: d1 runs xdp_to_guest" in_ns bpftool net attach xdpdrv pinned $TWB/xdp_to_guest dev d1
	# d1's guest opens to d2's 80 (dropped) and 22; d2's guest opens to
	# d1's 22 (through the stack, which drops it) and gets the answer from
	# d1; an answer to nothing d2 opened is out of state.
	tool in_ns tapx-conn tap d1 52:54:00:07:02:01 10.7.2.1 tap d2 52:54:00:07:02:02 10.7.2.2 \
		devmap $TWB/maps/guest_port d2 $ROOT/prog_in_devmap \
		send d1 S 40011 10.7.2.2 80 52:54:00:07:02:02 recv d2 0 tcp S 80 \
		send d1 S 40012 10.7.2.2 22 52:54:00:07:02:02 recv d2 1 tcp S 22 \
		send d2 S 40013 10.7.2.1 22 \
		send d1 SA 22 10.7.2.2 40013 52:54:00:07:02:02 recv d2 1 tcp SA 40013 \
		send d1 SA 22 10.7.2.2 40014 52:54:00:07:02:02 recv d2 0 tcp SA 40014 ||
		bad "twoway: tapx-conn on d1, d2 failed"
	stats_to d2 $TW/d2.json
	# in: S 22 and SA 40013 passed, S 80 (the default) and SA 40014
	# (invalid) dropped; connections: 22 (in), 40013 (out). Out: S 40013.
	check "twoway: d2: in pass, drop, default; new, invalid, cut" "2 2 1 2 1 0" "$(cts_of $TW/d2.json)"
	check "twoway: d2: verdicts drop tx redirect pass" "0 0 0 1" "$(verdicts_of $TW/d2.json)"
	# d1's program redirected all four; d2's devmap program let two on.
	check "twoway: d1: tapx's xdp_redirect" "4" "$(dev_stat d1 xdp_redirect)"
	check "twoway: d2: frames redirected into it (tapx xdp_xmit)" "2" "$(dev_stat d2 xdp_xmit)"
	runs "twoway: d1's program detached" in_ns bpftool net detach xdpdrv dev d1
	rm -rf $TWB
	expect_exit 0 "detached tap-accel from d2" ta detach d2

	# ---- tap to tap, by XDP redirect ------------------------------------------------
	echo "# twoway: guest to guest, tapx r1 and r2 by forward: the receiver's in policy first"
	# The security group, its out forwarded by the fdb (replies too: the
	# implicit rule for them takes the default out's action).
	printf 'fdb 52:54:00:07:01:01 dev r1\nfdb 52:54:00:07:01:02 dev r2\n' >$TW/fdb
	printf 'rule pass in proto tcp dport 22\ndefault in drop\ndefault out forward\n' |
		cat - $TW/fdb >$TW/fwd.policy
	printf 'default in drop\ndefault out forward\n' | cat - $TW/fdb >$TW/fwd-cut.policy
	expect_exit 0 "as policy fwd: [0-9]+ rules, default forward, .*new" ta policy load fwd $TW/fwd.policy
	expect_exit 0 "attached tap-accel to r2 .*policy fwd" ta attach r1 r2 --policy fwd
	# r1 opens to r2's 80 (dropped before the redirect) and 22; r2 opens to
	# r1's 22 and r1 answers; r2's ACK of it passes, and after the replace
	# is cut by r1's in.
	tool in_ns tapx-conn tap r1 52:54:00:07:01:01 10.7.1.1 tap r2 52:54:00:07:01:02 10.7.1.2 \
		send r1 S 40001 10.7.1.2 80 52:54:00:07:01:02 recv r2 0 tcp S 80 \
		send r1 S 40002 10.7.1.2 22 52:54:00:07:01:02 recv r2 1 tcp S 22 \
		reply r2 SA recv r1 1 tcp SA 40002 \
		send r2 S 40003 10.7.1.1 22 52:54:00:07:01:01 recv r1 1 tcp S 22 \
		reply r1 SA recv r2 1 tcp SA 40003 \
		reply r2 A recv r1 1 tcp A 22 \
		run "$TA_BIN stats r1 --json >$TW/r1.json" \
		run "$TA_BIN stats r2 --json >$TW/r2.json" \
		run "$TA_BIN policy load fwd $TW/fwd-cut.policy >/dev/null" \
		reply r2 A recv r1 0 tcp A 22 \
		run "$TA_BIN stats r1 --json >$TW/r1-cut.json" \
		run "$TA_BIN stats r2 --json >$TW/r2-cut.json" ||
		bad "twoway: tapx-conn on r1, r2 failed"
	# r2's in: S 80 dropped (the default), S 22 and SA 40003 passed;
	# connections: 22 (in), 40003 (out).
	check "twoway: r2: in pass, drop, default; new, invalid, cut" "2 1 1 2 0 0" "$(cts_of $TW/r2.json)"
	# r1's in: SA 40002, S 22, A passed; connections 40001 and 40002
	# (out: its own zone takes them as forwarded) and 22 (in).
	check "twoway: r1: in pass, drop, default; new, invalid, cut" "3 0 0 3 0 0" "$(cts_of $TW/r1.json)"
	# The sender's verdicts: the frame r2's in refused is r1's drop.
	check "twoway: r1: verdicts drop tx redirect pass" "1 0 2 0" "$(verdicts_of $TW/r1.json)"
	check "twoway: r2: verdicts drop tx redirect pass" "0 0 3 0" "$(verdicts_of $TW/r2.json)"
	check "twoway: r1, replaced: the connection to its 22 cut" "1" "$(ct_of $TW/r1-cut.json cut)"
	check "twoway: r1, replaced: in pass, drop" "3 1" \
		"$(ct_of $TW/r1-cut.json in_pass) $(ct_of $TW/r1-cut.json in_drop)"
	check "twoway: r2, replaced: the cut frame is its drop" "1" "$(verdicts_of $TW/r2-cut.json | cut -d' ' -f1)"
	# tapx's own counters: what XDP redirected into each tap (ndo_xdp_xmit),
	# and its program's verdicts, the refused frames never sent.
	check "twoway: r2: frames redirected into it (tapx xdp_xmit)" "2" "$(dev_stat r2 xdp_xmit)"
	check "twoway: r1: frames redirected into it (tapx xdp_xmit)" "3" "$(dev_stat r1 xdp_xmit)"
	check "twoway: r1: tapx's xdp_drop, xdp_redirect" "1 2" "$(dev_stat r1 xdp_drop) $(dev_stat r1 xdp_redirect)"
	check "twoway: r2: tapx's xdp_drop, xdp_redirect" "1 3" "$(dev_stat r2 xdp_drop) $(dev_stat r2 xdp_redirect)"

	expect_exit 0 "detached tap-accel from r2" ta detach r1 r2
	ns_del $NS
	expect_exit 0 "removed every tap-accel program, link, map and pin" $TA_BIN clean --all
	echo "twoway: took $(echo "$(tw_t) $tw_start" | awk '{ printf "%.1f", $1 - $2 }') s, making the plane included"
	# Sourced by suite-all.sh: nothing of ours for the suites after.
	NS=
	unset -f ip tw_t stats_to ct_of cts_of verdicts_of dev_stat in_prog
	unset TAPX_NODE
fi
