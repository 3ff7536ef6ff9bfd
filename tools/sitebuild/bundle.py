"""Bundles the front end with esbuild: the page script (CodeMirror, the lessons' widgets, CSS with
KaTeX's fonts) and the Pyodide worker, each into one content-hashed file under dist/assets/.

Widgets import the generic toolkit in web/src/widgets/ as `widget-kit/<file>.js`; the page imports
`lesson-widgets`, a module generated here from the lessons' widget files (docs/widgets.md)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import BuildError

ENTRY_POINTS = {"page": "web/src/page.js", "worker": "web/src/worker/worker.js"}
WIDGET_KIT = "web/src/widgets"


def widget_registry(widgets: dict[str, dict[str, Path]]) -> str:
    """The `lesson-widgets` module: {lesson id: {widget name: module}} for widget-host.js."""
    imports, entries = [], []
    for lesson_id, named in sorted(widgets.items()):
        items = []
        for name, path in sorted(named.items()):
            var = f"w{len(imports)}"
            imports.append(f"import * as {var} from {json.dumps(path.resolve().as_posix())};")
            items.append(f"{json.dumps(name)}: {var}")
        entries.append(f"  {json.dumps(lesson_id)}: {{{', '.join(items)}}},")
    return "\n".join([*imports, "export const widgets = {", *entries, "};", ""])


def name_sources(assets: Path, root: Path, widgets: dict[str, dict[str, Path]]) -> None:
    """Names each source in the bundles' maps as an author knows it: `lessons/<folder>/widgets/x.js`
    for a lesson's file wherever its lessons folder is, else its path in the repository
    (esbuild writes paths relative to its temporary output folder). The page's widget host shows
    these names with a widget's errors in `serve --watch` builds (web/src/source-location.js)."""
    folders = {path.resolve().parent.parent for named in widgets.values() for path in named.values()}

    def name(source: str) -> str:
        # esbuild's paths are relative to the output folder as given (not its real path).
        path = Path(os.path.normpath(assets / source))
        for folder in folders:
            if path.is_relative_to(folder):
                return f"lessons/{folder.name}/{path.relative_to(folder).as_posix()}"
        if "node_modules" in path.parts:
            return Path(*path.parts[path.parts.index("node_modules"):]).as_posix()
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else source
    for map_file in assets.glob("*.map"):
        source_map = json.loads(map_file.read_text(encoding="utf-8"))
        source_map["sources"] = [name(s) for s in source_map["sources"]]
        map_file.write_text(json.dumps(source_map), encoding="utf-8")


def bundle(root: Path, assets_dir: Path, widgets: dict[str, dict[str, Path]],
           minify: bool = True) -> dict[str, str]:
    """Runs esbuild; returns {"page.js", "page.css", "worker.js"} -> path relative to assets_dir.
    `widgets`: {lesson id: {widget name: its .js file}}."""
    esbuild = root / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise BuildError(f"esbuild not found at {esbuild}: run `npm ci` (tools/setup.sh does)")
    # esbuild's content hashes cover the sources' paths relative to its output folder: it writes
    # into a folder of fixed depth inside the repository, and the registry's path is named by its
    # content, so the same sources give the same bundles whatever folder the site is built in.
    text = widget_registry(widgets)
    registry = root / ".cache" / "lesson-widgets" / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.js"
    if not registry.is_file():
        registry.parent.mkdir(parents=True, exist_ok=True)
        partial = registry.with_name(f".{registry.name}.{os.getpid()}")
        partial.write_text(text, encoding="utf-8")
        partial.replace(registry)  # whole, even with another build writing the same file
    (root / ".cache" / "bundle").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root / ".cache" / "bundle") as work:
        work = Path(work)
        metafile = work / ".esbuild-meta.json"
        cmd = [str(esbuild), *(f"{name}={root / src}" for name, src in ENTRY_POINTS.items()),
               "--bundle", "--format=iife", "--target=es2020", "--charset=utf8",
               f"--outdir={work / 'assets'}", "--entry-names=[name]-[hash]", "--asset-names=fonts/[name]-[hash]",
               "--loader:.woff2=file", "--loader:.woff=file", "--loader:.ttf=file",
               f"--alias:widget-kit={root / WIDGET_KIT}", f"--alias:lesson-widgets={registry}",
               "--sourcemap=linked", f"--metafile={metafile}", "--log-level=warning"]
        if minify:
            cmd.append("--minify")
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
        if proc.returncode != 0:
            raise BuildError(f"esbuild failed:\n{proc.stderr.strip()}")
        meta = json.loads(metafile.read_text())
        name_sources(work / "assets", root, widgets)
        shutil.copytree(work / "assets", assets_dir, dirs_exist_ok=True)

    def rel(path: str) -> str:
        return (root / path).resolve().relative_to((work / "assets").resolve()).as_posix()

    entry_names = {(root / src).resolve(): name for name, src in ENTRY_POINTS.items()}
    outputs = {}
    for out_path, info in meta["outputs"].items():
        name = entry_names.get((root / info["entryPoint"]).resolve()) if "entryPoint" in info else None
        if name is None or not out_path.endswith(".js"):
            continue
        outputs[f"{name}.js"] = rel(out_path)
        if "cssBundle" in info:  # the CSS the entry imports, bundled beside it
            outputs[f"{name}.css"] = rel(info["cssBundle"])
    missing = {"page.js", "page.css", "worker.js"} - set(outputs)
    if missing:
        raise BuildError(f"esbuild did not produce {sorted(missing)} (outputs: {sorted(meta['outputs'])})")
    return outputs
