#!/bin/sh
# The bpf suite: build the runner if needed, then run every test in the
# kernel. Needs root (BPF_PROG_TEST_RUN, map creation).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if ! make -s -C "$here" >&2; then
	echo "FAIL build: make -C tests/bpf failed"
	echo "0 passed, 1 failed"
	exit 1
fi
exec "${BUILD:-$top/build}/tests/bpf/bpf_test" "$@"
