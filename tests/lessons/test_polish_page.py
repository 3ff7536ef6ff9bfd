"""A lesson page in Polish, in the real browser: numbers written the Polish way in the prose and
the widgets, counts in their Polish plural form, the tab's title in Polish, and the missing
all-reduce named in Polish by "Sprawdź mój kod" (every lesson in Polish: test_pages.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from lessonkit import load_lesson

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
NBSP = "\u00a0"


def in_polish(open_page, url: str):
    page = open_page(url)
    page.locator('[data-lang-choice="pl"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    return page


@pytest.mark.python_loading  # prose and widgets only
def test_numbers_plurals_and_title_are_polish(open_page, isolated_site_url):
    page = in_polish(open_page, f"{isolated_site_url}lessons/vocab-parallel/index.html")
    title = load_lesson(ROOT / "lessons" / "vocab-parallel").title
    assert page.title() == "Embedding i entropia krzyżowa z podziałem słownika · Równoległość tensorowa w praktyce"
    assert title not in page.title()
    prose = page.locator('main .lang-block[data-lang="pl"]')
    expect(prose.filter(has_text="50 257 z GPT-2")).to_have_count(1)
    # Math written once, the English way, is typeset with Polish decimal commas and semicolons.
    tex = page.locator('.lang-block[data-lang="pl"] annotation[encoding="application/x-tex"]').all_text_contents()
    assert any("1{,}775; 1{,}168" in t for t in tex), tex
    assert not any("1.775" in t for t in tex)

    page = in_polish(open_page, f"{isolated_site_url}lessons/sequence-parallel/index.html")
    flow = page.locator('.widget[data-widget="sp-dataflow"]')
    flow.scroll_into_view_if_needed()
    expect(flow.get_by_test_id("comm")).to_contain_text("wysyła 4 liczby")
    memory = page.locator('.widget[data-widget="sp-memory"]')
    expect(memory.get_by_test_id("comm-tp")).to_contain_text(f"176{NBSP}160{NBSP}768")
    expect(memory.get_by_test_id("current")).to_contain_text("0,334 GiB")
    # t must divide the heads: 100000 with 96 heads is no layer, and says so.
    memory.locator('[data-field="t"]').fill("100000")
    expect(memory.get_by_test_id("error-t")).to_contain_text("nie dzieli a = 96")


def test_the_missing_all_reduce_is_named_in_polish(python_tab):
    page, example = python_tab.show("tp-mlp", "tp-mlp-example")
    page.locator('[data-lang-choice="pl"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    reference = (ROOT / "lessons" / "tp-mlp" / "reference.py").read_text()
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(reference.replace("return sum(partials)  # the all-reduce",
                                                "return partials[-1]"))
    example.get_by_role("button", name="Sprawdź mój kod").click()
    expect(example.get_by_test_id("learner-sum-hint")).to_have_text(
        "Podpowiedź: twój wynik to sam udział GPU 1, Y_1: brakuje operacji all-reduce, która "
        "dodaje udziały wszystkich GPU, Y = Y_0 + Y_1.", timeout=60_000)
    expect(example.get_by_test_id("learner-Y")).to_have_text("(0,841; 0,841)")
    assert page.errors == []
