"""What keeps Runs and Stop from waiting for Python to boot, counted (never timed): a Run that
takes a spare worker starts the next one once its result shows (never while it grades; while
another booted spare is kept, only once the page is idle, so a Run back to back grades with
no boot beside it), and
Stop hands the next Run a worker that was started before Stop was pressed, and "Next" finds
the next lesson's page and files fetched ahead. Speed itself is measured by
bench/site_bench.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import READY_TIMEOUT_MS, RECORD_BOOTS, RECORD_WORKERS, boots, goto_cleared

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "lessons" / "tp-mlp" / "reference.py").read_text()
# Loads, then loops in the first check that calls gelu (the page's Stop ends it).
LOOPING_GELU = REFERENCE.replace("def gelu(x):\n", "def gelu(x):\n    while True:\n        pass\n", 1)

# Which of the page's workers (in RECORD_WORKERS' order) ran a learner's code: a learner worker
# that got a request, or a single worker that got a grading.
RECORD_SERVED = """
window.__served = [];
// Each grading sent to a worker: how many of the page's workers were booting then, and how
// long the page had been without a Run by then (since the last verdict shown).
window.__gradings = [];
window.__verdictAt = null;
new MutationObserver(() => {
  const state = document.getElementById("run-status")?.dataset.state;
  if (["passed", "failed", "error", "stopped"].includes(state)) window.__verdictAt ??= performance.now();
  else window.__verdictAt = null;
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
const ServingWorker = window.Worker;
window.Worker = class extends ServingWorker {
  constructor(...args) {
    super(...args);
    this.__index = window.__workers.length - 1;
  }
  postMessage(message, ...rest) {
    if (message && (message.type === "request" || (message.type === "grade" && this.__record.role === "single"))) {
      window.__served.push(this.__index);
    }
    if (message && message.type === "grade" && this.__record.role !== "learner") {
      window.__gradings.push({
        booting: window.__workers.filter((w) => !w.ended && !w.ready).length,
        idleMs: window.__verdictAt === null ? null : performance.now() - window.__verdictAt,
      });
    }
    return super.postMessage(message, ...rest);
  }
};
"""
# Every worker the page keeps is booted (at least n): grader, learner and its spares (isolated),
# or the single worker and its spare (plain).
ALL_BOOTED = """n => { const live = window.__workers.filter((w) => !w.ended);
                       return live.length >= n && live.every((w) => w.ready); }"""


@pytest.fixture
def speed_page(context, lesson_url):
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.requested = []  # every URL the page fetched (the service worker answers most)
    page.on("request", lambda r: page.requested.append(r.url))
    page.add_init_script(RECORD_WORKERS)
    page.add_init_script(RECORD_BOOTS)
    page.add_init_script(RECORD_SERVED)  # after RECORD_WORKERS: it reads its records
    goto_cleared(page, lesson_url)
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    yield page
    page.close()


def test_spares_start_after_a_result_and_stop_hands_over_one_started_before(
        speed_page, set_code, run_checks, isolation):
    page = speed_page
    # Isolated: one spare learner while the learner in use is clean, two once it ran code.
    role, kept = ("learner", [3, 4]) if isolation == "isolated" else ("single", [2, 2])
    set_code(page, REFERENCE)
    for n in kept:
        page.wait_for_function(ALL_BOOTED, arg=n, timeout=READY_TIMEOUT_MS)
        logged = len(boots(page))
        assert run_checks(page)[0] == "passed"
    # The second Run took a spare (isolated: its learner had run the first Run's code; plain:
    # the single worker that graded is replaced after each Run). No worker started while it
    # graded (a boot would have shared the CPU with it); its replacement starts once the
    # result shows (isolated: once the page is idle, since the other spare is booted).
    if isolation == "isolated":
        # Back to back: a Run pressed the moment the last one's result shows takes the other
        # spare and grades while nothing boots (unless the page had been idle past the
        # spares' idle delay, 2 s, before the click came: then one may have started).
        assert run_checks(page)[0] == "passed"
        grading = page.evaluate("window.__gradings")[-1]
        assert grading["booting"] == 0 or grading["idleMs"] >= 2000, grading
        settled = ["verdict", "verdict", role] if grading["booting"] == 0 else ["verdict", role, "verdict"]
    else:
        settled = ["verdict", role]
    page.wait_for_function("n => JSON.parse(sessionStorage.getItem('test:boots')).length >= n",
                           arg=logged + len(settled), timeout=READY_TIMEOUT_MS)
    assert boots(page)[logged:logged + len(settled)] == settled

    page.wait_for_function(ALL_BOOTED, arg=kept[-1], timeout=READY_TIMEOUT_MS)
    set_code(page, LOOPING_GELU)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li[data-status=running]", timeout=READY_TIMEOUT_MS)
    started_before_stop = len(page.evaluate("window.__workers"))
    page.get_by_role("button", name="Stop", exact=True).click()
    page.wait_for_selector("#run-status[data-state=stopped]", timeout=READY_TIMEOUT_MS)
    set_code(page, REFERENCE)
    assert run_checks(page)[0] == "passed"
    served = page.evaluate("window.__served")[-1]
    assert served < started_before_stop, \
        "the Run after Stop ran in a worker started (and booted) before Stop was pressed"

    # The next lesson's page and lesson.zip were fetched while this page was idle: "Next"
    # fetches neither, and Python moves to it without a boot.
    moved_to = ("/fg-backward/index.html", "/fg-backward/lesson.zip")
    fetched_ahead = lambda: {u for u in moved_to if any(url.endswith(u) for url in page.requested)}  # noqa: E731
    for _ in range(READY_TIMEOUT_MS // 100):  # a second after ready, whatever the machine's load
        if fetched_ahead() == set(moved_to):
            break
        page.wait_for_timeout(100)
    assert fetched_ahead() == set(moved_to)
    # Every spare is kept and booted again (the Run's replacement starts once the page is idle, a
    # moment that may come after a click on a loaded machine): whatever starts now, the move did.
    page.wait_for_function(ALL_BOOTED, arg=kept[-1], timeout=READY_TIMEOUT_MS)
    asked, logged = len(page.requested), len(boots(page))
    page.locator('nav.lesson-nav a[rel="next"]').click()
    page.wait_for_function("() => document.querySelector('script#lesson-config')"
                           "?.textContent.includes('fg-backward')", timeout=READY_TIMEOUT_MS)
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    assert [url for url in page.requested[asked:] if url.endswith(moved_to)] == []
    assert len(boots(page)) == logged
    if isolation == "isolated":  # (the spares of both hosts start alike: one host shows it)
        # A spare started after the move (the replacement of the learner this Run uses) is
        # handed the lesson.zip the move fetched: it downloads it no more than the move did.
        set_code(page, (ROOT / "lessons" / "fg-backward" / "reference.py").read_text())
        assert run_checks(page)[0] == "passed"
        page.wait_for_function(ALL_BOOTED, arg=kept[-1], timeout=READY_TIMEOUT_MS)
        assert boots(page)[logged:] == ["verdict", role]
        assert [url for url in page.requested[asked:] if url.endswith(moved_to)] == []
    assert page.errors == []
