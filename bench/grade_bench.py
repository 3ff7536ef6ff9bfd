"""Grading speed of the tp-mlp reference solution, in CPython and in Pyodide under Node.

    .venv/bin/python bench/grade_bench.py [--runs 5]

For each runtime: the first grading in a fresh process (after imports and loading the
lesson; `prepare` is the browser's warm-up, which the first Run then no longer pays) and the
warm grading after it. In CPython also the command line's split (`lessonkit grade`: learner
code in a child process): the child's boot, first and warm grading through one child, and
the time one call of a learner function costs through each channel (gelu on an 8x16 array),
and where a grading's time goes: collecting the checks before the first one (the first run
only: later runs reuse the collection, runner._Collected) and the channel's share (the run's
learner calls times what a call costs beyond one in the grader's interpreter). Prints medians
over `--runs` fresh processes;
a benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "pyodide_node"))
from harness import grade_in_pyodide, missing  # noqa: E402

LESSON = REPO / "lessons" / "tp-mlp"

CPYTHON_ONE_PROCESS = r"""
import json, sys, time
t0 = time.perf_counter()
from lessonkit import grade, load_lesson
from lessonkit.channel import InProcess
lesson = load_lesson(sys.argv[1])
source = lesson.reference.read_text()
ready = time.perf_counter() - t0
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    assert grade(lesson, source, learner=InProcess()).passed
    times.append(time.perf_counter() - t)
print(json.dumps({"ready": ready, "times": times}))
"""


CPYTHON_SPLIT = r"""
import json, sys, time
import numpy as np
from lessonkit import grade, load_lesson
from lessonkit.capture import CappedOutput
from lessonkit.channel import InProcess, Learner
from lessonkit.learner_process import LearnerProcess
lesson = load_lesson(sys.argv[1])
source = lesson.reference.read_text()
t = time.perf_counter()
child = LearnerProcess(lesson)
child.warm()
boot = time.perf_counter() - t
times, before, calls = [], [], []
for _ in range(int(sys.argv[2])):
    events = []
    t = time.perf_counter()
    assert grade(lesson, source, learner=child,
                 on_event=lambda e: events.append((time.perf_counter(), e["event"]))).passed
    times.append(time.perf_counter() - t)
    before.append(events[0][0] - t)  # collecting the checks (kept after the first run)
    calls.append(sum(kind == "call" for _, kind in events))


def per_call(channel, calls=200):
    solution = Learner(lesson, source, "en", channel, CappedOutput(10**6, 10**9))
    solution.warm()
    assert solution.load(None) is None
    x = np.linspace(-3, 3, 128).reshape(8, 16)
    t = time.perf_counter()
    for _ in range(calls):
        solution.call("gelu", (x,))
    return (time.perf_counter() - t) / calls


split_call = per_call(child)
child.close()
print(json.dumps({"boot": boot, "times": times, "before": before, "calls": calls,
                  "in-process call": per_call(InProcess()), "split call": split_call}))
"""


def cli_split(runs: int, warm_runs: int) -> dict:
    boot, first, warm, local, split = [], [], [], [], []
    first_before, warm_before, channel = [], [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CPYTHON_SPLIT, str(LESSON),
                              str(1 + warm_runs)], capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": str(REPO / "py")})
        data = json.loads(out.stdout)
        boot.append(data["boot"])
        first.append(data["times"][0])
        warm.append(statistics.median(data["times"][1:]))
        local.append(data["in-process call"])
        split.append(data["split call"])
        first_before.append(data["before"][0])
        warm_before.append(statistics.median(data["before"][1:]))
        # A warm grading's learner calls, each at what one costs through the split's channel
        # beyond a call in the grader's own interpreter (round trip, JSON, encoding).
        channel.append(statistics.median(data["calls"]) * (data["split call"] - data["in-process call"]))
    return {"child boot": boot, "first grade": first, "warm grade": warm,
            "  of the first, collecting": first_before, "  of a warm one, collecting": warm_before,
            "  of a warm one, channel": channel,
            "call, in-process": local, "call, split": split}


def cpython(runs: int, warm_runs: int) -> dict:
    ready, first, warm = [], [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CPYTHON_ONE_PROCESS, str(LESSON),
                              str(1 + warm_runs)], capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": str(REPO / "py")})
        data = json.loads(out.stdout)
        ready.append(data["ready"])
        first.append(data["times"][0])
        warm.append(statistics.median(data["times"][1:]))
    return {"import+load": ready, "first grade": first, "warm grade": warm}


def pyodide(runs: int, warm_runs: int, prepare: bool) -> dict:
    ready, first, warm = [], [], []
    source = (LESSON / "reference.py").read_text()
    for _ in range(runs):
        start, results = grade_in_pyodide(LESSON, {"reference": source}, repeat=1 + warm_runs,
                                          prepare=prepare)
        assert all(r["report"]["passed"] for r in results)
        ready.append(start)
        first.append(results[0]["ms"] / 1000)
        warm.append(statistics.median(r["ms"] for r in results[1:]) / 1000)
    label = "start+prepare" if prepare else "start"
    return {label: ready, "first grade": first, "warm grade": warm}


def show(title: str, figures: dict, runs: int) -> None:
    print(f"{title} (median of {runs} fresh processes)")
    for name, values in figures.items():
        print(f"  {name:<27} {statistics.median(values) * 1000:8.2f} ms"
              f"   (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm-runs", type=int, default=5)
    args = parser.parse_args()
    t = time.perf_counter()
    show("CPython " + sys.version.split()[0], cpython(args.runs, args.warm_runs), args.runs)
    show("CPython, lessonkit grade's split (learner code in a child process)",
         cli_split(args.runs, args.warm_runs), args.runs)
    reason = missing()
    if reason:
        print(f"Pyodide: skipped, {reason}")
    else:
        show("Pyodide 0.27.7 under Node, cold first grade",
             pyodide(args.runs, args.warm_runs, prepare=False), args.runs)
        show("Pyodide 0.27.7 under Node, after browser.prepare()",
             pyodide(args.runs, args.warm_runs, prepare=True), args.runs)
    print(f"(benchmark took {time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
