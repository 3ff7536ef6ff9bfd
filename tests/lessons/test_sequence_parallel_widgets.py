"""The sequence-parallel page in the real browser: the data-flow widget shows the worked example
stage by stage and the memory calculator the paper's GPT-3 numbers; both follow every edit,
report bad input inline, switch language, fit a phone, and run the learner's own functions. All
but the last run while Python is still loading: the widgets never wait for it. All but the
bad-input one share one tab (`shared_lesson`), in this order: each starts from what the ones
before it left, and the language test, which leaves the page in Polish, comes last."""
from __future__ import annotations

from pathlib import Path

import pytest

from lessonkit import load_lesson

ROOT = Path(__file__).resolve().parents[2]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = ROOT / "lessons" / "sequence-parallel"
WIDGET_PAGE = ("sequence-parallel", "sp-dataflow", "sp-memory")
shared = pytest.mark.xdist_group("sequence-parallel-page")
MINUS = "\u2212"


def cells(locator) -> list[str]:
    return [t.strip() for t in locator.locator("td").all_inner_texts()]


@shared
def test_the_data_flow_shows_the_worked_example(shared_lesson, shot):
    page, flow, _ = shared_lesson
    assert cells(flow.get_by_test_id("rs-1")) == ["6.788", f"{MINUS}0.204", "0", "0"]
    assert cells(flow.get_by_test_id("out-0")) == ["1.789", "4.796", "2.789", "5.796"]
    assert cells(flow.get_by_test_id("out-1")) == ["9.788", "0.796", "2", "2"]
    assert len(cells(flow.get_by_test_id("ag-0"))) == 8  # after the all-gather: all 4 rows
    assert len(cells(flow.get_by_test_id("ln-0"))) == 4  # before it: its own 2 rows
    expect(flow.get_by_test_id("equal")).to_have_attribute("data-ok", "true")
    shot(flow, "dataflow")
    assert page.errors == []


@shared
def test_the_calculator_starts_at_gpt3_and_recomputes(shared_lesson, shot):
    page, _, memory = shared_lesson
    values = [memory.get_by_test_id(f"value-{k}").inner_text() for k in ("one", "tp", "tp-sp", "tp-sel", "tp-sp-sel")]
    assert values == ["2.672", "0.539", "0.334", "0.305", "0.100"]
    expect(memory.get_by_test_id("current")).to_contain_text("0.334 GiB")
    expect(memory.get_by_test_id("comm-tp")).to_contain_text("176,160,768")
    expect(memory.get_by_test_id("comm-sp")).to_contain_text("176,160,768")
    memory.locator('input[data-switch="selective"]').check()
    expect(memory.get_by_test_id("current")).to_contain_text("0.100 GiB")
    memory.locator('input[data-field="t"]').fill("0")
    expect(memory.get_by_test_id("error-t")).to_contain_text("“0” is not a whole number")
    memory.locator('input[data-field="t"]').fill("4")
    expect(memory.get_by_test_id("value-tp")).to_have_text("0.844")  # s·b·h·(10 + 24/4 + 80/4)
    shot(memory, "memory")


@shared
def test_the_data_flow_follows_edits_and_gpu_counts(shared_lesson):
    page, flow, _ = shared_lesson
    flow.get_by_label("X[1][0]", exact=True).fill("5")
    assert cells(flow.get_by_test_id("out-0"))[2:] == ["11.788", "2.796"]
    flow.locator('select[data-size="T"]').select_option("8")
    flow.locator('select[data-size="n"]').select_option("4")
    expect(flow.locator(".spdf-gpu")).to_have_count(4)
    expect(flow.get_by_test_id("equal")).to_have_attribute("data-ok", "true")
    expect(flow.get_by_test_id("comm")).to_contain_text("together 24")


@shared
def test_both_widgets_switch_language_and_fit_a_phone(shared_lesson, shot):
    page, flow, memory = shared_lesson
    page.set_viewport_size({"width": 390, "height": 950})
    page.locator('[data-lang-choice="pl"]').click()
    expect(flow.locator(".tpw-title")).to_contain_text("wiersz po wierszu")
    expect(memory.locator(".tpw-title")).to_have_text("Pamięć aktywacji na warstwę, na jedno GPU")
    for w, cls in ((flow, ".spdf"), (memory, ".spm")):
        overflow = w.evaluate(f"el => el.querySelector('{cls}').scrollWidth - el.clientWidth")
        assert overflow <= 0, f"{cls} is {overflow} px wider than the phone's column"
    shot(page, "phone-pl")
    assert page.errors == []


@pytest.mark.python_loading
def test_the_data_flow_reports_bad_input_inline(open_lesson):
    page, flow, _ = open_lesson(*WIDGET_PAGE)
    field = flow.get_by_label("X[0][1]", exact=True)
    field.fill("1..2")
    expect(flow.get_by_test_id("errors-X")).to_contain_text("X[0][1]")
    expect(flow.get_by_test_id("blocked")).to_be_visible()
    field.fill("2")
    flow.locator('select[data-size="T"]').select_option("3")
    expect(flow.get_by_test_id("size-errors")).to_contain_text("T = 3 is not divisible by n = 2")
    flow.locator('select[data-size="n"]').select_option("1")
    expect(flow.get_by_test_id("equal")).to_have_attribute("data-ok", "true")


def test_try_with_my_code_runs_the_learners_functions(python_tab, set_code):
    page, flow, memory = python_tab.show(*WIDGET_PAGE)
    lesson = load_lesson(LESSON)
    for source, flow_verdict, memory_verdict in [
            (lesson.reference.read_text(encoding="utf-8"), "match", "match"),
            (lesson.wrong_solution("residual_forgotten").source, "values", "match"),
            (lesson.wrong_solution("bytes_gib").source, "match", "mismatch")]:
        set_code(page, source)
        for w, verdict in ((flow, flow_verdict), (memory, memory_verdict)):
            w.get_by_role("button", name="Try with my code").click()
            expect(w.get_by_test_id("learner-verdict")).to_have_attribute("data-verdict", verdict, timeout=60_000)
    expect(memory.locator(".spm-yours").first).to_contain_text("yours: 2.67188 bytes")
    assert page.errors == []
