# Modules load; the programs load and pin; the devices exist.
runs "insmod tun.ko" insmod /modules/tun.ko
runs "insmod tapx.ko" insmod /modules/tapx.ko
runs "/dev/net/tapx is a char device" test -c $X
runs "bpftool loads xdp_basic" bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
for p in xdp_pass xdp_drop xdp_tx xdp_redirect; do
	runs "program $p pinned" test -e $B/$p
done
# Test devices: xa -> xb (tapx), ta -> tb (stock tun); MTU for 64 KiB frames.
runs "create tapx xa" tapx-dev mk $X xa 65521
runs "create tapx xb" tapx-dev mk $X xb 65521
runs "create tun ta" tapx-dev mk $T ta 65521
runs "create tun tb" tapx-dev mk $T tb 65521
check "xa driver" tapx "$(ethtool -i xa | awk '/^driver:/ { print $2 }')"
# Beside tun.ko, tapx's devices are of their own link kind.
runs "xa is of link kind tapx" sh -c '/bin/ip -d link show xa | grep -q "^ *tapx "'
