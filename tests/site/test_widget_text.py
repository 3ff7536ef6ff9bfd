"""The widgets' text files (widgets/<name>.text.json, docs/widgets.md): every author's mistake the
build can see is reported at its file and line, before esbuild bundles anything. No browser, no
bundle: each test writes a widget and its text into a temporary folder."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from authorkit.course import Course
from authorkit.widget_text import kit_text_problems, lesson_text_problems, widget_text_problems
from lessonkit import load_lesson

ROOT = Path(__file__).resolve().parents[2]
from sitebuild import lessons as site_lessons
from sitebuild.errors import BuildError

LANGS = ["en", "pl"]
CODE = 'import { translator } from "widget-kit/i18n.js";\nconst t = translator(TEXT);\n' \
       'export function mount(el, ctx) {\n  el.textContent = t(ctx.lang, "title");\n}\n'


def widget(tmp_path: Path, text: str, code: str = CODE) -> Path:
    (tmp_path / "demo.text.json").write_text(text, encoding="utf-8")
    js = tmp_path / "demo.js"
    js.write_text(code, encoding="utf-8")
    return js


def messages(problems) -> list[str]:
    return [f"{Path(p.path).name}:{p.line}: {p.message}" for p in problems]


def test_every_lessons_widget_text_and_the_kits_are_complete():
    assert kit_text_problems() == []
    for folder in Course(ROOT / "lessons").dirs():
        lesson = load_lesson(folder)
        assert lesson_text_problems(lesson) == [], folder.name
        assert all((folder / "widgets" / f"{name}.text.json").is_file() for name in lesson.widgets)


def test_a_text_missing_in_polish_is_named_at_its_english_line(tmp_path):
    js = widget(tmp_path, '{\n  "en": {\n    "title": "Hello",\n    "intro": "Hi"\n  },\n'
                          '  "pl": {\n    "title": "Cześć"\n  }\n}\n')
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:4: 'intro' has no Polish text: add it to \"pl\""]


def test_a_placeholder_in_one_language_only_is_named_at_the_translations_line(tmp_path):
    js = widget(tmp_path, '{\n  "en": {"title": "GPU {i} of {n}"},\n  "pl": {\n    "title": "GPU {i} z {m}"\n  }\n}\n')
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:4: 'title': the Polish placeholders ['i', 'm'] differ from the English ['i', 'n']"]


def test_plural_forms_must_be_the_languages_own(tmp_path):
    # Polish needs one, few and many ("1 liczba", "2 liczby", "5 liczb"); English's "other" is not one.
    text = {"en": {"title": {"one": "{count} number", "other": "{count} numbers"}},
            "pl": {"title": {"one": "{count} liczba", "other": "{count} liczb"}}}
    js = widget(tmp_path, json.dumps(text, ensure_ascii=False, indent=2))
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:9: 'title' in Polish: plural forms are one, few, many (a text for each); found one, other"]


def test_a_key_the_code_uses_that_no_text_has_is_named_at_the_codes_line(tmp_path):
    code = CODE.replace('t(ctx.lang, "title")', 't(ctx.lang, "title") + t(ctx.lang, "subtitle")')
    js = widget(tmp_path, '{"en": {"title": "Hello"}, "pl": {"title": "Cześć"}}', code)
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.js:4: text 'subtitle' is used here but demo.text.json has none: add it in every language"]


def test_the_texts_a_kit_module_asks_of_its_widget_are_named_at_the_import(tmp_path):
    # try-mine.js shows the widget's own "try-hint" and "running"; its other texts are the kit's.
    code = 'import { tryMine } from "widget-kit/try-mine.js";\n' + CODE
    js = widget(tmp_path, '{"en": {"title": "Hello", "running": "Running…"}, "pl": {"title": "Cześć", "running": "…"}}', code)
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.js:1: text 'try-hint' is used here but demo.text.json has none: add it in every language"]


def test_the_texts_of_the_kit_modules_a_kit_module_imports_are_asked_too(tmp_path):
    # live.js makes the widget's tryMine: try-mine.js's "try-hint" is asked at live's import.
    code = 'import { live } from "widget-kit/live.js";\n' + CODE
    js = widget(tmp_path, '{"en": {"title": "Hello", "running": "Running…"}, "pl": {"title": "Cześć", "running": "…"}}', code)
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.js:1: text 'try-hint' is used here but demo.text.json has none: add it in every language"]


def test_a_file_that_is_not_json_or_writes_a_key_twice_is_named_at_its_line(tmp_path):
    js = widget(tmp_path, '{\n  "en": {"title": "Hello",},\n  "pl": {"title": "Cześć"}\n}\n')
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:2: not valid JSON: Expecting property name enclosed in double quotes"]
    js = widget(tmp_path, '{\n  "en": {\n    "title": "Hello",\n    "title": "Hi"\n  },\n  "pl": {"title": "Cześć"}\n}\n')
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:4: 'en.title' is written twice (first at line 3)"]


def test_a_widget_that_shows_text_needs_its_text_file(tmp_path):
    js = tmp_path / "demo.js"
    js.write_text(CODE, encoding="utf-8")
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.js:1: the widget's text file demo.text.json is missing: every text a widget shows "
        "lives there, in each language (docs/widgets.md)"]


@pytest.fixture
def tp_mlp_copy(tmp_path) -> Path:
    folder = tmp_path / "tp-mlp"
    shutil.copytree(ROOT / "lessons" / "tp-mlp", folder, ignore=shutil.ignore_patterns("golden", "companion*"))
    return folder


def test_the_build_stops_at_a_text_mistake_before_bundling(tp_mlp_copy):
    path = tp_mlp_copy / "widgets" / "row-split.text.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"sum": "all-reduce: suma', '"sums": "all-reduce: suma', 1).replace(
        '"prompt": "Zmień', '"prompt": "{x} Zmień', 1), encoding="utf-8")
    lines = text.splitlines()
    sum_line = next(i for i, line in enumerate(lines, 1) if '"sum": "all-reduce' in line)
    prompt_line = next(i for i, line in enumerate(lines, 1) if '"prompt": "Zmień' in line)
    sums_line = next(i for i, line in enumerate(lines, 1) if '"sum": "all-reduce: suma' in line)
    with pytest.raises(BuildError) as raised:
        site_lessons.widgets([load_lesson(tp_mlp_copy)], tp_mlp_copy.parent)
    rel = "tp-mlp/widgets/row-split.text.json"
    assert str(raised.value).splitlines() == [
        f"{rel}:{sum_line}: 'sum' has no Polish text: add it to \"pl\"",
        f"{rel}:{sums_line}: 'sums' has no English text: add it to \"en\"",
        f"{rel}:{prompt_line}: 'prompt': the Polish placeholders ['x'] differ from the English []"]


def test_every_language_of_the_lesson_needs_its_text(tmp_path):
    js = widget(tmp_path, '{"en": {"title": "Hello"}}')
    assert messages(widget_text_problems(js, LANGS)) == [
        "demo.text.json:1: a widget's text is {\"en\", \"pl\"}: one object per language of the lesson (found ['en'])"]
    assert widget_text_problems(js, ["en"]) == []  # an English-only lesson (the scaffold's)


def test_a_widget_without_text_of_its_own_needs_no_text_file(tmp_path):
    js = tmp_path / "demo.js"
    js.write_text('export const calls = [];\nexport function mount(el) {\n  el.append(document.createElement("hr"));\n}\n')
    assert widget_text_problems(js, LANGS) == []
