"""Entry points for the browser's grader (or single) worker. Strings (JSON) in, strings out:
the worker never inspects Python objects. No DOM or `js` imports here; the worker passes
callbacks. The learner worker's entry points are `lessonkit.learner_host.handle_json` and
`lessonkit.learner_host.prepare`."""
from __future__ import annotations

import json

from .channel import Callback
from .learner_host import loaded_lesson
from .playground import run_calls
from .runner import collect, grade


def prepare(lesson_dir: str, warm_up: bool = True) -> str:
    """Load the lesson once and warm up numpy, pytest and the grader (by grading the
    starter), so that the learner's first Run is as fast as the next ones; `warm_up=False`
    skips the grading (a restart whose next job is a grading run warms up by itself).
    Returns the lesson's contract as JSON."""
    import numpy  # noqa: F401  (imported for its side effect: loaded and warm)
    import pytest  # noqa: F401

    lesson = loaded_lesson(lesson_dir)
    if warm_up:
        grade(lesson, lesson.starter)
    return json.dumps({
        "id": lesson.id, "title": lesson.title,
        "functions": [{"name": f.name, "signature": f.signature, "summary": f.summary}
                      for f in lesson.functions],
        "limits": {"check_seconds": lesson.limits.check_seconds,
                   "total_seconds": lesson.limits.total_seconds},
    })


def collect_checks(lesson_dir: str, lang: str = "en") -> None:
    """The split grader, once it has moved to another lesson: its checks collected in the
    page's language now, so the first Run there finds them collected (runner.collect)."""
    collect(loaded_lesson(lesson_dir), lang)


def grade_json(lesson_dir: str, source: str, timed_out_json: str = "[]", on_event=None,
               crashed_json: str = "[]", time_used_s: float = 0.0, lang: str = "en",
               learner_call=None, seed: int | None = None) -> str:
    """Grade and return the report JSON. `on_event(event_json)` gets each progress event.
    After a restart the worker passes what it learned: checks that timed out (`{id: the
    function it was running}`) or during which Python died, and the seconds already spent
    (see `grade`). `lang`: the page's language. `learner_call(request_json, time_limit_s)
    -> response_json` (synchronous): grade through it, learner code running elsewhere (the
    learner worker); without it, learner code runs in this interpreter. `seed`: grade()'s
    (tests that compare two runs; the page leaves it out)."""
    emit = None if on_event is None else (lambda event: on_event(json.dumps(event)))
    channel = None if learner_call is None else Callback(learner_call)
    report = grade(loaded_lesson(lesson_dir), source, learner=channel, on_event=emit,
                   timed_out=json.loads(timed_out_json or "[]"),
                   crashed=json.loads(crashed_json or "[]"), time_used_s=time_used_s,
                   lang=lang, seed=seed)
    return report.to_json()


def run_calls_json(lesson_dir: str, source: str, calls_json: str, lang: str = "en") -> str:
    """`playground.run_calls` with JSON in and out, its messages in `lang`."""
    return json.dumps(run_calls(loaded_lesson(lesson_dir), source, json.loads(calls_json), lang))
