"""The contract of a known-wrong solution (wrong.toml's `[[mistake]]`, or a wrong/*.py file):
its `fails` names the checks the mistake is aimed at, the ones written to catch and explain it,
and it must fail at least those; its golden report (golden/<name>.json) pins everything else it
gets, every check's status and message, so a change anywhere shows as drift there and in the
diff. Authoring only: nothing here ships to the browser."""
from __future__ import annotations

import difflib
import json

from lessonkit.lesson import match_ids


def problems(wrong, report) -> list[str]:
    """`path:line: message` for each way the known-wrong solution `wrong` breaks its contract,
    given its report: a pattern of `fails` that matches no check of the report, a check it is
    aimed at that it passes (at the line that names it), or, when it passes every check, one
    line saying it may be correct."""
    ids = [c.id for c in report.checks]
    passed = {c.id for c in report.checks if c.status == "passed"}
    text = wrong.path.read_text(encoding="utf-8").splitlines() if wrong.path.is_file() else []
    found, slipped = [], []
    for pattern in wrong.fails:
        where = f"{wrong.path}:{_line(text, pattern, wrong.line)}"
        named = match_ids((pattern,), ids)
        if not named:
            close = difflib.get_close_matches(pattern, ids, n=1, cutoff=0.6)
            found.append(f"{where}: {wrong.name}: `fails` names {pattern!r}, which matches no check"
                         + (f" (closest: {close[0]!r})" if close else ""))
        slipped += [(where, cid) for cid in named if cid in passed]
    if len(passed) == len(ids):
        return found + [f"{wrong.where}: {wrong.name}: this solution passes every check: it may "
                        "be correct; fix the mistake (does its edit still break what it meant "
                        "to?) or remove it"]
    return found + [f"{where}: {wrong.name}: should fail {cid}, a check it is aimed at (`fails`), "
                    "but it passes: the edit no longer breaks what it meant to, or the check "
                    "stopped catching it" for where, cid in dict.fromkeys(slipped)]


def _line(lines: list[str], pattern: str, start: int) -> int:
    """The line (1-based) at or after `start` that writes `pattern` as a TOML string (or holds it,
    as a `# catches:` header does), else `start`."""
    quoted = (json.dumps(pattern, ensure_ascii=False), f"'{pattern}'")
    for n in range(start, len(lines) + 1):
        line = lines[n - 1]
        if any(q in line for q in quoted) or (n == start == 1 and pattern in line):
            return n
        if n > start and line.strip().startswith("[["):
            break
    return start
