"""The hardening catalogue (tests/hardening/cases/*.py) in the real browser: every bad or
adversarial solution whose handling is the page's own (IN_PAGE, PAGE_FACING) typed into the
lesson page gets exactly the verdicts its header names (the same files and the same assertions
as the CPython tests), a message for every check that did not pass, no grader internals, and a
page that still works for the next Run. Then the no-loss test: whatever happens to the Python
worker, the learner's code survives a reload.

Hostile cases (`# attacks:`) aimed at the page (its messages, the channel, the timers, the next
Run: PAGE_FACING) run cross-origin isolated, and those aimed at the page's timer or its messages
(IN_BOTH) without isolation too; each is followed in the same page by a plain wrong solution
(cases/all_zeros.py), which must get exactly its own verdicts, and so is the whole catalogue.
Every run must end (no hang: a generous bound, times written to artifacts/hardening-<mode>.json,
never asserted tightly). Cross-origin isolated, where learner code runs in its own worker, no
hostile case may pass; without isolation grader and learner share one worker
(docs/threat-model.md), so there a case's own verdict is recorded, not asserted.

All cases of one isolation mode share one page, as a learner's session would. The page is the
hardening copy of tp-mlp (short time limits, as in the CPython tests: `short_limits_url`)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hardening"))

from catalogue import ALL_ZEROS, all_cases, lesson_check_ids  # noqa: E402
from conftest import open_ready_page  # noqa: E402

# One test worker for each isolation mode: every case of a mode runs in one page, which the
# last catalogue test then checks.
pytestmark = pytest.mark.per_isolation_group("hardening")
CASES = all_cases()
# The catalogue cases whose handling is the page's own (a time limit, a worker that exits,
# aborts or runs out of memory, wasm's stack, no threads, output floods, stdin, located syntax
# errors, Pyodide's packages, the learner worker's own file system, the results list and the
# channel's plain data). The others are graded by the same grader code from the same plain data
# as in the split CLI, which tests/hardening/test_cases.py::test_cli checks for every case.
IN_PAGE = {"loop_in_one_check", "loop_module_level", "loop_swallows_timeout", "os_exit", "sys_exit",
           "raise_systemexit", "abort_in_one_check", "memory_blowup", "huge_allocation",
           "deep_recursion", "thread_tampering", "output_flood", "raw_output_flood", "forge_report",
           "lying_objects", "tamper_numpy_in_call", "input_call", "syntax_error",
           "import_unavailable", "frame_reading", "read_checks", "write_checks_at_load",
           "reference_from_checks", "nan_result", "all_zeros"}
CATALOGUE = [c for c in CASES if c.name in IN_PAGE]
# The hostile cases aimed at the page: forged messages and events, the channel, the timer, the
# next Run. The others attack the grader's own interpreter, which, cross-origin isolated, is not
# where learner code runs (test_lesson_page.py::test_learner_code_runs_apart_from_the_grader):
# that is the split CLI's case, which tests/hardening/test_cases.py::test_cli checks for every
# one of them, the grader getting the same plain data there as here.
NEXT_RUN = {"hostile_hang_next_run", "hostile_poison_next_learner"}
PAGE_FACING = {"hostile_post_message", "hostile_fake_worker_messages", "hostile_flood_channel",
               "hostile_huge_result", "hostile_report_pipe", "hostile_runner_emit",
               "hostile_fake_check_end", "hostile_ignore_alarm", *NEXT_RUN}
# Cases written to poison the next run go last: where the page keeps an interpreter between
# Runs (KNOWN), what they leave there would reach every later case's runs too.
HOSTILE = sorted((c for c in CASES if c.name in PAGE_FACING), key=lambda c: c.name in NEXT_RUN)
# Known gaps of the page (issue 9), by case and isolation mode: the test says what happens
# instead of failing. Strict, so a fix makes the test fail until its entry is removed.
KNOWN = {}
# The same for a known hang, which is not run (it would cost HANG_MS every time).
KNOWN_HANGS = {}
# Without isolation every Run starts in a fresh worker, whatever ran before (shown for any code
# by test_lesson_page.py::test_every_run_starts_in_a_fresh_python_without_isolation), so the
# cases aimed at the next Run have nothing to reach there: the cases aimed at the page's timer
# or at the page's messages run in both modes, the others cross-origin isolated only (each Run
# without isolation boots a worker).
IN_BOTH = {"hostile_post_message", "hostile_ignore_alarm", "hostile_fake_check_end"}
ZEROS = next(c for c in CASES if c.name == ALL_ZEROS)
assert IN_BOTH <= PAGE_FACING <= {c.name for c in CASES if c.hostile}
REFERENCE = (ROOT / "lessons" / "tp-mlp" / "reference.py").read_text()
STARTER = (ROOT / "lessons" / "tp-mlp" / "starter.py").read_text()
WORDS = {"passed": "passed", "failed": "failed", "error": "error", "timed out": "timeout"}
# A run whose checks time out restarts the worker once per such check without isolation.
SLOW_RUN_MS = 240_000
# A run that has not ended after this long hangs (the hardening copy's whole-run limit is
# catalogue.TOTAL_SECONDS; the page may restart Python on top of it).
HANG_MS = 180_000
# Cases whose results panel is saved as a screenshot, to look at.
SHOWN = {"tamper_numpy_in_call", "os_exit", "forge_report", "lying_objects", "output_flood",
         "hostile_fake_check_end", "hostile_post_message"}
TIMES = ROOT / "artifacts"


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
def session_page(context, short_limits_url):
    """One page of the hardening copy for the whole catalogue (per isolation mode), Python
    loaded."""
    page = open_ready_page(context, short_limits_url)
    yield page
    page.close()


# The catalogue cases run without isolation too: those that end or crash the single worker
# (a swallowed interrupt, a loop at load, an abort, memory); a loop inside a check is
# tests/browser/test_hosting.py's looping report, on both hosts.
PLAIN_CATALOGUE = {"loop_swallows_timeout", "loop_module_level", "abort_in_one_check", "memory_blowup"}


@pytest.mark.parametrize("case", CATALOGUE, ids=[c.name for c in CATALOGUE])
def test_case_in_the_browser(case, isolation, session_page, set_code, run_checks, editor_text,
                             screenshot):
    if isolation == "plain" and case.name not in PLAIN_CATALOGUE:
        pytest.skip("graded in one interpreter by test_in_process: run cross-origin isolated only")
    page = session_page
    mode = "split" if isolation == "isolated" else "one"
    set_code(page, case.source)
    state, text = run_checks(page, timeout=SLOW_RUN_MS)
    shown = checks_on_page(page)
    checks = [{**c, "status": WORDS.get(c["status"], c["status"])} for c in shown]
    problems = case.problems(checks, output_on_page(page), mode)
    if problems or case.name in SHOWN:
        page.locator("#results").scroll_into_view_if_needed()
        screenshot(page, f"hardening-{case.name}")
    assert problems == [], (state, text)
    assert state == ("passed" if case.expected_pass(mode) else "failed"), text
    # The learner's code is untouched: in the editor, and saved.
    assert editor_text(page).strip() == case.source.strip()
    saved = page.evaluate("JSON.parse(localStorage.getItem('tp-course:/:lesson:tp-mlp')).code")
    assert saved.strip() == case.source.strip()
    assert page.errors == [], page.errors


def grade_on_page(page, source, set_code, run_checks) -> dict:
    """Type `source`, Run, wait for the end (or press Stop after HANG_MS): the run as data."""
    set_code(page, source)
    started = time.perf_counter()
    try:
        state, _ = run_checks(page, timeout=HANG_MS)
    except PlaywrightTimeout:
        state = "hung"
        page.get_by_role("button", name="Stop", exact=True).click()
        page.wait_for_selector("#run-status[data-state=stopped]", timeout=30_000)
    checks = [{**c, "status": WORDS.get(c["status"], c["status"])} for c in checks_on_page(page)]
    return {"state": state, "seconds": round(time.perf_counter() - started, 1),
            "checks": checks, "stdout": output_on_page(page)}


def record(isolation: str, name: str, entry: dict) -> None:
    """Adds one case's outcome to artifacts/hardening-<mode>.json (read by people, not tests);
    one test worker runs every case of a mode (`per_isolation_group`), so one writes each file."""
    TIMES.mkdir(parents=True, exist_ok=True)
    path = TIMES / f"hardening-{isolation}.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[name] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True))


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_hostile_case_then_a_wrong_solution(case, isolation, session_page, set_code, run_checks,
                                            screenshot, request):
    if isolation == "plain" and case.name not in IN_BOTH:
        pytest.skip("a fresh worker for every Run without isolation (test_every_run_starts_in_a_fresh_python_without_isolation)")
    if (case.name, isolation) in KNOWN_HANGS:
        pytest.xfail(KNOWN_HANGS[case.name, isolation])
    if (case.name, isolation) in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[case.name, isolation], strict=True))
    page = session_page
    run = grade_on_page(page, case.source, set_code, run_checks)
    if case.name in SHOWN:
        page.locator("#results").scroll_into_view_if_needed()
        screenshot(page, f"hardening-{case.name}")
    own = case.hostile_problems(run["checks"], run["stdout"], run["state"] == "passed")
    entry = {"attacks": case.attacks, "state": run["state"], "seconds": run["seconds"], "problems": own,
             "passed_checks": sum(c["status"] == "passed" for c in run["checks"])}
    after = grade_on_page(page, ZEROS.source, set_code, run_checks)
    poisoned = zeros_problems(after)
    entry["next_run"] = {"state": after["state"], "seconds": after["seconds"], "problems": poisoned}
    record(isolation, case.name, entry)
    assert run["state"] != "hung", f"the run did not end within {HANG_MS / 1000:g} s"
    assert poisoned == [], f"the plain wrong solution graded next was not graded as usual: {poisoned[:3]}"
    if isolation == "isolated":
        assert own == [], f"{case.attacks}: {run['state']}, {own[:3]}"


def zeros_problems(run: dict) -> list[str]:
    """What is wrong with a run of cases/all_zeros.py: anything but its own verdicts."""
    problems = ZEROS.problems(run["checks"], run["stdout"], "split")
    if [c["id"] for c in run["checks"]] != lesson_check_ids():
        problems.append(f"not the lesson's checks: {[c['id'] for c in run['checks']][:4]}")
    if run["state"] != "failed":
        problems.append(f"the run ended {run['state']}")
    return problems


def test_the_page_still_grades_correctly_afterwards(session_page, set_code, run_checks,
                                                    screenshot):
    """After the whole catalogue ran in this page, a plain wrong solution gets exactly its own
    verdicts and the reference passes: no case left the grader or the page changed."""
    page = session_page
    assert zeros_problems(grade_on_page(page, ZEROS.source, set_code, run_checks)) == []
    set_code(page, REFERENCE)
    state, text = run_checks(page)
    assert state == "passed", text
    assert all(c["status"] == "passed" for c in checks_on_page(page))
    screenshot(page, "hardening-reference-after-catalogue")


def test_output_flood_keeps_the_page_responsive(session_page, set_code, run_checks, isolation):
    """While a solution prints hundreds of thousands of lines, the page answers and the
    editor takes typing; what reaches the page is capped."""
    if isolation == "plain":
        pytest.skip("the engine caps the output before it leaves either worker: run cross-origin isolated only")
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


def test_code_survives_crashes_and_reloads(session_page, set_code, editor_text, python_ready,
                                           run_checks, isolation):
    """Type code; crash the worker twice (a runaway loop stopped with Stop, then a memory
    blow-up); reload: the code is there. Last in this file: it reloads the catalogue's page."""
    if isolation == "plain":
        pytest.skip("saving does not depend on isolation; the single worker's crashes are PLAIN_CATALOGUE's")
    page = session_page
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
