# The policy program's in-kernel tests (tests/bpf) on this kernel: the
# program must load and decide exactly as on the host's kernel. One test
# puts the tc program on a real tap's clsact egress: stock tun, clsact
# (sch_ingress) and cls_bpf are loaded for it unless an earlier suite did.
[ -c $T ] || insmod /modules/tun.ko || bad "bpf: insmod tun"
for m in sch_ingress cls_bpf; do
	grep -q "^$m " /proc/modules || insmod /modules/$m.ko || bad "bpf: insmod $m"
done
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
# vmbpfcost=N: the policy's cost table too (bpf_test --cost N; under the
# instruction counter, kernel instructions per frame), of this tree's
# build and then of the others run.sh packed (VM_BPF_TEST_ALSO), one boot.
if [ -n "${vmbpfcost:-}" ]; then
	for t in /bin/bpf_test /bin/bpf_test-*; do
		[ -x "$t" ] || continue
		echo "  cost of ${t#/bin/}:"
		if $t --cost "$vmbpfcost" >/tmp/bpf_cost.out 2>&1; then
			sed 's/^/    /' /tmp/bpf_cost.out
		else
			sed 's/^/    /' /tmp/bpf_cost.out
			bad "bpf: ${t#/bin/} --cost $vmbpfcost failed"
		fi
	done
fi
