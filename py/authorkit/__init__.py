"""authorkit: what a lesson's author runs, apart from what the browser runs (lessonkit): the
command line (`python -m lessonkit check|grade|new`), the course's lessons found in one place
(course.Course), the authoring checks beyond grading (problems), prose rendered with the build's
renderer, golden reports, translated starters, the scaffold and the verified wheel cache. Runs
under CPython only; nothing here ships in lessonkit.zip."""
