"""Broken copies written as data: a file named with `replace`/`with` text edits of a working
one. Lessons' known-wrong solutions (wrong.toml, edits of reference.py) and companions'
mutations (companion/mutations.toml, edits of the companion library) are both written this way;
this module is what they share: where each entry of a TOML file starts, for located messages,
and how an edit is applied. Authoring only: nothing here ships to the browser."""
from __future__ import annotations


class EditError(ValueError):
    """An edit that cannot be applied, in words (the caller adds where it is declared)."""


def entry_lines(text: str, header: str) -> list[int]:
    """The line (1-based) of each `[[header]]` table in a TOML text, in order."""
    return [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == f"[[{header}]]"]


def pairs(entry: dict) -> list[tuple[str, str]]:
    """The (replace, with) edits of an entry: `replace` and `with` are one string each, or lists
    of strings of the same length (applied in order); neither: no edit."""
    replace, with_ = entry.get("replace"), entry.get("with")
    if replace is None and with_ is None:
        return []
    if isinstance(replace, str) and isinstance(with_, str):
        return [(replace, with_)]
    if (isinstance(replace, list) and isinstance(with_, list) and len(replace) == len(with_)
            and all(isinstance(s, str) for s in replace + with_)):
        return list(zip(replace, with_))
    raise EditError("`replace` and `with` must both be strings, or lists of strings of the same "
                    "length (one edit per pair)")


def apply(text: str, edits: list[tuple[str, str]], file: str) -> str:
    """`text` (the content of `file`) with each edit applied in turn; each `replace` text must
    occur exactly once in the text as the edits before it left it, so an edit cannot silently
    land in the wrong place."""
    for n, (replace, with_) in enumerate(edits, 1):
        found = text.count(replace) if replace else 0
        if found != 1:
            which = f"`replace` text #{n}" if len(edits) > 1 else "`replace` text"
            raise EditError(f"its {which} occurs {found} times in {file}, it must occur exactly "
                            f"once{_near(text, replace) if found == 0 else ''}")
        text = text.replace(replace, with_)
    return text


def _near(text: str, wanted: str) -> str:
    """A hint at the closest line of `text` to the first line of `wanted`, for a typo."""
    import difflib
    first = next((line for line in wanted.splitlines() if line.strip()), "")
    close = difflib.get_close_matches(first, text.splitlines(), n=1, cutoff=0.6)
    return f" (closest line: {close[0].strip()!r})" if close else ""
