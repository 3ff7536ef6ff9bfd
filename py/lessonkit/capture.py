"""Learner output: stdout and stderr captured into one capped buffer."""
from __future__ import annotations

import io
import sys
import warnings
from contextlib import contextmanager


class CappedOutput(io.TextIOBase):
    """A text stream that keeps the first `max_lines` lines / `max_bytes` UTF-8 bytes.

    Everything after the cap is dropped (cheaply, so a print loop cannot exhaust memory) and
    `truncated` records that it happened.
    """

    def __init__(self, max_lines: int, max_bytes: int):
        super().__init__()
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._parts: list[str] = []
        self._lines = 0
        self._bytes = 0
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, s) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        if self.truncated or not s:
            return len(s)
        keep = s
        room_lines = self.max_lines - self._lines
        if keep.count("\n") >= room_lines:
            # Keep up to and including the newline that completes the last allowed line.
            cut = -1
            for _ in range(room_lines):
                cut = keep.index("\n", cut + 1)
            keep = keep[: cut + 1]
        encoded = keep.encode("utf-8", "replace")
        if self._bytes + len(encoded) > self.max_bytes:
            keep = encoded[: self.max_bytes - self._bytes].decode("utf-8", "ignore")
            encoded = keep.encode("utf-8")
        if keep != s:
            self.truncated = True
        self._parts.append(keep)
        self._lines += keep.count("\n")
        self._bytes += len(encoded)
        return len(s)

    def kept(self) -> str:
        """What was kept, without the note (`truncated` says whether something was cut)."""
        return "".join(self._parts)

    def text(self) -> str:
        """What was kept, with a note at the end when something was cut."""
        kept = self.kept()
        if self.truncated:
            if kept and not kept.endswith("\n"):
                kept += "\n"
            kept += (f"[output cut: only the first {self.max_lines} lines "
                     f"or {self.max_bytes} bytes are kept]\n")
        return kept


@contextmanager
def redirected(out: CappedOutput):
    """Send stdout, stderr and warnings to `out`; stdin reads as empty, so input() ends at
    once."""
    with streams(out), warnings_shown():
        yield out


@contextmanager
def streams(out: CappedOutput):
    """stdout and stderr go to `out` while the block runs; stdin reads as empty."""
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = sys.stderr = out
    sys.stdin = io.StringIO("")
    try:
        yield out
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved


@contextmanager
def warnings_shown():
    """Warnings (numpy overflow and friends) written to stderr, whatever it is when they are
    raised, once per line of code, whoever had installed a warnings display before (an outer
    pytest, for instance). Kept for a whole grading run, so the once-per-line registry is the
    run's, not one request's."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        yield


def _show_warning(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))
