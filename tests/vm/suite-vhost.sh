# vhost-net with a tap as its backend, driven by tapx-vhost playing the
# guest (no nested guest): first on stock tun.ko, the reference, where every
# case must pass; then on tapx, which must serve vhost-net the same way. A
# tapx that does not (VHOST_NET_SET_BACKEND fails with ENOTSOCK, or no
# module of it exports tun_get_socket) fails here, loudly: QEMU would fall
# back to userspace virtio without a word, so a skip would hide exactly that.
# The vhost modules are loaded here only and unloaded at the end.
# vmtapxvhostko=PATH (kernel argument): the module that makes tapx serve
# vhost-net (/modules/tapx_tun.ko, tun's exports).
TAPX_VHOST_KO=${vmtapxvhostko:-/modules/tapx_tun.ko}
# vmtapxvhostsendmsg=FUNC: tapx's socket sendmsg, kprobed to check the TX
# path of each frame size as tun_sendmsg is on tun.ko.
TAPX_VHOST_SENDMSG=${vmtapxvhostsendmsg:-tapx_sendmsg}
VHOST_MODS="vhost_iotlb vhost tap vhost_net"

vhost_mods_in() {
	for m in $VHOST_MODS; do
		mod_loaded $m || runs "vhost: insmod $m" insmod /modules/$m.ko
	done
}
# tapx-vhost run ...: its checks, then one for its exit status (a crash or
# a hang that they would not show).
vhost_tool() {
	_what=$1
	shift
	tool timeout 600 tapx-vhost run "$@"
	_rc=$?
	case $_rc in
	0) good "vhost: tapx-vhost $_what exited 0" ;;
	2) bad "vhost: tapx-vhost $_what: the driver does not serve vhost-net (backend refused)" ;;
	*) bad "vhost: tapx-vhost $_what exited $_rc" ;;
	esac
}

tun_was_loaded=0
mod_loaded tun && tun_was_loaded=1
mod_loaded tun || runs "vhost: insmod tun.ko" insmod /modules/tun.ko
[ -e $B/xdp_pass ] || runs "vhost: bpftool loads xdp_basic" \
	bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
vhost_mods_in
runs "vhost: /dev/vhost-net is a char device" test -c /dev/vhost-net

# The reference: stock tun.ko.
vhost_tool "on tun.ko" --node $T --name vt0 --label tun --sendmsg-probe tun_sendmsg
# vhost_net out and in again with its fds closed, then used again.
runs "vhost: rmmod vhost_net (fds closed)" rmmod vhost_net
runs "vhost: insmod vhost_net again" insmod /modules/vhost_net.ko
vhost_tool "on tun.ko after vhost_net reload" --node $T --name vt1 --label tun-reloaded \
	--tests basic

# tapx. Whatever exports tun_get_socket is what vhost_net binds to; while
# tun.ko is loaded that is tun.ko, and the two cannot both export it. A GSO
# frame with XDP_TX or XDP_REDIRECT is dropped and counted on tapx, as on
# its write() path (kmod/README.md), where tun.ko's generic XDP delivers it.
if grep -q ' tun_get_socket	\[tapx' /proc/kallsyms; then
	# tapx.ko itself serves vhost-net, but then it could not have loaded
	# next to tun.ko; nothing to swap.
	vhost_tool "on tapx" --node $X --name vx0 --label tapx --gso-tx-drops \
			${TAPX_VHOST_SENDMSG:+--sendmsg-probe $TAPX_VHOST_SENDMSG}
elif [ -f "$TAPX_VHOST_KO" ]; then
	# Swap tun.ko for the companion: vhost_net off, tun's devices of
	# suite-load off (recreated below), tun.ko off.
	runs "vhost: rmmod vhost_net for the swap" rmmod vhost_net
	for d in ta tb; do
		[ -e /sys/class/net/$d ] && ip link del $d
	done
	runs "vhost: rmmod tun for the swap" rmmod tun
	dm=$(dmesg | wc -l)
	runs "vhost: insmod $(basename "$TAPX_VHOST_KO")" insmod "$TAPX_VHOST_KO"
	if insmod /modules/vhost_net.ko; then
		good "vhost: vhost_net binds to tapx's exports"
		runs "vhost: tun_get_socket is tapx's" \
			sh -c "grep ' tun_get_socket	' /proc/kallsyms | grep -v '\[tun\]' | grep -q ."
		vhost_tool "on tapx" --node $X --name vx0 --label tapx --gso-tx-drops \
			${TAPX_VHOST_SENDMSG:+--sendmsg-probe $TAPX_VHOST_SENDMSG}
		runs "vhost: rmmod vhost_net (tapx)" rmmod vhost_net
	else
		bad "vhost: vhost_net does not load on tapx's exports: $(dmesg | tail -n +$((dm + 1)) | grep -m1 -E 'disagrees|Unknown symbol|duplicate')"
	fi
	runs "vhost: rmmod $(basename "$TAPX_VHOST_KO" .ko)" rmmod "$(basename "$TAPX_VHOST_KO" .ko)"
	runs "vhost: insmod tun.ko again" insmod /modules/tun.ko
	if [ $tun_was_loaded = 1 ]; then
		runs "vhost: recreate tun ta" tapx-dev mk $T ta 65521
		runs "vhost: recreate tun tb" tapx-dev mk $T tb 65521
	fi
	mod_loaded vhost_net || runs "vhost: insmod vhost_net (tun.ko)" insmod /modules/vhost_net.ko
else
	# Today's tapx: vhost_net is bound to tun.ko, which knows nothing of
	# tapx's files. The tool must say ENOTSOCK; then this says why.
	vhost_tool "on tapx" --node $X --name vx0 --label tapx --gso-tx-drops \
			${TAPX_VHOST_SENDMSG:+--sendmsg-probe $TAPX_VHOST_SENDMSG}
	bad "vhost(tapx): tapx does not serve vhost-net: no tun_get_socket in tapx and no $TAPX_VHOST_KO"
fi

# Leave no vhost module behind for the suites that follow.
for m in vhost_net tap vhost vhost_iotlb; do
	mod_loaded $m && runs "vhost: rmmod $m" rmmod $m
done
[ $tun_was_loaded = 1 ] || { mod_loaded tun && runs "vhost: rmmod tun" rmmod tun; }
runs "vhost: no vhost module left" sh -c '! grep -qE "^(vhost|vhost_net|vhost_iotlb|tap) " /proc/modules'
