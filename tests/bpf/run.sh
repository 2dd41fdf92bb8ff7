#!/bin/sh
# The bpf suite: build the runner if needed, then run every test in the
# kernel, once with each build of the policy program (tap_accel, and
# tap_accel_compat, the one kernels before 6.3 take). Needs root
# (BPF_PROG_TEST_RUN, map creation). Arguments go to the runner (a test
# name prefix).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if ! make -s -C "$here" >&2; then
	echo "FAIL build: make -C tests/bpf failed"
	echo "0 passed, 1 failed"
	exit 1
fi
. "$top/tests/lib/check.sh"
runner=${BUILD:-$top/build}/tests/bpf/bpf_test
for prog in tap_accel compat; do
	echo "# the program: $prog"
	out=$(TAP_ACCEL_PROG=$([ $prog = compat ] && echo compat) "$runner" "$@")
	rc=$?
	echo "$out" | sed '$d'
	failed=$fail
	tally "bpf_test ($prog)" "$(echo "$out" | tail -n 1)"
	[ $rc -eq 0 ] || [ "$fail" -gt "$failed" ] || bad "bpf_test ($prog) exited $rc"
done
finish
