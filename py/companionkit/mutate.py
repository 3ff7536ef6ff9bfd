"""The mutation harness: broken copies of a companion, each run through every check, to show that
the checks it names FAIL (and no other). A lesson adds mutations as data in
`companion/mutations.toml` (see docs/companion.md); tests/companion/test_mutations.py runs them.
Entries are located and edits applied as for lessons' wrong.toml (lessonkit.edits).

All of a lesson's copies, or several lessons' (run_many), run in one launch of `world` gloo
processes: each copy is imported afresh from its own folder, so the cost of starting processes and
torch is paid once. A copy that aborts (a section raised) ends that launch; the copies after it run
in a fresh one, so those that are declared to abort run last."""

import importlib
import json
import shutil
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from lessonkit import edits
from lessonkit.lesson import match_ids

from .bundle import PACKAGE, SHIPPED_MODULES


@dataclass
class Mutation:
    name: str
    file: str  # the lesson's library file name, or companionkit/<module>.py
    replace: str
    with_: str
    fails: list  # check ids or patterns (`*` only): each must match a failing check
    may_fail: list  # checks that may fail too, depending on the machine (say why in the file)
    line: int  # where it is declared, for messages
    # A section whose exception must end the run (every rank stopped, that rank's error reported)
    # instead of the `fails`; "section" or "section@rank" to also name the rank that raised.
    aborts: str = ""


class MutationError(ValueError):
    pass


class Suite(NamedTuple):
    options: dict  # passed to every run (small sizes)
    mutations: list  # [Mutation]
    # Checks whose outcome depends on the machine's load (a timing bound): judged only in the
    # mutations whose `fails` name them, and not in the unbroken run.
    machine_dependent: list


def load(path):
    """The Suite of a mutations.toml; MutationError with path:line for bad entries."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MutationError(f"{path}: {exc}") from None
    starts = edits.entry_lines(text, "mutation")
    mutations = []
    noisy = list(data.get("machine_dependent", []))
    for i, entry in enumerate(data.get("mutation", [])):
        line = starts[i] if i < len(starts) else 1
        missing = [k for k in ("name", "file", "replace", "with") if k not in entry]
        if "fails" not in entry and "aborts" not in entry:
            missing.append("fails (or aborts)")
        if missing:
            raise MutationError(f"{path}:{line}: mutation lacks {', '.join(missing)}")
        if "aborts" not in entry and not entry["fails"]:
            raise MutationError(f"{path}:{line}: {entry['name']!r}: fails must name at least one check")
        fails = list(entry.get("fails", []))
        may_fail = list(entry.get("may_fail", [])) + [c for c in noisy if not matches(c, fails)]
        mutations.append(Mutation(entry["name"], entry["file"], entry["replace"], entry["with"],
                                  fails, may_fail, line, entry.get("aborts", "")))
    return Suite(data.get("options", {}), mutations, noisy)


def write_copy(folder, library, mutation=None):
    """companionkit's shipped modules and the lesson's library in `folder`, with `mutation` applied."""
    folder = Path(folder)
    (folder / "companionkit").mkdir(parents=True)
    for name in SHIPPED_MODULES:
        shutil.copyfile(PACKAGE / name, folder / "companionkit" / name)
    shutil.copyfile(library, folder / Path(library).name)
    if mutation is None:
        return
    target = folder / mutation.file
    if not target.is_file():
        raise MutationError(f"mutation {mutation.name!r} (line {mutation.line}): no file {mutation.file!r}; "
                            f"use {Path(library).name!r} or companionkit/<module>.py")
    try:
        text = edits.apply(target.read_text(encoding="utf-8"), [(mutation.replace, mutation.with_)],
                           mutation.file)
    except edits.EditError as exc:
        raise MutationError(f"mutation {mutation.name!r} (line {mutation.line}): {exc}") from None
    target.write_text(text, encoding="utf-8")


def verdict(mutation, report):
    """None when the copy failed exactly as `mutation` says, else what went wrong, in words."""
    if mutation.aborts:
        section, _, rank = mutation.aborts.partition("@")
        got = report.get("aborted")
        if not got:
            return f"expected the run to abort in section {section!r}, " + (
                f"it did not: {report['error']}" if "error" in report else "it ran to its end")
        if got["section"] != section or (rank and got["rank"] != int(rank)):
            return f"expected an abort in section {mutation.aborts!r}, got rank {got['rank']} in {got['section']!r}"
        return None
    if "aborted" in report:
        got = report["aborted"]
        return f"its run aborted: rank {got['rank']} raised in section {got['section']!r}: {got['error']}"
    if "error" in report:
        return f"its checks did not run: {report['error']}"
    failed = sorted(c["id"] for c in report["checks"] if c["status"] == "FAIL")
    unexpected = [f for f in failed if not matches(f, mutation.fails + mutation.may_fail)]
    missing = [p for p in mutation.fails if not any(matches(f, [p]) for f in failed)]
    if not unexpected and not missing:
        return None
    return (f"expected to fail {mutation.fails}" + (f" (and perhaps {mutation.may_fail})" if mutation.may_fail else "")
            + f", failed {failed}" + (f"; not failed: {missing}" if missing else "")
            + (f"; failed beyond them: {unexpected}" if unexpected else ""))


def matches(check_id, patterns):
    """Whether a check id matches one of the patterns, where only `*` is special (as in wrong.toml)."""
    return bool(match_ids(patterns, [check_id]))


def run(library, mutations, options, world=2):
    """Reports of the unbroken library (first) and of each mutation, every check run on `world`
    gloo processes. Each report is rank 0's dict (see results.py), or {"error": text} when the
    copy could not be imported or its processes died, or {"aborted": {"rank", "section", "error"},
    "stopped_after_s"} when a section raised on a rank and every rank was stopped."""
    return run_many([(library, mutations, options)], world)[0]


def run_many(suites, world=2, unbroken=True):
    """run() for several libraries [(library, mutations, options), ...] in one launch of `world`
    gloo processes (torch and the process group are started once for all of them); returns one
    list of reports per library, each with `copy_s`, the seconds its copy took (imported and run)
    in this launch. `unbroken=False`: the mutated copies only, for a caller that has the unbroken
    library's report from another run with the same options."""
    from torch.multiprocessing.spawn import ProcessException

    from .launch import free_port, start_ranks

    with tempfile.TemporaryDirectory() as tmp:
        jobs, keys = [], []
        for s, (library, mutations, options) in enumerate(suites):
            copies = [None, *mutations] if unbroken else list(mutations)
            for i in range(len(copies)):
                folder = Path(tmp) / f"suite{s}" / f"copy{i}"
                write_copy(folder, library, copies[i])
                jobs.append((str(folder), Path(library).stem, options))
                keys.append((s, i, bool(copies[i] and copies[i].aborts)))
        # Copies that abort their run go last: each abort costs a fresh launch for the copies after it.
        order = sorted(range(len(jobs)), key=lambda j: keys[j][2])
        jobs, keys = [jobs[j] for j in order], [keys[j] for j in order]
        timeout = max([120] + [o.get("timeout_s", 120) for _, _, o in jobs])
        out = Path(tmp) / "reports.jsonl"
        reports = []
        while len(reports) < len(jobs):
            try:
                start_ranks(_worker, (world, free_port(), jobs[len(reports):], str(out), timeout), world)
            except ProcessException as exc:
                # A section raised on a rank (its record is in reports.jsonl.aborted) or a process died:
                # keep what finished, record the copy as aborted or crashed, and go on with the next
                # copies in fresh processes.
                reports += [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
                aborted = Path(f"{out}.aborted")
                if aborted.exists():
                    record = json.loads(aborted.read_text())
                    # How long the other ranks took to stop once one had raised: evidence of no hang.
                    reports.append({"aborted": record["aborted"], "stopped_after_s": round(time.time() - record["at"], 2)})
                    aborted.unlink()
                else:
                    reports.append({"error": f"the processes died while it ran ({exc}); see the output above"})
                out.unlink(missing_ok=True)
                continue
            reports += [json.loads(line) for line in out.read_text().splitlines()]
        by_suite = [dict() for _ in suites]
        for (s, i, _), report in zip(keys, reports):
            by_suite[s][i] = report
        return [[found[i] for i in range(len(found))] for found in by_suite]


def _fresh_import(folder, module):
    for name in [n for n in sys.modules if n == module or n == "companionkit" or n.startswith("companionkit.")]:
        del sys.modules[name]
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(folder)


def _worker(rank, world, port, jobs, out, timeout):
    import torch.distributed as dist

    from .launch import abort, join, leave, publish_json

    device = join("gloo", rank, world, f"tcp://127.0.0.1:{port}", {"timeout_s": timeout})
    for folder, module, options in jobs:
        if rank == 0:  # names the copy that was running if a process dies
            print(f"companionkit.mutate: running {folder}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        try:
            companion = _fresh_import(folder, module).companion
        except Exception as exc:  # the same on every rank: nothing ran, nothing to agree on
            if rank == 0:
                with open(out, "a") as fh:
                    fh.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
            continue
        try:
            report = companion.run(rank, world, device, "gloo", options)
        except companion_failure() as failure:
            try:  # the first rank to raise is the copy's record (the others find it there)
                publish_json(out + ".aborted", {"aborted": failure.record(), "at": failure.at}, exclusive=True)
            except FileExistsError:
                pass
            abort(failure)
        if rank == 0:  # copy_s: what the copy cost here, its import included (the suite's figures)
            with open(out, "a") as fh:
                fh.write(json.dumps({**report, "copy_s": round(time.perf_counter() - started, 3)}) + "\n")
        dist.barrier()
    leave(rank, 0)


def companion_failure():
    """The SectionFailed class of the companionkit copy imported last (each copy has its own)."""
    return sys.modules["companionkit.registry"].SectionFailed
