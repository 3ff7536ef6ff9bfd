"""Precompiles the Python the site ships, run by Pyodide's own interpreter (precompile.mjs), so
the bytecode matches the browser's Python exactly and the browser never compiles these modules.

  compile_archive(src, dst, layout, prefix) -> number of modules compiled

`layout` says where Python looks for bytecode in that archive:
- "zipimport" (the standard library zip, imported from the zip itself): each `x.py` is replaced
  by a sourceless `x.pyc` beside it, as CPython's own embeddable distribution ships its zip.
- "site" (wheels and the engine, unpacked into site-packages): each `x.py` stays (tracebacks and
  pytest's reports keep their source lines) and `__pycache__/x.cpython-312.pyc` is added.
Every .pyc is hash-based and unchecked (PEP 552): no timestamps, so the same inputs give the same
bytes, and unpacking (which resets files' times) never makes them look stale. The archive is
rewritten stored, in name order, with fixed dates: compression happens once, over the whole file,
when the site is served (.br/.gz beside it).
"""
from __future__ import annotations

import importlib.util
import sys
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def pyc_bytes(source: bytes, filename: str) -> bytes:
    """What py_compile writes with PycInvalidationMode.UNCHECKED_HASH."""
    code = compile(source, filename, "exec", dont_inherit=True, optimize=0)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))


def cache_name(path: str) -> str:
    folder, _, name = path.rpartition("/")
    stem = name[:-3]
    tag = sys.implementation.cache_tag
    return f"{folder}/__pycache__/{stem}.{tag}.pyc" if folder else f"__pycache__/{stem}.{tag}.pyc"


def compile_archive(src: str, dst: str, layout: str, prefix: str) -> int:
    """Writes the precompiled copy of `src` to `dst`; returns how many modules it compiled.
    `prefix` is where the archive's names live in the browser (the code's file names).
    A .py that does not compile raises SyntaxError naming it: nothing ships half-compiled."""
    entries: dict[str, bytes] = {}
    with zipfile.ZipFile(src) as z:
        for info in z.infolist():
            if info.is_dir():
                continue
            name, data = info.filename, z.read(info)
            if not name.endswith(".py"):
                entries[name] = data
                continue
            pyc = pyc_bytes(data, prefix + name)
            if layout == "zipimport":
                entries[name + "c"] = pyc
            else:
                entries[name] = data
                entries[cache_name(name)] = pyc
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as out:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o644 << 16
            out.writestr(info, entries[name])
    return sum(name.endswith(".pyc") for name in entries)
