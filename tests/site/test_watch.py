"""`build.py serve --watch`: a prose save writes that page again with no build and no check, a
saved check rebuilds the site re-checking that lesson, and an open page reloads by itself; a broken
lesson keeps the last good site and shows its located errors over the page and in the terminal,
until it is fixed. A widget's error names the lesson's own file and line (the bundle's source map,
read back by the page)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "py")]

from authorkit.scaffold import new_lesson

from sitebuild.testing import Watcher

from held_requests import HeldRequests
from python_loading import HoldBack

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.slow, pytest.mark.browser]
# How long a wait on the page may take before the test gives up: long, so that only a page that
# never shows what it should fails, not a slow machine.
WAIT_MS = 120_000


@pytest.fixture(scope="module")
def watcher(tmp_path_factory):
    """One watched site for the module: starting a watcher costs a build."""
    tmp_path = tmp_path_factory.mktemp("watch")
    lessons = tmp_path / "lessons"
    add_broken_widgets(new_lesson(lessons, "demo-lesson"))
    w = Watcher(lessons, tmp_path / "dist")
    yield w
    w.stop()


# Two widgets that fail on purpose: one while it mounts, one in its button's click handler.
BROKEN = {
    "broken": """export const calls = [];
export function mount(el) {
  el.textContent = "about to fail";
  null.nothing();  // line 4
}
""",
    "clicky": """export const calls = [];
export function mount(el) {
  const button = document.createElement("button");
  button.textContent = "fail";
  button.onclick = () => {
    throw new Error("clicked");  // line 6
  };
  el.append(button);
}
""",
}


@pytest.fixture
def new_page(request, browser):
    """new_page() -> a tab of the session's browser (tests/conftest.py); Python held back if
    the test is marked `python_loading` (tests/python_loading.py): these pages never run code,
    and the live reloads would each load it again."""
    hold, pages = HoldBack(request), []

    def open_():
        pages.append(browser.new_page())
        hold.apply(pages[-1])
        return pages[-1]
    yield open_
    hold.finish()
    for page in pages:
        page.close()


def add_broken_widgets(folder: Path) -> None:
    (folder / "widgets").mkdir()
    for name, code in BROKEN.items():
        (folder / "widgets" / f"{name}.js").write_text(code)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace("widgets = []", f"widgets = {list(BROKEN)!r}".replace("'", '"')))
    md = folder / "lesson.md"
    md.write_text(md.read_text() + "".join(f"\n{{{{ widget: {name} }}}}\n" for name in BROKEN))


@pytest.mark.python_loading
def test_a_widgets_error_names_its_own_file_and_line(watcher, new_page):
    """Not the minified assets/page-*.js: on the page, in the console, at mount and later."""
    page = new_page()
    console_error = lambda text: lambda m: m.type == "error" and m.text.startswith(text)  # noqa: E731
    with page.expect_console_message(console_error("widget broken at lessons/demo-lesson/widgets/broken.js:4:"),
                                     timeout=WAIT_MS):
        page.goto(watcher.url + "lessons/demo-lesson/index.html")
    assert "(lessons/demo-lesson/widgets/broken.js:4:" in page.locator('[data-widget="broken"]').inner_text()
    with page.expect_console_message(console_error("widget error at lessons/demo-lesson/widgets/clicky.js:6:"),
                                     timeout=WAIT_MS) as message:
        page.locator('[data-widget="clicky"] button').click()
    assert "clicked" in message.value.text


@pytest.mark.python_loading
def test_a_saved_change_reloads_the_open_page_and_errors_show_located(watcher, new_page):
    md = watcher.lessons / "demo-lesson" / "lesson.md"
    page = new_page()
    page.goto(watcher.url + "lessons/demo-lesson/index.html")
    page.wait_for_selector("h1")
    assert page.locator("h1").first.inner_text() == "A new lesson"

    seen = len(watcher.lines)
    md.write_text(md.read_text().replace("# A new lesson", "# Edited while watching"))
    assert "(the prose of demo-lesson only)" in watcher.wait_for("rebuilt in")
    assert not [line for line in watcher.lines[seen:] if "checking " in line or "bundling" in line]
    page.wait_for_function("() => document.querySelector('h1').innerText === 'Edited while watching'",
                           timeout=WAIT_MS)

    md.write_text(md.read_text().replace("$y = 2x$", "$\\frac{1}$"))
    failed = watcher.wait_for("demo-lesson/lesson.md:")
    assert ": math does not typeset" in failed
    overlay = page.locator("#live-build-errors")
    overlay.wait_for(timeout=WAIT_MS)
    assert re.search(r"demo-lesson/lesson\.md:3: math does not typeset", overlay.inner_text())
    assert page.locator("h1").first.inner_text() == "Edited while watching"  # the last good page

    md.write_text(md.read_text().replace("$\\frac{1}$", "$y = 2x$"))
    watcher.wait_for("rebuilt in")
    page.wait_for_selector("#live-build-errors", state="detached", timeout=WAIT_MS)
    assert page.locator("h1").first.inner_text() == "Edited while watching"

    # A saved check: a rebuild that checks the lesson again (its check inputs changed).
    check = watcher.lessons / "demo-lesson" / "checks" / "test_double.py"
    seen = len(watcher.lines)
    check.write_text(check.read_text() + "\n# edited while watching\n")
    assert "prose" not in watcher.wait_for("rebuilt in")
    assert any("checking " in line and "demo-lesson" in line for line in watcher.lines[seen:])


@pytest.mark.python_loading
def test_a_page_fetched_before_a_save_and_told_of_the_build_after_it_reloads(watcher, new_page):
    """A save while a page loads: the page's HTML came before the rebuild and its first look at
    the build's id after it (held back here until the rebuild is done). It still reloads, rather
    than taking the new id for its own and showing the old text until the next save."""
    md = watcher.lessons / "demo-lesson" / "lesson.md"
    before = md.read_text()
    page = new_page()
    status = HeldRequests(page, "**/__build.json")
    page.goto(watcher.url + "lessons/demo-lesson/index.html")
    page.wait_for_function("() => document.getElementById('live-reload') !== null", timeout=WAIT_MS)
    md.write_text(before + "\nSaved while the page loaded.\n")
    watcher.wait_for("rebuilt in")
    status.release()
    page.get_by_text("Saved while the page loaded.").wait_for(timeout=WAIT_MS)
    md.write_text(before)  # as the module's other tests expect it
    watcher.wait_for("rebuilt in")


def test_a_watched_site_registers_no_service_worker(watcher, browser):
    """The watch build writes no sw.js (it would serve stale pages between builds), so its pages
    do not ask for one: a request for it would only print a 404 in the author's console."""
    page = browser.new_page()
    page.add_init_script("""navigator.serviceWorker.register = (...args) => {
        window.__registered = args.map(String);
        return Promise.reject(new Error("recorded"));
    }""")
    page.goto(watcher.url + "index.html")  # the home page registers as soon as its script runs
    assert page.evaluate("window.__registered") is None
    assert not (watcher.out / "sw.js").exists()
    page.close()
