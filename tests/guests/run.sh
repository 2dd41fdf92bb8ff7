#!/bin/sh
# The guests suite: tests/guests/suite.py; its parts are the scenarios
# (tests/guests/run.sh guard: the guests boot, then that scenario alone).
exec /usr/bin/python3 "$(dirname "$0")/suite.py" "$@"
