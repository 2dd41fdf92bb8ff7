# The assertion vocabulary of every shell suite (sourced; the VM suites get
# a copy in their initramfs). A passing check is counted silently; a failing
# one prints "FAIL: ..." and a skipped one "SKIP: ...", and `finish` ends the
# suite with its closing line. A skip is never a pass: it says what was not
# run here and why, and make test counts and prints it apart.
# expect_exit() and runs() write to "$tmp", the suite's scratch folder, which
# the suite makes before their first use.

pass=0
fail=0
skipped=0
# good DESC: count a pass. bad DESC: count a failure and say what failed.
good() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# skip DESC: a check that cannot run here; DESC says why.
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }

# tally WHAT LINE: add the closing "N passed, N failed" line of a runner
# this suite ran (WHAT) to its counts; a runner that ended without one is a
# failure.
tally() {
	case $2 in
	*" passed, "*" failed"*)
		_tf=${2#*passed, }
		pass=$((pass + ${2%% passed*}))
		fail=$((fail + ${_tf%% failed*}))
		;;
	*) bad "$1 ended without its 'N passed, N failed' line: '$2'" ;;
	esac
}

# finish: the closing "N passed, N failed" line (", N skipped" when any
# were); exits 1 if any failed.
finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skipped skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
	exit
}

# check DESC WANT GOT: GOT is exactly WANT.
check() {
	if [ "$2" = "$3" ]; then good; else bad "$1: want '$2', got '$3'"; fi
}

# at_least DESC MIN GOT, at_most DESC MAX GOT: GOT is a number in bounds.
at_least() {
	if [ -n "$3" ] && [ "$3" -ge "$2" ] 2>/dev/null; then good; else bad "$1: want >= $2, got '$3'"; fi
}
at_most() {
	if [ -n "$3" ] && [ "$3" -le "$2" ] 2>/dev/null; then good; else bad "$1: want <= $2, got '$3'"; fi
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
