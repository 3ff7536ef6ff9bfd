"""The shared catalogue of bad and adversarial solutions (tests/hardening/cases/*.py), read by
the CPython tests here and by the browser tests (tests/browser/test_hardening.py), so both
assert the same verdicts from the same files.

A case file starts with comment lines:

    # case: what the solution does, in one line
    # where: child          (optional: only where a memory limit exists, i.e. the CLI's child
    #                        process and the browser; never in the test process itself)
    # expect PATTERN: STATUS[|STATUS...] [~ TEXT]
    # stdout ~ TEXT         (optional: the learner's output contains TEXT)

`expect` lines are tried in order and the first whose PATTERN matches a check id decides
that check's allowed statuses and a text its message must contain (`*` matches anything).
Every check in the report must match some line.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "cases"
STATUSES = {"passed", "failed", "error", "timeout"}
# Grader internals that must never show in a learner-facing message.
INTERNALS = re.compile(r"lessonkit[/\\]|_pytest|pluggy|site-packages|File \"/")


@dataclass
class Expect:
    pattern: str
    statuses: set
    text: str | None

    def matches(self, check_id: str) -> bool:
        rx = "^" + ".*".join(re.escape(p) for p in self.pattern.split("*")) + "$"
        return re.match(rx, check_id) is not None


@dataclass
class Case:
    name: str
    path: Path
    source: str
    summary: str
    expects: list = field(default_factory=list)
    stdout: str | None = None
    child_only: bool = False

    def expect_for(self, check_id: str) -> Expect | None:
        return next((e for e in self.expects if e.matches(check_id)), None)

    def problems(self, checks: list[dict], stdout: str) -> list[str]:
        """What in a report (its checks as dicts, its stdout) disagrees with the header."""
        out = []
        if not checks or checks[0]["id"] != "load":
            out.append(f"the first check is not `load`: {[c['id'] for c in checks][:3]}")
        for c in checks:
            e = self.expect_for(c["id"])
            if e is None:
                out.append(f"{c['id']}: no `# expect` line matches it")
                continue
            if c["status"] not in e.statuses:
                out.append(f"{c['id']}: {c['status']}, expected {'|'.join(sorted(e.statuses))}"
                           f" ({c['message'][:300]!r})")
            elif e.text and e.text.lower() not in c["message"].lower():
                out.append(f"{c['id']}: message lacks {e.text!r}: {c['message'][:400]!r}")
            if c["status"] != "passed" and not c["message"].strip():
                out.append(f"{c['id']}: {c['status']} without a message")
            if INTERNALS.search(c["message"]):
                out.append(f"{c['id']}: grader internals in the message: {c['message'][:400]!r}")
        if self.stdout and self.stdout not in stdout:
            out.append(f"stdout lacks {self.stdout!r}: {stdout[:300]!r}")
        return out


_HEADER = re.compile(r"#\s*(case|where|expect|stdout)\b:?\s*(.*)$")
_EXPECT = re.compile(r"^(\S+):\s*([a-z|]+)\s*(?:~\s*(.+))?$")


def load_case(path: Path) -> Case:
    source = path.read_text(encoding="utf-8")
    case = Case(path.stem, path, source, "")
    for number, line in enumerate(source.splitlines(), 1):
        m = _HEADER.match(line)
        if not m:
            break
        key, rest = m.groups()
        if key == "case":
            case.summary = rest
        elif key == "where":
            if rest.strip() != "child":
                raise ValueError(f"{path}:{number}: `where` must be `child`")
            case.child_only = True
        elif key == "stdout":
            case.stdout = rest.lstrip("~").strip()
        else:
            e = _EXPECT.match(rest.strip())
            statuses = set(e.group(2).split("|")) if e else set()
            if not e or not statuses <= STATUSES:
                raise ValueError(f"{path}:{number}: expected `# expect PATTERN: STATUS "
                                 f"[~ TEXT]`, got {line!r}")
            case.expects.append(Expect(e.group(1), statuses, e.group(3)))
    if not case.summary or not case.expects:
        raise ValueError(f"{path}:1: a case needs `# case:` and at least one `# expect` line")
    return case


def all_cases() -> list[Case]:
    return [load_case(p) for p in sorted(CASES_DIR.glob("*.py"))]


# --- helpers shared by the CPython tests ----------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]
TP_MLP = ROOT / "lessons" / "tp-mlp"


def copy_lesson(source: Path, target: Path) -> Path:
    """The shipped subset of a lesson: lesson.toml, starter.py, checks/."""
    target.mkdir(parents=True)
    for name in ("lesson.toml", "starter.py"):
        shutil.copy2(source / name, target / name)
    shutil.copytree(source / "checks", target / "checks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return target


def tree(folder: Path) -> dict:
    """Every file under `folder` (bytecode caches aside) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def run_cli(*args, cwd=None, timeout=300):
    """`python -m lessonkit ARGS` in a fresh process, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    return subprocess.run([sys.executable, "-m", "lessonkit", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)
