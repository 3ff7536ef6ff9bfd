"""The course's central mistake, forgetting the sum over GPUs, is named in one sentence in every
lesson whose answer is such a sum (lessonkit.checking.missed_sum), in English and in Polish."""
import pytest

from lessonkit import grade, load_lesson

from conftest import ROOT

# lesson -> (the reference's line that adds up the GPUs' shares, the same line without the sum:
# the loop's last GPU only, as a learner who overwrites instead of adding gets)
NO_SUM = {
    "tp-mlp": ("return sum(partials)  # the all-reduce", "return partials[-1]"),
    "tp-attention": ("return sum(partials)  # the all-reduce", "return partials[-1]"),
    "vocab-parallel": ("return sum(partials)  # the all-reduce", "return partials[-1]"),
    "fg-backward": ("return sum(partial_dX), grads", "return partial_dX[-1], grads"),
}
SAYS = {"en": "Hint: your result is GPU 1's share alone",
        "pl": "Podpowiedź: twój wynik to sam udział GPU 1"}


@pytest.mark.parametrize("lang", ["en", "pl"])
@pytest.mark.parametrize("slug", sorted(NO_SUM))
def test_a_solution_without_the_sum_is_told_so(slug, lang):
    lesson = load_lesson(ROOT / "lessons" / slug)
    right, wrong = NO_SUM[slug]
    source = lesson.reference.read_text(encoding="utf-8")
    assert right in source, f"{slug}'s reference no longer has {right!r}: update NO_SUM"
    report = grade(lesson, source.replace(right, wrong), lang=lang)
    example = [c for c in report.checks if c.status == "failed" and "example" in c.id]
    assert example, [c.id for c in report.checks if c.status != "passed"]
    for check in example:  # the worked example runs on 2 GPUs: GPU 1 is the last
        assert SAYS[lang] in check.message, check.message
