"""Extra packages per lesson (lesson.toml `requirements`): exact pins of pure-Python PyPI wheels
with their sha256, located errors for anything else, `lessonkit check` and `grade` importing the
pinned wheel in CPython for grading runs only, and the build vendoring each verified wheel (and
micropip) into the site, counted in the page's download and precached. The test lesson
tests/fixtures/lessons/pkg-demo imports einops; the page installing it offline is
tests/browser/test_lesson_packages_in_page.py."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lessonkit import LessonError, load_lesson
from authorkit.cli import check_lesson

ROOT = Path(__file__).resolve().parents[2]

from sitebuild import lesson_packages, vendor
from sitebuild.errors import BuildError
from sitebuild.testing import build_site, shared_site

FIXTURES = ROOT / "tests" / "fixtures" / "lessons"
DEMO = FIXTURES / "pkg-demo"
EINOPS = "einops-0.8.1-py3-none-any.whl"
EINOPS_SHA256 = "919387eb55330f5757c6bea9165c5ff5cfe63a642682ea788a6d472576d81737"
PIN = f"einops==0.8.1 --hash=sha256:{EINOPS_SHA256}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def demo_copy(tmp_path: Path, pin: str | None = None) -> Path:
    """The test lesson in a lessons folder of its own, its pin replaced by `pin`."""
    folder = tmp_path / "lessons" / "pkg-demo"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if pin is not None:
        toml = folder / "lesson.toml"
        toml.write_text(toml.read_text().replace(PIN, pin))
    return folder


def pin_line(folder: Path) -> int:
    lines = (folder / "lesson.toml").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip().startswith('"'))


# --- the format -----------------------------------------------------------------------------
@pytest.mark.parametrize("pin, message", [
    ("einops>=0.8", "must pin one exact version with =="),
    ("einops", "must pin one exact version with =="),
    ("einops==0.8.*", "must pin one exact version with =="),
    ("einops[torch]==0.8.1", "must pin one exact version with =="),
    ("einops==0.8.1; python_version > '3'", "must pin one exact version with =="),
    ("-einops==0.8.1", "does not start with a package name"),
    ("einops==eight", "'eight' is not a version as PyPI writes it"),
    ("einops==0.8.1 --hash=sha256:abc", "one --hash=sha256:<64 lowercase hex digits>"),
    (f"einops==0.8.1 --hash=md5:{EINOPS_SHA256}", "one --hash=sha256:<64 lowercase hex digits>"),
    (f"{PIN}\",\n  \"Einops==0.8.1", "einops is named twice"),
    ("numpy==2.0.2", "numpy is named twice (in `requirements` or `packages`)"),
])
def test_a_requirement_that_is_not_an_exact_pin_is_located(tmp_path, pin, message):
    folder = demo_copy(tmp_path, pin)
    with pytest.raises(LessonError) as caught:
        load_lesson(folder)
    assert caught.value.path == str(folder / "lesson.toml")
    lines = (folder / "lesson.toml").read_text().splitlines()
    assert lines[caught.value.line - 1].strip().startswith('"'), caught.value  # the entry's own line
    assert message in caught.value.message


def test_the_pin_and_its_sha256_are_read():
    (pin,) = load_lesson(DEMO).requirements
    assert (pin.name, pin.version, pin.sha256) == ("einops", "0.8.1", EINOPS_SHA256)


def test_lessons_load_without_packaging():
    """The browser's learner worker loads the lesson with numpy alone (no pytest, so no
    `packaging`): reading the pins must not need it."""
    code = ("import sys; sys.modules['packaging'] = None\n"
            "from lessonkit import load_lesson\n"
            f"print(load_lesson({str(DEMO)!r}).requirements[0].requirement)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "einops==0.8.1\n"), proc.stderr


def test_a_platform_wheel_is_a_located_error(tmp_path):
    """numpy has only platform wheels on PyPI: the browser's Python could not install one."""
    folder = demo_copy(tmp_path, f"numpy==2.0.2 --hash=sha256:{EINOPS_SHA256}")
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace('packages = ["numpy"]', "packages = []"))
    problems = check_lesson(folder)
    assert problems[0].startswith(f"{toml}:{pin_line(folder)}: numpy==2.0.2: PyPI has no pure-Python "
                                  "wheel (tagged none-any)"), problems


def test_a_pin_without_sha256_names_the_one_to_pin(tmp_path):
    folder = demo_copy(tmp_path, "einops==0.8.1")
    problems = check_lesson(folder)
    assert problems[0] == (f"{folder / 'lesson.toml'}:{pin_line(folder)}: einops==0.8.1 has no sha256 pin. "
                           f"PyPI's wheel {EINOPS} has sha256 {EINOPS_SHA256}; once you trust it, "
                           f'write the pin as "{PIN}"')


# --- CPython: lessonkit check and grade -----------------------------------------------------
def test_lessonkit_check_passes_the_test_lesson():
    assert check_lesson(DEMO) == []


# Run in a fresh interpreter: einops sets up torch hooks when torch is already imported (as earlier
# tests of this session do): a fresh interpreter keeps this test apart from them.
PINNED_ONLY_WHILE_GRADING = """
import importlib.util, sys
from pathlib import Path
from lessonkit import grade, load_lesson
DEMO = Path(sys.argv[1])
lesson = load_lesson(DEMO)
assert importlib.util.find_spec("einops") is None  # never installed into the venv
# A solution that changes einops: the next run imports it afresh.
tampering = ("import einops\\nassert not hasattr(einops, 'changed'), 'the last run changed einops'\\n"
             "einops.changed = True\\n" + (DEMO / "reference.py").read_text())
for _ in range(2):
    report = grade(lesson, tampering)
    assert report.passed, report.to_json()
assert importlib.util.find_spec("einops") is None
assert not [name for name in sys.modules if name.split(".")[0] == "einops"]
"""


def test_the_pinned_package_is_importable_only_while_grading():
    proc = subprocess.run([sys.executable, "-c", PINNED_ONLY_WHILE_GRADING, str(DEMO)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lessonkit_grade_installs_the_pin_for_its_child_process(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "lessonkit", "grade", str(DEMO), str(DEMO / "reference.py")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 of 3 checks passed" in proc.stdout


# --- the build ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory, FIXTURES)  # one build, shared with the browser's test


def page_config(site: Path) -> dict:
    html = (site / "lessons" / "pkg-demo" / "index.html").read_text()
    return json.loads(re.search(r'<script id="lesson-config" type="application/json">(.*?)</script>',
                                html, re.S).group(1))


def test_the_build_vendors_each_verified_wheel_once(demo_site):
    assert sorted(p.name for p in (demo_site / "wheels").glob("*.whl")) == [EINOPS]
    assert sha256(demo_site / "wheels" / EINOPS) == EINOPS_SHA256  # as PyPI serves it
    config = page_config(demo_site)
    assert config["lesson"]["requirements"] == [{"name": "einops", "version": "0.8.1", "file": EINOPS,
                                                 "sha256": EINOPS_SHA256}]
    assert config["urls"]["wheels"] == "../../wheels/"
    # micropip from the site's own Pyodide folder, loaded with the other packages.
    assert config["lesson"]["packages"] == ["numpy", "pytest", "micropip"]
    lock = json.loads((demo_site / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    assert (entry["version"], entry["file_name"]) == ("0.9.0", vendor.MICROPIP.file_name)
    assert entry["sha256"] == sha256(demo_site / "pyodide" / entry["file_name"])


def test_micropip_is_pinned_and_only_shipped_with_requirements():
    upstream = json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())
    # The version Pyodide 0.27.7 bundles (its lock pins its own rebuild of it; ours is PyPI's).
    assert upstream["packages"]["micropip"]["version"] == vendor.MICROPIP.file_name.split("-")[1]
    assert vendor.MICROPIP.origin == "pypi"
    assert vendor.MICROPIP not in vendor.site_wheels(micropip=False)
    assert vendor.MICROPIP in vendor.site_wheels(micropip=True)


def test_the_wheel_counts_in_the_download_and_is_precached(demo_site):
    config = page_config(demo_site)
    lock = json.loads((demo_site / "pyodide" / "pyodide-lock.json").read_text())
    pyodide = demo_site / "pyodide"
    fetched = [pyodide / "pyodide.asm.wasm", pyodide / "python_stdlib.zip", pyodide / "pyodide-lock.json",
               *(pyodide / lock["packages"][name]["file_name"]
                 for name in ("numpy", "pytest", "pluggy", "iniconfig", "packaging", "micropip")),
               demo_site / "wheels" / EINOPS, demo_site / "py" / "lessonkit.zip",
               demo_site / "lessons" / "pkg-demo" / "lesson.zip"]
    assert config["downloadBytes"] == sum(p.stat().st_size for p in fetched)
    manifest = json.loads(re.match(r"const PRECACHE = (\{.*?\});\n", (demo_site / "sw.js").read_text(), re.S).group(1))
    assert manifest["files"][f"wheels/{EINOPS}"] == EINOPS_SHA256


def test_a_tampered_sha256_fails_the_build_at_its_line(tmp_path):
    tampered = EINOPS_SHA256[:-1] + ("0" if EINOPS_SHA256[-1] != "0" else "1")
    folder = demo_copy(tmp_path, f"einops==0.8.1 --hash=sha256:{tampered}")
    proc = build_site(tmp_path / "dist", folder.parent)
    assert proc.returncode == 1
    assert (f"{folder / 'lesson.toml'}:{pin_line(folder)}: einops==0.8.1: PyPI's wheel {EINOPS} has sha256 "
            f"{EINOPS_SHA256}, but lesson.toml pins {tampered}; the wheel was not used") in proc.stderr
    assert not (tmp_path / "dist").exists()


def fake_wheel(folder: Path, name: str, requires: list[str]) -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}/__init__.py", "")
        z.writestr(f"{name}-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
                   + "".join(f"Requires-Dist: {r}\n" for r in requires))
    return path


def test_every_dependency_must_be_pinned_or_loaded_by_the_page(tmp_path):
    """micropip installs without dependencies, so the build refuses a wheel whose own
    requirements the page would not have, and a pin of a package the page loads already."""
    lesson = load_lesson(DEMO)
    (pin,) = lesson.requirements
    loaded = {"numpy", "pytest", "pluggy", "iniconfig", "packaging", "micropip"}
    needs = lesson_packages.LessonWheel(pin, fake_wheel(tmp_path, "einops", ["numpy", "tqdm>=4",
                                                                             "rich; sys_platform == 'win32'"]))
    with pytest.raises(BuildError) as caught:
        lesson_packages.check_installable(lesson, [needs], loaded, ROOT)
    where = f"tests/fixtures/lessons/pkg-demo/lesson.toml:{pin_line(DEMO)}"
    assert str(caught.value) == (f"{where}: einops-1.0-py3-none-any.whl needs tqdm, which the page would "
                                 "not have: pin each in `requirements` too (or list a Pyodide package "
                                 "in `packages`)")
    with pytest.raises(BuildError) as caught:
        lesson_packages.check_installable(lesson, [needs], loaded | {"einops", "tqdm"}, ROOT)
    assert str(caught.value).startswith(f"{where}: einops is one of the packages the page loads from Pyodide")
    fine = lesson_packages.LessonWheel(pin, fake_wheel(tmp_path, "einops", []))
    lesson_packages.check_installable(lesson, [fine], loaded, ROOT)
