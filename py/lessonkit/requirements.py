"""Extra packages a lesson's code may import: `requirements` in lesson.toml, each an exact pin
of a pure-Python wheel from PyPI with the sha256 of that wheel, in pip's hash syntax:

    requirements = ["einops==0.8.1 --hash=sha256:919387eb55330f57..."]

The build vendors each pinned wheel into the site and the page installs it with micropip
(tools/sitebuild/lesson_packages.py, web/src/worker/packages.js). Under CPython,
`lessonkit check` and `grade` put the same verified wheel, unpacked into a folder of its own,
on sys.path for the grading run only (`importable`), never into the venv.

Fetching, verifying and unpacking the wheels is the authoring tools' part
(authorkit/wheel_cache.py, run by `lessonkit check` and `grade` and the build); grading only finds
them unpacked in the cache. This module is what the browser's workers import too, so it imports
nothing they would not otherwise load.
"""
from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# The browser's Python (Pyodide 0.27.7): pins resolve to wheels that install there.
PYODIDE_PYTHON = "3.12"
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_HASH = re.compile(r"^--hash=sha256:([0-9a-f]{64})$")
# A public version as PyPI writes it in file names (PEP 440's normal form), matched by regex:
# the engine also loads lessons in the browser's learner worker, which has no `packaging`.
_VERSION = re.compile(r"^\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?$")
# The verified wheel cache (filled by authorkit/wheel_cache.py): the repository's .cache/, beside
# the Pyodide inputs (this file is py/lessonkit/requirements.py in it). `<sha256>/site/` holds
# the wheel of that digest unpacked, made only from a wheel whose digest matched its pin.
WHEEL_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "lesson-wheels"
UNPACKED = "site"
_PIN_EXAMPLE = '"einops==0.8.1 --hash=sha256:<64 hex digits>"'


@dataclass(frozen=True)
class Pin:
    """One entry of `requirements`: `name==version`, and the sha256 of its wheel (None until
    the author pins it; nothing installs or ships without it)."""
    name: str          # canonical (PEP 503): lowercase, runs of -_. as one -
    version: str
    sha256: str | None
    text: str          # as written in lesson.toml, to find its line

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def parse_pin(text: str) -> Pin | str:
    """The Pin `text` declares, or why it is not one (the message for a located error)."""
    requirement, *options = text.split() or [""]
    name, sep, version = requirement.partition("==")
    if not _NAME.match(re.split(r"[=<>!~\[;@(]", requirement, maxsplit=1)[0]):
        return f"requirement {text!r} does not start with a package name, like {_PIN_EXAMPLE}"
    if not sep or not _NAME.match(name) or not version or re.search(r"[=<>!~*,;\[\]@]", version):
        return (f"requirement {text!r} must pin one exact version with ==, like {_PIN_EXAMPLE}: "
                "the page installs exactly the wheel the build verified (no ranges, extras, "
                "markers or URLs)")
    if not _VERSION.match(version):
        return (f"requirement {text!r}: {version!r} is not a version as PyPI writes it "
                "(like 0.8.1, 2.0rc1, 1.0.post1)")
    sha256 = None
    for option in options:
        m = _HASH.match(option)
        if m is None or sha256 is not None:
            return (f"requirement {text!r}: after the pin comes one --hash=sha256:<64 lowercase "
                    f"hex digits>, the digest of its wheel, and nothing else")
        sha256 = m.group(1)
    return Pin(canonical_name(name), version, sha256, text)


def canonical_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@contextmanager
def importable(pins: list[Pin]):
    """The pinned packages importable while the block runs (one grading run), and imported
    afresh in the next: whatever learner code did to one is gone by then. In the browser
    micropip has already installed them (packages.js); under CPython each verified wheel's
    folder is on sys.path for the block only."""
    folders = [] if sys.platform == "emscripten" else installed(pins)
    sys.path[:0] = folders
    try:
        yield
    finally:
        for folder in folders:
            if folder in sys.path:
                sys.path.remove(folder)
        tops = _top_level_names(pins, folders)
        for name in [n for n in sys.modules if n.split(".")[0] in tops]:
            del sys.modules[name]


def installed(pins: list[Pin]) -> list[str]:
    """The unpacked folder in the wheel cache of each pin that has one (CPython)."""
    folders = []
    for pin in pins:
        site = WHEEL_CACHE / pin.sha256 / UNPACKED if pin.sha256 else None
        if site is not None and site.is_dir():
            folders.append(str(site))
        else:
            # Not raised: grading goes on and the learner's import names the missing package;
            # `lessonkit check` reports the pin at its line in lesson.toml.
            print(f"lessonkit: {pin.requirement} is not installed: `python -m lessonkit check` "
                  "fetches it", file=sys.__stderr__)
    return folders


def _top_level_names(pins: list[Pin], folders: list[str]) -> set[str]:
    """The importable top-level names of the pinned distributions (from their RECORD)."""
    if not pins:
        return set()
    import importlib.metadata  # tens of milliseconds in the browser: only for lessons with pins
    tops = set()
    for pin in pins:
        try:
            search = {"path": folders} if folders else {}  # the browser: its site-packages
            dist = next(iter(importlib.metadata.distributions(name=pin.name, **search)))
        except StopIteration:
            continue
        for file in dist.files or ():
            top = file.parts[0]
            if top.endswith((".dist-info", ".data")) or top == ".." or top.startswith("__"):
                continue
            tops.add(top[:-3] if top.endswith(".py") else top)
    return tops
