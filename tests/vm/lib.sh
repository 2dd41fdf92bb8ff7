# The VM suites' own helpers (sourced after tests/lib/check.sh, whose
# vocabulary every check uses: good, bad, skip, check, at_least, at_most,
# runs, expect_exit; suite-all.sh ends with its finish).
X=/dev/net/tapx
T=/dev/net/tun
B=/sys/fs/bpf/xb
BM=/sys/fs/bpf/xbm
# The scratch folder of runs and expect_exit.
tmp=/tmp/check
mkdir -p $tmp

# kernel_problems_since LINE: the lines of dmesg after line LINE that report
# a kernel problem (the suites that check their own part of dmesg).
kernel_problems_since() {
	dmesg | tail -n +$(($1 + 1)) |
		grep -E 'WARNING:|BUG:|Oops|general protection|scheduling while atomic|sleeping function called|refcount_t|lockdep|possible recursive|circular locking|leak|ODEBUG|Call Trace|[Kk]ernel panic|blocked for more than|rcu.*stall'
}

# tool_lines [PREFIX]: the output of a test tool of tests/vm on stdin, whose
# checks are its "PASS ..." and "FAIL ..." lines (tapx-test.h's check()):
# each counts as good or bad (PREFIX before a failure's words); its own
# closing "N passed, N failed" is dropped, every other line shown. All of
# them are kept in /tmp/tool.out too.
tool_lines() {
	while IFS= read -r _tl || [ -n "$_tl" ]; do
		printf '%s\n' "$_tl" >>/tmp/tool.out
		case $_tl in
		"PASS "*) good ;;
		"FAIL "*) bad "${1:-}${_tl#FAIL }" ;;
		[0-9]*" passed, "[0-9]*" failed"*) ;;
		*) printf '%s\n' "$_tl" ;;
		esac
	done
}

# tool CMD...: runs a test tool, its lines read by tool_lines as they come
# (through a FIFO: a pipe would read them in a subshell, whose counts are
# lost). Returns the tool's exit status.
tool() {
	rm -f /tmp/tool.fifo
	mkfifo /tmp/tool.fifo
	"$@" >/tmp/tool.fifo 2>&1 &
	_tool_pid=$!
	: >/tmp/tool.out
	tool_lines </tmp/tool.fifo
	wait $_tool_pid
}

stat_of() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
# A device's root qdisc, as ip link names it (/bin/ip: iproute2's, not the
# busybox applet the shell would prefer).
qdisc_of() { /bin/ip link show "$1" | sed -n 's/.* qdisc \([^ ]*\) .*/\1/p'; }
snap() { ethtool -S "$1" >/tmp/snap."$1"; }
# delta DEV KEY: counter change since the last snap of DEV
delta() {
	_now=$(stat_of "$1" "$2")
	_was=$(awk -v k="$2:" '$1 == k { print $2 }' /tmp/snap."$1")
	echo $((${_now:-0} - ${_was:-0}))
}
# expect DEV KEY=N ...: exact counter changes since the last snap, one
# check each
expect() {
	_dev=$1
	shift
	for _kv in "$@"; do
		_k=${_kv%%=*}
		_v=${_kv#*=}
		check "$_dev $_k delta" "$_v" "$(delta "$_dev" "$_k")"
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

# True on a KASAN kernel (make vmtest-debug), several times slower than the
# stock ones: suites size their longest loops down there.
kasan_kernel() { grep -q ' kasan_report$' /proc/kallsyms; }

# Shrinks every slab cache: empty slabs go back to the page allocator and,
# on a KASAN kernel (make vmtest-debug), the freed objects held in its
# quarantine are released, which would otherwise still count as slab in
# use. Before reading Slab, SUnreclaim or /proc/slabinfo to compare.
slab_shrink() {
	for _f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$_f" 2>/dev/null
	done
}

# No-skb proofs: kprobes on every skb constructor the kernel has.
# skb_probes_on prints how many it set; skb_calls TOOL counts the hits by
# process TOOL between its TOOL-begin and TOOL-end trace marks; marks TOOL
# counts those marks.
TR=/sys/kernel/tracing
[ -d $TR/events ] || TR=/sys/kernel/debug/tracing
skb_probes_on() {
	_n=0
	for fn in __alloc_skb __build_skb build_skb build_skb_around napi_build_skb \
		__napi_build_skb __napi_alloc_skb __netdev_alloc_skb skb_clone \
		__pskb_copy_fclone skb_copy; do
		grep -q " $fn\$" /proc/kallsyms || continue
		echo "p:skb_$fn $fn" >>$TR/kprobe_events 2>/dev/null && _n=$((_n + 1))
	done
	echo 1 >$TR/events/kprobes/enable
	echo 16384 >$TR/buffer_size_kb
	echo $_n
}
skb_probes_off() {
	echo 0 >$TR/events/kprobes/enable
	echo >$TR/kprobe_events
	echo 1408 >$TR/buffer_size_kb
}
skb_calls() {
	awk -v t="$1" '$0 ~ t "-begin" { on = 1 } $0 ~ t "-end" { on = 0 }
	     on && $0 ~ " " t "-[0-9]+ " && /skb_/ { n++ } END { print n + 0 }' $TR/trace
}
marks() { grep -c "$1-begin\|$1-end" $TR/trace; }

# The suites that set stock tun.ko and tapx in tun's place (tun_compat=1)
# side by side in one boot, each with the check names of SUITE:
# as_tun SUITE notes which of the two is loaded, then has tun.ko loaded
# and tapx not; as_tapx SUITE swaps in tapx with tun_compat=1 (tun's
# devices ta, tb go, so that tun can unload); as_before SUITE unloads tapx
# and loads again what as_tun found.
mod_loaded() { grep -q "^$1 " /proc/modules; }
as_tun() {
	_as_tun=
	_as_tapx=
	mod_loaded tun && _as_tun=1
	mod_loaded tapx && _as_tapx=1
	[ -z "$_as_tapx" ] || runs "$1: rmmod tapx" rmmod tapx
	[ -n "$_as_tun" ] || runs "$1: insmod tun" insmod /modules/tun.ko
}
as_tapx() {
	for _d in ta tb; do ip link del $_d 2>/dev/null; done
	runs "$1: rmmod tun" rmmod tun
	runs "$1: insmod tapx tun_compat=1" insmod /modules/tapx.ko tun_compat=1
}
as_before() {
	runs "$1: rmmod tapx" rmmod tapx
	[ -z "$_as_tun" ] || runs "$1: insmod tun again" insmod /modules/tun.ko
	[ -z "$_as_tapx" ] || runs "$1: insmod tapx again" insmod /modules/tapx.ko
}
