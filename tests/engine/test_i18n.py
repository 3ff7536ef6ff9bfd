"""Translations (PO catalogs) and graded hints (hints.toml): what the learner reads in their
language, and what `lessonkit check` says about both."""
from pathlib import Path

import pytest

from lessonkit import LessonError, grade, i18n, load_lesson, po
from authorkit.cli import check_lesson, main, translation_gaps
from lessonkit.hints import load as load_hints, steps_for

from conftest import TOY_TOML, dedent, make_lesson

ENGINE = Path(i18n.__file__).parent

TOY_PL = dedent('''
    # a comment
    msgid ""
    msgstr ""
    "Language: pl\\n"

    msgid "double doubles"
    msgstr "double podwaja"

    msgid "halve halves"
    msgstr "halve "
    "dzieli na pół"

    msgid "four"
    msgstr "cztery"
''')

HINTS = dedent('''
    [[hint]]
    checks = ["test_toy::test_halve[*]"]
    steps = ["halve halves", "Divide x by {two}."]

    [[hint]]
    checks = ["test_toy::test_double"]
    steps = ["Multiply by two."]
''')


@pytest.fixture
def polish_toy(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace('["en"]', '["en", "pl"]'))
    (folder / "locale").mkdir()
    (folder / "locale" / "pl.po").write_text(TOY_PL, encoding="utf-8")
    (folder / "hints.toml").write_text(HINTS, encoding="utf-8")
    return folder


def test_po_entries_with_continuations_escapes_and_lines(tmp_path):
    text = 'msgid ""\nmsgstr "header"\n\n#: x\nmsgid "a \\"b\\"\\n"\n"c"\nmsgstr "d\\t"\n'
    entries = po.parse(text, tmp_path / "x.po")
    assert list(entries) == ['a "b"\nc']
    assert entries['a "b"\nc'].msgstr == "d\t" and entries['a "b"\nc'].line == 5


def test_a_catalog_is_parsed_once_and_read_again_once_edited(polish_toy, monkeypatch):
    """Each grading run in Polish enters `i18n.use`: its catalogs are parsed once, the same
    answer is served again (a copy: what a caller changes stays its own), and an edited catalog
    (`serve --watch`) is read again."""
    parsed = []
    monkeypatch.setattr(po, "parse", lambda text, path, parse=po.parse: parsed.append(path) or parse(text, path))
    first = i18n.catalog("pl", polish_toy)
    first.clear()
    assert i18n.catalog("pl", polish_toy) and len(parsed) == 2  # the engine's and the lesson's
    catalog = polish_toy / "locale" / "pl.po"
    catalog.write_text(TOY_PL + '\nmsgid "new text"\nmsgstr "nowy tekst"\n', encoding="utf-8")
    assert i18n.catalog("pl", polish_toy)["new text"] == "nowy tekst"
    assert parsed[2:] == [i18n.ENGINE_LOCALE / "pl.po", catalog]  # merged again, once


@pytest.mark.parametrize("text,line,words", [
    ('msgid "x"\nmsgstr "y"\nmsgid "x"\nmsgstr "z"\n', 3, "appears twice"),
    ('msgid "{n} of {m}"\nmsgstr "{n} z {k}"\n', 1, "{fields}"),
    ('msgid "x"\nmsgstr "bad \\q"\n', 2, "unknown escape"),
    ('msgid "x"\n', 1, "without a msgstr"),
    ('msgstr "y"\n', 1, "without a msgid"),
])
def test_po_errors_are_located(tmp_path, text, line, words):
    with pytest.raises(LessonError) as info:
        po.parse(text, tmp_path / "pl.po")
    assert info.value.line == line and words in info.value.message


def test_grading_in_polish_translates_titles_messages_and_hints(polish_toy):
    lesson = load_lesson(polish_toy)
    report = grade(lesson, lesson.starter, lang="pl")
    by_id = {c.id: c for c in report.checks}
    assert by_id["load"].title.startswith("Twój solution.py uruchamia się i definiuje double(x)")
    assert by_id["test_toy::test_double"].title == "double podwaja"
    assert by_id["test_toy::test_halve[four]"].title == "halve dzieli na pół (cztery)"
    assert by_id["test_toy::test_halve[minus one]"].title == "halve dzieli na pół (minus one)"
    assert "zgłoszono wyjątek NotImplementedError w wierszu 3" in by_id["test_toy::test_double"].message
    # Hint steps go through the catalog; an untranslated one stays English.
    assert by_id["test_toy::test_halve[four]"].hints == ("halve dzieli na pół", "Divide x by {two}.")
    assert by_id["test_toy::test_double"].hints == ("Multiply by two.",)
    assert by_id["test_toy::test_double_unchanged"].hints == ()
    # The catalog is for that run only.
    assert i18n._catalog == {}
    english = grade(lesson, lesson.starter)
    assert english.check("test_toy::test_double").title == "double doubles"


def test_passed_checks_carry_no_hints(polish_toy):
    lesson = load_lesson(polish_toy)
    report = grade(lesson, (polish_toy / "reference.py").read_text())
    assert report.passed and all(c.hints == () for c in report.checks)
    assert report.to_dict()["checks"][1]["hints"] == []


def test_cli_grades_in_the_chosen_language(polish_toy, capsys):
    assert main(["grade", str(polish_toy), str(polish_toy / "starter.py"), "--lang", "pl"]) == 1
    assert "double podwaja" in capsys.readouterr().out
    assert main(["grade", str(polish_toy), str(polish_toy / "starter.py"), "--lang", "de"]) == 2
    assert "the lesson's languages are en, pl" in capsys.readouterr().err


def test_missing_and_unused_translations_are_located(polish_toy):
    catalog = polish_toy / "locale" / "pl.po"
    catalog.write_text(TOY_PL + 'msgid "gone"\nmsgstr "nie ma"\n', encoding="utf-8")
    gaps = translation_gaps(polish_toy)
    checks = polish_toy / "checks" / "test_toy.py"
    assert f"{checks}:8: no pl translation (in {catalog}) of 'double doubles'" not in gaps
    assert any(g.startswith(f"{checks}:15: ") and "'double leaves its input alone'" in g
               for g in gaps)
    assert any(g.startswith(f"{polish_toy / 'hints.toml'}:1: ") and "Divide x by" in g
               for g in gaps)
    assert any(g.startswith(f"{catalog}:") and "'gone' is translated but no longer used" in g
               for g in gaps)
    assert check_lesson(polish_toy) == []  # gaps are warnings: the lesson still works


def test_unknown_hint_pattern_is_a_lesson_error(polish_toy):
    (polish_toy / "hints.toml").write_text(HINTS + '\n[[hint]]\nchecks = ["test_nope::*"]\n'
                                           'steps = ["x"]\n', encoding="utf-8")
    problems = check_lesson(polish_toy)
    assert problems == [f"{polish_toy / 'hints.toml'}:9: hint names 'test_nope::*', which "
                        "matches no check"]


@pytest.mark.parametrize("text,line,words", [
    ('[[hint]]\nchecks = ["load"]\n', 1, "needs `steps`"),
    ('[[hint]]\nchecks = ["load"]\nsteps = []\n', 1, "needs `steps`"),
    ('\n[[hint]]\nchecks = ["load"]\nsteps = ["a"]\nlevel = 2\n', 2, "unknown key `level`"),
    ('hint = "x"\n', 1, "must be [[hint]] tables"),
    ('[[hint]]\nchecks = ["a" "b"]\n', 2, "invalid TOML"),
    ('[other]\n', 1, "unknown key `other`"),
])
def test_bad_hints_file_is_located(polish_toy, text, line, words):
    (polish_toy / "hints.toml").write_text(text, encoding="utf-8")
    with pytest.raises(LessonError) as info:
        load_hints(polish_toy)
    assert info.value.line == line and words in info.value.message


def test_malformed_catalog_fails_check(polish_toy):
    (polish_toy / "locale" / "pl.po").write_text('msgid "a {x}"\nmsgstr "b"\nmsgstr "c"\n')
    assert check_lesson(polish_toy) == [f"{polish_toy / 'locale' / 'pl.po'}:3: msgstr without "
                                        "a msgid before it"]


def test_engine_catalog_translates_every_engine_message():
    catalog = po.read(ENGINE / "locale" / "pl.po")
    used = {m for p in ENGINE.glob("*.py") for m, _ in i18n.source_msgids(p)}
    assert sorted(used - {m for m, e in catalog.items() if e.msgstr}) == []
    assert sorted(set(catalog) - used) == []


def test_hint_steps_follow_file_order(polish_toy):
    hints = load_hints(polish_toy)
    assert steps_for(hints, "test_toy::test_halve[four]") == ["halve halves", "Divide x by {two}."]
    assert steps_for(hints, "load") == []


def test_a_function_that_timed_out_is_not_run_again(toy):
    """One time limit for a loop, not one per check that calls the function: the second check is
    skipped with a message naming the first (not timed, so that a busy machine gives the same
    verdict)."""
    source = "def double(x):\n    while True:\n        pass\n\n\ndef halve(x):\n    return x / 2\n"
    report = grade(toy, source)
    first, second = report.check("test_toy::test_double"), report.check("test_toy::test_double_unchanged")
    assert first.status == "timeout" and "double was still running" in first.message
    assert second.status == "timeout"
    assert second.message.startswith("Skipped: double ran out of time above, in “double doubles”")
    assert report.check("test_toy::test_halve[four]").status == "passed"
    polish = grade(toy, source, lang="pl")  # the record is per run: the first call times out again
    assert polish.check("test_toy::test_double").message.startswith("double: wciąż działało")


PLURAL_PL = dedent('''
    msgid ""
    msgstr ""
    "Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"

    msgid "{n} number"
    msgid_plural "{n} numbers"
    msgstr[0] "{n} liczba"
    msgstr[1] "{n} liczby"
    msgstr[2] "{n} liczb"
''')


@pytest.mark.parametrize("count,english,polish", [
    (1, "1 number", "1 liczba"), (4, "4 numbers", "4 liczby"), (5, "5 numbers", "5 liczb"),
    (12, "12 numbers", "12 liczb"), (22, "22 numbers", "22 liczby"), (0, "0 numbers", "0 liczb"),
    (50257, "50,257 numbers", "50\u00a0257 liczb"),
])
def test_plural_forms_and_numbers_in_each_language(tmp_path, count, english, polish):
    (tmp_path / "locale").mkdir()
    (tmp_path / "locale" / "pl.po").write_text(PLURAL_PL, encoding="utf-8")
    assert i18n._n("{n} number", "{n} numbers", count, n=count) == english
    with i18n.use("pl", tmp_path):
        assert i18n._n("{n} number", "{n} numbers", count, n=count) == polish
        assert i18n.number(1.65) == "1,65" and i18n.number(-1234567.5, ".1f") == "-1\u00a0234\u00a0567,5"
        assert i18n.number(5000) == "5000"  # Polish groups from five digits, as Intl does
    assert i18n.number(1.65) == "1.65"


@pytest.mark.parametrize("text,line,words", [
    ('msgid "x"\nmsgid_plural "xs"\nmsgstr[0] "a"\nmsgstr[2] "c"\n', 1, "msgstr[0], msgstr[1]"),
    ('msgid "{n} x"\nmsgid_plural "{n} xs"\nmsgstr[0] "{m} a"\n', 1, "{fields}"),
    ('msgid "x"\nmsgstr[0] "a"\n', 2, "without a msgid_plural"),
    ('msgid "x"\nmsgstr "a"\nmsgid_plural "xs"\n', 3, "must follow a msgid"),
])
def test_plural_entry_errors_are_located(tmp_path, text, line, words):
    with pytest.raises(LessonError) as info:
        po.parse(text, tmp_path / "pl.po")
    assert info.value.line == line and words in info.value.message
