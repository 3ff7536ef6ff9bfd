"""What the generic suite cannot know about the tp-cost lesson: the drawn checks really draw new
arguments on every run, a table of the fixed cases' answers does not pass, and the widget's
JavaScript model gives the reference's numbers (its classic mistakes are named:
test_named_mistakes.py)."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import grade, load_lesson

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "lessons" / "tp-cost"


@pytest.fixture(scope="module")
def lesson():
    return load_lesson(LESSON)


@pytest.fixture(scope="module")
def reference():
    namespace = {}
    exec((LESSON / "reference.py").read_text(encoding="utf-8"), namespace)
    return namespace


def test_drawn_checks_draw_new_arguments_every_run(lesson):
    """The same wrong solution graded twice fails a drawn check on different numbers."""
    source = golden.solutions(lesson)["ring_no_two"]
    first, second = (grade(lesson, source).check("test_ring_bytes::test_drawn_sizes") for _ in range(2))
    assert first.status == second.status == "failed"
    size = re.compile(r"size_bytes = (\S+)")
    assert size.findall(first.message) and size.findall(first.message) != size.findall(second.message)


def test_a_table_of_the_fixed_answers_does_not_pass(lesson, reference):
    """A solution that knows every fixed case's answer and nothing else fails each drawn check."""
    ring = {(1000, 4): 1500.0, (1000, 2): 1000.0, (25165824, 8): 44040192.0, (123456.0, 1): 0.0}
    source = (LESSON / "reference.py").read_text(encoding="utf-8").replace(
        "def ring_allreduce_bytes(size_bytes, n):\n    _at_least_one(\"n\", n)\n",
        f"def ring_allreduce_bytes(size_bytes, n):\n    _at_least_one(\"n\", n)\n    return {ring!r}.get((size_bytes, n), 1.0)\n")
    assert "1500.0" in source
    report = grade(lesson, source)
    assert report.check("test_ring_bytes::test_worked_example[1000 bytes on 4 GPUs: 1500]").status == "passed"
    assert report.check("test_ring_bytes::test_one_gpu").status == "passed"
    assert report.check("test_ring_bytes::test_drawn_sizes").status == "failed"


def test_widget_model_gives_the_reference_numbers(reference):
    script = """
import { scaling, D2_CONFIG, ringAllreduceBytes, allreduceSeconds, layerFlops, tpLayerSeconds } from "./lessons/tp-cost/widget-lib/cost-model.js";
import { formatFixed, formatPercent } from "widget-kit/i18n.js";
import { parseNumber } from "widget-kit/matrix.js";
const d2 = scaling(D2_CONFIG);
console.log(JSON.stringify({
  speedups: d2.rows.map((r) => r.speedup), best: d2.best.t,
  small: [ringAllreduceBytes(1000, 4), allreduceSeconds(1e6, 8, 300, 5e-6), layerFlops(1, 2, 4),
          tpLayerSeconds(4, 2048, 4096, 8, 312e12, 300, 8e-6, 4)],
  pl: [formatFixed("pl", 1.64, 2), formatFixed("pl", 12345.678, 1), formatPercent("pl", 0.3725, 2), formatFixed("en", 50257, 0)],
  parsed: [parseNumber("6,25"), parseNumber("1.64"), parseNumber("x")],
}));
"""
    run = subprocess.run(["node", "--import", "./tests/widgets/widget-kit.mjs", "--input-type=module", "-e", script],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    r = reference
    b, s, h, g = 8, 1024, 1536, 39e12
    expected = [r["tp_speedup"](b, s, h, t, g, 300.0 if t <= 16 else 6.25) for t in (1, 2, 4, 8, 16, 32, 64)]
    assert out["speedups"] == pytest.approx(expected, rel=1e-12)
    assert [round(v, 2) for v in out["speedups"][1:4]] == [1.97, 3.81, 7.15]
    assert out["best"] == r["best_tp_degree"](b, s, h, g, 16, 300.0, 6.25, 64) == 16
    assert out["small"] == pytest.approx([1500.0, r["allreduce_seconds"](1e6, 8, 300.0, 5e-6), 832.0,
                                          r["tp_layer_seconds"](4, 2048, 4096, 8, 312e12, 300.0, 8e-6, 4)], rel=1e-12)
    assert out["pl"] == ["1,64", "12\u00a0345,7", "37,25\u00a0%", "50,257"]
    assert out["parsed"][:2] == [6.25, 1.64] and out["parsed"][2] is None  # NaN comes back as null
