"""The verified wheel cache for lesson.toml's `requirements` (lessonkit/requirements.py), CPython
only: each pinned wheel downloaded once from PyPI through pip, verified against its sha256, kept
under `.cache/lesson-wheels/<sha256>/`, and unpacked beside it, where grading runs find it. The build
(tools/sitebuild/lesson_packages.py) vendors from the same cache; a wheel is only ever stored
there after its digest matched the pin.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from lessonkit.requirements import PYODIDE_PYTHON, UNPACKED, WHEEL_CACHE, Pin, canonical_name


def cached_wheel(pin: Pin) -> Path | None:
    """The pin's wheel when the cache holds it verified, else None."""
    if pin.sha256 is None:
        return None
    for path in (WHEEL_CACHE / pin.sha256).glob("*.whl"):
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
    cache = WHEEL_CACHE
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
    site = wheel.parent / UNPACKED
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
