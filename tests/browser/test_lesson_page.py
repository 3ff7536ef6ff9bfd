"""The lesson page in headless Chromium, as a learner uses it: Python loads in the background,
the reference passes, wrong code is explained, runaway code is stopped, code survives reloads.
Every test runs against the site served with and without cross-origin isolation."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import load_lesson
from lessonkit.lesson import match_ids

from gallery import gallery
from held_requests import HeldRequests

from conftest import READY_TIMEOUT_MS, RUN_TIMEOUT_MS, SPARES_KEPT, boots, open_ready_page, workers

ROOT = Path(__file__).resolve().parents[2]
LESSON_DIR = ROOT / "lessons" / "tp-mlp"
REFERENCE = (LESSON_DIR / "reference.py").read_text()
STARTER = (LESSON_DIR / "starter.py").read_text()
RUNAWAY = STARTER + "\nwhile True:\n    pass\n"
STATUS_WORDS = {"passed", "failed", "error", "timed out"}


@pytest.fixture
def one_mode(isolation):
    """For page behaviour that does not depend on Python's isolation mode: run cross-origin
    isolated only (listed first, it skips before a page is opened)."""
    if isolation == "plain":
        pytest.skip("the same in both isolation modes: run cross-origin isolated only")


def check_items(page) -> list[dict]:
    """The results list as a learner reads it: each item's status word, title and message."""
    results = page.get_by_role("list", name="Check results")
    return [{"id": item.get_attribute("data-check"),
             "status": item.locator(".check-status").inner_text().strip().lower(),
             "title": item.locator(".check-title").inner_text().strip(),
             "message": item.locator(".check-message").inner_text().strip()}
            for item in results.get_by_role("listitem").all()]


# Learner code saying where it runs: the grader's modules are loaded only where both share one
# interpreter (the single worker of a page that is not isolated).
WHERE_AM_I = REFERENCE + """
import sys as _sys
print("grader modules here:", sorted(m for m in ("pytest", "_pytest", "lessonkit.runner", "lessonkit.checking")
                                     if m in _sys.modules))
"""


# The tests that use shared_page: on one test worker per isolation mode, so that each mode opens
# that page once.
ON_SHARED_PAGE = pytest.mark.per_isolation_group("lesson-page")
# Every text the Python progress line shows, in order (an init script).
RECORD_PROGRESS = """
window.__progress = [];
new MutationObserver(() => {
  const el = document.getElementById('python-progress-text');
  if (el) window.__progress.push(el.textContent);
}).observe(document, {subtree: true, characterData: true, childList: true});
"""


# The engine's zip, which every Python worker fetches as it starts.
ENGINE_ZIP = "**/py/lessonkit.zip"


@pytest.fixture(scope="module")
def shared_page(context, lesson_url):
    """One lesson page (per isolation mode), its workers, reports and progress recorded, opened
    while Python still loads: the module's first test watches it load (its Python is what the
    test costs), the others use it ready (`ready_page`). Its Python cannot finish starting until
    `page.release_python()` (the engine's zip is held back), however fast the machine."""
    engine = HeldRequests(context, ENGINE_ZIP)
    page = open_ready_page(context, lesson_url, ready=False, scripts=(RECORD_PROGRESS,))
    page.release_python = engine.release
    yield page
    engine.release()
    page.close()


@pytest.fixture
def ready_page(shared_page, python_ready):
    shared_page.release_python()
    python_ready(shared_page)
    return shared_page


# Python's progress line while it warms up (imports, grading the starter).
PREPARING = "document.getElementById('python-progress-text').textContent.startsWith('Preparing')"


@ON_SHARED_PAGE
def test_python_loads_in_the_background_and_a_run_waits_for_it(shared_page, set_code, run_checks,
                                                                isolation, screenshot):
    """While Python loads, with visible progress, the learner types; a Run pressed then can be
    stopped at once, or while Python warms up (Python then comes up usable), or waits and runs
    once Python is ready. Then the page holds the Pythons its Runs need and one spare, started
    once the page is idle, and no more."""
    page = shared_page
    assert "verdict" not in boots(page), "this test watches the module's page load: it must come first"
    assert page.evaluate("crossOriginIsolated") == (isolation == "isolated")
    set_code(page, REFERENCE + '\nprint("hello from my solution")\n')  # typed while loading
    # A Run stopped while it waits for Python ends then, not once Python is ready.
    page.keyboard.press("Control+Enter")
    page.get_by_role("button", name="Stop", exact=True).click()
    when = page.wait_for_function("""() => document.getElementById('run-status').dataset.state === 'stopped'
        && {ready: document.querySelector('#python-progress[data-state=ready]') !== null}""",
                                  timeout=RUN_TIMEOUT_MS).json_value()
    assert not when["ready"], "the Run was stopped only once Python was ready"
    page.release_python()
    # Stop pressed while Python warms up: the run stops, the warm-up goes on.
    page.locator(".cm-content").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_function(PREPARING, timeout=READY_TIMEOUT_MS, polling=20)
    page.get_by_role("button", name="Stop", exact=True).click()
    assert run_checks(page, how=None)[0] == "stopped"

    # Whether Python was ready when Run was pressed: read in the very task of the click (the
    # page says so as the click runs), so that Python getting ready meanwhile cannot fool it.
    was_ready, shown = page.evaluate("""() => {
        const ready = document.querySelector('#python-progress[data-state=ready]') !== null;
        document.getElementById('run').click();
        return [ready, document.getElementById('run-status').textContent];
    }""")
    if not was_ready:
        assert "runs as soon as it is ready" in shown
    state, text = run_checks(page, how=None)
    progress = page.evaluate("window.__progress")
    assert any(re.search(r"Downloading Python: \d+\.\d of \d+\.\d MB", s) for s in progress), progress[:5]
    assert "Python is ready" in page.locator("#python-progress").inner_text()
    items = check_items(page)
    assert state == "passed", (text, items)
    assert re.search(rf"All {len(items)} checks passed", text)
    assert len(items) > 3 and items[0]["id"] == "load"
    assert all(item["status"] == "passed" and item["title"] for item in items), items
    output = page.locator("#output")
    assert output.is_visible() and "hello from my solution" in output.inner_text()
    screenshot(page, "reference-passes")

    # Isolated: the grader, the learner the Run used and two spare learners (the second is kept
    # once the learner in use has run code: a Run right after a Run, or Stop, then finds one
    # booted). Plain: the single worker the Run used (ended after it: every Run gets a fresh
    # one), its replacement, and the spare. Once the spares have booted, a moment later nothing
    # else has started.
    want = ["grader", "learner", "learner", "learner"] if isolation == "isolated" else ["single", "single", "single"]
    page.wait_for_function("n => window.__workers.filter((w) => w.ready).length >= n",
                           arg=len(want), timeout=READY_TIMEOUT_MS)
    page.wait_for_timeout(500)
    assert sorted(w["role"] for w in workers(page)) == want, workers(page)
    assert sum(w["ended"] for w in workers(page)) == (isolation == "plain"), workers(page)
    assert page.get_by_role("button", name="Run", exact=True).is_enabled()
    assert page.get_by_role("button", name="Stop", exact=True).is_disabled()
    assert page.errors == []


# Runaway code that catches every exception its loop gets (an interrupt included).
STUBBORN = STARTER + """
while True:
    try:
        while True:
            pass
    except BaseException:
        pass
"""


@ON_SHARED_PAGE
def test_runaway_code_is_stopped_by_stop_and_by_the_time_limit(ready_page, set_code, run_checks,
                                                               screenshot, isolation):
    """Stop ends the learner's code (cross-origin isolated: its learner worker, never the
    grader). Cross-origin isolated, the time limit ends it too, even code that swallows every
    interrupt: the page ends the learner worker that runs it and answers the grader "timed out"
    (it interrupts only the grader, so a plain loop takes the same way; without isolation that
    is the hardening catalogue's loop_module_level, graded in the plain page there). The next
    Run grades as usual."""
    page = ready_page
    status = page.get_by_role("status", name="Run status")
    before = workers(page)
    ended_learners = lambda: sum(w["ended"] for w in workers(page) if w["role"] == "learner")  # noqa: E731

    set_code(page, RUNAWAY)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li[data-status=running]")
    page.wait_for_timeout(500)  # inside the loop for a moment
    page.get_by_role("button", name="Stop", exact=True).click()
    # Stopped, not ended by the check's own time limit (which would fail the run, timed out).
    assert run_checks(page, how=None)[0] == "stopped"
    assert "Stopped" in status.inner_text()
    assert not page.locator("#results .check[data-status=timeout]").count()
    screenshot(page, "stopped")

    if isolation == "isolated":
        ended_before = ended_learners()
        set_code(page, STUBBORN)
        state, text = run_checks(page)
        assert state == "failed", text
        items = check_items(page)
        assert items[0]["id"] == "load" and items[0]["status"] == "timed out", items[0]
        assert items[0]["message"]
        assert "timed out" in text
        # The learner worker stuck in the loop is ended (so is one a previous Run used, when
        # the Run starts on a fresh learner).
        assert ended_learners() > ended_before, workers(page)
        screenshot(page, "time-limit")

    set_code(page, REFERENCE)
    state, text = run_checks(page)
    assert state == "passed", text
    now = workers(page)
    newly_ended = sum(w["ended"] for w in now) - sum(w["ended"] for w in before)
    if isolation == "isolated":
        assert not [w for w in now if w["role"] == "grader" and w["ended"]], \
            "the grader worker is never restarted for the learner's loops"
        assert newly_ended >= 2, "Stop and the time limit each ended the looping learner worker"
    else:
        assert {w["role"] for w in now} == {"single"}


@ON_SHARED_PAGE
def test_learner_code_runs_apart_from_the_grader(ready_page, set_code, run_checks, isolation):
    """Cross-origin isolated, the page grades with a grader worker and a learner worker, and the
    learner's code finds none of the grader's modules where it runs; not isolated, one worker
    holds both (the same probe then sees pytest: the check can fail)."""
    page = ready_page
    set_code(page, WHERE_AM_I)
    state, text = run_checks(page)
    assert state == "passed", text
    output = page.locator("#output").inner_text()
    if isolation == "isolated":
        # The learner worker the Run used gets a spare, started once the page is idle.
        page.wait_for_function("window.__workers.filter((w) => w.role === 'learner' && w.ready && !w.ended).length >= 2",
                               timeout=READY_TIMEOUT_MS)
    roles = [w["role"] for w in workers(page)]
    if isolation == "isolated":
        assert "grader modules here: []" in output, output
        assert roles.count("grader") == 1 and roles.count("learner") >= 2, roles
        assert "single" not in roles
    else:
        assert "grader modules here: ['_pytest', 'lessonkit.checking', 'lessonkit.runner', 'pytest']" in output, output
        assert set(roles) == {"single"}


# Leaves a mark where a later Run in the same interpreter would find it: a file in the worker's
# own file system.
HOSTILE = STARTER + """
open("/tmp/left-by-an-earlier-run", "w").write("x")
"""
LOOKS_BACK = REFERENCE + """
import os as _os
print("left by an earlier run:", _os.path.exists("/tmp/left-by-an-earlier-run"))
"""


@ON_SHARED_PAGE
def test_every_run_starts_in_a_fresh_python_without_isolation(ready_page, set_code, run_checks, isolation):
    """Not isolated, grader and learner share an interpreter: every Run gets a fresh one (a spare
    started ahead), so nothing a run leaves behind is there for the next."""
    if isolation == "isolated":
        pytest.skip("isolated, the grader never runs learner code (test_learner_code_runs_apart_from_the_grader)")
    page = ready_page
    set_code(page, HOSTILE)
    assert run_checks(page)[0] == "failed"
    set_code(page, LOOKS_BACK)
    state, text = run_checks(page)
    assert state == "passed", text
    assert "left by an earlier run: False" in page.locator("#output").inner_text()
    # The mark was real: in the same worker, a run that leaves it sees it.
    set_code(page, HOSTILE + LOOKS_BACK.replace(REFERENCE, ""))
    run_checks(page)
    assert "left by an earlier run: True" in page.locator("#output").inner_text()


def drawn_apart(checks: dict[str, tuple]) -> dict[str, tuple]:
    """golden.comparable's checks, a `test_fresh_*` check's message left out: it quotes the
    arguments that Run drew (the page draws anew on every Run; the golden reports' seed is fixed),
    so only its status and title are the same."""
    return {cid: (status, title, "" if "::test_fresh_" in cid else message)
            for cid, (status, title, message) in checks.items()}


def assert_explained(page, caught: list[str]):
    """The results list of a known-wrong solution's Run: each check it is known to fail did not
    pass, and says why, in words without grader internals."""
    items = {item["id"]: item for item in check_items(page)}
    assert all(item["status"] in STATUS_WORDS for item in items.values())
    for pattern in caught:
        named = [items[check_id] for check_id in match_ids([pattern], list(items))]
        assert named, f"no check matches {pattern!r}"
        for item in named:
            assert item["status"] in {"failed", "error", "timed out"}, item
            assert item["message"], f"{item['id']} did not pass, and says nothing about why"
            assert "lessonkit" not in item["message"], "no grader internals in a learner's message"


@ON_SHARED_PAGE
def test_reference_and_wrong_solutions_grade_as_in_cpython_and_are_explained(one_mode, ready_page, set_code,
                                                                           run_checks, screenshot):
    """Through the two workers, the reference and two known-wrong solutions get exactly the
    golden reports' verdicts, titles and messages, which CPython gives them (`lessonkit check`),
    and the results list explains each wrong one; a syntax error shows the learner's own line.
    Two are enough here: the channel carries any report the same way, and every check's failure
    is graded in Pyodide, against the goldens, by tests/lessons/test_grading.py (the whole
    gallery of every lesson, tests/gallery.py). Without isolation the single worker grades
    in-process, as CPython's tests do (tests/lessons)."""
    lesson = load_lesson(LESSON_DIR)
    page = ready_page
    mismatches = {}
    solutions = dict(list(gallery(lesson).items())[:3])
    for name, source in solutions.items():
        set_code(page, source)
        state, text = run_checks(page)
        got = drawn_apart(golden.comparable(page.evaluate("window.__reports")[-1]["checks"]))
        want = drawn_apart(golden.comparable(golden.expected(lesson, name, "en")))
        if got != want:
            mismatches[name] = {k: (want.get(k), got.get(k)) for k in want.keys() | got.keys()
                                if want.get(k) != got.get(k)}
        if name != golden.REFERENCE:
            assert state == "failed", (name, text)
            assert_explained(page, lesson.wrong_solution(name).fails)
            screenshot(page, f"wrong-{name}")
    assert mismatches == {}, json.dumps(mismatches, indent=1, ensure_ascii=False)[:4000]

    source = REFERENCE + "\n\ndef broken(:\n    pass\n"
    bad_line = source[:source.index("def broken")].count("\n") + 1
    set_code(page, source)
    state, _ = run_checks(page)
    assert state == "failed"
    items = check_items(page)
    load = items[0]
    assert load["id"] == "load" and load["status"] in {"failed", "error"}
    assert f"line {bad_line}" in load["message"], load["message"]
    assert "lessonkit" not in load["message"] and "site-packages" not in load["message"]
    assert all(item["status"] == "error" for item in items[1:])
    screenshot(page, "syntax-error")


def arrived(page, slug: str):
    """Waits until the page shows lesson `slug`, ready: Back and Forward change the address at
    once, before the page has fetched and mounted the lesson."""
    page.wait_for_function("""slug => JSON.parse(document.getElementById("lesson-config").textContent).lesson.id === slug
        && document.querySelector("#python-progress[data-state=ready]") !== null""", arg=slug,
                           timeout=READY_TIMEOUT_MS)


@ON_SHARED_PAGE
def test_next_lesson_and_back_keep_python_loaded(ready_page, set_code, run_checks, editor_text):
    """"Next" shows the next lesson in the same page: no Python worker starts between the click
    and the verdict of a Run there (counted in the tab's log, which a page load would add its
    new workers to), the Run grades the new lesson, and Back and Forward return to each
    lesson's own code."""
    page = ready_page
    # The spares, started once the page was idle, have booted: anything starting from here is a
    # boot the move caused.
    page.wait_for_function(SPARES_KEPT, timeout=READY_TIMEOUT_MS)
    set_code(page, "# my tp-mlp\n" + STARTER)
    logged = len(boots(page))
    page.get_by_role("navigation", name="Lessons").get_by_role("link").first.click()
    page.wait_for_url("**/lessons/fg-backward/index.html")
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    focused = page.evaluate("document.activeElement.tagName")
    state, text = run_checks(page)
    after = boots(page)[logged:]
    assert after[:after.index("verdict")] == [], after
    assert state == "failed", text  # fg-backward's starter
    assert page.evaluate("window.__reports")[-1]["lesson"] == "fg-backward"
    assert "The f and g operators" in page.title()
    assert focused == "H1"  # its heading, read out by a screen reader
    # The mounted lesson's HTML says "Loading Python…"; a language switch rewrites every marked
    # text: the progress line must still say what is true.
    progress = page.locator("#python-progress-text")
    assert progress.inner_text() == "Python is ready."
    page.get_by_role("button", name="Polski").click()
    assert progress.inner_text() == "Python jest gotowy."
    page.get_by_role("button", name="English").click()

    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\n# my fg-backward\n")
    page.go_back()
    arrived(page, "tp-mlp")
    assert editor_text(page).startswith("# my tp-mlp\n")
    page.go_forward()
    arrived(page, "fg-backward")
    assert editor_text(page).endswith("# my fg-backward\n")
    page.go_back()
    arrived(page, "tp-mlp")
    set_code(page, REFERENCE)
    assert run_checks(page)[0] == "passed"
    assert "verdict" in boots(page)[logged:] and "grader" not in boots(page)[logged:]
    assert page.errors == []


@pytest.mark.python_loading
def test_a_new_starter_replaces_unedited_code_silently_and_is_offered_for_edited_code(
        one_mode, lesson_page, editor_text, screenshot):
    page = lesson_page
    old = "def gelu(x):\n    raise NotImplementedError\n"
    page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                  ["tp-course:/:lesson:tp-mlp", json.dumps({"code": old, "starter": old})])
    page.reload()
    page.wait_for_selector("#editor .cm-line")
    assert page.locator("#notice").is_hidden()
    assert editor_text(page).strip() == STARTER.strip()

    mine = "def gelu(x):\n    return x  # mine\n"
    page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                  ["tp-course:/:lesson:tp-mlp", json.dumps({"code": mine, "starter": "an older starter"})])
    page.reload()
    notice = page.locator("#notice")
    notice.wait_for()
    assert "starter code changed" in notice.inner_text()
    assert editor_text(page).strip() == mine.strip(), "the learner's code is kept"
    screenshot(page, "starter-changed")
    page.reload()  # not answered yet: still announced
    notice.wait_for()
    page.get_by_role("button", name="Use the new starter").click()
    assert editor_text(page).strip() == STARTER.strip()
    page.get_by_role("button", name="Undo").click()
    assert editor_text(page).strip() == mine.strip()


@pytest.mark.python_loading
def test_reset_asks_first_and_can_be_undone_and_code_survives_a_reload(one_mode, lesson_page, set_code,
                                                                       editor_text):
    page = lesson_page
    mine = "# mine\n" + STARTER
    set_code(page, mine)
    page.get_by_role("button", name="Reset", exact=True).click()
    dialog = page.get_by_role("dialog")
    assert dialog.is_visible()
    dialog.get_by_role("button", name="Cancel").click()
    assert editor_text(page).strip() == mine.strip()
    page.get_by_role("button", name="Reset", exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name="Replace with starter").click()
    assert editor_text(page).strip() == STARTER.strip()
    page.get_by_role("button", name="Undo").click()
    assert editor_text(page).strip() == mine.strip()
    page.reload()
    page.wait_for_selector("#editor .cm-line")
    assert editor_text(page).strip() == mine.strip(), "the undone reset is saved too"
    assert page.locator("#notice").is_hidden()


@pytest.mark.python_loading
def test_language_switch_shows_one_language_and_is_remembered(one_mode, lesson_page, screenshot):
    page = lesson_page
    en = page.locator('.lang-block[data-lang="en"]').first
    pl = page.locator('.lang-block[data-lang="pl"]').first
    if page.locator(".lang-block").count() == 0:
        pytest.skip("the lesson has no language blocks")
    assert en.is_visible() and pl.is_hidden()
    page.get_by_role("button", name="Polski").click()
    assert pl.is_visible() and en.is_hidden()
    assert page.get_by_role("button", name="Polski").get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.documentElement.lang") == "pl"
    screenshot(page, "polish")
    page.reload()
    assert pl.is_visible() and en.is_hidden()
    page.get_by_role("button", name="English").click()
    assert en.is_visible() and pl.is_hidden()


@pytest.mark.python_loading
def test_index_page_links_to_the_lesson(one_mode, page, site_url):
    page.goto(site_url + "index.html")
    page.get_by_role("link", name="Tensor-parallel MLP (Megatron-LM)", exact=True).click()
    page.wait_for_selector("#editor .cm-line")
    assert page.url.endswith("/lessons/tp-mlp/index.html")
    assert page.errors == []
