#!/bin/sh
# The import suite: tests/import/suite.py (its parts: suite.py --list).
exec /usr/bin/python3 -B "$(dirname "$0")/suite.py" "$@"
