"""The learner's course in real Chromium: progress on the home page, next-lesson links, the
page fully in Polish with Polish grader messages, graded hints, folded repeated failures, the
stale-run note, the failing line marked in the editor, keyboard and screen-reader behaviour,
download/upload, the phone layout, the dark theme and the file:// notice.

These do not depend on cross-origin isolation (test_lesson_page.py covers both modes), so they
run once, on the isolated site."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from lessonkit import load_lesson
from authorkit.course import Course

from conftest import ROOT, RUN_TIMEOUT_MS, clear_storage, open_ready_page

from sitebuild.serve import serve_in_thread


LESSONS = [(lesson.order, lesson.id) for lesson in Course(ROOT / "lessons").lessons()]
TP_MLP = ROOT / "lessons" / "tp-mlp"
REFERENCE = (TP_MLP / "reference.py").read_text()
STARTER = (TP_MLP / "starter.py").read_text()


ISOLATION_MODES = ["isolated"]  # tests/conftest.py


# The tests that use starter_page: on one test worker, so that the page opens once.
ON_STARTER_PAGE = pytest.mark.per_isolation_group("course")


@pytest.fixture(scope="module")
def ready_tp_mlp(context, site_url):
    page = open_ready_page(context, site_url + "lessons/tp-mlp/index.html")
    page.on("console", lambda m: m.type == "error" and page.errors.append(f"console: {m.text}"))
    yield page
    page.close()


@pytest.fixture
def starter_page(ready_tp_mlp, set_code):
    """tp-mlp with Python ready, in English, the starter in the editor: one page for the tests
    that read what a Run of the starter shows (each Runs it itself)."""
    page = ready_tp_mlp
    page.locator('[data-lang-choice="en"]').click()
    set_code(page, STARTER)
    page.errors.clear()
    return page


@pytest.fixture
def order(built_site):
    """The lessons of the built site in course order (lesson.toml's `order`)."""
    return [slug for _, slug in LESSONS if (built_site / "lessons" / slug).is_dir()]


@ON_STARTER_PAGE
def test_polish_all_the_way(starter_page, screenshot):
    page = starter_page
    page.locator('[data-lang-choice="pl"]').click()
    assert page.evaluate("document.documentElement.lang") == "pl"
    for name in ("Uruchom", "Zatrzymaj", "Od nowa", "Pobierz swój solution.py",
                 "Wczytaj plik solution.py do edytora"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1, name
    # No English prose is shown: every visible language block is Polish.
    shown = page.evaluate("""() => [...document.querySelectorAll('.lang-block')]
        .filter(e => e.offsetParent !== null).map(e => e.dataset.lang)""")
    assert shown and set(shown) == {"pl"}
    prose = page.locator("#prose").inner_text()
    assert "Kolumny" in prose and "Why not split" not in prose and "What you will write" not in prose
    page.get_by_role("button", name="Uruchom", exact=True).click()
    status = page.get_by_role("status", name="Stan sprawdzania")
    page.wait_for_selector("#run-status[data-state=failed]", timeout=RUN_TIMEOUT_MS)
    state, text = status.get_attribute("data-state"), status.inner_text()
    assert state == "failed" and text.startswith("Zaliczone sprawdzenia: 1 z ")
    first = page.locator('.check[data-check="test_gelu::test_python_floats"]')
    assert "gelu działa na zwykłych liczbach Pythona" in first.locator(".check-title").inner_text()
    assert "zgłoszono wyjątek NotImplementedError w wierszu 11" in first.locator(".check-message").inner_text()
    assert page.errors == []
    screenshot(page, "course-polish")


@ON_STARTER_PAGE
def test_switching_language_after_a_run_shows_the_page_text_in_the_new_one(starter_page, run_checks):
    """The summary, statuses and notes follow the switch; the grader's titles and messages stay
    as graded, and a note says so until the next Run."""
    page = starter_page
    state, text = run_checks(page)
    assert state == "failed" and text.startswith("1 of ")
    first = page.locator('.check[data-check="test_gelu::test_python_floats"]')
    title = first.locator(".check-title").inner_text()
    note = page.locator("#graded-lang-note")
    assert note.is_hidden()
    page.locator('[data-lang-choice="pl"]').click()
    assert page.get_by_role("status", name="Stan sprawdzania").count() == 1
    status = page.locator("#run-status")
    assert status.inner_text().startswith("Zaliczone sprawdzenia: 1 z ")
    assert status.get_attribute("data-state") == "failed"
    assert first.locator(".check-status").inner_text() == "błąd"
    assert page.locator(".check-same").first.inner_text().startswith("Ten sam komunikat co w „")
    assert first.locator(".check-title").inner_text() == title  # as graded, in English
    assert note.is_visible() and note.inner_text().startswith("Tytuły i komunikaty sprawdzeń poniżej")
    page.locator('[data-lang-choice="en"]').click()
    assert status.inner_text().startswith("1 of ") and note.is_hidden()
    page.locator('[data-lang-choice="pl"]').click()
    page.get_by_role("button", name="Uruchom", exact=True).click()  # graded anew, in Polish
    page.wait_for_function("""() => document.getElementById('run-status').dataset.state === 'failed'
        && document.querySelectorAll('.check').length > 1""", timeout=RUN_TIMEOUT_MS)
    assert status.inner_text().startswith("Zaliczone sprawdzenia: 1 z ") and note.is_hidden()
    assert "gelu działa na zwykłych liczbach Pythona" in first.locator(".check-title").inner_text()
    assert page.errors == []


# English function words: page text under Polski must have none (code, math and the editor
# aside). Polish shares none of these words.
ENGLISH = re.compile(r"\b(the|and|of|with|your|you|is|are|this|for|from|each|files?|press|check)\b", re.I)
PAGE_TEXT = """() => {
  const out = [];
  const aside = (el) => el.closest('pre, code, .katex, .cm-editor, script, style, [hidden], kbd, [lang=en]');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (n.textContent.trim() && !aside(el) && el.offsetParent !== null) out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    if (el.closest('[hidden], [lang=en]')) continue;
    for (const a of ['aria-label', 'title', 'placeholder', 'alt']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  return out;
}"""


@pytest.mark.python_loading
@pytest.mark.parametrize("slug", [slug for _, slug in LESSONS])
def test_every_lesson_keeps_edited_code_over_a_reload_and_has_no_english_under_polski(
        page, site_url, built_site, slug, editor_text):
    """Each lesson's own URL: an edit at the end of the file (below the lines CodeMirror renders
    at first, which is what made the editor look like the starter) is in the editor after a
    reload; then under Polski no English text is left on the page."""
    if not (built_site / "lessons" / slug / "index.html").is_file():
        pytest.skip(f"{slug} is not in this build")
    page.goto(site_url + f"lessons/{slug}/index.html")
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\n# my own line at the end\n")
    edited = editor_text(page)
    assert edited.endswith("# my own line at the end\n")
    page.reload()
    page.wait_for_selector(".cm-content")
    assert editor_text(page) == edited
    assert page.errors == []
    if not page.locator('[data-lang-choice="pl"]').count():
        return  # not in Polish
    page.locator('[data-lang-choice="pl"]').click()
    english = sorted({text for text in page.evaluate(PAGE_TEXT) if ENGLISH.search(text)})
    assert english == [], slug


@ON_STARTER_PAGE
def test_a_run_from_the_keyboard_is_announced_then_hints_open_one_step_at_a_time_and_repeats_fold(
        starter_page, run_checks):
    page = starter_page
    # Announcements: the status region changes when the run starts and when it ends; the focus
    # stays on Run.
    page.evaluate("""() => { window.said = [];
        new MutationObserver(() => window.said.push(document.getElementById('run-status').textContent))
          .observe(document.getElementById('run-status'), {childList: true, characterData: true, subtree: true}); }""")
    page.locator("#run").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "run"
    assert run_checks(page, how=None)[0] == "failed"
    assert page.evaluate("document.activeElement.id") == "run"
    said = page.evaluate("window.said")
    assert said == ["Running the checks…", said[-1]] and "checks passed" in said[-1], said

    checks = page.locator("#results > .check")
    total = checks.count()
    first = checks.nth(1)
    assert first.locator(".check-message").is_visible()
    repeats = first.locator(".check-repeats").inner_text()
    folded = page.locator("#results > .check.same")
    # Every check still has its item; the repeats show one line, not the traceback again.
    assert folded.count() >= 20 and folded.count() < total
    assert re.fullmatch(r"\d+ more checks below failed with this same message\.", repeats)
    assert folded.first.locator(".check-message").is_hidden()
    # The starter raises in three functions: three tracebacks shown, not one per check (28).
    shown = page.locator("#results .check-message:visible")
    assert shown.count() == 3, [shown.nth(i).inner_text()[:40] for i in range(shown.count())]
    assert "Same message as" in folded.first.locator(".check-same").inner_text()
    button = first.get_by_role("button", name=re.compile("Show a hint"))
    button.click()
    steps = first.locator(".hint-steps p")
    assert steps.count() == 1 and "numpy" in steps.first.inner_text()
    first.get_by_role("button", name=re.compile(r"Next hint \(step 2 of 3\)")).click()
    assert steps.count() == 2
    first.get_by_role("button", name=re.compile(r"Next hint \(step 3 of 3\)")).click()
    assert steps.count() == 3 and first.locator(".hint-button").is_hidden()


@ON_STARTER_PAGE
def test_stale_note_and_the_failing_line_in_the_editor(starter_page, set_code, run_checks):
    page = starter_page
    run_checks(page)
    stale = page.locator("#stale-note")
    assert stale.is_hidden()
    marked = page.locator(".cm-lintRange-error")
    assert marked.count() >= 1 and "raise NotImplementedError" in marked.first.inner_text()
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("# edited")
    assert stale.is_visible() and "changed since this run" in stale.inner_text()
    # A syntax error is marked on its own line.
    set_code(page, "import numpy as np\n\ndef gelu(x):\n    return (x\n")
    run_checks(page)
    assert page.locator(".cm-lintRange-error").count() == 1
    line = page.evaluate("""() => {
        const mark = document.querySelector('.cm-lintRange-error');
        const lines = [...document.querySelectorAll('.cm-line')];
        return lines.findIndex(l => l.contains(mark)) + 1; }""")
    assert line == 4


@pytest.mark.python_loading  # the skip link and the help do not wait for Python
def test_keyboard_skip_link_and_editor_help(page, site_url):
    page.goto(site_url + "lessons/tp-mlp/index.html")
    page.keyboard.press("Tab")
    skip = page.locator(":focus")
    assert skip.inner_text() == "Skip to the editor"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.classList.contains('cm-content')")
    assert "press Esc, then Tab" in page.locator("#editor-help").inner_text()
    # The scrolling panels can be reached from the keyboard.
    assert page.locator("#workbench").get_attribute("tabindex") == "0"


@pytest.mark.python_loading
def test_download_and_upload(page, site_url, tmp_path, editor_text):
    page.goto(site_url + "lessons/tp-mlp/index.html")
    with page.expect_download() as info:
        page.get_by_role("button", name="Download your solution.py").click()
    download = info.value
    assert download.suggested_filename == "solution.py"
    assert Path(download.path()).read_text() == STARTER
    mine = tmp_path / "mine.py"
    mine.write_text("# uploaded\n" + STARTER)
    page.locator("#upload-file").set_input_files(str(mine))
    page.wait_for_function("document.getElementById('notice').textContent.includes('mine.py')")
    assert editor_text(page).startswith("# uploaded\n")


@pytest.mark.python_loading  # the layout does not wait for Python
def test_phone_layout_read_and_code(page, site_url, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(site_url + "lessons/tp-mlp/index.html")
    assert page.locator("#workbench").is_hidden() and page.locator("#prose").is_visible()
    page.get_by_role("button", name="Code", exact=True).click()
    assert page.locator("#prose").is_hidden()
    assert page.locator(".cm-editor").bounding_box()["y"] < 844
    page.mouse.wheel(0, 3000)
    run = page.locator("#run").bounding_box()
    assert 0 <= run["y"] < 844, run  # the toolbar stays in view
    screenshot(page, "course-phone")
    page.get_by_role("button", name="Read", exact=True).click()
    assert page.locator("#prose").is_visible()
    # A formula wider than the phone scrolls inside its own box.
    wide = page.evaluate("""() => [...document.querySelectorAll('.prose .katex-display')]
        .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth).length""")
    assert wide >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.python_loading
def test_dark_theme_editor_included(page, site_url):
    page.emulate_media(color_scheme="dark")
    page.goto(site_url + "lessons/tp-mlp/index.html")
    def luminance(selector):
        rgb = page.evaluate(f"getComputedStyle(document.querySelector('{selector}')).backgroundColor")
        r, g, b = (int(v) for v in re.findall(r"\d+", rgb)[:3])
        return (r + g + b) / 3
    assert luminance("body") < 60 and luminance(".cm-editor") < 60


def test_file_url_says_how_to_serve(page, built_site):
    page.goto((built_site / "lessons" / "tp-mlp" / "index.html").as_uri())
    notice = page.locator("#file-protocol")
    notice.wait_for(state="visible")
    assert "python3 -m http.server 8000" in notice.inner_text()


@pytest.mark.python_loading
def test_two_copies_on_one_origin_share_nothing(page, built_site, tmp_path, set_code):
    root = tmp_path / "origin"
    root.mkdir()
    for name in ("course", "other-course"):
        (root / name).symlink_to(built_site, target_is_directory=True)
    server, url = serve_in_thread(root, isolated=True)
    try:
        page.goto(url + "course/lessons/tp-mlp/index.html")
        page.locator('[data-lang-choice="pl"]').click()
        set_code(page, "# only in /course/\n" + STARTER)
        page.goto(url + "other-course/lessons/tp-mlp/index.html")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert "only in /course/" not in page.locator(".cm-content").inner_text()
        page.goto(url + "course/lessons/tp-mlp/index.html")
        assert page.evaluate("document.documentElement.lang") == "pl"
        assert "only in /course/" in page.locator(".cm-content").inner_text()
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.python_loading
def test_model_solution_after_failed_runs_or_passing(page, site_url):
    page.goto(site_url + "lessons/tp-mlp/index.html")
    offer = page.locator("#model-solution")
    assert offer.is_hidden()
    limit = load_lesson(TP_MLP).solution_after_failed_runs
    page.evaluate("""([key, n]) => localStorage.setItem(key,
        JSON.stringify({lessons: {'tp-mlp': 'started'}, last: 'tp-mlp', failed: {'tp-mlp': n}}))""",
                  ["tp-course:/:progress", limit - 1])
    page.reload()
    assert page.locator("#model-solution").is_hidden()
    page.evaluate("""([key, n]) => localStorage.setItem(key,
        JSON.stringify({lessons: {'tp-mlp': 'started'}, last: 'tp-mlp', failed: {'tp-mlp': n}}))""",
                  ["tp-course:/:progress", limit])
    page.reload()
    page.get_by_role("button", name="Show the model solution").click()
    code = page.locator("#model-solution-code")
    code.wait_for(state="visible")
    assert code.inner_text().strip() == REFERENCE.strip()
    assert page.evaluate("document.activeElement.id") == "model-solution-code"


@ON_STARTER_PAGE  # last of them: it leaves tp-mlp passed
@pytest.mark.python_loading  # `page`, a second tab: Python runs in starter_page's
def test_home_page_shows_progress_and_the_way_on(page, starter_page, site_url, set_code,
                                                  run_checks, screenshot, order):
    """The home page shows each lesson new, then started, then passed, and the way on; the
    lesson page shows "next" once passed, also when loaded again. Two tabs of one site, as a
    learner may have: `page` reads (Python held back), the shared ready page runs."""
    clear_storage(page, site_url)  # what starter_page saved
    page.goto(site_url + "index.html")
    items = page.locator(".lesson-list > li")
    assert [items.nth(i).get_attribute("data-lesson-id") for i in range(items.count())] == order
    assert {items.nth(i).get_attribute("data-state") for i in range(items.count())} == {"new"}
    assert page.locator("#continue a").inner_text().startswith("Start: ")

    page.goto(site_url + "lessons/tp-mlp/index.html")
    nav = page.get_by_role("navigation", name="Lessons")
    assert nav.get_by_role("link").first.get_attribute("href") == f"../{order[1]}/index.html"
    assert page.locator("#next-after-pass").is_hidden()
    set_code(page, "# started\n" + STARTER)
    page.goto(site_url + "index.html")
    assert page.locator('[data-lesson-id="tp-mlp"]').get_attribute("data-state") == "started"
    assert page.locator('[data-lesson-id="tp-mlp"] .lesson-state').inner_text() == "in progress"
    assert page.locator("#continue a").get_attribute("href") == "lessons/tp-mlp/index.html"

    ready = starter_page
    set_code(ready, REFERENCE)
    state, _ = run_checks(ready)
    assert state == "passed"
    after = ready.locator("#next-after-pass")
    assert after.is_visible() and ready.locator("#model-solution").is_visible()
    assert after.get_by_role("link").get_attribute("href") == f"../{order[1]}/index.html"
    page.goto(site_url + "lessons/tp-mlp/index.html")
    assert page.locator("#next-after-pass").is_visible()  # progress is saved: a new load shows it
    page.goto(site_url + "index.html")
    assert page.locator('[data-lesson-id="tp-mlp"] .lesson-state').inner_text() == "passed"
    assert page.locator("#continue a").get_attribute("href") == f"lessons/{order[1]}/index.html"
    assert page.errors == [] and ready.errors == []
    screenshot(page, "course-home")
