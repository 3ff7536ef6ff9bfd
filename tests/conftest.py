"""What every suite shares: one Chromium through one Playwright for the whole pytest session.
Playwright's sync API allows one instance per thread at a time, so suites that each started
their own (tests/browser, tests/lessons, tests/site) could not run in one `./dev test`.

A browser test module whose behaviour does not depend on cross-origin isolation sets
`ISOLATION_MODES = ["isolated"]`: its tests then run in that mode only, not once per mode of
tests/browser/conftest.py's `isolation` fixture (and share that mode's server and context)."""
from __future__ import annotations

from pathlib import Path

import pytest

from charges import Charges

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    # As a mark, read by pytest's own hooks that run after this one: a parametrize mark takes
    # precedence over the fixture's params.
    modes = getattr(metafunc.module, "ISOLATION_MODES", None)
    if modes is not None and "isolation" in metafunc.fixturenames:
        metafunc.definition.add_marker(pytest.mark.parametrize("isolation", modes, indirect=True))


def pytest_configure(config):
    # A plugin, not this conftest's hooks: pytest asks a session fixture's hooks of the
    # rootdir's conftests only, and this one is in tests/.
    config.pluginmanager.register(Charges(), "charges")


@pytest.fixture(scope="session")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (tools/setup.sh test installs it)")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def set_code():
    """set_code(page, source): the editor's text replaced as a paste would (no auto-indent or
    bracket closing), on any lesson page."""
    def set_code(page, source: str):
        page.locator(".cm-content").focus()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(source)
    return set_code
