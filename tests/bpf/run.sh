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
runner=${BUILD:-$top/build}/tests/bpf/bpf_test
pass=0
fail=0
for prog in tap_accel compat; do
	echo "# the program: $prog"
	out=$(TAP_ACCEL_PROG=$([ $prog = compat ] && echo compat) "$runner" "$@")
	rc=$?
	echo "$out" | sed '$d'
	line=$(echo "$out" | tail -n 1)
	case $line in
	*" passed, "*" failed")
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
		;;
	*) echo "FAIL $prog: the runner ended without its tally (exit $rc)"; p=0 f=1 ;;
	esac
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
