"""A lesson's pinned PyPI package in real Chromium: the test lesson pkg-demo (its solution
imports einops) built into a site of its own, opened with every request that leaves the site
refused, installs einops with micropip from the site and grades the reference passing, with
einops imported afresh for every run."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import READY_TIMEOUT_MS, ROOT, SCREENSHOTS

from sitebuild.serve import serve_in_thread
from sitebuild.testing import shared_site

FIXTURES = ROOT / "tests" / "fixtures" / "lessons"
REFERENCE = (FIXTURES / "pkg-demo" / "reference.py").read_text()
# Passes only when einops is imported afresh for every run (requirements.importable).
CHANGES_EINOPS = ("import einops\nassert not hasattr(einops, 'changed'), 'the last run changed einops'\n"
                  "einops.changed = True\n" + REFERENCE)


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory, FIXTURES)  # the build tests/site/test_lesson_packages.py tests


@pytest.fixture
def offline_page(browser, demo_site):
    """The lesson page on a local server, every request elsewhere aborted and recorded."""
    server, url = serve_in_thread(demo_site, isolated=True)
    context = browser.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
    local = urlsplit(url).netloc
    context.requests, context.refused = [], []

    def route(r):
        if urlsplit(r.request.url).netloc == local:
            context.requests.append(r.request.url)
            r.continue_()
        else:
            context.refused.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and page.errors.append(f"console: {m.text}"))
    page.goto(url + "lessons/pkg-demo/index.html")
    yield page, context
    context.close()
    server.shutdown()
    server.server_close()


def test_the_page_installs_the_pinned_wheel_from_the_site_and_grades(offline_page, set_code, run_checks):
    page, context = offline_page
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_TIMEOUT_MS)
    # The reference, twice (with a line that passes only in a fresh einops).
    for _ in range(2):
        set_code(page, CHANGES_EINOPS)
        state, text = run_checks(page)
        assert state == "passed", text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "pkg-demo-einops.png"))
    fetched = {urlsplit(u).path.rsplit("/", 2)[-2] + "/" + urlsplit(u).path.rsplit("/", 1)[-1]
               for u in context.requests}
    assert "wheels/einops-0.8.1-py3-none-any.whl" in fetched
    assert "pyodide/micropip-0.9.0-py3-none-any.whl" in fetched
    assert context.refused == []  # nothing was even tried elsewhere (PyPI, a CDN)
    assert page.errors == []
