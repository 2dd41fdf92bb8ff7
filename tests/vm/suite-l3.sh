# IFF_TUN (L3) devices the way a VPN daemon uses them, on stock tun.ko (the
# reference) and on tapx in the same boot: PI and IFF_NO_PI, vnet header,
# IPv4 and IPv6 both ways, TUN_PKT_STRIP, two queues, TUNSETLINK, persist,
# owner and group (tapx-l3 run). Then XDP: refused on an L3 device as tun
# has none there, while a tap still takes a program.
# The owner/group cases open the node as other users: 0666, as udev makes
# /dev/net/tun on a host (devtmpfs leaves tun's at 0600).
tmode=$(stat -c %a $T)
chmod 0666 $T
tool tapx-l3 run $T 1
chmod "$tmode" $T
tool tapx-l3 run $X 2

runs "create L3 device l3tun (tun.ko)" tapx-l3 mk $T l3tun
runs "create L3 device l3tapx (tapx)" tapx-l3 mk $X l3tapx
check "l3tapx driver" tapx "$(ethtool -i l3tapx | awk '/^driver:/ { print $2 }')"
for d in l3tun l3tapx; do
	if xdp_attach $d xdp_pass >/tmp/l3.xdp.$d 2>&1; then
		bad "xdpdrv attach on L3 $d refused"
		xdp_detach $d
	else
		good "xdpdrv attach on L3 $d refused"
	fi
done
runs "tapx says why (extack)" grep -q "no XDP on an IFF_TUN device" /tmp/l3.xdp.l3tapx
runs "xdpdrv attach on tap xa still works" xdp_attach xa xdp_pass
runs "xdpdrv detach from xa" xdp_detach xa
runs "remove l3tun" tapx-l3 rm $T l3tun
runs "remove l3tapx" tapx-l3 rm $X l3tapx
runs "l3tapx is gone" test ! -e /sys/class/net/l3tapx
