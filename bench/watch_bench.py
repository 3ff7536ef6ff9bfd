"""The live authoring loop's speed: from saving a prose change to the open page showing it.

    .venv/bin/python bench/watch_bench.py [--runs 3]

Runs `build.py serve --watch` on a scaffolded lesson in a temporary folder, opens its page in
Chromium, then saves an edited lesson.md `--runs` times and prints, for each, the seconds until
the watcher reports the rebuild and until the reloaded page shows the new heading.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "py"), str(REPO / "tools")]
from authorkit.scaffold import new_lesson  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from sitebuild.testing import Watcher  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        lessons = Path(tmp) / "lessons"
        md = new_lesson(lessons, "demo-lesson") / "lesson.md"
        watcher = Watcher(lessons, Path(tmp) / "dist")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page()
            page.goto(watcher.url + "lessons/demo-lesson/index.html")
            page.wait_for_selector("h1")
            for run in range(runs):
                heading = f"Edit {run}"
                text = md.read_text().splitlines(keepends=True)
                saved = time.monotonic()
                md.write_text(f"# {heading}\n" + "".join(text[1:]))
                watcher.wait_for("rebuilt in")
                rebuilt = time.monotonic() - saved
                page.wait_for_function(f"() => document.querySelector('h1').innerText === {heading!r}",
                                       timeout=60_000)
                shown = time.monotonic() - saved
                print(f"run {run + 1}: rebuilt {rebuilt:.1f} s after the save, page reloaded and "
                      f"showing it {shown:.1f} s after the save", flush=True)
            browser.close()
        watcher.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
