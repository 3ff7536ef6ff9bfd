"""The grader/learner split: learner code in a child process (lessonkit.learner_process) or
behind any channel gives the same verdicts as in-process grading, its objects never reach the
grader, and nothing the learner's side writes can make a check pass."""
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from lessonkit import grade, load_lesson
from lessonkit.channel import Callback, InProcess
from lessonkit.learner_process import LearnerProcess, grade_split

from conftest import TOY_REFERENCE, make_lesson

ROOT = Path(__file__).resolve().parents[2]

TOY_IDS = ["load", "test_toy::test_double", "test_toy::test_double_unchanged",
           "test_toy::test_halve[four]", "test_toy::test_halve[minus one]"]


def verdicts(report):
    return {c.id: (c.status, c.message) for c in report.checks}


def statuses(report):
    return {c.id: c.status for c in report.checks}


def test_tp_mlp_reference_and_wrong_gallery_grade_the_same_in_both_channels():
    """One child process serves the reference and every known-wrong solution in turn (a `load`
    starts each run), and every verdict and message equals the in-process one (both drawing the
    same fresh arguments: one seed)."""
    lesson = load_lesson(ROOT / "lessons" / "tp-mlp")
    sources = {"reference": lesson.reference.read_text(encoding="utf-8"),
               **{w.name: w.source for w in lesson.wrong}}
    assert len(sources) > 3
    with LearnerProcess(lesson) as channel:
        for name, source in sources.items():
            split = grade(lesson, source, learner=channel, seed=7)
            here = grade(lesson, source, learner=InProcess(), seed=7)
            assert verdicts(split) == verdicts(here), name
            assert split.stdout == here.stdout, name
    assert grade(lesson, lesson.reference.read_text()).passed


HOSTILE_RESULT = '''
import sys
import numpy as np


class Liar(np.ndarray):
    """Zeros that claim to equal anything, and change once compared."""
    def __eq__(self, other):
        return True

    def __array_ufunc__(self, *args, **kwargs):
        return np.zeros(3)


class Shape:
    def __array__(self, dtype=None, copy=None):
        print("__array__ ran in", "pytest" in sys.modules and "the grader" or "the learner")
        return np.array([7.0, 7.0, 7.0])


def double(x):
    return np.zeros(3).view(Liar)


def halve(x):
    return Shape()
'''


def test_hostile_result_objects_become_plain_data_on_the_learner_side(toy):
    """The grader receives float64 arrays: the subclass's __eq__ and __array_ufunc__ and the
    array-like's __array__ ran (or not) in the child, never in the grader."""
    with LearnerProcess(toy) as channel:
        report = grade(toy, HOSTILE_RESULT, learner=channel)
    assert statuses(report)["test_toy::test_double"] == "failed"
    assert "returned wrong values" in report.check("test_toy::test_double").message
    assert statuses(report)["test_toy::test_halve[four]"] == "failed"
    assert "expected shape ()" in report.check("test_toy::test_halve[four]").message
    assert "__array__ ran in the learner" in report.stdout
    assert "the grader" not in report.stdout
    assert "solution" not in sys.modules


def test_a_hostile_class_never_exists_in_the_grader(toy):
    from lessonkit.capture import CappedOutput
    from lessonkit.channel import Learner
    with LearnerProcess(toy) as channel:
        solution = Learner(toy, HOSTILE_RESULT, "en", channel, CappedOutput(50, 4000))
        channel.warm()
        assert solution.load(5.0) is None
        got, after, params, dtypes = solution.call("double", (np.arange(3.0),))
    assert type(got) is np.ndarray and got.dtype == np.float64 and not got.any()
    assert type(after[0]) is np.ndarray and params == ("x",) and dtypes == {"float64"}


LOOPS_FOR_MINUS_TWO = TOY_REFERENCE.replace(
    "def double(x):\n", "def double(x):\n    print('double of', float(np.asarray(x).sum()))\n"
                        "    while float(np.asarray(x).sum()) < 0:\n        pass\n")


def test_a_timeout_is_the_running_checks_and_the_others_keep_their_verdicts(tmp_path):
    """double loops only for the check with negative input: that check times out (the child
    is killed and replaced), the checks before and after it keep their own verdicts, and what
    it printed before it was killed is in the output."""
    checks = '''\
import numpy as np
import pytest

from lessonkit.checking import call, expect_close


@pytest.mark.parametrize("x", [1.0, -2.0, 3.0], ids=["one", "minus two", "three"])
def test_double(solution, x):
    """double doubles"""
    expect_close(call(solution, "double", np.array([x])), 2 * np.array([x]), rtol=1e-9, atol=0)


def test_halve(solution):
    """halve halves"""
    expect_close(call(solution, "halve", 4.0), 2.0, rtol=1e-9, atol=0)
'''
    lesson = load_lesson(make_lesson(tmp_path, checks={"test_toy.py": checks}, wrong={}))
    report = grade_split(lesson, LOOPS_FOR_MINUS_TWO)
    assert statuses(report) == {
        "load": "passed", "test_toy::test_double[one]": "passed",
        "test_toy::test_double[minus two]": "timeout", "test_toy::test_double[three]": "timeout",
        "test_toy::test_halve": "passed"}
    assert "still running after" in report.check("test_toy::test_double[minus two]").message
    # What it printed before the child was killed is kept.
    assert "double of -2.0" in report.stdout
    assert "Skipped: double ran out of time above, in \u201cdouble doubles (minus two)\u201d" \
        in report.check("test_toy::test_double[three]").message


WRITES_TO_THE_CHANNEL = TOY_REFERENCE.replace("def double(x):\n", '''def double(x):
    import os, sys
    fd_out = int(sys.argv[sys.argv.index("--serve") + 2])
    os.write(fd_out, PAYLOAD)
''') + "\n\nPAYLOAD = {payload!r}\n"


@pytest.mark.parametrize("payload", [
    b"garbage that is not JSON\n",
    # A well-formed answer that claims success, for a request that is not the current one.
    b'{"seq": 1, "kind": "returned", "got": [2.0, -4.0, 7.0], "after": [[1.0, -2.0, 3.5]], '
    b'"params": ["x"], "dtypes": [], "stdout": "", "stdout_truncated": false}\n',
    b'{"seq": 3, "kind": "loaded"}\n',
    b"[1, 2, 3]\n",
], ids=["garbage", "an old seq", "the wrong kind", "not an object"])
def test_what_learner_code_writes_to_the_channel_is_an_error_never_a_pass(toy, payload):
    source = WRITES_TO_THE_CHANNEL.format(payload=payload)
    report = grade_split(toy, source)
    for cid in ("test_toy::test_double", "test_toy::test_double_unchanged"):
        status, message = verdicts(report)[cid]
        assert status == "error" and "could not read" in message, (cid, message)
    # A fresh child serves the checks after them.
    assert statuses(report)["test_toy::test_halve[four]"] == "passed"
    assert statuses(report)["test_toy::test_halve[minus one]"] == "passed"


def test_a_channel_answering_nonsense_gives_errors(toy):
    """Any channel (here the page's kind: JSON text through a callback) is held to the same
    rules: an answer that is not JSON, has another seq, or does not decode is an error."""
    answers = iter([])

    def learner_call(request_json: str, time_limit_s: float) -> str:
        request = json.loads(request_json)
        if request["op"] == "load":
            return json.dumps({"seq": request["seq"], "kind": "loaded", "problem": None,
                               "stdout": "",
                               "stdout_truncated": False})
        return next(answers)(request["seq"])

    forged_array = {"array": {"dtype": "<f8", "shape": [3], "data": "AAAA"}}
    answers = iter([
        lambda seq: "not json",
        lambda seq: json.dumps({"seq": seq + 1, "kind": "returned"}),
        lambda seq: json.dumps({"seq": seq, "kind": "returned", "got": forged_array,
                                "after": [forged_array], "params": ["x"], "dtypes": [],
                                "stdout": "", "stdout_truncated": False}),
        lambda seq: json.dumps({"seq": seq, "kind": "passed"}),
    ])
    report = grade(toy, TOY_REFERENCE, learner=Callback(learner_call))
    assert statuses(report)["load"] == "passed"
    for cid in TOY_IDS[1:]:
        status, message = verdicts(report)[cid]
        assert status == "error" and "could not read" in message, (cid, message)


def test_host_made_answers(toy):
    """`timeout`, `crashed` and `stopped` from the host: a timeout and a crash are that
    check's, the next check loads the file again (with a stand-in for the function that ran
    out of time), Stop ends the run."""
    loads = []
    plan = iter(["timeout", "returned", "crashed", "stopped"])

    def learner_call(request_json: str, time_limit_s: float) -> str:
        request = json.loads(request_json)
        if request["op"] == "load":
            loads.append(request["stand_ins"])
            return json.dumps({"seq": request["seq"], "kind": "loaded", "problem": None,
                               "stdout": "",
                               "stdout_truncated": False})
        kind = next(plan)
        if kind != "returned":
            return json.dumps({"seq": request["seq"], "kind": kind, "how": "worker"})
        return json.dumps({"seq": request["seq"], "kind": "returned",
                           "got": {"array": {"dtype": "<f8", "shape": [2], "data":
                                             "AAAAAAAA8D8AAAAAAAAAQA=="}},
                           "after": [{"array": {"dtype": "<f8", "shape": [2], "data":
                                                "AAAAAAAA8D8AAAAAAAAAQA=="}}],
                           "params": ["x"], "dtypes": ["float64"], "stdout": "",
                           "stdout_truncated": False})

    report = grade(toy, TOY_REFERENCE, learner=Callback(learner_call))
    assert statuses(report) == {
        "load": "passed", "test_toy::test_double": "timeout",
        "test_toy::test_double_unchanged": "passed", "test_toy::test_halve[four]": "error",
        "test_toy::test_halve[minus one]": "error"}
    assert "double was still running" in report.check("test_toy::test_double").message
    assert "Python itself stopped" in report.check("test_toy::test_halve[four]").message
    assert report.check("test_toy::test_halve[minus one]").message.startswith("Stopped")
    # The file was loaded again after the timeout (double a stand-in) and after the crash.
    assert loads == [{}, {"double": "double doubles"}, {"double": "double doubles"}]


def test_the_learner_workers_entry_points(toy_dir):
    """What the browser's learner worker calls: prepare, then one JSON request per call of
    handle_json (a load, a call, the playground's run_calls), JSON answers with their seq."""
    from lessonkit import learner_host
    assert json.loads(learner_host.prepare(str(toy_dir))) == {"id": "toy"}
    ask = lambda **request: json.loads(learner_host.handle_json(json.dumps(request)))  # noqa: E731
    loaded = ask(op="load", seq=1, lesson_dir=str(toy_dir), lang="en", stand_ins={},
                 source=TOY_REFERENCE + "\nprint('hello')\n")
    assert loaded == {"seq": 1, "kind": "loaded", "problem": None,
                      "stdout": "hello\n", "stdout_truncated": False}
    returned = ask(op="call", seq=2, fn="double", args=[{"tuple": [1.5]}])
    assert returned["seq"] == 2 and returned["kind"] == "returned"
    assert returned["params"] == ["x"] and returned["dtypes"] == ["float64"]
    ran = ask(op="run_calls", seq=3, lesson_dir=str(toy_dir), source=TOY_REFERENCE,
              calls=[{"fn": "double", "args": [[1.0, 2.0]]}])
    assert ran == {"seq": 3, "kind": "ran", "result": {
        "ok": True, "results": [[2.0, 4.0]], "stdout": "", "stdout_truncated": False}}


def test_an_input_left_as_it_came_is_not_sent_back(toy_dir):
    """A call's response carries an input only when the call changed it (a zero's sign
    included): the grader has the rest, and decodes what it sent, as the learner would have
    sent it back."""
    from lessonkit import learner_host
    from lessonkit.capture import CappedOutput
    from lessonkit.channel import InProcess, Learner
    ask = lambda **request: json.loads(learner_host.handle_json(json.dumps(request)))  # noqa: E731
    source = TOY_REFERENCE + "\ndef flip(x):\n    x[0] = -x[0]\n    return 0.0\n"
    learner_host.prepare(str(toy_dir))
    ask(op="load", seq=1, lesson_dir=str(toy_dir), lang="en", stand_ins={}, source=source)
    unchanged = {"unchanged": True}
    kept = ask(op="call", seq=2, fn="double", args=[{"tuple": [1.5]}])
    assert kept["after"] == [unchanged]
    for value in ([2.0, 3.0], [0.0, 3.0]):
        flipped = ask(op="call", seq=3, fn="flip", args=[value])
        assert flipped["after"] == [[-value[0], 3.0]]
        assert math.copysign(1, flipped["after"][0][0]) == -1
    solution = Learner(load_lesson(toy_dir), source, "en", InProcess(), CappedOutput(50, 4000))
    assert solution.load(5.0) is None
    x = np.arange(4.0).reshape(2, 2)[:, ::-1]  # not contiguous: what comes back is
    got, after, _, _ = solution.call("double", (x,))
    assert type(after[0]) is np.ndarray and after[0].flags.c_contiguous
    assert np.array_equal(after[0], x) and after[0] is not x
    got, after, _, _ = solution.call("flip", ([0.0, 1.0],))
    assert after == ([-0.0, 1.0],) and math.copysign(1, after[0][0]) == -1
