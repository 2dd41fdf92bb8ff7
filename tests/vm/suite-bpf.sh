# The policy program's in-kernel tests (tests/bpf) on this kernel: the
# program must load and decide exactly as on the host's kernel.
if [ ! -x /bin/bpf_test ]; then
	bad "bpf: build/tests/bpf/bpf_test missing (make -C tests/bpf)"
else
	bpf_test >/tmp/bpf_test.out 2>&1
	rc=$?
	# Its PASS and FAIL lines are checks, its closing line is not.
	tool_lines "bpf: " </tmp/bpf_test.out
	if [ $rc != 0 ] && ! grep -q '^FAIL' /tmp/bpf_test.out; then
		bad "bpf: bpf_test exited with status $rc"
	fi
fi
