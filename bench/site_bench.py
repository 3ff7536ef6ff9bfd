#!/usr/bin/env python3
"""How fast the lesson page gets ready, grades, stops and moves to the next lesson, against a
bare Pyodide page, in headless Chromium (a script that prints figures, not a test).

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
  isolated  the same lesson from a server sending COOP/COEP;
and, with --compare DIR, the same two for another build (the "before" of a change), every
visit of both builds interleaved in the same minutes, so the machine's load hits both alike.
Figures, medians over --runs (ms):
  ready         navigation -> the page says Python is ready (bare: numpy imported)
  result        navigation -> first graded result of the reference, Run pressed at once
  first run     Run pressed right after "ready" -> result
  run after run a second Run pressed the moment the first's result shows -> result
  idle run      (the page idle: every worker it started has booted) Run -> result
  back to back  a Run pressed the moment the idle run's result shows -> result
  grading       of the idle run, the time the report says grading took inside the worker
  stop->ready   (idle again) Stop pressed STOP_AFTER_S into a check looping in gelu, Run of the
                reference pressed at once: Stop -> that Run's grading starts (its "grade" message
                goes to the worker, which the page sends once a learner worker no learner code ran
                in is ready); one figure per Stop delay
  stop->result  the same, Stop -> that Run's result
  next ready    (idle again) "Next" clicked -> the next lesson (fg-backward) says ready; only a
                ready reached after the click counts (a page moved in place keeps the window)
  next run      then Run of its reference pressed at once -> result
  MB            bytes the server sent for the visit (compressed bytes where it sent .br)
  RSS MB        the resident memory of the browser's renderer processes (the page and all its
                Python workers: isolated, a grader, a learner and a spare) after the idle runs, /proc
then the rows of issue 32 side by side, each with its ratio to the bare page, and CPython's
own grading of the same reference (a grader process, learner code in a child: `lessonkit
grade`'s split, warm) for the goal "Run -> verdict <= 2x CPython's grading".

  .venv/bin/python bench/site_bench.py [--runs 3] [--no-build] [--dist DIR] [--compare DIR]
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
  postMessage(message, ...rest) {
    // When a grading starts in a worker (after Stop: once a clean learner is ready).
    if (message && message.type === "grade" && !window.__gradeSentAt) window.__gradeSentAt = Date.now();
    return super.postMessage(message, ...rest);
  }
};
window.__readyFor = {};
window.__notReady = {};  // lessons whose progress was seen not ready in this window
new MutationObserver(() => {
  const progress = document.getElementById('python-progress');
  // Per lesson: a page that swaps lessons in place keeps this window (and its first __readyAt);
  // a lesson's ready counts only after its progress was seen not ready, so the page before a
  // move (or before a reload) never answers for the next one.
  const config = document.getElementById('lesson-config');
  const id = config && JSON.parse(config.textContent).lesson.id;
  if (id && progress && progress.dataset.state !== 'ready') window.__notReady[id] = true;
  if (id && progress && progress.dataset.state === 'ready' && window.__notReady[id] && !window.__readyFor[id]) {
    window.__readyFor[id] = Date.now();
    if (!window.__readyAt) window.__readyAt = window.__readyFor[id];
  }
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


def stop_then_run(page, looping: str, reference: str, after_s: float) -> tuple[float, float]:
    """Stop `after_s` into a check looping in gelu, then Run the reference at once:
    (Stop -> that Run's grading starts, Stop -> its result), ms."""
    upload = lambda name, text: page.set_input_files(
        "#upload-file", files=[{"name": name, "mimeType": "text/x-python", "buffer": text.encode()}])
    upload("looping.py", looping)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("#results li", timeout=TIMEOUT_MS)
    time.sleep(after_s)  # inside the loop
    page.evaluate("window.__resultAt = 0; window.__gradeSentAt = 0")
    started = page.evaluate("Date.now()")
    page.get_by_role("button", name="Stop", exact=True).click()
    upload("solution.py", reference)
    page.get_by_role("button", name="Run", exact=True).click()
    result = wait_result(page) - started
    return page.evaluate("window.__gradeSentAt") - started, result


def next_lesson(page) -> tuple[float, float]:
    """Clicks "Next" (to NEXT_LESSON): -> (its ready, Run of its saved reference -> result), ms."""
    started = page.evaluate("Date.now()")
    page.locator("nav.lesson-nav a[rel=next]").click()
    ready = evaluate_across_loads(page, f"window.__readyFor && window.__readyFor[{json.dumps(NEXT_LESSON)}]")
    return ready - started, timed_run(page)


def idle(page) -> None:
    """Past the spare's idle delay (2 s), and every worker the page started booted."""
    time.sleep(2.5)
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)


# Stop pressed this long into the looping check: at once, and as a learner who watched it hang.
STOP_AFTER_S = (0.5, 2.0)


def lesson_visit(context, url: str, references: dict, server, run_at_once: bool, profile: str) -> dict:
    """One visit: with `run_at_once`, Run is pressed on arrival (result); otherwise right after
    ready (first run) and again at once (run after run), then on the idle page two Runs back to
    back, Stop, and the next lesson."""
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
        row["run after run"] = timed_run(page)
        # A learner who reads between Runs, then presses Run twice in a row.
        idle(page)
        row["idle run"] = timed_run(page)
        row["grading"] = page.evaluate("window.__gradingMs")
        row["back to back"] = timed_run(page)
        idle(page)
        row["rss"] = renderer_rss_mb(profile)
        for after_s in STOP_AFTER_S:
            row[f"stop->ready {after_s:g}s"], row[f"stop->result {after_s:g}s"] = \
                stop_then_run(page, looping_gelu(reference), reference, after_s)
            idle(page)
        row["next ready"], row["next run"] = next_lesson(page)
    row["isolated"] = page.evaluate("crossOriginIsolated")
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


def measure(runs: int, builds: dict[str, Path], reference: dict) -> dict:
    """`builds`: label -> dist folder. Every visit of a run, bare pages and builds in turn."""
    bare_root = make_bare_root()
    servers = []

    def server_for(directory, isolated):
        server, url = start_server(directory, isolated)
        servers.append(server)
        return server, url

    bare, bare_url = server_for(bare_root, False)
    lesson_path = f"lessons/{LESSON}/index.html"
    kinds = [("bare", bare, bare_url + "index.html"), ("bare x2", bare, bare_url + "index.html?workers=2")]
    for label, dist in builds.items():
        for mode, isolated in (("plain", False), ("isolated", True)):
            server, url = server_for(dist, isolated)
            kinds.append((f"{label} {mode}".strip(), server, url + lesson_path))
    samples: dict[str, list[dict]] = {}
    try:
        with sync_playwright() as p:
            for run in range(runs):
                for kind, server, url in kinds:
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
                        context.close()
                    samples.setdefault(f"{kind} cold", []).append(cold)
                    samples.setdefault(f"{kind} warm", []).append(warm)
                    print(f"run {run + 1}/{runs} {kind}: cold {cold}\n  warm {warm}", flush=True)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
        shutil.rmtree(bare_root, ignore_errors=True)
    return samples


CPYTHON_GRADING = r"""
import json, statistics, sys, time
from lessonkit import grade, load_lesson
from lessonkit.learner_process import LearnerProcess
lesson = load_lesson(sys.argv[1])
source = lesson.reference.read_text()
with LearnerProcess(lesson) as child:
    times = []
    for _ in range(8):
        t = time.perf_counter()
        assert grade(lesson, source, learner=child).passed
        times.append((time.perf_counter() - t) * 1000)
print(json.dumps(statistics.median(times[2:])))
"""


def cpython_grading_ms() -> float:
    """CPython grading the reference, warm: a grader process, learner code in a child."""
    out = subprocess.run([sys.executable, "-c", CPYTHON_GRADING, str(ROOT / "lessons" / LESSON)],
                         capture_output=True, text=True, check=True, env={"PYTHONPATH": str(ROOT / "py")})
    return json.loads(out.stdout)


def median(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def report(samples: dict, runs: int, labels: list[str], cpython_ms: float, loads: list[str]):
    columns = [f"{label} {mode}".strip() for label in labels for mode in ("plain", "isolated")]
    print(f"\nmedians of {runs} run{'s' * (runs != 1)}, ms (ratio to the bare page in brackets); "
          f"load average at the start of each run: {'; '.join(loads)}")
    bare_cold, bare_warm = median(samples["bare cold"], "ready"), median(samples["bare warm"], "ready")
    print(f"bare Pyodide + numpy, one worker: ready {bare_cold:.0f} cold / {bare_warm:.0f} warm; "
          f"two workers: {median(samples['bare x2 cold'], 'ready'):.0f} / {median(samples['bare x2 warm'], 'ready'):.0f}; "
          f"renderer RSS {median(samples['bare warm'], 'rss'):.0f} MB")
    print(f"CPython grading the same reference (grader + child learner, warm): {cpython_ms:.0f} ms")
    stops = [(f"Stop {s:g} s into a loop -> ready", f"stop->ready {s:g}s", None, "<= 1000")
             for s in STOP_AFTER_S] + [(f"Stop {s:g} s into a loop -> result", f"stop->result {s:g}s", None, "")
                                       for s in STOP_AFTER_S]
    rows = [("ready, cold", "ready", "cold", bare_cold, "no worse than before"),
            ("ready, warm", "ready", "warm", bare_warm, ""),
            ("Run at once -> result, cold", "result", "cold", bare_cold, ""),
            ("next lesson ready", "next ready", "warm", bare_warm, "<= 0.10x bare warm"),
            ("its first Run -> result", "next run", "warm", None, ""),
            ("first Run after ready -> result", "first run", "warm", None, ""),
            ("Run at once after a Run -> result", "run after run", "warm", None, ""),
            ("Run on an idle page -> result", "idle run", "warm", None, f"<= 2x CPython ({2 * cpython_ms:.0f})"),
            ("  of it, grading inside the worker", "grading", "warm", None, ""),
            ("Run back to back -> result", "back to back", "warm", None, "<= idle run")] \
        + [(label, key, "warm", None, goal) for label, key, _, goal in stops] \
        + [("renderer RSS (MB)", "rss", "warm", median(samples["bare warm"], "rss"), "")]
    print(f"{'':40}" + "".join(f"{c:>18}" for c in columns) + "   goal")
    for label, key, state, bare, goal in rows:
        cells = []
        for column in columns:
            value = median(samples[f"{column} {state}"], key)
            if value is None:
                cells.append(f"{'-':>18}")
            elif bare:
                cells.append(f"{f'{value:.0f} ({value / bare:.2f}x)':>18}")
            else:
                cells.append(f"{value:>18.0f}")
        print(f"{label:40}" + "".join(cells) + f"   {goal}")
    print(f"{'isolated':40}" + "".join(
        f"{str(all(r['isolated'] for r in samples[f'{c} warm'])).lower():>18}" for c in columns))
    print(f"{'MB sent, cold':40}" + "".join(f"{median(samples[f'{c} cold'], 'bytes') / 1e6:>18.2f}" for c in columns))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="measure the existing --dist")
    parser.add_argument("--dist", type=Path, default=DIST, help=f"where the site is built (default {DIST})")
    parser.add_argument("--compare", type=Path, help="another build measured in the same run (\"before\")")
    parser.add_argument("--lessons", type=Path, default=ROOT / "lessons", help="lessons folder to build")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(args.dist), "--lessons", str(args.lessons)],
                       check=True)
    references = {slug: (ROOT / "lessons" / slug / "reference.py").read_text() for slug in (LESSON, NEXT_LESSON)}
    builds = {"before": args.compare, "after": args.dist} if args.compare else {"": args.dist}
    loads = [load_average()]
    cpython_ms = cpython_grading_ms()
    samples = {}
    for run in range(args.runs):
        if run:
            loads.append(load_average())
        for name, rows in measure(1, builds, references).items():
            samples.setdefault(name, []).extend(rows)
    report(samples, args.runs, list(builds), cpython_ms, loads)


if __name__ == "__main__":
    main()
