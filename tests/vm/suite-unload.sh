# rmmod with an open fd fails cleanly; without, it removes every tapx device
# (persistent ones with programs attached included). Then tun_compat.
skb_before=$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo)
xdp_attach xa xdp_drop
tapx-dev hold $X hold0 4 >/tmp/hold.out &
hpid=$!
sleep 2
if rmmod tapx 2>/dev/null; then
	bad "unload: rmmod with an open fd succeeded"
else
	good "unload: rmmod with an open fd refused"
fi
wait $hpid
check "unload: holder exit status" 0 $?
# A namespace's default program (tapx-unbound) goes with the module.
defprog=$(tapx-unbound set-new)
runs "unload: rmmod tapx" rmmod tapx
n=50
while [ $n -gt 0 ] && bpftool prog show id "$defprog" >/dev/null 2>&1; do
	sleep 0.1
	n=$((n - 1))
done
runs "unload: the default program ${defprog:-?} freed with tapx" sh -c "[ -n '$defprog' ] && ! bpftool prog show id '$defprog'"
runs "unload: tapx devices gone" sh -c '! ls /sys/class/net | grep -qE "^(xa|xb|hold0)$"'
runs "unload: /dev/net/tapx gone" test ! -e $X
skb_after=$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo)
runs "unload: skbuff_head_cache $skb_before -> $skb_after objects (within 256)" \
	test $((skb_after - skb_before)) -lt 256

# tun_compat: refused while tun holds minor 200, works once it is gone.
if insmod /modules/tapx.ko tun_compat=1 2>/dev/null; then
	bad "compat: tun_compat=1 loaded while tun is loaded"
	rmmod tapx
else
	runs "compat: tun_compat=1 refused while tun is loaded" sh -c 'dmesg | grep -q "rtnl link kind tun is taken (is tun loaded?)"'
fi
ip link del ta
ip link del tb
runs "compat: rmmod tun" rmmod tun
runs "compat: insmod tapx tun_compat=1" insmod /modules/tapx.ko tun_compat=1
check "compat: /dev/net/tun is misc 10:200" 10:200 "$(cat /sys/class/misc/tun/dev)"
runs "compat: create compat0 via /dev/net/tun" tapx-dev mk $T compat0
# In tun's place, tun's driver name; the version field and /sys/module
# tell that tapx serves.
check "compat: compat0 driver" tun "$(ethtool -i compat0 2>/dev/null | awk '/^driver:/ { print $2 }')"
check "compat: compat0 version" "tapx $(cat /VERSION)" "$(ethtool -i compat0 2>/dev/null | sed -n 's/^version: //p')"
runs "compat: /sys/module/tapx, no /sys/module/tun" sh -c 'test -d /sys/module/tapx && test ! -e /sys/module/tun'
tool tapx-dev run --src $T:compat0 --size 60 --count 10 --dst packet:compat0 --expect 10
# A VPN daemon on the host's /dev/net/tun, which is tapx now: suite-l3's
# cases again (devices l33*).
tool tapx-l3 run $T 3
runs "compat: rmmod tapx" rmmod tapx
