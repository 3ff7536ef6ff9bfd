"""Every companion check can fail. Each lesson's companion/mutations.toml lists broken copies of its
library (or of companionkit) and the checks each must make FAIL, or the section whose exception
must stop every rank (`aborts`); the copies of all selected lessons run in one launch of two gloo
processes (companionkit.mutate.run_many). The unbroken library's run, with the same options, is
the lesson's notebook run (companion_runs.py), not a second run of the same checks. A lesson adds
mutations as data only."""

import dataclasses
import time
from pathlib import Path

import pytest

from companion_runs import COMPANION_RUNS, COMPANIONS, lesson_of, notebook_report, suite_of
from companionkit import mutate
from sitebuild.testing import charge_shared

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p.parents[1] for p in ROOT.glob("lessons/*/companion/mutations.toml"))
CASES = [(lesson, i) for lesson in LESSONS for i in range(len(suite_of(lesson).mutations))]
_reports = {}


@pytest.fixture
def outcome(request, notebook_run):
    """outcome(lesson) -> (suite, reports): its mutate.Suite, and the unbroken report (its
    notebook's) followed by one per mutation; the copies of all selected lessons run together on
    first use."""
    def get(lesson):
        if lesson not in _reports:
            selected = {lesson_of(item) for item in request.session.items
                        if item.module is request.module and "outcome" in item.fixturenames} - {None}
            wanted = sorted((selected | {lesson}) - set(_reports))
            suites = [suite_of(l) for l in wanted]
            libraries = [l / COMPANIONS[l]["library"] for l in wanted]
            began = time.perf_counter()
            reports = mutate.run_many([(lib, suite.mutations, suite.options) for lib, suite in zip(libraries, suites)],
                                      unbroken=False)
            # Each lesson's copies were imported and checked for it; starting the processes is
            # course-wide.
            checks = {l.name: sum(r.get("copy_s", 0.0) for r in rs) for l, rs in zip(wanted, reports)}
            charge_shared(time.perf_counter() - began, checks, sum(checks.values()))
            _reports.update({l: (suite, [notebook_report(l, notebook_run), *r]) for l, suite, r in zip(wanted, suites, reports)})
        return _reports[lesson]
    return get


def case_id(case):
    lesson, i = case
    return f"{lesson.name}::{suite_of(lesson).mutations[i].name}"


@pytest.mark.slow
@COMPANION_RUNS
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_the_unbroken_companion_passes_every_check_with_the_mutation_options(lesson, outcome):
    suite, reports = outcome(lesson)
    unbroken = reports[0]
    assert unbroken is not None, "its notebook stopped before writing a report (see the notebook test)"
    assert unbroken["checks"], unbroken
    failed = [f"{c['id']}: {c['detail']}" for c in unbroken["checks"]
              if c["status"] == "FAIL" and not mutate.matches(c["id"], suite.machine_dependent)]
    assert not failed, failed


@pytest.mark.slow
@COMPANION_RUNS
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_broken_copy_fails_exactly_the_checks_it_names(case, outcome):
    lesson, i = case
    suite, reports = outcome(lesson)
    mutation = suite.mutations[i]
    problem = mutate.verdict(mutation, reports[i + 1])
    assert problem is None, f"{mutation.name!r} (mutations.toml:{mutation.line}): {problem}"


@pytest.mark.slow
@COMPANION_RUNS
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_every_check_is_failed_by_some_mutation(lesson, outcome):
    _, reports = outcome(lesson)
    assert reports[0] is not None, "its notebook stopped before writing a report (see the notebook test)"
    checks = {c["id"] for c in reports[0]["checks"]}
    failed = {c["id"] for r in reports[1:] if "checks" in r for c in r["checks"] if c["status"] == "FAIL"}
    assert not checks - failed, f"no mutation makes these checks fail: {sorted(checks - failed)}"


def test_every_lesson_with_a_companion_has_mutations():
    declared = set(COMPANIONS)
    assert declared <= set(LESSONS), f"no companion/mutations.toml in {sorted(p.name for p in declared - set(LESSONS))}"


def test_a_replace_text_that_is_not_found_once_is_a_located_error(tmp_path):
    library = ROOT / "lessons" / "tp-mlp" / "companion" / "tp_mlp_lib.py"
    missing = mutate.Mutation("typo", "tp_mlp_lib.py", "no such line\n", "", ["x/y"], [], 7)
    with pytest.raises(mutate.MutationError, match=r"'typo' \(line 7\): its `replace` text occurs 0 times"):
        mutate.write_copy(tmp_path / "copy", library, missing)


def test_check_patterns_treat_only_the_star_as_special():
    assert mutate.matches("forward/fp32", ["forward/*"])
    assert not mutate.matches("forward/fp32", ["forward/fp3?"])
    assert mutate.matches("a/[x]", ["a/[x]"])


TOY = '''"""A toy companion for the harness's own test."""
import torch
import torch.distributed as dist

from companionkit import Companion

companion = Companion(__name__, lesson="toy")


@companion.section("s", "toy")
def s(run):
    value = 1
    dist.all_reduce(torch.ones(3))
    run.expect("one", "one is one", value == 1, f"value {value}")


@companion.section("after", "a section after it")
def after(run):
    run.expect("two", "it runs too", True, "yes")
'''


@pytest.mark.slow
@COMPANION_RUNS  # the launches of one pytest process share its fork server (torch imported once)
def test_a_rank_that_raises_alone_stops_every_rank_with_its_error_and_the_next_copies_still_run(tmp_path):
    # Rank 1 raises before the section's all-reduce that rank 0 is already waiting in: without the
    # abort, rank 0 would wait for the gloo timeout, or rank 1's next collective would be matched
    # with the wrong one.
    library = tmp_path / "toy_lib.py"
    library.write_text(TOY)
    wrong = mutate.Mutation("two", "toy_lib.py", "    value = 1\n", "    value = 2\n", ["s/one"], [], 1)
    raises = mutate.Mutation("rank 1 raises", "toy_lib.py", "    value = 1\n",
                             "    value = 1\n    if run.rank == 1:\n        raise RuntimeError('rank one broke')\n",
                             [], [], 2, aborts="s@1")
    dies = mutate.Mutation("rank 1 dies", "toy_lib.py", "    value = 1\n",
                           "    value = 1\n    if run.rank == 1:\n        import os\n        os._exit(3)\n", ["s/one"], [], 3)
    unbroken, first, aborted, crashed, after = mutate.run(library, [wrong, raises, dies, wrong], {"timeout_s": 60})
    assert [c["status"] for c in unbroken["checks"]] == ["PASS", "PASS"]
    assert mutate.verdict(wrong, first) is None and mutate.verdict(wrong, after) is None
    assert aborted["aborted"] == {"rank": 1, "section": "s", "error": "RuntimeError: rank one broke"}, aborted
    assert mutate.verdict(raises, aborted) is None
    assert "expected an abort in section 's@0'" in mutate.verdict(dataclasses.replace(raises, aborts="s@0"), aborted)
    assert "its run aborted: rank 1 raised in section 's'" in mutate.verdict(wrong, aborted)
    # Rank 0's next collective sees its peer gone and raises: an abort with rank 0's error, or a
    # crash if the launcher stopped rank 0 first; either way its checks did not pass.
    assert "remote worker" in crashed.get("aborted", {}).get("error", "") or "error" in crashed, crashed
    print(f"the other rank stopped {aborted['stopped_after_s']} s after rank 1 raised")
