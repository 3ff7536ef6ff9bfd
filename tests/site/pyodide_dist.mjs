// Loads Pyodide from a built site's pyodide/ folder under Node, as the browser's worker does
// (the site's lock, so Pyodide checks each wheel's sha256), with an audit hook recording every
// source compiled (by the import system, pytest, lessonkit); then grades solutions through
// lessonkit.browser.
//   node pyodide_dist.mjs JOB.json    JOB: {site, lesson, solutions: [source, ...]}
// The site must lie outside this repository (pytest's temporary folder does): the repository's
// package.json makes Node read every .js below it, Pyodide's too, as an ES module.
// Prints one JSON line: {compiled: [file names], json_file: json's __file__, reports: [...]}.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const require = createRequire(import.meta.url);
const pyodideDir = path.join(job.site, "pyodide") + "/";
const { loadPyodide } = require(path.join(pyodideDir, "pyodide.js"));
const pyodide = await loadPyodide({ indexURL: pyodideDir, lockFileURL: pyodideDir + "pyodide-lock.json",
                                    stdout: () => {}, stderr: () => {} });
pyodide.runPython(`
import sys
compiled = []
def _hook(event, args):
    if event == "compile":
        compiled.append(str(args[1]))
sys.addaudithook(_hook)
`);
await pyodide.loadPackage(["numpy", "pytest"], { messageCallback: () => {} });
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(path.join(job.site, "py", "lessonkit.zip"))), "zip", { extractDir: sitePackages });
const lessonDir = `/home/pyodide/lessons/${job.lesson}`;
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(path.join(job.site, "lessons", job.lesson, "lesson.zip"))), "zip", { extractDir: lessonDir });
const browser = pyodide.pyimport("lessonkit.browser");
browser.prepare(lessonDir);
const reports = job.solutions.map((source) => JSON.parse(browser.grade_json(lessonDir, source)));
const compiled = pyodide.runPython("import json; json.dumps(sorted(set(compiled)))");
const jsonFile = pyodide.runPython("import json; json.__file__");
console.log(JSON.stringify({ compiled: JSON.parse(compiled), json_file: jsonFile, reports }));
