// Read-only views of a widget's numbers: the card a widget lives in, a matrix as a table
// (optionally coloured by GPU, optionally captioned), and a line "label = (1.682, 2.796)".

import { h } from "./dom.js";
import { formatNumber, isShownExactly } from "./matrix.js";

/** The widget's card: <section class="tpw CLS" lang> with its title and intro line, then `children`. */
export function card({ lang, cls, title, intro }, ...children) {
  return h("section", { class: `tpw ${cls}`, lang }, h("h3", { class: "tpw-title" }, title),
    intro ? h("p", { class: "tpw-intro" }, intro) : null, children);
}

/** A matrix as a table: `cellClass(r, c)` gives a cell's classes (its GPU colour), `cls` the table's. */
export function matrixTable(M, lang, { cls = "tpw-readonly", cellClass, testid } = {}) {
  return h("table", { class: `tpw-grid ${cls}`, "data-testid": testid },
    h("tbody", {}, M.map((row, r) => h("tr", {}, row.map((v, c) => h("td", { class: cellClass?.(r, c) || null }, formatNumber(v, lang)))))));
}

/** A matrix table under a caption (a GPU's shard, an output). */
export function matrixFigure(caption, M, lang, { cls = "", testid } = {}) {
  return h("figure", { class: `tpw-shard-matrix ${cls}`.trim(), "data-testid": testid }, h("figcaption", {}, caption), matrixTable(M, lang));
}

/**
 * A vector as an <output>: "(0.841, 1.955)" in `brackets`, Polish decimal commas parted by
 * semicolons (as formatVector); `entryClass(k)` wraps each entry in a span of that class
 * (its GPU's colour, a differing coordinate).
 */
export function vectorOutput(values, lang, { brackets = "()", testid, ariaLabel, entryClass } = {}) {
  const texts = values.map((v) => formatNumber(v, lang));
  const separator = texts.some((text) => text.includes(",")) ? "; " : ", ";
  const entries = texts.flatMap((text, k) => [k ? separator : null, entryClass ? h("span", { class: entryClass(k) }, text) : text]);
  return h("output", { "aria-label": ariaLabel, "data-testid": testid, class: "tpw-vector", "aria-live": "off" }, brackets[0], entries, brackets[1]);
}

/** " = " when every shown number is exact, " ≈ " when some were rounded to 3 decimals. */
export function relation(values) {
  return values.every(isShownExactly) ? " = " : " ≈ ";
}

/**
 * "label = (0.841, 1.955)", or "≈" when a shown number is rounded; the vector is an <output>,
 * its entries coloured by the GPU `gpuOf(k)` that computed them when given.
 */
export function valueLine(label, values, lang, { testid, ariaLabel, gpuOf } = {}) {
  return h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, label), relation(values),
    vectorOutput(values, lang, { testid, ariaLabel, entryClass: gpuOf && ((k) => `tpw-entry gpu-${gpuOf(k)}`) }));
}

/** A GPU's name as a badge in its colour (the colour of the `gpu-<i>` element it sits in). */
export function gpuBadge(label) {
  return h("span", { class: "tpw-gpu-badge" }, label);
}

/** One GPU's card: its badge (`label`), a note on what it owns, then `body`; tinted in its colour. */
export function gpuCard({ i, label, note, testid = `gpu-${i}` }, ...body) {
  return h("article", { class: `tpw-gpu gpu-${i}`, "aria-label": label, "data-testid": testid },
    h("h5", {}, gpuBadge(label), " ", note ? h("span", { class: "tpw-owns" }, note) : null), body);
}

/** A panel of results under its heading: <div class="tpw-panel CLS"><h4>title</h4>…body</div>. */
export function panel({ cls = "", title, testid }, ...body) {
  return h("div", { class: `tpw-panel ${cls}`.trim(), "data-testid": testid }, title ? h("h4", {}, title) : null, body);
}

/** The line shown instead of results while an entry is unreadable (its message is by the entry). */
export function blocked(text) {
  return h("p", { class: "tpw-blocked", "data-testid": "blocked" }, text);
}

/** "label ≈ value": a labelled result, `value` in an <output> (`testid` for the tests). */
export function labelled(label, rel, value, { testid } = {}) {
  return h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, label), rel, h("output", { "data-testid": testid }, value));
}

/**
 * A table of results: `caption`, `head` (column headings; null: an empty corner cell) and
 * `rows`, each [row heading, ...cells] (with `rowHeads: false`, cells only); a cell is text,
 * nodes, or {text, ...attributes} (its data-testid, class). A row with attributes is
 * {cells, ...attributes}.
 */
export function dataTable({ caption, head, rows, cls, testid, rowHeads = true }) {
  const cell = (tag, c, attrs = {}) =>
    c !== null && typeof c === "object" && !Array.isArray(c) && !(c instanceof Node) ? h(tag, { ...attrs, ...c, text: null }, c.text) : h(tag, attrs, c);
  const row = (r) => {
    const { cells, ...attrs } = Array.isArray(r) ? { cells: r } : r;
    return h("tr", attrs, cells.map((c, k) => (rowHeads && !k ? cell("th", c, { scope: "row" }) : cell("td", c))));
  };
  return h("table", { class: cls, "data-testid": testid }, caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, head.map((c) => (c === null ? h("td") : h("th", { scope: "col" }, c))))),
    h("tbody", {}, rows.map(row)));
}
