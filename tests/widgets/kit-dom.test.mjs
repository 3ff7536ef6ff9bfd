// The kit's pieces that build nodes, on a stand-in document (the page concerns, layout and
// colour, are the browser tests'): drawn.js's life of a widget, views.js's gpuBadge and panel,
// unsplit.js's verdict, grid.js's matrixInput keeping what was typed, missed-sum.js's line.
import { test } from "node:test";
import assert from "node:assert/strict";

class FakeNode {
  constructor(tag) { Object.assign(this, { tag, attrs: {}, children: [], focused: false, listeners: {} }); }
  setAttribute(k, v) { this.attrs[k] = v; if (k === "value") this.value = v; }
  removeAttribute(k) { delete this.attrs[k]; }
  addEventListener(type, fn) { this.listeners[type] = fn; }
  append(child) { this.children.push(child); }
  replaceChildren() { this.children = []; }
  querySelector(selector) { return this.children.find((c) => c.attrs?.["data-size"] && selector.includes(c.attrs["data-size"])) ?? null; }
  focus() { this.focused = true; }
  get textContent() { return this.children.map((c) => (c instanceof FakeNode ? c.textContent : c)).join(""); }
}
globalThis.Node = FakeNode;
globalThis.document = { createElement: (tag) => new FakeNode(tag) };
const { drawn } = await import("../../web/src/widgets/drawn.js");
const { gpuBadge, panel } = await import("../../web/src/widgets/views.js");
const { unsplitVerdict } = await import("../../web/src/widgets/unsplit.js");
const { matrixInput } = await import("../../web/src/widgets/grid.js");
const { missedSumLine } = await import("../../web/src/widgets/missed-sum.js");

test("drawn draws in the page's language, updates after each drawing, and draws again on a switch", () => {
  const el = new FakeNode("div");
  const seen = [];
  let switchTo;
  const ctx = { lang: "pl", onLangChange: (cb) => { switchTo = cb; } };
  const w = drawn(el, ctx, { view: (w) => { const s = new FakeNode("select"); s.setAttribute("data-size", "n"); s.append(w.lang); return s; },
    update: (w) => seen.push(`update ${w.lang}`) });
  assert.equal(el.textContent, "pl");
  assert.deepEqual(seen, ["update pl"]);
  switchTo("en");
  assert.equal(el.textContent, "en");
  w.update();
  assert.deepEqual(seen, ["update pl", "update en", "update en"]);
  w.render('select[data-size="n"]');                     // drawn anew, the changed select focused
  assert.ok(el.children[0].focused);
  assert.equal(drawn(new FakeNode("div"), {}, { view: (w) => w.lang, update() {} }).lang, "en"); // no language given: English
});

test("gpuBadge is a badge span with the GPU's name", () => {
  const badge = gpuBadge("GPU 1");
  assert.deepEqual([badge.tag, badge.attrs.class, badge.textContent], ["span", "tpw-gpu-badge", "GPU 1"]);
});

test("panel is a results panel under its heading, the heading left out when it has none", () => {
  const p = panel({ cls: "tpw-reduce", title: "All-reduce", testid: "comm" }, "a", ["b", null]);
  assert.deepEqual([p.attrs.class, p.attrs["data-testid"], p.children[0].tag, p.textContent], ["tpw-panel tpw-reduce", "comm", "h4", "All-reduceab"]);
  const bare = panel({}, "x");
  assert.deepEqual([bare.attrs.class, bare.attrs["data-testid"], bare.children], ["tpw-panel", undefined, ["x"]]);
});

test("unsplitVerdict: ✓ equal, or ✗ not-equal naming the difference, in the widget's words", () => {
  const t = (lang, key, vars) => `${lang}:${key}${vars ? ` ${vars.diff}` : ""}`;
  const ok = unsplitVerdict(t, "pl", true, "1e-16"), bad = unsplitVerdict(t, "en", false, "0.5");
  assert.deepEqual([ok.attrs["data-testid"], ok.attrs["data-ok"], ok.textContent], ["equal", "true", "✓ pl:equal"]);
  assert.deepEqual([bad.attrs["data-ok"], bad.textContent], ["false", "✗ en:not-equal 0.5"]);
});

test("matrixInput with `text` shows what was typed and keeps it up to date before onInput", () => {
  const text = { x: [["1", "2"]] };
  const seen = [];
  const grid = matrixInput({ name: "γ", key: "x", caption: "x", vector: true, text, onInput: () => seen.push(JSON.stringify(text.x)) });
  assert.deepEqual(grid.inputs[0].map((i) => i.value), ["1", "2"]);
  grid.inputs[0][1].value = "−5";
  grid.inputs[0][1].listeners.input();
  assert.deepEqual(seen, ['[["1","−5"]]']);
  assert.deepEqual(grid.read((lang, key) => key, "en"), [[1, -5]]);
});

test("missedSumLine is the hint's line when a result is one GPU's share, else nothing", () => {
  const t = (lang, key, vars) => `${key} ${vars.i ?? ""}`.trim();
  const line = missedSumLine(t, "en", [1, 2], [[1, 2], [3, 4]]);
  assert.deepEqual([line.attrs["data-testid"], line.attrs.class, line.textContent], ["learner-sum-hint", "tpw-hint", "missed-one 0"]);
  assert.equal(missedSumLine(t, "en", [4, 6], [[1, 2], [3, 4]]), null); // the right sum
});
