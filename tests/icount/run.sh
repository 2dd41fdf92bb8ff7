#!/bin/sh
# The VM bench's instruction counter (tests/vm/icount, a QEMU TCG plugin):
# it builds against the plugin API header make deps fetched, QEMU loads
# it, and it counts a fixed guest workload the same twice
# (tests/vm/suite-icount.sh), in one short boot of the default VM kernel
# (VM_KERNEL), in a work folder of its own.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export VM_ICOUNT=1 VM_OUT=${VM_OUT:-${BUILD:-$TOP/build}/vm-icount}
export VM_APPEND="vmsuites=icount ${VM_APPEND:-}"
exec sh "$TOP/tests/vm/run.sh"
