// Renders lessons' prose (lesson.md) to HTML, so the page shows typeset math at once and never
// reflows. The one renderer: the build and `lessonkit check` both call it through
// authorkit.prose, with JSON on stdin:
//   {"documents": [{"lesson", "text", "languages": [...], "widgets": [...]}]}
// and it answers on stdout: {"documents": [{"html", "errors": [[line, message], ...], "placed": [...]}]}
// (lines 1-based; `placed`: the widget names the prose places). With `--serve` it stays running and
// answers each request, one JSON line on stdin, with one JSON line on stdout (the watch loop's
// renderer: a prose save does not start Node again).
// Beyond CommonMark: $...$ and $$...$$ math (KaTeX), `{{ widget: NAME }}` lines, and
// `::: lang xx` ... `:::` blocks (see docs/lesson-format.md).
import MarkdownIt from "markdown-it";
import katex from "katex";

// The placeholder grammar, in one place: `{{ widget: NAME }}` alone on its line. Anything else
// that opens with `{{ widget` is an error, so a mistyped placeholder never reaches a page as text.
const WIDGET_LINE = /^\{\{\s*widget:\s*([A-Za-z0-9_-]+)\s*\}\}\s*$/;
const WIDGET_START = /\{\{\s*widget\b/;
const LANG_OPEN = /^:::\s*lang\s+([A-Za-z-]+)\s*$/;
const FENCE_CLOSE = /^:::\s*$/;
const FENCE_ANY = /^:::/;

function lineText(state, line) {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// `{{ widget: NAME }}` alone on a line becomes the placeholder the page mounts the widget into.
function widgetBlock(state, startLine, _endLine, silent) {
  const m = WIDGET_LINE.exec(lineText(state, startLine));
  if (!m) return false;
  if (silent) return true;
  const token = state.push("widget", "div", 0);
  token.meta = { name: m[1] };
  token.map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

// A `{{ widget` line that is not exactly a placeholder: reported, and kept out of the page.
function badWidgetLine(state, startLine, _endLine, silent) {
  const text = lineText(state, startLine);
  if (!/^\{\{\s*widget\b/.test(text)) return false;
  if (silent) return true;
  state.env.errors.push([startLine, `malformed widget placeholder ${JSON.stringify(text.trim())}: write {{ widget: NAME }} alone on its line`]);
  state.line = startLine + 1;
  return true;
}

// A `:::` line that opens no known block (only `::: lang xx` exists) or closes none.
function unknownFence(state, startLine, _endLine, silent) {
  const text = lineText(state, startLine);
  if (!FENCE_ANY.test(text)) return false;
  if (silent) return true;
  const message = FENCE_CLOSE.test(text)
    ? "':::' closes no block (a language block opens with '::: lang xx')"
    : `unknown block ${JSON.stringify(text.trim())}: the only one is '::: lang xx' ... ':::'`;
  state.env.errors.push([startLine, message]);
  state.line = startLine + 1;
  return true;
}

// `::: lang xx` ... `:::` wraps its blocks in an element the page shows only in language xx.
function langBlock(state, startLine, endLine, silent) {
  const m = LANG_OPEN.exec(lineText(state, startLine));
  if (!m) return false;
  if (silent) return true;
  let close = startLine + 1;
  while (close < endLine && !FENCE_CLOSE.test(lineText(state, close))) close++;
  if (close >= endLine) {
    state.env.errors.push([startLine, `'::: lang ${m[1]}' is never closed with a ':::' line`]);
  }
  const open = state.push("lang_open", "div", 1);
  open.meta = { lang: m[1] };
  open.map = [startLine, close];
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = "lang";
  state.lineMax = close;
  state.md.block.tokenize(state, startLine + 1, close);
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.push("lang_close", "div", -1);
  state.line = Math.min(close + 1, endLine);
  return true;
}

// `$$ ... $$` display math, on one line or spanning several.
function mathBlock(state, startLine, endLine, silent) {
  const first = lineText(state, startLine);
  if (!first.startsWith("$$")) return false;
  let body;
  let last = startLine;
  const rest = first.slice(2);
  if (rest.trimEnd().endsWith("$$") && rest.trim().length >= 2) {
    body = rest.trimEnd().slice(0, -2);
  } else {
    const lines = [rest];
    for (last = startLine + 1; last < endLine; last++) {
      const text = lineText(state, last);
      if (text.trimEnd().endsWith("$$")) {
        lines.push(text.trimEnd().slice(0, -2));
        break;
      }
      lines.push(text);
    }
    if (last >= endLine) return false;  // no closing $$: leave it to be plain text
    body = lines.join("\n");
  }
  if (silent) return true;
  const token = state.push("math_block", "div", 0);
  token.content = body.trim();
  token.map = [startLine, last + 1];
  state.line = last + 1;
  return true;
}

// `$...$` inline math: the content may not start or end with a space, and a closing $ may not
// be followed by a digit (so "costs $5 and $6" stays text).
function mathInline(state, silent) {
  const src = state.src;
  const start = state.pos;
  if (src[start] !== "$" || src[start + 1] === "$") return false;
  if (start > 0 && src[start - 1] === "\\") return false;
  let end = start + 1;
  while ((end = src.indexOf("$", end)) !== -1) {
    if (src[end - 1] !== "\\") break;
    end++;
  }
  if (end === -1 || end === start + 1) return false;
  const body = src.slice(start + 1, end);
  if (/^\s|\s$/.test(body) || /\d/.test(src[end + 1] || "")) return false;
  if (!silent) {
    const token = state.push("math_inline", "span", 0);
    token.content = body;
    token.meta = { offset: start };
  }
  state.pos = end + 1;
  return true;
}

/**
 * Math as `lang` writes numbers. Authors write math once, the English way (1.682, 50{,}257);
 * in a Polish block decimals take a comma (1{,}682), thousands a thin space (50\,257), and a
 * tuple whose numbers have decimal commas is parted by semicolons: (1{,}682; 2{,}796).
 */
function localizeMath(tex, lang) {
  if (lang !== "pl") return tex;
  let out = tex.replace(/(\d)\{,\}(?=\d{3}(?!\d))/g, "$1\\,");
  out = out.replace(/(?<![\w.\\])(\d+)\.(\d+)(?![\w.])/g, "$1{,}$2");
  // Innermost (...) and [...] groups holding a decimal comma: their list commas become ";".
  return out.replace(/([(\[])([^()[\]]*\{,\}[^()[\]]*)([)\]])/g,
    (_m, open, inner, close) => open + inner.replace(/,(?=\s)/g, ";") + close);
}

function typeset(tex, displayMode, line, env) {
  try {
    return katex.renderToString(tex, { displayMode, throwOnError: true, output: "htmlAndMathml" });
  } catch (e) {
    env.errors.push([line, `math does not typeset: ${e.message.replace(/^KaTeX parse error: /, "")}`]);
    return `<code class="math-error">${escapeHtml(tex)}</code>`;
  }
}

function makeRenderer() {
  const md = new MarkdownIt({ html: true, linkify: false, typographer: false });
  md.block.ruler.before("paragraph", "widget", widgetBlock);
  md.block.ruler.before("paragraph", "bad_widget", badWidgetLine);
  md.block.ruler.before("fence", "lang", langBlock, { alt: ["paragraph"] });
  md.block.ruler.after("lang", "unknown_fence", unknownFence, { alt: ["paragraph"] });
  md.block.ruler.before("fence", "math_block", mathBlock, { alt: ["paragraph"] });
  md.inline.ruler.after("escape", "math_inline", mathInline);

  // Typesets math once the inline tokens exist, so a KaTeX error can name its source line. Inline
  // tokens in table cells carry no line map: they take the nearest enclosing row's.
  md.core.ruler.push("typeset", (state) => {
    const { doc } = state.env;
    let lastMap = [0, 1];
    let lang = null; // the language of the `::: lang` block being typeset (none: every language)
    for (const token of state.tokens) {
      if (token.map) lastMap = token.map;
      if (token.type === "lang_close") lang = null;
      if (token.type === "math_block") {
        token.meta = { html: typeset(localizeMath(token.content, lang), true, token.map[0], state.env) };
        continue;
      }
      if (token.type === "widget") {
        const name = token.meta.name;
        state.env.placed.push(name);
        if (!doc.widgets.includes(name)) {
          state.env.errors.push([token.map[0], `widget '${name}' is not listed in lesson.toml's widgets (${doc.widgets.join(", ") || "none"})`]);
        }
        continue;
      }
      if (token.type === "lang_open") lang = token.meta.lang;
      if (token.type === "lang_open" && !doc.languages.includes(token.meta.lang)) {
        state.env.errors.push([token.map[0], `language '${token.meta.lang}' is not in lesson.toml's languages (${doc.languages.join(", ")})`]);
        continue;
      }
      if (token.type !== "inline" || !token.children) continue;
      const lineOf = (offset) => lastMap[0] + (token.content.slice(0, offset).match(/\n/g) || []).length;
      let offset = 0;
      for (const child of token.children) {
        if (child.type === "text" && WIDGET_START.test(child.content)) {
          const at = token.content.indexOf(child.content, offset);
          state.env.errors.push([lineOf(Math.max(at, 0)), "a widget placeholder must be alone on its line, with blank lines around it"]);
        }
        if (child.type !== "math_inline") continue;
        offset = child.meta.offset;
        child.meta.html = typeset(localizeMath(child.content, lang), false, lineOf(child.meta.offset), state.env);
      }
    }
  });

  md.renderer.rules.math_inline = (tokens, i) => tokens[i].meta.html;
  md.renderer.rules.math_block = (tokens, i) => `<div class="math-display">${tokens[i].meta.html}</div>\n`;
  md.renderer.rules.widget = (tokens, i, _options, env) =>
    `<div class="widget" data-lesson="${escapeHtml(env.doc.lesson)}" data-widget="${escapeHtml(tokens[i].meta.name)}"></div>\n`;
  md.renderer.rules.lang_open = (tokens, i) => {
    const lang = escapeHtml(tokens[i].meta.lang);
    return `<div class="lang-block" data-lang="${lang}" lang="${lang}">\n`;
  };
  md.renderer.rules.lang_close = () => "</div>\n";
  return md;
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const md = makeRenderer();

function renderAll(input) {
  const documents = input.documents.map((doc) => {
    const env = { doc, errors: [], placed: [] };
    const html = md.render(doc.text, env);
    const errors = env.errors.sort((a, b) => a[0] - b[0]).map(([line, message]) => [line + 1, message]);
    return { html, errors, placed: env.placed };
  });
  return JSON.stringify({ documents });
}

if (process.argv.includes("--serve")) {
  const { createInterface } = await import("node:readline");
  for await (const line of createInterface({ input: process.stdin })) process.stdout.write(renderAll(JSON.parse(line)) + "\n");
} else {
  process.stdout.write(renderAll(JSON.parse(await readStdin())));
}
