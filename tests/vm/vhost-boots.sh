#!/bin/sh
# The VM bench's vhost rows (tests/vm/bench.sh, vhost_bench) over several
# boots of one kernel: make vmbench-vhost [BOOTS=N] [VM_KERNEL=6.12].
#
# Within a boot the rounds agree, but a cell's tapx/tun.ko ratio moves by
# up to about 10% from one boot to the next, with or without KASLR: what
# the emulator makes of a boot's layout weighs on each driver differently.
# So each of BOOTS boots (4) runs the vhost rows, and the table gives per
# cell and size the minimum over every round of every boot for each driver
# and their ratio, then each boot's own ratio: the median and the range.
# VM_APPEND sizes the boots as for make vmbench (vmreps=, vmvhostruns=,
# vmvhostframes=, vmvhostcells=, vmvhostsizes=); each boot's output is in
# VM_OUT (build/vm-vhost/<kernel>) as boot-N.log.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
BOOTS=${BOOTS:-4}
case $BOOTS in
'' | *[!0-9]* | 0)
	echo "vhost-boots: BOOTS=$BOOTS: a number of boots, 1 or more" >&2
	exit 2
	;;
esac
OUT=${VM_OUT:-$TOP/build/vm-vhost/${VM_KERNEL:-6.1}}
mkdir -p "$OUT"
: >"$OUT/vhost.csv"
failed=0
b=1
while [ $b -le "$BOOTS" ]; do
	log=$OUT/boot-$b.log
	echo "vhost-boots: boot $b of $BOOTS, log in ${log#"$TOP"/}"
	VM_OUT=$OUT/vm VM_APPEND="vmnotapaccel=1 vmnotapxbench=1 ${VM_APPEND:-}" \
		sh "$HERE/run.sh" --bench >"$log" 2>&1 || true
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	case $line in
	*" passed, 0 failed"*) ;;
	*)
		echo "vhost-boots: boot $b failed (${line:-no result line}):"
		grep -E '^(FAIL|vm:)' "$log" | head -n 20
		failed=$((failed + 1))
		;;
	esac
	# vhost_table's CSV lines: vhost,CELL,SIZE,TUN,TAPX.
	grep '^vhost,' "$log" | sed "s/^vhost,/$b,/" >>"$OUT/vhost.csv"
	b=$((b + 1))
done

echo "--- vhost-net over $BOOTS boots of ${VM_KERNEL:-6.1}: ns per frame, each driver's"
echo "    minimum over every round of every boot; then each boot's tapx/tun"
echo "    (its own minima): median, lowest and highest"
printf '%-12s %-5s %9s %9s %7s   %6s %6s %6s\n' cell size tun tapx ratio median low high
awk -F, '
# The space-separated numbers of s, sorted into v[1..n]; returns n.
function sorted(s, v,    n, i, j, t) {
	n = split(s, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n
}
$4 > 0 && $5 > 0 {
	k = $2 " " $3
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	if (!(k in t) || $4 < t[k]) t[k] = $4
	if (!(k in x) || $5 < x[k]) x[k] = $5
	ratios[k] = ratios[k] " " $5 / $4
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, a, " ")
		m = sorted(ratios[k], v)
		med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		printf "%-12s %-5s %9d %9d %7.2f   %6.2f %6.2f %6.2f\n", a[1], a[2],
			t[k], x[k], x[k] / t[k], med, v[1], v[m]
	}
}' "$OUT/vhost.csv"
echo "$((BOOTS - failed)) passed, $failed failed"
[ $failed -eq 0 ]
