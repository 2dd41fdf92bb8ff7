# Sourced by the shell suites after check.sh: network namespaces, a bpffs
# of the suite's own, and the CLI run in a namespace. The suite sets NS (the
# namespace in_ns and ta run in) and TA_BIN (the CLI).

# own_bpffs "$@": as a suite's first step, run the suite again in a private
# mount namespace with a bpffs of its own on /sys/fs/bpf, so that it never
# sees, nor leaves anything in, the host's tap-accel state. OWN_BPFFS says
# it is done; SUITE is the suite's own path (absolute).
own_bpffs() {
	if [ -z "${OWN_BPFFS:-}" ]; then
		OWN_BPFFS=1 exec unshare --mount --propagation private sh "$SUITE" "$@"
	fi
	mount -t bpf -o mode=0700 bpf /sys/fs/bpf
}

# in_ns CMD...: CMD in network namespace $NS. nsenter keeps the mount
# namespace: 'ip netns exec' would mount a fresh /sys and hide the bpffs.
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
# ta ARGS...: tap-accel in $NS.
ta() { in_ns "$TA_BIN" "$@"; }

# ns_add NAME: a namespace with lo up and IPv6 off (no router solicitations
# among the frames a test counts).
ns_add() {
	ip netns add "$1" && ip -n "$1" link set lo up &&
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
}

# taps_add NS NAME...: taps in NS, up.
taps_add() {
	_ns=$1
	shift
	for _t in "$@"; do
		ip -n "$_ns" tuntap add "$_t" mode tap && ip -n "$_ns" link set "$_t" up || return 1
	done
}

# taps_batch NS PREFIX N: taps PREFIX1..PREFIXN in NS, up, in one ip -batch.
taps_batch() {
	_i=1
	while [ $_i -le "$3" ]; do
		echo "tuntap add $2$_i mode tap"
		echo "link set $2$_i up"
		_i=$((_i + 1))
	done | ip -n "$1" -batch -
}

# ns_del NAME...: the namespaces and their taps gone.
ns_del() {
	for _n in "$@"; do ip netns del "$_n" 2>/dev/null; done
}

# tap_accel_objects: the ids of tap-accel's programs, maps and links the
# kernel holds, one "kind id" a line, sorted: what bpftool lists of ours.
tap_accel_objects() {
	for _kind in prog map link; do
		bpftool -j "$_kind" show 2>/dev/null | tr '}' '\n' |
			grep -E '"name":"(ta_|tap_accel)|"prog_id"' |
			grep -o '"id":[0-9]*' | sed "s/\"id\":/$_kind /"
	done | sort
}
