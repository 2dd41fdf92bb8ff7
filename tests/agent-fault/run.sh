#!/bin/sh
# The agent under faults, on stock-tun taps in private network namespaces
# this script creates and always removes, with a bpffs of its own
# (tests/lib/ns.sh). The agent runs in $NS (its "host") and watches $NSW;
# it binds ev* (no guard, /etc), gt* (a guard, from files in the runtime
# folder as qemu-ifup writes them) and wt* of $NSW (a guard, /etc). The
# faults: a second instance, SIGKILL, SIGSTOP for longer than the
# watchdog, FIFOs, symbolic links, folders, oversized files and files of
# another owner or writable by others in every folder it reads, the
# runtime folder removed, a full disk for the textfile, a hundred slow
# metrics clients, the watched namespace deleted. After each, every tap
# that should be bound is bound with its guard within 2 s of the fault's
# end, and frames written into each tap are counted on its own counters
# as its policy or guard drops them. Also: what the log escapes and how
# often it says an error, its levels for the journal, `status --all`, the
# agent's health metrics and systemd's notifications. Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")"
SUITE=$(pwd)/run.sh
TOP=$(cd ../.. && pwd)
BUILD=${BUILD:-$TOP/build}
TA_BIN=$BUILD/user/tap-accel
TAPIO=$BUILD/tests/host/tapio

. "$TOP/tests/lib/check.sh"
. "$TOP/tests/lib/ns.sh"

if [ "$(id -u)" != 0 ]; then
	bad "the agent fault tests need root (network namespaces, taps, BPF, mounts)"
	finish
fi
command -v python3 >/dev/null || { bad "python3 is missing (make deps installs it)"; finish; }
command -v script >/dev/null || { bad "script (bsdutils) is missing: it gives the agent a terminal"; finish; }
own_bpffs "$@"
[ -x "$TA_BIN" ] || make -s -C "$TOP" bpf user >/dev/null 2>&1
make -s -C "$TOP/tests/host" >/dev/null || { bad "tapio does not build"; finish; }
[ -x "$TA_BIN" ] || { bad "$TA_BIN is not built"; finish; }

ID=$$
NS=tafa$ID
NSW=${NS}w
NSX=${NS}x
tmp=$(mktemp -d)
RUN=$tmp/run/bindings.d
STATE=$tmp/run
cp "$TA_BIN" "$tmp/tap-accel" && TA_BIN=$tmp/tap-accel
PROM=$tmp/prom
AGENT=""
HELPERS=""

. "$TOP/tests/agent/lib.sh"

cleanup() {
	agent_kill
	[ -s "$tmp/tty.pid" ] && kill -KILL "$(cat "$tmp/tty.pid")" 2>/dev/null
	for p in $HELPERS; do kill "$p" 2>/dev/null; done
	umount "$PROM" 2>/dev/null
	ns_del "$NS" "$NSW" "$NSX"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ns_add "$NS" && ns_add "$NSW" || { bad "cannot create netns $NS and $NSW"; finish; }

# ---- the configuration and the taps -------------------------------------------------
K=$tmp/conf
mkdir -p "$K/policies" "$K/bindings.d" "$RUN" "$PROM"
mount -t tmpfs -o size=256k,mode=0755 tafault "$PROM" || { bad "cannot mount a tmpfs on $PROM"; finish; }
GUARD=mac=52:54:00:00:00:01,ip=10.0.0.1
printf 'rule drop proto udp dport 9\n' >"$K/policies/vm.policy"
printf 'netns %s\nmetrics listen 127.0.0.1:9469\nmetrics textfile %s\n' "$NSW" "$PROM" >"$K/agent.conf"
write_file "$K/bindings.d/50-ev.conf" 'bind name ev* policy vm' \
	"bind name wt* netns $NSW policy vm guard $GUARD"
# qemu-ifup's file for TAP
adapter_file() { write_file "$RUN/10-qemu-$1.conf" "bind name $1 policy vm guard $GUARD"; }
adapter_file gt0
taps_add "$NS" ev0 gt0 zz0 && taps_add "$NSW" wt0 || { bad "cannot make the taps"; finish; }
# What must be bound: NETNS:TAP:KIND, KIND guard (mac,ip4 as $GUARD) or plain.
EXPECT="$NS:ev0:plain $NS:gt0:guard $NSW:wt0:guard"

tapio_in() { _n=$1; shift; nsenter --net="/run/netns/$_n" "$TAPIO" "$@"; }
# counter NETNS TAP NAME: packets of counter NAME in TAP's stats
counter() {
	nsenter --net="/run/netns/$1" "$TA_BIN" stats "$2" --json |
		grep -o "\"$3\":{\"packets\":[0-9]*" | head -n 1 | grep -o '[0-9]*$'
}
# all_bound: every tap of $EXPECT bound to vm, with the guard where it
# should have one (one status read per namespace).
all_bound() {
	status_in "$NS" >"$tmp/st.$NS" 2>/dev/null
	status_in "$NSW" >"$tmp/st.$NSW" 2>/dev/null
	for _e in $EXPECT; do
		_ns=${_e%%:*} _r=${_e#*:}
		_tap=${_r%%:*} _kind=${_r#*:}
		_rec=$(grep -o "{\"ifname\":\"$_tap\"[^}]*}" "$tmp/st.$_ns")
		case $_rec in *'"policy":"vm"'*) ;; *) echo "$_tap" && return 1 ;; esac
		case $_kind:$_rec in
		guard:*'"guard":"mac,ip4"'* | plain:*'"guard":"-"'*) ;;
		*) echo "$_tap" && return 1 ;;
		esac
	done
}
# counted DESC NETNS:TAP:KIND: 10 frames into the tap that its binding
# drops (its guard: a spoofed IPv4 source; its policy: UDP port 9),
# counted on the tap's own counters.
counted() {
	_ns=${2%%:*} _r=${2#*:}
	_tap=${_r%%:*} _kind=${_r#*:}
	if [ "$_kind" = guard ]; then
		_c=ip4_src _args="--src 10.99.99.99 --dport 10"
	else
		_c=drop _args="--dport 9"
	fi
	_before=$(counter "$_ns" "$_tap" "$_c")
	# shellcheck disable=SC2086 # the options, split
	_out=$(tapio_in "$_ns" "$_tap" --count 10 --settle-ms 100 $_args)
	_after=$(counter "$_ns" "$_tap" "$_c")
	check "$1: 10 frames into $_tap, none passed; its $_c counter +10" "sent 10 tx 0 redirect 0 pass 0 +10" \
		"$_out +$((${_after:-0} - ${_before:-0}))"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# bound_within DESC: from T0 (ms, the fault's end), every tap of $EXPECT
# bound as it should be within 2 s; then each counted.
bound_within() {
	while _missing=$(all_bound); [ -n "$_missing" ]; do
		if [ $(($(now_ms) - T0)) -gt 2000 ]; then
			bad "$1: not bound 2 s after the fault ended: $_missing; the agent's log ends:"
			tail -n 8 "$LOG" | sed 's/^/    /'
			return 1
		fi
		sleep 0.05
	done
	_ms=$(($(now_ms) - T0))
	at_most "$1: every tap bound with its guard within 2 s" 2000 "$_ms"
	echo "$1: every tap bound ${_ms} ms after the fault ended"
	for _e in $EXPECT; do counted "$1" "$_e"; done
}
alive() { kill -0 "$AGENT" 2>/dev/null; }

# systemd's side of sd_notify: each datagram, with its time (ms), a line
# (the socket in the file system: abstract ones are the namespace's)
NOTIFY=$tmp/notify
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
print("listening", file=out)
while True:
    for line in s.recv(4096).decode().split("\n"):
        print("%d %s" % (time.monotonic() * 1000, line), file=out)
' "$tmp/notify.sock" "$NOTIFY" &
HELPERS="$HELPERS $!"
until_true "the notify listener is up" grep -q listening "$NOTIFY"
pings() { grep -c ' WATCHDOG=1$' "$NOTIFY"; }
start() { agent_start "$K" NOTIFY_SOCKET="$tmp/notify.sock" WATCHDOG_USEC=1000000; }

echo "# the start: READY=1, STATUS=, the watchdog pinged"
T0=$(now_ms)
start
bound_within "the start"
until_true "READY=1 after the first reconcile" grep -q ' READY=1$' "$NOTIFY"
until_true "STATUS= says what the agent binds" \
	grep -q ' STATUS=4 taps seen, 3 bound, 1 not (tap-accel status --all says why)$' "$NOTIFY"
p=$(pings)
sleep 1.6
at_least "the watchdog pinged at each half of WATCHDOG_USEC (1 s) ($p, then $(pings))" $((p + 2)) "$(pings)"

# ---- a second instance --------------------------------------------------------------------
echo "# a second agent, the same configuration, then another: refused, the first one's taps stay"
mkdir -p "$tmp/other"
mark
expect_exit 2 "^not started: another agent runs \(pid $AGENT" \
	timeout 10 nsenter --net="/run/netns/$NS" "$TA_BIN" agent --config "$K" --run-dir "$RUN"
expect_exit 2 "^not started: another agent runs \(pid $AGENT, it holds $STATE/agent.lock\); two would unbind each other's taps: stop it first \(systemctl stop tap-accel\)$" \
	timeout 10 nsenter --net="/run/netns/$NS" "$TA_BIN" agent --config "$tmp/other" --run-dir "$RUN"
expect_exit 0 "^$K: ok, 1 policies, 3 bindings in 2 files" \
	timeout 10 nsenter --net="/run/netns/$NS" "$TA_BIN" agent --check --config "$K" --run-dir "$RUN"
T0=$(now_ms)
bound_within "a second instance"
check "the first agent unbound nothing" "" "$(since | grep '^unbound')"

# ---- SIGKILL ----------------------------------------------------------------------------------
echo "# SIGKILL; taps and files come while no agent runs; restarted"
agent_kill
taps_add "$NS" ev1 gt1
adapter_file gt1
EXPECT="$EXPECT $NS:ev1:plain $NS:gt1:guard"
T0=$(now_ms)
start
bound_within "SIGKILL, restarted"

# ---- SIGSTOP ----------------------------------------------------------------------------------
echo "# SIGSTOP for 2 s, longer than the watchdog (1 s); then SIGCONT"
kill -STOP "$AGENT"
p=$(pings)
taps_add "$NS" ev2
EXPECT="$EXPECT $NS:ev2:plain"
sleep 2
check "no watchdog ping while stopped: systemd would restart it" "$p" "$(pings)"
kill -CONT "$AGENT"
T0=$(now_ms)
bound_within "SIGSTOP"
until_true "the pings go on" test "$(pings)" -gt "$p"

# ---- bad files in the runtime folder -------------------------------------------------------------
# bad_file PATH KIND: a FIFO, a symbolic link to /etc/shadow, a folder, an
# oversized file (17 MiB: more than a policy file may be), a file of uid
# 65534, a file writable by all; made aside and moved in whole.
bad_file() {
	_s=$tmp/stage
	rm -rf "$_s"
	case $2 in
	fifo) mkfifo "$_s" ;;
	symlink) ln -s /etc/shadow "$_s" ;;
	folder) mkdir "$_s" ;;
	oversized) head -c $((17 << 20)) /dev/zero | tr '\0' '#' >"$_s" ;;
	owner) printf 'bind name gt9 policy vm\n' >"$_s" && chown 65534 "$_s" ;;
	writable) printf 'bind name gt9 policy vm\n' >"$_s" && chmod 0666 "$_s" ;;
	esac
	mv "$_s" "$1"
}
# why KIND WHAT PATH: the message that refuses it
why() {
	case $1 in
	fifo) echo "$3: expected a regular $2, found a FIFO" ;;
	symlink) echo "$3: a symbolic link: the agent follows none in its folders; put the $2 itself there" ;;
	folder) echo "$3: expected a regular $2, found a folder" ;;
	oversized) echo "$3: expected a regular $2 of at most [0-9]+ bytes" ;;
	owner) echo "$3: a $2 owned by uid 65534: the agent reads only what root owns \(chown root $3\)" ;;
	writable) echo "$3: a $2 writable by its group or others \(mode 0666\): the agent reads none such \(chmod go-w $3\)" ;;
	esac
}
KINDS="fifo symlink folder oversized owner writable"
echo "# each kind of bad file in the runtime folder: refused, said, never blocking"
taps_add "$NS" gt9
n=3
for kind in $KINDS; do
	n=$((n + 1))
	f=$RUN/10-$kind-gt9.conf
	mark
	bad_file "$f" "$kind"
	logged "runtime folder, $kind" "^$(why "$kind" "binding file" "$f")$"
	taps_add "$NS" "ev$n"
	EXPECT="$EXPECT $NS:ev$n:plain"
	T0=$(now_ms)
	bound_within "runtime folder, $kind"
done
check "gt9, bound only by refused files: not bound" "" "$(policy_of "$NS" gt9)"
check "nothing of /etc/shadow in the log" "" "$(grep -c '^root:' "$LOG" | grep -v '^0$')"
echo "# a file name with ESC and a newline; the same errors, said once"
evil=$RUN/20-$(printf 'x\033[31mred\nforged: bound').conf
mark
printf 'bind name q* policy\n' >"$evil"
logged "its error, escaped" '^.*/20-x\\x1b\[31mred\\x0aforged: bound\.conf:1:20: expected a policy name after .policy., got end of line$'
mark
adapter_file gt2
taps_add "$NS" gt2
EXPECT="$EXPECT $NS:gt2:guard"
logged "gt2 bound" "^bound gt2 \(host\): policy vm, guard mac,ip4"
check "the folder read again: its errors not said again" "" "$(since | grep -E 'expected|symbolic|owned|writable')"
check "no raw ESC in the log" "0" "$(grep -c "$(printf '\033')" "$LOG")"
check "no forged line" "0" "$(grep -c '^forged' "$LOG")"
echo "# status --all: each tap the agent does not bind, and why"
ns_add "$NSX" && taps_add "$NSX" by0
expect_exit 0 "attached tap-accel to by0" nsenter --net="/run/netns/$NSX" "$TA_BIN" attach by0 --policy vm
out=$(nsenter --net="/run/netns/$NS" "$TA_BIN" status --all --run-dir "$RUN")
check "zz0: no binding matches it" "1" \
	"$(echo "$out" | grep -cE '^zz0 +host +unbound +no binding matches it$')"
check "gt9: its files left out, and why" "1" \
	"$(echo "$out" | grep -cE "^gt9 +host +unbound +no binding matches it; its file was left out: $RUN/10-[a-z]+-gt9.conf: ")"
check "the files left out, listed" "7" "$(echo "$out" | grep -c "^left out: $RUN/")"
check "bound taps are not in the agent's list" "0" "$(echo "$out" | grep -cE '^ev0 +host')"
check "by0, bound by hand in a namespace not watched: said" "1" \
	"$(echo "$out" | grep -cE '^by0 +net:[0-9]+ +bound +its namespace is not watched by the agent$')"
nsenter --net="/run/netns/$NS" "$TA_BIN" --json status --all --run-dir "$RUN" >"$tmp/all.json"
check "--json: zz0 with its state and why" '{"ifname":"zz0","ifindex":' \
	"$(grep -o '{"ifname":"zz0","ifindex":' "$tmp/all.json")"
check "--json: zz0's why" '"state":"unbound","why":"no binding matches it"}' \
	"$(grep -o '{"ifname":"zz0"[^}]*}' "$tmp/all.json" | grep -o '"state".*')"
rm -rf "$RUN"/10-*-gt9.conf "$evil"

# ---- bad files in /etc: --check, policy check, SIGHUP ------------------------------------------
echo "# each kind of bad file in each folder of /etc: --check refuses it, never blocking"
# in_conf FOLDER-FILE: where each goes
for place in agent.conf bindings.d/20-bad.conf policies/bad.policy; do
	case $place in
	agent.conf) what="configuration file" ;;
	bindings.d/*) what="binding file" ;;
	*) what="policy file" ;;
	esac
	for kind in $KINDS; do
		C=$tmp/check-$kind
		rm -rf "$C" && cp -r "$K" "$C" && rm -f "$C/$place"
		bad_file "$C/$place" "$kind"
		expect_exit 1 "^$(why "$kind" "$what" "$C/$place")$" \
			timeout 10 "$TA_BIN" agent --check --config "$C" --run-dir "$tmp/none"
	done
done
echo "# policy check: a FIFO, a device, refused at once"
mkfifo "$tmp/p.fifo"
expect_exit 1 "^$tmp/p.fifo: expected a regular policy file, found a FIFO$" timeout 10 "$TA_BIN" policy check "$tmp/p.fifo"
expect_exit 1 "^/dev/zero: expected a regular policy file, found a character device$" timeout 10 "$TA_BIN" policy check /dev/zero
printf 'rule drop \033[2Jproto udp\n' >"$tmp/esc.policy"
"$TA_BIN" policy check "$tmp/esc.policy" >"$tmp/out" 2>&1
check "policy check: a word with ESC, escaped" "1 0" \
	"$(grep -c 'x1b\[2Jproto' "$tmp/out") $(grep -c "$(printf '\033')" "$tmp/out")"
echo "# SIGHUP with a FIFO in each folder of /etc: refused, the agent goes on"
for place in agent.conf bindings.d/20-bad.conf policies/bad.policy; do
	[ "$place" = agent.conf ] && mv "$K/agent.conf" "$tmp/agent.conf.good"
	mkfifo "$K/$place"
	mark
	kill -HUP "$AGENT"
	logged "SIGHUP, a FIFO as $place" "^reload refused: 1 errors above; the configuration running stays$"
	n=$((n + 1))
	taps_add "$NS" "ev$n"
	EXPECT="$EXPECT $NS:ev$n:plain"
	T0=$(now_ms)
	bound_within "SIGHUP, a FIFO as $place"
	rm "$K/$place"
	[ "$place" = agent.conf ] && mv "$tmp/agent.conf.good" "$K/agent.conf"
done
until_true "STATUS= says the reload was refused" grep -q 'STATUS=.*; the last reload was refused$' "$NOTIFY"
echo "# the agent's health in /metrics"
scrape() {
	nsenter --net="/run/netns/$NS" python3 -c '
import http.client, sys, time
t = time.monotonic()
c = http.client.HTTPConnection("127.0.0.1", 9469, timeout=float(sys.argv[1]))
c.request("GET", "/metrics")
r = c.getresponse()
body = r.read().decode()
sys.stderr.write("%d %d\n" % (r.status, (time.monotonic() - t) * 1000))
sys.stdout.write(body)' "${1:-5}"
}
scrape >"$tmp/scrape" 2>"$tmp/scrape.status"
metric() { grep -E "^$1 " "$tmp/scrape" | cut -d' ' -f2; }
check "tapaccel_agent_up, last reload refused" "1 1" \
	"$(metric tapaccel_agent_up) $(metric tapaccel_agent_last_reload_refused)"
check "taps seen and bound" "$(($(echo "$EXPECT" | wc -w) + 2)) $(echo "$EXPECT" | wc -w)" \
	"$(metric tapaccel_agent_taps_seen) $(metric tapaccel_agent_taps_bound)"
at_least "the last reload's time" "$(($(date +%s) - 60))" "$(metric tapaccel_agent_last_reload_timestamp_seconds)"
mark
kill -HUP "$AGENT"
logged "a good configuration again" "^reconciled: "

# ---- the runtime folder removed ---------------------------------------------------------------------
echo "# the runtime folder removed under the agent; the adapters write again"
mark
rm -rf "$RUN"
logged "made again" "^warning: $RUN was removed \(its files' bindings with it\): made again and watched$"
adapter_file gt0
adapter_file gt1
adapter_file gt2
T0=$(now_ms)
bound_within "the runtime folder removed"

# ---- a full disk for the textfile -----------------------------------------------------------------
echo "# a full disk for the textfile"
head -c 1M /dev/zero >"$PROM/filler" 2>/dev/null
before=$(cat "$PROM/tap-accel.prom")
mark
kill -HUP "$AGENT" # the textfile is written at once after a reload
logged "told" "^error: metrics $PROM: cannot write .*No space left on device"
taps_add "$NS" gt3
adapter_file gt3
EXPECT="$EXPECT $NS:gt3:guard"
T0=$(now_ms)
bound_within "a full disk"
check "the textfile as before, whole, no temporary file left" "yes filler tap-accel.prom" \
	"$([ "$before" = "$(cat "$PROM/tap-accel.prom")" ] && echo yes) $(ls -A "$PROM" | tr '\n' ' ' | sed 's/ $//')"
rm "$PROM/filler"
mark
kill -HUP "$AGENT"
logged "written again" "^reconciled: "
until_true "the textfile again, with the agent's health" grep -q '^tapaccel_agent_up 1$' "$PROM/tap-accel.prom"

# ---- a hundred slow metrics clients ----------------------------------------------------------------
echo "# a hundred slow clients of /metrics: scrapes go on"
nsenter --net="/run/netns/$NS" python3 -c '
import socket, time
held = []
for i in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", 9469), timeout=2)
        if i % 3 == 1:
            s.send(b"GET /metr")           # a request never finished
        elif i % 3 == 2:
            s.send(b"GET /metrics HTTP/1.1\r\n\r\n")  # an answer never read
        held.append(s)
    except OSError:
        pass
print("connected", len(held), flush=True)
time.sleep(8)' >"$tmp/slow" &
SLOW=$!
HELPERS="$HELPERS $SLOW"
until_true "100 connections open" grep -q '^connected 100$' "$tmp/slow"
taps_add "$NS" ev20
EXPECT="$EXPECT $NS:ev20:plain"
T0=$(now_ms)
bound_within "100 slow clients"
ok=0
for i in 1 2 3 4 5; do
	scrape 2 >"$tmp/scrape" 2>"$tmp/scrape.status" && [ "$(cut -d' ' -f1 "$tmp/scrape.status")" = 200 ] &&
		grep -q '^tapaccel_agent_up 1$' "$tmp/scrape" && ok=$((ok + 1))
	echo "scrape $i beside 100 slow clients: $(cat "$tmp/scrape.status" 2>/dev/null) (status, ms)"
done
check "5 scrapes of 5 answered beside them" "5" "$ok"
echo "# eight idle connections, then a scrape"
nsenter --net="/run/netns/$NS" python3 -c '
import socket, time
held = [socket.create_connection(("127.0.0.1", 9469), timeout=2) for i in range(8)]
print("connected", flush=True)
time.sleep(4)' >"$tmp/idle" &
HELPERS="$HELPERS $!"
until_true "8 idle connections" grep -q connected "$tmp/idle"
scrape 2 >/dev/null 2>"$tmp/scrape.status"
check "the scrape after them: 200" "200" "$(cut -d' ' -f1 "$tmp/scrape.status")"
kill "$SLOW" 2>/dev/null

# ---- the watched namespace deleted ---------------------------------------------------------------------
echo "# $NSW deleted while watched, then made again with its tap"
mark
ip netns del "$NSW"
logged "its binding goes" "^unbound wt0 \(netns $NSW\): its namespace is gone$"
ns_add "$NSW" && taps_add "$NSW" wt0
T0=$(now_ms)
bound_within "the namespace deleted"
agent_stop

# ---- metrics listen: loopback unless allow-remote ------------------------------------------------------
echo "# metrics listen on an address others reach: refused unless allow-remote"
C=$tmp/check-listen
rm -rf "$C" && cp -r "$K" "$C"
printf 'metrics listen 0.0.0.0:9469\n' >"$C/agent.conf"
expect_exit 1 "^$C/agent.conf:1:16: 0.0.0.0:9469 is not a loopback address: whoever reaches it reads the names and counters of every tap; listen on 127.0.0.1 or \[::1\], or write 'metrics listen 0.0.0.0:9469 allow-remote' to serve other hosts all the same$" \
	"$TA_BIN" agent --check --config "$C" --run-dir "$tmp/none"
printf 'metrics listen [::]:9469\n' >"$C/agent.conf"
expect_exit 1 "^$C/agent.conf:1:16: \[::\]:9469 is not a loopback address" \
	"$TA_BIN" agent --check --config "$C" --run-dir "$tmp/none"
printf 'metrics listen 0.0.0.0:9469 allow-remote\n' >"$C/agent.conf"
expect_exit 0 "^$C: ok" "$TA_BIN" agent --check --config "$C" --run-dir "$tmp/none"
printf 'metrics listen 127.0.0.2:9469 allow-all\n' >"$C/agent.conf"
expect_exit 1 "^$C/agent.conf:1:31: expected allow-remote or end of line after 'metrics listen ADDR:PORT', got 'allow-all'$" \
	"$TA_BIN" agent --check --config "$C" --run-dir "$tmp/none"

# ---- the log's levels and times -------------------------------------------------------------------------
echo "# under systemd (JOURNAL_STREAM is stderr): syslog levels; on a terminal: the time"
J=$tmp/journal.log
: >"$J"
write_file "$RUN/30-broken.conf" 'bind name q* policy'
nsenter --net="/run/netns/$NS" sh -c 'JOURNAL_STREAM=$(stat -c %d:%i "$1") exec "$2" agent --config "$3" --run-dir "$4" 2>>"$1"' \
	sh "$J" "$TA_BIN" "$K" "$RUN" &
AGENT=$!
until_true "ready, at level info" grep -q '^<6>ready$' "$J"
check "the error of a file at level err" "1" "$(grep -c "^<3>$RUN/30-broken.conf:1:20: " "$J")"
check "every line with its level" "0" "$(grep -cv '^<[3-6]>' "$J")"
agent_kill
# the shell script runs becomes the agent (exec): its pid is the agent's
script -qfec "echo \$\$ >$tmp/tty.pid; exec nsenter --net=/run/netns/$NS $TA_BIN agent --config $K --run-dir $RUN" \
	"$tmp/tty.log" >/dev/null 2>&1 </dev/null &
AGENT=$!
until_true "on a terminal: ready, with the time" grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} ready' "$tmp/tty.log"
kill -TERM "$(cat "$tmp/tty.pid")"
until_true "it stops on SIGTERM" sh -c '! kill -0 "$1" 2>/dev/null' sh "$(cat "$tmp/tty.pid")"
kill -KILL "$(cat "$tmp/tty.pid")" 2>/dev/null
wait "$AGENT" 2>/dev/null
AGENT=""

check "no raw control byte in any log" "0" \
	"$(cat "$tmp"/agent.*.log "$J" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')")"
finish
