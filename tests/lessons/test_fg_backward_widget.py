"""The fg-backward page in the real browser: the fg-flow widget shows the lesson's numbers, follows
every edit and the all-reduce switch (its JavaScript agrees with the Python reference), reports bad
input inline, switches language, fits a phone, and runs the learner's tp_mlp_backward. All but the
last run while Python is still loading: the widget never waits for it. Those that leave the
widget's numbers as they found them share one tab (`shared_lesson`), in this order."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from lessonkit import load_lesson

ROOT = Path(__file__).resolve().parents[2]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = ROOT / "lessons" / "fg-backward"
WIDGET_PAGE = ("fg-backward", "fg-flow")
shared = pytest.mark.xdist_group("fg-backward-page")
A = np.array([[1.0, 0.0, -1.0, 2.0], [0.0, 1.0, 1.0, -1.0]])
B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])


def reference():
    spec = importlib.util.spec_from_file_location("fg_reference", LESSON / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shown(values) -> str:
    """A vector as the widget prints it: three decimals, trailing zeros dropped, a real minus."""
    def one(v):
        s = f"{v:.3f}".rstrip("0").rstrip(".")
        return "0" if s == "-0" else s.replace("-", "\u2212")
    return "(" + ", ".join(one(v) for v in values) + ")"


@shared
def test_the_widget_shows_the_worked_example_forward_and_backward(shared_lesson, shot):
    page, w = shared_lesson
    expect(w.get_by_test_id("Y")).to_have_text("(1.682, 2.796)")
    expect(w.get_by_test_id("dX-0")).to_have_text("(1.083, 1.086)")
    expect(w.get_by_test_id("dX-1")).to_have_text("(\u22120.166, 1.166)")
    expect(w.get_by_test_id("dX")).to_have_text("(0.917, 2.252)")
    expect(w.get_by_test_id("dB-0")).to_contain_text("0.8410.8411.9551.955")
    expect(w.get_by_test_id("dB-1")).to_contain_text("0.8410.84100")
    expect(w.get_by_test_id("dx-verdict")).to_have_attribute("data-ok", "true")
    expect(w.get_by_test_id("grads-verdict")).to_have_attribute("data-ok", "true")
    shot(w, "widget")
    assert page.errors == []


@pytest.mark.parametrize("mode,dx_ok,grads_ok,shown_dx", [
    ("average", False, True, "(0.459, 1.126)"),
    ("none", False, True, "(1.083, 1.086)"),
    ("weights", True, False, "(0.917, 2.252)"),
    ("sum", True, True, "(0.917, 2.252)"),
])
@shared
def test_the_switch_shows_which_result_goes_wrong(shared_lesson, shot, mode, dx_ok, grads_ok, shown_dx):
    page, w = shared_lesson  # "sum" comes last: the switch is back where it was
    w.locator(f'input[type=radio][value="{mode}"]').check()
    expect(w.get_by_test_id("dX")).to_have_text(shown_dx)
    expect(w.get_by_test_id("dx-verdict")).to_have_attribute("data-ok", str(dx_ok).lower())
    expect(w.get_by_test_id("grads-verdict")).to_have_attribute("data-ok", str(grads_ok).lower())
    for i in (0, 1):
        expect(w.get_by_test_id(f"kept-{i}")).to_have_attribute("data-ok", str(grads_ok).lower())
    if mode == "weights":
        shot(w, "widget-weights")


@pytest.mark.python_loading
def test_every_edit_recomputes_and_agrees_with_the_python_reference(open_lesson):
    page, w = open_lesson(*WIDGET_PAGE)
    ref = reference()
    w.get_by_label("X[0]", exact=True).fill("-1.5")
    w.get_by_label("dY[1]", exact=True).fill("2")
    w.locator('select[data-size="N"]').select_option("4")
    expect(w.locator(".tpw-gpu")).to_have_count(8)  # 4 GPUs, forward and backward
    X, dY = np.array([-1.5, 2.0]), np.array([1.0, 2.0])
    shards = [(A[:, i:i + 1], B[i:i + 1]) for i in range(4)]
    dX, grads = ref.tp_mlp_backward(X, shards, dY)
    expect(w.get_by_test_id("dX")).to_have_text(shown(dX))
    for i, (A_i, B_i) in enumerate(shards):
        expect(w.get_by_test_id(f"dX-{i}")).to_have_text(shown(ref.gelu_grad(X @ A_i) * (B_i @ dY) @ A_i.T))
    expect(w.get_by_test_id("dx-verdict")).to_have_attribute("data-ok", "true")


@shared
def test_bad_input_is_shown_next_to_the_field(shared_lesson):
    page, w = shared_lesson
    field = w.get_by_label("dY[0]", exact=True)
    field.fill("1..2")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(w.locator(".tpw-error")).to_contain_text("dY[0]")
    expect(w.get_by_test_id("blocked")).to_be_visible()
    field.fill("1")
    expect(w.get_by_test_id("dX")).to_have_text("(0.917, 2.252)")


@shared
def test_the_widget_fits_a_phone(shared_lesson, shot):
    page, w = shared_lesson
    page.set_viewport_size({"width": 390, "height": 950})
    try:
        overflow = w.evaluate("el => el.querySelector('.fg-flow').scrollWidth - el.clientWidth")
        assert overflow <= 0, f"the widget is {overflow} px wider than the phone's column"
        shot(page, "phone")
    finally:
        page.set_viewport_size({"width": 1300, "height": 950})


@shared
def test_the_widget_switches_language_with_the_page(shared_lesson, shot):
    """Last on the shared tab: it leaves the page in Polish."""
    page, w = shared_lesson
    page.locator('[data-lang-choice="pl"]').click()
    expect(w.locator(".tpw-title")).to_have_text("W przód i wstecz, GPU po GPU")
    expect(w.get_by_test_id("dx-verdict")).to_contain_text("bez podziału")
    shot(w, "widget-pl")
    assert page.errors == []


def test_try_with_my_code_judges_the_learners_tp_mlp_backward(python_tab, set_code):
    page, w = python_tab.show(*WIDGET_PAGE)
    lesson = load_lesson(LESSON)
    for source, verdict in [(lesson.reference.read_text(encoding="utf-8"), "match"),
                            (lesson.wrong_solution("no_allreduce").source, "dx"),
                            (lesson.wrong_solution("weight_grads_allreduced").source, "grads")]:
        set_code(page, source)
        w.get_by_role("button", name="Try with my code").click()
        expect(w.get_by_test_id("learner-verdict")).to_have_attribute("data-verdict", verdict, timeout=60_000)
    expect(w.get_by_test_id("learner-dX")).to_have_text("(0.917, 2.252)")
    assert re.search(r"GPU 0", w.get_by_test_id("learner-verdict").inner_text())
    assert page.errors == []
