"""The grading report: what the front end and the CLI read (schema `lessonkit.report/1`)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

SCHEMA = "lessonkit.report/1"
STATUSES = ("passed", "failed", "error", "timeout")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def text(value: str) -> str:
    """`value` as valid Unicode: a lone surrogate (learner code can print or raise one, and
    JSON carries it) becomes U+FFFD, so the report is valid UTF-8 whatever the learner wrote."""
    return _LONE_SURROGATE.sub("\ufffd", value)


@dataclass
class CheckResult:
    id: str
    title: str
    status: str
    message: str = ""
    hints: tuple[str, ...] = ()   # graded hint steps (hints.toml) for a check that did not pass

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown check status {self.status!r}")

    def to_dict(self) -> dict:
        return {"id": text(self.id), "title": text(self.title), "status": self.status,
                "message": text(self.message), "hints": [text(h) for h in self.hints]}


@dataclass
class Report:
    lesson: str
    checks: list[CheckResult] = field(default_factory=list)
    stdout: str = ""
    stdout_truncated: bool = False
    duration_ms: float = 0.0

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.status == "passed" for c in self.checks)

    def check(self, check_id: str) -> CheckResult:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(check_id)

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "lesson": self.lesson,
            "passed": self.passed,
            "checks": [c.to_dict() for c in self.checks],
            "stdout": text(self.stdout),
            "stdout_truncated": self.stdout_truncated,
            "duration_ms": round(self.duration_ms, 1),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
