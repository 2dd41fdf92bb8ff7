#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""prom.py - read Prometheus' text exposition format on stdin with the
parser of Debian's python3-prometheus-client, as a scrape reads it, and
print what it read, a line each, for tests/host/prometheus.py to check:

    family NAME TYPE N          N: words of its HELP
    sample NAME KEY=VALUE... = VALUE

Labels are sorted by key, their values unescaped. The parser names a
counter family without its _total; its samples keep it. Exits 1 with the
parser's complaint when the text does not parse."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    try:
        # strictly: a scrape refuses text that is not UTF-8
        text = sys.stdin.buffer.read().decode("utf-8")
        families = list(text_string_to_metric_families(text))
    except Exception as err:  # ValueError mostly; the parser raises others too
        why = f"{type(err).__name__}: {err}"[:300]
        print(f"prom.py: the exposition does not parse: {why}", file=sys.stderr)
        return 1
    sys.stdout.reconfigure(encoding="utf-8")
    for f in families:
        print("family", f.name, f.type, len(f.documentation.split()))
        for s in f.samples:
            labels = " ".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            value = int(s.value) if float(s.value).is_integer() else s.value
            print("sample", s.name, labels, "=", value)
    return 0


sys.exit(main())
