# vhost_net.ko links against tapx_tun.ko's tun_* exports (right names,
# right CRCs) with stock tun.ko not loaded, and the module references hold
# in the right order. Runs after suite-unload (tun and tapx unloaded);
# leaves tun, tapx and the vhost modules as it found them (but not tun's
# devices ta, tb: removed to unload tun, when it was loaded).
vl_main() {
	vl_tun=
	vl_tapx=
	mod_loaded tun && vl_tun=1
	mod_loaded tapx && vl_tapx=1

	if [ -n "$vl_tapx" ]; then
		good "vhostlink: tapx already loaded"
	elif [ -n "$vl_tun" ]; then
		runs "vhostlink: insmod tapx" insmod /modules/tapx.ko
	else
		runs "vhostlink: insmod tapx tun_compat=1" insmod /modules/tapx.ko tun_compat=1
	fi
	# tapx_tun and stock tun exclude each other; tapx itself does not.
	if [ -n "$vl_tun" ]; then
		if insmod /modules/tapx_tun.ko 2>/dev/null; then
			bad "vhostlink: tapx_tun loaded beside tun"
			rmmod tapx_tun
		else
			runs "vhostlink: tapx_tun refused beside tun (duplicate symbol)" \
				sh -c 'dmesg | grep -q "exports duplicate symbol tun_get_socket"'
		fi
		for d in ta tb; do ip link del $d 2>/dev/null; done
		runs "vhostlink: rmmod tun" rmmod tun
	fi

	for m in vhost_iotlb vhost tap; do
		mod_loaded $m || runs "vhostlink: insmod $m" insmod /modules/$m.ko
	done
	if insmod /modules/vhost_net.ko 2>/dev/null; then
		bad "vhostlink: vhost_net loaded without tun or tapx_tun"
		rmmod vhost_net
	else
		good "vhostlink: vhost_net refused without tun or tapx_tun"
	fi

	runs "vhostlink: insmod tapx_tun" insmod /modules/tapx_tun.ko
	for s in tun_get_socket tun_get_tx_ring tun_ptr_free; do
		check "vhostlink: module of $s in kallsyms" "[tapx_tun]" \
			"$(awk -v s=$s '$3 == s { print $4 }' /proc/kallsyms |
				head -n 1)"
	done
	dm=$(dmesg | wc -l)
	runs "vhostlink: insmod vhost_net" insmod /modules/vhost_net.ko
	runs "vhostlink: no CRC complaint" sh -c "! dmesg | tail -n +$((dm + 1)) | grep -q 'disagrees about version'"
	runs "vhostlink: /dev/vhost-net is a char device" test -c /dev/vhost-net
	runs "vhostlink: vhost_net holds tapx_tun" test -e /sys/module/tapx_tun/holders/vhost_net
	runs "vhostlink: tapx_tun holds tapx" test -e /sys/module/tapx/holders/tapx_tun
	if rmmod tapx_tun 2>/dev/null; then
		bad "vhostlink: rmmod tapx_tun succeeded under vhost_net"
	else
		good "vhostlink: rmmod tapx_tun refused under vhost_net"
	fi
	if rmmod tapx 2>/dev/null; then
		bad "vhostlink: rmmod tapx succeeded under tapx_tun"
	else
		good "vhostlink: rmmod tapx refused under tapx_tun"
	fi
	runs "vhostlink: rmmod vhost_net" rmmod vhost_net
	runs "vhostlink: rmmod tapx_tun" rmmod tapx_tun
	for m in tap vhost vhost_iotlb; do
		runs "vhostlink: rmmod $m" rmmod $m
	done
	[ -n "$vl_tapx" ] || runs "vhostlink: rmmod tapx" rmmod tapx
	[ -z "$vl_tun" ] || runs "vhostlink: insmod tun again" insmod /modules/tun.ko
}

if [ -f /modules/vhost_net.ko ]; then
	vl_main
else
	bad "vhostlink: no /modules/vhost_net.ko (tests/vm/run.sh packs it)"
fi
