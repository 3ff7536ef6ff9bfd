"""Learner code against the site itself (issue 26), in real Chromium with the service worker
running, as a learner's browser has it: the solution in site_attacks/take_over_site.py tries to
read the model solution, to put a lesson.zip whose checks all pass and a page that deletes every
lesson's saved code into the service worker's cache (at once and on a timer left running), and to
reach IndexedDB, the origin's file system and a fresh worker. Then a reload, and a deploy of a
new build: a plain wrong solution must still fail with the real checks, and every lesson's saved
code must be intact. On a plain host (no COOP/COEP: the first visit registers the service worker
and reloads into isolation, and the service worker sends the workers' Content-Security-Policy);
on an isolated host only what differs there (the service worker registered once Python is
ready, the host's own policy): the rest is the same learner worker and the same service worker
whatever the host sent.

The first wall is the learner worker's confinement (web/src/worker/confine.js: nothing of the
origin is reachable, which the solution's own REACHED line shows), with the workers'
Content-Security-Policy (no JavaScript made from text, so no dynamic import(): its CODE FROM TEXT
line); the second is integrity (the
service worker serves only bytes that hash to the build's manifest, the worker boot checks the
engine, lesson.zip and the lock file against the page config): tested on its own by writing the
cache from the page, as if the first wall had failed, and by a network that serves a changed
lesson.zip to a page without a service worker.

The attack is graded on a site of tp-mlp alone whose time limits no Run here comes near
(`attack_site`): with the lesson's 5 s, a check that ran past it on a loaded machine lost its
learner worker, and the next check loaded the file again in a fresh one within that check's
limit, which on such a machine ran out again, up to the run's 40 restarts of Python (a run that
once cost 336 s). No verdict here may rest on a time limit being met."""
from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from catalogue import TP_MLP, copy_lesson  # noqa: E402  (tests/hardening, on the path through conftest)
from conftest import (LESSON, READY_TIMEOUT_MS, RECORD_WORKERS, ROOT, SPARES_KEPT, TAKE_NEW_BUILD,
                      wait_for_service_worker)

from sitebuild import hosting
from sitebuild.serve import serve_in_thread
from sitebuild.testing import shared_folder, shared_site

# The tests that use the shared context (service workers blocked) are about a plain host: the
# isolated host's learner worker is the service-worker tests' (it is the same worker there).
ISOLATION_MODES = ["plain"]

ATTACK = (Path(__file__).parent / "site_attacks" / "take_over_site.py").read_text()
ZEROS = (ROOT / "tests" / "hardening" / "cases" / "all_zeros.py").read_text()
PATH = f"lessons/{LESSON}/index.html"
NEW_BUILD_NOTE = "This paragraph is new in the next build."
# Every cached lesson.zip and page, with the sha256 of its bytes (from the page's origin).
CACHED = """async () => {
  const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
  const found = {};
  for (const name of await caches.keys()) {
    if (!name.includes(":build:")) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (!/(lesson\\.zip|index\\.html)$/.test(request.url)) continue;
      const bytes = await (await cache.match(request)).arrayBuffer();
      found[name + " " + new URL(request.url).pathname] = hex(await crypto.subtle.digest("SHA-256", bytes));
    }
  }
  return found;
}"""


def lesson_ids(site: Path) -> list[str]:
    return sorted(p.parent.name for p in (site / "lessons").glob("*/lesson.zip"))


def saved_code(lesson: str) -> str:
    return f"# my own work on {lesson}, not to be lost\n"


def seed_saved_code(page, lessons):
    """Saved code for every lesson, as earlier visits would have left it (web/src/storage.js)."""
    page.evaluate("""(lessons) => { for (const [id, code] of lessons)
      localStorage.setItem(`tp-course:/:lesson:${id}`, JSON.stringify({code, starter: null, savedAt: 1})); }""",
                  [[lesson, saved_code(lesson)] for lesson in lessons])


def assert_saved_code_intact(page, lessons, current_code):
    stored = page.evaluate("""(ids) => ids.map((id) => JSON.parse(localStorage.getItem(`tp-course:/:lesson:${id}`)))""",
                           lessons)
    for lesson, entry in zip(lessons, stored):
        assert entry is not None, f"the saved code of {lesson} is gone"
        assert entry["code"] == (current_code if lesson == LESSON else saved_code(lesson)), lesson


def ready(page):
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)


def titles(page) -> list[str]:
    return page.locator("#results .check-title").all_inner_texts()


def next_build(site: Path, out: Path) -> Path:
    """A new build of `site` as a deploy brings it: one page changed, so the manifest and sw.js
    change (the service worker installs it beside the old one); its compressed copies removed."""
    shutil.copytree(site, out)
    page = out / PATH
    page.write_text(page.read_text().replace("</article>", f"<p>{NEW_BUILD_NOTE}</p></article>", 1))
    # The old sw.js goes first: the manifest lists every file in the folder but the worker's own.
    for stale in (page.with_name(page.name + ".br"), page.with_name(page.name + ".gz"),
                  out / "sw.js", out / "sw.js.br", out / "sw.js.gz"):
        stale.unlink(missing_ok=True)
    hosting.write_service_worker(out)
    return out


def deploy(build: Path, folder: Path):
    """Swaps the served folder for `build` (as test_site_update.py's deploy does)."""
    old = folder.with_name(folder.name + "-old")
    folder.rename(old)
    shutil.copytree(build, folder)
    shutil.rmtree(old)


@pytest.fixture
def sw_context(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 950}, service_workers="allow")
    yield context
    context.close()


@pytest.fixture(scope="module")
def attack_site(tmp_path_factory) -> Path:
    """A built site of tp-mlp alone (no `lessonkit check`: the shared build checks tp-mlp), its
    limits 600 s a check and 1800 s a run: far above anything a Run here takes, however loaded
    the machine (the module's docstring says why)."""
    lessons = shared_folder(tmp_path_factory, "long-limits-lessons", lambda folder: copy_lesson(
        TP_MLP, folder / LESSON, whole=True, check_seconds=600, total_seconds=1800))
    return shared_site(tmp_path_factory, lessons, check=False)


@pytest.fixture
def serve_copy(tmp_path):
    """serve_copy(site, isolated) -> (folder served, its URL): a copy of `site` on a host without
    or with COOP/COEP, shut down after the test."""
    servers = []

    def serve(site: Path, isolated: bool):
        folder = tmp_path / "www"
        shutil.copytree(site, folder)
        server, url = serve_in_thread(folder, isolated=isolated)
        servers.append(server)
        return folder, url
    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def open_page(context, url):
    page = context.new_page()
    page.add_init_script(RECORD_WORKERS)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.goto(url)
    ready(page)
    return page


def run_attack(page, set_code, run_checks):
    """Grades the attack in `page`: it fails, and reached nothing of the origin and no
    JavaScript made from text (the workers' Content-Security-Policy); the cache is as it was."""
    cached_before = page.evaluate(CACHED)
    assert any(key.endswith("/lesson.zip") for key in cached_before)
    set_code(page, ATTACK)
    state, text = run_checks(page)
    assert state == "failed", text  # the model solution was not read
    output = page.locator("#output-text").inner_text()
    assert "REACHED: nothing" in output
    assert "CODE FROM TEXT: nothing" in output
    return cached_before


def test_a_solution_cannot_take_over_the_cache_the_pages_or_the_saved_work(
        sw_context, serve_copy, attack_site, built_site, tmp_path, set_code, run_checks):
    """On a plain host, where the service worker makes the page isolated and sends the workers'
    policy: both walls; then a deploy, and the second wall alone (the cache written from the
    page itself), online and offline. One reload, after the deploy and the writing: a page load
    here costs a Python boot."""
    folder, url = serve_copy(attack_site, isolated=False)
    lessons = lesson_ids(built_site)  # saved work in every lesson of the course
    # The first visit: the page registers the service worker and reloads into isolation before
    # Python starts.
    page = open_page(sw_context, url + PATH)
    assert page.evaluate("crossOriginIsolated")
    assert page.evaluate("!!navigator.serviceWorker.controller")
    assert page.locator("#shared-interpreter").is_hidden()
    wait_for_service_worker(page)
    seed_saved_code(page, lessons)
    cached_before = run_attack(page, set_code, run_checks)
    # "Try with my code" runs the same file in the learner worker, as a widget's call list.
    page.get_by_role("button", name="Try with my code").first.click()
    verdict = page.wait_for_selector("[data-testid=learner-verdict]", timeout=READY_TIMEOUT_MS)
    assert verdict.get_attribute("data-verdict") != "match"
    assert page.evaluate(CACHED) == cached_before  # nothing written, by the runs or their timers

    # A deploy of a new build, then the second wall alone: the cache (the new build's too)
    # written from the page's own origin, as if learner code had reached it. The reload gets the
    # build's real files back from the network.
    page.wait_for_function(SPARES_KEPT, timeout=READY_TIMEOUT_MS)  # a quiet page: TAKE_NEW_BUILD
    deploy(next_build(attack_site, tmp_path / "next"), folder)
    page.evaluate(TAKE_NEW_BUILD)
    page.evaluate(POISON, [list(passing_lesson_zip(attack_site)), TAKEN_OVER])
    page.reload()
    ready(page)
    assert page.title() != "taken over"
    assert NEW_BUILD_NOTE in page.locator("#prose").inner_text()
    set_code(page, ZEROS)
    state, text = run_checks(page)
    assert state == "failed", text
    assert "Everything is fine" not in titles(page)
    assert_saved_code_intact(page, lessons, ZEROS)
    assert page.errors == []

    # Offline, the cache written again: the page says which file is wrong instead of grading
    # with it.
    page.evaluate(POISON, [list(passing_lesson_zip(attack_site)), TAKEN_OVER])
    sw_context.set_offline(True)
    page.goto(url + PATH)
    assert page.title() != "taken over"
    assert "changed in this browser's storage" in page.content()
    assert_saved_code_intact(page, lessons, ZEROS)


def test_on_an_isolated_host_the_attack_meets_the_hosts_policy(sw_context, serve_copy, attack_site, set_code,
                                                               run_checks):
    """An isolated host: the page is isolated without the service worker, registers it once
    Python is ready, and the workers' Content-Security-Policy is the host's. Only this differs
    from the plain host above: the learner worker's confinement, the service worker's integrity
    check and its update are the same code whatever the host sent."""
    _, url = serve_copy(attack_site, isolated=True)
    page = open_page(sw_context, url + PATH)
    assert page.evaluate("crossOriginIsolated")
    assert not page.evaluate("!!navigator.serviceWorker.controller")
    assert page.locator("#shared-interpreter").is_hidden()
    wait_for_service_worker(page)
    cached_before = run_attack(page, set_code, run_checks)
    assert page.evaluate(CACHED) == cached_before
    assert page.errors == []


def passing_lesson_zip(site: Path) -> bytes:
    """tp-mlp's lesson.zip with every check replaced by one that passes."""
    out = io.BytesIO()
    with zipfile.ZipFile(site / "lessons" / LESSON / "lesson.zip") as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("checks/test_") and info.filename.endswith(".py"):
                data = b'def test_fine():\n    """Everything is fine"""\n'
            dst.writestr(info, data)
    return out.getvalue()


POISON = """async ([zip, page]) => {
  for (const name of await caches.keys()) {
    if (!name.includes(":build:")) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (request.url.endsWith("/lesson.zip")) await cache.put(request, new Response(new Uint8Array(zip)));
      else if (request.url.endsWith("/index.html")) await cache.put(request, new Response(page, {headers: {"Content-Type": "text/html"}}));
    }
  }
}"""
TAKEN_OVER = ("<!doctype html><title>taken over</title><script>"
              "for (const key of Object.keys(localStorage)) localStorage.removeItem(key);</script>")


def test_the_worker_unpacks_no_changed_lesson(page, lesson_url, built_site):
    """Without a service worker (the shared context blocks it), a network that serves a changed
    lesson.zip: Python does not start with it, and the page says which file is wrong (one host:
    the check is the worker's, before any grading)."""
    changed = passing_lesson_zip(built_site)
    page.route(f"**/lessons/{LESSON}/lesson.zip", lambda route: route.fulfill(
        status=200, body=changed, headers={"Content-Type": "application/zip"}))
    page.goto(lesson_url)
    page.wait_for_selector("#python-progress[data-state=failed]", timeout=READY_TIMEOUT_MS)
    assert "lesson.zip" in page.locator("#python-progress").inner_text()
    assert page.locator("#run-status").get_attribute("data-state") == "error"


def test_without_a_service_worker_the_attack_reaches_nothing_either(page, serve_copy, attack_site, set_code,
                                                                      run_checks):
    """The shared context blocks service workers: on the plain host the single worker (grader and
    learner in one interpreter, which the page says in a line) is confined as the learner worker
    is (the isolated page's learner worker: the tests above). A plain host sends no
    Content-Security-Policy and no service worker adds one, so eval runs there, in the same
    confined scope (docs/threat-model.md)."""
    _, url = serve_copy(attack_site, isolated=False)
    page.goto(url + PATH)
    ready(page)
    assert page.locator("#shared-interpreter").is_visible()
    set_code(page, ATTACK)
    state, text = run_checks(page)
    assert state == "failed", text
    assert "REACHED: nothing" in page.locator("#output-text").inner_text()
