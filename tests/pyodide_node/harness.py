"""Runs lessonkit inside Pyodide 0.27.7 under Node (driver.mjs); shared by the test and by
bench/grade_bench.py. Inputs come from `.cache/vendor/` (filled and verified by
`build.py fetch`); the Pyodide core may also come from the pinned npm package."""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
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


def grade_lessons_in_pyodide(lessons: list[dict], timeout: float = 900) -> list[dict]:
    """Grade many lessons' solutions in one Node process (one Pyodide start for all).
    `lessons`: [{"id", "files": [(relative path, host path)], "solutions": {name: source}}].
    Returns [{"lesson", "name", "report"}]."""
    job = {
        **_inputs(),
        "lessons": [{"id": l["id"], "files": [[str(r), str(h)] for r, h in l["files"]],
                     "solutions": [{"name": k, "source": v} for k, v in l["solutions"].items()]}
                    for l in lessons],
    }
    return _run(job, timeout)[1:]


def grade_in_pyodide(lesson_dir: Path, solutions: dict[str, str], *, repeat: int = 1,
                     prepare: bool = False, calls: list | None = None,
                     timeout: float = 300) -> tuple[float, list[dict]]:
    """Grade each solution `repeat` times in one Node process (and, with `calls`, run them
    through `browser.run_calls_json` too).

    Returns (seconds until ready, [{"name", "run", "ms", "report"} or {"name", "calls"}])."""
    job = {
        **_inputs(), "lesson_dir": str(lesson_dir),
        "solutions": [{"name": k, "source": v} for k, v in solutions.items()],
        "repeat": repeat, "prepare": prepare, "calls": calls,
    }
    ready, *results = _run(job, timeout)
    return ready["ready"] / 1000, results


def _inputs() -> dict:
    return {"core_dir": str(core_dir()), "numpy_wheel": str(VENDOR / NUMPY_WHEEL),
            "wheels": [str(VENDOR / w) for w in PURE_WHEELS],
            "engine_dir": str(REPO / "py" / "lessonkit")}


def _run(job: dict, timeout: float) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        job_path = Path(tmp) / "job.json"
        job_path.write_text(json.dumps(job))
        try:
            run = subprocess.run(["node", str(DRIVER), str(job_path)], capture_output=True,
                                 text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired as exc:
            done = [json.loads(line).get("name") for line in (exc.stdout or b"").decode()
                    .splitlines() if line.startswith("{")]
            raise RuntimeError(f"node driver timed out after {timeout} s; finished: {done}")
    if run.returncode != 0:
        raise RuntimeError(f"node driver failed ({run.returncode}):\n{run.stderr[-4000:]}")
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
