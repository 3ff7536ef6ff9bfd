"""What the test suites share: the built site (tests/site, tests/browser and tests/lessons build
it once per pytest session into pytest's temporary folder instead of each building its own, and
keep what the build printed beside it; the same for a site of other lessons, such as
tests/fixtures/lessons, or any folder a session fills once), and a driver for
`build.py serve --watch` (tests/site/test_watch.py, bench/watch_bench.py)."""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Beside a shared site's dist/: what its build printed.
BUILD_LOG = "build.log"


def build_site(out: Path, lessons: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `python build.py --out OUT [--lessons LESSONS]` as a learner's author would
    (`check=False`: with `--no-check`)."""
    cmd = [sys.executable, str(ROOT / "build.py"), "--out", str(out)]
    if lessons is not None:
        cmd += ["--lessons", str(lessons)]
    if not check:
        cmd.append("--no-check")
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)


def shared_folder(tmp_path_factory, name: str, make) -> Path:
    """The folder NAME in the pytest session's temporary folder, filled by make(folder) once per
    session: under pytest-xdist each worker has its own basetemp inside the run's, so the folder
    goes in the run's, the first worker to need it filling it while the others wait on a lock."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, done = base / name, base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed first try left
            folder.mkdir(parents=True)
            make(folder)
            done.touch()
    return folder


def shared_site(tmp_path_factory, lessons: Path | None = None, check: bool = True) -> Path:
    """dist/ built once per session from `lessons` (default: the repository's lessons/), so that
    every suite testing the same site reuses one build; for the repository's lessons, the
    already-built site in $TP_SITE_DIST if set (to test a given build, e.g. the one about to be
    published). `check=False`: without `lessonkit check` (a copy of a lesson the shared build
    checks, changed only in what no check depends on)."""
    if lessons is None and os.environ.get("TP_SITE_DIST"):
        return Path(os.environ["TP_SITE_DIST"]).resolve()
    name = "shared-site" if lessons is None else \
        "shared-site-" + hashlib.sha256(str(Path(lessons).resolve()).encode()).hexdigest()[:12]

    def build(folder: Path):
        proc = build_site(folder / "dist", lessons, check)
        if proc.returncode != 0:
            raise RuntimeError(f"build.py failed:\n{proc.stdout}\n{proc.stderr}")
        (folder / BUILD_LOG).write_text(proc.stdout, encoding="utf-8")
    return shared_folder(tmp_path_factory, name, build) / "dist"


def shared_build_log(tmp_path_factory) -> str | None:
    """What the build of `shared_site(tmp_path_factory)` printed (it names every lesson it ran
    `lessonkit check` on, and stops at the first that fails); None for a site given in
    $TP_SITE_DIST, built elsewhere."""
    log = shared_site(tmp_path_factory).parent / BUILD_LOG
    return log.read_text(encoding="utf-8") if log.is_file() else None


class Watcher:
    """`build.py serve --watch --port 0` on a lessons folder, its output read line by line."""

    def __init__(self, lessons: Path, out: Path, start_timeout: float = 240):
        self.lessons, self.out = lessons, out
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "build.py"), "serve", "--watch", "--port", "0",
             "--out", str(out), "--lessons", str(lessons)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.url = re.search(r"at (http://\S+/),", self.wait_for("Serving ", start_timeout)).group(1)

    def wait_for(self, needle: str, timeout: float = 240) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("the watcher ended:\n" + "".join(self.lines))
            self.lines.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no {needle!r} within {timeout} s:\n" + "".join(self.lines))

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
