// The grader role (split mode): pytest, the checks and the report, and never the learner's
// code. Each learner request the engine makes goes to the page as {type: "learner"}, and the
// engine waits, synchronously, in `Atomics.wait` until the page has written the answer (the
// learner worker's, or one the page made: timeout, stopped, crashed) into the channel.

import { boot, post, switchLesson } from "./boot.js";
import { expectAnswer, waitForAnswer } from "./channel.js";

export async function grader(init) {
  const booted = await boot(init, init.lesson.packages);
  const { pyodide } = booted;
  let { lessonDir } = booted;
  const browser = pyodide.pyimport("lessonkit.browser");
  // No warm-up grading here: it needs a learner, so the page sends it as a first job.
  browser.prepare(lessonDir, false);
  const channel = init.channel;

  return {
    async lesson({ id, lesson, zip, sha256, lang }) {
      lessonDir = await switchLesson(pyodide, lesson.id, zip, sha256);
      browser.prepare(lessonDir, false);
      post({ type: "lesson-loaded", id });
      // After the page has its answer: the checks collected for the first Run there (which
      // waits behind this in the queue rather than collecting them itself). At boot the
      // warm-up, a grading, collects them.
      browser.collect_checks(lessonDir, lang || "en");
    },
    grade({ id, source, timed_out: timedOut, crashed, time_used_s: timeUsed, lang }) {
      const onEvent = (eventJson) => post({ type: "event", id, event: JSON.parse(eventJson) });
      const learnerCall = (requestJson, timeLimit) => {
        expectAnswer(channel);
        post({ type: "learner", id, seq: JSON.parse(requestJson).seq, request: requestJson,
               time_limit_s: timeLimit ?? null });
        return waitForAnswer(channel);
      };
      const reportJson = browser.grade_json(lessonDir, source, JSON.stringify(timedOut || {}), onEvent,
                                            JSON.stringify(crashed || []), timeUsed || 0, lang || "en",
                                            learnerCall);
      post({ type: "report", id, report: JSON.parse(reportJson) });
    },
  };
}
