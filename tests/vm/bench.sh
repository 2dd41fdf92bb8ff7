. /tests/lib.sh
insmod /modules/tun.ko
insmod /modules/tapx.ko
bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
bpftool prog load /bpf/trivial.bpf.o /sys/fs/bpf/triv
tapxt mk $X bx0 65521
tapxt mk $T bt0 65521
xdp_attach bx0 xdp_drop
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m() { v=; for r in 1 2 3 4 5; do set -- $("$@"); v="$v $1"; done; echo $v | median; }
for size in 64 1500; do
echo "size $size floor $(m tapx-bench floor - $size nonblock 20000)"
for d in 1 2 3 0; do
  echo $d > /sys/module/tapx/parameters/dbg
  echo "size $size dbg $d: $(m tapx-bench $X bx0 $size nonblock 20000)"
done
bpftool net attach xdpdrv pinned /sys/fs/bpf/triv dev bx0 overwrite
echo "size $size trivial prog: $(m tapx-bench $X bx0 $size nonblock 20000)"
xdp_attach bx0 xdp_drop
xdp_attach bt0 xdp_drop
echo "size $size tun xdp_drop: $(m tapx-bench $T bt0 $size nonblock 20000)"
bpftool net attach xdpdrv pinned /sys/fs/bpf/triv dev bt0 overwrite
echo "size $size tun trivial: $(m tapx-bench $T bt0 $size nonblock 20000)"
done
echo "0 passed, 0 failed"
