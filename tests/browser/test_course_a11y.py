"""axe-core on the home page, in both languages and both colour themes: no serious or critical
accessibility violations (tests/a11y.py). Every lesson page gets the checks in
tests/lessons/test_pages.py, on the page that test has already loaded. A home page whose dark
theme, or whose phone layout, loses contrast is caught, by both ways of choosing variants, so
the check can fail."""
from __future__ import annotations

import pytest

from a11y import every_variant, two_variants

ISOLATION_MODES = ["isolated"]  # markup does not depend on isolation (tests/conftest.py)
ALL_FOUR = {(lang, theme): [] for lang in ("en", "pl") for theme in ("light", "dark")}
# Text that hardly shows, in one variant only.
LOSES_CONTRAST = {
    "dark": "@media (prefers-color-scheme: dark) { body, body * { color: #222 !important; background: #000 !important; } }",
    "phone": "@media (max-width: 500px) { body, body * { color: #ddd !important; background: #fff !important; } }",
}


def test_home_page_has_no_serious_violations(page, site_url):
    page.goto(site_url + "index.html")
    assert every_variant(page) == ALL_FOUR


def contrast(found: list[str]) -> list[str]:
    return [v for v in found if v.startswith("color-contrast")]


@pytest.mark.parametrize("where", LOSES_CONTRAST)
def test_a_theme_or_width_that_loses_contrast_is_caught(page, site_url, where):
    """every_variant's second theme runs only the colour rules: they still catch a dark theme
    whose text hardly shows, and only there. two_variants (every lesson page) catches it, and a
    phone layout that loses contrast, in its Polish, dark, phone variant, and only there."""
    page.goto(site_url + "index.html")
    page.add_style_tag(content=LOSES_CONTRAST[where])
    if where == "dark":
        found = every_variant(page)
        assert contrast(found["en", "dark"]), found
        assert found["en", "light"] == [] and found["pl", "light"] == [], found
    page.set_viewport_size({"width": 1300, "height": 950})
    found = two_variants(page)
    assert contrast(found["pl", "dark", 390]), found
    assert found["en", "light", 1300] == [], found
