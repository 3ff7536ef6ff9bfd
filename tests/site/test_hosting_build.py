"""What the build does for hosting: Python shipped precompiled (by Pyodide's own interpreter,
verified, deterministic, cached) and really used by Pyodide; the service worker's manifest;
precompressed copies; and `build.py serve` serving them as a good static host does."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from sitebuild import hosting, precompile, vendor
from sitebuild.errors import BuildError
from sitebuild.serve import serve_in_thread
from sitebuild.testing import shared_site

CORE = ROOT / "node_modules" / "pyodide"
INICONFIG = next(w for w in vendor.WHEELS if w.name == "iniconfig")
PYODIDE_CHECK = Path(__file__).with_name("pyodide_dist.mjs")


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory)


def names(path: Path) -> set[str]:
    with zipfile.ZipFile(path) as z:
        return set(z.namelist())


# --- precompiled Python ---------------------------------------------------------------------
def test_the_stdlib_ships_as_bytecode_and_the_packages_keep_their_sources(dist):
    stdlib = names(dist / "pyodide" / "python_stdlib.zip")
    assert "os.pyc" in stdlib and "os.py" not in stdlib
    assert not [n for n in stdlib if n.endswith(".py")]
    pytest_whl = next((dist / "pyodide").glob("pytest-*.whl"))
    shipped = names(pytest_whl)
    assert {"_pytest/main.py", "_pytest/__pycache__/main.cpython-312.pyc"} <= shipped
    with zipfile.ZipFile(pytest_whl) as z:
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())  # so .br/.gz compress them


def test_pyodide_imports_the_bytecode_and_learner_tracebacks_keep_their_lines(dist, tmp_path):
    """In Pyodide under Node, from dist/ as the browser gets it (the lock's sha256 checked by
    Pyodide): nothing of the stdlib, pytest or lessonkit is compiled from source at import, and
    a learner's error still names their own line."""
    syntax_error = "import numpy as np\n\ndef gelu(x):\n    return np.tanh(x) +\n"
    reference = (ROOT / "lessons" / "tp-mlp" / "reference.py").read_text()
    raising = reference + "\n\ndef gelu(x):\n    raise ValueError('my own error')\n"
    raise_line = len(raising.splitlines())
    job = {"site": str(dist), "lesson": "tp-mlp", "solutions": [syntax_error, raising]}
    (tmp_path / "job.json").write_text(json.dumps(job))
    run = subprocess.run(["node", str(PYODIDE_CHECK), str(tmp_path / "job.json")], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    # The hook sees compiling (pytest compiles the checks and lessonkit the learner's file)...
    assert any(f.startswith("/home/pyodide/lessons/tp-mlp/checks/") for f in result["compiled"])
    # ...but nothing the site ships precompiled is compiled again.
    assert [f for f in result["compiled"] if f.startswith("/lib/")] == []
    assert result["json_file"].endswith("python312.zip/json/__init__.pyc")
    syntax = result["reports"][0]["checks"][0]
    assert syntax["status"] == "error" and "line 4" in syntax["message"], syntax
    raised = result["reports"][1]["checks"]
    assert raised[0]["status"] == "passed"  # `load`: the file runs
    first_error = next(c for c in raised if c["status"] == "error")
    assert f"line {raise_line}" in first_error["message"] and "my own error" in first_error["message"], first_error


def test_precompiling_is_deterministic_verified_and_cached(tmp_path):
    source = vendor.Resolver(ROOT, log=lambda m: None).wheel(INICONFIG)
    logs = []
    first = precompile.Precompiler(CORE, tmp_path / "a", logs.append).compile_all([precompile.site(source)])
    again = precompile.Precompiler(CORE, tmp_path / "a", logs.append).compile_all([precompile.site(source)])
    other = precompile.Precompiler(CORE, tmp_path / "b", logs.append).compile_all([precompile.site(source)])
    name = source.name
    assert first[name].read_bytes() == other[name].read_bytes()  # same inputs, same bytes
    assert sum("precompiling" in m for m in logs) == 2, logs  # the second build reused the cache
    assert again[name] == first[name]


def test_bytecode_that_does_not_match_its_source_stops_the_build(tmp_path):
    source = vendor.Resolver(ROOT, log=lambda m: None).wheel(INICONFIG)
    archive = precompile.site(source)
    compiled = precompile.Precompiler(CORE, tmp_path / "cache", lambda m: None).compile_all([archive])[source.name]
    tampered = tmp_path / "tampered.whl"
    with zipfile.ZipFile(compiled) as z, zipfile.ZipFile(tampered, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "iniconfig/__pycache__/__init__.cpython-312.pyc":
                data = data[:8] + bytes(8) + data[16:]  # another source's hash
            out.writestr(info, data)
    with pytest.raises(BuildError, match=r"iniconfig/__pycache__/__init__\.cpython-312\.pyc: compiled from a "
                                         r"different source"):
        precompile.verify(archive, tampered)
    # And a cached copy that was changed is thrown away and reported.
    shutil.copyfile(tampered, compiled)
    with pytest.raises(BuildError, match="compiled from a different source"):
        precompile.Precompiler(CORE, tmp_path / "cache", lambda m: None).compile_all([archive])
    assert not compiled.exists()


# --- service worker and compression ---------------------------------------------------------
def test_the_service_worker_precaches_every_file_the_pages_use(dist):
    text = (dist / "sw.js").read_text()
    manifest = json.loads(re.match(r"const PRECACHE = (.*?);\n", text, re.S).group(1))
    files = manifest["files"]
    for rel in ("index.html", "lessons/tp-mlp/index.html", "lessons/tp-mlp/lesson.zip", "py/lessonkit.zip",
                "pyodide/pyodide.asm.wasm", "pyodide/pyodide-lock.json", "pyodide/python_stdlib.zip"):
        assert files[rel] == hashlib.sha256((dist / rel).read_bytes()).hexdigest(), rel
    assert not [f for f in files if f.endswith((".br", ".gz", ".map", ".ipynb")) or f == "sw.js"]
    assert all(any(f.startswith(f"assets/{n}-") for f in files) for n in ("page", "worker"))


def test_large_files_have_brotli_and_gzip_copies_beside_them(dist):
    wasm = dist / "pyodide" / "pyodide.asm.wasm"
    for path in (wasm, dist / "pyodide" / "python_stdlib.zip", next((dist / "assets").glob("page-*.js"))):
        br, gz = path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")
        assert br.stat().st_size < gz.stat().st_size < path.stat().st_size, path
        assert gzip.decompress(gz.read_bytes()) == path.read_bytes()
    # Brotli round trip through Node's zlib (Python has no brotli here).
    node = "process.stdout.write(require('zlib').brotliDecompressSync(require('fs').readFileSync(process.argv[1])))"
    out = subprocess.run(["node", "-e", node, str(wasm) + ".br"], capture_output=True, check=True).stdout
    assert out == wasm.read_bytes()
    small = [p for p in dist.rglob("*") if p.is_file() and p.stat().st_size < hosting.COMPRESS_MIN_BYTES]
    assert small and not [p for p in small if p.with_name(p.name + ".br").exists()]


def get(url: str, encoding: str | None, extra: dict | None = None):
    headers = {"Accept-Encoding": encoding} if encoding else {}
    request = urllib.request.Request(url, headers={**headers, **(extra or {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, b""


def test_serve_sends_precompressed_files_and_caches_hashed_names_for_good(dist):
    server, url = serve_in_thread(dist, isolated=False)
    try:
        wasm = dist / "pyodide" / "pyodide.asm.wasm"
        status, headers, body = get(url + "pyodide/pyodide.asm.wasm", "gzip, deflate, br")
        assert (status, headers["Content-Encoding"], headers["Content-Type"]) == (200, "br", "application/wasm")
        assert body == (wasm.with_name(wasm.name + ".br")).read_bytes()
        assert headers["Vary"] == "Accept-Encoding" and headers["Cache-Control"] == "no-cache"
        status, headers, body = get(url + "pyodide/pyodide.asm.wasm", "gzip")
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == wasm.read_bytes()
        status, headers, body = get(url + "pyodide/pyodide.asm.wasm", None)
        assert headers["Content-Encoding"] is None and body == wasm.read_bytes()
        # Revalidation of an unchanged file: 304, no body.
        status, _, body = get(url + "pyodide/pyodide.asm.wasm", None, {"If-None-Match": headers["ETag"]})
        assert (status, body) == (304, b"")
        page_js = next((dist / "assets").glob("page-*.js")).name
        _, headers, _ = get(url + "assets/" + page_js, "br")
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
        _, headers, _ = get(url + "sw.js", "br")
        assert headers["Cache-Control"] == "no-cache"  # the browser checks it for updates
    finally:
        server.shutdown()
        server.server_close()


def test_serve_revalidates_a_file_written_again_within_the_same_second(tmp_path):
    """A page rebuilt within a second of the copy the browser holds comes back anew, not as a 304
    (`serve --watch` showed the page before a quick second save)."""
    page = tmp_path / "index.html"
    second = 1_700_000_000 * 10**9
    page.write_text("<h1>before</h1>")
    os.utime(page, ns=(second + 100_000_000,) * 2)
    server, url = serve_in_thread(tmp_path, isolated=False)
    try:
        status, headers, body = get(url, None)
        assert (status, body) == (200, b"<h1>before</h1>")
        page.write_text("<h1>after!</h1>")  # the same size, 0.6 s later
        os.utime(page, ns=(second + 700_000_000,) * 2)
        # Back with whichever validators the server gave, as the browser sends them.
        validators = {"If-None-Match": headers["ETag"], "If-Modified-Since": headers["Last-Modified"]}
        status, _, body = get(url, None, {name: value for name, value in validators.items() if value})
        assert (status, body) == (200, b"<h1>after!</h1>")
    finally:
        server.shutdown()
        server.server_close()
