// Widget "row-split": why the first matrix must not be split by rows. Two GPUs each hold two
// rows of W; their partial products only add up to xW, so a nonlinearity applied on each GPU
// before the all-reduce gives a different (wrong) answer than one applied after it.

import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import TEXT from "./row-split.text.json" with { type: "json" };
import { matrixInput } from "widget-kit/grid.js";
import { radios } from "widget-kit/controls.js";
import { card, relation, vectorOutput } from "widget-kit/views.js";
import { rowSplit, formatVector, nearlyEqual, ACTIVATIONS } from "widget-kit/matrix.js";

// Pure JavaScript: it runs none of the learner's functions.
export const calls = [];

// The numbers of the Polish source (seed 001).
const DEFAULT_x = [1, 2, -1, 3];
const DEFAULT_W = [[2, -1], [1, 2], [3, 0], [-2, 1]];
const SPLIT = 2; // GPU A holds rows 0–1 of W (and x[0], x[1]); GPU B rows 2–3.
const GPUS = ["A", "B"];

const t = translator(TEXT);

const ACT_NAMES = { relu: "ReLU", gelu: "GeLU" };

export function mount(el, ctx) {
  const state = {
    lang: ctx.lang ?? "en",
    activation: "relu",
    text: { x: [DEFAULT_x.map(String)], W: DEFAULT_W.map((r) => r.map(String)) },
  };
  let view = null;

  function render() {
    const lang = state.lang;
    const gpuOfRow = (r) => (r < SPLIT ? 0 : 1);
    const gridx = matrixInput({
      name: "x", caption: t(lang, "caption-x"), vector: true, values: state.text.x, onInput: edited,
      cellClass: (_, c) => `gpu-${gpuOfRow(c)}${c === DEFAULT_x.length - 1 ? " tpw-prompted" : ""}`,
      colHead: (c) => h("span", { class: `tpw-gpu-tag` }, t(lang, "gpu", { g: GPUS[gpuOfRow(c)] })),
    });
    const gridW = matrixInput({
      name: "W", caption: t(lang, "caption-W"), values: state.text.W, onInput: edited,
      cellClass: (r) => `gpu-${gpuOfRow(r)}`,
      rowHead: (r) => h("span", { class: "tpw-gpu-tag" }, t(lang, "gpu", { g: GPUS[gpuOfRow(r)] })),
    });
    for (const th of gridx.table.querySelectorAll("thead th")) th.classList.add(`gpu-${gpuOfRow(Number(th.dataset.col))}`);
    for (const th of gridW.table.querySelectorAll("tbody th")) th.classList.add(`gpu-${gpuOfRow(Number(th.dataset.row))}`);
    const radioGroup = radios({ legend: t(lang, "nonlinearity"), options: Object.entries(ACT_NAMES).map(([value, text]) => ({ value, text })),
      value: state.activation, onChange: (value) => { state.activation = value; compute(); } });
    view = { grids: { x: gridx, W: gridW }, results: h("div", { class: "tpw-results" }) };
    fill(el, card({ lang, cls: "tpw-rowsplit", title: t(lang, "title"), intro: t(lang, "intro") },
      h("p", { class: "tpw-prompt", "data-testid": "prompt" }, h("span", { "aria-hidden": "true" }, "☞ "), t(lang, "prompt")),
      h("div", { class: "tpw-inputs" }, gridx.el, gridW.el, radioGroup),
      view.results));
    compute();
  }

  function edited() {
    for (const name of ["x", "W"]) state.text[name] = view.grids[name].texts();
    compute();
  }

  function compute() {
    const lang = state.lang;
    const read = { x: view.grids.x.read(t, lang), W: view.grids.W.read(t, lang) };
    if (!read.x || !read.W) {
      fill(view.results, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      return;
    }
    const act = ACT_NAMES[state.activation];
    const r = rowSplit(read.x[0], read.W, state.activation, SPLIT);
    const vec = (v, testid, label, differs = null) => vectorOutput(v, lang, { brackets: "[]", testid, ariaLabel: label,
      entryClass: differs && ((k) => (differs[k] ? "tpw-entry is-diff" : "tpw-entry")) });
    const sumOk = nearlyEqual(r.sum, r.full);
    const coords = r.differs.flatMap((d, k) => (d ? [k] : []));
    const partials = r.partials.map((p, i) =>
      h(
        "p",
        { class: `tpw-line tpw-partial gpu-${i}` },
        h("span", { class: "tpw-gpu-badge" }, t(lang, "gpu", { g: GPUS[i] })),
        " ",
        h("span", { class: "tpw-label" }, t(lang, "partial", { rows: i ? `${SPLIT}–${DEFAULT_x.length - 1}` : `0–${SPLIT - 1}` })),
        " = ",
        vec(p, `partial-${GPUS[i]}`, t(lang, "partial-label", { g: GPUS[i] }))
      )
    );
    const actOf = (p) => formatVector(p.map(ACTIVATIONS[state.activation]), "[]", lang);
    fill(
      view.results,
      h(
        "div",
        { class: "tpw-panel" },
        partials,
        h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, t(lang, "sum")), " = ", vec(r.sum, "sum", t(lang, "sum-label"))),
        h(
          "p",
          { class: "tpw-line" },
          h("span", { class: "tpw-label" }, t(lang, "full")), " = ", vec(r.full, "full", t(lang, "full-label")),
          " ", h("span", { class: `tpw-aside ${sumOk ? "is-equal" : "is-different"}` }, sumOk ? `✓ ${t(lang, "sum-matches")}` : `✗ ${t(lang, "sum-differs")}`)
        )
      ),
      h(
        "div",
        { class: "tpw-orders" },
        h(
          "div",
          { class: "tpw-panel tpw-order is-right" },
          h("h4", {}, h("span", { class: "tpw-icon", "aria-hidden": "true" }, "✓"), " ", t(lang, "after-title", { act })),
          h("p", { class: "tpw-note" }, t(lang, "after-note")),
          h("p", { class: "tpw-line" }, nowrap(`${act}(${formatVector(r.sum, "[]", lang)})`), relation(r.after), vec(r.after, "after", t(lang, "after-label", { act }), r.differs))
        ),
        h(
          "div",
          { class: "tpw-panel tpw-order is-wrong" },
          h("h4", {}, h("span", { class: "tpw-icon", "aria-hidden": "true" }, "✗"), " ", t(lang, "before-title", { act })),
          h("p", { class: "tpw-note" }, t(lang, "before-note")),
          h(
            "p",
            { class: "tpw-line" },
            nowrap(`${act}(${formatVector(r.partials[0], "[]", lang)})`), " + ", nowrap(`${act}(${formatVector(r.partials[1], "[]", lang)})`),
            relation(r.partials.flat().map(ACTIVATIONS[state.activation])), nowrap(actOf(r.partials[0])), " + ", nowrap(actOf(r.partials[1])), relation(r.before),
            vec(r.before, "before", t(lang, "before-label", { act }), r.differs)
          )
        )
      ),
      h(
        "p",
        { class: `tpw-verdict ${coords.length ? "is-different" : "is-equal"}`, "data-testid": "verdict", "data-agree": String(!coords.length) },
        h("span", { class: "tpw-icon", "aria-hidden": "true" }, coords.length ? "≠" : "="),
        " ",
        coords.length ? t(lang, "disagree", { count: coords.length, coords }) : t(lang, "agree")
      )
    );
  }

  ctx.onLangChange?.((lang) => {
    state.lang = lang;
    render();
  });
  render();
}

/** A formula fragment that must not break across lines. */
function nowrap(text) {
  return h("span", { class: "tpw-nowrap" }, text);
}
