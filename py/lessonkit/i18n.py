"""Learner-facing text in the learner's language: gettext-style catalogs (PO files).

Checks and the engine write every learner-facing string as

    from lessonkit.i18n import _
    fail(_("{fn} returned {got}; expected {want}.", fn=c.text(), got=..., want=...))

The English text is the msgid; `lessons/<slug>/locale/<lang>.po` (and the engine's own
`lessonkit/locale/<lang>.po`) map it to the translation, keeping the `{named}` fields. A msgid
with no translation falls back to English.
"""
from __future__ import annotations

# msgid -> msgstr for the language of the grading run in progress (empty: English).
_catalog: dict[str, str] = {}


def _(msgid: str, **fields) -> str:
    text = _catalog.get(msgid) or msgid
    return text.format(**fields) if fields else text
