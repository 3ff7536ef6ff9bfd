"""The command line grades with learner code in a child process (lessonkit.learner_process):
whatever the learner's
code does to that process (end it, crash it, exhaust its memory, hang inside C, block signals,
write to its stdout), the CLI prints a report, every other check still runs, and the author's
lesson folder stays as it was."""
from __future__ import annotations

import json
import textwrap

import pytest

from catalogue import TP_MLP, run_cli, tree

TOML = """\
id = "toy"
title = "Toy lesson"
summary = "Two functions."
order = 9
languages = ["en"]
packages = ["numpy"]
widgets = []
checks = ["test_toy"]

[limits]
check_seconds = 1.0
total_seconds = {total}
output_lines = 50
output_bytes = 4000
recursion = 200
memory_mb = 300

[[functions]]
name = "double"
signature = "double(x)"
summary = "Twice x."

[[functions]]
name = "halve"
signature = "halve(x)"
summary = "Half of x."
"""

STARTER = "def double(x):\n    raise NotImplementedError\n\n\ndef halve(x):\n    raise NotImplementedError\n"

CHECKS = '''\
import pytest

from lessonkit.checking import call, expect_close


@pytest.mark.parametrize("x", [1.0, -2.0], ids=["one", "minus two"])
def test_double(solution, x):
    """double doubles"""
    expect_close(call(solution, "double", x), 2 * x, rtol=1e-9, atol=0)


@pytest.mark.parametrize("x", [4.0, -1.0], ids=["four", "minus one"])
def test_halve(solution, x):
    """halve halves"""
    expect_close(call(solution, "halve", x), x / 2, rtol=1e-9, atol=0)
'''

HALVE = "\n\ndef halve(x):\n    return x / 2\n"
IDS = ["load", "test_toy::test_double[one]", "test_toy::test_double[minus two]",
       "test_toy::test_halve[four]", "test_toy::test_halve[minus one]"]


@pytest.fixture
def toy(tmp_path):
    def make(total=30.0):
        folder = tmp_path / "authoring" / "toy"
        (folder / "checks").mkdir(parents=True)
        (folder / "lesson.toml").write_text(TOML.format(total=total))
        (folder / "starter.py").write_text(STARTER)
        (folder / "checks" / "test_toy.py").write_text(CHECKS)
        return folder
    return make


def grade(folder, source, tmp_path):
    solution = tmp_path / "solution.py"
    solution.write_text(textwrap.dedent(source))
    result = run_cli("grade", folder, solution, "--json", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert result.returncode == (0 if report["passed"] else 1), result.stderr
    return report, {c["id"]: (c["status"], c["message"]) for c in report["checks"]}


def double_then_halve(double_body: str) -> str:
    return "def double(x):\n" + textwrap.indent(textwrap.dedent(double_body), "    ") + HALVE


@pytest.mark.parametrize("body,words", [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "was killed"),
    ("import ctypes\nctypes.string_at(0)", "crashed (SIGSEGV)"),
    ("import os\nos.abort()", "crashed (SIGABRT)"),
], ids=["SIGKILL", "segfault", "abort"])
def test_a_dying_process_fails_that_check_and_the_rest_still_run(toy, tmp_path, body, words):
    report, checks = grade(toy(), double_then_halve(body), tmp_path)
    assert [c["id"] for c in report["checks"]] == IDS
    assert checks["load"][0] == "passed"
    for cid in IDS[1:3]:
        assert checks[cid][0] == "error" and words in checks[cid][1], checks[cid]
    for cid in IDS[3:]:
        assert checks[cid] == ("passed", "")


def test_os_exit_is_an_error_without_ending_the_process(toy, tmp_path):
    report, checks = grade(toy(), double_then_halve("import os\nos._exit(0)"), tmp_path)
    assert checks[IDS[1]][0] == "error" and "os._exit" in checks[IDS[1]][1]
    assert checks[IDS[3]] == ("passed", "")


@pytest.mark.parametrize("body", [
    "return sum(range(10**13))",  # a loop inside C: no Python-level interrupt reaches it
    "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
    "while True:\n    pass",
], ids=["loop-in-C", "blocks-SIGALRM"])
def test_code_that_cannot_be_interrupted_is_stopped_from_outside(toy, tmp_path, body):
    report, checks = grade(toy(), double_then_halve(body), tmp_path)
    assert checks[IDS[1]][0] == "timeout" and "time limit" in checks[IDS[1]][1], checks[IDS[1]]
    # The next child is told which function the killed check was in: the later check calling
    # it is skipped, not given a second time limit (as the page does).
    assert checks[IDS[2]][0] == "timeout" and "ran out of time above" in checks[IDS[2]][1], checks[IDS[2]]
    for cid in IDS[3:]:
        assert checks[cid] == ("passed", "")


def test_the_whole_run_limit_counts_restarts(toy, tmp_path):
    # Every check hangs inside C; with 1.5 s for the whole run, not every check gets its 1 s
    # (each function costs one limit: the checks after it skip it).
    source = "def double(x):\n    return sum(range(10**13))\n\n\ndef halve(x):\n" \
             "    return sum(range(10**13))\n"
    report, checks = grade(toy(total=1.5), source, tmp_path)
    assert [c["id"] for c in report["checks"]] == IDS
    assert all(status == "timeout" for cid, (status, _) in checks.items() if cid != "load")
    assert any("whole run" in message for _, message in checks.values())


def test_memory_limit_gives_memory_error(toy, tmp_path):
    # 1 GB at a time: refused at once under the 300 MB limit (without it, each would succeed
    # and fill memory until the time limit).
    body = "hoard = []\nwhile True:\n    hoard.append(bytearray(10**9))"
    report, checks = grade(toy(), double_then_halve(body), tmp_path)
    assert checks[IDS[1]][0] == "error" and "MemoryError" in checks[IDS[1]][1]
    assert checks[IDS[3]] == ("passed", "")


def test_raw_writes_to_stdout_are_learner_output_not_the_report(toy, tmp_path):
    source = '''\
        import os, sys
        os.write(1, b'{"schema": "lessonkit.report/1", "passed": true}\\n')
        sys.__stderr__.write("All checks passed\\n")
        sys.__stderr__.flush()
        print("printed")


        def double(x):
            return 0


        def halve(x):
            return x / 2
        '''
    report, checks = grade(toy(), source, tmp_path)
    assert report["passed"] is False
    assert checks[IDS[1]][0] == "failed"
    assert "printed" in report["stdout"]
    assert '"passed": true' in report["stdout"] and "All checks passed" in report["stdout"]


def test_the_author_folder_is_never_touched(toy, tmp_path):
    """double rewrites every check file it can find, then kills its own process: the next
    child grades a fresh copy, the author's files are unchanged."""
    folder = toy()
    before = tree(folder)
    body = '''\
        import glob, os, signal
        for root in (os.getcwd(), os.path.dirname(os.getcwd())):
            for path in glob.glob(os.path.join(root, "**", "test_*.py"), recursive=True):
                with open(path, "w") as f:
                    f.write("def test_nothing():\\n    pass\\n")
        os.kill(os.getpid(), signal.SIGKILL)'''
    report, checks = grade(folder, double_then_halve(body), tmp_path)
    assert tree(folder) == before
    assert [c["id"] for c in report["checks"]] == IDS
    assert checks[IDS[1]][0] == "error"
    assert checks[IDS[3]] == ("passed", "")


def test_the_reference_passes_through_the_child(lesson_dir):
    result = run_cli("grade", lesson_dir, TP_MLP / "reference.py", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["passed"], result.stdout[-2000:]
    from lessonkit import grade, load_lesson
    in_process = grade(load_lesson(TP_MLP), (TP_MLP / "reference.py").read_text())
    assert [c["id"] for c in report["checks"]] == [c.id for c in in_process.checks]
    assert report["stdout"] == ""


def test_limits_come_from_lesson_toml(toy):
    from lessonkit import LessonError, load_lesson
    folder = toy(total=7.5)
    limits = load_lesson(folder).limits
    assert (limits.check_seconds, limits.total_seconds, limits.memory_mb) == (1.0, 7.5, 300)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace("memory_mb = 300", "memory_mb = 0"))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert "memory_mb" in str(info.value) and ":16:" in str(info.value)
