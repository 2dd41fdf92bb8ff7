# The vm*= kernel arguments of the VM suites and their table in
# tests/vm/README.md (sourced): run.sh refuses a word of VM_APPEND that is
# not in the table, tests/unit/vm-knobs.sh keeps the table and the files
# that read the arguments in step. Sourced in the guest too (suite-all.sh).

# knobs_suite_limit SUITELIMIT FUZZ STRESS: the guest watchdog's seconds a
# suite may take (the values of vmsuitelimit=, vmfuzz= and vmstress=, each
# possibly empty): the guest's watchdog and the host's stall limit
# (run.sh, above it) both start from it.
knobs_suite_limit() {
	echo "${1:-$((600 + 2 * (${2:-0} + ${3:-0})))}"
}

# knobs_documented README: the names of the table, one a line.
knobs_documented() {
	sed -n 's/^| `\(vm[a-z0-9]*\)=[^`]*` |.*/\1/p' "$1" | sort -u
}

# knobs_read DIR: every vm*= name the scripts and programs of DIR read (as
# $vmNAME or ${vmNAME...}) or match (vmNAME=, in a case or a strncmp).
knobs_read() {
	find "$1" -maxdepth 1 -type f \( -name '*.sh' -o -name '*.c' -o -name Makefile \) \
		! -name knobs.sh -exec cat {} + |
		grep -oE '(\$\{?|\b)vm[a-z0-9]+(=|\b)' |
		sed -n 's/^[${]*\(vm[a-z0-9]*\)=$/\1/p; s/^\$[{]*\(vm[a-z0-9]*\)$/\1/p' | sort -u
}

# knobs_unknown README WORD...: the vm*= words (their names) that the
# table does not have; the kernel's own vmalloc= passes.
knobs_unknown() {
	_kn_table=" $(knobs_documented "$1" | tr '\n' ' ') vmalloc "
	shift
	for _kn_word; do
		case $_kn_word in
		vm*) _kn_name=${_kn_word%%=*} ;;
		*) continue ;;
		esac
		case $_kn_table in
		*" $_kn_name "*) ;;
		*) echo "$_kn_name" ;;
		esac
	done
}
