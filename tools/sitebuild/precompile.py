"""The site's Python shipped as bytecode: the standard library zip, the wheels and the engine
are precompiled at build time by Pyodide's own interpreter (pyc_compiler.py, run under Node by
precompile.mjs), so the browser loads .pyc instead of compiling every module at each start.

Compiling takes seconds, so each output is kept in `.cache/pyc/`, keyed by the sha256 of its
input, of the compiler and of the Pyodide that compiles; a build with a warm cache starts no
Node at all. Every output is verified before it is used, from the cache too: each `.py` of the
input has exactly one `.pyc`, with Python 3.12's magic number, hash-based and unchecked, whose
hash is that of the very source it was compiled from.
"""
from __future__ import annotations

import _imp
import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError

HERE = Path(__file__).resolve().parent
COMPILER = HERE / "pyc_compiler.py"
RUNNER = HERE / "precompile.mjs"
# Pyodide 0.27.7 runs CPython 3.12, whose bytecode starts with this magic number (3531).
PYC_MAGIC = b"\xcb\r\r\n"
CACHE_TAG = "cpython-312"
STDLIB_PREFIX = "/lib/python312.zip/"
SITE_PREFIX = "/lib/python3.12/site-packages/"
_UNCHECKED_HASH = 0b01  # PEP 552 flags: hash-based, source not checked at import


@dataclass(frozen=True)
class Archive:
    """One zip to precompile: `layout` "zipimport" (the stdlib zip) or "site" (unpacked into
    site-packages), `prefix` where its names live in the browser's file system."""
    name: str
    src: Path
    layout: str
    prefix: str


def stdlib(src: Path) -> Archive:
    return Archive(src.name, src, "zipimport", STDLIB_PREFIX)


def site(src: Path, name: str | None = None) -> Archive:
    return Archive(name or src.name, src, "site", SITE_PREFIX)


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()


class Precompiler:
    def __init__(self, core_dir: Path, cache_dir: Path, log=print):
        self.core_dir = core_dir
        self.cache = cache_dir
        self.log = log
        # Whatever changes the bytes: the compiler, its runner, and the interpreter itself.
        self.tool_key = _digest(COMPILER.read_bytes(), RUNNER.read_bytes(),
                                (core_dir / "pyodide.asm.wasm").read_bytes(),
                                (core_dir / "python_stdlib.zip").read_bytes())

    def key(self, archive: Archive) -> str:
        return _digest(self.tool_key.encode(), archive.src.read_bytes(),
                       f"{archive.layout}\0{archive.prefix}".encode())

    def compile_all(self, archives: list[Archive]) -> dict[str, Path]:
        """Every archive's verified precompiled copy, by name (compiling only what the cache lacks)."""
        paths = {a.name: self.cache / self.key(a) / a.name for a in archives}
        todo = [a for a in archives if not paths[a.name].is_file()]
        if todo:
            self.log(f"precompiling {', '.join(a.name for a in todo)} with Pyodide's Python")
            self._run(todo, paths)
        for archive in archives:
            try:
                verify(archive, paths[archive.name])
            except BuildError:
                shutil.rmtree(paths[archive.name].parent, ignore_errors=True)  # never reuse it
                raise
        return paths

    def _run(self, archives: list[Archive], paths: dict[str, Path]):
        self.cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.cache, prefix=".work-") as work:
            work = Path(work)
            for i, archive in enumerate(archives):
                shutil.copyfile(archive.src, work / f"in-{i}")
            job = {"core_dir": str(self.core_dir), "compiler": str(COMPILER), "work_dir": str(work),
                   "archives": [{"src": f"in-{i}", "dst": f"out-{i}", "layout": a.layout, "prefix": a.prefix}
                                for i, a in enumerate(archives)]}
            (work / "job.json").write_text(json.dumps(job))
            proc = subprocess.run(["node", str(RUNNER), str(work / "job.json")], capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"precompiling Python failed (node {RUNNER.name}):\n{proc.stderr.strip()[-3000:]}")
            results = json.loads(proc.stdout.strip().splitlines()[-1])["results"]
            for i, archive in enumerate(archives):
                target = paths[archive.name]
                target.parent.mkdir(parents=True, exist_ok=True)
                (work / f"out-{i}").replace(target)


def verify(archive: Archive, compiled: Path):
    """Raises BuildError unless `compiled` holds, for every .py of the input, one unchecked
    hash-based .pyc of Python 3.12 made from exactly that source (and nothing else changed)."""
    key = int.from_bytes(PYC_MAGIC[:2], "little") | (int.from_bytes(b"\r\n", "little") << 16)
    with zipfile.ZipFile(archive.src) as z:
        sources = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}
    with zipfile.ZipFile(compiled) as z:
        shipped = {n: z.read(n) for n in z.namelist()}
    problems = []
    expected_names = set()
    for name, data in sources.items():
        if not name.endswith(".py"):
            expected_names.add(name)
            if shipped.get(name) != data:
                problems.append(f"{name}: missing or changed")
            continue
        pyc_name = name + "c" if archive.layout == "zipimport" else _cache_name(name)
        expected_names.add(pyc_name)
        if archive.layout == "site":
            expected_names.add(name)
            if shipped.get(name) != data:
                problems.append(f"{name}: source missing or changed")
        pyc = shipped.get(pyc_name)
        if pyc is None:
            problems.append(f"{name}: no {pyc_name}")
        elif pyc[:4] != PYC_MAGIC or int.from_bytes(pyc[4:8], "little") != _UNCHECKED_HASH:
            problems.append(f"{pyc_name}: not an unchecked hash-based Python 3.12 .pyc")
        elif pyc[8:16] != _imp.source_hash(key, data):
            problems.append(f"{pyc_name}: compiled from a different source")
    extra = set(shipped) - expected_names
    if extra:
        problems.append(f"unexpected files: {sorted(extra)[:5]}")
    if problems:
        raise BuildError(f"precompiled {archive.name} ({compiled}) is wrong:\n  " + "\n  ".join(problems[:10]))


def _cache_name(path: str) -> str:
    folder, _, file = path.rpartition("/")
    cached = f"__pycache__/{file[:-3]}.{CACHE_TAG}.pyc"
    return f"{folder}/{cached}" if folder else cached
