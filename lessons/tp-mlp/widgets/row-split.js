// Widget "row-split": why the first matrix must not be split by rows. Two GPUs each hold two
// rows of W; their partial products only add up to xW, so a nonlinearity applied on each GPU
// before the all-reduce gives a different (wrong) answer than one applied after it.

import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import TEXT from "./row-split.text.json" with { type: "json" };
import { matrixInput } from "widget-kit/grid.js";
import { radios } from "widget-kit/controls.js";
import { drawn } from "widget-kit/drawn.js";
import { blocked, card, gpuBadge, panel, relation, vectorOutput } from "widget-kit/views.js";
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
const gpuOfRow = (r) => (r < SPLIT ? 0 : 1);

export function mount(el, ctx) {
  const state = { activation: "relu", text: { x: [DEFAULT_x.map(String)], W: DEFAULT_W.map((r) => r.map(String)) } };
  let view = null;

  drawn(el, ctx, {
    view(w) {
      const { lang } = w;
      const tag = (k) => h("span", { class: `tpw-gpu-tag gpu-${gpuOfRow(k)}` }, t(lang, "gpu", { g: GPUS[gpuOfRow(k)] }));
      const grid = (name, more) => matrixInput({ name, caption: t(lang, `caption-${name}`), text: state.text, onInput: w.update, ...more });
      view = {
        grids: {
          x: grid("x", { vector: true, colHead: tag, cellClass: (_, c) => `gpu-${gpuOfRow(c)}${c === DEFAULT_x.length - 1 ? " tpw-prompted" : ""}` }),
          W: grid("W", { rowHead: tag, cellClass: (r) => `gpu-${gpuOfRow(r)}` }),
        },
        results: h("div", { class: "tpw-results" }),
      };
      const radioGroup = radios({ legend: t(lang, "nonlinearity"), options: Object.entries(ACT_NAMES).map(([value, text]) => ({ value, text })),
        value: state.activation, onChange: (value) => { state.activation = value; w.update(); } });
      return card({ lang, cls: "tpw-rowsplit", title: t(lang, "title"), intro: t(lang, "intro") },
        h("p", { class: "tpw-prompt", "data-testid": "prompt" }, h("span", { "aria-hidden": "true" }, "☞ "), t(lang, "prompt")),
        h("div", { class: "tpw-inputs" }, view.grids.x.el, view.grids.W.el, radioGroup),
        view.results);
    },
    update({ lang }) {
      const [x, W] = [view.grids.x.read(t, lang), view.grids.W.read(t, lang)];
      if (!x || !W) return void fill(view.results, blocked(t(lang, "blocked")));
      const act = ACT_NAMES[state.activation], f = ACTIVATIONS[state.activation];
      const r = rowSplit(x[0], W, state.activation, SPLIT);
      const vec = (v, testid, label, differs = null) => vectorOutput(v, lang, { brackets: "[]", testid, ariaLabel: label,
        entryClass: differs && ((k) => (differs[k] ? "tpw-entry is-diff" : "tpw-entry")) });
      const line = (...parts) => h("p", { class: "tpw-line" }, parts);
      const label = (key, vars) => h("span", { class: "tpw-label" }, t(lang, key, vars));
      const sumOk = nearlyEqual(r.sum, r.full);
      const coords = r.differs.flatMap((d, k) => (d ? [k] : []));
      const partials = r.partials.map((p, i) => h("p", { class: `tpw-line tpw-partial gpu-${i}` }, gpuBadge(t(lang, "gpu", { g: GPUS[i] })), " ",
        label("partial", { rows: i ? `${SPLIT}–${DEFAULT_x.length - 1}` : `0–${SPLIT - 1}` }), " = ", vec(p, `partial-${GPUS[i]}`, t(lang, "partial-label", { g: GPUS[i] }))));
      const applied = (p) => nowrap(`${act}(${formatVector(p, "[]", lang)})`);
      const order = (right, key, ...body) => h("div", { class: `tpw-panel tpw-order ${right ? "is-right" : "is-wrong"}` },
        h("h4", {}, h("span", { class: "tpw-icon", "aria-hidden": "true" }, right ? "✓" : "✗"), " ", t(lang, `${key}-title`, { act })),
        h("p", { class: "tpw-note" }, t(lang, `${key}-note`)), line(body));
      fill(view.results,
        panel({}, partials,
          line(label("sum"), " = ", vec(r.sum, "sum", t(lang, "sum-label"))),
          line(label("full"), " = ", vec(r.full, "full", t(lang, "full-label")), " ",
            h("span", { class: `tpw-aside ${sumOk ? "is-equal" : "is-different"}` }, sumOk ? `✓ ${t(lang, "sum-matches")}` : `✗ ${t(lang, "sum-differs")}`))),
        h("div", { class: "tpw-orders" },
          order(true, "after", applied(r.sum), relation(r.after), vec(r.after, "after", t(lang, "after-label", { act }), r.differs)),
          order(false, "before", applied(r.partials[0]), " + ", applied(r.partials[1]), relation(r.partials.flat().map(f)),
            ...r.partials.flatMap((p, i) => [i ? " + " : null, nowrap(formatVector(p.map(f), "[]", lang))]), relation(r.before),
            vec(r.before, "before", t(lang, "before-label", { act }), r.differs))),
        h("p", { class: `tpw-verdict ${coords.length ? "is-different" : "is-equal"}`, "data-testid": "verdict", "data-agree": String(!coords.length) },
          h("span", { class: "tpw-icon", "aria-hidden": "true" }, coords.length ? "≠" : "="), " ",
          coords.length ? t(lang, "disagree", { count: coords.length, coords }) : t(lang, "agree")));
    },
  });
}

/** A formula fragment that must not break across lines. */
function nowrap(text) {
  return h("span", { class: "tpw-nowrap" }, text);
}
