"""The single download: a notebook that carries companionkit and the lesson's library in its first
code cell, and a zip with that notebook, the torchrun script and a README. Used by build.py and by
the tests (which run the notebook alone in an empty folder). Needs no torch."""

import io
import json
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# What the downloaded companion imports; the bundling and the mutation harness are tooling.
SHIPPED_MODULES = ("__init__.py", "__main__.py", "attention.py", "comparing.py", "examples.py", "formulas.py",
                   "launch.py", "measure.py", "mlp.py", "models.py", "plots.py", "registry.py", "results.py", "shards.py",
                   "tp.py")
LIBRARY_TAG = "companion-library"
NOTEBOOK_NAME = "companion.ipynb"
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
INSTALL = "pip install torch matplotlib jupyter"


def folder_name(lesson_id):
    """Where the notebook's first cell writes the files: ./tp_mlp_companion/."""
    return lesson_id.replace("-", "_") + "_companion"


def zip_name(lesson_id):
    return f"{lesson_id}-companion.zip"


def torchrun_line(script_name):
    return f"torchrun --standalone --nproc_per_node=2 {script_name}"


def script_name(lesson_id, companion):
    """The generated torchrun script's file name, <slug_>_check.py."""
    return lesson_id.replace("-", "_") + "_check.py"


def script_text(lesson_id, companion):
    """The torchrun script, the same three lines for every lesson but the library's name."""
    module = Path(companion["library"]).stem
    return (f'"""The {lesson_id} companion\'s checks under torchrun (the same checks as {NOTEBOOK_NAME}):\n\n'
            f"    {torchrun_line(script_name(lesson_id, companion))} [--device-report report.json] [--option NAME=JSON]\n\n"
            "NCCL with one process per GPU when every local process has a GPU, gloo on CPU otherwise (--cpu\n"
            'forces it). Rank 0 prints every check and a summary; the exit status is 1 if any check failed."""\n\n'
            f"import companionkit\nimport {module}\n\n"
            f'if __name__ == "__main__":\n    companionkit.torchrun_main({module}.companion)\n')


def library_files(lesson_dir, companion, lesson_id):
    """{relative path: text} of what the companion needs besides torch: companionkit, the lesson's
    library and its torchrun script."""
    files = {f"companionkit/{name}": (PACKAGE / name).read_text(encoding="utf-8") for name in SHIPPED_MODULES}
    library = Path(lesson_dir) / companion["library"]
    files[library.name] = library.read_text(encoding="utf-8")
    files[script_name(lesson_id, companion)] = script_text(lesson_id, companion)
    return files


def _raw_literal(name, text):
    if "'''" in text or text.endswith("\\"):
        raise ValueError(f"{name}:1: cannot be embedded in the notebook as r'''...''' "
                         "(it contains ''' or ends with a backslash); use \"\"\" instead")
    return "r'''" + text + "'''"


def library_cell_source(lesson_id, files):
    folder = folder_name(lesson_id)
    entries = "".join(f"    {json.dumps(name)}: {_raw_literal(name, text)},\n" for name, text in files.items())
    return (f"#@title The companion's code: run this cell first (it writes {len(files)} files into ./{folder}/)\n"
            "# companionkit (processes, check registry, reports, measurements) and this lesson's checks, embedded\n"
            f"# so that this notebook runs on its own, in Jupyter or Colab. The same files are in {zip_name(lesson_id)}.\n"
            "import pathlib\nimport sys\n\n"
            "_FILES = {\n" + entries + "}\n"
            f"_root = pathlib.Path({json.dumps(folder)}).resolve()\n"
            "for _name, _text in _FILES.items():\n"
            "    (_root / _name).parent.mkdir(parents=True, exist_ok=True)\n"
            "    (_root / _name).write_text(_text, encoding=\"utf-8\")\n"
            "if str(_root) not in sys.path:\n"
            "    sys.path.insert(0, str(_root))  # spawned processes inherit it\n"
            "print(f\"wrote {len(_FILES)} files into {_root}\")\n")


def notebook_for_download(lesson_dir, lesson_id, companion):
    """The lesson's notebook (JSON text) with its first code cell, tagged `companion-library`,
    replaced by the embedded library."""
    path = Path(lesson_dir) / companion["notebook"]
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    if not code or LIBRARY_TAG not in code[0].get("metadata", {}).get("tags", []):
        raise ValueError(f"{path}:1: the first code cell must be the library cell tagged {LIBRARY_TAG!r} "
                         "(copy it from lessons/tp-mlp/companion.ipynb; see docs/companion.md)")
    cell = code[0]
    cell["source"] = library_cell_source(lesson_id, library_files(lesson_dir, companion, lesson_id)).splitlines(keepends=True)
    # Collapsed where the front end knows how: Jupyter's source_hidden, Colab's form view.
    cell["metadata"] = {**cell["metadata"], "jupyter": {"source_hidden": True}, "cellView": "form"}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def readme(lesson_id, title, companion):
    script = script_name(lesson_id, companion)
    return f"""# {title}: the companion

The lesson's math with `torch.distributed` in N real processes: NCCL with one process per GPU when
the machine has two or more GPUs, otherwise gloo on CPU processes (a laptop is enough).

## Install

    {INSTALL}

## Run

- Notebook: `jupyter notebook {NOTEBOOK_NAME}` (or upload `{NOTEBOOK_NAME}` alone to Colab) and run
  every cell. Its first cell writes the code it needs into `./{folder_name(lesson_id)}/`.
- Script, on one machine: `{torchrun_line(script)}`
  (with GPUs, set `--nproc_per_node` to the number of GPUs; `--cpu` forces gloo on CPU processes;
  `--device-report report.json` writes every check with the device, versions and timings).

## What PASS means

Every check prints `PASS`, `FAIL` or `SKIP` with the numbers it compared, and a summary table
ends the run. `PASS` means the measured value (on every rank) matched what the lesson says, within
the tolerance printed beside it; `SKIP` names a check this machine cannot take (bf16 on a GPU
without it, say) and why. The script exits with status 0 only if no check failed, and the
notebook's last cell raises if one did. Timings are printed as measurements (min / median / max
with the threads and devices used), never as PASS or FAIL. If a check raises on one rank, every
rank is stopped at once and the run ends with that rank's error. On GPUs, fp32 products run in
full fp32 (TF32 off), as the fp32 tolerances assume; the device report records the setting.
"""


def write_downloads(lesson_dir, lesson_id, title, companion, out_dir):
    """Write the notebook and the zip into `out_dir`; return their file names."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    notebook = notebook_for_download(lesson_dir, lesson_id, companion)
    (out_dir / NOTEBOOK_NAME).write_text(notebook, encoding="utf-8")
    top = f"{lesson_id}-companion/"
    entries = {NOTEBOOK_NAME: notebook, "README.md": readme(lesson_id, title, companion),
               **library_files(lesson_dir, companion, lesson_id)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in entries.items():
            info = zipfile.ZipInfo(top + name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, text.encode("utf-8"))
    (out_dir / zip_name(lesson_id)).write_bytes(buffer.getvalue())
    return {"notebook": NOTEBOOK_NAME, "zip": zip_name(lesson_id), "script": script_name(lesson_id, companion)}
