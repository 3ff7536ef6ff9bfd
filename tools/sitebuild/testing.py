"""What the test suites share: the built site (tests/site, tests/browser and tests/lessons build
it once per pytest session into pytest's temporary folder instead of each building its own, and
keep what the build printed beside it; the same for a site of other lessons, such as
tests/fixtures/lessons, or any folder a session fills once), and a driver for
`build.py serve --watch` (tests/site/test_watch.py, bench/watch_bench.py)."""
from __future__ import annotations

import fcntl
from contextlib import contextmanager
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
# A build's lines for each lesson it checked, and for the whole check (tools/sitebuild/lessons.py).
CHECKED = re.compile(r"^\[build\] checked lessons/(\S+) in ([\d.]+) s$", re.M)
CHECKED_ALL = re.compile(r"^\[build\] checked \d+ lessons in ([\d.]+) s", re.M)

# Seconds of shared work, by the lesson they were spent on (COURSE_WIDE: on no one lesson).
# Work done once for several lessons (the site build, every lesson graded in one Pyodide, every
# notebook in one kernel) would otherwise count wholly against the lesson whose test happened to
# start it in the suite's per-lesson figures (bench/suite_by_lesson.py); tests/charges.py hands
# what is charged here to the running test's JUnit properties, and the bench moves it.
COURSE_WIDE = "course-wide"
CHARGE = "charge:"  # the JUnit property's name: CHARGE + lesson
_charges: list[tuple[str, float]] = []


def charge(lesson: str, seconds: float) -> None:
    _charges.append((lesson, seconds))


@contextmanager
def charged(lesson: str):
    """The seconds the block takes, charged to `lesson`."""
    start = time.perf_counter()
    try:
        yield
    finally:
        charge(lesson, time.perf_counter() - start)


def pending_seconds() -> float:
    return sum(seconds for _, seconds in _charges)


def take_charges() -> list[tuple[str, float]]:
    taken = _charges[:]
    _charges.clear()
    return taken


def charge_shared(seconds: float, by_lesson: dict[str, float], lessons_wall: float) -> None:
    """`seconds` of shared work, of which `lessons_wall` went to single lessons, `by_lesson`
    each (run side by side, they may add up to more than `lessons_wall`); the rest is
    course-wide."""
    for lesson, spent in by_lesson.items():
        charge(lesson, spent)
    charge(COURSE_WIDE, max(0.0, seconds - lessons_wall))


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
    goes in the run's, the first worker to need it filling it while the others wait on a lock
    (the wait is course-wide; make() charges its own work)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, done = base / name, base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        with charged(COURSE_WIDE):  # waiting for another worker's make()
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
        start = time.perf_counter()
        proc = build_site(folder / "dist", lessons, check)
        if proc.returncode != 0:
            raise RuntimeError(f"build.py failed:\n{proc.stdout}\n{proc.stderr}")
        (folder / BUILD_LOG).write_text(proc.stdout, encoding="utf-8")
        # A build of lessons/: their checks are theirs; of other lessons (fixtures): course-wide.
        checked = {m[1]: float(m[2]) for m in CHECKED.finditer(proc.stdout)} if lessons is None else {}
        wall = CHECKED_ALL.search(proc.stdout) if checked else None
        charge_shared(time.perf_counter() - start, checked, float(wall[1]) if wall else 0.0)
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
