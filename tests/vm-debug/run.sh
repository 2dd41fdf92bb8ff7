#!/bin/sh
# The VM suite (tests/vm) on the debug guest kernel of mk/debug-kernel.sh:
# KASAN, kmemleak, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_OBJECTS.
# The kernel is built first when this machine has no cached build of the
# current config (a cold build takes a while: see docs/reliability.md).
# Environment: BUILD, VM_OUT (default build/vm-debug), VM_TIMEOUT (default
# 2400 s, about twice its run), VM_APPEND (as tests/vm),
# DEBUG_KERNEL_CACHE and JOBS (as mk/debug-kernel.sh).
# Ends with tests/vm's "N passed, N failed"; the console log is in
# build/vm-debug/console-test.log.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}

fail() {
	echo "vm-debug: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

start=$(date +%s)
env=$(sh "$TOP/mk/debug-kernel.sh") || fail "the debug kernel did not build"
echo "vm-debug: debug kernel ready after $(($(date +%s) - start)) s"
eval "$env"
export KERNEL KVER MODBASE KDIR
# Without a vmsuites= of the caller's, every suite but those whose kernel
# paths the others cover, for make test's time: the bpf program's tests
# (no tapx), the CLI, 1000 taps of the plane, the two-way policies on
# tapx taps (near five minutes here, 20 to 30 s on the stock kernels), QEMU
# and the bench and install smokes.
case ${VM_APPEND:-} in
*vmsuites=*) ;;
*) VM_APPEND="vmskip=bpf,cli,plane,twoway,qemu,benchload,install ${VM_APPEND:-}" ;;
esac
export VM_APPEND
KMOD_BUILD=$BUILD/debug VM_OUT=${VM_OUT:-$BUILD/vm-debug} BUILD=$BUILD \
	VM_TIMEOUT=${VM_TIMEOUT:-2400} exec sh "$TOP/tests/vm/run.sh"
