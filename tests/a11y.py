"""axe-core (npm) on a page in every variant a learner can get: English and, where the page
offers it, Polish, each in the light and the dark theme (the language switch and
prefers-color-scheme apply without a reload). Used by tests/browser/test_course_a11y.py (the
home page) and tests/lessons/test_pages.py (every lesson page, once its Python is ready)."""
from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


# The rules whose outcome depends on colours. A colour theme changes nothing else (its CSS only
# recolours), so in the second theme of a language only these run: the others would repeat the
# first theme's results, at twice the cost.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def violations(page, rules: list[str] | None = None) -> list[str]:
    """The page's serious and critical violations (of `rules` only, if given), one line each."""
    return page.evaluate("""async (rules) => (await axe.run(document,
            rules ? {resultTypes: ['violations'], runOnly: rules} : {resultTypes: ['violations']}))
        .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""",
                         rules)


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
            found[lang, theme] = violations(page, None if theme == "light" else COLOUR_RULES)
    return found
