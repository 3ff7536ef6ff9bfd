// Grades solutions with lessonkit inside Pyodide under Node, the way the browser's worker does:
// the files the build ships of the engine and of each lesson are copied into Pyodide's file
// system and the wheels installed from local files, once for every lesson of the job (one
// Pyodide start). It sets no time limits: the page is the host that delivers them (through the
// interrupt buffer, or by restarting the worker), and tests/browser checks it in real Chromium.
//
//   node driver.mjs JOB.json
// JOB: {core_dir, wheels: [paths], numpy_wheel, engine_files: [[relative path, host path], ...],
//       prepare, repeat,
//       lessons: [{id, files: [[relative path, host path], ...], solutions: [{name, source}], calls}]}
// Prints one JSON line per event: {"ready": ms}, then per lesson {"lesson", "name", "run", "ms",
// "report"} for each grade (`repeat` rounds) and, where the lesson has `calls`,
// {"lesson", "name", "ms", "calls": run_calls result} per solution.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const require = createRequire(import.meta.url);
const { loadPyodide } = require(path.join(job.core_dir, "pyodide.js"));

const t0 = performance.now();
const pyodide = await loadPyodide({ indexURL: job.core_dir + "/", stdout: () => {}, stderr: () => {} });
await pyodide.loadPackage(job.numpy_wheel, { messageCallback: () => {} });

// Pure wheels: unzip into site-packages (what Pyodide's own installer does for them).
for (const wheel of job.wheels) {
  pyodide.FS.writeFile("/tmp/" + path.basename(wheel), fs.readFileSync(wheel));
}
pyodide.runPython(`
import glob, sysconfig, zipfile
for w in glob.glob("/tmp/*.whl"):
    zipfile.ZipFile(w).extractall(sysconfig.get_paths()["purelib"])
`);

// The engine and each lesson: the files the build ships (lessonkit.zip, lesson.zip).
function writeFiles(dir, files) {
  for (const [rel, host] of files) {
    pyodide.FS.mkdirTree(path.posix.dirname(dir + "/" + rel));
    pyodide.FS.writeFile(dir + "/" + rel, fs.readFileSync(host));
  }
}
writeFiles("/home/pyodide", job.engine_files);

pyodide.runPython(`
import sys
sys.path.insert(0, "/home/pyodide")
sys.dont_write_bytecode = True
`);
const browser = pyodide.pyimport("lessonkit.browser");
const dirs = job.lessons.map((lesson) => {
  const dir = "/home/pyodide/lessons/" + lesson.id;
  writeFiles(dir, lesson.files);
  if (job.prepare) browser.prepare(dir);  // as the page does before its first Run: not timed
  return dir;
});
console.log(JSON.stringify({ ready: performance.now() - t0 }));

job.lessons.forEach((lesson, i) => {
  for (let run = 0; run < (job.repeat || 1); run++) {
    for (const { name, source } of lesson.solutions) {
      const start = performance.now();
      const report = browser.grade_json.callKwargs(dirs[i], source, { seed: job.seed ?? null });
      console.log(JSON.stringify({ lesson: lesson.id, name, run, ms: performance.now() - start,
                                   report: JSON.parse(report) }));
    }
  }
  for (const { name, source } of lesson.calls ? lesson.solutions : []) {
    const start = performance.now();
    const result = browser.run_calls_json(dirs[i], source, JSON.stringify(lesson.calls));
    console.log(JSON.stringify({ lesson: lesson.id, name, ms: performance.now() - start,
                                 calls: JSON.parse(result) }));
  }
});
