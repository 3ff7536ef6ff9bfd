"""Runs lessonkit inside Pyodide 0.27.7 under Node (driver.mjs): every lesson of a job in one
Node process, one Pyodide start. Used by tests/lessons (the parity suite) and by
bench/grade_bench.py. Inputs come from `.cache/vendor/` (filled and verified by
`build.py fetch`); the Pyodide core may also come from the pinned npm package."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from sitebuild.lessons import engine_entries, shipped_paths  # noqa: E402

VENDOR = REPO / ".cache" / "vendor"
DRIVER = Path(__file__).with_name("driver.mjs")
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
PURE_WHEELS = ["pytest-8.1.1-py3-none-any.whl", "pluggy-1.5.0-py3-none-any.whl",
               "iniconfig-2.0.0-py3-none-any.whl", "packaging-24.2-py3-none-any.whl"]
CORE_FILES = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
              "pyodide-lock.json"]


def missing() -> str | None:
    """Why Pyodide cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    for name in [NUMPY_WHEEL, *PURE_WHEELS]:
        if not (VENDOR / name).is_file():
            return f"{VENDOR / name} is missing (run `.venv/bin/python build.py fetch`)"
    if core_dir() is None:
        return (f"no Pyodide core: neither {VENDOR} nor node_modules/pyodide holds "
                f"{', '.join(CORE_FILES)} (run `npm ci`)")
    return None


def core_dir() -> Path | None:
    for candidate in (VENDOR, REPO / "node_modules" / "pyodide"):
        if all((candidate / f).is_file() for f in CORE_FILES):
            return candidate
    return None


def grade_lessons_in_pyodide(lessons: list[tuple], *, repeat: int = 1, prepare: bool = True,
                             timeout: float = 600, seed: int | None = None) -> tuple[float, list[dict]]:
    """Grade each lesson's solutions `repeat` times, all in one Node process.

    `lessons`: [(lessonkit Lesson, {solution name: source}, calls or None)]; with `calls` (the
    page's "try with my code" list) each solution also runs through `browser.run_calls_json`.
    `prepare`: warm each lesson up first, as the page does before the first Run.
    `seed`: grade()'s, for the checks' fresh arguments (None: drawn for each run).
    Returns (seconds until ready, [{"lesson", "name", "run", "ms", "report"} or
    {"lesson", "name", "ms", "calls"}])."""
    job = {
        "core_dir": str(core_dir()), "numpy_wheel": str(VENDOR / NUMPY_WHEEL),
        "wheels": [str(VENDOR / w) for w in PURE_WHEELS],
        "engine_files": [[name, str(path)] for name, path in engine_entries(REPO / "py")],
        "prepare": prepare, "repeat": repeat, "seed": seed,
        "lessons": [{"id": lesson.id,
                     "files": [[p.as_posix(), str(lesson.path / p)] for p in shipped_paths(lesson)],
                     "solutions": [{"name": k, "source": v} for k, v in solutions.items()],
                     "calls": calls}
                    for lesson, solutions, calls in lessons],
    }
    ready, *results = _run(job, timeout)
    return ready["ready"] / 1000, results


def grade_in_pyodide(lesson_dir: Path, solutions: dict[str, str], *, repeat: int = 1,
                     prepare: bool = False) -> tuple[float, list[dict]]:
    """One lesson's solutions (bench/grade_bench.py: cold and warm grading times)."""
    from lessonkit import load_lesson
    return grade_lessons_in_pyodide([(load_lesson(lesson_dir), solutions, None)], repeat=repeat,
                                    prepare=prepare)


def _run(job: dict, timeout: float) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        job_path = Path(tmp) / "job.json"
        job_path.write_text(json.dumps(job))
        try:
            run = subprocess.run(["node", str(DRIVER), str(job_path)], capture_output=True,
                                 text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired as exc:
            lines = (exc.stdout or b"").decode().splitlines()
            done = [(r.get("lesson"), r.get("name")) for r in (json.loads(l) for l in lines if l.startswith("{"))
                    if "name" in r]
            raise RuntimeError(f"node driver timed out after {timeout} s; finished: {done}")
    if run.returncode != 0:
        raise RuntimeError(f"node driver failed ({run.returncode}):\n{run.stderr[-4000:]}")
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
