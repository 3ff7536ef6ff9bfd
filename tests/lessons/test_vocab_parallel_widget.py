"""The vocab-parallel lesson's widget in the real browser: the worked example's three all-reduces
stepped through, the local-max switch showing the wrong loss, bad input reported next to the
field, both languages, and "Try with my code" running the learner's vp_cross_entropy (with
integer targets) on the widget's numbers."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from lessonkit import load_lesson

# The widget and its "try with my code" do not depend on cross-origin isolation (the hosting and
# hardening suites test both modes): the isolated site, in the session's Python tab.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "vocab-parallel"


def test_vocab_loss_widget(python_tab, set_code, shot):
    page, w = python_tab.show("vocab-parallel", "vocab-loss")
    expect(w.get_by_test_id("step")).to_have_text("Step 1 of 4")
    expect(w.get_by_test_id("m-0")).to_have_text("4")
    expect(w.get_by_test_id("m-1")).to_have_text("5")
    expect(w.get_by_test_id("loss-split")).to_have_count(0)   # the loss comes at the last step
    for _ in range(3):
        w.locator('[data-step-button="next"]').click()
    expect(w.get_by_test_id("step")).to_have_text("Step 4 of 4")
    expect(w.get_by_test_id("s-0")).to_have_text("1.775")
    expect(w.get_by_test_id("z-target-1")).to_have_text("2")
    expect(w.get_by_test_id("loss-split")).to_have_text("(1.574, 3.155)")
    expect(w.get_by_test_id("loss-full")).to_have_text("(1.574, 3.155)")
    expect(w.get_by_test_id("equal")).to_have_attribute("data-ok", "true")

    w.get_by_test_id("local-max-only").check()
    expect(w.get_by_test_id("loss-split")).to_have_text("(2.014, 4.08)")
    expect(w.get_by_test_id("equal")).to_have_attribute("data-ok", "false")
    w.get_by_test_id("local-max-only").uncheck()

    cell = w.locator('input[aria-label="z[1][1]"]')
    cell.fill("5..")
    expect(w.get_by_test_id("errors")).to_contain_text("z[1][1]: “5..” is not a number.")
    expect(cell).to_have_attribute("aria-invalid", "true")
    expect(w.get_by_test_id("blocked")).to_be_visible()
    cell.fill("5")
    target = w.locator('input[data-target="1"]')
    target.fill("8")
    expect(w.get_by_test_id("errors")).to_contain_text("The target of token 1, “8”, is not an id")
    target.fill("6")
    w.locator('select[data-size="n"]').select_option("4")
    expect(w.locator("tr.gpu-3")).to_have_count(3)          # one row per GPU in each all-reduce
    expect(w.get_by_test_id("loss-split")).to_have_text("(1.574, 3.155)")

    page.locator('[data-lang-choice="pl"]').first.click()
    expect(w.get_by_test_id("step")).to_have_text("Krok 4 z 4")
    page.set_viewport_size({"width": 390, "height": 900})
    assert w.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "the widget scrolls sideways at 390 px"
    shot(page, "widget-pl-390")
    page.set_viewport_size({"width": 1400, "height": 950})
    page.locator('[data-lang-choice="en"]').first.click()
    w.locator('select[data-size="n"]').select_option("2")

    lesson = load_lesson(LESSON)
    for source, verdict in ((lesson.reference.read_text(), "match"),
                            (lesson.wrong_solution("local_max_not_rescaled").source, "mismatch")):
        set_code(page, source)
        w.get_by_role("button", name="Try with my code").click()
        expect(w.get_by_test_id("learner-verdict")).to_have_attribute("data-verdict", verdict, timeout=60_000)
    expect(w.get_by_test_id("learner-loss")).to_have_text("≈ (2.014, 4.08)")
    expect(w.get_by_test_id("learner-hint")).to_contain_text("local-max mistake")
    assert page.errors == []
