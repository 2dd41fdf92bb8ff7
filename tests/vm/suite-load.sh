# Modules load; the programs load and pin; the devices exist.
ok "insmod tun.ko" insmod /modules/tun.ko
ok "insmod tapx.ko" insmod /modules/tapx.ko
ok "/dev/net/tapx is a char device" test -c $X
ok "bpftool loads xdp_basic" bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
for p in xdp_pass xdp_drop xdp_tx xdp_redirect; do
	ok "program $p pinned" test -e $B/$p
done
# Test devices: xa -> xb (tapx), ta -> tb (stock tun); MTU for 64 KiB frames.
ok "create tapx xa" tapxt mk $X xa 65521
ok "create tapx xb" tapxt mk $X xb 65521
ok "create tun ta" tapxt mk $T ta 65521
ok "create tun tb" tapxt mk $T tb 65521
eq "xa driver" "$(ethtool -i xa | awk '/^driver:/ { print $2 }')" tapx
