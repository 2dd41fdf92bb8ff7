# tests/lib/guestko.sh - a tapx.ko built outside tests/vm (by DKMS) in a
# guest of its kernel (sourced after check.sh; needs $TOP).
#
#   plain_ko KO DIR        KO uncompressed into DIR (DKMS compresses as the
#                          kernel's own modules are: 6.12's with xz), as the
#                          guest's insmod wants it; its path printed
#   guest_runs_ko SERIES KO TUN_KO VMSUITES OUT
#                          SERIES' kernel booted by tests/vm/run.sh with KO
#                          as tapx.ko and TUN_KO as tapx_tun.ko, running the
#                          guest suites VMSUITES (load among them: insmod
#                          of KO); checks that they all passed and that the
#                          load suite did. The runner's work in OUT, its
#                          output in OUT.log.

plain_ko() {
	_pk_name=$(basename "$1")
	case $_pk_name in
	*.xz) xz -dc "$1" >"$2/${_pk_name%.xz}" && echo "$2/${_pk_name%.xz}" ;;
	*.zst) zstd -qdc "$1" >"$2/${_pk_name%.zst}" && echo "$2/${_pk_name%.zst}" ;;
	*) echo "$1" ;;
	esac
}

guest_runs_ko() {
	_gk_series=$1 _gk_ko=$2 _gk_tko=$3 _gk_suites=$4 _gk_out=$5
	_gk_kver=$(modinfo -F vermagic "$_gk_ko" 2>/dev/null | cut -d' ' -f1)
	TAPX_KO=$_gk_ko TAPX_TUN_KO=$_gk_tko VM_KERNEL=$_gk_series VM_OUT=$_gk_out \
		VM_APPEND="vmsuites=$_gk_suites" sh "$TOP/tests/vm/run.sh" >"$_gk_out.log" 2>&1
	_gk_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$_gk_out.log" | tail -n 1)
	case $_gk_line in
	*" 0 failed") good ;;
	*) bad "tapx.ko of $_gk_kver in its guest ($_gk_suites): ${_gk_line:-no result line} (log: $_gk_out.log)"
	   grep -E '^FAIL|^vm:' "$_gk_out.log" | sed 's/^/    /' | head -n 20 ;;
	esac
	grep -qE '^--- suite load: [1-9][0-9]* passed, 0 failed' "$_gk_out.log" && good ||
		bad "$_gk_kver guest: the load suite (insmod of $_gk_ko) did not pass"
}
