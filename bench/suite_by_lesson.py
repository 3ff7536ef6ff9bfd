"""Where the suite's time goes, per lesson: reads the JUnit XML of a pytest run and sums each
test's seconds (setup, call and teardown) into the lesson its id names, or into "course-wide"
for the engine, site, hosting and hardening tests that name no lesson.

    ./dev test --junitxml=/tmp/suite.xml
    .venv/bin/python bench/suite_by_lesson.py /tmp/suite.xml

Seconds are summed over the xdist workers, so they add up to more than the wall time. Work shared
by several lessons is not charged to the test that happened to start it: each lesson gets what was
spent on it (its `lessonkit check` in the one site build, its grading in the one Pyodide run, its
notebook in the one kernel, its broken companions' checks in the one launch), and what serves
every lesson (the build's bundling, the starts of Pyodide, of the kernel, of torch's processes and
of the lesson tab's Python, session fixtures) is course-wide; the tests record both as
`charge:<lesson>` properties (sitebuild.testing.charge). A module's own shared page stays with
its first test.
Issue 27's goal is 30 s per lesson. A benchmark that prints figures, not a test.
"""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "py"), str(REPO / "tools")]
from authorkit.course import Course  # noqa: E402
from sitebuild.testing import CHARGE, COURSE_WIDE  # noqa: E402


def lesson_of(test_id: str, slugs: list[str]) -> str:
    """The lesson a test id names (as a parameter like [tp-mlp] or a module like
    test_tp_mlp_lesson), or "course-wide"."""
    words = test_id.lower().replace("_", "-")
    named = [slug for slug in slugs if slug in words]
    return max(named, key=len) if named else COURSE_WIDE


def seconds_by_lesson(junit_xml: Path, slugs: list[str]) -> tuple[dict[str, float], dict[str, int]]:
    """({lesson or COURSE_WIDE: seconds}, {lesson or COURSE_WIDE: tests}) of a JUnit XML file:
    each test's time, less what it carried for others, is its lesson's; each `charge:<lesson>`
    property is that lesson's."""
    seconds: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        lesson = lesson_of(f"{case.get('classname')}::{case.get('name')}", slugs)
        own = float(case.get("time", 0))
        for prop in case.iter("property"):
            if prop.get("name", "").startswith(CHARGE):
                seconds[prop.get("name").removeprefix(CHARGE)] += float(prop.get("value"))
                own -= float(prop.get("value"))
        seconds[lesson] += max(0.0, own)  # below 0 where lessons checked side by side were charged
        tests[lesson] += 1
    return seconds, tests


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    slugs = [folder.name for folder in Course(REPO / "lessons").dirs()]
    seconds, tests = seconds_by_lesson(Path(sys.argv[1]), slugs)
    print("| lesson | tests | seconds |\n|---|---:|---:|")
    for lesson in [*slugs, COURSE_WIDE]:
        print(f"| {lesson} | {tests[lesson]} | {seconds[lesson]:.0f} |")
    print(f"| all | {sum(tests.values())} | {sum(seconds.values()):.0f} |")


if __name__ == "__main__":
    main()
