# Runs every VM suite in order, each check counted by tests/lib/check.sh
# (copied in as /tests/check.sh); each suite's counts and time after it,
# and the "N passed, N failed" of all of them last.
# vmsuites=load,xdp,unload on the kernel command line (VM_APPEND) runs only
# those, in that order: for working on one suite; vmskip=plane,cli leaves
# those out of the list (tests/vm-debug/run.sh).
. /tests/check.sh
. /tests/lib.sh
cd /tmp
SUITES="load abi xdp verdicts redirect noskb batch vnet l3 napi attach mq vhost cli plane unbound bpf teardown stress fuzz leak unload ident qemu vhostlink benchload install"
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
for _suite in $SUITES; do
	echo "--- suite $_suite"
	_all_p=$pass _all_f=$fail _all_k=$skipped _all_t=$(uptime_s)
	. /tests/suite-$_suite.sh
	echo "--- suite $_suite: $((pass - _all_p)) passed, $((fail - _all_f)) failed, $((skipped - _all_k)) skipped, $(($(uptime_s) - _all_t)) s"
done
finish
