# The policy program's in-kernel tests (tests/bpf) on this kernel: the
# program must load and decide exactly as on the host's kernel.
if [ ! -x /bin/bpf_test ]; then
	fail "bpf: build/tests/bpf/bpf_test missing (make -C tests/bpf)"
else
	bpf_test >/tmp/bpf_test.out 2>&1
	rc=$?
	# Its own closing line would be taken for this suite's: leave it out.
	grep -v '^[0-9]* passed, [0-9]* failed$' /tmp/bpf_test.out |
		sed 's/^\(PASS\|FAIL\) /\1 bpf: /'
	if [ $rc != 0 ] && ! grep -q '^FAIL' /tmp/bpf_test.out; then
		fail "bpf: bpf_test exited with status $rc"
	fi
fi
