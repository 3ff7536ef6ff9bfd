"""The companions' runs the tests share: every selected lesson's downloaded notebook, run once in one
Jupyter kernel at its mutation suite's small options (companion/mutations.toml), is both the
notebook test and the unbroken run the mutation suite compares its broken copies with: the same
checks with the same options would otherwise run twice. Tests that use them, and the other tests
that start ranks from this process, are pinned to one pytest-xdist worker (COMPANION_RUNS), so
that the kernel runs once per session and one fork server (torch and DTensor imported once) starts
every launch."""

import json
import subprocess
import sys
import time

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from companionkit import bundle, gpu_runs, launch, mutate
from sitebuild.testing import charge_shared

COMPANIONS = dict(gpu_runs.companions())  # lesson folder -> its [companion] table
KERNEL = "tp-companion-test"
COMPANION_RUNS = pytest.mark.xdist_group("companion-runs")

# Run before each lesson's notebook in the shared kernel: what a fresh kernel would not have (the
# previous notebook's companionkit and library), its own empty folder, and its small options.
FORGET = """import os, sys
for _name, _module in list(sys.modules.items()):
    if os.path.basename(os.path.dirname(getattr(_module, "__file__", None) or "")).endswith("_companion") \\
            or _name.split(".")[0] == "companionkit":
        del sys.modules[_name]
sys.path[:] = [p for p in sys.path if not p.endswith("_companion")]
os.chdir({folder!r})
os.environ[{variable!r}] = {options!r}
"""
# Run first in the shared kernel, so that it is course-wide and not the first lesson's: torch,
# which every notebook imports, and the fork server every lesson's first launch would start, with
# torch imported in it too (companionkit.launch.start_ranks).
WARM_UP = """import multiprocessing
import torch
multiprocessing.set_forkserver_preload({preload!r})
_warm = multiprocessing.get_context("forkserver").Process(target=max, args=(0, 0))
_warm.start()
_warm.join()
"""
_notebooks = {}


def suite_of(lesson):
    return mutate.load(lesson / "companion" / "mutations.toml")


def lesson_of(item):
    params = getattr(item, "callspec", None) and item.callspec.params
    if not params:
        return None
    return params.get("lesson") or (params.get("case") or (None,))[0]


@pytest.fixture(scope="session")
def venv_kernel(tmp_path_factory):
    """A kernel spec for this interpreter in a private folder, so the notebook runs with the
    project's packages and nothing is registered outside the test."""
    prefix = tmp_path_factory.mktemp("kernel")
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(prefix), "--name", KERNEL],
                   check=True, capture_output=True)
    return prefix / "share" / "jupyter"


@pytest.fixture
def notebook_run(request, venv_kernel, tmp_path_factory):
    """notebook_run(lesson) -> (its empty folder, its executed cells, the error that stopped it or
    None): every lesson this session's companion-run tests select runs, on first use, in one kernel,
    N = 2, with its mutation suite's options."""
    def get(lesson):
        if lesson not in _notebooks:
            selected = {lesson_of(item) for item in request.session.items
                        if {"notebook_run", "outcome"} & set(getattr(item, "fixturenames", ()))} - {None}
            run_notebooks(sorted((selected | {lesson}) - set(_notebooks)), venv_kernel, tmp_path_factory)
        return _notebooks[lesson]
    return get


def run_notebooks(lessons, venv_kernel, tmp_path_factory):
    plan, combined = [], nbformat.v4.new_notebook()
    combined.cells.append(nbformat.v4.new_code_cell(WARM_UP.format(preload=launch.PRELOAD)))
    for lesson in lessons:
        site, empty = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp(f"{lesson.name}-empty")
        names = bundle.write_downloads(lesson, lesson.name, lesson.name, COMPANIONS[lesson], site)
        (empty / names["notebook"]).write_bytes((site / names["notebook"]).read_bytes())
        cells = nbformat.read(empty / names["notebook"], as_version=4).cells
        options = json.dumps(suite_of(lesson).options)
        combined.cells.append(nbformat.v4.new_code_cell(
            FORGET.format(folder=str(empty), variable=launch.OPTIONS_VARIABLE, options=options)))
        start = len(combined.cells)
        combined.cells += cells
        plan.append((lesson, empty, start, len(combined.cells)))
    with pytest.MonkeyPatch.context() as env:  # the kernel inherits these, and only it
        env.setenv("JUPYTER_PATH", str(venv_kernel))
        env.setenv(launch.WORLD_SIZES_VARIABLE, "2")
        client = NotebookClient(combined, timeout=600, kernel_name=KERNEL,
                                resources={"metadata": {"path": str(plan[0][1])}})
        began, took = time.perf_counter(), {}
        with client.setup_kernel():
            client.execute_cell(combined.cells[0], 0)
            for lesson, empty, start, end in plan:
                error, ran = None, time.perf_counter()
                try:
                    for index in range(start - 1, end):
                        client.execute_cell(combined.cells[index], index)
                except CellExecutionError as exc:  # this lesson stops here; the next one still runs
                    error = exc
                _notebooks[lesson] = (empty, combined.cells[start:end], error)
                took[lesson.name] = time.perf_counter() - ran
        # One after the other: the rest (the kernel's start and end, the warm-up) is course-wide.
        charge_shared(time.perf_counter() - began, took, sum(took.values()))


def notebook_report(lesson, notebook_run):
    """The distributed run's report (rank 0's) of the lesson's notebook, or None if it stopped
    before writing one (its last cell writes it, then raises if a check failed)."""
    empty, _, _ = notebook_run(lesson)
    if not (empty / "companion-report.json").exists():
        return None
    runs = json.loads((empty / "companion-report.json").read_text())["runs"]
    return next(r for r in runs if not r["local_only"])
