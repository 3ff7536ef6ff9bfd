"""Extra packages a lesson's code may import: `requirements` in lesson.toml, each an exact pin
of a pure-Python wheel from PyPI with the sha256 of that wheel, in pip's hash syntax:

    requirements = ["einops==0.8.1 --hash=sha256:919387eb55330f57..."]

The build vendors each pinned wheel into the site and the page installs it with micropip
(tools/sitebuild/lesson_packages.py, web/src/worker/packages.js). Under CPython,
`lessonkit check` and `grade` put the same verified wheel, unpacked into a folder of its own,
on sys.path for the grading run only (`importable`), never into the venv.

Wheels are cached by their pinned sha256 under `.cache/lesson-wheels/<sha256>/`, shared by
the build and the command line; a wheel is only ever stored there after its digest matched
the pin.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
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


def cache_dir() -> Path:
    """Where the verified wheels live: the repository's .cache/ (this file is
    py/lessonkit/requirements.py in it), beside the Pyodide inputs."""
    return Path(__file__).resolve().parents[2] / ".cache" / "lesson-wheels"


def cached_wheel(pin: Pin) -> Path | None:
    """The pin's wheel when the cache holds it verified, else None."""
    if pin.sha256 is None:
        return None
    for path in (cache_dir() / pin.sha256).glob("*.whl"):
        # The digest alone is not enough: a pin of another package with this wheel's sha256
        # must not be served this wheel.
        if wheel_pin(path.name) == (pin.name, pin.version) and sha256_of(path) == pin.sha256:
            return path
    return None


def wheel_pin(file_name: str) -> tuple[str, str]:
    """(canonical name, version) of a wheel file name `name-version-...-tags.whl`."""
    name, version, *_ = file_name.split("-") + [""]
    return canonical_name(name), version


class PinError(Exception):
    """A pin that cannot be fetched or verified (the caller locates it in lesson.toml)."""


def fetch(pin: Pin) -> Path:
    """The pin's wheel, verified: from the cache, else downloaded from PyPI (through pip and
    its configured index) and kept in the cache. Raises PinError saying what went wrong."""
    cache = cache_dir()
    found = cached_wheel(pin)
    if found is not None:
        return found
    tmp = cache / ".tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tmp) as out:
        wheel = pip_download(pin.requirement, Path(out), pure=True)
        if isinstance(wheel, str):
            raise PinError(f"{pin.requirement}: PyPI has no pure-Python wheel (tagged none-any) "
                           f"of it for Python {PYODIDE_PYTHON}; check the name and version, and "
                           f"that the package is pure Python: the browser's Python installs "
                           f"only those ({wheel})")
        got = sha256_of(wheel)
        if pin.sha256 is None:
            raise PinError(f"{pin.requirement} has no sha256 pin. PyPI's wheel {wheel.name} has "
                           f"sha256 {got}; once you trust it, write the pin as "
                           f'"{pin.requirement} --hash=sha256:{got}"')
        if got != pin.sha256:
            raise PinError(f"{pin.requirement}: PyPI's wheel {wheel.name} has sha256 {got}, but "
                           f"lesson.toml pins {pin.sha256}; the wheel was not used")
        target = cache / pin.sha256 / wheel.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(wheel), target)
    return target


def pip_download(requirement: str, out: Path, pure: bool) -> Path | str:
    """`pip download --no-deps` of one wheel into `out`: its path, or pip's reason for failing.
    pure: only a wheel tagged py3-none-any that installs in the browser's Python."""
    tags = (["--python-version", PYODIDE_PYTHON, "--implementation", "py", "--abi", "none",
             "--platform", "any"] if pure else [])
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", *tags,
         "--disable-pip-version-check", "-q", "-d", str(out), requirement],
        capture_output=True, text=True)
    wheels = list(out.glob("*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return "pip download failed: " + (lines[-1] if lines else f"exit {proc.returncode}")
    return wheels[0]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def install(pin: Pin) -> Path:
    """The folder holding the pin's wheel unpacked (a pure wheel's files are importable as
    they are), made once per wheel from the verified copy: `<cache>/<sha256>/site/`."""
    wheel = fetch(pin)
    site = wheel.parent / "site"
    if not site.is_dir():
        # Unpacked beside and renamed into place: a folder that exists is complete.
        work = Path(tempfile.mkdtemp(dir=wheel.parent, prefix=".site-"))
        with zipfile.ZipFile(wheel) as z:
            z.extractall(work)
        try:
            work.rename(site)
        except OSError:  # another process got there first
            shutil.rmtree(work, ignore_errors=True)
    return site


@contextmanager
def importable(pins: list[Pin]):
    """The pinned packages importable while the block runs (one grading run), and imported
    afresh in the next: whatever learner code did to one is gone by then. In the browser
    micropip has already installed them (packages.js); under CPython each verified wheel's
    folder is on sys.path for the block only."""
    folders = [] if sys.platform == "emscripten" else _installed(pins)
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


def _installed(pins: list[Pin]) -> list[str]:
    folders = []
    for pin in pins:
        try:
            folders.append(str(install(pin)))
        except (PinError, OSError, zipfile.BadZipFile) as exc:
            # Not raised: grading goes on and the learner's import names the missing package;
            # `lessonkit check` reports the pin at its line in lesson.toml.
            print(f"lessonkit: {pin.requirement} is not installed: {exc}", file=sys.__stderr__)
    return folders


def _top_level_names(pins: list[Pin], folders: list[str]) -> set[str]:
    """The importable top-level names of the pinned distributions (from their RECORD)."""
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
