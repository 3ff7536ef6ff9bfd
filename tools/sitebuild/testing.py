"""The built site the test suites share: tests/site and tests/browser build it once per pytest
session into pytest's temporary folder instead of each building its own."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_site(out: Path, lessons: Path | None = None) -> subprocess.CompletedProcess:
    """Runs `python build.py --out OUT [--lessons LESSONS]` as a learner's author would."""
    cmd = [sys.executable, str(ROOT / "build.py"), "--out", str(out)]
    if lessons is not None:
        cmd += ["--lessons", str(lessons)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)


def shared_site(tmp_path_factory) -> Path:
    """dist/ built once per session from the repository's lessons, or the already-built site in
    $TP_SITE_DIST (to test a given build, e.g. the one about to be published)."""
    if os.environ.get("TP_SITE_DIST"):
        return Path(os.environ["TP_SITE_DIST"]).resolve()
    out = tmp_path_factory.getbasetemp() / "shared-site" / "dist"
    if not (out / "index.html").is_file():
        proc = build_site(out)
        if proc.returncode != 0:
            raise RuntimeError(f"build.py failed:\n{proc.stdout}\n{proc.stderr}")
    return out
