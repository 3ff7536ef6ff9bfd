"""The suite's seconds per lesson (bench/suite_by_lesson.py): work a test starts for several
lessons is charged to the lessons it served, and a session fixture's own time is course-wide,
not the time of the test that happened to set it up."""
import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

from sitebuild.testing import COURSE_WIDE

pytest_plugins = ["pytester"]

BENCH = Path(__file__).resolve().parents[2] / "bench" / "suite_by_lesson.py"
SLUGS = ["tp-mlp", "tp-cost", "tp-attention"]


def bench():
    spec = importlib.util.spec_from_file_location("suite_by_lesson", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shared_work_is_charged_to_the_lessons_it_served(pytester):
    pytester.makeconftest(textwrap.dedent("""
        import pytest
        from charges import Charges

        def pytest_configure(config):
            config.pluginmanager.register(Charges(), "charges")
    """))
    pytester.makepyfile(test_tp_cost_thing=textwrap.dedent("""
        import time
        import pytest
        from sitebuild.testing import charge

        @pytest.fixture(scope="session")
        def shared():
            time.sleep(0.3)
            charge("tp-mlp", 0.1)  # of those 0.3 s, what one lesson's share cost

        def test_first(shared):
            charge("tp-attention", 0.05)
            time.sleep(0.06)

        def test_second(shared):
            pass
    """))
    xml = pytester.path / "suite.xml"
    pytester.runpytest_inprocess(f"--junitxml={xml}", "-p", "no:cacheprovider").assert_outcomes(passed=2)
    seconds, tests = bench().seconds_by_lesson(xml, SLUGS)
    assert tests == {"tp-cost": 2}
    assert seconds["tp-mlp"] == 0.1 and seconds["tp-attention"] == 0.05
    assert seconds[COURSE_WIDE] >= 0.3 - 0.1 - 0.01  # the fixture's sleep, less tp-mlp's share
    assert seconds["tp-cost"] >= 0.06 - 0.05 - 0.001  # test_first's own sleep, less its charge
    # Moved, not added: the lessons' and the course's seconds are the tests' seconds.
    recorded = sum(float(t) for t in re.findall(r'<testcase [^>]*time="([\d.]+)"', xml.read_text()))
    assert sum(seconds.values()) == pytest.approx(recorded, abs=0.01)
