#!/bin/sh
# The host suite: tests/host/suite.py (its parts: suite.py --list).
exec /usr/bin/python3 "$(dirname "$0")/suite.py" "$@"
