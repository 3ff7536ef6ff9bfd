"""The hardening catalogue (tests/hardening/cases/*.py) in the real browser: every bad or
adversarial solution typed into the lesson page gets exactly the verdicts its header names
(the same files and the same assertions as the CPython tests), a message for every check that
did not pass, no grader internals, and a page that still works for the next Run. Then the
no-loss test: whatever happens to the Python worker, the learner's code survives a reload.

All cases of one isolation mode share one page, as a learner's session would."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hardening"))

from catalogue import all_cases  # noqa: E402

CASES = all_cases()
REFERENCE = (ROOT / "lessons" / "tp-mlp" / "reference.py").read_text()
STARTER = (ROOT / "lessons" / "tp-mlp" / "starter.py").read_text()
WORDS = {"passed": "passed", "failed": "failed", "error": "error", "timed out": "timeout"}
# A run whose checks time out restarts the worker once per such check without isolation.
SLOW_RUN_MS = 240_000
# Cases whose results panel is saved as a screenshot, to look at.
SHOWN = {"tamper_numpy_in_call", "os_exit", "forge_report", "lying_objects", "output_flood"}


def checks_on_page(page) -> list[dict]:
    """The results list as the learner sees it, in the report's terms."""
    return page.evaluate("""() => [...document.querySelectorAll('#results li')].map(li => ({
        id: li.dataset.check,
        status: li.querySelector('.check-status').textContent.trim().toLowerCase(),
        title: li.querySelector('.check-title').textContent.trim(),
        message: li.querySelector('.check-message').textContent.trim()}))""")


def output_on_page(page) -> str:
    return page.evaluate("document.querySelector('#output pre').textContent")


@pytest.fixture(scope="module")
def session_page(context, lesson_url):
    """One lesson page for the whole catalogue (per isolation mode), Python loaded."""
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.goto(lesson_url)
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=120_000)
    yield page
    page.close()


def both_modes(case) -> bool:
    """Cases whose handling differs between the isolation modes: a time limit interrupts
    Python in place when cross-origin isolated and restarts the worker otherwise; a memory
    limit may end the worker. Every other case takes the same path in both modes, so it runs
    only cross-origin isolated (it keeps `./dev test` short)."""
    return case.child_only or any("timeout" in e.statuses for e in case.expects)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_in_the_browser(case, isolation, session_page, set_code, run_checks, editor_text,
                             screenshot):
    if isolation == "plain" and not both_modes(case):
        pytest.skip("same code path in both isolation modes: run cross-origin isolated only")
    page = session_page
    set_code(page, case.source)
    state, text = run_checks(page, timeout=SLOW_RUN_MS)
    shown = checks_on_page(page)
    checks = [{**c, "status": WORDS.get(c["status"], c["status"])} for c in shown]
    problems = case.problems(checks, output_on_page(page))
    if problems or case.name in SHOWN:
        page.locator("#results").scroll_into_view_if_needed()
        screenshot(page, f"hardening-{case.name}")
    assert problems == [], (state, text)
    expected_pass = all(e.statuses == {"passed"} for e in case.expects)
    assert state == ("passed" if expected_pass else "failed"), text
    # The learner's code is untouched: in the editor, and saved.
    assert editor_text(page).strip() == case.source.strip()
    saved = page.evaluate("JSON.parse(localStorage.getItem('tp-course:/:lesson:tp-mlp')).code")
    assert saved.strip() == case.source.strip()
    assert page.errors == [], page.errors


def test_the_page_still_grades_correctly_afterwards(session_page, set_code, run_checks,
                                                    screenshot):
    """After the whole catalogue ran in this page, the reference still passes: no case left
    the grader changed for the next run."""
    page = session_page
    set_code(page, REFERENCE)
    state, text = run_checks(page)
    assert state == "passed", text
    assert all(c["status"] == "passed" for c in checks_on_page(page))
    screenshot(page, "hardening-reference-after-catalogue")


def test_output_flood_keeps_the_page_responsive(session_page, set_code, run_checks):
    """While a solution prints hundreds of thousands of lines, the page answers and the
    editor takes typing; what reaches the page is capped."""
    flood = next(c for c in CASES if c.name == "output_flood")
    page = session_page
    set_code(page, flood.source)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#run-status[data-state=running]")
    assert page.evaluate("1 + 1") == 2
    page.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\n# typed during the flood\n")
    state, _ = run_checks(page, how=None)
    assert state == "passed"
    shown = output_on_page(page)
    assert "output cut" in shown and shown.count("\n") < 300


def test_code_survives_crashes_and_reloads(page, lesson_url, set_code, editor_text, python_ready,
                                           run_checks):
    """Type code; crash the worker twice (a runaway loop stopped with Stop, then a memory
    blow-up); reload: the code is there."""
    page.goto(lesson_url)
    python_ready(page, timeout=120_000)
    marker = f"# my unsaved-looking work {time.time()}\n"
    runaway = marker + STARTER + "\nwhile True:\n    pass\n"
    set_code(page, runaway)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li[data-status=running]")
    time.sleep(0.5)
    page.get_by_role("button", name="Stop", exact=True).click()
    page.wait_for_selector("#run-status[data-state=stopped]", timeout=30_000)
    assert editor_text(page).strip() == runaway.strip()

    blowup = marker + STARTER + "\nhoard = []\nwhile True:\n    hoard.append(bytearray(2**26))\n"
    set_code(page, blowup)
    state, text = run_checks(page, timeout=SLOW_RUN_MS)
    assert state in {"failed", "error"}, text
    assert editor_text(page).strip() == blowup.strip()

    page.reload()
    page.wait_for_selector("#editor .cm-line")
    assert editor_text(page).strip() == blowup.strip()
    python_ready(page, timeout=120_000)
    set_code(page, REFERENCE)
    state, text = run_checks(page)
    assert state == "passed", text
