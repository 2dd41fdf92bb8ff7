#!/bin/sh
# The VM suites' vm*= kernel arguments against their table in
# tests/vm/README.md: every one the files of tests/vm read is in the table,
# every one in the table is read somewhere, and tests/vm/run.sh refuses one
# that is not there before it builds or boots anything. No root, no VM.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")"
TOP=$(cd ../.. && pwd)
VM=$TOP/tests/vm
. "$TOP/tests/lib/check.sh"
. "$VM/knobs.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

knobs_documented "$VM/README.md" >"$tmp/table"
knobs_read "$VM" >"$tmp/read"
at_least "vm knobs: rows of the table" 40 "$(wc -l <"$tmp/table")"
at_least "vm knobs: names read in tests/vm" 40 "$(wc -l <"$tmp/read")"
check "vm knobs read in tests/vm but not in tests/vm/README.md's table" "" \
	"$(comm -13 "$tmp/table" "$tmp/read" | tr '\n' ' ')"
check "vm knobs in tests/vm/README.md's table that nothing in tests/vm reads" "" \
	"$(comm -23 "$tmp/table" "$tmp/read" | tr '\n' ' ')"
check "knobs_unknown: the unknown ones, in order" "vmbogus vmsuite" \
	"$(knobs_unknown "$VM/README.md" console=ttyS0 vmsuites=load vmbogus=1 vmalloc=1G vmsuite=cli |
		tr '\n' ' ' | sed 's/ $//')"

# run.sh refuses before anything else; VM_KERNEL=none makes sure that, if
# it did not, it stops at the kernel's name instead of booting.
expect_exit 1 "unknown kernel argument\(s\) in VM_APPEND: vmsuits - .*tests/vm/README.md" \
	env VM_KERNEL=none VM_APPEND="vmsuits=load,cli" sh "$VM/run.sh"
expect_exit 1 "kernels: unknown series none" \
	env VM_KERNEL=none VM_APPEND="vmsuites=load,cli vmfuzz=5" sh "$VM/run.sh"
finish
