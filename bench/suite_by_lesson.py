"""Where the suite's time goes, per lesson: reads the JUnit XML of a pytest run and sums each
test's seconds (setup, call and teardown) into the lesson its id names, or into "course-wide"
for the engine, site, hosting and hardening tests that name no lesson.

    ./dev test --junitxml=/tmp/suite.xml
    .venv/bin/python bench/suite_by_lesson.py /tmp/suite.xml

Seconds are summed over the xdist workers, so they add up to more than the wall time; a shared
fixture (the one build, a module's page) is charged to the first test that asked for it.
Issue 27's goal is 30 s per lesson. A benchmark that prints figures, not a test.
"""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "py"))
from authorkit.course import Course  # noqa: E402


def lesson_of(test_id: str, slugs: list[str]) -> str:
    """The lesson a test id names (as a parameter like [tp-mlp] or a module like
    test_tp_mlp_lesson), or "course-wide"."""
    words = test_id.lower().replace("_", "-")
    named = [slug for slug in slugs if slug in words]
    return max(named, key=len) if named else "course-wide"


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    slugs = [folder.name for folder in Course(REPO / "lessons").dirs()]
    seconds: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
        lesson = lesson_of(f"{case.get('classname')}::{case.get('name')}", slugs)
        seconds[lesson] += float(case.get("time", 0))
        tests[lesson] += 1
    print("| lesson | tests | seconds |\n|---|---:|---:|")
    for lesson in [*slugs, "course-wide"]:
        print(f"| {lesson} | {tests[lesson]} | {seconds[lesson]:.0f} |")
    print(f"| all | {sum(tests.values())} | {sum(seconds.values()):.0f} |")


if __name__ == "__main__":
    main()
