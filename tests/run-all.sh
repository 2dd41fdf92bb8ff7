#!/bin/sh
# Run every test suite; each suite is tests/<name>/run.sh and ends with its
# own "N passed, N failed" line (", N skipped" when it skipped checks it could
# not run here), but vm-<series> (vm-6.1, vm-6.12), which is tests/vm/run.sh
# on that kernel (VM_KERNEL). A suite that is missing or ends without that
# line counts as a failure. A skip is counted and printed, never as a pass.
# Each suite's time follows it; the totals come last.
set -u
cd "$(dirname "$0")"

SUITES=${SUITES:-"unit bpf host security agent agent-fault adapters bench diff fuzz vm-6.1 vm-6.12 vm-7.3 dkms deb vm-debug guests"}

# vm-debug's kernel takes about 45 minutes of CPU to build where none is
# cached. Started first, at the lowest priority, it builds in the time the
# suites before vm-debug leave a CPU idle (downloads, guests waiting), and
# vm-debug's own call of mk/debug-kernel.sh waits for it (one build at a
# time; a waiter finds the cache filled). Stopped if this run ends first.
prebuild=
case " $SUITES " in
*" vm-debug "*)
	if ! sh ../mk/debug-kernel.sh --print-env >/dev/null 2>&1; then
		mkdir -p ../build
		setsid nice -n 19 sh ../mk/debug-kernel.sh \
			>../build/debug-kernel.log 2>&1 </dev/null &
		prebuild=$!
		echo "debug kernel: building at nice 19 beside the suites (build/debug-kernel.log)"
	fi
	;;
esac
trap '[ -z "$prebuild" ] || kill -- -"$prebuild" 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# The lines of a failed suite's log that say why: the last inner suite it
# started (the VM suites), its first failures or kernel reports, its end.
failure_digest() {
	echo "--- why $1 failed (from its output above):"
	grep -E '^--- suite [a-z0-9-]+$' "$2" | tail -n 1
	grep -E '^FAIL|BUG:|WARNING:|RIP:|Oops|[Kk]ernel panic|still running after|timed out|did not finish|ended without' "$2" |
		awk '!seen[$0]++' | head -n 8
	tail -n 2 "$2"
}

total_pass=0
total_fail=0
total_skip=0
# What failed suites said, repeated at the end: CI shows only the last lines
# of a run, and a failure's cause is far above them otherwise.
digest=""
failed_suites=""
skipping_suites=""

for s in $SUITES; do
	echo "=== suite $s"
	start=$(date +%s)
	log=$(mktemp)
	dir=$s kernel=
	case $s in vm-[0-9]*) dir=vm kernel=${s#vm-} ;; esac
	if [ -x "$dir/run.sh" ]; then
		{ VM_KERNEL=${kernel:-${VM_KERNEL:-}} "./$dir/run.sh"; echo $? >"$log.rc"; } 2>&1 | tee "$log"
	else
		echo "suite $s: tests/$s/run.sh is missing" | tee "$log"
	fi
	rc=$(cat "$log.rc" 2>/dev/null || echo 1)
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=0
	f=1
	if [ -z "$line" ]; then
		echo "suite $s: ended without a 'N passed, N failed' line"
	else
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
		k=0
		case $line in *" skipped"*) k=${line##*failed, } k=${k%% skipped*} ;; esac
		total_skip=$((total_skip + k))
		[ "$k" -gt 0 ] && skipping_suites="$skipping_suites $s($k)"
		if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
			echo "suite $s: exited with status $rc"
			f=1
		fi
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$f" -gt 0 ]; then
		failed_suites="$failed_suites $s"
		digest="$digest$(failure_digest "$s" "$log")
"
	fi
	echo "=== suite $s: $(($(date +%s) - start)) s"
	rm -f "$log" "$log.rc"
done

printf '%s' "$digest"
[ -n "$failed_suites" ] && echo "failing suites:$failed_suites"
[ -n "$skipping_suites" ] && echo "suites that skipped checks:$skipping_suites"
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
