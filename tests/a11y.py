"""axe-core (npm) on a page in every variant a learner can get: English and, where the page
offers it, Polish, each in the light and the dark theme (the language switch and
prefers-color-scheme apply without a reload). Used by tests/browser/test_course_a11y.py (the
home page) and tests/lessons/test_pages.py (every lesson page, once its Python is ready)."""
from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


def violations(page) -> list[str]:
    """The page's serious and critical violations, one line each."""
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")


def every_variant(page) -> dict:
    """{(lang, theme): violations} for every variant of the open page."""
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
