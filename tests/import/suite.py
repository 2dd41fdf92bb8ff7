#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The importers ('tap-accel policy import'): for each platform's format,
a corpus of configurations written from the platform's documentation,
each translated and its packets judged as the platform would judge them,
through the reference model and through the program on a real tap
(corpus.py); and bad input refused with a clear error and nothing
printed. First the policy language's own security group
(examples/security-group.policy), so that a failure of the machinery is
told apart from one of an importer. Runs with a bpffs of its own; ends
with "N passed, N failed"."""
import importlib
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "lib", "py"))
sys.path.insert(0, HERE)
from hostsuite import Suite, own_bpffs, prepare_cli  # noqa: E402
import corpus  # noqa: E402

BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
# One module of parts per format: NAME.py with register(t).
FORMATS = ["pve", "openstack", "nwfilter"]

t = Suite("import")


@t.part("language")
def language():
    """The security group of examples/, as written, and rejects both ways
    (answers longer than the frames they answer), against their corpora."""
    corpus.check_policy(t, os.path.join(TOP, "examples", "security-group.policy"),
                        os.path.join(HERE, "language", "security-group.expect"))
    corpus.check_policy(t, os.path.join(HERE, "language", "reject.policy"),
                        os.path.join(HERE, "language", "reject.expect"))


for name in FORMATS:
    importlib.import_module(name).register(t)


def setup():
    own_bpffs(os.path.abspath(__file__))
    corpus.Env.tmp, corpus.Env.cli = prepare_cli(t, TOP, BUILD)


if __name__ == "__main__":
    t.main(setup)
