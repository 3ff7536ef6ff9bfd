"""What keeps Runs and Stop from waiting for Python to boot, counted (never timed): a Run that
takes a spare worker starts the next one once its result shows (never while it grades), and
Stop hands the next Run a worker that was started before Stop was pressed. Speed itself is
measured by bench/site_bench.py."""
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
    # result shows.
    page.wait_for_function("n => JSON.parse(sessionStorage.getItem('test:boots')).length >= n",
                           arg=logged + 2, timeout=READY_TIMEOUT_MS)
    assert boots(page)[logged:] == ["verdict", role]

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
    assert page.errors == []
