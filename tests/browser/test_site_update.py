"""A new build deployed while a lesson page is open, in real Chromium: the service worker takes
the new build in, yet the open page keeps getting the files of the build it opened with (the
engine, lesson.zip, pyodide/ and model-solution.py have fixed names: a mix would grade the old
page's code against the new checks), and the next page opened gets the new build.

Build B is tp-mlp with one check retitled, a line of prose and a comment in the model solution.
The host says `Cross-Origin-Embedder-Policy: unsafe-none`, so the service worker leaves the page
not cross-origin isolated, where every Run grades in a fresh Python worker (the spare, started
ahead) that fetches everything again: when one started after the deploy grades, a mix would
show. (No time limit is involved: a Run of the reference that ran into one on a loaded machine
restarted Python per limit, which once cost this test 340 s.)"""
from __future__ import annotations

import functools
import shutil
import threading

import pytest

from conftest import (LESSON, READY_TIMEOUT_MS, RECORD_WORKERS, ROOT, TAKE_NEW_BUILD, wait_for_service_worker,
                      workers)

from sitebuild import serve
from sitebuild.testing import build_site

REFERENCE = (ROOT / "lessons" / LESSON / "reference.py").read_text()
TITLE = "gelu agrees with the tanh formula"
TITLE_B = "gelu agrees with the tanh formula, in build B"
PROSE_B = "This paragraph is new in build B."
SOLUTION_B = "# model solution of build B\n"
PATH = f"lessons/{LESSON}/index.html"


@pytest.fixture(scope="module")
def build_b(tmp_path_factory):
    lessons = tmp_path_factory.mktemp("lessons-b")
    lesson = lessons / LESSON
    shutil.copytree(ROOT / "lessons" / LESSON, lesson, ignore=shutil.ignore_patterns("__pycache__"))
    check = lesson / "checks" / "test_gelu.py"
    assert f'"""{TITLE}' in check.read_text()
    check.write_text(check.read_text().replace(f'"""{TITLE}', f'"""{TITLE_B}', 1))
    (lesson / "lesson.md").write_text((lesson / "lesson.md").read_text() + f"\n{PROSE_B}\n")
    (lesson / "reference.py").write_text(SOLUTION_B + REFERENCE)
    # Build B is tp-mlp with a new title, prose and reference: nothing the update test looks at
    # depends on `lessonkit check`, which the shared build ran on tp-mlp.
    out = tmp_path_factory.mktemp("site-b") / "dist"
    proc = build_site(out, lessons, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


class _UnsafeNoneHandler(serve._Handler):
    """A host that states `Cross-Origin-Embedder-Policy: unsafe-none`: the service worker leaves
    such responses as they are, so its pages are not cross-origin isolated."""
    isolated = False

    def end_headers(self):
        self.send_header("Cross-Origin-Embedder-Policy", "unsafe-none")
        super().end_headers()


@pytest.fixture
def host(built_site, tmp_path):
    """(folder the host serves, its URL), holding build A."""
    folder = tmp_path / "www"
    shutil.copytree(built_site, folder)
    server = serve._Server(("127.0.0.1", 0), functools.partial(_UnsafeNoneHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield folder, serve.url_of(server)
    server.shutdown()
    server.server_close()


def deploy(build, folder):
    """Replaces the served site as a publish step does: the new build is copied in full beside
    the old one, then swapped in, so no request (a worker the page starts may be fetching) meets
    a file being deleted or half written."""
    staged, old = folder.with_name(folder.name + "-next"), folder.with_name(folder.name + "-old")
    shutil.copytree(build, staged)
    folder.rename(old)
    staged.rename(folder)
    shutil.rmtree(old)


def titles(page) -> list[str]:
    return page.locator("#results .check-title").all_inner_texts()


def model_solution(page) -> str:
    page.locator("#show-solution").click()
    code = page.locator("#model-solution-code")
    code.wait_for(state="visible")  # the click fetches the file: the text comes with it
    return code.inner_text()


# The page's workers before the deploy: the one it graded with first, and the spare.
BEFORE_DEPLOY = 2


def grades_with_build_a(page, run_checks):
    state, text = run_checks(page)
    assert state == "passed", text
    assert any(t.startswith(TITLE) for t in titles(page)) and not any(TITLE_B in t for t in titles(page))


def test_an_open_page_keeps_its_build_and_the_next_visit_gets_the_new_one(browser, host, build_b, set_code,
                                                                          run_checks):
    folder, url = host
    context = browser.new_context(viewport={"width": 1400, "height": 950}, service_workers="allow")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.add_init_script(RECORD_WORKERS)
    try:
        page.goto(url + PATH)
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
        wait_for_service_worker(page)
        page.reload()  # now opened through the service worker, from build A's files
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
        assert page.evaluate("!!navigator.serviceWorker.controller")
        assert page.evaluate("crossOriginIsolated") is False
        # The page's worker and its spare (started once the page is idle) have booted: no fetch
        # of this page's is under way while build B's worker installs and takes over.
        page.wait_for_function(f"window.__workers.filter((w) => w.ready).length >= {BEFORE_DEPLOY}",
                               timeout=READY_TIMEOUT_MS)
        assert len(workers(page)) == BEFORE_DEPLOY, workers(page)

        deploy(build_b, folder)
        page.evaluate(TAKE_NEW_BUILD)
        # Each Run grades in a fresh worker and ends it: the two started before the deploy, then
        # one started after it, which loads the engine, pyodide/ and lesson.zip then, and gets
        # build A's, so the page grades with the checks it showed.
        set_code(page, REFERENCE)
        for _ in range(BEFORE_DEPLOY):
            grades_with_build_a(page, run_checks)
        page.wait_for_function(f"window.__workers[{BEFORE_DEPLOY}]?.ready === true", timeout=READY_TIMEOUT_MS)
        assert all(w["ended"] for w in workers(page)[:BEFORE_DEPLOY]), workers(page)
        grades_with_build_a(page, run_checks)
        assert workers(page)[BEFORE_DEPLOY]["ended"], "the third Run graded in the first worker after the deploy"
        assert model_solution(page).strip() == REFERENCE.strip()
        assert PROSE_B not in page.locator("#prose").inner_text()

        # The next visit: build B, prose, checks and model solution alike.
        page.reload()
        page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
        assert PROSE_B in page.locator("#prose").inner_text()
        state, text = run_checks(page)
        assert state == "passed", text
        assert any(TITLE_B in t for t in titles(page))
        assert model_solution(page).startswith(SOLUTION_B.rstrip("\n"))
        assert page.errors == []
    finally:
        context.close()
