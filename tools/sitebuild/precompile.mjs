// Runs pyc_compiler.py in Pyodide under Node, the interpreter the browser runs, so the bytecode
// it writes is the browser's own.
//   node precompile.mjs JOB.json
// JOB: {core_dir, compiler, work_dir, archives: [{src, dst, layout, prefix}]}, src/dst relative
// to work_dir. Prints one JSON line: {"results": [modules compiled, per archive]}.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const require = createRequire(import.meta.url);
const { loadPyodide } = require(path.join(job.core_dir, "pyodide.js"));
const pyodide = await loadPyodide({ indexURL: job.core_dir + "/", stdout: () => {}, stderr: (l) => console.error(l) });
pyodide.FS.mkdirTree("/work");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: job.work_dir }, "/work");
pyodide.FS.writeFile("/tmp/pyc_compiler.py", fs.readFileSync(job.compiler));
const run = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/tmp")
from pyc_compiler import compile_archive
lambda archives: json.dumps([compile_archive("/work/" + a["src"], "/work/" + a["dst"], a["layout"], a["prefix"])
                             for a in json.loads(archives)])
`);
console.log(JSON.stringify({ results: JSON.parse(run(JSON.stringify(job.archives))) }));
