# Runs every VM suite in order, each check counted by tests/lib/check.sh
# (copied in as /tests/check.sh); each suite's counts and time after it,
# and the "N passed, N failed" of all of them last.
# vmsuites=load,xdp,unload on the kernel command line (VM_APPEND) runs only
# those, in that order: for working on one suite; vmskip=plane,cli leaves
# those out of the list (tests/vm-debug/run.sh).
. /tests/check.sh
. /tests/lib.sh
cd /tmp
SUITES="load abi xdp verdicts redirect noskb batch vnet backpressure l3 napi attach mq vhost cli plane twoway unbound bpf teardown stress fuzz leak unload ident qemu vhostlink benchload install"
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vmsuites=*) SUITES=$(echo "${arg#vmsuites=}" | tr , ' ') ;;
	vmskip=*) _skip=" $(echo "${arg#vmskip=}" | tr , ' ') " ;;
	esac
done
if [ -n "${_skip:-}" ]; then
	_all=$SUITES
	SUITES=
	for _s in $_all; do
		case $_skip in *" $_s "*) ;; *) SUITES="$SUITES $_s" ;; esac
	done
fi
exec 2>&1
# Seconds since boot; a suite's time shows where a boot's time goes.
uptime_s() { cut -d. -f1 /proc/uptime; }

# A suite that hangs (a task stuck in the kernel) would hold the boot until
# the host's timeout with nothing said. After vmsuitelimit seconds (600,
# several times the slowest suite on the debug kernel, plus twice the
# fuzz and stress runs asked for with vmfuzz= and vmstress=) the watchdog
# shows the blocked tasks' stacks and where each process waits, and powers
# the guest off: the host then fails the run with no result line.
. /tests/knobs.sh
_wd_limit=$(knobs_suite_limit "${vmsuitelimit:-}" "${vmfuzz:-}" "${vmstress:-}")
suite_watchdog() {
	echo 1 >/proc/sys/kernel/sysrq
	while sleep 10; do
		read -r _wd_suite _wd_since </tmp/suite.now || continue
		[ $(($(uptime_s) - _wd_since)) -ge $_wd_limit ] || continue
		echo "--- suite $_wd_suite: still running after $_wd_limit s;" \
			"the blocked tasks and the processes follow"
		_wd_lines=$(dmesg | wc -l)
		echo w >/proc/sysrq-trigger
		sleep 2
		dmesg | tail -n +$((_wd_lines + 1)) | head -n 400
		# Every process (kernel threads have no command line) and where
		# in the kernel it waits.
		for _wd_p in /proc/[0-9]*; do
			_wd_cmd=$(tr '\0' ' ' <$_wd_p/cmdline 2>/dev/null)
			[ -n "$_wd_cmd" ] || continue
			echo "${_wd_p#/proc/} $_wd_cmd(state $(cut -d' ' -f3 $_wd_p/stat)):"
			cat $_wd_p/stack 2>/dev/null
		done
		sync
		poweroff -f
	done
}
suite_watchdog &
_watchdog=$!

for _suite in $SUITES; do
	echo "--- suite $_suite"
	_all_p=$pass _all_f=$fail _all_k=$skipped _all_t=$(uptime_s)
	echo "$_suite $_all_t" >/tmp/suite.now
	. /tests/suite-$_suite.sh
	echo "--- suite $_suite: $((pass - _all_p)) passed, $((fail - _all_f)) failed, $((skipped - _all_k)) skipped, $(($(uptime_s) - _all_t)) s"
done
kill $_watchdog
finish
