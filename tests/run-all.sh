#!/bin/sh
# Run every test suite; each suite is tests/<name>/run.sh and ends with its
# own "N passed, N failed" line (", N skipped" when it skipped checks it could
# not run here), but vm-<series> (vm-6.1, vm-6.12), which is tests/vm/run.sh
# on that kernel (VM_KERNEL). A suite that is missing or ends without that
# line counts as a failure. A skip is counted and printed, never as a pass.
# Each suite's time follows it; the totals come last.
set -u
cd "$(dirname "$0")"

# run_suite NAME LOG [live]: suite NAME, its output into LOG (and onto the
# terminal too with live), its exit status into LOG.rc, its end into
# LOG.end.
run_suite() {
	_dir=$1 _kernel=
	case $1 in vm-[0-9]*) _dir=vm _kernel=${1#vm-} ;; esac
	if [ -x "$_dir/run.sh" ]; then
		if [ -n "${3:-}" ]; then
			{ VM_KERNEL=${_kernel:-${VM_KERNEL:-}} "./$_dir/run.sh"; echo $? >"$2.rc"; } 2>&1 | tee "$2"
		else
			VM_KERNEL=${_kernel:-${VM_KERNEL:-}} "./$_dir/run.sh" >"$2" 2>&1
			echo $? >"$2.rc"
		fi
	else
		echo "suite $1: tests/$1/run.sh is missing" | tee "$2"
	fi
	date +%s >"$2.end"
}

# tests/run-all.sh --one NAME LOG: one suite, as a run of all starts it
# beside another.
if [ "${1:-}" = --one ]; then
	run_suite "$2" "$3"
	exit 0
fi

SUITES=${SUITES:-"unit bpf host security agent agent-fault adapters import bench diff fuzz icount vm-6.1 vm-6.12+vm-7.3 dkms deb vm-debug guests"}

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
trap 'exit 130' INT TERM

# The lines of a failed suite's log that say why: the last inner suite it
# started (the VM suites), its first failures or kernel reports, its end.
failure_digest() {
	echo "--- why $1 failed (from its output above):"
	grep -E '^--- suite [a-z0-9-]+$' "$2" | tail -n 1
	grep -E '^FAIL|BUG:|WARNING:|RIP:|Oops|[Kk]ernel panic|still running after|timed out|did not finish|ended without|printed nothing|^vcpus:' "$2" |
		awk '!seen[$0]++' | head -n 16
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

# tally NAME LOG: a finished suite's counts into the totals.
tally() {
	rc=$(cat "$2.rc" 2>/dev/null || echo 1)
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
	p=0
	f=1
	if [ -z "$line" ]; then
		echo "suite $1: ended without a 'N passed, N failed' line"
	else
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
		k=0
		case $line in *" skipped"*) k=${line##*failed, } k=${k%% skipped*} ;; esac
		total_skip=$((total_skip + k))
		[ "$k" -gt 0 ] && skipping_suites="$skipping_suites $1($k)"
		if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
			echo "suite $1: exited with status $rc"
			f=1
		fi
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$f" -gt 0 ]; then
		failed_suites="$failed_suites $1"
		digest="$digest$(failure_digest "$1" "$2")
"
	fi
}

# A word of SUITES is a suite, or suites joined by '+' that run side by
# side: the first one's output is shown as it comes, the others' after it.
# Each VM suite but vm-6.1 emulates on one thread (tests/vm/run.sh), so
# two of them together keep both cores busy.
logs=$(mktemp -d)
beside=""
trap '[ -z "$prebuild" ] || kill -- -"$prebuild" 2>/dev/null
	for _b in $beside; do kill -- -"$_b" 2>/dev/null; done
	rm -rf "$logs"' EXIT
for group in $SUITES; do
	start=$(date +%s)
	first=${group%%+*}
	rest=
	[ "$group" = "$first" ] || rest=$(echo "${group#*+}" | tr + ' ')
	beside=
	for s in $rest; do
		setsid sh ./run-all.sh --one "$s" "$logs/$s" </dev/null &
		beside="$beside $!"
	done
	echo "=== suite $first${rest:+ (beside it:$(printf ' %s' $rest))}"
	run_suite "$first" "$logs/$first" live
	for b in $beside; do wait "$b"; done
	beside=
	for s in $first $rest; do
		if [ "$s" != "$first" ]; then
			echo "=== suite $s (ran beside $first)"
			cat "$logs/$s"
		fi
		tally "$s" "$logs/$s"
		echo "=== suite $s: $(($(cat "$logs/$s.end" 2>/dev/null || date +%s) - start)) s"
		rm -f "$logs/$s" "$logs/$s.rc" "$logs/$s.end"
	done
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
