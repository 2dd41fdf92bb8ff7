# Runs every VM suite in order; prints "N passed, N failed" last.
# vmsuites=load,xdp,unload on the kernel command line (VM_APPEND) runs only
# those, in that order: for working on one suite.
. /tests/lib.sh
cd /tmp
SUITES="load abi xdp verdicts redirect noskb batch vnet l3 napi attach mq vhost cli bpf teardown stress fuzz leak unload vhostlink benchload install"
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vmsuites=*) SUITES=$(echo "${arg#vmsuites=}" | tr , ' ') ;;
	esac
done
{
	for s in $SUITES; do
		echo "--- suite $s"
		. /tests/suite-$s.sh
	done
} 2>&1 | tee /tmp/results
p=$(grep -c '^PASS' /tmp/results)
f=$(grep -c '^FAIL' /tmp/results)
echo "$p passed, $f failed"
