"""axe-core (npm) on the home page and on every lesson page, in both languages and both colour
themes: no serious or critical accessibility violations. Lessons are found in the built site, so new ones are
covered as they land. Each page is loaded once and checked in its four variants (the language
switch and prefers-color-scheme apply without a reload)."""
from __future__ import annotations

import pytest

from conftest import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LESSON_SLUGS = sorted(p.name for p in (ROOT / "lessons").iterdir() if (p / "lesson.toml").is_file())
ISOLATION_MODES = ["isolated"]  # markup does not depend on isolation (tests/conftest.py)


def violations(page) -> list[str]:
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")


def every_variant(page) -> dict:
    """{(lang, theme): violations} for English and, where the page offers it, Polish, each in the
    light and the dark theme (the browser's prefers-color-scheme)."""
    page.add_script_tag(content=AXE.read_text())
    found = {}
    for lang in ("en", "pl"):
        choice = page.locator(f'[data-lang-choice="{lang}"]')
        if lang != "en" and not choice.count():
            continue
        if choice.count():
            choice.first.click()
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            found[lang, theme] = violations(page)
    return found


ALL_FOUR = {(lang, theme): [] for lang in ("en", "pl") for theme in ("light", "dark")}


def test_home_page_has_no_serious_violations(page, site_url):
    page.goto(site_url + "index.html")
    assert every_variant(page) == ALL_FOUR


@pytest.mark.parametrize("slug", LESSON_SLUGS)
def test_lesson_page_has_no_serious_violations(page, site_url, built_site, slug):
    if not (built_site / "lessons" / slug / "index.html").is_file():
        pytest.skip(f"{slug} is not in this build")
    page.goto(site_url + f"lessons/{slug}/index.html")
    page.wait_for_selector(".cm-content")
    found = every_variant(page)
    assert found == {variant: [] for variant in found}, slug
