// A lesson's pinned PyPI packages (lesson.toml `requirements`, docs/lesson-format.md): the
// build verified each wheel against its sha256 and put it in the site's wheels/ folder
// (tools/sitebuild/lesson_packages.py); micropip installs them from there, never from PyPI.
// Call it after boot and before any learner code runs: the starter and the learner's
// solution.py import them at the top.

import { fetchVerified } from "./boot.js";

/**
 * Installs `lesson.requirements` ([{name, version, file, sha256}], from the page config) from
 * `urls.wheels` (absolute). Resolves once every package is importable; nothing to do for a
 * lesson without requirements.
 */
export async function installRequirements(pyodide, lesson, urls) {
  const wheels = lesson.requirements || [];
  if (wheels.length === 0) return;
  // Each wheel's bytes are checked against the build's sha256 first; micropip then gets them
  // from the same verified store (the service worker's cache, or the HTTP cache just filled).
  await Promise.all(wheels.map((wheel) => fetchVerified(new URL(wheel.file, urls.wheels).href, wheel.sha256)));
  // From the site's pyodide-lock.json; already loaded when the role's packages listed it.
  await pyodide.loadPackage("micropip", { messageCallback: () => {} });
  const micropip = pyodide.pyimport("micropip");
  const list = pyodide.toPy(wheels.map((wheel) => new URL(wheel.file, urls.wheels).href));
  try {
    // deps=False: the build checked that whatever a wheel needs is pinned too or loaded from
    // Pyodide, so micropip never looks anything up on PyPI.
    await micropip.install.callKwargs(list, { deps: false });
  } finally {
    list.destroy();
    micropip.destroy();
  }
}
