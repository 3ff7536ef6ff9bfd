"""The lesson's check files stay as the author wrote them: their bytes and sha256 are taken
when a grading run starts and compared before its report is written. A run whose learner
code changed them (the command line's child on a system without Landlock, or learner code in
the grader's interpreter) gets them put back and a report that says so and does not pass, so
one hostile solution cannot make every later run pass."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path


def snapshot(root: Path) -> dict[str, tuple[str, bytes] | None]:
    """Every file under `root`: its path -> (sha256 and mode, bytes), or None if it cannot be
    read. The mode too: a confined learner process may still chmod files its user owns
    (Landlock does not cover metadata)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
                    mode = os.stat(f.fileno()).st_mode
            except OSError:
                out[path] = None
                continue
            out[path] = f"{hashlib.sha256(data).hexdigest()} {mode:o}", data, mode
    return out


def put_back(root: Path, before: dict) -> list[str]:
    """Compare `root` with `before` (a `snapshot`); put back what changed. Returns the names,
    relative to `root`, of the files that had changed, added or removed ones included."""
    now = snapshot(root)
    changed = sorted(p for p in set(before) | set(now)
                     if (before.get(p) or (None,))[0] != (now.get(p) or (None,))[0])
    for path in changed:
        try:
            if path not in before:
                os.remove(path)
            elif before[path] is not None:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(before[path][1])
                os.chmod(path, before[path][2] & 0o7777)
        except OSError:
            pass  # still reported: the run does not count
    return [os.path.relpath(p, root) for p in changed]
