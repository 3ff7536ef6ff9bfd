"""Every lesson's companion as a practitioner gets it: the downloaded notebook alone in an empty
folder runs end to end with every check passing (gloo on CPU here), and the zip holds the
generated torchrun script, the library, companionkit and a README. The checks at the lesson's own
sizes run once, in the notebook; one download's script runs under torchrun in test_plan.py
(companionkit.gpu_runs' CPU sweep), since the script is the same generated entry for every lesson.

The notebooks share one Jupyter kernel (a kernel start and its torch import cost as much as a
small lesson's checks): each runs from its own empty folder after a cell that forgets the previous
lesson's companionkit and library, so that its code is imported from the files its first cell
wrote, as in a fresh kernel; each notebook still starts its own ranks (`ck.run_all`)."""

import json
import re
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from companionkit import bundle, gpu_runs

ROOT = Path(__file__).resolve().parents[2]
COMPANIONS = dict(gpu_runs.companions())  # lesson folder -> its [companion] table
LESSONS = list(COMPANIONS)
KERNEL = "tp-companion-test"


def companion_of(lesson):
    return COMPANIONS[lesson]


@pytest.fixture(scope="module")
def venv_kernel(tmp_path_factory):
    """A kernel spec for this interpreter in a private folder, so the notebook runs with the
    project's packages and nothing is registered outside the test."""
    prefix = tmp_path_factory.mktemp("kernel")
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(prefix), "--name", KERNEL],
                   check=True, capture_output=True)
    return prefix / "share" / "jupyter"


@pytest.fixture
def downloads(tmp_path, request):
    lesson = request.param
    out = tmp_path / "site"
    names = bundle.write_downloads(lesson, lesson.name, lesson.name, companion_of(lesson), out)
    return lesson, out, names


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_committed_notebook_has_no_outputs_and_starts_with_the_library_cell(lesson):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nbformat warns of what will become an error (a cell without an id)
        nb = nbformat.read(lesson / companion_of(lesson)["notebook"], as_version=4)
        nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert bundle.LIBRARY_TAG in code[0].metadata.get("tags", [])
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, cell.source[:80]


def test_a_notebook_without_the_library_cell_is_refused_with_its_path(tmp_path):
    lesson = ROOT / "lessons" / "tp-mlp"
    nb = nbformat.read(lesson / "companion.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.metadata["tags"] = []
    folder = tmp_path / "tp-mlp"
    (folder / "companion").mkdir(parents=True)
    for rel in companion_of(lesson).values():
        (folder / rel).write_bytes((lesson / rel).read_bytes())
    nbformat.write(nb, folder / "companion.ipynb")
    with pytest.raises(ValueError, match=r"companion\.ipynb:1: the first code cell must be the library cell"):
        bundle.write_downloads(folder, "tp-mlp", "t", companion_of(lesson), tmp_path / "out")


# Run between two lessons' notebooks in the shared kernel: what a fresh kernel would not have.
FORGET = """import os, sys
for _name, _module in list(sys.modules.items()):  # the previous notebook's companionkit and library
    if os.path.basename(os.path.dirname(getattr(_module, "__file__", None) or "")).endswith("_companion") \\
            or _name.split(".")[0] == "companionkit":
        del sys.modules[_name]
sys.path[:] = [p for p in sys.path if not p.endswith("_companion")]
os.chdir({folder!r})
"""
_notebooks = {}


@pytest.fixture
def notebook_run(request, venv_kernel, tmp_path_factory, monkeypatch):
    """notebook_run(lesson) -> (its empty folder, its executed cells, the error that stopped it or
    None): every lesson this session selected runs, on first use, in one kernel, N = 2."""
    def get(lesson):
        if lesson not in _notebooks:
            selected = {item.callspec.params["lesson"] for item in request.session.items
                        if item.module is request.module and hasattr(item, "callspec")
                        and "notebook_run" in item.fixturenames} | {lesson}
            run_notebooks(sorted(selected - set(_notebooks)), venv_kernel, tmp_path_factory, monkeypatch)
        return _notebooks[lesson]
    return get


def run_notebooks(lessons, venv_kernel, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(venv_kernel))
    monkeypatch.setenv("TP_COMPANION_WORLD_SIZES", "2")
    plan, combined = [], nbformat.v4.new_notebook()
    for lesson in lessons:
        site, empty = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp(f"{lesson.name}-empty")
        names = bundle.write_downloads(lesson, lesson.name, lesson.name, companion_of(lesson), site)
        (empty / names["notebook"]).write_bytes((site / names["notebook"]).read_bytes())
        cells = nbformat.read(empty / names["notebook"], as_version=4).cells
        combined.cells.append(nbformat.v4.new_code_cell(FORGET.format(folder=str(empty))))
        start = len(combined.cells)
        combined.cells += cells
        plan.append((lesson, empty, start, len(combined.cells)))
    client = NotebookClient(combined, timeout=600, kernel_name=KERNEL, resources={"metadata": {"path": str(plan[0][1])}})
    with client.setup_kernel():
        for lesson, empty, start, end in plan:
            error = None
            try:
                for index in range(start - 1, end):
                    client.execute_cell(combined.cells[index], index)
            except CellExecutionError as exc:  # this lesson stops here; the next one still runs
                error = exc
            _notebooks[lesson] = (empty, combined.cells[start:end], error)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_the_notebook_alone_in_an_empty_folder_passes_every_check(lesson, notebook_run):
    empty, cells, error = notebook_run(lesson)
    assert error is None, str(error)[-3000:]
    written = empty / bundle.folder_name(lesson.name)
    assert (written / "companionkit" / "registry.py").is_file()
    report = json.loads((empty / "companion-report.json").read_text())
    assert report["schema"] == "companionkit.device-report/1"
    assert {"torch", "nccl", "cuda", "gpus"} <= set(report["environment"])
    [run] = [r for r in report["runs"] if not r["local_only"]]
    assert run["world"] == 2 and run["backend"] == "gloo"
    # The checks ran from the files the notebook wrote, not from the repository.
    assert all(Path(path).is_relative_to(written) for path in run["code"]), run["code"]
    assert all(c["status"] in ("PASS", "SKIP") for c in run["checks"]), [c for c in run["checks"] if c["status"] == "FAIL"]
    assert len(run["checks"]) >= 5
    outputs = "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.outputs)
    assert str(written) in outputs
    assert not re.search(r"(Future|Deprecation|User)Warning", outputs), outputs[-3000:]
    assert re.search(r"N=2 \(gloo, .*\): \d+ passed, 0 failed", outputs), outputs[-2000:]


@pytest.mark.parametrize("downloads", LESSONS, ids=lambda p: p.name, indirect=True)
def test_the_zip_holds_the_generated_script_the_library_a_readme_and_the_notebook(downloads, tmp_path):
    # Every lesson's script is the same generated entry; tests/companion/test_plan.py runs one
    # download's script under torchrun (companionkit.gpu_runs), the notebook test runs every library.
    lesson, out, names = downloads
    companion = companion_of(lesson)
    with zipfile.ZipFile(out / names["zip"]) as z:
        z.extractall(tmp_path / "unzipped")
    folder = tmp_path / "unzipped" / f"{lesson.name}-companion"
    readme = (folder / "README.md").read_text()
    assert bundle.INSTALL in readme and bundle.torchrun_line(names["script"]) in readme and "PASS" in readme
    assert (folder / names["notebook"]).read_bytes() == (out / names["notebook"]).read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbformat.validate(nbformat.read(folder / names["notebook"], as_version=4))
    assert names["script"] == lesson.name.replace("-", "_") + "_check.py"
    assert (folder / names["script"]).read_text() == bundle.script_text(lesson.name, companion)
    library = Path(companion["library"]).name
    assert f"import {Path(library).stem}\n" in bundle.script_text(lesson.name, companion)
    assert (folder / library).read_bytes() == (lesson / companion["library"]).read_bytes()
    assert sorted(p.name for p in (folder / "companionkit").iterdir()) == sorted(bundle.SHIPPED_MODULES)
