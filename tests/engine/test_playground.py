"""run_calls ("try with my code") and the JSON entry points of the web worker."""
import json

import pytest

from lessonkit import browser
from lessonkit.playground import run_calls

from conftest import TOY_REFERENCE, TP_MLP

A = [[1, 0, -1, 2], [0, 1, 1, -1]]
B = [[1, 0], [0, 1], [1, 1], [2, 0]]
X = [1, 2]
EXAMPLE = [{"fn": "shard_mlp", "args": [A, B, 2], "as": "shards"},
           {"fn": "tp_mlp", "args": [X, {"ref": "shards"}]},
           {"fn": "gelu", "args": [[1, 2, 1, 0]]}]


def test_worked_example_through_the_learners_code(tp_mlp):
    out = run_calls(tp_mlp, tp_mlp.reference.read_text(), EXAMPLE)
    assert out["ok"] is True and out["stdout"] == "" and out["stdout_truncated"] is False
    shards, y, h = out["results"]
    assert shards == [[[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]],
                      [[[-1.0, 2.0], [1.0, -1.0]], [[1.0, 1.0], [2.0, 0.0]]]]
    assert [round(v, 3) for v in y] == [1.682, 2.796]
    assert [round(v, 3) for v in h] == [0.841, 1.955, 0.841, 0.0]
    json.dumps(out, allow_nan=False)


def test_learner_error_is_a_message(tp_mlp):
    out = run_calls(tp_mlp, tp_mlp.starter, EXAMPLE)
    assert out["ok"] is False
    assert "shard_mlp raised NotImplementedError at line 20 of solution.py" in out["message"]


def test_syntax_error_is_a_message(tp_mlp):
    out = run_calls(tp_mlp, "def gelu(x)\n", EXAMPLE)
    assert out["ok"] is False and "line 1" in out["message"]


def test_time_limit(toy):
    source = TOY_REFERENCE.replace("def halve(x):\n", "def halve(x):\n    while True:\n        pass\n")
    out = run_calls(toy, source, [{"fn": "double", "args": [1]}, {"fn": "halve", "args": [1]}])
    assert out["ok"] is False and "halve was still running after 0.5 s" in out["message"]


def test_values_become_json(toy):
    source = TOY_REFERENCE.replace("return 2 * np.asarray(x, dtype=float)",
                                   "print('doubling'); return np.asarray(x, dtype=float) / 0")
    out = run_calls(toy, source, [{"fn": "double", "args": [[1, -1, 0]]}])
    assert out["ok"] is True and out["results"] == [["inf", "-inf", "nan"]]
    assert out["stdout"].startswith("doubling\nsolution.py:5: RuntimeWarning: divide by zero")


def test_ints_become_an_int_array(toy):
    source = TOY_REFERENCE.replace("return 2 * np.asarray(x, dtype=float)",
                                   "return [str(np.asarray(x).dtype), list(np.asarray(x)[::-1])]")
    out = run_calls(toy, source, [{"fn": "double", "args": [{"ints": [1, 6]}]}])
    assert out["ok"] is True and out["results"] == [["int64", [6, 1]]]
    with pytest.raises(ValueError):
        run_calls(toy, TOY_REFERENCE, [{"fn": "double", "args": [{"ints": [1.5]}]}])


def test_page_mistakes_raise(toy):
    with pytest.raises(ValueError):
        run_calls(toy, TOY_REFERENCE, [{"fn": "os.system", "args": []}])
    with pytest.raises(ValueError):
        run_calls(toy, TOY_REFERENCE, [{"fn": "double", "args": [{"ref": "nothing"}]}])


def test_browser_entry_points():
    lesson_dir = str(TP_MLP)
    info = json.loads(browser.prepare(lesson_dir))
    assert info["id"] == "tp-mlp" and [f["name"] for f in info["functions"]] == [
        "gelu", "shard_mlp", "tp_mlp"]
    events = []
    report = json.loads(browser.grade_json(lesson_dir, (TP_MLP / "reference.py").read_text(),
                                           "[]", events.append))
    assert report["passed"] is True
    assert all(isinstance(e, str) for e in events)
    assert json.loads(events[0])["event"] == "check_start"
    report = json.loads(browser.grade_json(lesson_dir, "def gelu(x)\n", '["load"]'))
    assert report["checks"][0]["status"] == "timeout"
    out = json.loads(browser.run_calls_json(lesson_dir, (TP_MLP / "reference.py").read_text(),
                                            json.dumps(EXAMPLE)))
    assert out["ok"] is True
