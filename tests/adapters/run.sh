#!/bin/sh
# The adapters suite: tests/adapters/suite.py (its parts: suite.py --list).
exec /usr/bin/python3 -B "$(dirname "$0")/suite.py" "$@"
