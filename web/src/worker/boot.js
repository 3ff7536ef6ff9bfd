// What every role of the Python worker does first: load Pyodide from this site (never a CDN)
// with the role's packages, and unpack the engine and the lesson's shipped files. Download
// progress goes to the page as {type: "progress"} messages.

import { countingFetch } from "./counting-fetch.js";

const HOME = "/home/pyodide";
const STDERR_LINES = 50;
let stderrLines = 0;

// Taken before any Python runs: learner code that replaces `self.postMessage` (possible in the
// single role, where it shares this worker) cannot reach the page through it.
const postToPage = self.postMessage.bind(self);

export function post(message) {
  postToPage(message);
}

function progress(stage, loaded = 0, total = 0) {
  post({ type: "progress", stage, loaded, total });
}

/** Each request may write its first few lines to the console again (see `stderr` below). */
export function newRequest() {
  stderrLines = 0;
}

async function fetchBytes(url, init) {
  const response = await fetch(url, init);
  // The service worker says in its body why it could not serve a file (see service-worker.js).
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`.trim());
  return new Uint8Array(await response.arrayBuffer());
}

export async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The bytes at `url`, only if their sha256 is `expected` (the page config's, written by the
 * build): the second wall behind the learner's confinement (docs/threat-model.md), so bytes
 * changed in any cache on the way are never unpacked. A mismatch is fetched once more past the
 * HTTP cache; a second mismatch (offline, or a cache nothing can refresh) stops the start with
 * a message saying which file is wrong.
 */
export async function fetchVerified(url, expected) {
  let bytes = await fetchBytes(url);
  if (await sha256(bytes) === expected) return bytes;
  bytes = await fetchBytes(url, { cache: "reload" });
  if (await sha256(bytes) === expected) return bytes;
  const name = new URL(url).pathname.split("/").pop();
  throw new Error(`${name} in this browser is not the file this page was built with (its sha256 differs), `
                  + "and fetching it again did not help: reload the page while online");
}

/**
 * Starts Python with `packages` (names from the site's pyodide-lock.json) and the engine and
 * lesson unpacked; resolves with {pyodide, lessonDir}.
 */
export async function boot({ lesson, urls, sha256: hashes, downloadBytes, interruptBuffer, lessonZip }, packages) {
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
  // A worker started after the page moved to this lesson is handed the lesson.zip the move
  // fetched (the learner worker could fetch it, but the page would download it once more).
  const files = Promise.all([
    fetchVerified(urls.engine, hashes.engine),
    lessonZip ? checkedLesson(lesson.id, lessonZip, hashes.lesson) : fetchVerified(urls.lesson, hashes.lesson),
  ]);
  // Pyodide checks each package's sha256 against its lock file (fetch's `integrity`): the lock
  // file itself is checked here and handed over as these very bytes.
  const lock = await fetchVerified(new URL("pyodide-lock.json", urls.pyodide).href, hashes.lock);
  const pyodide = await self.loadPyodide({
    indexURL: urls.pyodide,
    lockFileURL: URL.createObjectURL(new Blob([lock], { type: "application/json" })),
    // Loading the packages while Pyodide boots overlaps their download with its start-up.
    packages,
    stdout: () => {},
    stderr: (line) => {
      // Only output that bypassed the engine's capture gets here (sys.__stderr__, os.write):
      // a flood of it must not flood the console, so only the first lines of a request are kept.
      if (++stderrLines <= STDERR_LINES) console.warn("[python]", line);
    },
  });
  stage = "Preparing the checks";
  progress(stage, loaded, downloadBytes);
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  const [engineZip, lessonBytes] = await files;
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(engineZip, "zip", { extractDir: sitePackages });
  return { pyodide, lessonDir: unpackLesson(pyodide, lesson.id, lessonBytes) };
}

function unpackLesson(pyodide, id, zip) {
  const lessonDir = `${HOME}/lessons/${id}`;
  pyodide.unpackArchive(zip, "zip", { extractDir: lessonDir });
  return lessonDir;
}

/** `zip` (lesson `id`'s lesson.zip as the page fetched it) as bytes, only if its sha256 is `expected`. */
async function checkedLesson(id, zip, expected) {
  const bytes = new Uint8Array(zip);
  if (await sha256(bytes) !== expected) {
    throw new Error(`lesson.zip of ${id} is not the file this page was built with (its sha256 differs): reload the page while online`);
  }
  return bytes;
}

/**
 * Another lesson in a booted worker (the page moved to it without reloading): `zip` is its
 * `lesson.zip` as the page fetched it, unpacked only if its sha256 is the new page config's
 * (`expected`), as `boot` checks it. The learner worker cannot fetch (confine.js), so the page
 * hands every role the bytes. Resolves with the lesson's folder.
 */
export async function switchLesson(pyodide, id, zip, expected) {
  return unpackLesson(pyodide, id, await checkedLesson(id, zip, expected));
}

/** A Python exception that escaped the engine, in one line: its last line names it. */
export function describe(error) {
  const text = String(error && error.message ? error.message : error);
  if (text.includes("KeyboardInterrupt")) return "KeyboardInterrupt";
  return text.trim();
}
