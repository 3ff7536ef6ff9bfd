"""The site on any static host, in real Chromium: the service worker makes a plain host (no
COOP/COEP) cross-origin isolated after one visit, with V8's wasm code cache still used, and
every page loads and grades offline; on a plain host without it, a looping solution's report is
the one the isolated host gives, and Stop works while Python restarts (and while it warms up:
test_lesson_page.py).

The service-worker tests make their own contexts and servers (the shared ones block service
workers, so that "plain" stays plain for the other suites)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogue import CHECK_SECONDS, copy_lesson  # noqa: E402  (tests/hardening, on the path through conftest)
from conftest import (LESSON, READY_TIMEOUT_MS, RECORD_WORKERS, RUN_TIMEOUT_MS, ROOT, open_ready_page,
                      wait_for_service_worker, workers)

from sitebuild.serve import serve_in_thread
from sitebuild.testing import shared_folder, shared_site

REFERENCE = (ROOT / "lessons" / LESSON / "reference.py").read_text()
LESSON_PATH = f"lessons/{LESSON}/index.html"
WHILE_TRUE_AT_LOAD = "while True:\n    pass\n"


def with_loops(reference: str) -> str:
    """The reference, with shard_mlp looping for one GPU and gelu for a plain float: the checks
    that call them so time out, every other check passes."""
    src = reference.replace("def shard_mlp(A, B, n):\n", "def shard_mlp(A, B, n):\n    while n == 1:\n        pass\n", 1)
    src = src.replace("def gelu(x):\n", "def gelu(x):\n    while isinstance(x, float):\n        pass\n", 1)
    assert src.count("while ") >= 2, "the reference's function headers changed: update with_loops"
    return src


@pytest.fixture
def sw_context(browser):
    """A context that allows service workers (a learner's browser)."""
    context = browser.new_context(viewport={"width": 1400, "height": 950}, service_workers="allow")
    yield context
    context.close()


def open_lesson(context, url: str):
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and page.errors.append(f"console: {m.text}"))
    page.add_init_script(RECORD_WORKERS)
    page.goto(url)
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    return page


def reload_ready(page):
    page.reload()
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)


def grade_reference(page, set_code, run_checks):
    set_code(page, REFERENCE)
    return run_checks(page)


def wasm_deserialized(browser, page, load) -> int:
    """How often V8 took compiled wasm from its code cache while `load()` ran."""
    browser.start_tracing(page=page, categories=["v8.wasm"])
    load()
    events = json.loads(browser.stop_tracing())["traceEvents"]
    return sum(e.get("name") == "wasm.Deserialize" for e in events)


def test_a_plain_host_is_isolated_once_the_service_worker_runs_then_works_offline(
        browser, sw_context, built_site, set_code, run_checks):
    """One learner on a plain host: the first visit registers the service worker and reloads
    into isolation at once, with V8's wasm code cache still used on later loads; with
    the host gone and the browser offline, the lesson loads and grades, and the home page leads
    to it."""
    server, url = serve_in_thread(built_site, isolated=False)
    try:
        # The first visit registers the service worker and reloads through it before Python
        # starts: the only workers it ever starts are the isolated page's.
        page = open_lesson(sw_context, url + LESSON_PATH)
        assert page.evaluate("crossOriginIsolated") is True
        assert page.evaluate("!!navigator.serviceWorker.controller")
        assert {w["role"] for w in workers(page)} == {"grader", "learner"}, workers(page)
        assert page.locator("#shared-interpreter").is_hidden()
        wait_for_service_worker(page)
        # (Stop in an isolated page, the learner worker swapped and the grader going on, is
        # test_lesson_page.py's: isolation by headers or by this service worker is the same
        # page from then on.)

        # The worker rewraps only the page and the worker script: the wasm stays code-cached.
        wasm_deserialized(browser, page, lambda: reload_ready(page))  # this load writes the cache
    finally:
        server.shutdown()
        server.server_close()

    # The host gone, offline: the next load takes the wasm from the code cache all the same.
    sw_context.set_offline(True)
    assert wasm_deserialized(browser, page, lambda: reload_ready(page)) >= 1
    assert page.evaluate("crossOriginIsolated") is True
    state, text = grade_reference(page, set_code, run_checks)
    assert state == "passed", text
    # Every other lesson, "Next" after "Next" in the same page (its Python moving along): each
    # page and lesson.zip comes from the service worker's cache.
    before = len(workers(page))
    while (following := page.locator("nav.lesson-nav a[rel=next]")).count():
        slug = following.get_attribute("href").split("/")[1]
        following.click()
        page.wait_for_url(f"**/lessons/{slug}/index.html")
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    assert page.evaluate("JSON.parse(document.getElementById('lesson-config').textContent).lesson.id") == slug
    assert run_checks(page)[0] == "failed"  # the last lesson's starter, graded offline
    # No boot per lesson: at most the spares the page keeps (a second one once the learner in
    # use has run code, which grade_reference's Run did) and the one the last Run asked for.
    assert len(workers(page)) - before <= 2, workers(page)
    # The home page too, and the lesson from it (its Python loading offline is the reload's above).
    page.goto(url + "index.html")
    page.locator(f"a[href=\"{LESSON_PATH}\"]").first.click()
    page.wait_for_url(f"**/{LESSON_PATH}")
    page.wait_for_selector("#editor .cm-line")
    assert page.evaluate("JSON.parse(document.getElementById('lesson-config').textContent).lesson.id") == LESSON
    assert page.errors == []


def report_statuses(report: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}


# The tests that run into time limits on purpose do it on a copy of tp-mlp whose checks have
# CHECK_SECONDS each instead of tp-mlp's 5 s, and whose whole run has far more than any run here
# takes on a loaded machine: the runs that follow a limit must grade every other check, and
# within the hardening copy's 10 s a plain host's run (each attempt charged its grading) once
# ran out on a machine loaded fifteen-fold, cutting the report short.
LIMIT = f"after {CHECK_SECONDS:g} s"


@pytest.fixture(scope="module")
def loops_lesson(tmp_path_factory) -> Path:
    return shared_folder(tmp_path_factory, "loop-limits-lessons", lambda folder: copy_lesson(
        ROOT / "lessons" / LESSON, folder / LESSON, whole=True, total_seconds=600)) / LESSON


@pytest.fixture(scope="module")
def loops_url(tmp_path_factory, loops_lesson, isolation, context) -> str:
    """That lesson's page on a site of its own, served as the isolation mode's site is (its
    checks are tp-mlp's, which the shared build runs `lessonkit check` on: not again here)."""
    site = shared_site(tmp_path_factory, loops_lesson.parent, check=False)
    server, url = serve_in_thread(site, isolated=isolation == "isolated")
    yield f"{url}lessons/{LESSON}/index.html"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def cpython_loop_report(loops_lesson):
    from lessonkit import grade, load_lesson
    return grade(load_lesson(loops_lesson), with_loops(REFERENCE)).to_dict()


def test_a_looping_solution_costs_one_time_limit_per_loop_and_gets_the_same_report_on_any_host(
        context, loops_url, set_code, run_checks, cpython_loop_report, isolation):
    """with_loops: gelu's first check (plain floats) runs into its limit; every later check that
    calls gelu, tp_mlp's included (tp_mlp calls gelu), is skipped at once and says why, as is
    every later call of shard_mlp for one GPU after the first ran out; every other check passes.
    Each limit ends the worker running the loop (isolated: the learner worker, and the grader
    goes on; plain: the single worker, and the run is graded again in a spare that skips the
    function), and the report is the one CPython gives, with the lesson's limit, never 0 (restart
    time is not charged to the run). One page and one Run for both loops: a Run on a plain host
    costs a Python boot per limit."""
    assert "def gelu(x):\n" in REFERENCE
    page = open_ready_page(context, loops_url)
    try:
        assert not [w for w in workers(page) if w["ended"]]
        set_code(page, with_loops(REFERENCE))
        state, text = run_checks(page, timeout=3 * RUN_TIMEOUT_MS)
        assert state == "failed", text
        # One time limit per looping function, not one per check that reaches it: one worker
        # ended by each (and, plain, the spare the run then finished in, used up).
        ended = [w["role"] for w in workers(page) if w["ended"]]
        assert ended == (["single"] * 3 if isolation == "plain" else ["learner"] * 2), workers(page)
        report = page.evaluate("window.__reports")[-1]
        assert report_statuses(report) == report_statuses(cpython_loop_report)
        assert not [c for c in report["checks"] if "after 0 s" in c["message"]]
        ran_out = [c for c in report["checks"] if c["status"] == "timeout" and "Skipped" not in c["message"]]
        assert [c["id"] for c in ran_out] == ["test_gelu::test_python_floats", ran_out[1]["id"]], ran_out
        assert ran_out[1]["id"].startswith("test_shard_mlp::"), ran_out
        assert ran_out[0]["message"].startswith(f"gelu was still running {LIMIT}"), ran_out[0]["message"]
        assert LIMIT in ran_out[1]["message"], ran_out[1]["message"]
        for check in report["checks"]:
            cid = check["id"]
            if check in ran_out:
                continue
            if cid.startswith("test_gelu::"):
                assert check["status"] == "timeout" and check["message"].startswith(
                    "Skipped: gelu ran out of time above, in \u201cgelu works on plain Python floats"), check
            elif cid.startswith("test_tp_mlp::"):
                assert check["status"] == "timeout" and check["message"].startswith(
                    "Skipped: your tp_mlp calls gelu, which ran out of time above"), check
            elif check["status"] == "timeout":
                assert cid.startswith("test_shard_mlp::") and check["message"].startswith(
                    "Skipped: shard_mlp ran out of time above"), check
            else:
                assert check["status"] == "passed", check
        # The page shows that report: the checks that ran out, the skipped ones folded under
        # the first of their kind.
        shown = page.locator("#results .check[data-status=timeout]")
        assert shown.count() == sum(c["status"] == "timeout" for c in report["checks"])
        assert "gelu was still running" in page.locator(
            '#results .check[data-check="test_gelu::test_python_floats"] .check-message').inner_text()
        assert page.errors == []
    finally:
        page.close()


# With isolation a time limit ends only the learner worker: the grader goes on, nothing restarts.
@pytest.mark.parametrize("isolation", ["plain"], indirect=True)
def test_stop_while_python_restarts_after_a_time_limit(context, loops_url, set_code, run_checks, isolation):
    """Plain host: Stop pressed right after a time limit ended the worker, while the run goes on
    in the next one (a page of its own, with no spare ready yet: with one the run would be over
    before Stop)."""
    page = open_ready_page(context, loops_url)
    set_code(page, WHILE_TRUE_AT_LOAD)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function("window.__workers.some((w) => w.ended)", timeout=RUN_TIMEOUT_MS, polling=20)
    page.get_by_role("button", name="Stop", exact=True).click()
    assert run_checks(page, how=None)[0] == "stopped"
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    state, text = grade_reference(page, set_code, run_checks)
    assert state == "passed", text
    page.close()
