"""axe-core (npm) on the home page and on every lesson page, in both languages and both colour
themes: no serious or critical accessibility violations. Lessons are found in the built site, so new ones are
covered as they land."""
from __future__ import annotations

import pytest

from conftest import ROOT, SCREENSHOTS  # noqa: F401  (SCREENSHOTS: same artifacts folder)

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LESSON_SLUGS = sorted(p.name for p in (ROOT / "lessons").iterdir() if (p / "lesson.toml").is_file())


def violations(page) -> list[str]:
    page.add_script_tag(content=AXE.read_text())
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
    return found


@pytest.fixture(autouse=True)
def isolated_only(isolation):
    if isolation != "isolated":
        pytest.skip("markup does not depend on isolation")


@pytest.fixture(params=["light", "dark"])
def theme(request, page):
    """The page as a browser set to that colour scheme shows it (prefers-color-scheme)."""
    page.emulate_media(color_scheme=request.param)
    return request.param


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_home_page_has_no_serious_violations(page, site_url, lang, theme):
    page.goto(site_url + "index.html")
    if lang != "en":
        page.locator(f'[data-lang-choice="{lang}"]').click()
    assert violations(page) == []


@pytest.mark.parametrize("lang", ["en", "pl"])
@pytest.mark.parametrize("slug", LESSON_SLUGS)
def test_lesson_page_has_no_serious_violations(page, site_url, built_site, slug, lang, theme):
    if not (built_site / "lessons" / slug / "index.html").is_file():
        pytest.skip(f"{slug} is not in this build")
    page.goto(site_url + f"lessons/{slug}/index.html")
    if page.locator(f'[data-lang-choice="{lang}"]').count():
        page.locator(f'[data-lang-choice="{lang}"]').click()
    page.wait_for_selector(".cm-content")
    assert violations(page) == [], (slug, theme)
