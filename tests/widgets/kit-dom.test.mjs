// The kit's pieces that build nodes, on a stand-in document (the page concerns, layout and
// colour, are the browser tests'): drawn.js's life of a widget and views.js's gpuBadge.
import { test } from "node:test";
import assert from "node:assert/strict";

class FakeNode {
  constructor(tag) { Object.assign(this, { tag, attrs: {}, children: [], focused: false }); }
  setAttribute(k, v) { this.attrs[k] = v; }
  addEventListener() {}
  append(child) { this.children.push(child); }
  replaceChildren() { this.children = []; }
  querySelector(selector) { return this.children.find((c) => c.attrs?.["data-size"] && selector.includes(c.attrs["data-size"])) ?? null; }
  focus() { this.focused = true; }
  get textContent() { return this.children.map((c) => (c instanceof FakeNode ? c.textContent : c)).join(""); }
}
globalThis.Node = FakeNode;
globalThis.document = { createElement: (tag) => new FakeNode(tag) };
const { drawn } = await import("../../web/src/widgets/drawn.js");
const { gpuBadge } = await import("../../web/src/widgets/views.js");

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
