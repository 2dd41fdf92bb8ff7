# The agent suites' helpers (sourced by tests/agent/run.sh and
# tests/agent-fault/run.sh, after check.sh and ns.sh): the agent started
# in namespace $NS with the runtime folder $RUN and its log in $LOG, its
# log read since a mark, waits, and the bindings as `tap-accel --json
# status` shows them. The suite sets tmp, TA_BIN, NS, RUN, and AGENT="".

# agent_kill: SIGKILL to the agent, if one runs.
agent_kill() {
	[ -n "$AGENT" ] && kill -KILL "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
	AGENT=""
}

nstart=${nstart:-0}
# agent_start CONFIG [VAR=VALUE...]: the agent in $NS, with the runtime
# folder $RUN, its log in $LOG; waits until it says "ready".
agent_start() {
	_conf=$1
	shift
	nstart=$((nstart + 1))
	LOG=$tmp/agent.$nstart.log
	: >"$LOG"
	MARK=0
	nsenter --net="/run/netns/$NS" env "$@" "$TA_BIN" agent --config "$_conf" \
		--run-dir "$RUN" 2>"$LOG" &
	AGENT=$!
	if wait_log '^ready$' 200; then
		good
	else
		bad "the agent ($_conf) did not get ready in 10 s; its log:"
		sed 's/^/    /' "$LOG" | tail -n 20
	fi
}
# agent_stop: SIGTERM; it exits 0 and says so.
agent_stop() {
	kill -TERM "$AGENT"
	wait "$AGENT"
	check "the agent exits 0 on SIGTERM" "0" "$?"
	AGENT=""
	check "its last words" "stopping on SIGTERM; the taps stay bound" "$(tail -n 1 "$LOG")"
}
# wait_log PATTERN [TRIES]: PATTERN (grep -E) in the log since the mark,
# within TRIES x 50 ms (default 5 s).
wait_log() {
	_n=0
	while ! since | grep -qE -- "$1"; do
		[ $_n -ge "${2:-100}" ] && return 1
		sleep 0.05
		_n=$((_n + 1))
	done
}
mark() { MARK=$(wc -l <"$LOG"); }
since() { tail -n "+$((MARK + 1))" "$LOG"; }
# logged DESC PATTERN: the agent logs PATTERN (since the mark) within 5 s.
logged() {
	if wait_log "$2"; then
		good
	else
		bad "$1: no line /$2/ in the agent's log since the mark; it says:"
		since | sed 's/^/    /' | tail -n 20
	fi
}
# until_true DESC CMD...: CMD succeeds within WAIT_S seconds (10).
WAIT_S=10
until_true() {
	_desc=$1
	shift
	_n=0
	while ! "$@" >/dev/null 2>&1; do
		if [ $_n -ge $((WAIT_S * 20)) ]; then
			bad "$_desc ($WAIT_S s); the agent's log ends:"
			tail -n 15 "$LOG" | sed 's/^/    /'
			return 1
		fi
		sleep 0.05
		_n=$((_n + 1))
	done
	good
}
# status_in NETNS: 'tap-accel --json status' there (its own taps only).
status_in() { nsenter --net="/run/netns/$1" "$TA_BIN" --json status; }
# field NETNS TAP FIELD: "FIELD":VALUE of TAP's binding, empty if unbound.
field() {
	status_in "$1" | grep -o "{\"ifname\":\"$2\"[^}]*}" |
		grep -oE "\"$3\":(\"[^\"]*\"|[0-9]+|true|false)"
}
policy_of() { field "$1" "$2" policy; }
is_bound() { [ -n "$(field "$1" "$2" policy)" ]; }
is_unbound() { [ -z "$(field "$1" "$2" policy)" ]; }
has_policy() { [ "$(policy_of "$1" "$2")" = "\"policy\":\"$3\"" ]; }
# count_bound NETNS REGEX: bindings of taps named REGEX there, and how
# many of them the agent made: "N M".
count_bound() {
	status_in "$1" >"$tmp/status.json"
	echo "$(grep -oE "\"ifname\":\"$2\"" "$tmp/status.json" | wc -l)" \
		"$(grep -oE "\"ifname\":\"$2\"[^}]*\"agent\":true" "$tmp/status.json" | wc -l)"
}
pins() { ls "$LINKS" | wc -l; }
# write_file PATH TEXT...: each TEXT a line, written whole (a temporary
# file renamed into place, as the adapters do).
write_file() {
	_path=$1
	shift
	printf '%s\n' "$@" >"$_path.tmp" && mv "$_path.tmp" "$_path"
}

