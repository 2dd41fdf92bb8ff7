#!/bin/sh
# Unit tests: the C tests of the parser, the compiler and the JSON writer,
# then the CLI's argument handling (exit codes and messages; nothing here
# needs root or touches BPF state), then the VM suites' vm*= arguments
# against their table (vm-knobs.sh). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")"
TOP=$(cd ../.. && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/tests/unit
TA=$BUILD/user/tap-accel
TB=$BUILD/user/tap-accel-bench
. "$TOP/tests/lib/check.sh"

# --- C tests -------------------------------------------------------------
if make -s -C "$TOP/tests/unit" >/dev/null; then
	for t in "$OUT"/test_*; do
		tally "$t" "$("$t" | tee /dev/stderr | tail -n 1)"
	done
else
	bad "tests/unit did not build"
fi

# --- the library's layers ----------------------------------------------------
# base/ and sys/ below policy/, policy/ below plane/, plane/ below output/:
# each folder includes only from those below it, and the policy language
# never calls the kernel (its tests above run without root).
layer_includes() { # FOLDER: the other folders of user/lib its files include from
	grep -ho '#include "\.\./[a-z]*/' "$TOP/user/lib/$1"/* | sed 's|#include "\.\./||; s|/$||' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
check "lib/base includes from" "" "$(layer_includes base)"
check "lib/sys includes from" "base" "$(layer_includes sys)"
check "lib/policy includes from" "base" "$(layer_includes policy)"
check "lib/plane includes from" "base policy sys" "$(layer_includes plane)"
check "lib/output includes from" "base plane policy" "$(layer_includes output)"
check "lib/policy makes no BPF call" "" \
	"$(grep -l 'bpf/bpf\.h\|bpf/libbpf\.h' "$TOP"/user/lib/policy/* "$TOP"/user/lib/base/*)"

# --- CLI argument handling -------------------------------------------------
[ -x "$TA" ] || make -s -C "$TOP" user >/dev/null 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


if [ ! -x "$TA" ]; then
	bad "$TA is not built"
else
	# A copy, so that a rebuild during the run does not pull it away.
	cp "$TA" "$tmp/tap-accel" && TA=$tmp/tap-accel
	cp "$TB" "$tmp/tap-accel-bench" && TB=$tmp/tap-accel-bench
	expect_exit 0 '^Usage: tap-accel' "$TA" --help
	expect_exit 0 '^tap-accel --version \(-V\) prints the version' "$TA" --help
	# bash completion (user/completion/tap-accel), with bash-completion's
	# two helpers stubbed: the verbs, subverbs and options --help lists
	complete_words() { # WORD...: what completing the last word offers
		PATH=$(dirname "$TA"):$PATH bash -c '
			_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
				words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
			_filedir() { :; }
			. "$0" && COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _tap_accel &&
				echo "${COMPREPLY[*]}"' "$TOP/user/completion/tap-accel" tap-accel "$@"
	}
	check "completion: the verbs" "agent attach bench clean conntrack detach fdb guard policy stats status" \
		"$(complete_words "" | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ' | sed 's/ $//')"
	check "completion: policy's subverbs" "check explain import list load show unload" \
		"$(complete_words policy "" | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ' | sed 's/ $//')"
	check "completion: conntrack's subverbs" "events flush list set show" \
		"$(complete_words conntrack "" | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ' | sed 's/ $//')"
	check "completion: policy import openstack" "openstack" "$(complete_words policy import op)"
	check "completion: policy import openstack --port" "--port" "$(complete_words policy import openstack x.json --po)"
	check "completion: conntrack set" "max tap-limit timeout" "$(complete_words conntrack set "")"
	check "completion: conntrack set timeout" "udp udp_stream" "$(complete_words conntrack set timeout ud)"
	# the words of conntrack set are checked before the kernel is asked anything
	expect_exit 1 "^tap-accel: conntrack set: max 0: give a number of connections, or 'max default'" \
		"$TA" conntrack set max 0
	expect_exit 1 "^tap-accel: conntrack set: unknown timeout 'tcp': the timeouts are syn_sent," \
		"$TA" conntrack set timeout tcp 5
	expect_exit 1 '^\{"error":"conntrack set: expected seconds or default after .timeout udp."\}$' \
		"$TA" --json conntrack set timeout udp
	expect_exit 1 "conntrack set: expected SETTING...; see tap-accel conntrack set --help" "$TA" conntrack set
	check "completion: policy load --default" "--default" "$(complete_words policy load --def)"
	check "completion: policy import nwfilter --" "--check --dir --param" \
		"$(complete_words policy import nwfilter -- | tr ' ' '\n' | grep -E '^--(check|dir|param)$' | sort | tr '\n' ' ' | sed 's/ $//')"
	check "completion: policy import's formats" "nwfilter" \
		"$(complete_words policy import nw)"
	check "completion: --mode" "native generic" "$(complete_words attach --mode "")"
	check "completion: --version" "--verbose --version" "$(complete_words --ver)"
	expect_exit 0 '^tap-accel [0-9.]+ \(map layout [0-9]+' "$TA" --version
	expect_exit 1 '^Usage: tap-accel' "$TA"
	expect_exit 1 "unknown verb 'frobnicate'" "$TA" frobnicate
	expect_exit 1 "unknown option '--bogus'" "$TA" --bogus status
	for verb in attach detach policy fdb status stats clean; do
		expect_exit 0 "^Usage: tap-accel $verb" "$TA" "$verb" --help
		expect_exit 0 "^Usage: tap-accel $verb" "$TA" --json "$verb" -h
	done
	# bench: the benchmark is tap-accel-bench; the verb runs it
	expect_exit 0 '^Usage: tap-accel-bench \[OPTIONS\]' "$TA" bench --help
	expect_exit 0 '^Usage: tap-accel-bench \[OPTIONS\]' "$TB" --help
	expect_exit 0 '^tap-accel-bench [0-9.]+ \(libbpf' "$TB" --version
	expect_exit 0 '^ +--scale ' "$TB" --help
	tb_dir=$(mktemp -d)
	cp "$TA" "$tb_dir/tap-accel"
	expect_exit 1 "^tap-accel: bench: the benchmark is its own tool, tap-accel-bench, and $tb_dir/tap-accel-bench: No such file" \
		"$tb_dir/tap-accel" bench --quick
	rm -rf "$tb_dir"
	check "tap-accel links neither liburing nor pthreads" "" \
		"$(ldd "$TA" | grep -o -e liburing -e libpthread)"
	check "tap-accel-bench links liburing" liburing "$(ldd "$TB" | grep -o liburing | sort -u)"
	# --help names every verb; each verb with subverbs names them
	for v in attach detach policy fdb guard status stats clean bench; do
		expect_exit 0 "^  $v +[a-z]" "$TA" --help
	done
	for v in check load show list unload explain; do
		expect_exit 0 "^  $v +[a-z]" "$TA" policy --help
	done
	for v in add del list; do
		expect_exit 0 "^  $v +[a-z]" "$TA" fdb --help
	done
	expect_exit 0 '^Usage: tap-accel attach IFACE\.\.\. \[OPTIONS\]' "$TA" attach --help
	expect_exit 0 '^ +--guard PARAMS' "$TA" attach --help
	expect_exit 0 '^Usage: tap-accel policy load NAME FILE' "$TA" policy load --help
	expect_exit 0 '^Usage: tap-accel fdb add IFACE MAC DEV' "$TA" fdb add --help
	expect_exit 0 '^ +-n, --netns NAME' "$TA" --help
	expect_exit 0 '^Usage: tap-accel policy explain' "$TA" policy explain --help
	# --json: an error is a JSON object on stdout, the exit code unchanged
	json_error() { # CODE MESSAGE-PATTERN CMD...: stdout is {"error":...}, stderr empty
		want=$1 pattern=$2
		shift 2
		"$@" >"$tmp/jout" 2>"$tmp/jerr"
		rc=$?
		if [ "$rc" = "$want" ] && grep -qE "^\{\"error\":\"$pattern" "$tmp/jout" &&
			[ "$(wc -l <"$tmp/jout")" = 1 ] && [ ! -s "$tmp/jerr" ]; then
			good
		else
			bad "'$*': exit $rc (want $want), stdout '$(cat "$tmp/jout")', stderr '$(cat "$tmp/jerr")'"
		fi
	}
	json_error 1 "interface nosuchif0 not found" "$TA" --json attach nosuchif0
	json_error 1 "interface nosuchif0 not found" "$TA" attach nosuchif0 --json
	json_error 1 "stats: --count needs --interval" "$TA" stats --count 3 -j
	json_error 1 "unknown verb 'frobnicate'" "$TA" --json frobnicate
	json_error 1 "unknown writer 'batch3'" "$TA" --json bench --writers batch3
	json_error 1 "unknown writer 'batch3'" "$TB" --json --writers batch3
	json_error 1 "--frames expects a whole number from 10 to 100000000, not 'x'" \
		"$TA" bench --frames x --json
	json_error 1 "network namespace nosuchns0 not found" "$TA" --json --netns nosuchns0 status
	expect_exit 1 '^  "error": "interface nosuchif0 not found' "$TA" --pretty attach nosuchif0
	# the global options anywhere; tap-accel-bench's own errors
	expect_exit 1 "^tap-accel-bench: unknown option '--frob'; see tap-accel-bench --help" "$TA" bench --frob
	expect_exit 1 "^tap-accel-bench: option --frames needs a value" "$TB" --frames
	expect_exit 1 "^tap-accel-bench: option --vm takes no value" "$TB" --vm=1
	expect_exit 1 "^tap-accel-bench: expected no arguments, got 'extra'" "$TB" extra
	expect_exit 1 "^tap-accel-bench: --quick and --full exclude each other" "$TB" --quick --full
	expect_exit 1 "^tap-accel-bench: --scale takes --taps" "$TB" --scale --programs xdp-tx
	expect_exit 1 "^tap-accel-bench: --taps and --singles go with --scale" "$TB" --taps 1
	expect_exit 1 "^tap-accel: network namespace nosuchns0 not found \(no /run/netns/nosuchns0\)" \
		"$TA" status --netns nosuchns0
	expect_exit 1 "attach: unknown option '--frob'" "$TA" attach tap0 --frob
	expect_exit 1 'attach: expected IFACE\.\.\.; see tap-accel attach --help' "$TA" attach
	expect_exit 1 'interface nosuchif1 not found' "$TA" attach nosuchif1 nosuchif2
	expect_exit 1 "attach: option --policy needs a value" "$TA" attach tap0 --policy
	expect_exit 1 "attach: option --force takes no value" "$TA" attach tap0 --force=yes
	expect_exit 1 "attach: --mode is native or generic, not 'turbo'" "$TA" attach tap0 --mode turbo
	expect_exit 1 'interface nosuchif0 not found' "$TA" attach nosuchif0
	expect_exit 1 'interface nosuchif0 not found' "$TA" attach --mode=generic nosuchif0
	expect_exit 1 "'a/b' is not a valid interface name" "$TA" attach a/b
	expect_exit 1 "'waytoolonginterfacename' is not a valid" "$TA" attach waytoolonginterfacename
	expect_exit 1 'lo is not a tap device \(it is none\)' "$TA" attach lo
	expect_exit 1 'detach: expected IFACE\.\.\.' "$TA" detach
	expect_exit 1 'interface nosuchif0 not found' "$TA" detach nosuchif0
	expect_exit 1 '^Usage: tap-accel policy' "$TA" policy
	expect_exit 1 'policy check: expected FILE' "$TA" policy check
	expect_exit 1 "policy: unknown verb 'frob'; see tap-accel policy --help" "$TA" policy frob x
	expect_exit 1 'policy load: expected NAME FILE' "$TA" policy load x
	expect_exit 1 'policy explain: --frame HEX is needed' "$TA" policy explain x.policy
	expect_exit 1 'fdb add: expected IFACE MAC DEV' "$TA" fdb add tap0
	expect_exit 1 'fdb list: expected IFACE' "$TA" fdb list
	expect_exit 1 'status: expected no arguments, got more' "$TA" status extra
	expect_exit 1 'stats: --interval expects a number from 0.01 to 86400' "$TA" stats --interval 0
	expect_exit 1 'stats: --interval expects a number' "$TA" stats --interval x
	expect_exit 1 'stats: --count needs --interval' "$TA" stats --count 3
	expect_exit 1 "attach: --guard: guard MAC 'zz' is not a MAC address like 52:54:00:12:34:56" \
		"$TA" attach lo --guard mac=zz
	expect_exit 1 "attach: --guard: 'mac' is not mac=MAC \\(once\\) or ip=ADDRESS" "$TA" attach lo --guard mac
	# guard check: what the adapters call; the whole list is the adapters
	# suite's, at every way in
	expect_exit 0 '^mac=52:54:00:ab:cd:ef,ip=192.0.2.7,ip=fe80::1$' \
		"$TA" guard check mac=52-54-00-AB-CD-EF,ip=192.0.2.7,ip=fe80::1
	expect_exit 0 '"guard":"mac=52:54:00:ab:cd:ef","checks":"mac","ip4":0,"ip6":0' \
		"$TA" --json guard check mac=52:54:00:ab:cd:ef
	expect_exit 1 "^tap-accel: guard check: guard address '::ffff:10.0.0.1' is IPv4-mapped" \
		"$TA" guard check ip=::ffff:10.0.0.1
	expect_exit 1 "^tap-accel: guard check: guard address '0.0.0.0' is unspecified" \
		"$TA" guard check mac=52:54:00:ab:cd:ef,ip=0.0.0.0
	expect_exit 1 'lo is not a tap device' "$TA" attach lo --policy nosuch

	# policy check: no kernel, errors at FILE:LINE:COL
	printf 'rule drop proto udp\nrule drop proto tcp dport 70000\n' >"$tmp/bad.policy"
	expect_exit 1 "^$tmp/bad.policy:2:27: expected a port 0..65535" "$TA" policy check "$tmp/bad.policy"
	json_error 1 "$tmp/bad.policy:2:27: expected a port 0..65535" "$TA" --json policy check "$tmp/bad.policy"
	printf 'rule drop proto udp\nrule drop proto udp\n' >"$tmp/dup.policy"
	expect_exit 1 "^$tmp/dup.policy:2:1: duplicate rule" "$TA" policy check "$tmp/dup.policy"
	expect_exit 1 "^$tmp/none.policy: cannot read the policy file: No such file" \
		"$TA" policy check "$tmp/none.policy"
	printf 'rule redirect tapX proto udp\ndefault drop\n' >"$tmp/good.policy"
	expect_exit 0 "good.policy: ok, 1 rules, 0 fdb entries, guard off, rate off, digest [0-9a-f]{16}$" \
		"$TA" policy check "$tmp/good.policy"
	expect_exit 0 '^\{"file":".*good.policy","ok":true,.*"rules":\[\{"action":"redirect","dev":"tapX","line":1,"proto":17\}\],"default":\{"action":"drop"\}' \
		"$TA" policy check --json "$tmp/good.policy"
	# a two-way policy: its rules, the security group's, the default in
	printf 'rule pass out\nrule pass in proto tcp dport 22\ndefault in drop\n' >"$tmp/sg.policy"
	expect_exit 0 "sg.policy: ok, 2 rules both ways \(and 9 of the security group\), default in drop, 0 fdb entries" \
		"$TA" policy check "$tmp/sg.policy"
	expect_exit 0 '"action":"pass","line":2,"directions":\["in"\],"states":\["new","established","related","invalid","untracked"\],"implicit":false,"proto":6,"dport":"22"\}\],"default":\{"action":"pass"\},"default_in":\{"action":"drop"\}' \
		"$TA" policy check --json "$tmp/sg.policy"
	# explain: a frame the guest sends under a two-way policy, as a first frame
	ack=525400000002525400000001080045000028123400004006000000000a0000010a000002
	ack=${ack}9c40005000000000000000005010000000000000
	expect_exit 0 "state: +invalid .*rule: +rule drop in,out state invalid \(a two-way policy's own" \
		sh -c "'$TA' policy explain '$tmp/sg.policy' --frame $ack | tr '\n' ' '"
	expect_exit 0 '"rule":0,"default":false,"text":"rule drop in,out state invalid","state":"invalid","direction":"out","action":"drop","verdict":"drop"' \
		"$TA" --json policy explain "$tmp/sg.policy" --frame "$ack"
	# the other way, and with a state given: the peer's ACK of a connection
	inack=525400000001525400000002080045000028123400004006000000000a0000020a000001
	inack=${inack}00509c4000000000000000005010000000000000
	expect_exit 0 "state: +established \(as --state says\) way: +in, to the guest rule: +rule pass in state established,related .*verdict: pass" \
		sh -c "'$TA' policy explain '$tmp/sg.policy' --frame $inack --direction in --state established | tr '\n' ' '"
	expect_exit 0 "state: +invalid \(no connection before it\) way: +in, to the guest .*verdict: drop" \
		sh -c "'$TA' policy explain '$tmp/sg.policy' --frame $inack --direction in | tr '\n' ' '"
	expect_exit 0 "default: .*sg.policy:3: default in drop verdict: drop" \
		sh -c "'$TA' policy explain '$tmp/sg.policy' --frame $inack --direction in --state new | tr '\n' ' '"
	expect_exit 1 "--state is new, established, related, invalid or untracked, not .closed." \
		"$TA" policy explain "$tmp/sg.policy" --frame "$inack" --state closed
	printf 'rule redirect tap1 in\n' >"$tmp/bad-in.policy"
	expect_exit 1 "bad-in.policy:1:20: expected 'out' with action redirect" \
		"$TA" policy check "$tmp/bad-in.policy"
	nr_examples=0
	for f in "$TOP"/examples/*.policy; do
		expect_exit 0 ': ok, ' "$TA" policy check "$f"
		nr_examples=$((nr_examples + 1))
	done
	[ "$nr_examples" -ge 4 ] && good || bad "expected at least 4 examples/*.policy, found $nr_examples"
fi

# --- the VM suites' kernel arguments against their table -------------------
tally vm-knobs.sh "$(sh "$TOP/tests/unit/vm-knobs.sh" | tee /dev/stderr | tail -n 1)"

finish
