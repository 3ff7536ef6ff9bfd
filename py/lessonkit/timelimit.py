"""Per-check time limits, one mechanism in CPython and in Pyodide.

A check that runs too long receives SIGALRM and our handler raises `CheckTimeout` inside
whatever Python code is running. CPython sends the signal itself (`signal.setitimer`); in
Pyodide the worker's host writes 14 (SIGALRM) into the interrupt buffer, because a timer
cannot fire while Python holds the worker's thread.
"""
from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager

# After the first alarm, keep raising every REPEAT_S seconds: learner code that swallows one
# CheckTimeout in a bare `except:` inside its loop still gets stopped by a later one.
REPEAT_S = 0.25


class CheckTimeout(BaseException):
    """Raised in running code when its time is up. A BaseException, so `except Exception`
    in learner code does not swallow it."""


# Whether a limit is armed and whether it fired, in one mutable object: the alarm handler
# changes it while learner code runs.
_state = {"armed": False, "fired": False}
_SIGALRM = getattr(signal, "SIGALRM", None)
# Pyodide has no working interval timer: the host sends the signal instead.
_OWN_TIMER = hasattr(signal, "setitimer") and sys.platform != "emscripten"


def _on_alarm(signum, frame):
    # A late alarm (the host's timer racing the end of a check) must not break the grader.
    if _state["armed"]:
        _state["fired"] = True
        raise CheckTimeout()


def _on_interrupt(signum, frame):
    raise KeyboardInterrupt


@contextmanager
def alarm_handler():
    """Install the SIGALRM handler for the duration of a grading run.

    Signal handlers can only be set from the main thread; elsewhere (and where SIGALRM does
    not exist) code runs without a time limit.
    """
    if _SIGALRM is None or threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = signal.signal(_SIGALRM, _on_alarm)
    previous_int = signal.signal(signal.SIGINT, _on_interrupt)
    try:
        yield True
    finally:
        signal.signal(_SIGALRM, previous)
        signal.signal(signal.SIGINT, previous_int)


class Limit:
    """What happened inside a `time_limit` block."""
    fired = False


@contextmanager
def time_limit(seconds: float):
    """Raise CheckTimeout in the code inside the block once `seconds` have passed.

    Yields a `Limit` whose `fired` is true afterwards if the time ran out, even when the code
    caught the CheckTimeout and carried on.
    """
    limit = Limit()
    _state["armed"], _state["fired"] = True, False
    if _OWN_TIMER and seconds > 0 and threading.current_thread() is threading.main_thread():
        signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_S)
        timer = True
    else:
        timer = False
    try:
        yield limit
    finally:
        _state["armed"] = False
        limit.fired = _state["fired"]
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
