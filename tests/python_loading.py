"""The `python_loading` mark: its test sees lesson pages as a learner does in the seconds before
Python is ready, for as long as it runs. Each page's Python worker script is answered with an
empty one, so no Python starts. It is for what must work without waiting for Python (the widgets,
the prose, the editor, saving), and it spares the seconds of CPU every Python start costs, which
are most of the browser suites' time on a 2-core machine.

The `page` fixture (tests/browser) and `open_page` (tests/lessons) apply it with HoldBack."""
from __future__ import annotations

# The Python worker's script as tools/sitebuild/bundle.py names it (ENTRY_POINTS' "worker",
# content-hashed).
PYTHON_WORKER_SCRIPT = "**/assets/worker-*.js"


class HoldBack:
    """What a page fixture does for one test: `apply(page)` holds Python back on each page it
    opens if the test is marked `python_loading`; `finish()`, after the test and before its pages
    close, stops holding back and asserts that some worker script was held back (none means the
    mark did nothing: the script's name changed, or no lesson page was opened)."""

    def __init__(self, request):
        self.marked = request.node.get_closest_marker("python_loading") is not None
        self.held: list[str] = []
        self.pages = []

    def apply(self, page) -> None:
        """Every Python worker `page` starts from now on loads an empty script (with the real
        one's headers, so cross-origin isolation still allows it) and never answers."""
        if not self.marked:
            return

        def empty(route):
            self.held.append(route.request.url)
            route.fulfill(response=route.fetch(), body="")
        page.route(PYTHON_WORKER_SCRIPT, empty)
        self.pages.append(page)

    def finish(self) -> None:
        # Without this, a script still being fetched when its page closes fails the handler, and
        # Playwright raises that in the next test's first call on the page's context.
        for page in self.pages:
            if not page.is_closed():
                page.unroute_all(behavior="ignoreErrors")
        assert not self.marked or self.held, "python_loading: no Python worker script was held back"
