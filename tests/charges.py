"""The suite's per-lesson accounting (bench/suite_by_lesson.py): what sitebuild.testing.charge
records while a test runs goes into that test's JUnit properties."""
from __future__ import annotations

import time
from collections import defaultdict

import pytest

from sitebuild import testing


class Charges:
    """Hands sitebuild.testing's charges to the running test's report (and the JUnit XML), as
    `charge:<lesson>` properties for bench/suite_by_lesson.py."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        """A session fixture serves every test after the one that set it up: its time, besides
        what it charged to single lessons itself, is course-wide."""
        if fixturedef.scope != "session":
            yield
            return
        start, before = time.perf_counter(), testing.pending_seconds()
        yield
        testing.charge(testing.COURSE_WIDE,
                       max(0.0, time.perf_counter() - start - (testing.pending_seconds() - before)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        by_lesson = defaultdict(float)
        for lesson, seconds in testing.take_charges():
            by_lesson[lesson] += seconds
        item.user_properties += [(testing.CHARGE + lesson, round(seconds, 3))
                                 for lesson, seconds in by_lesson.items() if seconds >= 0.001]
        yield
