"""axe-core on the home page, in both languages and both colour themes: no serious or critical
accessibility violations (tests/a11y.py). Every lesson page gets the same check in
tests/lessons/test_pages.py, on the page that test has already loaded. A home page whose dark
theme loses contrast is caught, so the check can fail."""
from __future__ import annotations

from a11y import every_variant

ISOLATION_MODES = ["isolated"]  # markup does not depend on isolation (tests/conftest.py)
ALL_FOUR = {(lang, theme): [] for lang in ("en", "pl") for theme in ("light", "dark")}


def test_home_page_has_no_serious_violations(page, site_url):
    page.goto(site_url + "index.html")
    assert every_variant(page) == ALL_FOUR


def test_a_dark_theme_that_loses_contrast_is_caught(page, site_url):
    """The second theme runs only the colour rules (tests/a11y.py): they still catch a dark
    theme whose text hardly shows, and only there."""
    page.goto(site_url + "index.html")
    page.add_style_tag(content="@media (prefers-color-scheme: dark) { body, body * {"
                               " color: #222 !important; background: #000 !important; } }")
    found = every_variant(page)
    assert [v for v in found["en", "dark"] if v.startswith("color-contrast")], found
    assert found["en", "light"] == [] and found["pl", "light"] == [], found
