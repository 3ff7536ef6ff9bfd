"""The tp-transformer page in the real browser: the timeline counts each layer's collectives
(and switches to sequence parallelism), the training widget draws the one-device, TP and TP + SP
curves on one another; both report bad input inline, switch language and fit a phone, and "Try
with my code" runs the learner's train_tp. All but the last run while Python is still loading, on
one tab (`shared_lesson`), in this order: each widget's test edits only its own widget, and the
language test, which leaves the page in Polish, comes last."""
from __future__ import annotations

from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import load_lesson

ROOT = Path(__file__).resolve().parents[2]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = ROOT / "lessons" / "tp-transformer"
WIDGET_PAGE = ("tp-transformer", "tp-timeline", "tp-training")
shared = pytest.mark.xdist_group("tp-transformer-page")


@shared
def test_the_timeline_counts_collectives_beside_pytorch(shared_lesson, shot):
    page, timeline, _ = shared_lesson
    ops = lambda: timeline.get_by_test_id("comm").evaluate_all("els => els.map(e => e.dataset.op)")  # noqa: E731
    assert ops() == ["all_reduce"] * 4
    expect(timeline.get_by_test_id("ours")).to_contain_text("{all_reduce: 4}")
    expect(timeline.get_by_test_id("pytorch")).to_contain_text("{all_reduce: 6, all_gather: 1}")
    expect(timeline.get_by_test_id("pytorch")).to_contain_text("{all_reduce: 9}")
    timeline.get_by_test_id("sp").check()
    assert sorted(ops()) == sorted(["all_gather"] * 6 + ["reduce_scatter"] * 4 + ["all_reduce"])
    expect(timeline.get_by_test_id("pytorch")).to_contain_text("{all_gather: 6, reduce_scatter: 6}")
    expect(timeline.get_by_test_id("pytorch")).to_contain_text("{all_gather: 6, reduce_scatter: 5}")
    timeline.locator('select[data-size="n"]').select_option("4")
    expect(timeline.locator(".tptl-box.gpu-3").first).to_be_visible()
    timeline.get_by_test_id("heads").fill("6")
    expect(timeline.get_by_test_id("error-heads")).to_contain_text("6 heads cannot be split evenly over n = 4")
    expect(timeline.get_by_test_id("blocked")).to_be_visible()
    timeline.get_by_test_id("heads").fill("8")
    expect(timeline.locator(".tptl-box.gpu-1").first).to_be_visible()
    shot(timeline, "timeline")
    assert page.errors == []


@shared
def test_the_training_curves_coincide_and_follow_edits(shared_lesson, shot):
    page, _, training = shared_lesson
    expect(training.get_by_test_id("diff")).to_contain_text("TP ")
    expect(training.locator('[data-series="one"] polyline')).to_have_count(1)  # the line under the markers
    assert len(training.locator('[data-series="one"] polyline').get_attribute("points").split()) == 12
    for series in ("tp", "sp"):
        expect(training.locator(f'[data-series="{series}"] > *')).to_have_count(12)
    first = training.get_by_test_id("losses").inner_text()
    training.get_by_test_id("seed").fill("4")
    expect(training.get_by_test_id("losses")).not_to_have_text(first)
    training.get_by_test_id("steps").fill("0")
    expect(training.get_by_test_id("error-steps")).to_contain_text("steps must be a whole number from 1 to 40")
    expect(training.get_by_test_id("blocked")).to_be_visible()
    training.get_by_test_id("steps").fill("5")
    expect(training.locator('[data-series="tp"] > *')).to_have_count(5)
    shot(training, "training")
    assert page.errors == []


@shared
def test_both_widgets_switch_language_and_fit_a_phone(shared_lesson, shot):
    page, timeline, training = shared_lesson
    page.set_viewport_size({"width": 390, "height": 950})
    page.locator('[data-lang-choice="pl"]').click()
    expect(timeline.locator(".tpw-title")).to_have_text("Jedna warstwa na n GPU, operacja zbiorowa po operacji")
    expect(training.get_by_test_id("losses")).to_contain_text(",")
    for w, cls in ((timeline, ".tptl"), (training, ".tptr")):
        overflow = w.evaluate(f"el => el.querySelector('{cls}').scrollWidth - el.clientWidth")
        assert overflow <= 0, f"{cls} is {overflow} px wider than the phone's column"
    shot(page, "phone-pl")
    assert page.errors == []


def test_try_with_my_code_draws_the_learners_curve(python_tab, set_code):
    page, _, training = python_tab.show(*WIDGET_PAGE)
    training.get_by_test_id("steps").fill("4")
    sources = golden.solutions(load_lesson(LESSON))
    for source, verdict in [(sources["reference"], "match"), (sources["sgd_rank0"], "values")]:
        set_code(page, source)
        training.get_by_role("button", name="Try with my code").click()
        expect(training.get_by_test_id("learner-verdict")).to_have_attribute("data-verdict", verdict, timeout=60_000)
    expect(training.locator('[data-series="mine"]')).to_have_count(1)
    assert page.errors == []
