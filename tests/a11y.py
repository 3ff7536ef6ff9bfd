"""axe-core (npm) on a page in the variants a learner can get: English and, where the page
offers it, Polish, each in the light and the dark theme, at desktop and phone width (the
language switch, prefers-color-scheme and the viewport apply without a reload).

`every_variant`: both languages in both themes at the page's width (tests/browser/test_course_a11y.py:
the home page; tests/lessons/test_pages.py: the first lesson's page, for the page's own parts,
the same on every lesson). `two_variants`: English, light, desktop, and Polish, dark, phone
(tests/lessons/test_pages.py: every lesson page, for its own prose and widgets). Language,
theme and width change independent things (the text and its labels; colours only; the layout
only), so a fault of one shows in whichever of the two variants has that value: a dark theme
that loses contrast in the second, a phone layout that breaks a rule in the second, a Polish
label left empty in the second, an English one in the first."""
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


def show(page, lang: str, theme: str) -> bool:
    """The page in `lang` (False, unchanged, if it does not offer it) and `theme`."""
    choice = page.locator(f'[data-lang-choice="{lang}"]')
    if lang != "en" and not choice.count():
        return False
    if choice.count():
        choice.first.click()
    page.emulate_media(color_scheme=theme)
    return True


def two_variants(page) -> dict:
    """{(lang, theme, width): violations} for English, light, at 1300 px and Polish (English
    where not offered), dark, at 390 px: every rule in each. Leaves the page in the second."""
    page.add_script_tag(content=AXE.read_text())
    found = {}
    for lang, theme, width in (("en", "light", 1300), ("pl", "dark", 390)):
        if not show(page, lang, theme):
            lang = "en"
            show(page, lang, theme)
        page.set_viewport_size({"width": width, "height": 950})
        found[lang, theme, width] = violations(page)
    return found


def every_variant(page) -> dict:
    """{(lang, theme): violations} for every variant of the open page."""
    page.add_script_tag(content=AXE.read_text())
    found = {}
    for lang in ("en", "pl"):
        for theme in ("light", "dark"):
            if not show(page, lang, theme):
                break
            found[lang, theme] = violations(page, None if theme == "light" else COLOUR_RULES)
    return found
