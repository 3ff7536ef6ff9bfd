#!/usr/bin/env python3
"""Builds the course site into dist/.

  python build.py [--out DIR] [--lessons DIR]   validate every lesson, render, bundle, vendor
  python build.py fetch [--lessons DIR]         fill .cache/ with the verified Pyodide inputs and the
                                                lessons' pinned PyPI wheels
  python build.py serve [PORT | --port N] [--no-isolation] [--no-build] [--watch]
                                                build, then serve on localhost and print the URL;
                                                --watch rebuilds on every change and reloads open pages

A problem stops the build with a located message (`path:line: message`) and exit status 1.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "py")]

from sitebuild import bundle, hosting, lesson_packages, lessons, pages, precompile, serve, vendor, watch  # noqa: E402
from sitebuild.check_cache import CheckCache  # noqa: E402
from sitebuild.errors import BuildError  # noqa: E402
from authorkit.course import Course  # noqa: E402
from authorkit.prose import Renderer  # noqa: E402
from authorkit.wheel_cache import sha256_of  # noqa: E402
from companionkit import bundle as companion_bundle  # noqa: E402

PY_DIR = ROOT / "py"
# Packages every lesson page loads besides the lesson's own: the grader runs the checks with pytest.
GRADER_PACKAGES = ["pytest"]
# reference.py as each lesson page ships it.
MODEL_SOLUTION = "model-solution.py"


def log(message: str):
    # One write per line: `lessonkit check` runs on several threads, and print's separate write
    # of the newline let their lines run together.
    sys.stdout.write(f"[build] {message}\n")
    sys.stdout.flush()


def build(out: Path, lessons_dir: Path, minify: bool = True, live: LiveSite | None = None,
          check: bool = True) -> Path:
    """`live`: the watch loop's build, recorded there (LiveSite): pages get the live-reload
    snippet; no service worker, no compressed copies; a lesson whose `lessonkit check` passed on
    the same inputs before is not checked again. `check=False` (`--no-check`): no `lessonkit
    check` at all, for copies of lessons already checked."""
    started = time.monotonic()
    lesson_dirs = Course(lessons_dir).dirs()
    if not lesson_dirs:
        raise BuildError(f"no lessons found in {lessons_dir} (a lesson is a folder with lesson.toml)")
    # Cheap checks first (the lesson format, the prose), then the engine's full check.
    loaded = sorted((lessons.load(d, ROOT) for d in lesson_dirs), key=lambda l: (l.order, l.id))
    # The lessons' pinned PyPI wheels, verified (before `lessonkit check`, which grades with them).
    requirements = lesson_packages.resolve(loaded, ROOT)
    prose = lessons.render_prose(loaded, ROOT, live.renderer if live is not None else None)
    if check:
        lessons.validate(lesson_dirs, PY_DIR, ROOT, log,
                         cache=CheckCache(ROOT / ".cache" / "checked", ROOT) if live is not None else None)
    site_wheels = vendor.site_wheels(micropip=any(lesson.requirements for lesson in loaded))
    inputs = vendor.Resolver(ROOT, log=log).resolve_all(site_wheels)

    # Build into a fresh folder next to `out`, then swap it in: a failed build leaves the last
    # good site in place.
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    stage.chmod(0o755)  # mkdtemp's 0700 would keep a web server's user out
    try:
        log("bundling the front end")
        assets = bundle.bundle(ROOT, stage / "assets", lessons.widgets(loaded, ROOT), minify=minify)
        engine_zip = stage / "py" / "lessonkit.zip"
        lessons.write_zip(engine_zip, lessons.engine_entries(PY_DIR))
        compiled = precompile.Precompiler(inputs["pyodide.asm.wasm"].parent, ROOT / ".cache" / "pyc", log) \
            .compile_all([*vendor.precompiled_archives(inputs, site_wheels), precompile.site(engine_zip)])
        shutil.copyfile(compiled.pop(engine_zip.name), engine_zip)
        sizes = vendor.write_pyodide_dir(inputs, compiled, stage / "pyodide", site_wheels)
        sizes.update(lesson_packages.write(stage, requirements))
        pages_written = {}
        for lesson in loaded:
            pages_written[lesson.id] = write_lesson(stage, lesson, prose[lesson.id], assets, sizes, engine_zip,
                                                    _neighbours(loaded, lesson), requirements[lesson.id])
        (stage / "index.html").write_text(pages.index_page(loaded, assets), encoding="utf-8")
        if live is not None:  # on the author's machine: no offline worker, no precompressed copies
            watch.inject_live_reload(stage)
        else:
            hosting.write_service_worker(stage)
            hosting.compress(stage, ROOT / ".cache" / "compress", log)
        if out.exists():
            shutil.rmtree(out)
        stage.rename(out)
        if live is not None:
            live.pages = {lesson_id: page.moved_to(out) for lesson_id, page in pages_written.items()}
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    log(f"built {out} ({len(loaded)} lesson{'s' * (len(loaded) != 1)}) in {time.monotonic() - started:.1f} s")
    return out


def _neighbours(ordered: list, lesson) -> tuple:
    """The lessons before and after `lesson` in course order (None at either end)."""
    i = ordered.index(lesson)
    return (ordered[i - 1] if i > 0 else None, ordered[i + 1] if i + 1 < len(ordered) else None)


@dataclasses.dataclass(frozen=True)
class LivePage:
    """What a lesson page is made of besides its prose."""
    path: Path
    lesson: lessons.Lesson
    assets: dict
    config: dict
    neighbours: tuple

    def moved_to(self, site: Path) -> LivePage:
        """The same page in `site` (the build writes into a stage folder, then renames it)."""
        return dataclasses.replace(self, path=site / self.path.relative_to(self.path.parents[2]))


class LiveSite:
    """The watch loop's site: each lesson page of the last good build (by lesson id) and a
    renderer kept running, so that a save that changes only lesson.md writes that page again,
    with no build (rewrite)."""

    def __init__(self):
        self.pages: dict[str, LivePage] = {}
        self.renderer = Renderer()

    def rewrite(self, lesson_id: str) -> None:
        """The lesson's page with its lesson.md rendered again (a BuildError for its problems)."""
        page = self.pages[lesson_id]
        html = lessons.render_prose([page.lesson], ROOT, self.renderer)[lesson_id]
        text = pages.lesson_page(page.lesson, html, page.assets, page.config, *page.neighbours)
        page.path.write_text(watch.with_live_reload(text), encoding="utf-8")


def write_lesson(site: Path, lesson: lessons.Lesson, html: str, assets: dict, sizes: dict, engine_zip: Path,
                 neighbours: tuple = (None, None), requirements: list = ()) -> LivePage:
    """`requirements`: the lesson's verified PyPI wheels (lesson_packages.LessonWheel)."""
    page_dir = site / "lessons" / lesson.id
    archive = page_dir / "lesson.zip"
    lessons.write_zip(archive, [(p.as_posix(), lesson.path / p) for p in lessons.shipped_paths(lesson)])
    # The model solution, fetched only when the learner asks for it (docs/threat-model.md).
    shutil.copyfile(lesson.reference, page_dir / MODEL_SOLUTION)
    if lesson.companion:
        # The single download: a notebook that carries its library, and a zip with the script.
        try:
            companion_bundle.write_downloads(lesson.path, lesson.id, lesson.title, lesson.companion, page_dir)
        except ValueError as e:  # a notebook without its library cell, say: path:line: message
            raise BuildError(str(e)) from None
    # micropip installs the lesson's PyPI wheels (web/src/worker/packages.js); loading it with
    # the other packages overlaps its download with Pyodide's start-up.
    packages = [*lesson.packages, *GRADER_PACKAGES, *(["micropip"] if requirements else [])]
    # What the worker downloads through fetch, for the progress indicator's "x of y MB".
    lock = json.loads((site / "pyodide" / "pyodide-lock.json").read_text())
    wheels = _with_depends(packages, lock["packages"])
    lesson_packages.check_installable(lesson, list(requirements), set(wheels), ROOT)
    download_bytes = (sizes["pyodide.asm.wasm"] + sizes["python_stdlib.zip"] + sizes["pyodide-lock.json"]
                      + sum(sizes[lock["packages"][w]["file_name"]] for w in wheels)
                      + sum(sizes[w.file_name] for w in requirements)
                      + engine_zip.stat().st_size + archive.stat().st_size)
    config = {
        "lesson": {"id": lesson.id, "title": lesson.title, "starter": lesson.starter,
                   "languages": lesson.languages, "packages": packages,
                   "requirements": lesson_packages.page_entries(requirements),
                   "checkSeconds": lesson.limits.check_seconds,
                   "totalSeconds": lesson.limits.total_seconds,
                   "solutionAfterFailedRuns": lesson.solution_after_failed_runs},
        "urls": {"worker": f"../../assets/{assets['worker.js']}", "pyodide": "../../pyodide/",
                 "engine": "../../py/lessonkit.zip", "lesson": "lesson.zip", "solution": MODEL_SOLUTION,
                 # only where the folder exists: a site whose lessons pin nothing has no wheels/
                 **({"wheels": f"../../{lesson_packages.WHEELS_DIR}/"} if requirements else {})},
        "downloadBytes": download_bytes,
        # What the worker checks the bytes it unpacks against before any of them is used
        # (web/src/worker/boot.js): the engine, the lesson and Pyodide's lock file (which holds
        # every Pyodide package's sha256, checked by Pyodide itself).
        "sha256": {"engine": sha256_of(engine_zip), "lesson": sha256_of(archive),
                   "lock": sha256_of(site / "pyodide" / "pyodide-lock.json")},
    }
    (page_dir / "index.html").write_text(pages.lesson_page(lesson, html, assets, config, *neighbours), encoding="utf-8")
    return LivePage(page_dir / "index.html", lesson, assets, config, neighbours)


def _with_depends(names: list[str], packages: dict) -> list[str]:
    seen: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.append(name)
            todo.extend(packages[name]["depends"])
    return seen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", default="build", choices=["build", "fetch", "serve"])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument("--lessons", type=Path, default=ROOT / "lessons", help="lessons folder")
    parser.add_argument("port_arg", nargs="?", type=int, metavar="PORT",
                        help="serve: the port, as `./dev serve PORT` passes it")
    parser.add_argument("--port", type=int, default=8000, help="serve: port (0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="serve: address to listen on")
    parser.add_argument("--no-isolation", action="store_true",
                        help="serve: no COOP/COEP headers, like a plain static host")
    parser.add_argument("--no-build", action="store_true", help="serve: serve the existing output")
    parser.add_argument("--no-minify", action="store_true", help="readable bundles for debugging")
    parser.add_argument("--no-check", action="store_true",
                        help="skip `lessonkit check` (a copy of lessons already checked: the tests' "
                             "short-limits tp-mlp)")
    parser.add_argument("--watch", action="store_true",
                        help="serve: rebuild on changes to lessons/, web/, py/ and reload open pages")
    args = parser.parse_intermixed_args(argv)  # `serve --watch 8080`, as ./dev serve 8080 sends it
    try:
        if args.command == "fetch":
            loaded = [lessons.load(d, ROOT) for d in Course(args.lessons).dirs()]
            pinned = lesson_packages.resolve(loaded, ROOT)
            inputs = vendor.Resolver(ROOT, log=log).resolve_all(
                vendor.site_wheels(micropip=any(lesson.requirements for lesson in loaded)))
            count = sum(map(len, pinned.values()))
            log(f"all {len(inputs)} Pyodide inputs" + (f" and {count} lesson wheel(s)" if count else "")
                + " are present and verified")
            return 0
        port = args.port if args.port_arg is None else args.port_arg
        if args.command == "serve" and args.watch:
            return watch_and_serve(args.out, args.lessons, args.host, port, not args.no_isolation,
                                   minify=not args.no_minify)
        if not (args.command == "serve" and args.no_build):
            build(args.out, args.lessons, minify=not args.no_minify, check=not args.no_check)
        if args.command == "serve":
            run_server(args.out, args.host, port, isolated=not args.no_isolation)
        return 0
    except BuildError as e:
        print(f"build failed:\n{e}", file=sys.stderr)
        return 1


def watch_and_serve(out: Path, lessons_dir: Path, host: str, port: int, isolated: bool,
                    minify: bool) -> int:
    """The authoring loop: build, serve, and rebuild on every change; a failed build keeps the
    last good site and shows its errors in the terminal and over the open pages."""
    live = LiveSite()
    try:
        build(out, lessons_dir, minify=minify, live=live)
    except BuildError as e:  # nothing to serve yet: fix it and run again
        print(f"build failed:\n{e}", file=sys.stderr)
        return 1
    server = serve.make_server(out, host, port, isolated=isolated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"Serving {out} at {serve.url_of(server)}, rebuilding on changes (Ctrl+C stops)", flush=True)
    try:
        watch.watch(lambda: build(out, lessons_dir, minify=minify, live=live), live,
                    lessons_dir, ROOT / "web", PY_DIR, out, log)
    except KeyboardInterrupt:
        pass
    finally:
        live.renderer.close()
        server.shutdown()
        server.server_close()
    return 0


def run_server(directory: Path, host: str, port: int, isolated: bool):
    server = serve.make_server(directory, host, port, isolated=isolated)
    mode = "cross-origin isolated" if isolated else "without COOP/COEP"
    print(f"Serving {directory} ({mode}) at {serve.url_of(server)}  (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
