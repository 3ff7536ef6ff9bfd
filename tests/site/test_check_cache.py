"""The watch loop's memory of `lessonkit check` (tools/sitebuild/check_cache.py): a lesson is
checked again exactly when something its check reads changed."""
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from sitebuild.check_cache import CheckCache


def copy(rel: str, root: Path) -> Path:
    shutil.copytree(ROOT / rel, root / rel, ignore=shutil.ignore_patterns("__pycache__"))
    return root / rel


def test_a_lesson_is_checked_again_when_its_check_inputs_change(tmp_path):
    root = tmp_path / "repo"
    copy("py", root)
    (root / "tools" / "sitebuild").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "sitebuild" / "render.mjs", root / "tools" / "sitebuild")
    shutil.copy(ROOT / "package-lock.json", root)
    lesson = copy("lessons/tp-mlp", root)
    cache = CheckCache(tmp_path / "checked", root)
    assert not cache.passed(lesson, cache.digest(lesson))  # never checked
    cache.record(lesson, cache.digest(lesson))
    assert cache.passed(lesson, cache.digest(lesson))

    # Prose is rendered and stopped at by every build: not a check input.
    (lesson / "lesson.md").write_text((lesson / "lesson.md").read_text() + "\nMore prose.\n")
    assert cache.passed(lesson, cache.digest(lesson))

    # A check, a known-wrong solution, a new file: checked again.
    for path, text in [(lesson / "checks" / "test_gelu.py", "\n# edited\n"), (lesson / "wrong.toml", "\n# edited\n"),
                       (lesson / "golden" / "new.json", "{}")]:
        before = cache.digest(lesson)
        path.write_text(path.read_text() + text if path.exists() else text)
        assert cache.digest(lesson) != before, path

    # The engine changed: every lesson checked again, through a new cache (one per build).
    cache.record(lesson, cache.digest(lesson))
    runner = root / "py" / "lessonkit" / "runner.py"
    runner.write_text(runner.read_text() + "\n# edited\n")
    assert CheckCache(tmp_path / "checked", root).digest(lesson) != cache.digest(lesson)
