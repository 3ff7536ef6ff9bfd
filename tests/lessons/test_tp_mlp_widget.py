"""tp-mlp's worked example running the learner's own code ("Try with my code"), in the session's
Python tab (`python_tab`: no Python start of its own). The widgets' other behaviour, none of which
waits for Python, is tests/browser/test_widgets.py's."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = ROOT / "lessons" / "tp-mlp"


def test_try_with_my_code_shows_the_learners_answer_beside_the_reference(python_tab, set_code, shot):
    """In one page, as a learner goes: a wrong answer beside the reference's, an error in the
    learner's own words, then the reference's code matching, for other numbers too."""
    lesson_page, example = python_tab.show("tp-mlp", "tp-mlp-example")
    try_mine = example.get_by_role("button", name="Try with my code")
    verdict = example.get_by_test_id("learner-verdict")
    # A tp_mlp that keeps GPU0's part only: GPU0's (0.841, 1.955), not Y.
    set_code(lesson_page, (LESSON / "reference.py").read_text() + (
        "\n\ndef tp_mlp(X, shards):\n"
        "    import numpy as np\n"
        "    return sum(gelu(np.asarray(X) @ A_i) @ B_i for A_i, B_i in shards[:1])\n"))
    try_mine.click()
    expect(verdict).to_have_attribute("data-verdict", "mismatch", timeout=120_000)
    expect(example.get_by_test_id("learner-Y")).to_have_text("(0.841, 1.955)")
    expect(example.get_by_test_id("reference-Y")).to_have_text("(1.682, 2.796)")
    # The missing all-reduce named, as the grader names it (widget-kit/missed-sum.js).
    expect(example.get_by_test_id("learner-sum-hint")).to_have_text(
        "Hint: your result is GPU 0's share alone, Y_0: the all-reduce that adds up every GPU's "
        "share, Y = Y_0 + Y_1, is missing.")

    set_code(lesson_page, "def gelu(x):\n    return x\n\ndef shard_mlp(A, B, n):\n    raise ValueError('not yet')\n\n"
                          "def tp_mlp(X, shards):\n    return X\n")
    try_mine.click()
    expect(verdict).to_have_attribute("data-verdict", "error", timeout=60_000)
    expect(example.get_by_test_id("learner-result")).to_contain_text("not yet")
    shot(example.locator(".tpw-learner"), "example-try-error")
    # The learner's error in the page's language: Python's own words stay, the grader's are Polish.
    lesson_page.locator('[data-lang-choice="pl"]').click()
    example.get_by_role("button", name="Sprawdź mój kod").click()
    expect(example.get_by_test_id("learner-result")).to_contain_text("zgłoszono wyjątek ValueError", timeout=60_000)
    expect(example.get_by_test_id("learner-result")).to_contain_text("Ślad wywołań (tylko twój kod):")
    shot(example.locator(".tpw-learner"), "example-try-error-pl")
    lesson_page.locator('[data-lang-choice="en"]').click()

    set_code(lesson_page, (LESSON / "reference.py").read_text())
    try_mine.click()
    expect(verdict).to_have_attribute("data-verdict", "match", timeout=60_000)
    expect(example.get_by_test_id("learner-Y")).to_have_text("(1.682, 2.796)")
    expect(example.get_by_test_id("reference-Y")).to_have_text("(1.682, 2.796)")
    # Other numbers, N = 4: still the learner's code against the reference (the widget's own
    # reference follows the formula for any numbers: tests/browser/test_widgets.py).
    example.get_by_label("N (GPUs)").select_option("4")
    expect(example.get_by_test_id("learner-stale")).to_be_visible()
    example.get_by_label("X[0]").fill("-3")
    try_mine.click()
    expect(verdict).to_have_attribute("data-verdict", "match", timeout=60_000)
    expect(example.get_by_test_id("reference-Y")).not_to_have_text("(1.682, 2.796)")
    expect(example.get_by_test_id("learner-Y")).to_have_text(example.get_by_test_id("reference-Y").inner_text())
    shot(example.locator(".tpw-learner"), "example-try-match")
