// Where in the author's own files an error happened: "lessons/tp-cost/widgets/tp-scaling.js:42:7"
// instead of the bundle's "assets/page-XXXX.js:1:80321". Browsers apply a bundle's source map in
// their developer tools only, never to error.stack nor to what a page prints, so the widget host
// of a `serve --watch` build reads the map back itself (esbuild links one beside every bundle:
// tools/sitebuild/bundle.py), and only once an error has happened.

const BASE64 = Object.fromEntries([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]));
const FRAME = /(https?:\/\/[^\s()]+?\.js):(\d+):(\d+)/g;
const maps = new Map(); // script URL -> Promise of its parsed map (or null)

/** One segment's base-64 VLQ fields, as signed numbers. */
function fields(segment) {
  const out = [];
  let value = 0, shift = 0;
  for (const c of segment) {
    const digit = BASE64[c];
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = shift = 0;
    }
  }
  return out;
}

/** The source position of generated `line`:`column` (both from 1, as in a stack), or null. */
export function lookup(map, line, column) {
  let source = 0, sourceLine = 0, sourceColumn = 0, found = null;
  const lines = map.mappings.split(";");
  for (let l = 0; l < line && l < lines.length; l++) {
    let generated = 0;
    for (const segment of lines[l] ? lines[l].split(",") : []) {
      const f = fields(segment);
      generated += f[0];
      if (f.length < 4) continue;
      source += f[1]; sourceLine += f[2]; sourceColumn += f[3];
      // Fields are relative to the previous segment, so every earlier line is decoded too.
      if (l === line - 1 && generated <= column - 1) found = { source: map.sources[source], line: sourceLine + 1, column: sourceColumn + 1 };
    }
  }
  return found;
}

function mapOf(script) {
  if (!maps.has(script)) {
    maps.set(script, fetch(`${script}.map`).then((r) => (r.ok ? r.json() : null)).catch(() => null));
  }
  return maps.get(script);
}

/**
 * Where `error` was thrown, in the sources: the first stack frame in a lesson's own files
 * ("lessons/<slug>/…"), else the first one the map knows; as "path:line:column", or null.
 */
export async function sourceLocation(error) {
  const found = [];
  for (const [, script, line, column] of String(error?.stack ?? "").matchAll(FRAME)) {
    const map = await mapOf(script);
    const at = map && lookup(map, Number(line), Number(column));
    if (at?.source) found.push(`${at.source}:${at.line}:${at.column}`); // named by bundle.py's name_sources
  }
  return found.find((at) => at.startsWith("lessons/")) ?? found[0] ?? null;
}
