"""The tp-cost page in the real browser: the scaling widget starts at Megatron-LM's appendix D.2,
hides the paper's row until the learner has predicted it, follows every slider and typed value,
reports bad input inline, marks where the group leaves the server, speaks Polish (with Polish
numbers), fits a phone, and draws the learner's own tp_speedup over the model. All but the last
run while Python is still loading: the widget never waits for it. The first and the Polish ones
share one tab (`shared_lesson`), in this order: the Polish ones leave it in Polish."""
from __future__ import annotations

from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import load_lesson

ROOT = Path(__file__).resolve().parents[2]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = ROOT / "lessons" / "tp-cost"
WIDGET_PAGE = ("tp-cost", "tp-scaling")
shared = pytest.mark.xdist_group("tp-cost-page")


@shared
def test_it_starts_at_d2_and_reveals_the_paper_after_a_prediction(shared_lesson, shot):
    page, widget = shared_lesson
    expect(widget.get_by_test_id("summary")).to_contain_text("Best degree: t = 16 (12.76× faster")
    assert [widget.get_by_test_id(f"speedup-{t}").inner_text() for t in (2, 4, 8)] == ["1.97", "3.81", "7.15"]
    expect(widget.get_by_test_id("leaves")).to_have_count(2)  # one marker on each plot
    expect(widget.locator('[data-testid^="paper-"]')).to_have_count(0)  # hidden until predicted
    widget.locator('input[data-field="guess"]').fill("lots")
    expect(widget.get_by_test_id("error-guess")).to_contain_text("“lots” is not a speedup")
    widget.get_by_test_id("reveal-button").click()
    expect(widget.locator('[data-testid^="paper-"]')).to_have_count(0)
    widget.locator('input[data-field="guess"]').fill("5")
    expect(widget.get_by_test_id("guess-echo")).to_have_text("Your prediction: 5.00× on 8 GPUs, an efficiency of 62.5%.")
    widget.get_by_test_id("reveal-button").click()
    table = widget.get_by_test_id("d2-table")
    assert [c.strip() for c in table.locator("tbody td").all_inner_texts()] == [
        "1.0", "100%", "1.00", "1.64", "82%", "1.97", "2.34", "58.5%", "3.81", "2.98", "37.25%", "7.15"]
    expect(widget.get_by_test_id("reveal-guess")).to_contain_text("You guessed 5.00×; the paper measured 2.98×")
    expect(widget.locator('[data-testid^="paper-"]')).to_have_count(4)
    shot(widget, "scaling")
    assert page.errors == []


@pytest.mark.python_loading
def test_sliders_and_typed_values_recompute_and_bad_input_is_shown_inline(open_lesson):
    page, widget = open_lesson(*WIDGET_PAGE)
    widget.locator('input[data-slider="gpusPerNode"]').fill("8")
    expect(widget.get_by_test_id("summary")).to_contain_text("t = 8 (7.15× faster")
    expect(widget.locator('input[data-field="gpusPerNode"]')).to_have_value("8")
    box = widget.locator('input[data-field="intraGBps"]')
    box.fill("0")
    expect(widget.get_by_test_id("error-intraGBps")).to_contain_text("“0” is not a number above 0.")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(widget.get_by_test_id("summary")).to_contain_text("Fix the value marked above")
    expect(widget.get_by_test_id("speedup-plot")).to_have_count(0)
    box.fill("900")
    expect(widget.get_by_test_id("speedup-plot")).to_be_visible()
    expect(widget.get_by_test_id("speedup-2")).not_to_have_text("1.97")  # a faster link: a higher speedup
    assert page.errors == []


@shared
@pytest.mark.parametrize("width", [1300, 390], ids=["desktop", "phone"])
def test_polish_numbers_and_the_phone_width(shared_lesson, shot, width):
    page, widget = shared_lesson
    page.set_viewport_size({"width": width, "height": 950})
    page.locator('[data-lang-choice="pl"]').click()
    expect(widget.locator(".tpw-title")).to_have_text("Przyspieszenie i wydajność w zależności od stopnia TP")
    expect(widget.get_by_test_id("speedup-2")).to_have_text("1,97")
    expect(widget.get_by_test_id("summary")).to_contain_text("Najlepszy stopień: t = 16 (12,76× szybciej")
    widget.locator('input[data-field="guess"]').fill("3,5")
    widget.get_by_test_id("reveal-button").click()
    expect(widget.get_by_test_id("d2-table")).to_contain_text("37,25\u00a0%")
    expect(widget.get_by_test_id("reveal-guess")).to_contain_text("Twój typ: 3,50×")
    overflow = widget.evaluate("el => el.querySelector('.tps').scrollWidth - el.clientWidth")
    assert overflow <= 0, f"the widget is {overflow} px wider than its column"
    plot_width = widget.get_by_test_id("speedup-plot").evaluate("el => el.getBoundingClientRect().width")
    assert plot_width <= widget.evaluate("el => el.clientWidth")
    shot(widget, f"scaling-pl-{width}")
    assert page.errors == []


def test_try_with_my_code_draws_the_learners_curve(python_tab, set_code):
    page, widget = python_tab.show(*WIDGET_PAGE)
    sources = golden.solutions(load_lesson(LESSON))
    for source, verdict in [(sources["reference"], "match"), (sources["compute_not_split"], "mismatch")]:
        set_code(page, source)
        widget.get_by_role("button", name="Try with my code").click()
        expect(widget.get_by_test_id("learner-verdict")).to_have_attribute("data-verdict", verdict, timeout=60_000)
        expect(widget.get_by_test_id("learner-line")).to_have_count(1)
    expect(widget.get_by_test_id("learner-verdict")).to_contain_text("differs at t = 2, 4, 8, 16, 32, 64")
    assert page.errors == []
