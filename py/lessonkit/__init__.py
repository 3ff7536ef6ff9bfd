"""lessonkit: the lesson format, the grader and the command line of the tensor-parallelism
course. Runs unchanged in CPython 3.11+ and in Pyodide 0.27.7 (Python 3.12)."""
from .lesson import Lesson, LessonError, load_lesson
from .report import SCHEMA, CheckResult, Report

__all__ = ["load_lesson", "grade", "LessonError", "Lesson", "Report", "CheckResult", "SCHEMA"]


def __getattr__(name):
    # `grade` (the grader, with pytest) is imported when first asked for: the learner's side
    # (lessonkit.learner_host, in its own process or worker) never loads pytest.
    if name == "grade":
        from .runner import grade
        return grade
    raise AttributeError(f"module 'lessonkit' has no attribute {name!r}")
