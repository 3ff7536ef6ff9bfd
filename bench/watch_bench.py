"""The live authoring loop's speed: starting `serve --watch`, and from a save to the open page
showing it.

    .venv/bin/python bench/watch_bench.py [--runs 3] [--lessons lessons] [--lesson tp-mlp]

Copies a lessons folder into a temporary one (default: one scaffolded lesson; `--lessons
lessons` for the course) and runs `build.py serve --watch` on it twice, printing the seconds until
each serves: the first start checks the lessons not checked before on the same inputs, the second
is the warm start. Then, with the lesson's page open in Chromium, it saves an edited lesson.md
`--runs` times and prints, for each, the seconds until the watcher reports the rebuild and until
the reloaded page shows the new heading; last it saves a changed check file and prints the seconds
until the rebuild and which lessons it checked again.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "py"), str(REPO / "tools")]
from authorkit.course import Course  # noqa: E402
from authorkit.scaffold import new_lesson  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from sitebuild.testing import Watcher  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def start(lessons: Path, out: Path, label: str) -> Watcher:
    started = time.monotonic()
    watcher = Watcher(lessons, out, start_timeout=1200)  # the course's first start checks every lesson
    checked = [line.split("checking ", 1)[1].strip() for line in watcher.lines if "checking " in line]
    print(f"{label} start: serving {time.monotonic() - started:.1f} s after the command "
          f"(lessons checked: {', '.join(checked) or 'none'})", flush=True)
    return watcher


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lessons", type=Path, help="a lessons folder to copy (default: a scaffolded lesson)")
    parser.add_argument("--lesson", help="the lesson whose files are saved (default: the scaffolded "
                        "lesson, or the first lesson of --lessons)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lessons = Path(tmp) / "lessons"
        if args.lessons:
            shutil.copytree(args.lessons, lessons, ignore=shutil.ignore_patterns("__pycache__"))
            args.lesson = args.lesson or Course(lessons).dirs()[0].name
        else:
            args.lesson = args.lesson or "demo-lesson"
            new_lesson(lessons, args.lesson)
        folder = lessons / args.lesson
        start(lessons, Path(tmp) / "dist", "first").stop()
        watcher = start(lessons, Path(tmp) / "dist", "warm")
        try:
            measure(watcher, folder, args)
        finally:
            watcher.stop()
    return 0


def measure(watcher: Watcher, folder: Path, args) -> None:
    md = folder / "lesson.md"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page()
        page.goto(watcher.url + f"lessons/{args.lesson}/index.html")
        page.wait_for_selector("h1")
        for run in range(args.runs):
            heading = f"Edit {run}"
            lines = md.read_text().splitlines(keepends=True)
            first = next(i for i, line in enumerate(lines) if line.startswith("# "))  # the page's h1
            lines[first] = f"# {heading}\n"
            saved = time.monotonic()
            md.write_text("".join(lines))
            watcher.wait_for("rebuilt in")
            rebuilt = time.monotonic() - saved
            page.wait_for_function(f"() => document.querySelector('h1').innerText === {heading!r}",
                                   timeout=120_000)
            shown = time.monotonic() - saved
            print(f"prose save {run + 1}: rebuilt {rebuilt:.1f} s after the save, page reloaded "
                  f"and showing it {shown:.1f} s after the save", flush=True)
        browser.close()
    check = sorted((folder / "checks").glob("test_*.py"))[0]
    seen = len(watcher.lines)
    saved = time.monotonic()
    check.write_text(check.read_text() + "\n# saved by bench/watch_bench.py\n")
    watcher.wait_for("rebuilt in", timeout=600)
    checked = [line.split("checking ", 1)[1].strip() for line in watcher.lines[seen:] if "checking " in line]
    print(f"check save ({check.name}): rebuilt {time.monotonic() - saved:.1f} s after the save, "
          f"lessons checked again: {', '.join(checked) or 'none'}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
