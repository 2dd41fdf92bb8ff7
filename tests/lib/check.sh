# Sourced by the shell test suites: the pass/fail count, the usual
# assertions and the closing line. expect_exit() writes to "$tmp", the
# suite's scratch folder, which the suite makes before its first use.
# (tests/vm/lib.sh, the VM's library, has an `ok` that runs a command and
# an `expect` of counter deltas: the names here are other ones.)

pass=0
fail=0
# good: count a pass; bad MESSAGE: count a failure and say what failed.
good() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# finish: the closing "N passed, N failed" line; exits 1 if any failed.
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

# check NAME WANT GOT
check() {
	if [ "$2" = "$3" ]; then good; else bad "$1: want '$2', got '$3'"; fi
}

# runs DESC CMD...: CMD exits 0; its output is shown when it does not.
runs() {
	desc=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		good
	else
		bad "$desc: '$*' exited $?, output:"
		sed 's/^/    /' "$tmp/out" | tail -n 30
	fi
}

# expect_exit CODE PATTERN CMD...: exit status CODE and PATTERN (grep -E) in
# the output, stdout and stderr together.
expect_exit() {
	code=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = "$code" ] && grep -qE -- "$pattern" "$tmp/out"; then
		good
	else
		bad "'$*': exit $rc (want $code), output:"
		sed 's/^/    /' "$tmp/out"
		echo "    (wanted /$pattern/)"
	fi
}
