#!/bin/sh
# The agent-fault suite: tests/agent-fault/suite.py (its parts: suite.py --list).
exec /usr/bin/python3 -B "$(dirname "$0")/suite.py" "$@"
