#!/bin/sh
# stats --prometheus and node_exporter's textfile (user/lib/output/prom.c), read
# through Prometheus' own parser of the exposition format (prom.py): every
# sample of known frames exact per device and label, the families' names,
# types, HELP and TYPE, label escaping, no address among the labels, the
# netns label of --all, and the textfile written atomically. Called by
# run.sh with the suite's namespace, whose plane it shares; it binds taps
# of its own there and in a namespace of its own, NETNSp, and removes them.
# Usage: prometheus.sh NETNS TA_BIN TAPIO PROMFILE
# Ends with "N passed, N failed".
set -u
NS=$1 TA_BIN=$2 TAPIO=$3 PROMFILE=$4
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
. "$TOP/tests/lib/check.sh"
. "$TOP/tests/lib/ns.sh"
# Debian's python, which python3-prometheus-client is installed for (a
# python3 earlier in PATH may be another).
PY=/usr/bin/python3

ID=$$
G=tp${ID}g	      # a guarded tap
Q='tp"\'$ID	      # a name with a double quote and a backslash: labels escape them
QD="tp\"(backslash)$ID" # Q in messages: echo would read its backslash
NSP=${NS}p	      # another namespace, with a tap named as G
L=tp${ID}l	      # a tap renamed once bound: to L8, é in UTF-8, to L1, é in Latin-1
L8=$(printf 'tp\303\251%s' "$ID") L1=$(printf 'tp\351%s' "$ID")
LR=$(printf 'tp\357\277\275%s' "$ID") # L1 as a label: é became U+FFFD
tmp=$(mktemp -d)

in_nsp() { nsenter --net="/run/netns/$NSP" "$@"; }

cleanup() {
	ta detach "$G" "$Q" >/dev/null 2>&1
	in_nsp "$TA_BIN" detach "$G" >/dev/null 2>&1
	ip -n "$NS" link set "$L8" name "$L" 2>/dev/null
	ip -n "$NS" link set "$L1" name "$L" 2>/dev/null
	ta detach "$L" >/dev/null 2>&1
	for t in "$G" "$Q" "$L"; do ip -n "$NS" link del "$t" 2>/dev/null; done
	ns_del "$NSP"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! "$PY" -c 'import prometheus_client.parser' 2>/dev/null; then
	bad "no prometheus_client for $PY: 'make deps' installs python3-prometheus-client"
	finish
fi

# ---- helpers ---------------------------------------------------------------

# scrape NAME ARGS...: 'tap-accel stats --prometheus ARGS' into $tmp/NAME,
# and what the parser read of it into $tmp/NAME.flat.
scrape() {
	_f=$tmp/$1
	shift
	ta stats --prometheus "$@" >"$_f" 2>"$_f.err" || bad "stats --prometheus $*: $(cat "$_f.err")"
	parse "$_f"
}
# parse FILE: FILE read by the parser, into FILE.flat.
parse() {
	if "$PY" "$HERE/prom.py" <"$1" >"$1.flat" 2>"$1.err"; then
		good
	else
		bad "$(cat "$1.err")"
	fi
}
# sample NAME METRIC LABEL=VALUE...: the value of the series with exactly
# these labels, in scrape NAME; nothing if there is none.
sample() {
	_f=$tmp/$1.flat
	_want="sample $2 $(shift 2; printf '%s\n' "$@" | LC_ALL=C sort | tr '\n' ' ')="
	W=$_want awk 'BEGIN { w = ENVIRON["W"] }
		index($0, w) == 1 { print substr($0, length(w) + 2) }' "$_f"
}
# samples NAME METRIC: how many samples of METRIC scrape NAME has.
samples() { grep -c "^sample $2 " "$tmp/$1.flat"; }
# label_names NAME: the label names of every sample of scrape NAME.
label_names() {
	sed -n 's/^sample [^ ]* \(.*\) = .*/\1/p' "$tmp/$1.flat" | tr ' ' '\n' |
		cut -d= -f1 | LC_ALL=C sort -u | tr '\n' ' '
}
# devices NAME: the devices of scrape NAME's tapaccel_frames_total, a line each.
devices() {
	grep '^sample tapaccel_frames_total ' "$tmp/$1.flat" | grep -o 'device=[^ ]*' | LC_ALL=C sort -u
}
# of_tap NAME METRIC TAP: how many samples of METRIC scrape NAME has for
# TAP of this namespace (TAP may hold characters grep patterns mean).
of_tap() { grep "^sample $2 " "$tmp/$1.flat" | grep -F " device=$3 " | grep -cv ' netns='; }
# json_bytes TAP VERDICT: bytes of a verdict in 'stats TAP --json'.
json_bytes() {
	ta stats "$1" --json | grep -o "\"$2\":{\"packets\":[0-9]*,\"bytes\":[0-9]*" |
		head -n 1 | grep -o '[0-9]*$'
}
send() {
	_want=$1
	shift
	check "tapio $*" "$_want" "$(in_ns "$TAPIO" "$@")"
}

# ---- taps with known frames -------------------------------------------------
echo "# stats --prometheus: taps with known frames"
printf 'rule drop proto udp dport 9\nrule tx proto udp dport 10\ndefault pass\n' >"$tmp/promweb.policy"
printf 'default forward\n' >"$tmp/promfwd.policy"
taps_add "$NS" "$G" "$Q" || bad "cannot create taps $G and $Q"
expect_exit 0 "attached tap-accel to $G .*policy promweb" ta attach "$G" --policy "$tmp/promweb.policy" \
	--guard mac=52:54:00:00:00:01,ip=10.0.0.1
expect_exit 0 "attached tap-accel to tp\"\\\\$ID .*policy promweb" ta attach "$Q" --policy promweb
send "sent 100 tx 0 redirect 0 pass 0" "$G" --count 100 --dport 9
send "sent 40 tx 40 redirect 0 pass 0" "$G" --count 40 --dport 10
send "sent 20 tx 0 redirect 0 pass 20" "$G" --count 20 --proto tcp --dport 80
send "sent 5 tx 0 redirect 0 pass 0" "$G" --count 5 --src 10.0.0.66
send "sent 3 tx 0 redirect 0 pass 0" "$G" --count 3 --smac 52:54:00:00:00:66
send "sent 7 tx 0 redirect 0 pass 0" "$Q" --count 7 --dport 9
send "sent 4 tx 0 redirect 0 pass 4" "$Q" --count 4 --dport 12
# IPv4-mapped source: a parse drop (ip6_v4mapped), before any rule
send "sent 6 tx 0 redirect 0 pass 0" "$Q" --count 6 --src ::ffff:10.9.9.9 --dst fd00::2
ns_add "$NSP" && taps_add "$NSP" "$G" || bad "cannot create $G in $NSP"
expect_exit 0 "attached tap-accel to $G .*policy promfwd" \
	in_nsp "$TA_BIN" attach "$G" --policy "$tmp/promfwd.policy"
check "tapio into $G of $NSP" "sent 9 tx 0 redirect 0 pass 9" \
	"$(in_nsp "$TAPIO" "$G" --count 9)"
digest=$(ta policy list --json | grep -o '"policy":"promweb",[^}]*' | grep -o '[0-9a-f]\{16\}')

scrape here

echo "# the families: names, types, HELP and TYPE once each"
for f in taps_bound:gauge policy_info:gauge tap_info:gauge frames_total:counter \
	bytes_total:counter guard_drops_total:counter parse_total:counter events_total:counter; do
	name=tapaccel_${f%:*} type=${f#*:}
	check "# TYPE $name $type" "1" "$(grep -cx "# TYPE $name $type" "$tmp/here")"
	check "# HELP $name" "1" "$(grep -c "^# HELP $name [A-Z]" "$tmp/here")"
	# the parser names a counter family without _total
	check "parsed: family $name" "1" "$(grep -c "^family ${name%_total} $type [1-9]" "$tmp/here.flat")"
done
check "parsed: no other family (a sample apart from its family would make one)" \
	"8" "$(grep -c '^family ' "$tmp/here.flat")"
check "counter samples end in _total" "" \
	"$(grep '^sample ' "$tmp/here.flat" | grep -v '^sample tapaccel_[a-z_]*_total \|^sample tapaccel_\(taps_bound\|policy_info\|tap_info\) ')"
check "no series twice" "" "$(grep '^sample ' "$tmp/here.flat" | sed 's/ = [0-9]*$//' | sort | uniq -d)"
check "the text ends with a newline" "" "$(tail -c 1 "$tmp/here")"
check "rule counters only with --rules" "0" "$(grep -c 'tapaccel_rule_frames' "$tmp/here")"

echo "# the samples of $G: verdicts, bytes, guard"
for v in drop:108 tx:40 pass:20 aborted:0 redirect:0; do
	check "$G frames, verdict ${v%:*}" "${v#*:}" \
		"$(sample here tapaccel_frames_total device="$G" policy=promweb verdict="${v%:*}")"
	check "$G bytes, verdict ${v%:*}, as stats --json" "$(json_bytes "$G" "${v%:*}")" \
		"$(sample here tapaccel_bytes_total device="$G" policy=promweb verdict="${v%:*}")"
done
check "$G bytes of drops: 108 frames of 54 bytes" "5832" \
	"$(sample here tapaccel_bytes_total device="$G" policy=promweb verdict=drop)"
check "$G guard ip4_src" "5" "$(sample here tapaccel_guard_drops_total device="$G" policy=promweb reason=ip4_src)"
check "$G guard src_mac" "3" "$(sample here tapaccel_guard_drops_total device="$G" policy=promweb reason=src_mac)"
check "$G guard arp_spa: zero, written" "0" \
	"$(sample here tapaccel_guard_drops_total device="$G" policy=promweb reason=arp_spa)"
check "$G tap_info" "1" \
	"$(sample here tapaccel_tap_info device="$G" guard=mac,ip4 mode=native policy=promweb)"
check "policy_info of promweb, its digest" "1" "$(sample here tapaccel_policy_info digest="$digest" policy=promweb)"

echo "# the samples of $QD: a name escaped, parse classes"
check "$QD frames, verdict drop" "13" "$(sample here tapaccel_frames_total device="$Q" policy=promweb verdict=drop)"
check "$QD frames, verdict pass" "4" "$(sample here tapaccel_frames_total device="$Q" policy=promweb verdict=pass)"
check "$QD parse ip6_v4mapped" "6" "$(sample here tapaccel_parse_total class=ip6_v4mapped device="$Q" policy=promweb)"
check "$QD parse runt: zero, written" "0" "$(sample here tapaccel_parse_total class=runt device="$Q" policy=promweb)"
check "$QD tap_info: no guard" "1" "$(sample here tapaccel_tap_info device="$Q" guard=none mode=native policy=promweb)"
check "$QD escaped in the text" "1" \
	"$(grep -cF 'tapaccel_tap_info{device="tp\"\\'"$ID"'",policy="promweb",' "$tmp/here")"
for t in "$G" "$Q"; do
	d=$t
	[ "$t" = "$Q" ] && d=$QD
	check "$d: a series per verdict" "5" "$(of_tap here tapaccel_frames_total "$t")"
	check "$d: a series per verdict, of bytes" "5" "$(of_tap here tapaccel_bytes_total "$t")"
	check "$d: a series per guard reason" "7" "$(of_tap here tapaccel_guard_drops_total "$t")"
	check "$d: a series per parse class" "16" "$(of_tap here tapaccel_parse_total "$t")"
	check "$d: a series per event" "4" "$(of_tap here tapaccel_events_total "$t")"
	check "$d: one tap_info" "1" "$(of_tap here tapaccel_tap_info "$t")"
done

echo "# no address, MAC or port, and only these labels"
check "no MAC or IP in the text" "" "$(grep -E '52:54:|10\.0\.0\.|10\.9\.9\.|::ffff|fd00:' "$tmp/here")"
check "the label names" "class device digest event guard mode policy reason state verdict " \
	"$(label_names here)"
check "taps_bound: as many attached as status lists" "$(ta status | grep -c ' attached$')" \
	"$(sample here tapaccel_taps_bound state=attached)"
check "taps_bound: none gone, none unlinked" "0 0" \
	"$(sample here tapaccel_taps_bound state=gone) $(sample here tapaccel_taps_bound state=unlinked)"
check "this namespace only: no netns label" "0" "$(grep -c ' netns=' "$tmp/here.flat")"
check "this namespace only: not $NSP's tap" "" \
	"$(grep 'policy=promfwd' "$tmp/here.flat" | grep -v '^sample tapaccel_policy_info ')"

echo "# a tap renamed since it was bound: its name in UTF-8, whatever it is"
taps_add "$NS" "$L" || bad "cannot create tap $L"
expect_exit 0 "attached tap-accel to $L .*policy promweb" ta attach "$L" --policy promweb
send "sent 2 tx 0 redirect 0 pass 0" "$L" --count 2 --dport 9
ip -n "$NS" link set "$L" name "$L8"
scrape utf8
check "a name in UTF-8 stays as it is" "2" \
	"$(sample utf8 tapaccel_frames_total device="$L8" policy=promweb verdict=drop)"
ip -n "$NS" link set "$L8" name "$L1"
scrape latin1
check "a byte not UTF-8 is U+FFFD" "2" \
	"$(sample latin1 tapaccel_frames_total device="$LR" policy=promweb verdict=drop)"
ip -n "$NS" link set "$L1" name "$L"
expect_exit 0 "detached tap-accel from $L" ta detach "$L"

echo "# IFACE..., --rules"
scrape two "$G" "$Q" "$G" --rules
check "only the taps named, each once" "device=$Q
device=$G" "$(devices two)"
check "no series twice" "" "$(grep '^sample ' "$tmp/two.flat" | sed 's/ = [0-9]*$//' | sort | uniq -d)"
check "# TYPE tapaccel_rule_frames_total counter" "1" \
	"$(grep -cx '# TYPE tapaccel_rule_frames_total counter' "$tmp/two")"
for r in 0:100 1:40 default:20; do
	check "$G rule ${r%:*}" "${r#*:}" \
		"$(sample two tapaccel_rule_frames_total device="$G" digest="$digest" policy=promweb rule="${r%:*}")"
done
for r in 0:7 1:0 default:4; do
	check "$QD rule ${r%:*}" "${r#*:}" \
		"$(sample two tapaccel_rule_frames_total device="$Q" digest="$digest" policy=promweb rule="${r%:*}")"
done
check "a series per rule and the default" "6" "$(samples two tapaccel_rule_frames_total)"
check "--rules adds the label rule" "class device digest event guard mode policy reason rule state verdict " \
	"$(label_names two)"

echo "# --all: the tap of $NSP by its namespace's cookie"
scrape all --all
cookie=$(ta status --all --json | tr '{' '\n' | grep "\"ifname\":\"$G\"" | grep '"here":false' |
	grep -o '"netns_cookie":[0-9]*' | cut -d: -f2)
check "$G of $NSP: verdict pass" "9" \
	"$(sample all tapaccel_frames_total device="$G" netns="$cookie" policy=promfwd verdict=pass)"
check "$G of $NSP: fdb misses" "9" \
	"$(sample all tapaccel_events_total device="$G" event=fdb_miss netns="$cookie" policy=promfwd)"
check "$G of $NSP: tap_info" "1" \
	"$(sample all tapaccel_tap_info device="$G" guard=none mode=native netns="$cookie" policy=promfwd)"
check "$G here: no netns label, as before" "108" \
	"$(sample all tapaccel_frames_total device="$G" policy=promweb verdict=drop)"
check "the taps of this namespace have no netns label" "" \
	"$(grep '^sample tapaccel_tap_info ' "$tmp/all.flat" | grep -v "netns=$cookie " | grep netns=)"
check "taps_bound --all: as many attached as status --all lists" \
	"$(ta status --all | grep -c ' attached$')" "$(sample all tapaccel_taps_bound state=attached)"
check "--all adds the label netns" "class device digest event guard mode netns policy reason state verdict " \
	"$(label_names all)"

echo "# ta_prom_write_file: DIR/tap-accel.prom, atomically"
mkdir "$tmp/tf"
runs "promfile $tmp/tf" in_ns "$PROMFILE" "$tmp/tf"
check "only tap-accel.prom in DIR" "tap-accel.prom" "$(ls -A "$tmp/tf")"
check "the file is stats --prometheus --all" "" "$(ta stats --prometheus --all | cmp - "$tmp/tf/tap-accel.prom")"
check "readable by node_exporter's user" "644" "$(stat -c %a "$tmp/tf/tap-accel.prom")"
cp "$tmp/tf/tap-accel.prom" "$tmp/first"
parse "$tmp/first"
send "sent 2 tx 0 redirect 0 pass 0" "$G" --count 2 --dport 9
runs "promfile $tmp/tf, again" in_ns "$PROMFILE" "$tmp/tf"
check "written again: still only tap-accel.prom" "tap-accel.prom" "$(ls -A "$tmp/tf")"
cp "$tmp/tf/tap-accel.prom" "$tmp/again"
parse "$tmp/again"
check "written again: the new count" "110" "$(sample again tapaccel_frames_total device="$G" policy=promweb verdict=drop)"
touch "$tmp/notadir"
expect_exit 2 "cannot write a file in $tmp/none: No such file or directory" \
	in_ns "$PROMFILE" "$tmp/none"
expect_exit 2 "cannot write a file in $tmp/notadir: Not a directory" in_ns "$PROMFILE" "$tmp/notadir"

echo "# usage errors"
expect_exit 1 '^\{"error":"stats: --prometheus and --json exclude each other: pick one format"\}$' \
	ta stats --prometheus --json
expect_exit 1 "stats: --prometheus and --json exclude each other" ta --pretty stats --prometheus
expect_exit 1 "^tap-accel: stats: --prometheus writes totals and takes no --interval" \
	ta stats --prometheus --interval 1
expect_exit 1 "^tap-accel: stats: --rules goes with --prometheus" ta stats --rules
expect_exit 1 "interface nosuch0 not found" ta stats --prometheus nosuch0
expect_exit 1 "is not bound to a policy" ta stats --prometheus lo

expect_exit 0 "detached tap-accel from $G" ta detach "$G" "$Q"
expect_exit 0 "detached tap-accel from $G" in_nsp "$TA_BIN" detach "$G"
finish
