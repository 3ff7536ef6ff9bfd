"""lessonkit: the lesson format, the grader and the command line of the tensor-parallelism
course. Runs unchanged in CPython 3.11+ and in Pyodide 0.27.7 (Python 3.12)."""
from .lesson import Lesson, LessonError, load_lesson
from .report import SCHEMA, CheckResult, Report
from .runner import grade

__all__ = ["load_lesson", "grade", "LessonError", "Lesson", "Report", "CheckResult", "SCHEMA"]
