# Helpers for the VM suites (sourced). Every check prints one line starting
# with PASS or FAIL; suite-all.sh counts them.
X=/dev/net/tapx
T=/dev/net/tun
B=/sys/fs/bpf/xb
BM=/sys/fs/bpf/xbm

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }

# ok DESC CMD...: PASS if CMD succeeds; its output is shown on failure.
ok() {
	_d=$1
	shift
	if "$@" >/tmp/ok.out 2>&1; then
		pass "$_d"
	else
		fail "$_d (exit $?)"
		sed 's/^/    /' /tmp/ok.out | head -n 20
	fi
}

# eq DESC GOT WANT
eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 = $3"
	else
		fail "$1 = '$2', want '$3'"
	fi
}

stat_of() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
snap() { ethtool -S "$1" >/tmp/snap."$1"; }
# delta DEV KEY: counter change since the last snap of DEV
delta() {
	_now=$(stat_of "$1" "$2")
	_was=$(awk -v k="$2:" '$1 == k { print $2 }' /tmp/snap."$1")
	echo $((${_now:-0} - ${_was:-0}))
}
# expect DEV KEY=N ...: exact counter changes since the last snap
expect() {
	_dev=$1
	shift
	for _kv in "$@"; do
		_k=${_kv%%=*}
		_v=${_kv#*=}
		eq "  $_dev $_k delta" "$(delta "$_dev" "$_k")" "$_v"
	done
}

xdp_attach() { bpftool net attach xdpdrv pinned "$B/$2" dev "$1" overwrite; }
xdp_detach() { bpftool net detach xdpdrv dev "$1"; }
# The devmap slot xdp_redirect sends to.
set_port() {
	_i=$(cat /sys/class/net/"$1"/ifindex)
	bpftool map update pinned "$BM/basic_ports" key hex 00 00 00 00 \
		value hex $(printf '%02x %02x 00 00' $((_i & 255)) $((_i >> 8 & 255)))
}

# Free memory (kB) including the pages parked on per-CPU lists, which
# MemFree leaves out and which a burst of page allocations leaves filled.
free_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '/^MemFree:/ { print $2 + pcp }' /proc/meminfo
}
