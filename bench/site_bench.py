#!/usr/bin/env python3
"""How fast the lesson page gets ready, measured in headless Chromium (a script, not a test).

For the tp-mlp lesson page and, in the same run, a bare page that only starts Pyodide 0.27.7 and
imports numpy in a worker (the floor any Pyodide site pays), it prints medians over N runs of:
  ready    navigation -> Python ready to run (the page's progress indicator says so)
  result   navigation -> first graded result of the reference (Run pressed at once, so it runs
           as soon as Python can)            [lesson page only]
  grade    Run -> result for the reference, once the grader is warm   [lesson page only]
  bytes    bytes transferred over the network
each for a cold load (a fresh browser profile: empty HTTP and code caches) and a warm one (the
same profile, loaded again), then our figures as ratios to the bare page's.
Goals (issue 3): cold ready <= 1.2x bare; warm ready < 0.5x cold; grade < 300 ms.

  .venv/bin/python bench/site_bench.py [--runs 5] [--no-build] [--no-isolation]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from playwright.sync_api import sync_playwright  # noqa: E402

from sitebuild.serve import serve_in_thread  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
LESSON = "tp-mlp"
TIMEOUT_MS = 120_000

BARE_HTML = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title><link rel="icon" href="data:,">
<p id="state">loading</p>
<script>
const worker = new Worker("worker.js");
worker.onmessage = ({data}) => {
  window.__readyAt = performance.now();
  document.getElementById("state").textContent = data;
};
</script>
"""
BARE_WORKER = """importScripts("../site/pyodide/pyodide.js");
(async () => {
  const indexURL = new URL("../site/pyodide/", location.href).href;
  const pyodide = await loadPyodide({indexURL, packages: ["numpy"]});
  pyodide.runPython("import numpy");
  postMessage("ready");
})();
"""
# Records when the lesson page's progress says ready and when the first result shows.
LESSON_PROBE = """
new MutationObserver(() => {
  const progress = document.getElementById('python-progress');
  if (progress && progress.dataset.state === 'ready' && !window.__readyAt) window.__readyAt = performance.now();
  const status = document.getElementById('run-status');
  if (status && ['passed', 'failed', 'error'].includes(status.dataset.state) && !window.__resultAt) {
    window.__resultAt = performance.now();
    window.__resultState = status.dataset.state;
  }
}).observe(document, {subtree: true, attributes: true, childList: true, characterData: true});
"""


def make_bench_root(dist: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="site-bench-"))
    (root / "site").symlink_to(dist.resolve())
    (root / "bare").mkdir()
    (root / "bare" / "index.html").write_text(BARE_HTML)
    (root / "bare" / "worker.js").write_text(BARE_WORKER)
    return root


class ByteCounter:
    """Response bytes that crossed the network (cache hits and 304s carry no body)."""

    def __init__(self, page):
        self.total = 0
        page.on("requestfinished", self.add)

    def add(self, request):
        try:
            sizes = request.sizes()
        except Exception:  # the request's page closed meanwhile
            return
        self.total += sizes["responseBodySize"] + sizes["responseHeadersSize"]


def load_lesson(context, url: str, reference: str) -> dict:
    page = context.new_page()
    counter = ByteCounter(page)
    page.add_init_script(LESSON_PROBE)
    # The editor opens with the reference, as if the learner had written it earlier.
    saved = json.dumps({"code": reference, "starter": None})
    page.add_init_script(f"localStorage.setItem({json.dumps('tp-course:lesson:' + LESSON)}, {json.dumps(saved)})")
    page.goto(url)
    page.get_by_role("button", name="Run", exact=True).click()  # runs as soon as Python can
    page.wait_for_function("window.__resultAt", timeout=TIMEOUT_MS)
    result = page.evaluate("({ready: window.__readyAt, result: window.__resultAt, state: window.__resultState})")
    if result["state"] != "passed":
        raise SystemExit(f"the reference did not pass on {url}: {result}")
    time.sleep(0.5)
    started = page.evaluate("performance.now()")
    page.evaluate("window.__resultAt = 0")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function("window.__resultAt", timeout=TIMEOUT_MS)
    result["grade"] = page.evaluate("window.__resultAt") - started
    result["bytes"] = counter.total
    page.close()
    return result


def load_bare(context, url: str) -> dict:
    page = context.new_page()
    counter = ByteCounter(page)
    page.goto(url)
    page.wait_for_function("window.__readyAt", timeout=TIMEOUT_MS)
    result = {"ready": page.evaluate("window.__readyAt")}
    time.sleep(0.3)
    result["bytes"] = counter.total
    page.close()
    return result


def measure(runs: int, base_url: str, reference: str) -> dict:
    samples = {key: [] for key in ("lesson-cold", "lesson-warm", "bare-cold", "bare-warm")}
    lesson_url = f"{base_url}site/lessons/{LESSON}/index.html"
    bare_url = f"{base_url}bare/index.html"
    with sync_playwright() as p:
        for run in range(runs):
            for kind, url in (("lesson", lesson_url), ("bare", bare_url)):
                with tempfile.TemporaryDirectory(prefix="profile-") as profile:
                    context = p.chromium.launch_persistent_context(
                        profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                    load = (lambda: load_lesson(context, url, reference)) if kind == "lesson" \
                        else (lambda: load_bare(context, url))
                    samples[f"{kind}-cold"].append(load())
                    time.sleep(1.0)  # let the code cache settle, as a learner's next visit would
                    samples[f"{kind}-warm"].append(load())
                    context.close()
            print(f"run {run + 1}/{runs}: lesson cold ready {samples['lesson-cold'][-1]['ready']:.0f} ms, "
                  f"bare cold ready {samples['bare-cold'][-1]['ready']:.0f} ms", flush=True)
    return samples


def median(samples: list[dict], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def report(samples: dict, runs: int):
    print(f"\nmedians of {runs} runs")
    print(f"{'':14}{'ready ms':>10}{'result ms':>11}{'grade ms':>10}{'MB':>8}")
    for name, rows in samples.items():
        cells = [f"{median(rows, 'ready'):.0f}"]
        cells += [f"{median(rows, k):.0f}" if name.startswith("lesson") else "-" for k in ("result", "grade")]
        print(f"{name:14}{cells[0]:>10}{cells[1]:>11}{cells[2]:>10}{median(rows, 'bytes') / 1e6:>8.2f}")
    lc, lw = median(samples["lesson-cold"], "ready"), median(samples["lesson-warm"], "ready")
    bc, bw = median(samples["bare-cold"], "ready"), median(samples["bare-warm"], "ready")
    grade = median(samples["lesson-warm"] + samples["lesson-cold"], "grade")
    print("\nratios")
    print(f"  cold ready, lesson / bare : {lc / bc:.2f}   (goal <= 1.2)")
    print(f"  warm ready, lesson / bare : {lw / bw:.2f}")
    print(f"  lesson ready, warm / cold : {lw / lc:.2f}   (goal < 0.5)")
    print(f"  cold bytes, lesson / bare : {median(samples['lesson-cold'], 'bytes') / median(samples['bare-cold'], 'bytes'):.2f}")
    print(f"  grading the reference once ready: {grade:.0f} ms   (goal < 300)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-build", action="store_true", help="measure the existing dist/")
    parser.add_argument("--no-isolation", action="store_true", help="serve without COOP/COEP")
    args = parser.parse_args()
    dist = ROOT / "dist"
    if not args.no_build:
        subprocess.run([sys.executable, str(ROOT / "build.py")], check=True)
    reference = (ROOT / "lessons" / LESSON / "reference.py").read_text()
    root = make_bench_root(dist)
    server, url = serve_in_thread(root, isolated=not args.no_isolation)
    try:
        print(f"serving {root} at {url} ({'without' if args.no_isolation else 'with'} COOP/COEP)")
        samples = measure(args.runs, url, reference)
    finally:
        server.shutdown()
    report(samples, args.runs)


if __name__ == "__main__":
    main()
