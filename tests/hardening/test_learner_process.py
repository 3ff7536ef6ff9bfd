"""The command line's learner process has no rights beyond its scratch folder
(lessonkit.confine), the grader puts back check files learner code changed where nothing
confines it, and learner text cannot break the report: output is capped as it arrives (the
grader's memory stays bounded), the terminal report escapes control characters, and the
report is valid UTF-8 whatever the learner printed or PYTHONIOENCODING says."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tracemalloc

import pytest

from catalogue import CASES_DIR, ROOT, TP_MLP, load_case, tree

from lessonkit import load_lesson
from lessonkit.confine import abi
from lessonkit.learner_process import LearnerProcess, grade_split

REFERENCE = (TP_MLP / "reference.py").read_text(encoding="utf-8")

# Each route prints DENIED or what it got; the source is written for the lesson at LESSON.
SNOOP = REFERENCE + '''
import os


def _try(what, action):
    try:
        result = action()
    except OSError:
        print(what, "DENIED")
    else:
        print(what, "GOT", repr(result)[:40])


def _write(path):
    with open(path, "a") as f:
        f.write("# changed\\n")


_try("reference", lambda: open(os.path.join(LESSON, "reference.py")).read())
_try("checks", lambda: open(os.path.join(LESSON, "checks", "test_gelu.py")).read())
_try("engine-side reference", lambda: open(os.path.join(
    __import__("lessonkit").__path__[0], "..", "..", "lessons", "tp-mlp", "reference.py")).read())
_try("parent cmdline", lambda: open(f"/proc/{os.getppid()}/cmdline").read())
_try("parent environ", lambda: open(f"/proc/{os.getppid()}/environ").read())
_try("write checks", lambda: _write(os.path.join(LESSON, "checks", "test_gelu.py")))
_try("write outside", lambda: _write(os.path.join(os.path.dirname(LESSON), "planted.py")))
_try("write scratch", lambda: _write("mine.txt"))
_try("signal the grader", lambda: os.kill(os.getppid(), 0))
try:  # as root: only with a capability it no longer has
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)
    print("raise memory limit GOT it")
except (OSError, ValueError):
    print("raise memory limit DENIED")
'''


def snoop(lesson_dir) -> str:
    return f"LESSON = {str(lesson_dir)!r}\n" + SNOOP


@pytest.fixture
def lesson_with_reference(lesson_dir):
    """The hardening copy of tp-mlp with its model solution, as an author's folder has it."""
    (lesson_dir / "reference.py").write_text(REFERENCE, encoding="utf-8")
    return lesson_dir


@pytest.mark.skipif(abi() < 1, reason="no Landlock here: test_fallback_* covers this system")
def test_learner_process_reaches_only_its_scratch_folder(lesson_with_reference):
    before = tree(lesson_with_reference)
    lesson = load_lesson(lesson_with_reference)
    with LearnerProcess(lesson) as learner:
        report = grade_split(lesson, snoop(lesson_with_reference), channel=learner)
        assert learner.confined.startswith("landlock"), learner.confined
    lines = dict(line.rsplit(" ", 1) if line.endswith("DENIED") else line.split(" GOT ", 1)
                 for line in report.stdout.splitlines() if "DENIED" in line or " GOT " in line)
    assert lines == {"reference": "DENIED", "checks": "DENIED", "engine-side reference": "DENIED",
                     "parent cmdline": "DENIED", "parent environ": "DENIED",
                     "write checks": "DENIED", "write outside": "DENIED",
                     "write scratch": "None", "signal the grader": "DENIED",
                     "raise memory limit": "DENIED"}, report.stdout
    assert report.passed
    assert tree(lesson_with_reference) == before


def test_fallback_rewritten_checks_are_put_back_and_reported(lesson_with_reference):
    """Without confinement (a system without Landlock) the learner process has the user's
    rights: it can rewrite the checks. The grader finds out before writing the report, puts
    them back, and the run does not pass; the next run grades as before."""
    before = tree(lesson_with_reference)
    shard_checks = lesson_with_reference / "checks" / "test_shard_mlp.py"
    mode = shard_checks.stat().st_mode
    chmod = f"\nos.chmod({str(shard_checks)!r}, 0o200)\n"  # metadata: Landlock allows it too
    lesson = load_lesson(lesson_with_reference)
    with LearnerProcess(lesson, confine=False) as learner:
        report = grade_split(lesson, snoop(lesson_with_reference) + chmod, channel=learner)
        assert learner.confined == "none: not asked to"
        assert "parent cmdline GOT" in report.stdout  # nothing confined it
        assert not report.passed
        changed = report.check("checks")
        assert changed.status == "error"
        assert "(test_gelu.py, test_shard_mlp.py)" in changed.message, changed.message
        assert "put back" in changed.message
        assert tree(lesson_with_reference) == before and shard_checks.stat().st_mode == mode
        assert (lesson_with_reference.parent / "planted.py").is_file()  # the user's rights
        assert grade_split(lesson, REFERENCE, channel=learner).passed
        zeros = load_case(CASES_DIR / "all_zeros.py")
        again = grade_split(lesson, zeros.source, channel=learner).to_dict()
    assert zeros.problems(again["checks"], again["stdout"], "split") == []


def test_output_flood_on_the_channel_costs_the_grader_nothing(lesson_dir):
    """Learner code that writes 96 MB of forged output messages straight to the channel: the
    grader keeps only what the cap allows, as it arrives (its Python allocations peak far
    below the flood), and the correct solution still passes."""
    flood = '''
import os, sys
_fd = int(sys.argv[sys.argv.index("--serve") + 2])
_line = ('{"seq": 1, "kind": "output", "text": "' + "x" * (1 << 20) + '"}\\n').encode()
for _ in range(96):
    os.write(_fd, _line)
'''
    toml = lesson_dir / "lesson.toml"  # time enough for the flood on a busy machine
    toml.write_text(re.sub(r"(?m)^(check|total)_seconds = .*$", r"\1_seconds = 600",
                           toml.read_text(encoding="utf-8")), encoding="utf-8")
    lesson = load_lesson(lesson_dir)
    with LearnerProcess(lesson) as learner:
        learner.warm()
        tracemalloc.start()
        try:
            report = grade_split(lesson, REFERENCE + flood, channel=learner)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert report.passed and report.stdout_truncated, report.checks[0]
    assert len(report.stdout.encode()) <= lesson.limits.output_bytes + 200
    assert peak < 24 * 2**20, f"the grader's allocations peaked at {peak / 2**20:.0f} MB"


# Its first gelu call answers with a forged line holding complex(10**400, 0) on the channel the
# grader reads (the descriptor from sys.argv, the request's number from the garbage collector),
# its first shard_mlp call with one nested 100,000 lists deep, each then ending the process.
FORGED = r'''
import gc
import os
import sys

import numpy as np


def _forge(flag, got, args):
    # Once per grading run (the flag file lives in the scratch folder, which outlives a
    # process): answer the running request with `got`, raw JSON, well-formed otherwise
    # (`args` inputs as left), and end.
    if os.path.exists(flag):
        return
    open(flag, "w").close()
    seq = max(o["seq"] for o in gc.get_objects()
              if type(o) is dict and o.get("op") == "call" and type(o.get("seq")) is int)
    fd_out = int(sys.argv[sys.argv.index("--serve") + 2])
    line = ('{"seq": %d, "kind": "returned", "got": %s, "after": %s, "params": %s, '
            '"dtypes": [], "stdout": "", "stdout_truncated": false}\n'
            % (seq, got, [0] * args, ["a%d" % i for i in range(args)])).replace("'", '"')
    os.write(fd_out, line.encode())
    os._exit(0)


def gelu(x):
    _forge("forged-overflow", '{"complex": [%d, 0]}' % 10**400, 1)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _forge("forged-nesting", "[" * 100_000 + "]" * 100_000, 3)
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
'''


def test_answers_the_grader_cannot_decode_are_the_learners(lesson_dir):
    """Decoding a forged answer overflows (OverflowError) or recurses (RecursionError) in the
    grader: that check is the learner's unreadable answer, never a bug in the lesson."""
    lesson = load_lesson(lesson_dir)
    report = grade_split(lesson, FORGED)
    first_gelu, first_shard = (next(c for c in report.checks if c.id.startswith(f"{file}::"))
                               for file in ("test_gelu", "test_shard_mlp"))
    for check in (first_gelu, first_shard):
        assert check.status == "error" and "could not read" in check.message, check
    assert not [c for c in report.checks if "bug in the lesson" in c.message]
    assert not report.passed


def _cli(case: str, lesson_dir, tmp_path, *flags, encoding="utf-8"):
    solution = tmp_path / "solution.py"
    solution.write_text((CASES_DIR / f"{case}.py").read_text(encoding="utf-8"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py"), "PYTHONIOENCODING": encoding}
    return subprocess.run([sys.executable, "-m", "lessonkit", "grade", str(lesson_dir),
                           str(solution), *flags], env=env, capture_output=True, timeout=300)


def test_terminal_report_escapes_learner_control_characters(lesson_dir, tmp_path):
    """cases/hostile_ansi_report.py's escapes show as text: nothing in the report moves the
    cursor, clears the screen, hides text or reverses it."""
    result = _cli("hostile_ansi_report", lesson_dir, tmp_path)
    out = result.stdout.decode("utf-8")
    assert result.returncode == 1, result.stderr.decode()
    assert not [ch for ch in out if ch < " " and ch not in "\n\t"], out[:400]
    assert "\u202e" not in out
    assert "\\x1b[2J\\x1b[H\\x1b[32m   PASS  everything" in out
    assert "hidden\\rshown" in out and "\\u202edetcerroc" in out
    assert "\\x1b[2J\\x1b[32mall checks passed" in out  # in tp_mlp's error messages


@pytest.mark.parametrize("flags", [(), ("--json",)], ids=["text", "json"])
def test_lone_surrogate_in_output_gives_a_whole_utf8_report(lesson_dir, tmp_path, flags):
    """A correct solution printing "\\ud800", graded with PYTHONIOENCODING=utf-8 (strict): a
    report, valid UTF-8, and a pass."""
    result = _cli("surrogate_output", lesson_dir, tmp_path, *flags)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    out = result.stdout.decode("utf-8")  # strict: invalid UTF-8 raises
    if flags:
        report = json.loads(out)
        assert report["passed"] and "lone \ufffd surrogate and a NUL \x00 here" in report["stdout"]
    else:
        assert "lone \\ud800 surrogate and a NUL \\x00 here" in out

