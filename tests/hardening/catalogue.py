"""The shared catalogue of bad and adversarial solutions (tests/hardening/cases/*.py), read by
the CPython tests here and by the browser tests (tests/browser/test_hardening.py), so both
assert the same verdicts from the same files.

A case file starts with comment lines:

    # case: what the solution does, in one line
    # attacks: what it attacks (optional: marks a hostile case, one written to get a verdict
    #          it has not earned; see test_cases.py and tests/browser/test_hardening.py)
    # where: child          (optional: only where a memory limit exists, i.e. the CLI's child
    #                        process and the browser; never in the test process itself)
    # expect PATTERN: STATUS[|STATUS...] [~ TEXT]
    # expect[split] PATTERN: ...   (only where learner code runs apart from the grader: the
    #                              command line and the cross-origin-isolated page)
    # expect[one] PATTERN: ...     (only where both share one interpreter: in-process, and
    #                              the page without isolation)
    # stdout ~ TEXT         (optional: the learner's output contains TEXT; `stdout[MODE]`
    #                        for one mode only)

`expect` lines for the mode graded in (MODES) are tried in order and the first whose PATTERN
matches a check id decides that check's allowed statuses and a text its message must contain (`*` matches anything).
Every check in the report must match some line.
"""
from __future__ import annotations

import functools
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


# Where a case is graded: "split" (the learner's code in its own process or worker) or "one"
# (the grader's interpreter).
MODES = ("split", "one")


@dataclass
class Expect:
    pattern: str
    statuses: set
    text: str | None
    mode: str | None = None   # None: every mode

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
    stdout_mode: str | None = None   # None: every mode
    child_only: bool = False
    attacks: str | None = None

    @property
    def hostile(self) -> bool:
        return self.attacks is not None

    def expected_pass(self, mode: str) -> bool:
        """Whether every check must pass, graded in `mode`."""
        return all(e.statuses == {"passed"} for e in self.expects if e.mode in (None, mode))

    def expect_for(self, check_id: str, mode: str) -> Expect | None:
        return next((e for e in self.expects if e.mode in (None, mode) and e.matches(check_id)),
                    None)

    def problems(self, checks: list[dict], stdout: str, mode: str) -> list[str]:
        """What in a report (its checks as dicts, its stdout), graded in `mode`, disagrees with
        the header."""
        out = []
        if not checks or checks[0]["id"] != "load":
            out.append(f"the first check is not `load`: {[c['id'] for c in checks][:3]}")
        for c in checks:
            e = self.expect_for(c["id"], mode)
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
        if self.stdout and self.stdout_mode in (None, mode) and self.stdout not in stdout:
            out.append(f"stdout lacks {self.stdout!r}: {stdout[:300]!r}")
        return out

    def hostile_problems(self, checks: list[dict], stdout: str, passed: bool) -> list[str]:
        """problems() in the split, and what no hostile case may get there: a verdict of
        "passed" for the lesson, or a report that lacks some of the lesson's checks (a forged
        or cut-short one)."""
        out = self.problems(checks, stdout, "split")
        if passed:
            out.append("the lesson passed")
        ids = [c["id"] for c in checks]
        if ids != lesson_check_ids():
            out.append(f"the report's checks are not the lesson's: {ids[:4]}... ({len(ids)})")
        return out


_HEADER = re.compile(r"#\s*(case|attacks|where|expect|stdout)\b(?:\[(split|one)\])?:?\s*(.*)$")
_EXPECT = re.compile(r"^(\S+):\s*([a-z|]+)\s*(?:~\s*(.+))?$")


def load_case(path: Path) -> Case:
    source = path.read_text(encoding="utf-8")
    case = Case(path.stem, path, source, "")
    for number, line in enumerate(source.splitlines(), 1):
        m = _HEADER.match(line)
        if not m:
            break
        key, mode, rest = m.groups()
        if mode and key not in ("expect", "stdout"):
            raise ValueError(f"{path}:{number}: only `expect` and `stdout` take a [mode]")
        if key == "case":
            case.summary = rest
        elif key == "attacks":
            case.attacks = rest.strip()
        elif key == "where":
            if rest.strip() != "child":
                raise ValueError(f"{path}:{number}: `where` must be `child`")
            case.child_only = True
        elif key == "stdout":
            case.stdout, case.stdout_mode = rest.lstrip("~").strip(), mode
        else:
            e = _EXPECT.match(rest.strip())
            statuses = set(e.group(2).split("|")) if e else set()
            if not e or not statuses <= STATUSES:
                raise ValueError(f"{path}:{number}: expected `# expect[MODE] PATTERN: STATUS "
                                 f"[~ TEXT]`, got {line!r}")
            case.expects.append(Expect(e.group(1), statuses, e.group(3), mode))
    if not case.summary or not case.expects:
        raise ValueError(f"{path}:1: a case needs `# case:` and at least one `# expect` line")
    return case


def all_cases() -> list[Case]:
    return [load_case(p) for p in sorted(CASES_DIR.glob("*.py"))]


# The plain wrong solution graded right after each hostile case, in the same page: its report
# must be exactly what its header says, whatever ran before (no cross-run poisoning).
ALL_ZEROS = "all_zeros"


@functools.cache
def lesson_check_ids() -> list[str]:
    """The ids of tp-mlp's checks, in order: every report of a file that loads has them all."""
    from lessonkit import grade, load_lesson
    report = grade(load_lesson(TP_MLP), (CASES_DIR / f"{ALL_ZEROS}.py").read_text())
    return [c.id for c in report.checks]


# --- helpers shared by the CPython tests ----------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]
TP_MLP = ROOT / "lessons" / "tp-mlp"


# The catalogue is graded against tp-mlp with these time limits instead of its own (5 s a check,
# 60 s a run): a case that runs into a limit then costs a fraction of the real one, in CPython and
# in the page alike, which read the limits from lesson.toml as any lesson's. Far above what a
# check of tp-mlp takes (milliseconds), so only code that loops or stalls reaches them. The
# slowest legitimate check is cases/output_flood.py's load: with 100,000 prints it still ran past
# these 2 s in a browser on a machine loaded fifteen-fold (and 300,000 past 1.5 s in a full `./dev
# test`), so it prints 20,000, a hundred times the output a lesson keeps.
CHECK_SECONDS = 2.0
TOTAL_SECONDS = 10.0


def copy_lesson(source: Path, target: Path, whole: bool = False, check_seconds: float = CHECK_SECONDS,
                total_seconds: float = TOTAL_SECONDS) -> Path:
    """The hardening copy of a lesson, its limits CHECK_SECONDS and TOTAL_SECONDS (or those
    given): the shipped subset (lesson.toml, starter.py, checks/), or with `whole` the whole
    folder (for a site)."""
    if whole:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        target.mkdir(parents=True)
        for name in ("lesson.toml", "starter.py"):
            shutil.copy2(source / name, target / name)
        shutil.copytree(source / "checks", target / "checks",
                        ignore=shutil.ignore_patterns("__pycache__"))
    toml = target / "lesson.toml"
    text = toml.read_text(encoding="utf-8")
    for key, value in (("check_seconds", check_seconds), ("total_seconds", total_seconds)):
        text, n = re.subn(rf"(?m)^{key}\s*=\s*[0-9.]+", f"{key} = {value}", text)
        assert n == 1, f"{source / 'lesson.toml'}: no `{key} = ...` line to shorten"
    toml.write_text(text, encoding="utf-8")
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
