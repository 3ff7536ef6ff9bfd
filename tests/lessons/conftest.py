"""Fixtures for the suite that follows the lessons: every folder in lessons/ with a lesson.toml
is a parameter, so a new lesson is tested with no edit here. Each lesson's reference and known-wrong
solutions covering every check (tests/gallery.py) are graded once per session in Pyodide (every
lesson in one Node process, one Pyodide start) and compared with the lesson's golden reports
(authorkit.golden), which the build's `lessonkit check` proved CPython still gives for all. `open_page` opens a lesson page in a new tab of one
warm browser context; `open_lesson` a lesson's page with its widgets mounted, `shared_lesson` one
such tab shared by a module's tests (Python held back); `python_tab` one tab for the whole session
whose Python stays loaded as it moves from lesson to lesson, for every test that needs Python;
`shot` and `set_code` (tests/conftest.py) are what every widget test does."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "pyodide_node"))

from lessonkit import load_lesson
from authorkit.course import Course
from authorkit import golden
from lessonkit.playground import run_calls
from gallery import gallery
from python_loading import HoldBack
from sitebuild.serve import serve_in_thread
from sitebuild.testing import COURSE_WIDE, charge, charged, shared_site

LESSONS = Course(ROOT / "lessons").dirs()
# The page's "try with my code" requests, per lesson that has one here: the playground code is
# the same for every lesson, so one worked example (tp-mlp's, shard_mlp then tp_mlp on the
# lesson's numbers, and gelu on values far out) shows that Pyodide answers as CPython does.
CALLS = {"tp-mlp": [{"fn": "shard_mlp", "args": [[[1, 0, -1, 2], [0, 1, 1, -1]],
                                                 [[1, 0], [0, 1], [1, 1], [2, 0]], 2], "as": "shards"},
                    {"fn": "tp_mlp", "args": [[1, 2], {"ref": "shards"}]},
                    {"fn": "gelu", "args": [[[-1e5, 0.0, 1.0]]]}]}


def pytest_generate_tests(metafunc):
    if "lesson_dir" in metafunc.fixturenames:
        metafunc.parametrize("lesson_dir", LESSONS, ids=[p.name for p in LESSONS])


@pytest.fixture(scope="session")
def cpython_calls():
    """cpython_calls(lesson_dir) -> {solution name: run_calls result} for the gallery's
    solutions of the lessons CALLS has requests for ({} for the others), run in this process
    once per session."""
    cache = {}

    def results(lesson_dir: Path):
        if lesson_dir.name not in cache:
            lesson = load_lesson(lesson_dir)
            calls = CALLS.get(lesson.id)
            cache[lesson_dir.name] = ({name: run_calls(lesson, source, calls)
                                       for name, source in gallery(lesson).items()} if calls else {})
        return cache[lesson_dir.name]
    return results


@pytest.fixture(scope="session")
def pyodide_results():
    """The same for every lesson at once, in Pyodide 0.27.7 under Node, and the gallery's
    reports: {lesson id: {"reports", "calls"}}."""
    from harness import grade_lessons_in_pyodide, missing
    if missing():
        pytest.skip(missing())
    lessons = [load_lesson(d) for d in LESSONS]
    _, results = grade_lessons_in_pyodide([(l, gallery(l), CALLS.get(l.id)) for l in lessons],
                                          seed=golden.SEED)
    out = {l.id: {"reports": {}, "calls": {}} for l in lessons}
    for r in results:
        out[r["lesson"]]["calls" if "calls" in r else "reports"][r["name"]] = r.get("calls", r.get("report"))
        charge(r["lesson"], r["ms"] / 1000)  # its grading; Pyodide's start is course-wide
    return out


@pytest.fixture(scope="session")
def isolated_site_url(tmp_path_factory):
    """The session's built site, served cross-origin isolated."""
    server, url = serve_in_thread(shared_site(tmp_path_factory), isolated=True)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def lesson_context(browser):
    """One browser context for every lesson page here: after the first page, Pyodide and the
    assets load from its warm cache. Service workers are blocked (test_hosting.py tests them)."""
    context = browser.new_context(service_workers="block")
    yield context
    context.close()


SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def _open(context, url: str, width: int, hold: HoldBack):
    page = context.new_page()
    hold.apply(page)
    page.set_viewport_size({"width": width, "height": 950})
    page.errors = []
    page.on("console", lambda m: m.type == "error" and page.errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    page.add_init_script("localStorage.clear()")
    page.goto(url)
    return page


@pytest.fixture
def open_page(request, lesson_context):
    """open_page(url, width=1300) -> a new tab on `url`, its localStorage cleared before the
    page's scripts run (no code, language or progress left by an earlier test); console errors
    and uncaught exceptions are collected in page.errors; Python held back if the test is marked
    `python_loading` (tests/python_loading.py)."""
    pages, hold = [], HoldBack(request)

    def open_(url: str, width: int = 1300):
        pages.append(_open(lesson_context, url, width, hold))
        return pages[-1]

    yield open_
    hold.finish()
    for page in pages:
        page.close()


def _widgets(page, names):
    """The widgets' placeholders, once each has mounted its card."""
    from playwright.sync_api import expect
    located = [page.locator(f'.widget[data-widget="{name}"]') for name in names]
    for widget in located:
        expect(widget.locator(".tpw")).to_be_visible()
    return located


@pytest.fixture
def open_lesson(open_page, isolated_site_url):
    """open_lesson(slug, *widget names, width=1300) -> (page, widget, ...): the lesson's page in
    a new tab (open_page), once every named widget has mounted."""
    def open_(slug: str, *names: str, width: int = 1300):
        page = open_page(f"{isolated_site_url}lessons/{slug}/index.html", width)
        return (page, *_widgets(page, names))
    return open_


@pytest.fixture(scope="module")
def shared_lesson(request, lesson_context, isolated_site_url):
    """(page, widget, ...) for the module's WIDGET_PAGE = (slug, *widget names): ONE tab, Python
    held back, for every test of the module that asks for it: a page load costs more than most
    widget tests. Such tests run in file order on one worker (mark them
    `pytest.mark.xdist_group(<slug>)`); each must leave the widgets as the next one expects (they
    put back what they change) or come last. Not for a test that needs Python."""
    slug, *names = request.module.WIDGET_PAGE
    hold = HoldBack(request)
    hold.marked = True  # the module's tab, whatever the first test asking for it is marked
    page = _open(lesson_context, f"{isolated_site_url}lessons/{slug}/index.html", 1300, hold)
    yield (page, *_widgets(page, names))
    hold.finish()
    page.close()


# The tests that use `python_tab`: on one test worker, so that its Python starts once.
PYTHON_TAB_GROUP = "python-tab"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if "python_tab" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(PYTHON_TAB_GROUP))


# Lesson `slug`'s page, with Python loaded (into the lesson: its workers read lesson.zip).
SHOWS_READY = """slug => JSON.parse(document.getElementById("lesson-config").textContent).lesson.id === slug
    && document.querySelector("#python-progress[data-state=ready]") !== null"""


class PythonTab:
    """One tab on the isolated site whose Python stays loaded from test to test: a Python start
    costs a test more CPU than all else it does. `show(slug, *widget names)` moves it to the
    lesson in place, as the page's own links do (web/src/navigation.js: the workers unpack the
    new lesson.zip), and returns (page, widget, ...) once Python is ready there and every named
    widget has mounted: a lesson mounted afresh (widgets at their defaults), in English, at
    desktop width, light theme, page.errors emptied. The first call opens the lesson's own URL.
    What the learner saved stays in the tab's storage: a test sets the code it runs."""

    def __init__(self, context, site_url: str, hold: HoldBack):
        self.context, self.site_url, self.hold, self.page = context, site_url, hold, None

    def url(self, slug: str) -> str:
        return f"{self.site_url}lessons/{slug}/index.html"

    def shown(self) -> str:
        return self.page.evaluate('JSON.parse(document.getElementById("lesson-config").textContent).lesson.id')

    def move(self, slug: str):
        """Follows a link to `slug`'s page, as a learner's click would; asserts the page stayed
        (a page load would start Python again)."""
        self.page.evaluate("""url => { window.__sameTab = true;
            const link = Object.assign(document.createElement("a"), {href: url});
            document.body.append(link); link.click(); }""", self.url(slug))
        self.page.wait_for_function(SHOWS_READY, arg=slug, timeout=READY_MS)
        assert self.page.evaluate("window.__sameTab === true"), f"the move to {slug} loaded the page"

    def show(self, slug: str, *names: str):
        if self.page is None:
            with charged(COURSE_WIDE):  # Python's start in the tab serves every lesson after
                self.page = _open(self.context, self.url(slug), 1300, self.hold)
                self.page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_MS)
        else:
            if self.shown() == slug:  # mounted afresh: by way of another lesson
                self.move(next(d.name for d in LESSONS if d.name != slug))
            self.move(slug)
        page = self.page
        page.set_viewport_size({"width": 1300, "height": 950})
        page.emulate_media(color_scheme="light")
        if page.locator('[data-lang-choice="en"]').count():
            page.locator('[data-lang-choice="en"]').first.click()
        page.errors.clear()
        return (page, *_widgets(page, names))


READY_MS = 120_000


@pytest.fixture(scope="session")
def python_tab(request, lesson_context, isolated_site_url):
    """The session's PythonTab (its tests run on one test worker: PYTHON_TAB_GROUP)."""
    tab = PythonTab(lesson_context, isolated_site_url, HoldBack(request))
    yield tab
    if tab.page is not None:
        tab.page.close()


@pytest.fixture
def shot(request):
    """shot(page or locator, name): a screenshot as artifacts/screenshots/<lesson>-<name>.png
    (git-ignored), <lesson> the module's LESSON folder name."""
    def shoot(target, name: str):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(SCREENSHOTS / f"{request.module.LESSON.name}-{name}.png"))
    return shoot
