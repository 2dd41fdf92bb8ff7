# make bench's host path where the kernel loads modules, run here because
# the guest's kernel does (the development host's does not): mk/bench.sh
# (copied in as /tests/make-bench.sh) finds it can load tapx.ko, loads the
# prebuilt one on /dev/net/tapx, benches it beside stock tun in one run and
# unloads it; interrupted in the middle, it still unloads it and leaves no
# tap or pin behind. A tiny matrix: the figures are not the point.
# Leaves the modules and tapx devices as it found them.
bl_drv() { ethtool -i "$1" 2>/dev/null | awk '/^driver:/ { print $2 }'; }
bl_links() { ls /sys/class/net | sort | tr '\n' ' '; }
bl_pins() { find /sys/fs/bpf | sort | tr '\n' ' '; }
bl_tapx=
bl_devs=
if grep -q '^tapx ' /proc/modules; then
	bl_tapx=1
	for n in $(ls /sys/class/net); do
		[ "$(bl_drv $n)" = tapx ] && bl_devs="$bl_devs $n"
	done
	runs "benchload: rmmod tapx (loaded by an earlier suite)" rmmod tapx
fi
bl_tun=
grep -q '^tun ' /proc/modules && bl_tun=1
[ -n "$bl_tun" ] || runs "benchload: insmod tun" insmod /modules/tun.ko
links0=$(bl_links)
pins0=$(bl_pins)
bl_args="--programs xdp-drop-native,fwd-redirect --writers block,batch64 --sizes 64"

# The scale table small: the plane on this kernel, two rows. The firewall
# table has a run of its own in the VM bench (tests/vm/bench.sh, with the
# nftables modules it loads): not here.
BENCH_SCALE_TAPS=1,10 BENCH_FIREWALL_CONNS=none BIN=/bin/tap-accel-bench TAPX_KO=/modules/tapx.ko \
	sh /tests/make-bench.sh --out /tmp/benchload \
	-- $bl_args --frames 200 --reps 1 >/tmp/benchload.out 2>&1
rc=$?
check "benchload: make bench's script exits" 0 $rc
grep -q '^tapx ' /proc/modules && tail -n 20 /tmp/benchload.out | sed 's/^/    /'
runs "benchload: the scale table, 10 taps on the plane" grep -q '^    10  *[0-9.]* KiB ' /tmp/benchload/report.txt
runs "benchload: it found it can load tapx.ko and did" \
	grep -q 'loaded on /dev/net/tapx beside stock tun' /tmp/benchload.out
runs "benchload: tapx.ko unloaded after" sh -c '! grep -q "^tapx " /proc/modules'
runs "benchload: /dev/net/tapx gone" test ! -e $X
runs "benchload: results.json lists both drivers" \
	sh -c 'tr -d " \n" </tmp/benchload/results.json | grep -q "\"drivers\":\[\"tun\",\"tapx\"\]"'
runs "benchload: tapx's batched drop ran (results.csv)" \
	grep -q '^host,tapx,xdp-drop-native,batch64,64,baseline,ok,' /tmp/benchload/results.csv
runs "benchload: tun's drop ran (results.csv)" \
	grep -q '^host,tun,xdp-drop-native,block,64,baseline,ok,' /tmp/benchload/results.csv
check "benchload: the headline has tapx's batched drop" \
	1 "$(sed 's/"[^"]*"//g' /tmp/benchload/headline.csv |
		awk -F, '$1 == "xdp-drop-batch64" { print ($9 != "") }')"
runs "benchload: the headline is in report.txt" grep -q '^XDP_DROP, batches of 64' /tmp/benchload/report.txt
check "benchload: links as before" "$links0" "$(bl_links)"

# Interrupted once tapx.ko is in and the bench runs: the script in the
# foreground in a session of its own (in a background job SIGINT would be
# ignored), SIGINT to the session, as a terminal's Ctrl-C.
rm -f /tmp/benchint.pid
(
	i=0
	until [ -s /tmp/benchint.pid ] &&
		grep -q '^tap-accel-bench: [0-9]* cells' /tmp/benchint.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || break
		sleep 0.1
	done
	sleep 1
	grep -q '^tapx ' /proc/modules && touch /tmp/benchint.loaded
	kill -INT -"$(cat /tmp/benchint.pid)"
) &
bl_killer=$!
BENCH_SCALE_TAPS=none BENCH_FIREWALL_CONNS=none BIN=/bin/tap-accel-bench TAPX_KO=/modules/tapx.ko setsid sh -c 'echo $$ >/tmp/benchint.pid;
	exec sh /tests/make-bench.sh "$@"' sh --out /tmp/benchint -- \
	--programs xdp-drop-native --writers block --sizes 64 --frames 50000 --reps 32 \
	>/tmp/benchint.out 2>&1
rc=$?
wait $bl_killer
runs "benchload: tapx.ko was in while the bench ran" test -e /tmp/benchint.loaded
check "benchload: interrupted, the script exits" 130 $rc
runs "benchload: interrupted, tapx.ko unloaded" sh -c '! grep -q "^tapx " /proc/modules'
runs "benchload: interrupted, no tap-accel-bench left" sh -c '! pidof tap-accel-bench tap-accel'
check "benchload: interrupted, links as before" "$links0" "$(bl_links)"
check "benchload: interrupted, pins as before" "$pins0" "$(bl_pins)"

# make bench's vhost-net rows (tests/vm/bench.sh's vhost_bench): every
# cell of tapx-vhost bench on tapx, a few frames each, through tapx_tun.ko
# as vhost_bench swaps it in. Each frame is counted where it arrives (the
# guest's RX ring, the other guest's, exact length) and in the counters of
# the taps it crossed (--check); the tool fails on any that is not.
# Nothing left after: no link, no policy, no vhost module, tun.ko back.
# tun.ko leaves only without its persistent devices (each holds the module)
bl_tuns=
for d in ta tb; do
	[ -e /sys/class/net/$d ] || continue
	ip link del $d
	bl_tuns="$bl_tuns $d"
done
runs "benchload: insmod tapx for the vhost cells" insmod /modules/tapx.ko
bl_mods=
for m in llc stp bridge vhost_iotlb vhost tap; do
	grep -q "^$m " /proc/modules && continue
	runs "benchload: insmod $m" insmod /modules/$m.ko
	bl_mods="$m $bl_mods"
done
runs "benchload: rmmod tun for tapx_tun" rmmod tun
runs "benchload: insmod tapx_tun" insmod /modules/tapx_tun.ko
runs "benchload: insmod vhost_net" insmod /modules/vhost_net.ko
[ -e $B/xdp_drop ] || bpftool prog loadall /bpf/xdp_basic.bpf.o $B pinmaps $BM
# Its checks counted, its figures kept apart (/tmp/vbs.out).
bl_t0=$(date +%s)
tool sh -c 'tapx-vhost bench --node '$X' --name bl0 --reps 1 --frames 64 --check >/tmp/vbs.out
	r=$?; grep -vE "^(tx|rx|g2g|tx2q|rx2q)-|^--- " /tmp/vbs.out; exit $r'
check "benchload: vhost cells: tapx-vhost bench exits" 0 $?
echo "INFO benchload: the vhost cells took $(($(date +%s) - bl_t0)) s"
check "benchload: vhost cells: a figure for each of the 36" 36 \
	"$(grep -cE '^(tx|rx|g2g|tx2q|rx2q)-[a-z]+ [0-9k]+ [a-z-]+ [1-9][0-9]*$' /tmp/vbs.out)"
check "benchload: vhost cells: no link left" "" "$(ls /sys/class/net | grep '^bl0')"
runs "benchload: vhost cells: no policy left" sh -c '! tap-accel policy list 2>/dev/null | grep -q tapx-vhost'
runs "benchload: vhost cells: no policy file left" sh -c '! ls /tmp/tapx-vhost-*.policy 2>/dev/null | grep -q .'
for m in vhost_net tapx_tun $bl_mods tapx; do
	runs "benchload: rmmod $m" rmmod $m
done
runs "benchload: insmod tun again" insmod /modules/tun.ko
for d in $bl_tuns; do runs "benchload: recreate tun $d" tapx-dev mk $T $d 65521; done

[ -n "$bl_tun" ] || runs "benchload: rmmod tun" rmmod tun
if [ -n "$bl_tapx" ]; then
	runs "benchload: insmod tapx again" insmod /modules/tapx.ko
	for n in $bl_devs; do
		runs "benchload: tapx $n again" tapx-dev mk $X $n 65521
	done
fi
