"""Test-session settings shared by every test module."""

import os

# A developer's running `opgen daemon` must not take the runs of the tests (tests patch the in-process
# generator, and test the daemon with their own socket folder: tests/test_daemon.py).
os.environ["OPGEN_DAEMON"] = "0"
