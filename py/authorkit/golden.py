"""Golden reports: what the grader tells a learner for the lesson's reference and for each of its
known-wrong solutions, in each of the lesson's languages, kept in the lesson as
`golden/<solution>.json` and reviewed in diffs. `lessonkit check --update` writes them,
`lessonkit check` compares, and the Pyodide tests compare the browser's grader with them instead
of grading again in CPython. Authoring only: nothing here ships to the browser.

What a golden file holds is what is deterministic: for each check its id, its status, and its
message in each language (left out where it is empty, as for a passed check); reference.json also
holds each check's title in each language (a title does not depend on the solution). Not the hint
steps (a function of the check id and hints.toml
alone, they would repeat in every file), not the timings, not the solution's own output (in
CPython numpy warns about overflows, WebAssembly has no floating-point flags to warn from), nothing
with an address. Checks draw their random problems from seeded generators
(`np.random.default_rng(seed)`, or the runner's `fresh` fixture, seeded with SEED here): a check whose message changes from one run to the next shows up
as drift at the next `lessonkit check`. Between CPython and Pyodide one thing may differ: which of
two equally large differences a message names (`largest difference at index ...`) depends on the
last bit of each platform's libm, so `comparable` drops that index and its values (same_grades)."""
from __future__ import annotations

import json
import re
from pathlib import Path

GOLDEN_DIR = "golden"
REFERENCE = "reference"
UPDATE = "python -m lessonkit check --update"
# The seed of the checks' `fresh` arguments when a lesson's solutions are graded for (and compared
# with) their golden reports, in CPython and in Pyodide: a learner's Run draws a new one.
SEED = 2026
# Where two entries are off by the same amount (ReLU for GeLU at x and -x), which one a message
# calls "largest" depends on the last bit of the platform's tanh and exp; the rest does not.
TIE = re.compile(r"largest difference at index \[[^\]]*\]: expected \S+, got \S+ ")


def solutions(lesson) -> dict[str, str]:
    """{solution name: source}: "reference" (reference.py), then each known-wrong solution by
    its name (wrong.toml's `name`, or a wrong/*.py file's stem)."""
    found = {REFERENCE: lesson.reference.read_text(encoding="utf-8")}
    found.update({w.name: w.source for w in lesson.wrong})
    return found


def path(lesson, name: str) -> Path:
    return lesson.path / GOLDEN_DIR / f"{name}.json"


def record(reports: dict[str, dict], titles: bool = False) -> dict:
    """The golden form of one solution's reports, {language: Report.to_dict()}: per check its
    id, status, and {language: text} of its message where not empty, and with `titles` of its
    title. ValueError when the languages disagree on the checks or their statuses (the
    grader's verdict does not depend on the language)."""
    langs = list(reports)
    first = reports[langs[0]]["checks"]
    for lang in langs[1:]:
        theirs = [(c["id"], c["status"]) for c in reports[lang]["checks"]]
        if theirs != [(c["id"], c["status"]) for c in first]:
            raise ValueError(f"the checks or statuses in {lang!r} differ from {langs[0]!r}")
    checks = []
    for i, c in enumerate(first):
        entry = {"id": c["id"], "status": c["status"]}
        for key in ("title", "message") if titles else ("message",):
            texts = {lang: reports[lang]["checks"][i][key] for lang in langs}
            if any(texts.values()):
                entry[key] = texts
        checks.append(entry)
    return {"checks": checks}


def dumps(golden: dict) -> str:
    """Stable, diff-friendly text: two-space indent, keys in the order written, real UTF-8."""
    return json.dumps(golden, indent=2, ensure_ascii=False) + "\n"


def load(lesson, name: str) -> dict | None:
    """The golden report of solution `name`, or None when it has none yet."""
    p = path(lesson, name)
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None


def write(lesson, goldens: dict[str, dict]) -> list[Path]:
    """Writes golden/<name>.json for each solution, removes those of solutions that are gone;
    returns the files whose text changed."""
    folder = lesson.path / GOLDEN_DIR
    folder.mkdir(exist_ok=True)
    changed = []
    for name, golden in goldens.items():
        p, text = path(lesson, name), dumps(golden)
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
            changed.append(p)
    for stale in sorted(folder.glob("*.json")):
        if stale.stem not in goldens:
            stale.unlink()
            changed.append(stale)
    return changed


def drift(lesson, goldens: dict[str, dict]) -> list[str]:
    """`path:line: message` for each difference between what the grader gave (`goldens`, as
    `record` makes them) and the lesson's golden files."""
    problems = []
    fix = f"if intended, run `{UPDATE} {lesson.path}` and review the diff"
    for name, got in goldens.items():
        p = path(lesson, name)
        if not p.is_file():
            problems.append(f"{p}:1: no golden report for {name!r} yet: run `{UPDATE} {lesson.path}`")
            continue
        text = p.read_text(encoding="utf-8")
        want = json.loads(text)
        if want == got:
            continue
        before = len(problems)
        want_checks = {c["id"]: c for c in want["checks"]}
        got_checks = {c["id"]: c for c in got["checks"]}
        for cid in want_checks.keys() - got_checks.keys():
            problems.append(f"{p}:{_line(text, cid)}: {cid}: no longer a check ({fix})")
        for cid in got_checks.keys() - want_checks.keys():
            problems.append(f"{p}:1: {cid}: a new check, not in the golden report ({fix})")
        for cid in want_checks.keys() & got_checks.keys():
            w, g = want_checks[cid], got_checks[cid]
            for key in ("status", "title", "message"):
                for lang in _fields(w.get(key), g.get(key)):
                    label = f"{lang} {key}" if lang else key
                    problems.append(f"{p}:{_line(text, cid)}: {cid}: the {label} drifted ({fix})\n"
                                    f"  golden: {_show(w.get(key), lang)}\n"
                                    f"  now:    {_show(g.get(key), lang)}")
        if len(problems) == before:
            problems.append(f"{p}:1: the order of the checks drifted ({fix})")
    folder = lesson.path / GOLDEN_DIR
    for stale in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if stale.stem not in goldens:
            problems.append(f"{stale}:1: a golden report of no solution of the lesson (a mistake "
                            f"renamed or removed?): run `{UPDATE} {lesson.path}`")
    return problems


def _fields(want, got) -> list[str]:
    """The languages whose text differs ({lang: text} values, a missing one empty); [""] for
    a differing plain value (a status)."""
    if want == got:
        return []
    if isinstance(want, str) or isinstance(got, str):
        return [""]
    want, got = want or {}, got or {}
    return sorted(k for k in want.keys() | got.keys() if want.get(k, "") != got.get(k, ""))


def _show(value, lang: str) -> str:
    if lang:
        value = (value or {}).get(lang, "")
    return json.dumps(value, ensure_ascii=False)


def _line(text: str, check_id: str) -> int:
    needle = json.dumps({"id": check_id}, ensure_ascii=False)[1:-1]
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def comparable(checks: list[dict]) -> dict[str, tuple]:
    """{check id: (status, title, message)} of a report's checks in one language, the message
    without which of several equal differences it names (TIE): what must be equal between
    CPython and Pyodide."""
    return {c["id"]: (c["status"], c["title"], TIE.sub("largest difference ", c["message"])) for c in checks}


def expected(lesson, name: str, lang: str) -> list[dict]:
    """The golden checks of solution `name` in one language, shaped as a report's checks
    (id, status, title, message); the titles come from reference.json."""
    titles = {c["id"]: c.get("title", {}).get(lang, "") for c in load(lesson, REFERENCE)["checks"]}
    return [{"id": c["id"], "status": c["status"], "title": titles.get(c["id"], ""),
             "message": c.get("message", {}).get(lang, "")} for c in load(lesson, name)["checks"]]
