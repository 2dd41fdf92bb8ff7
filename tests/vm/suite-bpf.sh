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
