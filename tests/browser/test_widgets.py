"""The two live widgets on the tp-mlp lesson page, in the real browser.

They must show the source's numbers, recompute on every edit without waiting for Python, report
bad input next to the field and switch language with the page. They all run while Python is still
loading (`python_loading`, tests/python_loading.py), which shows that they never wait for it.
Running the worked example through the learner's own code ("Try with my code") needs Python:
tests/lessons/test_tp_mlp_widget.py, in the tab whose Python the lesson suites share.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

# What the widgets show and "try with my code" do not depend on cross-origin isolation (the hosting
# and hardening suites test both modes): one mode, the isolated one.
pytestmark = pytest.mark.browser
ISOLATION_MODES = ["isolated"]  # tests/conftest.py

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"

MINUS = "\u2212"


def gelu(x: float) -> float:
    """The GPT-2 tanh GeLU, written out again here so the widget is checked against the formula."""
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def fmt(v: float) -> str:
    """The widgets' number format: 3 decimals, trailing zeros dropped, a real minus, never −0."""
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s.replace("-", MINUS)


def vec(values, brackets="()") -> str:
    return brackets[0] + ", ".join(fmt(v) for v in values) + brackets[1]


def mlp(X, A, B):
    XA = [sum(X[r] * A[r][c] for r in range(len(X))) for c in range(len(A[0]))]
    H = [gelu(v) for v in XA]
    return [sum(H[k] * B[k][d] for k in range(len(H))) for d in range(len(B[0]))]


@pytest.fixture
def shot(isolation):
    """Saves one element's screenshot as artifacts/screenshots/widget-NAME-MODE.png (git-ignored)."""
    def take(locator, name: str):
        SHOTS.mkdir(parents=True, exist_ok=True)
        locator.screenshot(path=str(SHOTS / f"widget-{name}-{isolation}.png"))
    return take


def widget_errors(page: Page) -> list[str]:
    """Uncaught exceptions, and what the widget host logs when a widget fails to mount."""
    return [e for e in page.errors if e.startswith("pageerror") or "widget" in e]


@pytest.fixture
def example(lesson_page: Page):
    yield lesson_page.locator('[data-widget="tp-mlp-example"]')
    assert widget_errors(lesson_page) == []


@pytest.fixture
def rowsplit(lesson_page: Page):
    yield lesson_page.locator('[data-widget="row-split"]')
    assert widget_errors(lesson_page) == []


def out(widget, testid):
    return widget.get_by_test_id(testid)


# --- the worked example ----------------------------------------------------------------------

@pytest.mark.python_loading
def test_worked_example_defaults_show_the_source_numbers(lesson_page, example, shot):
    expect(out(example, "XA")).to_have_text("(1, 2, 1, 0)")
    expect(out(example, "GeLU-XA")).to_have_text("(0.841, 1.955, 0.841, 0)")
    expect(out(example, "Y-unsplit")).to_have_text("(1.682, 2.796)")
    expect(out(example, "H-0")).to_have_text("(0.841, 1.955)")
    expect(out(example, "Y-0")).to_have_text("(0.841, 1.955)")
    expect(out(example, "H-1")).to_have_text("(0.841, 0)")
    expect(out(example, "Y-1")).to_have_text("(0.841, 0.841)")
    expect(out(example, "Y-allreduce")).to_have_text("(1.682, 2.796)")
    expect(out(example, "equal")).to_have_attribute("data-ok", "true")
    # The accessible names the lesson promises.
    expect(example.get_by_label("Y (all-reduce)")).to_have_text("(1.682, 2.796)")
    expect(example.get_by_label("Y (unsplit)", exact=True)).to_have_text("(1.682, 2.796)")
    expect(example.get_by_label("GPU 1 partial Y_1")).to_have_text("(0.841, 0.841)")
    shot(example, "example-defaults")


@pytest.mark.python_loading
def test_worked_example_labels_each_gpus_shard(example):
    expect(example.locator(".tpw-matrix-A thead th")).to_have_text(["GPU 0", "GPU 0", "GPU 1", "GPU 1"])
    expect(example.locator(".tpw-matrix-B tbody th")).to_have_text(["GPU 0", "GPU 0", "GPU 1", "GPU 1"])
    expect(example.get_by_test_id("gpu-0")).to_contain_text("columns 0–1 of A, rows 0–1 of B")
    expect(example.get_by_test_id("gpu-1")).to_contain_text("columns 2–3 of A, rows 2–3 of B")
    # Colour-coded too: GPU 0's columns of A share a background that GPU 1's do not.
    bg = [example.get_by_label(f"A[0][{c}]").evaluate("e => getComputedStyle(e).backgroundColor") for c in range(4)]
    assert bg[0] == bg[1] != bg[2] == bg[3]


@pytest.mark.python_loading
def test_editing_an_entry_recomputes_at_once(lesson_page, example):
    X, A, B = [1, 2], [[1, 0, -1, 2], [0, 1, 1, -1]], [[1, 0], [0, 1], [1, 1], [2, 0]]
    example.get_by_label("A[0][3]").fill("-0.5")
    A[0][3] = -0.5
    want = vec(mlp(X, A, B))
    expect(out(example, "XA")).to_have_text(vec([1, 2, 1, -2.5]))  # 1·(−0.5) + 2·(−1)
    expect(out(example, "Y-unsplit")).to_have_text(want)
    expect(out(example, "Y-allreduce")).to_have_text(want)
    expect(out(example, "H-1")).to_have_text(vec([gelu(1), gelu(-2.5)]))
    # Typed characters count one by one, with no Enter or blur: the input event is enough.
    example.get_by_label("X[1]").press("End")
    example.get_by_label("X[1]").press_sequentially("5")  # "2" becomes "25"
    X[1] = 25
    expect(out(example, "Y-unsplit")).to_have_text(vec(mlp(X, A, B)))
    expect(out(example, "equal")).to_have_attribute("data-ok", "true")
    # A decimal comma and a typographic minus are read as numbers too.
    example.get_by_label("B[3][0]").fill(f"{MINUS}1,5")
    B[3][0] = -1.5
    expect(out(example, "Y-unsplit")).to_have_text(vec(mlp(X, A, B)))


@pytest.mark.python_loading
def test_invalid_entry_is_reported_next_to_it_and_recovers(lesson_page, example, shot):
    cell = example.get_by_label("A[0][1]")
    cell.fill("abc")
    alert = example.get_by_test_id("errors-A").get_by_role("alert")
    expect(alert).to_have_text("A[0][1]: “abc” is not a number.")
    expect(cell).to_have_attribute("aria-invalid", "true")
    expect(example.get_by_test_id("blocked")).to_be_visible()
    expect(example.get_by_role("button", name="Try with my code")).to_be_disabled()
    example.get_by_label("B[2][1]").fill("")
    expect(example.get_by_test_id("errors-B").get_by_role("alert")).to_have_text("B[2][1] is empty: type a number.")
    shot(example, "example-invalid")
    cell.fill("0")
    example.get_by_label("B[2][1]").fill("1")
    expect(example.get_by_role("alert")).to_have_count(0)
    expect(cell).not_to_have_attribute("aria-invalid", "true")
    expect(out(example, "Y-allreduce")).to_have_text("(1.682, 2.796)")


@pytest.mark.python_loading
@pytest.mark.parametrize("n", [1, 4])
def test_other_gpu_counts_give_the_same_answer(lesson_page, example, n, shot):
    example.get_by_label("N (GPUs)").select_option(str(n))
    expect(example.locator("article.tpw-gpu")).to_have_count(n)
    expect(example.get_by_test_id("gpu-0")).to_contain_text("column 0 of A, row 0 of B" if n == 4 else "columns 0–3 of A, rows 0–3 of B")
    H = [gelu(v) for v in (1, 2, 1, 0)]
    B = [[1, 0], [0, 1], [1, 1], [2, 0]]
    size = 4 // n
    for i in range(n):
        rows = range(i * size, (i + 1) * size)
        expect(out(example, f"H-{i}")).to_have_text(vec([H[k] for k in rows]))
        expect(out(example, f"Y-{i}")).to_have_text(vec([sum(H[k] * B[k][d] for k in rows) for d in range(2)]))
    expect(out(example, "Y-allreduce")).to_have_text("(1.682, 2.796)")
    expect(out(example, "equal")).to_have_attribute("data-ok", "true")
    shot(example, f"example-n{n}")


@pytest.mark.python_loading
def test_f_not_divisible_by_n_is_reported(example):
    example.get_by_label("N (GPUs)").select_option("4")
    example.get_by_label("F (hidden width)").select_option("6")
    alert = example.get_by_test_id("size-errors").get_by_role("alert")
    expect(alert).to_contain_text("F = 6 is not divisible by n = 4")
    expect(alert).to_contain_text("1, 2, 3, 6")
    expect(example.get_by_test_id("blocked")).to_be_visible()
    example.get_by_label("N (GPUs)").select_option("3")
    expect(alert).to_have_count(0)
    expect(example.locator("article.tpw-gpu")).to_have_count(3)
    # The new columns and rows start at 0, so the answer is still the lesson's.
    expect(out(example, "Y-allreduce")).to_have_text("(1.682, 2.796)")


@pytest.mark.python_loading
def test_resizing_keeps_the_typed_entries(example):
    example.get_by_label("A[1][2]").fill("7")
    example.get_by_label("D (token width)").select_option("3")
    expect(example.get_by_label("X[2]")).to_have_value("0")
    expect(example.get_by_label("A[2][3]")).to_have_value("0")
    expect(example.get_by_label("A[1][2]")).to_have_value("7")
    expect(example.get_by_label("B[3][2]")).to_have_value("0")
    X, A, B = [1, 2, 0], [[1, 0, -1, 2], [0, 1, 7, -1], [0, 0, 0, 0]], [[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 0, 0]]
    expect(out(example, "Y-unsplit")).to_have_text(vec(mlp(X, A, B)))


# --- the row-split counterexample ------------------------------------------------------------

@pytest.mark.python_loading
def test_row_split_defaults_show_the_counterexample(lesson_page, rowsplit, shot):
    expect(out(rowsplit, "partial-A")).to_have_text(f"[4, 3]")
    expect(out(rowsplit, "partial-B")).to_have_text(f"[{MINUS}9, 3]")
    expect(out(rowsplit, "sum")).to_have_text(f"[{MINUS}5, 6]")
    expect(out(rowsplit, "full")).to_have_text(f"[{MINUS}5, 6]")
    expect(out(rowsplit, "after")).to_have_text("[0, 6]")
    expect(out(rowsplit, "before")).to_have_text("[4, 6]")
    # The disagreement is highlighted: coordinate 0 in both results, coordinate 1 in neither.
    expect(out(rowsplit, "after").locator(".is-diff")).to_have_text(["0"])
    expect(out(rowsplit, "before").locator(".is-diff")).to_have_text(["4"])
    expect(out(rowsplit, "verdict")).to_have_attribute("data-agree", "false")
    expect(out(rowsplit, "prompt")).to_have_text(re.compile("Change the last input coordinate"))
    shot(rowsplit, "rowsplit-defaults")


@pytest.mark.python_loading
def test_row_split_reacts_to_the_last_coordinate(rowsplit):
    rowsplit.get_by_label("x[3]").fill("-1")
    # GPU B: -1·[3, 0] + -1·[-2, 1] = [-1, -1]; sum [3, 2]; ReLU before: [4, 3] + [0, 0].
    expect(out(rowsplit, "partial-B")).to_have_text(f"[{MINUS}1, {MINUS}1]")
    expect(out(rowsplit, "after")).to_have_text("[3, 2]")
    expect(out(rowsplit, "before")).to_have_text("[4, 3]")
    expect(out(rowsplit, "before").locator(".is-diff")).to_have_count(2)
    # With x = [1, 2, 1, 0] no partial has a negative entry, and the two orders agree.
    rowsplit.get_by_label("x[2]").fill("1")
    rowsplit.get_by_label("x[3]").fill("0")
    expect(out(rowsplit, "after")).to_have_text("[7, 3]")
    expect(out(rowsplit, "before")).to_have_text("[7, 3]")
    expect(out(rowsplit, "verdict")).to_have_attribute("data-agree", "true")


@pytest.mark.python_loading
def test_row_split_gelu_switch(lesson_page, rowsplit, shot):
    rowsplit.get_by_role("radio", name="GeLU").check()
    expect(rowsplit.get_by_role("heading", name="GeLU after the sum")).to_be_visible()
    expect(out(rowsplit, "after")).to_have_text(vec([gelu(-5), gelu(6)], "[]"))
    expect(out(rowsplit, "before")).to_have_text(vec([gelu(4) + gelu(-9), gelu(3) + gelu(3)], "[]"))
    expect(out(rowsplit, "before")).to_have_text("[4, 5.993]")
    expect(out(rowsplit, "verdict")).to_have_attribute("data-agree", "false")
    shot(rowsplit, "rowsplit-gelu")
    rowsplit.get_by_role("radio", name="ReLU").check()
    expect(out(rowsplit, "before")).to_have_text("[4, 6]")


@pytest.mark.python_loading
def test_row_split_invalid_entry(rowsplit):
    rowsplit.get_by_label("W[3][0]").fill("1..2")
    expect(rowsplit.get_by_test_id("errors-W").get_by_role("alert")).to_have_text("W[3][0]: “1..2” is not a number.")
    expect(rowsplit.get_by_test_id("blocked")).to_be_visible()
    rowsplit.get_by_label("W[3][0]").fill("-2")
    expect(out(rowsplit, "before")).to_have_text("[4, 6]")


# --- language, layout -------------------------------------------------------------------------

@pytest.mark.python_loading
def test_language_switch_translates_the_widgets(lesson_page, example, rowsplit, shot):
    rowsplit.get_by_label("x[3]").fill("-1")
    rowsplit.get_by_role("radio", name="GeLU").check()
    lesson_page.locator('[data-lang-choice="pl"]').click()
    expect(rowsplit.get_by_role("heading", level=3)).to_have_text("Podział wierszami, a potem nieliniowość")
    expect(out(rowsplit, "prompt")).to_contain_text("Zmień ostatnią współrzędną wejścia")
    expect(rowsplit.get_by_role("heading", name="GeLU po sumowaniu")).to_be_visible()
    expect(example.get_by_role("button", name="Sprawdź mój kod")).to_be_visible()
    expect(example.get_by_test_id("equal")).to_contain_text("Równe")
    # What the learner typed and chose survives the switch.
    expect(rowsplit.get_by_label("x[3]")).to_have_value("-1")
    expect(rowsplit.get_by_role("radio", name="GeLU")).to_be_checked()
    rowsplit.get_by_label("x[3]").fill("oops")
    expect(rowsplit.get_by_role("alert")).to_have_text("x[3]: „oops” nie jest liczbą.")
    shot(rowsplit, "rowsplit-pl")
    lesson_page.locator('[data-lang-choice="en"]').click()
    expect(rowsplit.get_by_role("heading", level=3)).to_have_text("Split by rows, then a nonlinearity")


@pytest.mark.python_loading
def test_widgets_fit_a_narrow_screen(lesson_page, example, rowsplit, shot):
    lesson_page.set_viewport_size({"width": 390, "height": 844})
    for widget, name in ((example, "example"), (rowsplit, "rowsplit")):
        widget.scroll_into_view_if_needed()
        box = widget.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, f"{name} sticks out of a 390px screen"
        # Nothing inside overflows the widget either (wide matrices scroll inside their own box).
        assert widget.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{name} overflows"
        shot(widget, f"{name}-narrow")
