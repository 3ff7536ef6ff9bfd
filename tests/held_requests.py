"""Requests a test holds unanswered until it says so: to put a page in a state that a fast
machine would rush past (Python still starting, a build's id not read yet), whatever its speed."""
from __future__ import annotations


class HeldRequests:
    """Every request of `target` (a Playwright page or context) matching `pattern` waits, from now
    until `release()`, which lets the held ones go on to the server and stops holding."""

    def __init__(self, target, pattern: str):
        self.target, self.pattern, self.routes = target, pattern, []
        target.route(pattern, self._hold)

    def _hold(self, route) -> None:
        self.routes.append(route)

    def release(self) -> None:  # once, or again to no effect
        # Continued before the route is removed: removing it first answers the held requests
        # itself, and continuing them then raises "Route is already handled".
        while self.routes:
            self.routes.pop().continue_()
        self.target.unroute(self.pattern, self._hold)  # (which lets go of any request since)
