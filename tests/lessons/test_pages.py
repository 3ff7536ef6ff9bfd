"""Every lesson's page in the real browser: it renders and loads Python with no console
errors (one tab walks the lessons in place, as "Next" does, its Python loaded once: `python_tab`;
every lesson's own URL loads in tests/browser/test_course.py), every widget it declares mounts and reacts to an edit, and axe-core finds no serious or
critical violation in English (light, desktop) nor in Polish (dark, phone), and the page's own
parts in neither language nor theme (tests/a11y.py); in Polish no English is left visible and
nothing is wider than a phone, photographed in English at desktop width and in Polish, dark, at
phone width into artifacts/screenshots/ (look at them). The minimal widget of
docs/widgets.md, added to a scaffolded lesson, mounts, recomputes and runs the learner's code.
One isolation mode (cross-origin isolated): both modes are the hardening suites' business."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from a11y import every_variant, two_variants
from lessonkit import load_lesson
from authorkit.scaffold import new_lesson
from sitebuild.serve import serve_in_thread
from sitebuild.testing import COURSE_WIDE, build_site, charged

from conftest import LESSONS

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
READY_MS = 120_000


def open_ready(open_page, url: str):
    page = open_page(url)
    page.wait_for_selector("#python-progress[data-state=ready]", timeout=READY_MS)
    return page


def edit(control) -> None:
    """Change one input of a widget the way a learner would."""
    tag = control.evaluate("e => e.tagName.toLowerCase()")
    if tag == "select":
        values = control.evaluate("e => [...e.options].map(o => o.value)")
        current = control.input_value()
        control.select_option(next(v for v in values if v != current))
    elif control.get_attribute("type") in ("checkbox", "radio"):
        control.check() if not control.is_checked() else control.uncheck()
    else:
        control.fill(str(float(control.input_value() or 0) + 1.5)
                     if re.fullmatch(r"[-+]?\d*\.?\d+", control.input_value() or "0") else "2.5")


def test_the_page_renders_loads_python_and_every_widget_reacts(python_tab, lesson_dir):
    lesson = load_lesson(lesson_dir)
    page, = python_tab.show(lesson.id)
    assert page.locator("main .katex").count() > 0 or "$" not in (lesson_dir / "lesson.md").read_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lesson-{lesson.id}.png"), full_page=True)
    for name in lesson.widgets:
        widget = page.locator(f'.widget[data-lesson="{lesson.id}"][data-widget="{name}"]').first
        widget.scroll_into_view_if_needed()
        assert widget.locator("*").count() > 0, f"widget {name} rendered nothing"
        assert "failed to start" not in widget.inner_text() and "missing from this build" not in widget.inner_text()
        controls = widget.locator("input:not([type=hidden]):not([disabled]), select:not([disabled])")
        assert controls.count() > 0, f"widget {name} has nothing to edit"
        before = widget.inner_text()
        edit(controls.first)
        page.wait_for_function("([el, before]) => el.innerText !== before",
                               arg=[widget.element_handle(), before], timeout=READY_MS)
        widget.screenshot(path=str(SHOTS / f"widget-{lesson.id}-{name}.png"))
    assert page.errors == []
    # Accessibility, on the page as it is now (Python ready, widgets edited): the lesson's own
    # prose and widgets in two variants that between them have every language, theme and width
    # (tests/a11y.py says why that is enough); the page's own parts (header, editor, results),
    # the same on every lesson, in all four language and theme variants once.
    found = two_variants(page)
    if lesson_dir == LESSONS[0]:
        with charged(COURSE_WIDE):  # the page's own parts, whichever lesson shows them
            page.set_viewport_size({"width": 1300, "height": 950})
            found.update(every_variant(page))
            page.set_viewport_size({"width": 390, "height": 950})
    assert found == {variant: [] for variant in found}
    # two_variants left the page in Polish, dark, at phone width: photographed (a look for
    # people, not an assertion about looks); asserted: no English block left visible, nothing
    # widens the page past a phone's screen (nor past the desktop's).
    assert page.locator("html").get_attribute("lang") == "pl"
    assert page.locator('.lang-block[data-lang="en"]:visible').count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / f"pl-dark-{lesson.id}-390.png"), full_page=True)
    page.set_viewport_size({"width": 1300, "height": 950})
    assert page.evaluate("document.documentElement.scrollWidth") <= 1300
    assert page.errors == []


def docs_widget() -> tuple[str, str]:
    """The minimal widget's code and its text file, as docs/widgets.md shows them."""
    text = (ROOT / "docs" / "widgets.md").read_text(encoding="utf-8")
    section = text.split("## A minimal widget", 1)[1]
    return tuple(re.search(rf"```{kind}\n(.*?)```", section, re.S).group(1) for kind in ("js", "json"))


@pytest.fixture(scope="module")
def docs_site(tmp_path_factory):
    """A site of one scaffolded lesson with the docs' widget added as docs/widgets.md says."""
    lessons = tmp_path_factory.mktemp("docs-lessons")
    folder = new_lesson(lessons, "demo-lesson")
    (folder / "widgets").mkdir()
    code, text = docs_widget()
    (folder / "widgets" / "doubler.js").write_text(code)
    (folder / "widgets" / "doubler.text.json").write_text(text)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace("widgets = []", 'widgets = ["doubler"]'))
    md = folder / "lesson.md"
    md.write_text(md.read_text().replace("<!-- {{ widget: doubler }} -->", "{{ widget: doubler }}"))
    out = tmp_path_factory.mktemp("docs-site") / "dist"
    proc = build_site(out, lessons)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    server, url = serve_in_thread(out, isolated=True)
    yield url
    server.shutdown()
    server.server_close()


def test_the_docs_minimal_widget_mounts_recomputes_and_runs_the_learners_code(open_page, docs_site):
    page = open_ready(open_page, f"{docs_site}lessons/demo-lesson/index.html")
    widget = page.locator('[data-widget="doubler"]')
    assert widget.get_by_test_id("result").inner_text() == "2x = (2, 4, 6, 8)"
    widget.get_by_label("x[0]").fill("5")
    assert widget.get_by_test_id("result").inner_text() == "2x = (10, 4, 6, 8)"
    widget.get_by_label("x[1]").fill("oops")
    assert "is not a number" in widget.inner_text()
    widget.get_by_label("x[1]").fill("2")
    page.locator(".cm-content").focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text("import numpy as np\n\ndef double(x):\n    return 3 * np.asarray(x)\n")
    widget.get_by_role("button", name="Try with my code").click()
    page.wait_for_function("el => el.innerText.includes('Your double')",
                           arg=widget.get_by_test_id("yours").element_handle(), timeout=60_000)
    assert widget.get_by_test_id("yours").inner_text() == "Your double: (15, 6, 9, 12)"
    widget.screenshot(path=str(SHOTS / "widget-docs-doubler.png"))
    assert page.errors == []
