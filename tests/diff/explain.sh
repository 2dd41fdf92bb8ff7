#!/bin/sh
# Checks of `tap-accel policy explain` (user/cli/explain.c) on the example
# policies: the rule and line it names, the verdict, the reasons, --json,
# and bad input. Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
ex=$top/examples
pass=0
fail=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy, so that a rebuild during the run does not pull it away.
cp "$build/user/tap-accel" "$tmp/tap-accel" || exit 1
explain() { "$tmp/tap-accel" policy explain "$@"; }

# expect CODE PATTERN ARGS...: exit status CODE, PATTERN (grep -E) in the
# output (stdout and stderr).
expect() {
	code=$1 pattern=$2
	shift 2
	explain "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = "$code" ] && grep -qE -- "$pattern" "$tmp/out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL explain $*: exit $rc (want $code), wanted /$pattern/ in:"
		sed 's/^/    /' "$tmp/out"
	fi
}

pad=000000000000000000000000000000000000
eth4="525400000002 525400000001 0800"
# UDP 10.0.0.1:9 -> DST:53, 60 bytes
dns4() { echo "$eth4 4500002e12340000401100000a000001 $1 00090035001a0000 $pad"; }

expect 0 'rule: +.*acl.policy:11: rule drop proto udp dport 53$' \
	"$ex/acl.policy" --frame "$(dns4 0a000002)"
expect 0 'verdict: drop' "$ex/acl.policy" --frame "$(dns4 0a000002)"
expect 0 'acl.policy:9: rule pass proto udp dst 10.0.0.53 dport 53' \
	"$ex/acl.policy" --frame "$(dns4 0a000035)"
expect 0 'verdict: pass' "$ex/acl.policy" --frame "$(dns4 0a000035)"
# the management network, whatever the protocol
expect 0 'acl.policy:5: rule drop dst 10.255.0.0/16' \
	"$ex/acl.policy" --frame "$(dns4 0aff0102)"
# ICMPv6 router advertisement (134) from the guest
ra="$eth4 86dd 6000000000083a40 fd000000000000000000000000000001 ff020000000000000000000000000001 8600000000000000"
ra=$(echo "$ra" | sed 's/ 0800 86dd/ 86dd/')
expect 0 'acl.policy:19: rule drop proto icmpv6 icmp-type 134' "$ex/acl.policy" --frame "$ra"
# the default, named with its line
expect 0 'default: .*acl.policy:[0-9]+: default pass' "$ex/acl.policy" \
	--frame "$eth4 4500002e1234000040060000 0a000001 0a000002 0009005000000000000000005002000000000000"
# malformed: a runt, and an IPv4 header with IHL 4 (parse drop, no rule)
expect 0 'parse: +runt' "$ex/acl.policy" --frame 525400000002
expect 0 'parse: +ip4_bad_hdr' "$ex/acl.policy" \
	--frame "$eth4 4400002e12340000401100000a0000010a000002 00090035001a0000"
# the guard: the guest's own frame passes, a foreign source MAC is named
gmac=525400123456
expect 0 'guard: +ok' "$ex/guest-guard.policy" \
	--frame "525400000002 $gmac 0800 4500002e1234000040110000c000020a0a000002 00090035001a0000 $pad"
expect 0 'guard: +src_mac' "$ex/guest-guard.policy" \
	--frame "525400000002 525400000099 0800 4500002e1234000040110000c000020a0a000002 00090035001a0000 $pad"
expect 0 'guard: +ip4_src' "$ex/guest-guard.policy" \
	--frame "525400000002 $gmac 0800 4500002e12340000401100000a0000090a000002 00090035001a0000 $pad"
expect 0 '"rule":5,"default":false,"line":11,"text":"rule drop proto udp dport 53","action":"drop","verdict":"drop"' \
	--json "$ex/acl.policy" --frame "$(dns4 0a000002)"
# bad input
expect 1 'even number of hex digits' "$ex/acl.policy" --frame 52540
expect 1 'even number of hex digits' "$ex/acl.policy" --frame 5254zz
expect 1 '--frame HEX is needed' "$ex/acl.policy"
expect 1 'cannot read the policy file' "$tmp/none.policy" --frame 525400000002
printf 'rule drop dport 70000\n' >"$tmp/bad.policy"
expect 1 'bad.policy:1:17: expected a port' "$tmp/bad.policy" --frame 525400000002
expect 0 '^Usage: tap-accel policy explain' --help

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
