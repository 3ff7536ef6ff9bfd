// The Python worker: loads Pyodide from this site (never a CDN), the lesson's packages and
// pytest, unpacks the engine and the lesson's checks, and grades through `lessonkit.browser`.
// It passes only strings (JSON) to and from Python. Protocol: docs/architecture.md.

import { countingFetch } from "./counting-fetch.js";

const HOME = "/home/pyodide";
let pyodide = null;
let browser = null;   // the lessonkit.browser module (a PyProxy)
let lessonDir = null;
const STDERR_LINES = 50;
let stderrLines = 0;

function post(message) {
  self.postMessage(message);
}

function progress(stage, loaded = 0, total = 0) {
  post({ type: "progress", stage, loaded, total });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function init({ lesson, urls, downloadBytes, interruptBuffer, warmUp }) {
  let loaded = 0;
  let stage = "Downloading Python";
  // Every byte the worker fetches (the runtime, the standard library, the wheels, the lesson)
  // moves the progress bar; the total comes from the build, which knows every file's size.
  self.fetch = countingFetch(self.fetch.bind(self), (n) => {
    loaded += n;
    progress(stage, loaded, downloadBytes);
  });
  progress(stage, 0, downloadBytes);
  importScripts(new URL("pyodide.js", urls.pyodide).href);
  const files = Promise.all([fetchBytes(urls.engine), fetchBytes(urls.lesson)]);
  pyodide = await self.loadPyodide({
    indexURL: urls.pyodide,
    lockFileURL: new URL("pyodide-lock.json", urls.pyodide).href,
    // Loading the packages while Pyodide boots overlaps their download with its start-up.
    packages: lesson.packages,
    stdout: () => {},
    stderr: (line) => {
      // Only output that bypassed the grader's capture gets here (sys.__stderr__, os.write):
      // a flood of it must not flood the console, so only the first lines of a run are kept.
      if (++stderrLines <= STDERR_LINES) console.warn("[python]", line);
    },
  });
  stage = "Preparing the checks";
  progress(stage, loaded, downloadBytes);
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  const [engineZip, lessonZip] = await files;
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(engineZip, "zip", { extractDir: sitePackages });
  lessonDir = `${HOME}/lessons/${lesson.id}`;
  pyodide.unpackArchive(lessonZip, "zip", { extractDir: lessonDir });
  // Importing pytest and grading the starter once: "ready" comes after it, so the learner's
  // first Run is as fast as the next ones (a Run pressed earlier waits on the page).
  browser = pyodide.pyimport("lessonkit.browser");
  browser.prepare(lessonDir, warmUp !== false);
  post({ type: "ready" });
}

function grade({ id, source, timed_out: timedOut, crashed, time_used_s: timeUsed, lang }) {
  const onEvent = (eventJson) => post({ type: "event", id, event: JSON.parse(eventJson) });
  const reportJson = browser.grade_json(lessonDir, source, JSON.stringify(timedOut || []), onEvent,
                                        JSON.stringify(crashed || []), timeUsed || 0, lang || "en");
  post({ type: "report", id, report: JSON.parse(reportJson) });
}

function runExample({ id, source, inputs }) {
  // Starts the page's timer now, not when the message was sent: a call queued behind the
  // background warm-up must not lose its time to it.
  post({ type: "event", id, event: { event: "example_start" } });
  const resultJson = browser.run_calls_json(lessonDir, source, JSON.stringify(inputs));
  post({ type: "report", id, report: JSON.parse(resultJson) });
}

// Messages are handled one at a time, in order: a grade sent while Pyodide loads waits for it.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(async () => {
    stderrLines = 0;
    try {
      if (data.type === "init") await init(data);
      else if (data.type === "grade") grade(data);
      else if (data.type === "run-example") runExample(data);
    } catch (error) {
      post({ type: "crash", id: data.id ?? null, message: describe(error) });
    }
  });
};

function describe(error) {
  // A Python exception that escaped the engine: its last line names it, the rest is internals.
  const text = String(error && error.message ? error.message : error);
  if (text.includes("KeyboardInterrupt")) return "KeyboardInterrupt";
  return text.trim();
}
