"""Every lesson's companion as a practitioner gets it: the downloaded notebook alone in an empty
folder runs end to end with every check passing (gloo on CPU here), and the zip holds the
generated torchrun script, the library, companionkit and a README. The notebooks run in one
Jupyter kernel at their mutation suite's small options (conftest.py: that run is also the mutation
suite's unbroken run); one download's script runs under torchrun in test_plan.py (companionkit.
gpu_runs' CPU sweep), since the script is the same generated entry for every lesson. Each
notebook still starts its own ranks (`ck.run_all`)."""

import json
import re
import warnings
import zipfile
from pathlib import Path

import nbformat
import pytest

from companionkit import bundle, launch

from companion_runs import COMPANION_RUNS, COMPANIONS

ROOT = Path(__file__).resolve().parents[2]
LESSONS = list(COMPANIONS)


def companion_of(lesson):
    return COMPANIONS[lesson]


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


@pytest.mark.slow
@COMPANION_RUNS
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
    assert f"{launch.OPTIONS_VARIABLE}: " in outputs  # it ran at the small options it was given


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
