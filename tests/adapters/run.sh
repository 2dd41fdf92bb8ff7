#!/bin/sh
# The adapters of user/adapters/, which write the agent's binding files
# (docs/agent.md) and nothing else:
# - libvirt-qemu, libvirt's qemu hook, fed recorded domain XML (xml/) for
#   every operation: the exact files, their removal, atomic writes, stale
#   claims of other domains, bad XML, metadata and settings, odd domain
#   names, hooks run at once; its wait for the agent with the real CLI in a
#   bpffs of the suite's own;
# - qemu-ifup and qemu-ifdown, run by unmodified QEMU's tap backend
#   (-netdev tap,script=,downscript=) in a private network namespace.
# Every file written is read by `tap-accel agent --check`, as the agent
# reads it, and bindcheck.py checks that it names taps exactly. Needs root.
# Ends with "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck disable=SC2034 # own_bpffs runs it again
SUITE=$HERE/run.sh
BUILD=${BUILD:-$TOP/build}
TA_BIN=$BUILD/user/tap-accel
HOOK=$TOP/user/adapters/libvirt-qemu
UP=$TOP/user/adapters/qemu-ifup
DOWN=$TOP/user/adapters/qemu-ifdown
XML=$HERE/xml
PY=/usr/bin/python3

. "$TOP/tests/lib/check.sh"
if [ "$(id -u)" != 0 ]; then
	bad "the adapters suite needs root (network namespaces, taps, bpffs)"
	finish
fi
. "$TOP/tests/lib/ns.sh"
own_bpffs "$@"

for t in qemu-system-x86_64 "$PY" ip nsenter; do
	command -v "$t" >/dev/null 2>&1 || { bad "$t is not installed (make deps)"; finish; }
done
[ -x "$TA_BIN" ] || make -s -C "$TOP" bpf user >/dev/null 2>&1
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built (make bpf user)"; finish; }

ID=$$
NS=taad$ID
tmp=$(mktemp -d)
# a private copy: others may rebuild build/user while this runs
cp "$TA_BIN" "$tmp/tap-accel" && TA_BIN=$tmp/tap-accel
RUN=$tmp/run
B=$RUN/bindings.d
CONF=$tmp/libvirt.conf
# QEMU runs its scripts with the tap's name alone: these give the scripts
# the suite's folders, and tap-accel (which checks guards) in PATH.
IFUP=$tmp/ifup
IFDOWN=$tmp/ifdown
printf '#!/bin/sh\nPATH=%s:$PATH exec %s --run-dir %s --conf-dir %s "$@"\n' \
	"$tmp" "$UP" "$RUN" "$tmp/qemu" >"$IFUP"
printf '#!/bin/sh\nexec %s --run-dir %s "$@"\n' "$DOWN" "$RUN" >"$IFDOWN"
chmod +x "$IFUP" "$IFDOWN"

cleanup() {
	for p in "$tmp"/*.pid; do
		[ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
	done
	ns_del "$NS" "${NS}a"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# same DESC WANT GOT: files WANT and GOT are equal; the difference if not.
same() {
	if [ -f "$3" ] && cmp -s "$2" "$3"; then
		good
	else
		bad "$1: $3 differs from what was wanted:"
		if [ -f "$3" ]; then diff -u "$2" "$3" | sed 's/^/    /'; else echo "    (no file)"; fi
	fi
}
# absent DESC FILE
absent() {
	if [ -e "$2" ]; then bad "$1: $2 exists: $(cat "$2" 2>&1 | head -n 5)"; else good; fi
}
# has DESC PATTERN FILE: grep -E PATTERN in FILE (the hook's stderr by default).
has() {
	if grep -qE -- "$2" "${3:-$tmp/err}"; then
		good
	else
		bad "$1: no /$2/ in:"
		sed 's/^/    /' "${3:-$tmp/err}"
	fi
}
# grammar DESC FILE...: the agent takes the files (tap-accel agent --check
# with them in its runtime folder), and their names are exact.
grammar() {
	_d=$1
	shift
	rm -rf "$tmp/agentcheck"
	mkdir -p "$tmp/agentcheck/etc" "$tmp/agentcheck/run"
	cp "$@" "$tmp/agentcheck/run/"
	if out=$("$TA_BIN" agent --check --config "$tmp/agentcheck/etc" \
		--run-dir "$tmp/agentcheck/run" 2>&1); then
		good
	else
		bad "$_d: tap-accel agent --check: $out"
	fi
	if out=$("$PY" "$HERE/bindcheck.py" --exact "$@" 2>&1); then good; else bad "$_d: $out"; fi
}
no_tmp() {
	check "$1: temporary files left in $B" "" "$(find "$RUN" -name '.*tmp*' 2>/dev/null)"
}

# hook DOMAIN OP [XML]: the hook as libvirt runs it (sub-operation and extra
# argument as libvirt gives them); stdout in $tmp/stdout, stderr in
# $tmp/err, exit status in $rc. libvirt takes a qemu.d script's output for
# the new domain XML on migrate and restore: every call must print nothing.
hook() {
	case $2 in
	stopped) set -- "$1" "$2" end - "${3:-/dev/null}" ;;
	release) set -- "$1" "$2" end destroyed "${3:-/dev/null}" ;;
	*) set -- "$1" "$2" begin - "${3:-/dev/null}" ;;
	esac
	TAP_ACCEL_RUN_DIR=$RUN TAP_ACCEL_LIBVIRT_CONF=$CONF TAP_ACCEL_SYSLOG=0 \
		TAP_ACCEL_CLI=${CLI:-$TA_BIN} \
		"$HOOK" "$1" "$2" "$3" "$4" <"$5" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	check "hook $1 $2: standard output" "" "$(cat "$tmp/stdout")"
}
# hook0 DOMAIN OP [XML]: hook, exiting 0.
hook0() {
	hook "$@"
	check "hook $1 $2: exit status ($(head -c 300 "$tmp/err"))" 0 "$rc"
}
# want: the file that should be, from standard input.
want() { cat >"$tmp/want"; }

# ---- the grammar checker fails on what it must -------------------------------

cat >"$tmp/bad.conf" <<'EOF'
bind name vnet0 policy web guard mac=52:54:00:12:34:56,ip=192.0.2.1 # fine
bind name vnet* policy web
bind policy web
bind name vnet0 policy
bind name vnet0 policy we/b
bind name vnet0 policy web guard mac=52:54:00:12:34:5g
bind name vnet0 policy web guard ip=10.0.0.300
bind name vnet0 policy web guard mac=52:54:00:12:34:56,mac=52:54:00:12:34:57
bind name vnet0 name vnet1 policy web
bind name vnet0 policy web extra
bnd name vnet0 policy web
bind name tap{id} policy vm{vmid}
EOF
"$PY" "$HERE/bindcheck.py" --exact "$tmp/bad.conf" >"$tmp/out" 2>&1
check "bindcheck on bad lines: exit status" 1 "$?"
check "bindcheck on bad lines: its errors" "$tmp/bad.conf:2:11: 'vnet*' is a pattern, not an interface name
$tmp/bad.conf:3:6: a binding needs 'name PATTERN'
$tmp/bad.conf:4:23: 'policy' takes a name
$tmp/bad.conf:5:24: 'we/b' is not a policy name
$tmp/bad.conf:6:34: 'mac=52:54:00:12:34:5g' is not mac=MAC or ip=ADDRESS
$tmp/bad.conf:7:34: '10.0.0.300' is not an IP address
$tmp/bad.conf:8:34: mac= given twice
$tmp/bad.conf:9:17: 'name' given twice
$tmp/bad.conf:10:28: unexpected 'extra' after the binding
$tmp/bad.conf:11:1: expected 'bind', got 'bnd'
$tmp/bad.conf:12:11: 'tap{id}' is a pattern, not an interface name" "$(cat "$tmp/out")"
printf 'bind name tap{id} policy vm{vmid}\nbind name tap{id}i{n} netns guests policy vm{id} guard none\n' >"$tmp/pat.conf"
"$PY" "$HERE/bindcheck.py" "$tmp/pat.conf" >"$tmp/out" 2>&1
check "bindcheck on patterns: uncaptured {vmid}" \
	"$tmp/pat.conf:1:26: {vmid} is not captured by the name pattern" "$(cat "$tmp/out")"

# ---- libvirt: a domain of several interfaces, every operation -----------------

echo "policy web   # for domains whose metadata names none" >"$CONF"
want <<'EOF'
# tap-accel's libvirt hook: domain web-1, uuid 6f1d1c8a-3b0e-4c55-9a0b-5d2f3c1e7a10
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet0 policy web guard mac=52:54:00:6b:3c:01,ip=192.168.122.10
bind name vnet1 policy web guard mac=52:54:00:6b:3c:02
bind name web1-mgmt policy web guard mac=52:54:00:6b:3c:05
EOF
F=$B/10-libvirt-web-1.conf
hook0 web-1 prepare "$XML/web-1.xml"
absent "prepare writes nothing (libvirt names its taps after it)" "$F"
hook0 web-1 start "$XML/web-1.xml"
same "web-1 start: network, bridge and ethernet taps; user has no tap, macvtap is none" \
	"$tmp/want" "$F"
grammar "web-1 start" "$F"
check "web-1 start: mode of the file" 644 "$(stat -c %a "$F")"
has "web-1 start: says what it wrote" "wrote $F: vnet0 policy web guard mac,ip4, vnet1 policy web guard mac, web1-mgmt policy web guard mac"
has "web-1 start: macvtap0 is not a tap" "interface #4 \(type direct, tap macvtap0, MAC 52:54:00:6b:3c:04\): not a tap, not bound"
ino=$(stat -c %i "$F")
hook0 web-1 started "$XML/web-1.xml"
same "web-1 started: the same file" "$tmp/want" "$F"
check "web-1 started: not written again (same inode)" "$ino" "$(stat -c %i "$F")"
for op in migrate restore; do
	hook0 web-1 $op "$XML/web-1.xml"
	check "web-1 $op: prints nothing, changes nothing" "$ino" "$(stat -c %i "$F")"
done
hook0 web-1 stopped
absent "web-1 stopped: file removed" "$F"
hook0 web-1 release
absent "web-1 release: still none" "$F"
check "web-1 release: says nothing" "" "$(cat "$tmp/err")"
check "nothing else in bindings.d" "" "$(ls -A "$B")"

echo "== no policy named anywhere: no binding, and the lost guard said"
: >"$CONF"
hook0 web-1 start "$XML/web-1.xml"
absent "web-1 without a policy: no file" "$F"
has "web-1 without a policy: vnet0's guard named as not applied" \
	"interface #1 \(type network, tap vnet0, MAC 52:54:00:6b:3c:01\): no policy named: .*no binding written, so the agent's glob bindings decide and its guard \(mac=52:54:00:6b:3c:01,ip=192.168.122.10\) is not applied"
has "web-1 without a policy: the fix" \
	"Name one with <tapaccel:tap-accel policy='NAME'> in the domain's <metadata> \(docs/guests.md\) or 'policy NAME' in $CONF"
check "web-1 without a policy: one warning per tap" 3 "$(grep -c 'no policy named' "$tmp/err")"
echo "policy web" >"$CONF"

echo "== metadata, no filterref; IPv6"
want <<'EOF'
# tap-accel's libvirt hook: domain db-1, uuid 0c6a9f2e-51d8-4b7a-8e34-2f9b6d1c4a22
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet2 policy db guard mac=52:54:00:0c:6a:01
bind name vnet3 policy db guard mac=52:54:00:0c:6a:02
EOF
hook0 db-1 start "$XML/db-1.xml"
same "db-1: the metadata's policy over libvirt.conf's; no filterref: the MAC alone" \
	"$tmp/want" "$B/10-libvirt-db-1.conf"
want <<'EOF'
# tap-accel's libvirt hook: domain mail-6, uuid a4e2c7d1-9f3b-4e6a-b2c8-7d1e0f5a3b44
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet4 policy mail guard mac=52:54:00:a4:e2:01,ip=192.0.2.25,ip=192.0.2.26,ip=2001:db8:25::25,ip=2001:db8:25::26,ip=fe80::5054:ff:fea4:e201
bind name vnet5 policy mail guard mac=52:54:00:a4:e2:02,ip=2001:db8:26::5,ip=fe80::1234,ip=192.0.2.27
EOF
hook0 mail-6 start "$XML/mail-6.xml"
same "mail-6: IP and IPV6 parameters, once each; the EUI-64 link-local added where none is given" \
	"$tmp/want" "$B/10-libvirt-mail-6.conf"
grammar "db-1, mail-6" "$B/10-libvirt-db-1.conf" "$B/10-libvirt-mail-6.conf"

echo "== metadata per interface; a hot-plugged interface at reconnect"
want <<'EOF'
# tap-accel's libvirt hook: domain tenant-7, uuid 7e7e7e7e-1111-4222-8333-944455556666
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet6 policy tenant guard mac=52:54:00:7e:00:01,ip=198.51.100.7,ip=2001:db8:7::7,ip=fe80::5054:ff:fe7e:1
bind name vnet7 policy tenant-admin guard mac=52:54:00:7e:00:02,ip=10.7.0.2
bind name t7-uplink policy router
EOF
F=$B/10-libvirt-tenant-7.conf
hook0 tenant-7 start "$XML/tenant-7.xml"
same "tenant-7: by MAC (any case) with addresses, by MAC with a policy, by dev without guard" \
	"$tmp/want" "$F"
has "tenant-7: an entry for no interface is named" \
	"warning: metadata <interface> #4: no interface of the domain has mac='52:54:00:7e:00:99'"
echo "bind name vnet8 policy tenant guard mac=52:54:00:7e:00:04" >>"$tmp/want"
ino=$(stat -c %i "$F")
hook0 tenant-7 reconnect "$XML/tenant-7-hotplug.xml"
same "tenant-7 reconnect after a hot-plug: the new tap, on the domain's policy" "$tmp/want" "$F"
if [ "$ino" != "$(stat -c %i "$F")" ]; then good; else bad "tenant-7 rewritten in place, not renamed over"; fi
grammar "tenant-7" "$F"
hook0 tenant-7 release
absent "tenant-7 release: removed" "$F"

echo "== errors in the metadata and the filterref: those taps alone are left out"
want <<'EOF'
# tap-accel's libvirt hook: domain broken-3, uuid b3b3b3b3-0000-4000-8000-000000000003
# Written when the domain starts, removed when it stops (docs/guests.md).
bind name vnet12 policy web guard mac=52:54:00:b3:00:05
EOF
F=$B/10-libvirt-broken-3.conf
hook0 broken-3 start "$XML/broken-3.xml"
same "broken-3: the one interface without a fault" "$tmp/want" "$F"
has "broken-3: guard='maybe'" "error: interface #1 \(type bridge, tap vnet10, MAC 52:54:00:b3:00:01\): not bound: metadata <interface> #1: guard='maybe': say yes \(the default\) or no"
has "broken-3: policy='no good'" "error: interface #2 .*tap vnet11.*: not bound: metadata <interface> #2: policy='no good' is not a policy name"
has "broken-3: filterref IP" "error: interface #3 .*tap vnet14.*: not bound: guard address '10.0.0.300' is not an IPv4 or IPv6 address; correct the domain's <mac>, <filterref> or <tap-accel> metadata"
has "broken-3: tap name vm#1" "error: interface #4 .*tap vm#1.*: the tap's name cannot be written in a binding .*give it another <target dev='...'/>"
has "broken-3: metadata <ip>" "error: interface #6 .*tap vnet13.*: not bound: guard address '192.0.2.300' is not an IPv4 or IPv6 address"
has "broken-3: an entry naming no interface" "error: metadata <interface> #3: give dev='TAP' or mac='MAC' \(one of them\)"
has "broken-3: a misspelt attribute" "warning: metadata <interface> #4: unknown attribute polcy='typo' ignored; it takes dev, mac, policy, guard"
has "broken-3: a scoped IPv6 address" "error: interface #7 .*tap vnet15.*: not bound: guard address 'fe80::99%eth0' is not an IPv4 or IPv6 address"
check "broken-3: errors counted" 7 "$(grep -c 'error:' "$tmp/err")"
printf 'policy web\nstrict yes\n' >"$CONF"
hook broken-3 start "$XML/broken-3.xml"
check "broken-3, strict yes: start fails" 1 "$rc"
has "broken-3, strict yes: says why" "error: the domain does not start: 'strict yes' in $CONF"
same "broken-3, strict yes: what could be written is" "$tmp/want" "$F"
hook broken-3 reconnect "$XML/broken-3.xml"
check "broken-3, strict yes: reconnect never fails (libvirt would kill the guest)" 0 "$rc"
hook0 broken-3 stopped
echo "policy web" >"$CONF"
hook0 db-1 start "$XML/db-1.xml"
sed 's/policy="db"/policy="d b"/' "$XML/db-1.xml" >"$tmp/root.xml"
hook0 db-1 start "$tmp/root.xml"
absent "a fault in <tap-accel> itself: no tap bound, the earlier run's file gone" \
	"$B/10-libvirt-db-1.conf"
check "a fault in <tap-accel> itself: named for each tap" 2 \
	"$(grep -c "not bound: metadata <tap-accel>: policy='d b' is not a policy name" "$tmp/err")"

echo "== bad XML: nothing written, nothing lost"
F=$B/10-libvirt-bad.conf
echo "bind name vnet9 policy web guard mac=52:54:00:00:00:09" >"$F"
cp "$F" "$tmp/before"
hook0 bad reconnect "$XML/bad.xml"
has "bad XML: says so, where" "bad reconnect: error: the domain XML on stdin is not well-formed \(unclosed token: line 42, column 4\): nothing written"
same "bad XML at reconnect: the running domain's file kept" "$tmp/before" "$F"
hook0 bad start "$XML/bad.xml"
absent "bad XML at start: no file (the one there was is from an earlier run)" "$F"
printf 'strict yes\n' >"$CONF"
hook bad start "$XML/bad.xml"
check "bad XML, strict yes: start fails" 1 "$rc"
: >"$CONF"
hook0 bad start /dev/null
has "no XML at all" "error: no domain XML on stdin \(by hand: virsh dumpxml DOMAIN \| .* DOMAIN reconnect begin -\)"
echo "<network><name>default</name></network>" >"$tmp/net.xml"
hook0 bad start "$tmp/net.xml"
has "not a domain" "error: stdin holds <network>, not a libvirt <domain>: nothing written"
absent "bad XML: still no file" "$F"
no_tmp "bad XML"

echo "== libvirt.conf"
cat >"$CONF" <<'EOF'
policy web
polcy web
policy db
wait 99
strict
EOF
hook0 db-1 start "$XML/db-1.xml"
check "libvirt.conf errors: FILE:LINE:COL, each" "tap-accel libvirt hook: db-1 start: error: $CONF:2:1: unknown setting 'polcy'; expected policy NAME, wait SECONDS or strict yes|no
tap-accel libvirt hook: db-1 start: error: $CONF:3:1: 'policy' is set twice
tap-accel libvirt hook: db-1 start: error: $CONF:4:6: wait takes seconds from 0 to 30, got '99'
tap-accel libvirt hook: db-1 start: error: $CONF:5:7: 'strict' takes one value
tap-accel libvirt hook: db-1 start: error: $CONF has errors: nothing written (fix it; the domain's next start, or reconnect, writes its bindings)" \
	"$(cat "$tmp/err")"
absent "libvirt.conf errors: nothing written" "$B/10-libvirt-db-1.conf"
printf 'strict maybe # or yes\n  wait 1 2\n' >"$CONF"
hook0 db-1 start "$XML/db-1.xml"
check "libvirt.conf errors: values" "tap-accel libvirt hook: db-1 start: error: $CONF:1:8: strict takes yes or no, got 'maybe'
tap-accel libvirt hook: db-1 start: error: $CONF:2:10: 'wait' takes one value
tap-accel libvirt hook: db-1 start: error: $CONF has errors: nothing written (fix it; the domain's next start, or reconnect, writes its bindings)" \
	"$(cat "$tmp/err")"
echo "policy web" >"$CONF"

echo "== domain names as file names"
i=0
long=$(printf 'x%.0s' $(seq 1 250))
for name in "web server" "web_server" "a%b" "dömain" ".." "-x" "$long" "line
break"; do
	i=$((i + 1))
	sed "s/'vnet2'/'n${i}a'/; s/'vnet3'/'n${i}b'/" "$XML/db-1.xml" >"$tmp/n.xml"
	hook0 "$name" start "$tmp/n.xml"
done
ls -A "$B" | sort >"$tmp/got"
sort >"$tmp/want" <<EOF
10-libvirt-web%20server.conf
10-libvirt-web_server.conf
10-libvirt-a%25b.conf
10-libvirt-d%C3%B6main.conf
10-libvirt-...conf
10-libvirt--x.conf
10-libvirt-$(printf 'x%.0s' $(seq 1 180))~$(printf '%s' "$long" | sha256sum | cut -c1-16).conf
10-libvirt-line%0Abreak.conf
10-libvirt-mail-6.conf
EOF
same "domain names: one file each, none shared" "$tmp/want" "$tmp/got"
check "domain names: a newline stays in the comment" \
	"# tap-accel's libvirt hook: domain line\\nbreak, uuid 0c6a9f2e-51d8-4b7a-8e34-2f9b6d1c4a22" \
	"$(head -n 1 "$B/10-libvirt-line%0Abreak.conf")"
grammar "domain names" "$B"/*.conf
for name in "web server" "web_server" "a%b" "dömain" ".." "-x" "$long" "line
break"; do
	hook0 "$name" stopped
done
check "domain names: each removed by its stop" "10-libvirt-mail-6.conf" "$(ls -A "$B")"
hook0 mail-6 stopped

echo "== a stale claim of another domain is dropped"
sed "s/'vnet2'/'vnet20'/" "$XML/db-1.xml" >"$tmp/db-2.xml"
sed "s/'vnet3'/'vnet30'/; s/'vnet2'/'vnet2'/" "$XML/db-1.xml" >"$tmp/db-3.xml"
hook0 db-1 start "$XML/db-1.xml"
hook0 db-2 start "$tmp/db-2.xml"
has "db-2 takes vnet3: db-1's line dropped, said" \
	"warning: 10-libvirt-db-1.conf bound vnet3, which this domain has now: stale, dropped from it"
check "db-1's file keeps vnet2 alone" "bind name vnet2 policy db guard mac=52:54:00:0c:6a:01" \
	"$(grep '^bind' "$B/10-libvirt-db-1.conf")"
check "db-2's file: vnet20 and vnet3" "bind name vnet20 policy db guard mac=52:54:00:0c:6a:01
bind name vnet3 policy db guard mac=52:54:00:0c:6a:02" "$(grep '^bind' "$B/10-libvirt-db-2.conf")"
hook0 db-3 start "$tmp/db-3.xml"
absent "db-3 takes vnet2: db-1's file, left with no binding, removed" "$B/10-libvirt-db-1.conf"
check "db-2's file untouched by db-3" 2 "$(grep -c '^bind' "$B/10-libvirt-db-2.conf")"
for d in db-2 db-3; do hook0 $d release; done

echo "== atomic writes; hooks of many domains at once"
mkdir -p "$B/10-libvirt-web-1.conf"
hook0 web-1 start "$XML/web-1.xml"
has "rename onto a folder: the cause" "error: $B/\\.10-libvirt-web-1\\.conf\\.[0-9]+\\.tmp to $B/10-libvirt-web-1.conf: Is a directory"
no_tmp "rename failed"
printf 'policy web\nstrict yes\n' >"$CONF"
hook web-1 start "$XML/web-1.xml"
check "rename failed, strict yes: start fails" 1 "$rc"
rmdir "$B/10-libvirt-web-1.conf"
echo "policy web" >"$CONF"
n=1
while [ $n -le 12 ]; do
	sed "s/'vnet2'/'p${n}a'/; s/'vnet3'/'p${n}b'/" "$XML/db-1.xml" >"$tmp/p$n.xml"
	(TAP_ACCEL_RUN_DIR=$RUN TAP_ACCEL_LIBVIRT_CONF=$CONF TAP_ACCEL_SYSLOG=0 \
		TAP_ACCEL_CLI=$TA_BIN "$HOOK" "p$n" start begin - <"$tmp/p$n.xml" >"$tmp/p$n.out" 2>&1; echo $? >>"$tmp/p.rc") &
	n=$((n + 1))
done
wait
check "12 hooks at once: exit statuses" "000000000000" "$(tr -d '\n' <"$tmp/p.rc")"
n=1
ok=0
while [ $n -le 12 ]; do
	[ "$(grep '^bind' "$B/10-libvirt-p$n.conf" 2>/dev/null)" = "bind name p${n}a policy db guard mac=52:54:00:0c:6a:01
bind name p${n}b policy db guard mac=52:54:00:0c:6a:02" ] && ok=$((ok + 1))
	n=$((n + 1))
done
check "12 hooks at once: files right" 12 "$ok"
no_tmp "12 hooks at once"
rm -f "$B"/10-libvirt-p*.conf

echo "== waiting for the agent"
# it checks guards as tap-accel does; status never answers
printf '#!/bin/sh\n[ "$1" = guard ] && exec %s "$@"\nexec sleep 60\n' "$TA_BIN" >"$tmp/hang"
chmod +x "$tmp/hang"
printf 'policy web\nwait 1\n' >"$CONF"
t0=$(date +%s)
CLI=$tmp/hang
hook0 db-1 start "$XML/db-1.xml"
unset CLI
at_most "a tap-accel that hangs: seconds the start waited" 4 $(($(date +%s) - t0))
has "a tap-accel that hangs: said" "error: not bound as written within 1 s: vnet2 not bound \(want policy db, guard mac\); vnet3 not bound \(want policy db, guard mac\) \[tap-accel status did not answer\]"
check "a tap-accel that hangs: the file is written all the same" 2 \
	"$(grep -c '^bind name vnet[23] policy db guard mac=' "$B/10-libvirt-db-1.conf")"
grammar "with wait" "$B/10-libvirt-db-1.conf"
CLI=$tmp/no-such-tap-accel
hook0 db-1 start "$XML/db-1.xml"
unset CLI
has "no tap-accel installed: said at once" "error: $tmp/no-such-tap-accel is not installed \(not in PATH\): it checks the guards; nothing written"
absent "no tap-accel installed: nothing written" "$B/10-libvirt-db-1.conf"

ns_add "$NS" || { bad "cannot create netns $NS"; finish; }
taps_add "$NS" vnet2 vnet3 || { bad "cannot create taps in $NS"; finish; }
printf 'default pass\n' >"$tmp/db.policy"
ta policy load db "$tmp/db.policy" >/dev/null || bad "policy load db"
wait_hook() { # DOMAIN XML: the hook at start in $NS, with the real CLI
	in_ns env TAP_ACCEL_RUN_DIR="$RUN" TAP_ACCEL_LIBVIRT_CONF="$CONF" TAP_ACCEL_SYSLOG=0 \
		TAP_ACCEL_CLI="$TA_BIN" "$HOOK" "$1" start begin - <"$2" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
}
printf 'policy db\nwait 2\nstrict yes\n' >"$CONF"
wait_hook db-1 "$XML/db-1.xml"
check "the agent does not bind, strict yes: start fails" 1 "$rc"
has "the agent does not bind: which taps" "vnet2 not bound \(want policy db, guard mac\); vnet3 not bound"
ta attach vnet2 --policy db --guard mac=52:54:00:0c:6a:01 >/dev/null || bad "attach vnet2"
ta attach vnet3 --policy db >/dev/null || bad "attach vnet3"
wait_hook db-1 "$XML/db-1.xml"
check "a tap bound without its guard: start fails" 1 "$rc"
has "a tap bound without its guard: what is there and what is wanted" \
	"not bound as written within 2 s: vnet3 policy db, guard -, attached \(want policy db, guard mac\)\. Is tap-accel.service running"
(sleep 0.7; ta attach vnet3 --guard mac=52:54:00:0c:6a:02 >/dev/null) &
wait_hook db-1 "$XML/db-1.xml"
wait
check "the agent binds while the hook waits: start goes on" 0 "$rc"
has "the agent binds while the hook waits: said" "the agent bound vnet2, vnet3"
check "the agent binds while the hook waits: no error" 0 "$(grep -c error: "$tmp/err")"
hook0 db-1 stopped
echo "policy web" >"$CONF"

# ---- QEMU's tap backend with qemu-ifup and qemu-ifdown ---------------------------

MAC=52:54:00:ad:00:01
in_ns ip link add br-ad type bridge || bad "bridge in $NS"
# qemu NAME TAP [VAR=VALUE...]: QEMU with a tap netdev and no guest (paused,
# no machine), daemonized once the netdev (and so qemu-ifup) is up, its
# monitor on $tmp/NAME.mon.{in,out}. Its exit status in $rc, stderr in
# $tmp/NAME.err.
qemu() {
	_n=$1 _tap=$2
	shift 2
	mkfifo "$tmp/$_n.mon.in" "$tmp/$_n.mon.out"
	ip netns exec "$NS" env "$@" \
		qemu-system-x86_64 -M none -S -nodefaults -display none -accel tcg \
		-netdev "tap,id=n0,ifname=$_tap,script=$IFUP,downscript=$IFDOWN" \
		-chardev "pipe,id=mon,path=$tmp/$_n.mon" -mon chardev=mon \
		-daemonize -pidfile "$tmp/$_n.pid" >"$tmp/$_n.err" 2>&1
	rc=$?
	[ $rc -eq 0 ] && { cat "$tmp/$_n.mon.out" >/dev/null & }
}
# gone NAME: QEMU NAME has exited (5 s at most); 0 if it has.
gone() {
	_p=$(cat "$tmp/$1.pid" 2>/dev/null) || return 0
	for _ in $(seq 1 50); do
		kill -0 "$_p" 2>/dev/null || { rm -f "$tmp/$1.pid"; return 0; }
		sleep 0.1
	done
	return 1
}
link() { in_ns ip -o link show dev "$1" 2>/dev/null; }

echo "== QEMU: settings from the environment; quit from the monitor"
F=$B/10-qemu-qad0.conf
qemu q1 qad0 TAP_ACCEL_POLICY=web TAP_ACCEL_GUARD=mac=$MAC,ip=192.0.2.50,ip=2001:db8::50 \
	TAP_ACCEL_BRIDGE=br-ad
check "QEMU with qemu-ifup starts ($(cat "$tmp/q1.err"))" 0 "$rc"
want <<EOF
# tap-accel's qemu-ifup, for the tap QEMU created; qemu-ifdown
# removes it when QEMU exits (docs/guests.md).
bind name qad0 netns $NS policy web guard mac=$MAC,ip=192.0.2.50,ip=2001:db8::50
EOF
same "qemu-ifup: the binding, with the tap's namespace" "$tmp/want" "$F"
grammar "qemu-ifup" "$F"
case $(link qad0) in
*[\<,]UP[,\>]*"master br-ad"*) good ;;
*) bad "qemu-ifup: tap qad0 up in br-ad: $(link qad0)" ;;
esac
echo quit >"$tmp/q1.mon.in"
gone q1 && good || bad "QEMU q1 did not quit"
absent "qemu-ifdown at quit: binding removed" "$F"
check "the tap went with QEMU" "" "$(link qad0)"

echo "== QEMU and the agent: the tap bound with its guard while QEMU starts; unbound when it quits"
AG=$tmp/agent
mkdir -p "$AG/policies" "$AG/bindings.d"
printf 'rule drop proto udp dport 9\ndefault pass\n' >"$AG/policies/web.policy"
printf 'netns %s\n' "$NS" >"$AG/agent.conf"
# the agent in a namespace of its own, watching $NS, reading $B
ns_add "${NS}a" || bad "netns ${NS}a"
ip netns exec "${NS}a" "$TA_BIN" agent --config "$AG" --run-dir "$B" 2>"$tmp/agent.log" &
echo $! >"$tmp/agent.pid"
# agent_says PATTERN: in its log within 5 s
agent_says() {
	for _ in $(seq 1 100); do
		grep -qE -- "$1" "$tmp/agent.log" && return 0
		sleep 0.05
	done
	return 1
}
agent_says '^ready$' && good || { bad "the agent is not ready:"; sed 's/^/    /' "$tmp/agent.log"; }
qemu q0 qad9 TAP_ACCEL_POLICY=web TAP_ACCEL_GUARD=mac=$MAC,ip=192.0.2.51
check "QEMU with qemu-ifup and the agent starts ($(cat "$tmp/q0.err"))" 0 "$rc"
if agent_says "^bound qad9 \(netns $NS\): policy web, guard mac,ip4, by $B/10-qemu-qad9.conf:3$"; then
	good
else
	bad "the agent did not bind qad9 as qemu-ifup's file says:"
	sed 's/^/    /' "$tmp/agent.log"
fi
check "qad9 in status: policy web, guard mac,ip4" '"policy":"web" "guard":"mac,ip4"' \
	"$(in_ns "$TA_BIN" --json status | grep -o '"ifname":"qad9"[^}]*' |
		grep -o '"policy":"[^"]*"\|"guard":"[^"]*"' | tr '\n' ' ' | sed 's/ $//')"
echo quit >"$tmp/q0.mon.in"
gone q0 && good || bad "QEMU q0 did not quit"
# qemu-ifdown removes the file before QEMU closes the tap: either comes first
agent_says "^unbound qad9 \(netns $NS\): (no binding matches it|deleted)$" && good ||
	{ bad "the agent did not unbind qad9:"; sed 's/^/    /' "$tmp/agent.log"; }
kill -TERM "$(cat "$tmp/agent.pid")"
wait "$(cat "$tmp/agent.pid")"
check "the agent exits 0" 0 "$?"
rm -f "$tmp/agent.pid"
check "no error in the agent's log" "" "$(grep '^error' "$tmp/agent.log")"
ns_del "${NS}a"

echo "== QEMU: settings from the tap's file; SIGTERM"
mkdir -p "$tmp/qemu"
cat >"$tmp/qemu/qad1.conf" <<EOF
# the tap of VM 101
policy  vm101   # its own
guard mac=$MAC
EOF
F=$B/10-qemu-qad1.conf
qemu q2 qad1
check "QEMU q2 starts ($(cat "$tmp/q2.err"))" 0 "$rc"
check "qemu-ifup from the file" "bind name qad1 netns $NS policy vm101 guard mac=$MAC" \
	"$(grep '^bind' "$F")"
case $(link qad1) in
*[\<,]UP[,\>]*) case $(link qad1) in *master*) bad "qad1 in a bridge: $(link qad1)" ;; *) good ;; esac ;;
*) bad "qemu-ifup: tap qad1 up: $(link qad1)" ;;
esac
kill -TERM "$(cat "$tmp/q2.pid")"
gone q2 && good || bad "QEMU q2 did not end on SIGTERM"
absent "qemu-ifdown at SIGTERM: binding removed" "$F"

echo "== QEMU: an empty variable overrides the file"
cp "$tmp/qemu/qad1.conf" "$tmp/qemu/qad2.conf"
echo "bind name qad2 policy web guard mac=52:54:00:00:00:99" >"$B/10-qemu-qad2.conf"
qemu q3 qad2 TAP_ACCEL_POLICY= TAP_ACCEL_GUARD=
check "QEMU q3 starts" 0 "$rc"
absent "no policy: no binding; an earlier QEMU's (killed) for the name removed" \
	"$B/10-qemu-qad2.conf"
has "no policy: said on QEMU's stderr" "tap-accel qemu-ifup: qad2: no policy \(TAP_ACCEL_POLICY, or 'policy' in $tmp/qemu/qad2.conf\): no binding written; the agent's glob bindings decide" "$tmp/q3.err"
echo quit >"$tmp/q3.mon.in"
gone q3 && good || bad "QEMU q3 did not quit"

echo "== QEMU: wrong settings stop QEMU before the guest runs"
# qemu_fails DESC PATTERN TAP VAR=VALUE...
qemu_fails() {
	_d=$1 _p=$2 _t=$3
	shift 3
	qemu qf "$_t" "$@"
	check "$_d: QEMU fails" 1 "$rc"
	has "$_d: the script's message" "$_p" "$tmp/qf.err"
	has "$_d: QEMU names the script" "network script $IFUP failed" "$tmp/qf.err"
	gone qf || { bad "$_d: QEMU still runs"; kill -9 "$(cat "$tmp/qf.pid")"; }
	check "$_d: no tap left" "" "$(link "$_t")"
	check "$_d: no binding" "" "$(ls -A "$B")"
	rm -f "$tmp/qf.mon.in" "$tmp/qf.mon.out"
}
qemu_fails "a bad policy name" \
	"tap-accel qemu-ifup: qad3: policy 'we b' is not a policy name" qad3 "TAP_ACCEL_POLICY=we b"
qemu_fails "a bad guard" "qad3: TAP_ACCEL_GUARD: guard address 'x' is not an IPv4 or IPv6 address" \
	qad3 TAP_ACCEL_POLICY=web "TAP_ACCEL_GUARD=mac=$MAC,ip=x"
qemu_fails "a guard without a policy" "a guard \(mac=$MAC\) but no policy" qad3 \
	"TAP_ACCEL_GUARD=mac=$MAC"
qemu_fails "a missing bridge" "bridge 'br-none' does not exist here" qad3 TAP_ACCEL_POLICY=web \
	TAP_ACCEL_BRIDGE=br-none
qemu_fails "a device that is not a bridge" "bridge 'lo' does not exist here \(ip link add lo type bridge\), or is not a bridge" \
	qad3 TAP_ACCEL_POLICY=web TAP_ACCEL_BRIDGE=lo
printf 'policy web\npolicy db\nbridge\nmtu 9000\n' >"$tmp/qemu/qad3.conf"
qemu_fails "errors in the tap's file" "$tmp/qemu/qad3.conf:2:1: policy is set twice" qad3
has "errors in the tap's file: each" "$tmp/qemu/qad3.conf:3:7: bridge takes one value" "$tmp/qf.err"
has "errors in the tap's file: each" "$tmp/qemu/qad3.conf:4:1: unknown setting \"mtu\"" "$tmp/qf.err"
rm -f "$tmp/qemu/qad3.conf"

echo "== QEMU in a network namespace without a name"
# in a pid namespace of our own, so that PID 1 (whose namespace is the
# host's to qemu-ifup) is ours to read, as root's is on a host
unshare --pid --fork --mount-proc sh -c 'unshare --net "$@"; echo $? >"$0"' "$tmp/q4.rc" \
	env TAP_ACCEL_POLICY=web \
	qemu-system-x86_64 -M none -S -nodefaults -display none -accel tcg \
	-netdev "tap,id=n0,ifname=qad4,script=$IFUP,downscript=$IFDOWN" \
	-daemonize -pidfile "$tmp/q4.pid" >"$tmp/q4.err" 2>&1 </dev/null
check "an unnamed namespace: QEMU fails" 1 "$(cat "$tmp/q4.rc")"
has "an unnamed namespace: why" \
	"qad4: the tap is in a network namespace without a name, where the agent does not look" \
	"$tmp/q4.err"
check "an unnamed namespace: no binding" "" "$(ls -A "$B")"
no_tmp "QEMU"


echo "== one list of bad guards, refused in the same words at every way in"
# tests/lib/bad-guards.txt: ITEM MESSAGE. Each is tried with a good MAC (or
# alone, for a MAC) through attach --guard, a policy file, a binding the
# agent reads, qemu-ifup and the libvirt hook; each must say MESSAGE and
# leave nothing bound or written.
GMAC=52:54:00:ad:00:07
taps_add "$NS" qadg || bad "cannot create tap qadg in $NS"
in_ns ip link set qadg down
mkdir -p "$tmp/g/etc" "$tmp/g/run"
# refused WAY MESSAGE OUTPUT-FILE STATUS: exit 1 and MESSAGE, as it is
refused() {
	check "$1: exit status" 1 "$4"
	if grep -qF -- "$2" "$3"; then good; else bad "$1: not said: $2; got:"; sed 's/^/    /' "$3"; fi
}
# xml_of ITEMS: a domain with one interface on qadg and the items as its
# <mac address> and filterref IP parameters
xml_of() {
	_mac=$GMAC _ips=
	for _i in $(echo "$1" | tr ',' ' '); do
		case $_i in
		mac=*) _mac=${_i#mac=} ;;
		ip=*) _ips="$_ips<parameter name='IP' value='${_i#ip=}'/>" ;;
		esac
	done
	cat <<EOX
<domain type='kvm'><name>g</name><devices><interface type='ethernet'>
<mac address='$_mac'/><target dev='qadg'/>
<filterref filter='clean-traffic'>$_ips</filterref></interface></devices></domain>
EOX
}
# every_way ITEMS MESSAGE
every_way() {
	_it=$1 _m=$2
	ta attach qadg --policy db --guard "$_it" >"$tmp/g/out" 2>&1
	refused "attach --guard $_it" "tap-accel: attach: --guard: $_m" "$tmp/g/out" $?
	check "attach --guard $_it: qadg not bound" "" "$(ta status 2>/dev/null | grep qadg)"
	printf 'guard %s\ndefault pass\n' "$(echo "$_it" | tr ',=' '  ')" >"$tmp/g/p.policy"
	"$TA_BIN" policy check "$tmp/g/p.policy" >"$tmp/g/out" 2>&1
	refused "policy file guard $_it" "$tmp/g/p.policy:1:" "$tmp/g/out" $?
	refused "policy file guard $_it" ": $_m" "$tmp/g/out" 1
	printf 'bind name qadg policy db guard %s\n' "$_it" >"$tmp/g/run/10-g.conf"
	"$TA_BIN" agent --check --config "$tmp/g/etc" --run-dir "$tmp/g/run" >"$tmp/g/out" 2>&1
	refused "binding guard $_it" "$tmp/g/run/10-g.conf:1:" "$tmp/g/out" $?
	refused "binding guard $_it" ": guard: $_m" "$tmp/g/out" 1
	ip netns exec "$NS" env TAP_ACCEL_POLICY=db "TAP_ACCEL_GUARD=$_it" "$IFUP" qadg \
		>"$tmp/g/out" 2>&1
	refused "qemu-ifup TAP_ACCEL_GUARD=$_it" "tap-accel qemu-ifup: qadg: TAP_ACCEL_GUARD: $_m" \
		"$tmp/g/out" $?
	case $(link qadg) in
	*[\<,]UP[,\>]*) bad "qemu-ifup TAP_ACCEL_GUARD=$_it: brought qadg up before refusing" ;;
	*) good ;;
	esac
	xml_of "$_it" >"$tmp/g/d.xml"
	hook0 g start "$tmp/g/d.xml"
	refused "libvirt hook $_it" "error: interface #1 (type ethernet, tap qadg, MAC " "$tmp/err" 1
	refused "libvirt hook $_it" "): not bound: $_m; correct the domain's" "$tmp/err" 1
	check "bad guards: nothing in bindings.d after $_it" "" "$(ls -A "$B")"
}
n=0
while read -r item msg; do
	case $item in '#'* | '') continue ;; esac
	case $item in ip=*) item=mac=$GMAC,$item ;; esac
	every_way "$item" "$msg"
	n=$((n + 1))
done <"$TOP/tests/lib/bad-guards.txt"
at_least "bad guards: entries tried" 20 "$n"
many=mac=$GMAC
for i in $(seq 1 65); do many=$many,ip=10.0.0.$i; done
every_way "$many" "guard address '10.0.0.65': at most 64 guard addresses of each family"
# IPv6 addresses at their longest: a full guard fits every way in
many=mac=$GMAC
for i in $(seq 1 64); do many=$many,ip=10.0.0.$i; done
for i in $(seq 1 65); do many=$many,ip=fd00:1111:2222:3333:4444:5555:6666:$(printf %x $i); done
every_way "$many" "guard address 'fd00:1111:2222:3333:4444:5555:6666:41': at most 64 guard addresses of each family"
printf 'bind name qadg policy db guard %s\n' "${many%,ip=*}" >"$tmp/g/run/10-g.conf"
expect_exit 0 "" "$TA_BIN" agent --check --config "$tmp/g/etc" --run-dir "$tmp/g/run"
printf 'bind name qadg policy db guard mac=%s,ip=10.0.0.1,ip=fe80::1\n' "$GMAC" >"$tmp/g/run/10-g.conf"
expect_exit 0 "" "$TA_BIN" agent --check --config "$tmp/g/etc" --run-dir "$tmp/g/run"
ip netns exec "$NS" env TAP_ACCEL_POLICY=db "TAP_ACCEL_GUARD=mac=52-54-00-AD-00-07,ip=10.0.0.1" \
	"$IFUP" qadg >"$tmp/g/out" 2>&1
check "qemu-ifup with a good guard: exit status ($(cat "$tmp/g/out"))" 0 "$?"
check "qemu-ifup with a good guard: written as tap-accel reads it" \
	"bind name qadg netns $NS policy db guard mac=52:54:00:ad:00:07,ip=10.0.0.1" \
	"$(grep '^bind' "$B/10-qemu-qadg.conf")"
"$IFDOWN" qadg
absent "qemu-ifdown --run-dir: removed" "$B/10-qemu-qadg.conf"

echo "== qemu-ifup: its folders are options, never the environment"
# a pid namespace of its own (so that the tap's namespace passes for the
# host's) and a /run of its own: where would the binding go?
mkdir -p "$tmp/elsewhere"
unshare --mount --propagation private --net --pid --fork --mount-proc sh -c '
	mount -t tmpfs tmpfs /run && ip tuntap add qade mode tap &&
	PATH=$1:$PATH TAP_ACCEL_RUN_DIR=$2 TAP_ACCEL_POLICY=db $3 qade && ls /run/tap-accel/bindings.d' \
	sh "$tmp" "$tmp/elsewhere" "$UP" >"$tmp/g/out" 2>&1
check "TAP_ACCEL_RUN_DIR is not honoured: the binding in /run/tap-accel" "10-qemu-qade.conf" \
	"$(cat "$tmp/g/out")"
check "TAP_ACCEL_RUN_DIR is not honoured: nothing in it" "" "$(ls -A "$tmp/elsewhere")"

echo "== the hook's stdin: UTF-8, and bounded"
printf 'policy db\n' >"$CONF"
sed "s/<name>db-1</<name>db-\xff</" "$XML/db-1.xml" >"$tmp/latin.xml"
hook0 db-1 start "$tmp/latin.xml"
has "non-UTF-8 XML: said what it is" "error: the domain XML on stdin is not UTF-8 \(byte 0xff at offset [0-9]+\), as libvirt writes it: nothing written"
check "non-UTF-8 XML: no internal error" 0 "$(grep -c 'internal error' "$tmp/err")"
absent "non-UTF-8 XML: nothing written" "$B/10-libvirt-db-1.conf"
{
	sed '$d' "$XML/db-1.xml"
	head -c $((5 << 20)) /dev/zero | tr '\0' ' '
	tail -n 1 "$XML/db-1.xml"
} >"$tmp/big.xml"
/usr/bin/time -f %M -o "$tmp/g/rss" env TAP_ACCEL_RUN_DIR="$RUN" TAP_ACCEL_LIBVIRT_CONF="$CONF" \
	TAP_ACCEL_SYSLOG=0 TAP_ACCEL_CLI="$TA_BIN" "$HOOK" db-1 start begin - <"$tmp/big.xml" \
	>"$tmp/stdout" 2>"$tmp/err"
check "5 MiB of XML: exit status" 0 "$?"
has "5 MiB of XML: refused, said" "error: the domain XML on stdin is larger than 4 MiB, which no libvirt domain is: nothing written"
absent "5 MiB of XML: nothing written" "$B/10-libvirt-db-1.conf"
echo "5 MiB of XML: the hook's peak RSS $(cat "$tmp/g/rss") KiB"
at_most "5 MiB of XML: the hook's peak RSS (KiB)" 40000 "$(cat "$tmp/g/rss")"
echo "policy web" >"$CONF"

finish
