"""Fixtures for the end-to-end suites: one build and one Chromium per session, the site served
twice (with COOP/COEP, so cross-origin isolated, and without, like a plain static host), and
helpers that drive a lesson page the way a learner does.

Fixtures: built_site, isolation, site_url, lesson_url, browser, context, page, lesson_page,
short_limits_lesson and short_limits_url (tp-mlp with short time limits),
python_ready, editor_text, run_checks, screenshot (set_code: tests/conftest.py); RECORD_WORKERS and `workers(page)`
for what the page did with its Python workers; RECORD_BOOTS and `boots(page)` for every Python
worker the tab started, across page loads. Every test that uses site_url (directly or
through page/lesson_page) runs once per isolation mode.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hardening"))

from catalogue import TP_MLP, copy_lesson
from sitebuild.serve import serve_in_thread
from sitebuild.testing import shared_folder, shared_site

from python_loading import HoldBack

playwright_api = pytest.importorskip("playwright.sync_api")

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
LESSON = "tp-mlp"
# Loading Pyodide, numpy and pytest on a 2-core machine takes seconds; a restart after a time
# limit adds the same again.
READY_TIMEOUT_MS = 90_000
RUN_TIMEOUT_MS = 90_000
FINAL_STATES = ("passed", "failed", "error", "stopped")
# Every Python worker the page starts, as {role, ready, ended} in the order started (an init script:
# add it before the page loads). Roles: "grader" and "learner" cross-origin isolated (learner
# code never runs in the grader), "single" otherwise.
RECORD_WORKERS = """
window.__workers = [];
window.__gradingsSent = 0;
const PageWorker = window.Worker;
window.Worker = class extends PageWorker {
  constructor(...args) {
    super(...args);
    this.__record = { role: null, ready: false, ended: false, used: false };
    window.__workers.push(this.__record);
    this.addEventListener("message", ({ data }) => {
      if (data && data.type === "ready") this.__record.ready = true;
    });
  }
  postMessage(message, ...rest) {
    if (message && message.type === "init") this.__record.role = message.role;
    // Learner code ran here: a learner's request after the page's first grading (the warm-up,
    // which runs the starter through it) or a widget's calls; any grading in a single worker.
    if (message && message.type === "grade" && this.__record.role !== "learner") window.__gradingsSent += 1;
    if (message && ((this.__record.role === "learner" && message.type === "request" && window.__gradingsSent > 1)
                    || message.type === "run-example" || (message.type === "grade" && this.__record.role === "single"))) {
      this.__record.used = true;
    }
    return super.postMessage(message, ...rest);
  }
  terminate() {
    this.__record.ended = true;
    return super.terminate();
  }
};
"""

# The page keeps every worker it means to, all booted (RECORD_WORKERS' records): isolated, the
# grader, the learner in use and one spare learner, two once learner code ran in the one in use
# (learner-channel.js); plain, the single worker and one spare. Until then a spare may start at
# any moment the page is idle: a test that counts the boots a step causes waits for this first.
SPARES_KEPT = """() => { const live = window.__workers.filter((w) => !w.ended);
  if (!live.every((w) => w.ready)) return false;
  if (live.some((w) => w.role === "single")) return live.length === 2;
  return live.length === 3 + (live.some((w) => w.role === "learner" && w.used) ? 1 : 0); }"""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)
        # A module whose tests share one page per isolation mode (`per_isolation_group`): the
        # tests of each mode go to one test worker, the two modes to either.
        group = item.get_closest_marker("per_isolation_group")
        callspec = getattr(item, "callspec", None)
        if group and callspec and "isolation" in callspec.params:
            item.add_marker(pytest.mark.xdist_group(f"{group.args[0]}-{callspec.params['isolation']}"))


# Every Python worker started in this tab, by role, and "verdict" each time a Run's result shows,
# in order and across page loads (sessionStorage): a page that reloaded to show another lesson
# would log its new workers here (an init script, like RECORD_WORKERS).
RECORD_BOOTS = """
(() => {
  const log = (entry) => {
    const all = JSON.parse(sessionStorage.getItem("test:boots") || "[]");
    all.push(entry);
    sessionStorage.setItem("test:boots", JSON.stringify(all));
  };
  const BootingWorker = window.Worker;
  window.Worker = class extends BootingWorker {
    postMessage(message, ...rest) {
      if (message && message.type === "init") log(message.role);
      return super.postMessage(message, ...rest);
    }
  };
  let last = null;
  new MutationObserver(() => {
    const state = document.getElementById("run-status")?.dataset.state;
    if (state !== last && ["passed", "failed", "error"].includes(state)) log("verdict");
    last = state;
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
})();
"""


def boots(page) -> list[str]:
    """The tab's log of RECORD_BOOTS: worker roles as they started, and "verdict"s."""
    return page.evaluate("JSON.parse(sessionStorage.getItem('test:boots') || '[]')")


# Every report the page receives from a worker (the warm-up's included), as it arrives (an init
# script, like RECORD_WORKERS).
RECORD_REPORTS = """
window.__reports = [];
const ReportingWorker = window.Worker;
window.Worker = class extends ReportingWorker {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", ({ data }) => {
      if (data && data.type === "report") window.__reports.push(data.report);
    });
  }
};
"""
WAIT_FOR_SERVICE_WORKER = """async (ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((f) => setTimeout(f, 250))) {
    const r = await navigator.serviceWorker.getRegistration();
    if (r && r.active && r.active.state === "activated") return true;
  }
  return false;
}"""


# Asks for the server's sw.js now (as the browser does on a later visit) and waits until the new
# build's worker has installed and taken over the page. Only on a quiet page (SPARES_KEPT, or its
# workers counted booted): Chrome parks a new worker in "waiting" when requests reach the old one
# as it would take over, for up to five minutes (requests for 3 s while it installs: still
# waiting after 60 s, 3 times of 3; none: it takes over in 0.5 s), and a spare learner booting
# fetches dozens.
TAKE_NEW_BUILD = """async () => {
  const taken = new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve));
  await (await navigator.serviceWorker.getRegistration()).update();
  await taken;
}"""


def wait_for_service_worker(page):
    """Until the service worker the page registered has installed the site and activated."""
    assert page.evaluate(WAIT_FOR_SERVICE_WORKER, READY_TIMEOUT_MS), "the service worker did not activate"


def workers(page) -> list[dict]:
    """The Python workers the page has started so far (see RECORD_WORKERS)."""
    return page.evaluate("window.__workers")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory)


@pytest.fixture(scope="session", params=["isolated", "plain"])
def isolation(request) -> str:
    """"isolated": served with COOP/COEP; "plain": without, like most static hosts."""
    return request.param


@pytest.fixture(scope="session")
def site_url(built_site, isolation) -> str:
    server, url = serve_in_thread(built_site, isolated=isolation == "isolated")
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def lesson_url(site_url) -> str:
    return f"{site_url}lessons/{LESSON}/index.html"


@pytest.fixture(scope="session")
def short_limits_lesson(tmp_path_factory) -> Path:
    """The hardening copy of tp-mlp (tests/hardening/catalogue.py: its time limits a fraction of
    the real ones), made once per session: for the tests that run into a time limit on purpose."""
    return shared_folder(tmp_path_factory, "short-limits-lessons",
                         lambda folder: copy_lesson(TP_MLP, folder / LESSON, whole=True)) / LESSON


@pytest.fixture(scope="session")
def short_limits_url(tmp_path_factory, short_limits_lesson, isolation, context) -> str:
    """That lesson's page on a site of its own, served as the isolation mode's site is (its
    clipboard allowed in `context`, as the site's is)."""
    # Its checks are tp-mlp's, which the shared build runs `lessonkit check` on: not again here.
    site = shared_site(tmp_path_factory, short_limits_lesson.parent, check=False)
    server, url = serve_in_thread(site, isolated=isolation == "isolated")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
    yield f"{url}lessons/{LESSON}/index.html"
    server.shutdown()
    server.server_close()


def clear_storage(page, url: str):
    """Empties the localStorage of `url`'s site through the DevTools protocol: no page of the
    site has to load for it (a load costs a test more CPU than anything else it skips)."""
    parts = urlsplit(url)
    session = page.context.new_cdp_session(page)
    session.send("Storage.clearDataForOrigin",
                 {"origin": f"{parts.scheme}://{parts.netloc}", "storageTypes": "local_storage"})
    session.detach()


def goto_cleared(page, url: str):
    """Opens `url` in `page`, the localStorage of its site cleared first."""
    clear_storage(page, url)
    page.goto(url)


def open_ready_page(context, url: str, ready: bool = True, scripts: tuple[str, ...] = ()):
    """A new tab on the lesson page `url`, the site's storage cleared first, Python ready (or,
    `ready=False`, still loading), its workers, boots and reports recorded (RECORD_WORKERS,
    RECORD_BOOTS, RECORD_REPORTS, and any init `scripts`) and uncaught exceptions in
    `page.errors`: for a module's tests that share one page (a page's Python costs a test more
    than the rest of it)."""
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.add_init_script(RECORD_WORKERS)
    page.add_init_script(RECORD_REPORTS)
    page.add_init_script(RECORD_BOOTS)
    for script in scripts:
        page.add_init_script(script)
    goto_cleared(page, url)
    if ready:
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    return page


@pytest.fixture(scope="session")
def context(browser, site_url):
    """One browser context per isolation mode: its HTTP cache makes every page after the first
    a warm load. Tests start from empty storage (see `page`). Service workers are blocked, so
    "plain" stays a plain host (the worker would make it isolated); test_hosting.py tests them."""
    context = browser.new_context(viewport={"width": 1400, "height": 950}, service_workers="block")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    yield context
    context.close()


@pytest.fixture
def page(request, context, site_url):
    """A fresh blank tab, the site's localStorage cleared and errors collected in
    `page.errors` (uncaught exceptions and console errors); Python held back if the test is
    marked `python_loading` (tests/python_loading.py)."""
    page = context.new_page()
    hold = HoldBack(request)
    hold.apply(page)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and page.errors.append(f"console: {m.text}"))
    clear_storage(page, site_url)
    yield page
    hold.finish()
    page.close()


@pytest.fixture
def lesson_page(page, lesson_url):
    """The tp-mlp lesson open in a fresh tab (Python still loading), its workers and reports
    recorded (RECORD_WORKERS, RECORD_REPORTS)."""
    page.add_init_script(RECORD_WORKERS)
    page.add_init_script(RECORD_REPORTS)
    page.goto(lesson_url)
    return page


@pytest.fixture
def python_ready():
    def wait(page, timeout=READY_TIMEOUT_MS):
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=timeout)
    return wait


@pytest.fixture
def editor_text():
    """The editor's whole text, as the learner gets it with select-all and copy (CodeMirror
    renders only the lines near the visible ones, so the DOM does not hold it all)."""
    def text(page) -> str:
        page.locator(".cm-content").focus()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.press("ControlOrMeta+c")
        return page.evaluate("navigator.clipboard.readText()")
    return text


@pytest.fixture
def run_checks():
    """Presses Run (or the key `how` in the editor), waits for a final state; returns
    (state, status text)."""
    def run(page, how="button", timeout=RUN_TIMEOUT_MS):
        if how == "button":
            page.get_by_role("button", name="Run", exact=True).click()
        elif how is not None:  # a key, pressed in the editor; None: already started
            page.locator(".cm-content").focus()
            page.keyboard.press(how)
        status = page.get_by_role("status", name="Run status")
        page.wait_for_function(
            "s => s.includes(document.getElementById('run-status').dataset.state)",
            arg=list(FINAL_STATES), timeout=timeout)
        return status.get_attribute("data-state"), status.inner_text()
    return run


@pytest.fixture
def screenshot(isolation):
    """Saves a screenshot as artifacts/screenshots/NAME-MODE.png (git-ignored)."""
    def shoot(page, name: str, full_page=False):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
        path = SCREENSHOTS / f"{safe}-{isolation}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path
    return shoot
