#!/bin/sh
# The differential suite: the policy program (BPF_PROG_TEST_RUN) against
# the reference model on random and mutated frames under random policies,
# and on sequences of frames both ways (connections) under random two-way
# policies, alone and between two bound taps that redirect to each other
# (the second a tap the test makes, tadiffN, gone when it exits), then
# `tap-accel policy explain` (explain.sh). Needs root and /dev/net/tun.
# Arguments go to diff_test (--seed N, --frames N, --policies N,
# --sequences N, --pairs N); DIFF_FRAMES and DIFF_SEED set the defaults
# (10^6 frames, seed 1). Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if ! make -s -C "$here" >&2; then
	echo "FAIL build: make -C tests/diff failed"
	echo "0 passed, 1 failed"
	exit 1
fi
. "$top/tests/lib/check.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"${BUILD:-$top/build}/tests/diff/diff_test" --seed "${DIFF_SEED:-1}" \
	--frames "${DIFF_FRAMES:-1000000}" "$@" | tee "$out"
tally diff_test "$(tail -n 1 "$out")"
sh "$here/explain.sh" | tee "$out"
tally explain.sh "$(tail -n 1 "$out")"
finish
