"""What makes the built site fast and offline on any static host, done once the site's files
are all written: the service worker with the build's precache manifest (dist/sw.js), and
precompressed `.br` and `.gz` copies beside every large file.

Compressing is slow (brotli takes about half a minute of two cores for the whole site, gzip -9
some seconds), so each compressed copy is kept in `.cache/compress/`, named by the sha256 of its
input (and brotli's quality).
"""
from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .errors import BuildError

HERE = Path(__file__).resolve().parent
SERVICE_WORKER_SOURCE = HERE.parents[1] / "web" / "src" / "service-worker.js"
SERVICE_WORKER = "sw.js"
# 10 rather than 11: on Pyodide's four large files (runtime, standard library, numpy and pytest
# wheels) it takes 50 s of CPU instead of 113 s, on a first build and on every fresh machine, and
# they come out 3.4% larger (8.36 MB instead of 8.08 MB).
BROTLI_QUALITY = 10
# Smaller files gain less than their request's headers weigh.
COMPRESS_MIN_BYTES = 1024
# Already compressed, or not fetched by the pages: no .br/.gz.
NOT_COMPRESSED = (".br", ".gz", ".png", ".jpg", ".woff2", ".map")
# Not precached: source maps are for developers, the companion files are downloads, and every
# browser that runs the site takes KaTeX's woff2 fonts (listed first), never the woff/ttf ones.
NOT_PRECACHED = (".br", ".gz", ".map", ".ipynb", ".woff", ".ttf")
# A cached brotli copy's name after its input's digest.
BR = f".q{BROTLI_QUALITY}.br"
# The Content-Security-Policy of the Python workers, which a worker takes from its own script's
# response: no JavaScript made from text (eval, Function, timers given a string) and no script
# from another site, so learner code there cannot run JavaScript of its own, dynamic import()
# included (docs/threat-model.md). Pyodide needs only 'wasm-unsafe-eval'. blob: because Chromium
# does not start a worker whose script a service worker answered under this policy without it
# (measured; from the host's own headers it starts either way); a blob: script could only be
# loaded by importScripts, a Worker or import(), which learner code has none of. The service
# worker adds it to the worker script; a host that sends headers (serve.py) sends it with COOP/COEP.
WORKER_CSP = "script-src 'self' blob: 'wasm-unsafe-eval'"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(site: Path):
    return sorted(p for p in site.rglob("*") if p.is_file())


def write_service_worker(site: Path) -> Path:
    """dist/sw.js: the worker's source after its manifest, {version, files: {path: sha256}} of
    every file the pages use, and WORKER_CSP. The version changes with any file, so the browser, which checks
    sw.js on each visit, installs the new build's worker."""
    files = {p.relative_to(site).as_posix(): _sha256(p) for p in _files(site)
             if not p.name.endswith(NOT_PRECACHED) and "companion" not in p.relative_to(site).as_posix()}
    version = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    manifest = json.dumps({"version": version, "files": files}, indent=0, sort_keys=True)
    out = site / SERVICE_WORKER
    out.write_text(f"const PRECACHE = {manifest};\nconst WORKER_CSP = {json.dumps(WORKER_CSP)};\n"
                   + SERVICE_WORKER_SOURCE.read_text(encoding="utf-8"), encoding="utf-8")
    return out


def compress(site: Path, cache: Path, log=print):
    """Writes `x.br` and `x.gz` beside every file of at least COMPRESS_MIN_BYTES (unless its
    format is already compressed), each only when smaller than the file itself."""
    targets = [p for p in _files(site)
               if p.stat().st_size >= COMPRESS_MIN_BYTES and not p.name.endswith(NOT_COMPRESSED)]
    cache.mkdir(parents=True, exist_ok=True)
    digests = {p: _sha256(p) for p in targets}
    inputs = {digests[p]: p for p in targets}
    # Builds running at once (two test workers, `serve --watch` beside a build) mostly share
    # their files (Pyodide's, the wheels): the second waits for the first's copies instead of
    # compressing the same bytes again.
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        todo = {digest: src for digest, src in inputs.items() if not (cache / f"{digest}{BR}").is_file()}
        if todo:
            log(f"compressing {len(todo)} file{'s' * (len(todo) != 1)} with brotli (cached afterwards)")
            with tempfile.TemporaryDirectory(dir=cache, prefix=".work-") as work:
                job = [[str(src), str(Path(work) / f"{digest}{BR}")] for digest, src in todo.items()]
                (Path(work) / "job.json").write_text(json.dumps(job))
                proc = subprocess.run(["node", str(HERE / "compress.mjs"), str(Path(work) / "job.json"),
                                       str(BROTLI_QUALITY)],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    raise BuildError(f"brotli compression failed (node compress.mjs):\n{proc.stderr.strip()[-2000:]}")
                for digest in todo:
                    (Path(work) / f"{digest}{BR}").replace(cache / f"{digest}{BR}")

        def gzip_into_cache(digest: str):
            # mtime=0 keeps it byte-identical across builds.
            partial = cache / f".{digest}.gz.part"
            partial.write_bytes(gzip.compress(inputs[digest].read_bytes(), compresslevel=9, mtime=0))
            partial.replace(cache / f"{digest}.gz")
        # zlib lets go of the GIL while it compresses: one thread per core.
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(gzip_into_cache, [d for d in inputs if not (cache / f"{d}.gz").is_file()]))

    for path in targets:
        for cached, suffix in ((BR, ".br"), (".gz", ".gz")):
            copy = cache / f"{digests[path]}{cached}"
            if copy.stat().st_size < path.stat().st_size:
                shutil.copyfile(copy, path.with_name(path.name + suffix))
