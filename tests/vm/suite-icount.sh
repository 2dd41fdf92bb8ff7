# The instruction counter (tests/vm/icount, QEMU loaded it: vmicount=):
# a fixed workload counted twice gives the same count. tapx-icount loop N
# runs 2N user-space instructions between the markers (dec, jnz): its user
# count is that and exact, whatever interrupts or vCPUs do meanwhile; the
# write() workload's user count is exact too; its kernel counts are shown
# and vary a little (timer
# and housekeeping work on either vCPU falls into the interval).
if [ -z "${vmicount:-}" ]; then
	bad "icount: QEMU runs without the instruction counter (VM_ICOUNT=1 tests/vm/run.sh)"
else
	n=1000000
	set -- $(tapx-icount loop $n) && a=$2 || bad "icount: tapx-icount loop $n"
	set -- $(tapx-icount loop $n) && b=$2 || bad "icount: tapx-icount loop $n (again)"
	check "icount: user instructions of the same loop, twice" "${a:-none}" "${b:-}"
	at_least "icount: user instructions of $n rounds of dec, jnz" $((2 * n)) "${a:-}"
	at_most "icount: user instructions of $n rounds of dec, jnz" $((2 * n + 1000)) "${a:-}"
	users=
	for i in 1 2; do
		if set -- $(tapx-icount null 10000); then
			echo "  10000 write()s to /dev/null: $1 instructions ($2 user, $3 kernel; per vCPU: ${4:-} ${5:-})"
			at_least "icount: kernel instructions of 10000 write()s" 10000 "$3"
			users="$users $2"
		else
			bad "icount: tapx-icount null 10000"
		fi
	done
	set -- $users
	check "icount: user instructions of 10000 write()s, twice" "${1:-none}" "${2:-}"
fi
