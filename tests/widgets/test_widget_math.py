"""Runs the widgets' JavaScript unit tests (tests/widgets/*.test.mjs) under `node --test`, with
widget-kit.mjs resolving `widget-kit/...` imports as the build does."""
import pathlib
import subprocess

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent


def test_widget_math_node_suite():
    files = sorted(str(p.relative_to(ROOT)) for p in HERE.glob("*.test.mjs"))
    assert files, "no tests/widgets/*.test.mjs found"
    run = subprocess.run(["node", "--import", "./tests/widgets/widget-kit.mjs", "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
