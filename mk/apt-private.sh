# shellcheck shell=sh
# Sourced: apt on one Debian suite alone, with its own sources list, lists
# and archive cache under $CACHE/apt/NAME (never the machine's sources).
#   apt_private NAME "LINE..."   (re)write NAME's sources list (one line a
#                                line) and update its lists; needs root
#   apt_run NAME apt-get|apt-cache ...   run apt on NAME's lists
apt_run() {
	a=$CACHE/apt/$1
	shift
	"$@" -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 -q
}

apt_private() {
	a=$CACHE/apt/$1
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	printf '%s\n' "$2" >"$a/sources.list"
	apt_run "$1" apt-get update >/dev/null
}
