"""The learner's code in the browser's storage, in real Chromium. When the browser cannot keep
it (localStorage filled to its quota), a pasted solution is not saved and the page says so (in
the page's language), offers the code as a download, keeps it in the editor and warns before the
page is left (a move to another lesson included); once saving works again the notice goes and the code survives a reload. The
starter the code grows from is the one of the page's language, and follows it until edited.

Saving does not depend on cross-origin isolation, so these run once, on the isolated site."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import LESSON, ROOT

from authorkit import starters  # noqa: E402
from lessonkit import load_lesson  # noqa: E402

REFERENCE = (ROOT / "lessons" / LESSON / "reference.py").read_text()
STARTER = (ROOT / "lessons" / LESSON / "starter.py").read_text()
POLISH_STARTER = starters.in_languages(load_lesson(ROOT / "lessons" / LESSON))["pl"]
# A long paste, as in the report that found the bug: the reference and 120 KB of notes.
BIG_SOLUTION = REFERENCE + "".join(f"\n# note {i}: " + "the partial sums are added up by the all-reduce. " * 2
                                   for i in range(1200))
# Fills the origin's localStorage until not one more character fits (halving the chunk on each
# refusal); returns how many characters went in.
FILL_STORAGE = """() => {
  let chunk = "x".repeat(1 << 20), stored = 0;
  for (let i = 0; chunk.length; i++) {
    try { localStorage.setItem("filler-" + i, chunk); stored += chunk.length; }
    catch { chunk = chunk.slice(0, chunk.length >> 1); }
  }
  return stored;
}"""
FREE_STORAGE = "() => Object.keys(localStorage).filter((k) => k.startsWith('filler-')).forEach((k) => localStorage.removeItem(k))"
SAVED = "() => localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith(':lesson:tp-mlp')))"
# Saving does not depend on cross-origin isolation (tests/conftest.py).
ISOLATION_MODES = ["isolated"]


def wait_for_dialogs(page, dialogs: list, count: int):
    """Until `count` dialogs have been seen (or 20 s have passed: the assertion after says)."""
    for _ in range(100):
        if len(dialogs) >= count:
            return
        page.wait_for_timeout(200)


@pytest.mark.python_loading
def test_a_save_over_the_quota_is_reported_with_a_download(lesson_page, set_code, editor_text, screenshot):
    page = lesson_page
    notice = page.locator("#save-failed")
    assert notice.is_hidden()
    assert page.evaluate(FILL_STORAGE) > 1_000_000
    set_code(page, BIG_SOLUTION)

    assert notice.is_visible()
    assert page.get_by_role("alert").filter(has_text="could not be saved in this browser").is_visible()
    assert "download solution.py to keep them" in notice.inner_text()
    assert page.evaluate(SAVED) is None  # nothing was kept: the notice is the truth
    screenshot(page, "save-failed")
    with page.expect_download() as download:
        notice.get_by_role("button", name="Download solution.py").click()
    assert download.value.suggested_filename == "solution.py"
    assert Path(download.value.path()).read_text() == BIG_SOLUTION

    # Leaving the page now would lose the code: the browser asks first (dismissed: the page stays).
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.dismiss()))
    page.evaluate("location.reload()")
    wait_for_dialogs(page, dialogs, 1)
    assert dialogs == ["beforeunload"]
    assert editor_text(page) == BIG_SOLUTION
    # So does a move to the next lesson: not in place (navigation.js), since the editor's text
    # would go with the page, but as an ordinary navigation the browser asks about first.
    page.get_by_role("navigation", name="Lessons").get_by_role("link").first.click()
    wait_for_dialogs(page, dialogs, 2)
    assert dialogs == ["beforeunload"] * 2
    assert page.url.endswith(f"/lessons/{LESSON}/index.html")
    assert editor_text(page) == BIG_SOLUTION

    # In the learner's language.
    page.locator("[data-lang-choice=pl]").click()
    assert "Nie udało się zapisać ostatnich zmian" in notice.inner_text()
    assert notice.get_by_role("button", name="Pobierz solution.py").is_visible()
    page.locator("[data-lang-choice=en]").click()

    # Room again: the next edit is saved, the notice and the warning go, and a reload keeps it.
    page.evaluate(FREE_STORAGE)
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\n# saved at last\n")
    assert notice.is_hidden()
    page.reload()
    assert dialogs == ["beforeunload"] * 2
    assert editor_text(page) == BIG_SOLUTION + "\n# saved at last\n"
    assert page.errors == []


@pytest.mark.python_loading
def test_the_starter_follows_the_language_until_it_is_edited(lesson_page, editor_text, screenshot):
    """Under Polski the editor opens with the Polish starter (its docstrings from locale/pl.po;
    `lessonkit check` proves the rest is the English one's code); the untouched starter follows
    each language switch, a reload keeps the language's starter, and edited code stays as written
    in either language."""
    page = lesson_page
    assert editor_text(page) == STARTER
    page.locator("[data-lang-choice=pl]").click()
    assert editor_text(page) == POLISH_STARTER
    assert '"""Podziel wagi MLP na n GPU' in POLISH_STARTER
    page.reload()
    assert page.evaluate("document.documentElement.lang") == "pl"
    assert editor_text(page) == POLISH_STARTER
    screenshot(page, "starter-pl")
    page.locator("[data-lang-choice=en]").click()
    assert editor_text(page) == STARTER
    page.locator("[data-lang-choice=pl]").click()
    assert editor_text(page) == POLISH_STARTER
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("# moje notatki\n")
    page.locator("[data-lang-choice=en]").click()
    assert editor_text(page) == POLISH_STARTER + "# moje notatki\n"
    page.reload()
    assert editor_text(page) == POLISH_STARTER + "# moje notatki\n"
    assert page.errors == []
