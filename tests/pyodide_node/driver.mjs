// Grades solutions with lessonkit inside Pyodide under Node, the way the browser's worker does:
// the engine and the shipped part of the lesson are copied into Pyodide's file system, wheels
// are installed from local files, and per-check time limits come from the host writing 14
// (SIGALRM) into Pyodide's interrupt buffer from another thread.
//
//   node driver.mjs JOB.json
// JOB: {core_dir, wheels: [paths], numpy_wheel, engine_dir, lesson_dir,
//       solutions: [{name, source}], repeat, prepare, calls}
// Prints one JSON line per event: {"ready": ms}, then {"name", "run", "ms", "report"} per grade,
// then, when `calls` is given, {"name", "calls": run_calls result} per solution.
// A batch job grades several lessons in one Pyodide instead: JOB has
//   lessons: [{id, files: [[relative path, host path], ...], solutions: [{name, source}]}]
// (the files the build ships) in place of lesson_dir/solutions, and prints
// {"lesson", "name", "report"} per grade.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";

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

// The engine and the shipped subset of the lesson, as the browser gets them.
function copyTree(hostDir, fsDir, keep) {
  pyodide.FS.mkdirTree(fsDir);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const host = path.join(hostDir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__" && keep(entry.name, true)) copyTree(host, fsDir + "/" + entry.name, () => true);
    } else if (keep(entry.name, false)) {
      pyodide.FS.writeFile(fsDir + "/" + entry.name, fs.readFileSync(host));
    }
  }
}
copyTree(job.engine_dir, "/home/pyodide/lessonkit", (name) => name.endsWith(".py"));
const lessonDir = job.lesson_dir && "/home/pyodide/lessons/" + path.basename(job.lesson_dir);
if (job.lesson_dir) {
  copyTree(job.lesson_dir, lessonDir,
    (name, isDir) => (isDir ? name === "checks" : ["lesson.toml", "starter.py"].includes(name)));
}

// The watchdog thread: writes SIGALRM into the interrupt buffer when a check's time is up.
const interrupt = new Int32Array(new SharedArrayBuffer(4));
const deadline = new Float64Array(new SharedArrayBuffer(8));
pyodide.setInterruptBuffer(interrupt);
const watchdog = new Worker(`
  const { workerData } = require("node:worker_threads");
  const [interrupt, deadline] = [new Int32Array(workerData.i), new Float64Array(workerData.d)];
  // Only the main thread writes the deadline (a watchdog that also cleared it could wipe the
  // next check's deadline). Past the deadline, 14 is sent again every 250 ms until the check
  // ends: one alarm can be swallowed (a bare "except:" in the learner's loop, say).
  let last = 0;
  setInterval(() => {
    const due = deadline[0], now = Date.now();
    if (due && now > due && now - last >= 250) { last = now; Atomics.store(interrupt, 0, 14); }
  }, 5);
  require("node:worker_threads").parentPort.postMessage("watching");`,
  { eval: true, workerData: { i: interrupt.buffer, d: deadline.buffer } });
// Python is about to hold this thread for good: let the watchdog finish starting first.
await new Promise((resolve) => watchdog.once("message", resolve));

function onEvent(text) {
  const event = JSON.parse(text);
  if (event.event === "check_start") deadline[0] = Date.now() + 1000 * event.time_limit_s;
  else deadline[0] = 0;
}

pyodide.runPython(`
import sys
sys.path.insert(0, "/home/pyodide")
sys.dont_write_bytecode = True
from lessonkit import browser
`);
const browser = pyodide.pyimport("lessonkit.browser");
if (job.lessons) {
  console.log(JSON.stringify({ ready: performance.now() - t0 }));
  for (const lesson of job.lessons) {
    const dir = "/home/pyodide/lessons/" + lesson.id;
    for (const [rel, host] of lesson.files) {
      pyodide.FS.mkdirTree(path.posix.dirname(dir + "/" + rel));
      pyodide.FS.writeFile(dir + "/" + rel, fs.readFileSync(host));
    }
    browser.prepare(dir);  // as the page does before its first Run: imports warm, not timed
    for (const { name, source } of lesson.solutions) {
      const report = browser.grade_json(dir, source, "[]", onEvent);
      console.log(JSON.stringify({ lesson: lesson.id, name, report: JSON.parse(report) }));
    }
  }
  await watchdog.terminate();
  process.exit(0);
}
if (job.prepare) browser.prepare(lessonDir);
console.log(JSON.stringify({ ready: performance.now() - t0 }));

for (let run = 0; run < (job.repeat || 1); run++) {
  for (const { name, source } of job.solutions) {
    const start = performance.now();
    const report = browser.grade_json(lessonDir, source, "[]", onEvent);
    console.log(JSON.stringify({ name, run, ms: performance.now() - start, report: JSON.parse(report) }));
  }
}
if (job.calls) {
  // run_calls sends no events: like the page, the host times the whole request.
  for (const { name, source } of job.solutions) {
    deadline[0] = Date.now() + 2000;
    const result = browser.run_calls_json(lessonDir, source, JSON.stringify(job.calls));
    deadline[0] = 0;
    console.log(JSON.stringify({ name, calls: JSON.parse(result) }));
  }
}
await watchdog.terminate();
