"""Polish text follows docs/glossary-pl.md and writes numbers the Polish way: in every lesson's
`::: lang pl` prose (outside math and code, which the build localizes or which are code) and in
its Polish catalog, no phrase of the glossary's "Never" list, no English-formatted number, no
gendered address. A new lesson is checked with no edit here."""
from __future__ import annotations

import re
from pathlib import Path

from lessonkit import po

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary-pl.md"

# 1.65 (a decimal point), 50,257 (English thousands: two or three digits, then groups of three),
# 1.2B: English number forms. Version numbers (0.27.7), a paper's section numbers (§3.2, written
# with a dot in Polish too) and code are not prose.
ENGLISH_NUMBER = re.compile(r"(?<![\w.§])\d+\.\d+(?![\w.])|(?<![\w,.])\d{2,3}(?:,\d{3})+(?![\d,])|\b\d+(?:\.\d+)?[BMK]\b")
# Past tense addressing the learner as a man or a woman ("podzieliłeś", "zrobiłaś").
GENDERED = re.compile(r"\b\w+(?:łeś|łaś)\b")


def never() -> list[str]:
    text = GLOSSARY.read_text(encoding="utf-8").split("## Never", 1)[1]
    return [line[2:].strip() for line in text.splitlines() if line.startswith("- ")]


def polish_prose(lesson_dir: Path) -> list[tuple[int, str]]:
    """(line, text) of the lesson's `::: lang pl` lines, without math and inline code."""
    found, lang, fence, math = [], None, False, False
    for number, line in enumerate((lesson_dir / "lesson.md").read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
            continue
        if stripped.startswith("::: lang"):
            lang = stripped.split()[-1]
            continue
        if stripped == ":::":
            lang = None
            continue
        if lang != "pl" or fence:
            continue
        text = re.sub(r"`[^`]*`", "", line)
        # Display math may span lines: drop what lies between $$ marks across lines.
        parts = text.split("$$")
        kept = [p for k, p in enumerate(parts) if (k % 2 == 0) != math]
        if len(parts) % 2 == 0:
            math = not math
        text = re.sub(r"\$[^$]*\$", "", " ".join(kept))
        found.append((number, text))
    return found


def polish_catalog(lesson_dir: Path) -> list[tuple[int, str]]:
    entries = po.read(lesson_dir / "locale" / "pl.po")
    return [(e.line, form) for e in entries.values() for form in (e.forms or (e.msgstr,))]


def test_the_never_list_is_read():
    assert "atencja" in never() and "przejście w przód" in never()


def test_polish_text_follows_the_glossary(lesson_dir):
    banned = never()
    problems = []
    for where, texts in (("lesson.md", polish_prose(lesson_dir)),
                         ("locale/pl.po", polish_catalog(lesson_dir))):
        for line, text in texts:
            problems += [f"{where}:{line}: {term!r}" for term in banned
                         if re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text)]
            problems += [f"{where}:{line}: gendered {m.group()!r}" for m in GENDERED.finditer(text)]
            if where == "lesson.md":
                problems += [f"{where}:{line}: English number {m.group()!r}"
                             for m in ENGLISH_NUMBER.finditer(text)]
    assert problems == []
