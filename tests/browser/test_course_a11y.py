"""axe-core on the home page, in both languages and both colour themes: no serious or critical
accessibility violations (tests/a11y.py). Every lesson page gets the same check in
tests/lessons/test_pages.py, on the page that test has already loaded."""
from __future__ import annotations

from a11y import every_variant

ISOLATION_MODES = ["isolated"]  # markup does not depend on isolation (tests/conftest.py)
ALL_FOUR = {(lang, theme): [] for lang in ("en", "pl") for theme in ("light", "dark")}


def test_home_page_has_no_serious_violations(page, site_url):
    page.goto(site_url + "index.html")
    assert every_variant(page) == ALL_FOUR
