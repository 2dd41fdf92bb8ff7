# Not in the default list: generic XDP (xdpgeneric) on stock tun.ko and on
# tapx, a frags-capable program that cuts 3000 B off the tail of a 9000 B
# frame, and whether the kernel reports a bad page.
# From 6.9 on, generic XDP copies an skb it cannot run in place into pages
# of the system page_pool, but its xdp_buff keeps the rx queue's memory
# type (shared pages), so bpf_xdp_adjust_tail() returns the released
# fragment's page_pool page with put_page(): "BUG: Bad page state ...
# page_pool leak". Debian's 6.12 has that; 6.1 linearizes instead and
# does not. The check: tapx gets the same report as tun.ko, in one boot.
# The bug leaves the guest tainted: run it alone,
#   VM_KERNEL=6.12 VM_APPEND="vmsuites=load,pagepool" sh tests/vm/run.sh
runs "pagepool: xdp_extra loads" bpftool prog loadall /bpf/xdp_extra.bpf.o /sys/fs/bpf/xpp
# DEV NODE:NAME: "yes" if a 9000 B frame gave a bad page. Called in a
# command substitution, where a check would not count: a failed attach is
# its answer, which the check below then shows.
bad_page_after() {
	_at=$(dmesg | wc -l)
	if ! bpftool net attach xdpgeneric pinned /sys/fs/bpf/xpp/xdp_shrink_frags \
		dev "$1" overwrite >&2; then
		echo "no-attach"
		return
	fi
	tapx-dev run --src "$2" --mode block --size 9000 --count 4 --quiet >/dev/null 2>&1
	sleep 1
	bpftool net detach xdpgeneric dev "$1"
	if dmesg | tail -n +$((_at + 1)) | grep -q 'Bad page state'; then
		echo yes
	else
		echo no
	fi
}
on_tun=$(bad_page_after ta $T:ta)
on_tapx=$(bad_page_after xa $X:xa)
echo "pagepool: $(uname -r): bad page on tun.ko: $on_tun, on tapx: $on_tapx"
check "pagepool: tapx reports a bad page as tun.ko does (tun.ko: $on_tun)" "$on_tun" "$on_tapx"
rm -rf /sys/fs/bpf/xpp
