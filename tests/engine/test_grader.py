"""The grader: report fields, every status, learner-facing messages, isolation."""
import json
import signal
import sys

import pytest

from lessonkit import SCHEMA, CheckResult, Report, grade, load_lesson
from lessonkit.channel import InProcess

from conftest import TOY_CHECKS, TOY_REFERENCE, TOY_TOML, dedent, make_lesson

TOY_IDS = ["load", "test_toy::test_double", "test_toy::test_double_unchanged",
           "test_toy::test_halve[four]", "test_toy::test_halve[minus one]"]


def statuses(report):
    return {c.id: c.status for c in report.checks}


def test_every_report_field(toy):
    report = grade(toy, TOY_REFERENCE)
    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert set(data) == {"schema", "lesson", "passed", "checks", "stdout", "stdout_truncated",
                         "duration_ms"}
    assert data["schema"] == SCHEMA == "lessonkit.report/1"
    assert data["lesson"] == "toy" and data["passed"] is True
    assert data["stdout"] == "" and data["stdout_truncated"] is False
    assert isinstance(data["duration_ms"], float) and data["duration_ms"] > 0
    assert [c["id"] for c in data["checks"]] == TOY_IDS
    for c in data["checks"]:
        assert set(c) == {"id", "title", "status", "message", "hints"}
        assert c["status"] == "passed" and c["message"] == ""
    titles = {c["id"]: c["title"] for c in data["checks"]}
    assert titles["load"] == "Your solution.py runs and defines double(x), halve(x)"
    assert titles["test_toy::test_double"] == "double doubles"
    assert titles["test_toy::test_halve[minus one]"] == "halve halves (minus one)"


def test_report_types():
    r = Report("x", [CheckResult("load", "t", "passed")])
    assert r.passed and r.check("load").title == "t"
    assert not Report("x", []).passed
    with pytest.raises(ValueError):
        CheckResult("a", "b", "maybe")


def test_failed_explains_expected_and_got(toy):
    source = TOY_REFERENCE.replace("return 2 * np.asarray(x, dtype=float)",
                                   "return np.asarray(x, dtype=float) + 1")
    report = grade(toy, source)
    assert statuses(report)["test_toy::test_double"] == "failed"
    assert not report.passed
    message = report.check("test_toy::test_double").message
    assert "double(x) returned wrong values" in message
    assert "x = [ 1. , -2. ,  3.5]" in message
    assert "expected: [ 2., -4.,  7.]" in message and "got:      [ 2. , -1. ,  4.5]" in message
    assert "largest difference at index [1]: expected -4, got -1 (off by 3" in message
    assert "Hint: you added one" in message
    assert statuses(report)["test_toy::test_halve[four]"] == "passed"


def test_error_shows_the_learners_line_only(toy):
    source = TOY_REFERENCE.replace("return np.asarray(x, dtype=float) / 2",
                                   "return helper(x)\n\n\ndef helper(x):\n    return x / 0 + undefined")
    report = grade(toy, source)
    check = report.check("test_toy::test_halve[four]")
    assert check.status == "error"
    assert "halve raised ZeroDivisionError at line 13 of solution.py" in check.message
    assert 'File "solution.py", line 9, in halve' in check.message
    assert "return x / 0 + undefined" in check.message
    for internal in ("lessonkit", "_pytest", "pluggy", "checking.py", "runner.py"):
        assert internal not in check.message
    assert statuses(report)["test_toy::test_double"] == "passed"


def test_timeout_stops_one_check_and_the_rest_still_run(toy):
    source = TOY_REFERENCE.replace("def halve(x):\n", "def halve(x):\n    while True:\n        pass\n")
    report = grade(toy, source)
    assert statuses(report) == {
        "load": "passed", "test_toy::test_double": "passed",
        "test_toy::test_double_unchanged": "passed",
        "test_toy::test_halve[four]": "timeout", "test_toy::test_halve[minus one]": "timeout"}
    message = report.check("test_toy::test_halve[four]").message
    assert message.startswith("halve was still running after 0.5 s")


def test_timeout_survives_a_bare_except(toy):
    source = TOY_REFERENCE.replace(
        "def halve(x):\n",
        "def halve(x):\n    for _ in range(3):\n        try:\n            while True:\n"
        "                pass\n        except:\n            pass\n")
    report = grade(toy, source)
    assert statuses(report)["test_toy::test_halve[four]"] == "timeout"


def test_known_timeouts_are_not_run(toy):
    events = []
    report = grade(toy, TOY_REFERENCE, on_event=events.append,
                   timed_out=["test_toy::test_halve[four]"])
    assert statuses(report)["test_toy::test_halve[four]"] == "timeout"
    assert statuses(report)["test_toy::test_halve[minus one]"] == "passed"
    assert {"event": "check_end", "id": "test_toy::test_halve[four]",
            "status": "timeout"} in events


GELU_LOOPS = "def gelu(x):\n    while True:\n        pass\n"


def gelu_looping(tp_mlp) -> str:
    reference = (tp_mlp.path / "reference.py").read_text()
    assert "def gelu(x):\n" in reference
    return reference.replace("def gelu(x):\n", GELU_LOOPS, 1)


def test_a_function_that_timed_out_is_skipped_where_other_learner_code_calls_it(tp_mlp):
    """`while True: pass` in gelu costs one time limit in the whole run: tp_mlp calls gelu,
    and its checks say so instead of running into their own limits (their messages show it: no
    wall-clock assertion, so that a busy machine gives the same verdict)."""
    events = []
    report = grade(tp_mlp, gelu_looping(tp_mlp), on_event=events.append)
    by_id = {c.id: c for c in report.checks}
    first = by_id["test_gelu::test_python_floats"]
    assert first.status == "timeout" and first.message.startswith("gelu was still running after 5 s")
    tp = [c for c in report.checks if c.id.startswith("test_tp_mlp::")]
    assert tp and all(c.status == "timeout" and c.message.startswith(
        "Skipped: your tp_mlp calls gelu, which ran out of time above, in \u201cgelu works on "
        "plain Python floats") for c in tp), tp
    assert all(c.status == "passed" for c in report.checks if c.id.startswith("test_shard_mlp::"))
    # The host learns which function each check was running (what a restart needs).
    assert {"event": "call", "id": "test_gelu::test_python_floats", "fn": "gelu"} in events


def test_a_host_that_restarted_python_passes_the_function_that_ran_out_of_time(tp_mlp):
    """After a restart, `timed_out` maps the check to the function it was running: the fresh
    run reports that check as the first one did, and skips the function from then on (nothing
    runs into a limit: every other check that calls gelu says it was skipped)."""
    report = grade(tp_mlp, gelu_looping(tp_mlp),
                   timed_out={"test_gelu::test_python_floats": "gelu"})
    first = report.check("test_gelu::test_python_floats")
    assert first.status == "timeout" and first.message.startswith("gelu was still running after 5 s")
    assert report.check("test_gelu::test_input_unchanged").message.startswith(
        "Skipped: gelu ran out of time above")
    assert report.check("test_tp_mlp::test_worked_example").message.startswith(
        "Skipped: your tp_mlp calls gelu")


def test_load_timeout_marks_everything(toy):
    report = grade(toy, "while True:\n    pass\n" + TOY_REFERENCE)
    assert statuses(report)["load"] == "timeout"
    assert all(s == "error" for cid, s in statuses(report).items() if cid != "load")


def test_progress_events(toy):
    events = []
    grade(toy, TOY_REFERENCE, on_event=events.append)
    calls = [e for e in events if e["event"] == "call"]
    assert {"event": "call", "id": "test_toy::test_double", "fn": "double"} in calls
    events = [e for e in events if e["event"] != "call"]
    assert len(events) == 2 * len(TOY_IDS)
    for cid, (start, end) in zip(TOY_IDS, zip(events[::2], events[1::2])):
        assert start == {"event": "check_start", "id": cid, "title": start["title"],
                         "time_limit_s": 0.5}
        assert end == {"event": "check_end", "id": cid, "status": "passed"}


def test_syntax_error(toy):
    report = grade(toy, "import numpy as np\n\ndef double(x)\n    return 2 * x\n")
    load = report.check("load")
    assert load.status == "error"
    assert "line 3" in load.message and "def double(x)" in load.message
    assert "SyntaxError" in load.message and "^" in load.message
    assert "lessonkit" not in load.message and "Traceback" not in load.message
    for c in report.checks[1:]:
        assert c.status == "error" and "\u201cYour solution.py runs and defines" in c.message


def test_exception_at_import(toy):
    report = grade(toy, "import numpy as np\nvalue = 1 / 0\n" + TOY_REFERENCE)
    load = report.check("load")
    assert load.status == "error"
    assert "your file raised ZeroDivisionError at line 2 of solution.py" in load.message
    assert "value = 1 / 0" in load.message and "lessonkit" not in load.message


def test_missing_function(toy):
    report = grade(toy, "def double(x):\n    return 2 * x\n")
    assert report.check("load").status == "error"
    assert "does not define halve(x)" in report.check("load").message


def test_wrong_arity(toy):
    report = grade(toy, TOY_REFERENCE.replace("def halve(x):", "def halve(x, y):"))
    assert "halve must accept 1 argument(s)" in report.check("load").message


def test_starter_explains_not_implemented(toy):
    report = grade(toy, toy.starter)
    assert report.check("load").status == "passed"
    message = report.check("test_toy::test_double").message
    assert report.check("test_toy::test_double").status == "error"
    assert "NotImplementedError" in message and "replace that line" in message


def test_stdout_captured_and_capped(toy):
    source = TOY_REFERENCE + "\nprint('hello from the top')\nfor i in range(1000):\n    print(i)\n"
    report = grade(toy, source)
    assert report.passed
    assert report.stdout_truncated
    lines = report.stdout.splitlines()
    assert lines[:5] == ["hello from the top", "0", "1", "2", "3"]
    assert lines[5].startswith("[output cut")
    assert report.to_dict()["stdout_truncated"] is True


def test_stdout_byte_cap(toy):
    report = grade(toy, TOY_REFERENCE + "\nprint('x' * 5000)\n")
    assert report.stdout_truncated and report.stdout.startswith("x" * 300 + "\n[output cut")


def test_print_inside_checks_reaches_stdout(toy):
    source = TOY_REFERENCE.replace("def halve(x):\n", "def halve(x):\n    print('halving', x)\n")
    report = grade(toy, source)
    assert report.stdout == "halving 4.0\nhalving -1.0\n" and not report.stdout_truncated


def test_mutating_inputs_is_caught_and_contained(toy):
    source = TOY_REFERENCE.replace("return 2 * np.asarray(x, dtype=float)",
                                   "x = np.asarray(x, dtype=float)\n    x *= 2\n    return x")
    report = grade(toy, source)
    assert statuses(report)["test_toy::test_double"] == "passed"
    check = report.check("test_toy::test_double_unchanged")
    assert check.status == "failed" and "changed its argument `x` in place" in check.message


def test_learner_cannot_patch_numpy_for_the_checks(toy):
    source = TOY_REFERENCE + "\nnp.asarray = lambda x, dtype=None: 0\nnp.abs = lambda x: 0 * x\n"
    source = source.replace("return 2 * np.asarray(x, dtype=float)", "return x + 1")
    report = grade(toy, source)
    assert statuses(report)["test_toy::test_double"] == "failed"
    import numpy
    assert numpy.asarray([1]).tolist() == [1]


def test_exit_in_learner_code(toy):
    report = grade(toy, TOY_REFERENCE.replace("def halve(x):\n", "def halve(x):\n    exit()\n"))
    check = report.check("test_toy::test_halve[four]")
    assert check.status == "error" and "exit()" in check.message


def test_deep_recursion_is_an_error_not_a_crash(toy):
    source = TOY_REFERENCE.replace("def halve(x):\n", "def halve(x):\n    return halve(x)\n")
    check = grade(toy, source).check("test_toy::test_halve[four]")
    assert check.status == "error" and "RecursionError" in check.message


def test_broken_check_is_reported_as_the_lessons_fault(tmp_path):
    folder = make_lesson(tmp_path, checks={"test_toy.py": TOY_CHECKS + dedent('''
        def test_broken(solution):
            """a check with a bug"""
            return {}["missing"]
        ''')})
    report = grade(load_lesson(folder), TOY_REFERENCE)
    check = report.check("test_toy::test_broken")
    assert check.status == "error"
    assert "This check broke (a bug in the lesson, not in your code)" in check.message
    assert statuses(report)["test_toy::test_double"] == "passed"


def test_learner_code_raising_in_a_checks_own_frames_is_the_learners_error(tmp_path):
    """In one interpreter, learner code can still run outside a call: here a signal handler
    it installed fires while the check itself works. What it raises there is reported as the learner's error, not the lesson's."""
    # A generous limit: the check's 0.3 s of CPU time can take seconds of wall time on a busy
    # machine, and the toy's 0.5 s limit would then end it as a timeout.
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace("check_seconds = 0.5", "check_seconds = 60"),
                         checks={"test_toy.py": TOY_CHECKS + dedent('''
        import time


        def test_busy(solution):
            """a check that works after its call"""
            call(solution, "double", 7.0)
            start = time.process_time()
            while time.process_time() - start < 0.3:
                pass
        ''')})
    source = TOY_REFERENCE.replace("def double(x):\n", dedent('''
        def double(x):
            if np.ndim(x) == 0:  # test_busy's call: the timer rings in the check
                signal.setitimer(signal.ITIMER_VIRTUAL, 0.05)
        ''')) + dedent('''
        import signal


        def ring(*args):
            raise ValueError("rung")


        signal.signal(signal.SIGVTALRM, ring)
        ''')
    before = signal.getsignal(signal.SIGVTALRM)
    try:
        report = grade(load_lesson(folder), source, learner=InProcess())
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, before)
    check = report.check("test_toy::test_busy")
    assert check.status == "error", check
    assert "your code raised ValueError at line" in check.message and "rung" in check.message
    assert "bug in the lesson" not in check.message
    assert statuses(report)["test_toy::test_double"] == "passed"


def test_check_file_that_cannot_import(tmp_path):
    folder = make_lesson(tmp_path, checks={"test_toy.py": TOY_CHECKS,
                                           "test_bad.py": "import no_such_module\n"})
    report = grade(load_lesson(folder), TOY_REFERENCE)
    assert statuses(report)["test_bad"] == "error"
    assert "bug in the lesson" in report.check("test_bad").message
    assert statuses(report)["test_toy::test_double"] == "passed"


def test_repeatable_and_leaves_no_modules_behind(toy):
    before = set(sys.modules)
    first = grade(toy, TOY_REFERENCE).to_dict()
    second = grade(toy, TOY_REFERENCE).to_dict()
    for r in (first, second):
        r.pop("duration_ms")
    assert first == second
    leaked = {n for n in set(sys.modules) - before if n.startswith(("test_toy", "solution"))}
    assert not leaked


def test_learner_state_is_fresh_each_run(toy):
    source = TOY_REFERENCE + "\ncalls = []\n_old = double\n\ndef double(x):\n" \
             "    calls.append(1)\n    assert len(calls) < 3, 'state leaked'\n    return _old(x)\n"
    for _ in range(3):
        assert grade(toy, source).passed


def test_learner_warnings_reach_their_output(toy):
    source = TOY_REFERENCE.replace("def halve(x):\n",
                                   "def halve(x):\n    np.exp(np.array([1000.0]))\n")
    report = grade(toy, source)
    assert report.passed
    assert "solution.py:9: RuntimeWarning: overflow encountered in exp" in report.stdout


def test_stop_button(toy):
    """SIGINT (the Stop button of the page that grades in one interpreter, where learner code
    and grader share the process that gets it) ends the run with a report: the running check
    and the rest are errors that say so."""
    source = TOY_REFERENCE.replace(
        "def halve(x):\n", "def halve(x):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGINT)\n")
    report = grade(toy, source, learner=InProcess())
    assert statuses(report) == {
        "load": "passed", "test_toy::test_double": "passed",
        "test_toy::test_double_unchanged": "passed",
        "test_toy::test_halve[four]": "error", "test_toy::test_halve[minus one]": "error"}
    assert report.check("test_toy::test_halve[four]").message.startswith("Stopped")
    assert report.check("test_toy::test_halve[minus one]").message == "Not run: you pressed Stop."


def test_a_lesson_without_tests_says_so(tmp_path):
    folder = make_lesson(tmp_path, checks={"test_toy.py": "X = 1\n"})
    report = grade(load_lesson(folder), TOY_REFERENCE)
    assert statuses(report) == {"load": "passed", "checks": "error"}
    assert "bug in the lesson" in report.check("checks").message


@pytest.mark.parametrize("returned, words", [
    ("x * (2 + 0j)", "returned complex numbers"),
    ("str(2 * x)", "returned text"),
    ("(y for y in 2 * x)", "an object of type generator"),
    ("[2 * v for v in x] + [None]", "cannot turn into one array of numbers"),
])
def test_wrong_kinds_of_result_fail_with_words(toy, returned, words):
    source = TOY_REFERENCE.replace("return 2 * np.asarray(x, dtype=float)",
                                   f"x = np.asarray(x, dtype=float)\n    return {returned}")
    check = grade(toy, source).check("test_toy::test_double")
    assert check.status == "failed" and words in check.message


def test_result_objects_cannot_change_after_the_call(toy):
    """An object that looks like the answer only once the comparison starts is converted to
    plain data right after the call, so it cannot."""
    source = TOY_REFERENCE.replace("def double(x):\n    return 2 * np.asarray(x, dtype=float)", '''
class Shifty:
    seen = 0

    def __init__(self, x):
        self.x = x

    def __array__(self, dtype=None, copy=None):
        Shifty.seen += 1
        return np.zeros(3) if Shifty.seen == 1 else 2 * self.x


def double(x):
    return Shifty(np.asarray(x, dtype=float))
''')
    assert grade(toy, source).check("test_toy::test_double").status == "failed"
