"""Bundles the front end with esbuild: the page script (CodeMirror, widgets, CSS with KaTeX's
fonts) and the Pyodide worker, each into one content-hashed file under dist/assets/."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .errors import BuildError

ENTRY_POINTS = {"page": "web/src/page.js", "worker": "web/src/worker/worker.js"}


def bundle(root: Path, assets_dir: Path, minify: bool = True) -> dict[str, str]:
    """Runs esbuild; returns {"page.js", "page.css", "worker.js"} -> path relative to assets_dir."""
    esbuild = root / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise BuildError(f"esbuild not found at {esbuild}: run `npm ci` (tools/setup.sh does)")
    metafile = assets_dir / ".esbuild-meta.json"
    assets_dir.mkdir(parents=True, exist_ok=True)
    cmd = [str(esbuild), *(f"{name}={root / src}" for name, src in ENTRY_POINTS.items()),
           "--bundle", "--format=iife", "--target=es2020", "--charset=utf8",
           f"--outdir={assets_dir}", "--entry-names=[name]-[hash]", "--asset-names=fonts/[name]-[hash]",
           "--loader:.woff2=file", "--loader:.woff=file", "--loader:.ttf=file",
           "--sourcemap=linked", f"--metafile={metafile}", "--log-level=warning"]
    if minify:
        cmd.append("--minify")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        raise BuildError(f"esbuild failed:\n{proc.stderr.strip()}")
    meta = json.loads(metafile.read_text())
    metafile.unlink()
    def rel(path: str) -> str:
        return (root / path).resolve().relative_to(assets_dir.resolve()).as_posix()

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
