# Runs every VM suite in order; prints "N passed, N failed" last.
. /tests/lib.sh
cd /tmp
{
	for s in load abi xdp verdicts redirect noskb vnet attach cli bpf teardown leak unload; do
		echo "--- suite $s"
		. /tests/suite-$s.sh
	done
} 2>&1 | tee /tmp/results
p=$(grep -c '^PASS' /tmp/results)
f=$(grep -c '^FAIL' /tmp/results)
echo "$p passed, $f failed"
