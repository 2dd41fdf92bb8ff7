#!/bin/sh
# Fuzz suite: builds the libFuzzer targets (tests/fuzz/Makefile) and runs
# each for FUZZ_SECONDS (default 30), one after the other (one core). The
# seed corpus tests/fuzz/corpus/<target>/ is read, never written: new
# inputs go to a scratch directory. A target passes if it ran without a
# crash, leak or UB report and executed at least one input; crash inputs
# are kept in build/tests/fuzz/artifacts/ (add them to the corpus with the
# fix). FUZZ_TARGETS picks targets. Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${BUILD:-$top/build}/tests/fuzz
seconds=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-"policy_parse model_frame"}
pass=0
fail=0

if ! make -s -C "$here" >&2; then
	echo "FAIL build: make -C tests/fuzz failed (clang with libclang-rt?)"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir -p "$out/artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for t in $targets; do
	mkdir -p "$scratch/$t"
	log=$scratch/$t.log
	"$out/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" -close_fd_mask=1 \
		"$scratch/$t" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" = 0 ] && [ "${execs:-0}" -gt 0 ]; then
		pass=$((pass + 1))
		echo "PASS fuzz_$t: $execs executions in ${seconds} s," \
			"$(ls "$scratch/$t" | wc -l) new corpus inputs"
	else
		fail=$((fail + 1))
		echo "FAIL fuzz_$t: exit $rc after ${execs:-0} executions; log tail:"
		grep -v '^#' "$log" | tail -n 40 | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
