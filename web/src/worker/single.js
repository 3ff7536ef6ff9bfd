// The single role (a page that is not cross-origin isolated): grader and learner in one
// interpreter, as `lessonkit.browser` grades in-process (what that mode guarantees:
// docs/threat-model.md). The page grades every Run in a fresh worker of this role, so nothing a
// run leaves behind reaches the next.

import { boot, post, switchLesson } from "./boot.js";
import { confine } from "./confine.js";
import { installRequirements } from "./packages.js";

export async function single(init) {
  const booted = await boot(init, init.lesson.packages);
  const { pyodide } = booted;
  let { lessonDir } = booted;
  await installRequirements(pyodide, init.lesson, init.urls);
  const browser = pyodide.pyimport("lessonkit.browser");
  // Importing pytest and grading the starter once: the page takes this worker for a Run only
  // after it, so the learner's Run is as fast as the next ones.
  browser.prepare(lessonDir, true);
  // Everything is loaded (pytest imports each check file again from the worker's own files):
  // from here on the worker reaches nothing beyond itself (confine.js).
  confine();

  return {
    // Another lesson, its files handed over by the page (this worker cannot fetch). Its starter
    // is graded once, as at boot, so the first Run of the new lesson is warm too.
    async lesson({ id, lesson, zip, sha256 }) {
      lessonDir = await switchLesson(pyodide, lesson.id, zip, sha256);
      browser.prepare(lessonDir, true);
      post({ type: "lesson-loaded", id });
    },
    grade({ id, source, timed_out: timedOut, crashed, time_used_s: timeUsed, lang }) {
      const onEvent = (eventJson) => post({ type: "event", id, event: JSON.parse(eventJson) });
      const reportJson = browser.grade_json(lessonDir, source, JSON.stringify(timedOut || {}), onEvent,
                                            JSON.stringify(crashed || []), timeUsed || 0, lang || "en");
      post({ type: "report", id, report: JSON.parse(reportJson) });
    },
    "run-example"({ id, source, inputs, lang }) {
      // Starts the page's timer now, not when the message was sent.
      post({ type: "event", id, event: { event: "example_start" } });
      const resultJson = browser.run_calls_json(lessonDir, source, JSON.stringify(inputs), lang);
      post({ type: "report", id, report: JSON.parse(resultJson) });
    },
  };
}
