// The learner role (split mode): runs the learner's code and nothing of the grader's. It
// answers each request the page forwards with `lessonkit.learner_host.handle_json` (one JSON
// string in, one out) and never sees the grader's channel: whatever its code does here, it can
// only answer the requests it is given, and the page times them.

import { boot, post, switchLesson } from "./boot.js";
import { confine } from "./confine.js";
import { installRequirements } from "./packages.js";

// The packages only the grader needs (build.py adds them to every lesson's list).
const GRADER_ONLY = ["pytest"];

export async function learner(init) {
  const booted = await boot(init, init.lesson.packages.filter((p) => !GRADER_ONLY.includes(p)));
  const { pyodide } = booted;
  let { lessonDir } = booted;
  await installRequirements(pyodide, init.lesson, init.urls);
  const host = pyodide.pyimport("lessonkit.learner_host");
  host.prepare(lessonDir);
  // Everything is loaded: from here on the worker reaches nothing beyond itself (confine.js).
  confine();

  return {
    // Another lesson, its files handed over by the page (this worker cannot fetch).
    async lesson({ id, lesson, zip, sha256 }) {
      lessonDir = await switchLesson(pyodide, lesson.id, zip, sha256);
      host.prepare(lessonDir);
      post({ type: "lesson-loaded", id });
    },
    request({ id, request }) {
      post({ type: "response", id, response: host.handle_json(request) });
    },
    // "Try with my code": the widget's call list, as a run_calls request (the page times it
    // from when it sends it: nothing runs ahead of it in this worker).
    "run-example"({ id, source, inputs, lang }) {
      const request = JSON.stringify({ op: "run_calls", seq: id, lesson_dir: lessonDir, source, calls: inputs, lang });
      post({ type: "report", id, report: JSON.parse(host.handle_json(request)).result });
    },
  };
}
