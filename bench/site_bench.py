#!/usr/bin/env python3
"""How fast the lesson page gets ready and grades, against a bare Pyodide page, in headless
Chromium (a script that prints figures, not a test).

In one run it measures, each on a fresh browser profile (cold: empty HTTP and code caches, no
service worker) and then again on the same profile (warm: the next visit):
  bare      a page that only starts upstream Pyodide 0.27.7 and imports numpy in a worker (the
            floor any Pyodide site pays), served as upstream ships it;
  bare x2   the same page starting two such workers at once, ready when both are (the floor for
            the isolated page, whose grader and learner start together);
  plain     the tp-mlp lesson from a server without COOP/COEP (GitHub Pages and the like): its
            cold visit registers the service worker and reloads into isolation through it
            before Python starts (timed whole, from the first navigation), its warm visit runs
            under that worker;
  isolated  the same lesson from a server sending COOP/COEP.
Figures, medians over --runs:
  ready      navigation -> the page says Python is ready (bare: numpy imported), by Date.now()
  result     navigation -> first graded result of the reference, Run pressed at once
  first run  Run pressed right after "ready" -> result (ready means ready: no slower than later)
  later run  a second Run -> result
  grading    of that later Run, the time the report says grading took inside the worker (the
             grader's, with its calls to the learner, when isolated): the part no page work is in
  stop run   (warm visit, the page idle: every worker it started has booted) Stop pressed while
             a check loops in the learner's gelu, then Run of the reference at once -> result:
             what Stop costs the next Run (Stop -> ready, plus a Run)
  next ready (warm visit, idle again) the "Next" link clicked -> the next lesson (fg-backward)
             says ready
  next run   then Run of its reference pressed at once -> result
  MB         bytes the server sent for the visit (compressed bytes where it sent .br)
  RSS MB     the resident memory of the browser's renderer processes once the page is ready and
             has graded twice (its Python workers live there: isolated, a grader, a learner and
             the spare started after the Run; plain, the fresh worker started after it), from /proc
then ratios to the bare page and the goals of issue 16:
  cold ready <= 0.7x bare cold, warm ready <= 0.6x bare warm, reference graded <= 150 ms,
  first run after ready no slower than a later one, cold bytes <= 0.55x bare cold.

  .venv/bin/python bench/site_bench.py [--runs 3] [--no-build] [--dist DIR]
The machine's load moves absolute times; read the ratios, measured interleaved in one run.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from playwright.sync_api import sync_playwright  # noqa: E402

from sitebuild import serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
LESSON = "tp-mlp"
NEXT_LESSON = "fg-backward"  # tp-mlp's "Next" link
TIMEOUT_MS = 180_000
DIST = ROOT / ".cache" / "bench-dist"
UPSTREAM_CORE = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"

BARE_HTML = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title><link rel="icon" href="data:,">
<p id="state">loading</p>
<script>
let waiting = Number(new URLSearchParams(location.search).get("workers") || 1);
for (let i = waiting; i > 0; i--) {
  new Worker("worker.js").onmessage = ({data}) => {
    if (--waiting === 0) window.__readyAt = Date.now();
    document.getElementById("state").textContent = data;
  };
}
</script>
"""
BARE_WORKER = """importScripts("pyodide/pyodide.js");
(async () => {
  const indexURL = new URL("pyodide/", location.href).href;
  const pyodide = await loadPyodide({indexURL, packages: ["numpy"]});
  pyodide.runPython("import numpy");
  postMessage("ready");
})();
"""
# Records when the lesson page says ready, when each result shows, and the last report's own
# grading time (duration_ms) as a worker posts it.
LESSON_PROBE = """
window.__pythons = [];  // {ready, ended} of every worker started: idle once all live ones are ready
const ProbedWorker = window.Worker;
window.Worker = class extends ProbedWorker {
  constructor(...args) {
    super(...args);
    const record = { ready: false, ended: false };
    window.__pythons.push(record);
    this.__record = record;
    this.addEventListener("message", ({ data }) => {
      if (data && data.type === "report") window.__gradingMs = data.report.duration_ms;
      if (data && data.type === "ready") record.ready = true;
    });
  }
  terminate() {
    this.__record.ended = true;
    return super.terminate();
  }
};
window.__readyFor = {};
new MutationObserver(() => {
  const progress = document.getElementById('python-progress');
  if (progress && progress.dataset.state === 'ready' && !window.__readyAt) window.__readyAt = Date.now();
  // Per lesson: a page that swaps lessons in place keeps this window (and its first __readyAt).
  const config = document.getElementById('lesson-config');
  const id = config && JSON.parse(config.textContent).lesson.id;
  if (id && progress && progress.dataset.state === 'ready' && !window.__readyFor[id]) window.__readyFor[id] = Date.now();
  const status = document.getElementById('run-status');
  if (status && ['passed', 'failed', 'error'].includes(status.dataset.state) && !window.__resultAt) {
    window.__resultAt = Date.now();
    window.__resultState = status.dataset.state;
  }
}).observe(document, {subtree: true, attributes: true, childList: true, characterData: true});
"""


class Counting(serve._Handler):
    """Adds every response body's bytes to the server's tally."""

    def copyfile(self, source, outputfile):
        self.server.sent_bytes += Path(source.name).stat().st_size
        super().copyfile(source, outputfile)


def start_server(directory: Path, isolated: bool):
    import functools
    handler = type("Handler", (Counting,), {"isolated": isolated})
    server = serve._Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    server.sent_bytes = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, serve.url_of(server)


def make_bare_root() -> Path:
    """The bare page and upstream Pyodide as its CDN ships it: no precompiled or precompressed files."""
    root = Path(tempfile.mkdtemp(prefix="site-bench-bare-"))
    (root / "pyodide").mkdir()
    for name in UPSTREAM_CORE:
        shutil.copyfile(ROOT / "node_modules" / "pyodide" / name, root / "pyodide" / name)
    shutil.copyfile(ROOT / ".cache" / "vendor" / NUMPY_WHEEL, root / "pyodide" / NUMPY_WHEEL)
    (root / "index.html").write_text(BARE_HTML)
    (root / "worker.js").write_text(BARE_WORKER)
    return root


def renderer_rss_mb(profile: str) -> float:
    """Resident memory of the renderer processes of the Chromium using `profile` (/proc, Linux)."""
    parents, cmdlines = {}, {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            parents[proc.name] = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            cmdlines[proc.name] = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    roots = {pid for pid, cmd in cmdlines.items() if f"--user-data-dir={profile}" in cmd and "--type=" not in cmd}

    def under_root(pid):
        while pid in parents and pid not in roots:
            pid = parents[pid]
        return pid in roots

    total = 0
    for pid, cmd in cmdlines.items():
        if "--type=renderer" in cmd and under_root(pid):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
    return total / 1024


def wait_result(page) -> float:
    page.wait_for_function("window.__resultAt", timeout=TIMEOUT_MS)
    state = page.evaluate("window.__resultState")
    if state != "passed":
        raise SystemExit(f"the reference did not pass on {page.url}: {state}")
    return page.evaluate("window.__resultAt")


def visit_start(page) -> float:
    """The clock every time of a visit counts from (Date.now(), in ms): taken before the
    navigation, so a first visit that reloads itself into isolation is timed whole."""
    return page.evaluate("Date.now()")


def timed_run(page) -> float:
    page.evaluate("window.__resultAt = 0")
    started = page.evaluate("Date.now()")
    page.get_by_role("button", name="Run", exact=True).click()
    return wait_result(page) - started


IDLE = "window.__pythons.filter((w) => !w.ended).every((w) => w.ready)"


def evaluate_across_loads(page, expression: str):
    """`page.evaluate`, retried while a navigation replaces the document (a full page load)."""
    end = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < end:
        try:
            value = page.evaluate(expression)
        except Exception:  # the execution context went with the old document
            value = None
        if value:
            return value
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {expression} on {page.url}")


def stop_then_run(page, looping: str, reference: str) -> float:
    """Stop while a check loops in gelu, then Run the reference at once: Stop -> result (ms)."""
    upload = lambda name, text: page.set_input_files(
        "#upload-file", files=[{"name": name, "mimeType": "text/x-python", "buffer": text.encode()}])
    upload("looping.py", looping)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li", timeout=TIMEOUT_MS)
    time.sleep(0.5)  # inside the loop
    page.evaluate("window.__resultAt = 0")
    started = page.evaluate("Date.now()")
    page.get_by_role("button", name="Stop", exact=True).click()
    upload("solution.py", reference)
    page.get_by_role("button", name="Run", exact=True).click()
    return wait_result(page) - started


def next_lesson(page) -> tuple[float, float]:
    """Clicks "Next" (to NEXT_LESSON): -> (its ready, Run of its saved reference -> result), ms."""
    started = page.evaluate("Date.now()")
    page.locator("nav.lesson-nav a[rel=next]").click()
    ready = evaluate_across_loads(page, f"window.__readyFor && window.__readyFor[{json.dumps(NEXT_LESSON)}]")
    return ready - started, timed_run(page)


def lesson_visit(context, url: str, references: dict, server, run_at_once: bool, profile: str) -> dict:
    """One visit: with `run_at_once`, Run is pressed on arrival (result); otherwise right after
    ready (first run), then Stop and the next lesson. Then one later Run."""
    page = context.new_page()
    page.add_init_script(LESSON_PROBE)
    # As if written on an earlier visit (the key is namespaced by the site's path: "/" here).
    for slug in (LESSON, NEXT_LESSON):
        saved = json.dumps({"code": references[slug], "starter": None})
        page.add_init_script(f"localStorage.setItem({json.dumps('tp-course:/:lesson:' + slug)}, {json.dumps(saved)})")
    reference = references[LESSON]
    before = server.sent_bytes
    start = visit_start(page)
    page.goto(url)
    row = {}
    if run_at_once:
        page.get_by_role("button", name="Run", exact=True).click()
        row["result"] = wait_result(page) - start
        row["ready"] = page.evaluate("window.__readyAt") - start
    else:
        page.wait_for_function("window.__readyAt", timeout=TIMEOUT_MS)
        row["ready"] = page.evaluate("window.__readyAt") - start
        row["first run"] = timed_run(page)
    row["later run"] = timed_run(page)
    row["grading"] = page.evaluate("window.__gradingMs")
    row["isolated"] = page.evaluate("crossOriginIsolated")
    time.sleep(3.0)  # the spare worker started after the runs gets ready
    row["rss"] = renderer_rss_mb(profile)
    if not run_at_once:
        # An idle page (past any spare's idle delay, every worker it started booted): Stop and
        # the next lesson as a learner who reads between Runs meets them.
        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
        row["stop run"] = stop_then_run(page, looping_gelu(reference), reference)
        time.sleep(2.5)  # past the idle delay before a spare (2 s)
        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
        row["next ready"], row["next run"] = next_lesson(page)
    # The cold visit installs the service worker: let it finish, so the warm visit gets it.
    page.evaluate("navigator.serviceWorker && navigator.serviceWorker.ready.then(() => true)")
    time.sleep(1.0)
    row["bytes"] = server.sent_bytes - before
    page.close()
    return row


def looping_gelu(reference: str) -> str:
    """The reference with a gelu that never returns."""
    return reference.replace("def gelu(x):\n", "def gelu(x):\n    while True:\n        pass\n", 1)


def bare_visit(context, url: str, server, profile: str) -> dict:
    page = context.new_page()
    before = server.sent_bytes
    start = visit_start(page)
    page.goto(url)
    page.wait_for_function("window.__readyAt", timeout=TIMEOUT_MS)
    row = {"ready": page.evaluate("window.__readyAt") - start}
    time.sleep(0.5)
    row["rss"] = renderer_rss_mb(profile)
    row["bytes"] = server.sent_bytes - before
    page.close()
    return row


def measure(runs: int, dist: Path, reference: dict) -> dict:
    bare_root = make_bare_root()
    plain, plain_url = start_server(dist, isolated=False)
    isolated, isolated_url = start_server(dist, isolated=True)
    bare, bare_url = start_server(bare_root, isolated=False)
    lesson_path = f"lessons/{LESSON}/index.html"
    samples: dict[str, list[dict]] = {}
    try:
        with sync_playwright() as p:
            for run in range(runs):
                for kind, server, url in (("bare", bare, bare_url + "index.html"),
                                          ("bare x2", bare, bare_url + "index.html?workers=2"),
                                          ("plain", plain, plain_url + lesson_path),
                                          ("isolated", isolated, isolated_url + lesson_path)):
                    with tempfile.TemporaryDirectory(prefix="profile-") as profile:
                        context = p.chromium.launch_persistent_context(
                            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                        if kind.startswith("bare"):
                            cold = bare_visit(context, url, server, profile)
                            time.sleep(1.0)  # let the code cache settle, as a next visit would find it
                            warm = bare_visit(context, url, server, profile)
                        else:
                            cold = lesson_visit(context, url, reference, server, True, profile)
                            warm = lesson_visit(context, url, reference, server, False, profile)
                            warm_result = lesson_visit(context, url, reference, server, True, profile)
                            warm["result"] = warm_result["result"]
                            cold["first run"] = None
                        context.close()
                    samples.setdefault(f"{kind} cold", []).append(cold)
                    samples.setdefault(f"{kind} warm", []).append(warm)
                print(f"run {run + 1}/{runs}: " + ", ".join(
                    f"{name} ready {rows[-1]['ready']:.0f} ms" for name, rows in samples.items()), flush=True)
    finally:
        for server in (plain, isolated, bare):
            server.shutdown()
            server.server_close()
        shutil.rmtree(bare_root, ignore_errors=True)
    return samples


def median(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def report(samples: dict, runs: int):
    keys = ("ready", "result", "first run", "later run", "grading", "stop run", "next ready", "next run")
    print(f"\nmedians of {runs} run{'s' * (runs != 1)} (ms; MB sent by the server)")
    print(f"{'':14}" + "".join(f"{k:>11}" for k in keys) + f"{'MB':>8}{'RSS MB':>8}{'isolated':>10}")
    for name, rows in samples.items():
        cells = [median(rows, k) for k in keys]
        iso = "-" if name.startswith("bare") else str(all(r["isolated"] for r in rows)).lower()
        print(f"{name:14}" + "".join(f"{c:>11.0f}" if c is not None else f"{'-':>11}" for c in cells)
              + f"{median(rows, 'bytes') / 1e6:>8.2f}{median(rows, 'rss'):>8.0f}{iso:>10}")
    bare_cold, bare_warm = samples["bare cold"], samples["bare warm"]
    print("\nratios to the bare page                     plain  isolated   goal")
    def ratio_row(label, num_key, rows_of, den_rows, den_key, goal):
        vals = [median(rows_of(m), num_key) / median(den_rows, den_key) for m in ("plain", "isolated")]
        print(f"  {label:42}{vals[0]:>5.2f}{vals[1]:>10.2f}   {goal}")
    ratio_row("cold ready / bare cold ready", "ready", lambda m: samples[f"{m} cold"], bare_cold, "ready", "<= 0.70")
    ratio_row("warm ready / bare warm ready", "ready", lambda m: samples[f"{m} warm"], bare_warm, "ready", "<= 0.60")
    ratio_row("cold first result / bare cold ready", "result", lambda m: samples[f"{m} cold"], bare_cold, "ready", "")
    ratio_row("warm first result / bare warm ready", "result", lambda m: samples[f"{m} warm"], bare_warm, "ready", "")
    ratio_row("cold bytes / bare cold bytes", "bytes", lambda m: samples[f"{m} cold"], bare_cold, "bytes", "<= 0.55")
    ratio_row("next lesson ready / bare warm ready", "next ready", lambda m: samples[f"{m} warm"], bare_warm, "ready", "<= 0.10")
    # What two interpreters cost at least: the isolated page against two bare workers at once.
    print("\nratios to two bare workers at once           plain  isolated")
    for label, state in (("cold ready / bare x2 cold ready", "cold"), ("warm ready / bare x2 warm ready", "warm")):
        vals = [median(samples[f"{m} {state}"], "ready") / median(samples[f"bare x2 {state}"], "ready")
                for m in ("plain", "isolated")]
        print(f"  {label:42}{vals[0]:>5.2f}{vals[1]:>10.2f}")
    print("\nthe lesson once ready                       plain  isolated   goal")
    for label, key, goal in (("first run after ready, warm visit (ms)", "first run", "<= later run"),
                             ("later run (ms)", "later run", "<= 150"),
                             ("  of it, grading inside the worker (ms)", "grading", "")):
        vals = [median(samples[f"{m} warm"], key) for m in ("plain", "isolated")]
        print(f"  {label:42}{vals[0]:>5.0f}{vals[1]:>10.0f}   {goal}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="measure the existing --dist")
    parser.add_argument("--dist", type=Path, default=DIST, help=f"where the site is built (default {DIST})")
    parser.add_argument("--lessons", type=Path, default=ROOT / "lessons", help="lessons folder to build")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(args.dist), "--lessons", str(args.lessons)],
                       check=True)
    references = {slug: (ROOT / "lessons" / slug / "reference.py").read_text() for slug in (LESSON, NEXT_LESSON)}
    report(measure(args.runs, args.dist, references), args.runs)


if __name__ == "__main__":
    main()
