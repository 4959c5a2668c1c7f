"""Waiting for a condition, with a deadline: the rig and the benches wait for events, not sleeps."""

import time


class Failure(Exception):
    """A broken run: a deadline passed, a process exited, an answer was wrong. The benches report
    it and exit 1; a test fails with it."""


def wait_for(predicate, what, *, timeout=15, interval=0.02):
    """Polls `predicate` every `interval` seconds until it is true; raises `Failure` naming `what`
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise Failure("timed out after %g s waiting for %s" % (timeout, what))
        time.sleep(interval)
