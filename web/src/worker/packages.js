// A lesson's pinned PyPI packages (lesson.toml `requirements`, docs/lesson-format.md): the
// build verified each wheel against its sha256 and put it in the site's wheels/ folder
// (tools/sitebuild/lesson_packages.py); micropip installs them from there, never from PyPI.
// Call it after boot and before any learner code runs: the starter and the learner's
// solution.py import them at the top.

/**
 * Installs `lesson.requirements` ([{name, version, file}], from the page config) from
 * `urls.wheels` (absolute). Resolves once every package is importable; nothing to do for a
 * lesson without requirements.
 */
export async function installRequirements(pyodide, lesson, urls) {
  const wheels = lesson.requirements || [];
  if (wheels.length === 0) return;
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
