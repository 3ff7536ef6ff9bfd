"""The hardening catalogue (tests/hardening/cases/*.py) in the real browser: each case whose
handling is the page's own, typed into the lesson page, gets exactly the verdicts its header
names (the same files and the same assertions as the CPython tests), a message for every check
that did not pass, no grader internals, and a page that still works for the next Run. Then the
no-loss test: whatever happens to the Python worker, the learner's code survives a reload.

Which cases run here, and why the others need not: a case runs in the page only when what it
does meets code that is the page's own (its timers and workers, WebAssembly's memory and stack,
the learner worker's files and output, the page's messages and channel, its rendering). A Run in
a cross-origin-isolated page grades with the same Python as the command line on both sides: the
grader worker runs `lessonkit.runner` (browser.py), the learner worker answers each request with
`lessonkit.learner_host.handle_json` as the CLI's child does, and the page carries each answer
to the grader as the same JSON text, unread (web/src/learner-channel.js). So a case whose
attack or mistake is plain Python on the learner's side (patched numpy or builtins, lying
objects, sys.exit, os._exit, input(), a syntax error, gc and frame searches for the grader's
objects) gets its verdict from that same code, which tests/hardening/test_cases.py runs for
every case in CPython; those whose outcome rests on Pyodide itself rather than on the page
(Python 3.12's messages, no threads, its package set) are graded in Pyodide there too
(`test_in_pyodide`, one interpreter for all of them).

Each isolation mode grades its cases in ONE page, as a learner's session would, in the order of
ISOLATED or PLAIN: every hostile case (`# attacks:`, aimed at the page) is followed in that page
by a plain case that must get exactly its own verdicts, so a hostile case that left anything
behind (a timer, a message, a poisoned worker) fails the test graded after it, which names it.
Every run must end (no hang: a generous bound, times written to artifacts/hardening-<mode>.json,
never asserted tightly). Cross-origin isolated, where learner code runs in its own worker, no
hostile case may pass; without isolation grader and learner share one worker
(docs/threat-model.md), so there a hostile case's own verdict is recorded, not asserted.

The page is the hardening copy of tp-mlp (short time limits, as in the CPython tests:
`short_limits_url`)."""
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
from python_loading import PYTHON_WORKER_SCRIPT  # noqa: E402  (tests/, on the path for conftest)

# One test worker for each isolation mode: every case of a mode runs in one page.
pytestmark = pytest.mark.per_isolation_group("hardening")
CASES = {c.name: c for c in all_cases()}

# Cross-origin isolated: learner code runs in a learner worker, which the page swaps for a fresh
# one at every Run, after a time limit (it gets no interrupt: a loop that swallows one meets
# the path of any loop, test_hosting.py's looping report) and when it dies.
ISOLATED = [
    # The hostile cases aimed at the page, each followed by a case that shows what it would
    # have left behind: forged "passed" reports and messages (followed by failing cases), an
    # answer larger than the channel and a channel flooded mid-answer, the timer ignored (followed
    # by a case whose checks mostly pass: a timer left armed would time one out).
    "hostile_post_message", "forge_report",               # forge_report: the page's own success
    "hostile_fake_worker_messages", "read_checks",        # line, printed: shown as output only
    "hostile_huge_result", "write_checks_at_load",
    "hostile_flood_channel", "reference_from_checks",
    "hostile_ignore_alarm", "deep_recursion",              # WebAssembly's stack
    # A worker whose Python aborts or runs out of WebAssembly's memory. (A learner call past
    # its limit, in a check or at load, meets one path of the page's, the learner worker
    # swapped and the grader answered `timeout`: test_hosting.py's looping solution takes it on
    # both hosts; the grader's side of it is test_cases.py's.)
    "abort_in_one_check", "memory_blowup", "huge_allocation",
    # Cases written to poison the next Run go last: what they left in a kept worker would
    # reach every later case. poison_next_learner's numpy.zeros forgery answers for exactly
    # what all_zeros returns.
    "hostile_hang_next_run", "raw_output_flood",           # os.write to the worker's stdout
    "hostile_poison_next_learner", ALL_ZEROS,
    # Last: a pass after everything else ran in this page, typed into while it prints.
    "output_flood",
]
# Without isolation every Run grades in a fresh single worker, whatever ran before (shown for any
# code by test_lesson_page.py::test_every_run_starts_in_a_fresh_python_without_isolation), and
# the page ends it at a time limit: the cases aimed at the page's messages or its run deadline,
# and those that end or crash the single worker (a loop at load, an abort, memory). A loop
# inside a check is tests/browser/test_hosting.py's looping report, on both hosts; there the page
# sends the single worker no signal at all (it has no interrupt buffer without isolation), so
# what learner code does with SIGALRM (hostile_ignore_alarm, loop_swallows_timeout) meets the
# same path as that loop: the worker ended at the check's limit and the run graded again.
PLAIN = [
    "hostile_post_message", "loop_module_level",
    "hostile_fake_check_end", "abort_in_one_check",     # a forged check_end: the page's run
    "memory_blowup",                                     # deadline backs its timer up
]
# The hostile cases aimed at the page (its messages, the channel, its timers, the next Run):
# graded as hostile (cross-origin isolated none may pass or cut the report short; without
# isolation their own verdict is recorded), each followed by a plain case.
# Not in the page: hostile_report_pipe and hostile_runner_emit look through gc for the command
# line's report pipe and the grader's run object, which cross-origin isolated are not in the
# learner worker (as in the CLI's child, test_cases.py::test_cli); hostile_fake_check_end's
# forged check_end there reaches no grader either, leaving a plain loop (loop_in_one_check).
PAGE_FACING = {"hostile_post_message", "hostile_fake_worker_messages", "hostile_flood_channel",
               "hostile_huge_result", "hostile_ignore_alarm", "hostile_fake_check_end",
               "hostile_hang_next_run", "hostile_poison_next_learner"}
# Known gaps of the page (issue 9), by case and isolation mode: the test says what happens
# instead of failing. Strict, so a fix makes the test fail until its entry is removed.
KNOWN = {}
# The same for a known hang, which is not run (it would cost HANG_MS every time).
KNOWN_HANGS = {}
# A run that has not ended after this long hangs (the hardening copy's whole-run limit is
# catalogue.TOTAL_SECONDS; without isolation each check that times out restarts the worker on
# top of it).
HANG_MS = 240_000
WORDS = {"passed": "passed", "failed": "failed", "error": "error", "timed out": "timeout"}
STARTER = (ROOT / "lessons" / "tp-mlp" / "starter.py").read_text()
# Cases whose results panel is saved as a screenshot, to look at.
SHOWN = {"forge_report", "output_flood", "hostile_fake_check_end", "hostile_post_message"}
TIMES = ROOT / "artifacts"
# What is typed into the editor while output_flood prints.
TYPED = "# typed during the flood"


def followed_by_plain_cases(order: list[str]) -> bool:
    """Every hostile case in `order` has a plain case right after it."""
    return all(i + 1 < len(order) and order[i + 1] not in PAGE_FACING
               for i, name in enumerate(order) if name in PAGE_FACING)


assert followed_by_plain_cases(ISOLATED) and followed_by_plain_cases(PLAIN)
assert ISOLATED[ISOLATED.index("hostile_poison_next_learner") + 1] == ALL_ZEROS
assert PAGE_FACING <= {c.name for c in CASES.values() if c.hostile} and PAGE_FACING <= {*ISOLATED, *PLAIN}
# Whatever ran last in each mode's page (a case's name), for a test's message.
LAST_RUN: dict[str, str] = {}


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


def grade_on_page(page, source, set_code, run_checks, while_running=None) -> dict:
    """Type `source`, Run, wait for the end (or press Stop after HANG_MS): the run as data.
    `while_running(page)`: done once the run has started, before waiting for its end."""
    set_code(page, source)
    started = time.perf_counter()
    try:
        if while_running is None:
            state, _ = run_checks(page, timeout=HANG_MS)
        else:
            page.get_by_role("button", name="Run", exact=True).click()
            page.wait_for_selector("#run-status[data-state=running]")
            while_running(page)
            state, _ = run_checks(page, how=None, timeout=HANG_MS)
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


def type_during_the_flood(page):
    """While output_flood prints, the page answers and the editor takes typing."""
    assert page.evaluate("1 + 1") == 2
    page.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text(f"\n{TYPED}\n")


def grade_case(name, isolation, page, set_code, run_checks, editor_text, screenshot, request):
    """Grades the case `name` in this mode's page and asserts what it must get there."""
    case = CASES[name]
    mode = "split" if isolation == "isolated" else "one"
    before, LAST_RUN[isolation] = LAST_RUN.get(isolation), name
    if (name, isolation) in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[name, isolation], strict=True))
    flood = name == "output_flood"
    run = grade_on_page(page, case.source, set_code, run_checks,
                        while_running=type_during_the_flood if flood else None)
    if name in SHOWN:
        page.locator("#results").scroll_into_view_if_needed()
        screenshot(page, f"hardening-{name}")
    assert run["state"] != "hung", f"the run did not end within {HANG_MS / 1000:g} s"
    ids = [c["id"] for c in run["checks"]]
    if name in PAGE_FACING:
        own = case.hostile_problems(run["checks"], run["stdout"], run["state"] == "passed")
        record(isolation, name, {"attacks": case.attacks, "state": run["state"],
                                 "seconds": run["seconds"], "problems": own,
                                 "passed_checks": sum(c["status"] == "passed" for c in run["checks"])})
        if isolation == "isolated":
            assert own == [], f"{case.attacks}: {run['state']}, {own[:3]}"
    else:
        # Graded right after a hostile case, anything but its own verdicts is what that case
        # left behind.
        after = f" (graded right after {before} in this page)" if before in PAGE_FACING else ""
        problems = case.problems(run["checks"], run["stdout"], mode)
        if ids != lesson_check_ids():
            problems.append(f"not the lesson's checks: {ids[:4]}... ({len(ids)})")
        expected = "passed" if case.expected_pass(mode) else "failed"
        if run["state"] != expected:
            problems.append(f"the run ended {run['state']}, expected {expected}")
        if flood and run["stdout"].count("\n") >= 300:
            problems.append(f"{run['stdout'].count(chr(10))} lines of output reached the page")
        assert problems == [], f"{problems}{after}"
        # The learner's code is untouched: in the editor, and saved (output_flood's with the
        # line typed during its run).
        saved = page.evaluate("JSON.parse(localStorage.getItem('tp-course:/:lesson:tp-mlp')).code")
        for text in (editor_text(page), saved):
            lines = text.splitlines()
            assert (TYPED in lines) is flood
            assert "\n".join(line for line in lines if line != TYPED).strip() == case.source.strip()
    assert page.errors == [], page.errors


@pytest.mark.parametrize("isolation", ["isolated"], indirect=True)
@pytest.mark.parametrize("name", ISOLATED)
def test_isolated_page(name, isolation, session_page, set_code, run_checks, editor_text,
                       screenshot, request):
    if (name, isolation) in KNOWN_HANGS:
        pytest.xfail(KNOWN_HANGS[name, isolation])
    grade_case(name, isolation, session_page, set_code, run_checks, editor_text, screenshot, request)


@pytest.mark.parametrize("isolation", ["isolated"], indirect=True)
def test_code_survives_crashes_stop_and_reload(isolation, session_page, set_code, editor_text):
    """After the catalogue's crashes in this page (each case checks its code is still in the
    editor and saved), a runaway loop stopped with Stop, then a reload: the code is there. Last in
    its mode: it reloads the catalogue's page, and holds its Python back (saving and restoring
    the code need none)."""
    page = session_page
    runaway = f"# my unsaved-looking work {time.time()}\n" + STARTER + "\nwhile True:\n    pass\n"
    set_code(page, runaway)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li[data-status=running]")
    page.get_by_role("button", name="Stop", exact=True).click()
    page.wait_for_selector("#run-status[data-state=stopped]", timeout=30_000)
    assert editor_text(page).strip() == runaway.strip()

    page.route(PYTHON_WORKER_SCRIPT, lambda route: route.fulfill(response=route.fetch(), body=""))
    page.reload()
    page.wait_for_selector("#editor .cm-line")
    assert editor_text(page).strip() == runaway.strip()
    page.unroute_all(behavior="ignoreErrors")


@pytest.mark.parametrize("isolation", ["plain"], indirect=True)
@pytest.mark.parametrize("name", PLAIN)
def test_plain_page(name, isolation, session_page, set_code, run_checks, editor_text, screenshot,
                    request):
    if (name, isolation) in KNOWN_HANGS:
        pytest.xfail(KNOWN_HANGS[name, isolation])
    grade_case(name, isolation, session_page, set_code, run_checks, editor_text, screenshot, request)
