"""The tp-mlp companion: the notebook and the torchrun script run every check on CPU (gloo, N = 2)
and all of them pass; the committed notebook carries no outputs."""

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "tp-mlp"
NOTEBOOK = LESSON / "companion.ipynb"
SCRIPT = LESSON / "companion" / "tp_mlp_check.py"
KERNEL = "tp-companion-test"
# A summary row: check number, name, then one PASS/FAIL cell per world size.
ROW = re.compile(r"^\s*([1-8])\s+.*?((?:\s+(?:PASS|FAIL|-))+)\s*$", re.M)


def assert_all_passed(summary):
    rows = ROW.findall(summary)
    assert {number for number, _ in rows} == {str(n) for n in range(1, 9)}, summary
    failed = [number for number, cells in rows if set(cells.split()) != {"PASS"}]
    assert not failed, f"checks {failed} did not pass:\n{summary}"
    total = re.search(r"(\d+) of (\d+) checks passed", summary)
    assert total and total.group(1) == total.group(2), summary


def test_committed_notebook_has_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, cell.source[:80]


@pytest.fixture
def venv_kernel(tmp_path, monkeypatch):
    """A kernel spec for this interpreter in a private folder, so the notebook runs with the
    project's packages and nothing is registered outside the test."""
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(tmp_path), "--name", KERNEL],
                   check=True, capture_output=True)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))
    return KERNEL


@pytest.mark.slow
def test_notebook_runs_every_check_on_cpu(venv_kernel, monkeypatch):
    monkeypatch.setenv("TP_COMPANION_WORLD_SIZES", "2")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name=venv_kernel, resources={"metadata": {"path": str(LESSON)}}).execute()
    last = nb.cells[-1]
    summary = "".join(out.get("text", "") for out in last.outputs if out.output_type == "stream")
    assert "N=2" in summary
    assert_all_passed(summary)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    images = [out for cell in code for out in cell.outputs if "image/png" in out.get("data", {})]
    assert len(images) == 1, "the timing plot is missing"


@pytest.mark.slow
def test_torchrun_script_passes_with_two_ranks():
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                          str(SCRIPT)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert re.search(r"backend (gloo|nccl), world size 2", run.stdout), run.stdout[:500]
    assert len(re.findall(r"^PASS  ", run.stdout, re.M)) >= 8
    assert not re.findall(r"^FAIL  ", run.stdout, re.M), run.stdout
    assert_all_passed(run.stdout[run.stdout.index(" #  check"):])
