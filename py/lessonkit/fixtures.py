"""The pytest structure every lesson's checks share: the `ref` fixture that hands a conftest's
math to the checks, and parametrized cases whose ids name their values.

    # checks/conftest.py
    ref = ref_fixture(globals())

    # checks/test_lookup.py
    @cases("T,V,n", [(5, 6, 1), (7, 12, 3)])      # ids "T=5 V=6 n=1", "T=7 V=12 n=3"
    def test_random(solution, ref, T, V, n): ...
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest


def ref_fixture(names: dict, name: str = "ref"):
    """The fixture `ref` (or `name`): the names of a conftest (pass its `globals()`: the correct
    math and the classic wrong variants, however many it defines below this line) as
    attributes, `ref.loss(...)`. They live in checks/, which learner code cannot reach where it
    runs apart from the grader (docs/threat-model.md), so a solution cannot borrow their answers."""
    return pytest.fixture(name=name)(lambda: SimpleNamespace(**names))


def cases(names: str, rows: list, shown: str | None = None):
    """pytest.mark.parametrize(names, rows) with each case's id its values by name, "T=5 V=6 n=1"
    (a check id learners read); `shown` names the parameters the id shows, when not all. As in
    pytest, a row of one parameter is its value alone: `cases("n", [1, 4])`."""
    keys = [k.strip() for k in names.split(",")]
    picked = [keys.index(k.strip()) for k in (shown or names).split(",")]
    tuples = [row if len(keys) > 1 else (row,) for row in rows]
    return pytest.mark.parametrize(names, rows, ids=[" ".join(f"{keys[i]}={row[i]}" for i in picked)
                                                     for row in tuples])
