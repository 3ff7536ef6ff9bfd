"""The `python_loading` mark: its test sees lesson pages as a learner does in the seconds before
Python is ready, for as long as it runs. Each page's Python worker script is answered with an
empty one, so no Python starts. It is for what must work without waiting for Python (the widgets,
the prose, the editor, saving), and it spares the seconds of CPU every Python start costs, which
are most of the browser suites' time on a 2-core machine.

The `page` fixture (tests/browser) and `open_page` (tests/lessons) apply it; a test that opens
its own context calls hold_python_back(page) itself."""
from __future__ import annotations

# The Python worker's script as tools/sitebuild/bundle.py names it (ENTRY_POINTS' "worker",
# content-hashed).
PYTHON_WORKER_SCRIPT = "**/assets/worker-*.js"


def hold_python_back(page) -> list[str]:
    """Every Python worker `page` starts from now on loads an empty script (with the real one's
    headers, so cross-origin isolation still allows it) and never answers. Returns the URLs of
    the scripts held back, a list that grows as the page starts workers."""
    held = []

    def empty(route):
        held.append(route.request.url)
        route.fulfill(response=route.fetch(), body="")
    page.route(PYTHON_WORKER_SCRIPT, empty)
    return held


def held_if_marked(request, page) -> list[str] | None:
    """hold_python_back(page) if the test is marked `python_loading`, else None."""
    return hold_python_back(page) if request.node.get_closest_marker("python_loading") else None


def assert_held_back(held: list[str] | None) -> None:
    """After a `python_loading` test: its pages did start Python workers, and all were held back
    (an empty list means the mark did nothing: the script's name changed, or no lesson page
    was opened)."""
    assert held is None or held, "python_loading: no Python worker script was held back"
