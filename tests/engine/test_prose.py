"""lesson.md rendered by the build's own renderer (tools/sitebuild/render.mjs through
authorkit.prose): math anywhere Markdown allows text, and every problem located at its line."""
import pytest

from authorkit import prose
from lessonkit import LessonError, load_lesson
from authorkit.cli import check_lesson

from conftest import make_lesson


def render(tmp_path, text, languages='["en"]'):
    folder = make_lesson(tmp_path)
    (folder / "lesson.md").write_text(text)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace('languages = ["en"]', f"languages = {languages}"))
    [out] = prose.render([load_lesson(folder)])
    return out.html, [(e.line, e.message) for e in out.problems]


@pytest.mark.parametrize("text, count", [
    ("| n | bytes |\n|---|---|\n| $N$ | $2bsh/N$ |\n", 2),
    ("- one $a_1$\n- two $a_2$\n", 2),
    ("## The sum $\\sum_i Y_i$\n", 1),
], ids=["table", "list", "heading"])
def test_math_typesets_in_tables_lists_and_headings(tmp_path, text, count):
    html, problems = render(tmp_path, "# T\n\n" + text)
    assert problems == []
    assert html.count('<span class="katex">') == count
    assert "$" not in html


@pytest.mark.parametrize("text, line", [
    ("| a |\n|---|\n| $\\frac{1}$ |\n", 5),
    ("- ok\n- $\\frac{1}$\n", 4),
    ("## Broken $\\frac{1}$\n", 3),
    ("Line one,\nline two $\\frac{1}$.\n", 4),
], ids=["table", "list", "heading", "second line of a paragraph"])
def test_math_katex_rejects_is_located(tmp_path, text, line):
    _, problems = render(tmp_path, "# T\n\n" + text)
    assert len(problems) == 1
    assert problems[0][0] == line and problems[0][1].startswith("math does not typeset")


@pytest.mark.parametrize("text, line, message", [
    ("::: langg pl\nTekst\n:::\n", 3, "unknown block \"::: langg pl\""),
    (":::\n", 3, "':::' closes no block"),
    ("::: lang de\nText\n:::\n", 3, "language 'de' is not in lesson.toml's languages"),
    ("::: lang pl\nTekst\n", 3, "is never closed"),
    ("{{ widget }}\n", 3, "malformed widget placeholder"),
])
def test_blocks_and_placeholders_are_located(tmp_path, text, line, message):
    _, problems = render(tmp_path, "# T\n\n" + text, languages='["en", "pl"]')
    assert [(l, m) for l, m in problems if message in m] == [(line, problems[0][1])], problems


def test_a_language_block_renders_for_its_language(tmp_path):
    html, problems = render(tmp_path, "# T\n\n::: lang pl\nTekst $x$\n:::\n", languages='["en", "pl"]')
    assert problems == [] and 'data-lang="pl"' in html and 'class="katex"' in html


def test_check_reports_prose_problems_as_path_line_message(tmp_path):
    folder = make_lesson(tmp_path)
    (folder / "lesson.md").write_text("# T\n\n| a |\n|---|\n| $\\frac{1}$ |\n")
    [problem] = [p for p in check_lesson(folder) if "lesson.md" in p]
    assert problem.startswith(f"{folder / 'lesson.md'}:5: math does not typeset: ")


def test_a_renderer_without_its_npm_packages_says_how_to_install_them(tmp_path, monkeypatch):
    """A clone where setup has not run yet: the author is told what to run, not shown Node's
    stack trace."""
    alone = tmp_path / "render.mjs"  # no node_modules in any folder above it
    alone.write_text(prose.RENDERER.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(prose, "RENDERER", alone)
    with pytest.raises(LessonError, match=r"npm packages \(markdown-it, KaTeX\) are not installed: run "
                                          r"`tools/setup\.sh build`") as raised:
        prose.render([load_lesson(make_lesson(tmp_path))])
    assert raised.value.path == str(alone) and raised.value.line == 1
