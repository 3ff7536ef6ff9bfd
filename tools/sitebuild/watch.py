"""The live authoring loop behind `build.py serve --watch`: poll lessons/, web/ and py/; on a
save that changes only lessons' prose (lesson.md), write those pages again (no build); on any
other, rebuild (re-checking only the lessons whose check inputs changed, check_cache.py); and tell
open pages through `__build.json`, which the build's live-reload snippet polls: a new build id
reloads the page, a failed build shows its located errors over the page."""
from __future__ import annotations

import json
import time
from pathlib import Path

from .errors import BuildError

STATUS_FILE = "__build.json"
POLL_S = 0.3
SETTLE_S = 0.15  # an editor's save can be several writes: wait until the tree is still
IGNORED_PARTS = {"__pycache__", "node_modules", ".git"}
IGNORED_SUFFIXES = (".pyc", ".swp", ".swx", "~", ".tmp")

# Injected before </body> of every page in watch mode; polls the status file next to the site root.
# Its id tells the page's offline.js that this build has no service worker to register.
LIVE_RELOAD = """<script id="live-reload">/* live reload (build.py serve --watch) */(() => {
  navigator.serviceWorker?.getRegistrations().then((rs) => rs.forEach((r) => r.unregister()));
  const url = new URL(document.querySelector('link[rel=stylesheet]').getAttribute('href').replace(/assets\\/.*$/, '__build.json'), location.href);
  let seen = null;
  function show(errors) {
    let box = document.getElementById('live-build-errors');
    if (!box) {
      box = document.createElement('pre');
      box.id = 'live-build-errors';
      box.setAttribute('role', 'alert');
      box.style.cssText = 'position:fixed;inset:0 0 auto 0;z-index:9999;margin:0;padding:1rem;max-height:60vh;overflow:auto;background:#fff4f4;color:#8a1111;border-bottom:3px solid #b3261e;font:13px/1.45 ui-monospace,monospace;white-space:pre-wrap';
      document.body.prepend(box);
    }
    box.textContent = 'The build failed; this page is the last good one.\\n\\n' + errors.join('\\n');
  }
  async function poll() {
    try {
      const status = await (await fetch(url, { cache: 'no-store' })).json();
      // A build that finished after this page began loading may have written it anew after it
      // was fetched (its first look at the id then sees the new one): reload once to be sure.
      const newer = seen === null ? status.at > performance.timeOrigin : status.id !== seen;
      if (newer && !status.errors.length) return location.reload();
      seen = status.id;
      if (status.errors.length) show(status.errors);
      else document.getElementById('live-build-errors')?.remove();
    } catch (e) { /* between builds: try again */ }
    setTimeout(poll, 300);
  }
  poll();
})();</script>
"""


def with_live_reload(html: str) -> str:
    return html.replace("</body>", LIVE_RELOAD + "</body>", 1)


def inject_live_reload(site: Path) -> None:
    for page in site.rglob("*.html"):
        page.write_text(with_live_reload(page.read_text(encoding="utf-8")), encoding="utf-8")


def write_status(site: Path, build_id: int, errors: list[str]) -> None:
    """The build's id, its errors and when it ended (ms since the epoch: the pages compare it with
    when they began loading, on the same machine's clock)."""
    status = {"id": build_id, "errors": errors, "at": time.time() * 1000}
    (site / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")


def snapshot(dirs: list[Path]) -> dict[Path, float]:
    files = {}
    for d in dirs:
        for p in d.rglob("*"):
            if p.is_file() and not IGNORED_PARTS & set(p.parts) and not p.name.endswith(IGNORED_SUFFIXES):
                try:
                    files[p] = p.stat().st_mtime_ns
                except FileNotFoundError:
                    pass
    return files


def prose_only(changed: set[Path], lessons_dir: Path, pages: dict) -> list[str]:
    """The ids of the lessons whose lesson.md is all that changed (each with a page to write
    again), or [] when anything else changed too."""
    ids = []
    for p in changed:
        try:
            rel = p.resolve().relative_to(lessons_dir.resolve()).parts
        except ValueError:
            return []
        if len(rel) != 2 or rel[1] != "lesson.md" or rel[0] not in pages:
            return []
        ids.append(rel[0])
    return sorted(ids)


def watch(rebuild, live, lessons_dir: Path, web_dir: Path, py_dir: Path, site: Path, log) -> None:
    """Forever: on every change, rebuild(), or where only lessons' prose changed (and the last
    build passed), live.rewrite(id) for each such lesson (build.LiveSite: `live.pages` holds the
    last good build's pages by lesson id). Both raise BuildError with located messages."""
    dirs = [lessons_dir, web_dir, py_dir]
    state = snapshot(dirs)
    # Whether the last rebuild failed: its errors stay shown until a rebuild passes, so a prose
    # save after it rebuilds too.
    build_id, broken = 1, False
    write_status(site, build_id, [])
    log(f"watching {', '.join(str(d) for d in dirs)} for changes")
    while True:
        time.sleep(POLL_S)
        now = snapshot(dirs)
        if now == state:
            continue
        while True:  # let the save finish
            time.sleep(SETTLE_S)
            settled = snapshot(dirs)
            if settled == now:
                break
            now = settled
        changed = {p for p in set(now) | set(state) if now.get(p) != state.get(p)}
        state = now
        prose = [] if broken else prose_only(changed, lessons_dir, live.pages)
        log(f"changed: {', '.join(sorted(str(p.relative_to(p.anchor)) for p in changed)[:5])}"
            + (" ..." if len(changed) > 5 else ""))
        started = time.monotonic()
        build_id += 1
        try:
            for lesson_id in prose:
                live.rewrite(lesson_id)
            if not prose:
                broken = True
                rebuild()
                broken = False
            write_status(site, build_id, [])
            log(f"rebuilt in {time.monotonic() - started:.1f} s"
                + (f" (the prose of {', '.join(prose)} only)" if prose else "") + "; open pages reload")
        except BuildError as e:
            errors = str(e).splitlines()
            print("build failed:\n" + str(e), flush=True)
            write_status(site, build_id, errors)
