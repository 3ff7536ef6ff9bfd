// Widget "tp-timeline": one transformer layer on n GPUs as a timeline, one lane per rank:
// local work as boxes in the rank's colour, every collective as a bar across all ranks, the
// forward then the backward, with or without sequence parallelism. The counts are read off the
// timeline itself and shown beside those PyTorch's test asserts for its whole model.

import "./tp-timeline.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import { blocked, card, gpuBadge, panel } from "widget-kit/views.js";
import { drawn } from "widget-kit/drawn.js";
import TEXT from "./tp-timeline.text.json" with { type: "json" };
import { numberField, readNumber, select, toggle } from "widget-kit/controls.js";
import { countText, pytorchCounts } from "../widget-lib/tp-model.js";

export const calls = [];

const N_CHOICES = [1, 2, 4, 8];
const L_CHOICES = [1, 2, 3, 4];
const OPS = ["all_reduce", "all_gather", "reduce_scatter"];

const t = translator(TEXT);

const range = (a, b) => (a === b ? `${a}` : `${a}–${b}`);

/** The layer's steps in order: {local: [title, rankText(i)]} or {comm: op, why}. */
export function timeline(n, heads, sp) {
  const k = heads / n;
  const ln = (key) => ({ local: key, rank: (i) => (sp ? ["ln-rows", { i }] : ["ln-all", {}]) });
  const res = (key) => ({ local: key, rank: (i) => (sp ? ["res-rows", { i }] : ["res-all", {}]) });
  const local = (key, rank) => ({ local: key, rank });
  const comm = (op, why) => ({ comm: op, why });
  const att = local("att", (i) => ["att-rank", { heads: range(i * k, (i + 1) * k - 1) }]);
  const mlp = local("mlp", (i) => ["mlp-rank", { cols: `${i + 1}/${n}` }]);
  const here = (key) => local(key, () => ["b-rank-local", {}]);
  const forward = sp
    ? [ln("ln1"), comm("all_gather", "why-ag-f"), att, comm("reduce_scatter", "why-rs-g"), res("res1"),
      ln("ln2"), comm("all_gather", "why-ag-f"), mlp, comm("reduce_scatter", "why-rs-g"), res("res2")]
    : [ln("ln1"), att, comm("all_reduce", "why-g"), res("res1"), ln("ln2"), mlp, comm("all_reduce", "why-g"), res("res2")];
  const backward = sp
    ? [comm("all_gather", "why-ag-dz"), comm("all_gather", "why-ag-ln2"), here("b-mlp"), comm("reduce_scatter", "why-rs-f"),
      here("b-ln2"), comm("all_gather", "why-ag-dy"), comm("all_gather", "why-ag-ln1"), here("b-att"),
      comm("reduce_scatter", "why-rs-f"), here("b-ln1"), comm("all_reduce", "why-ln-grads")]
    : [here("b-mlp"), comm("all_reduce", "why-f-b"), here("b-ln2"), here("b-att"), comm("all_reduce", "why-f-b"), here("b-ln1")];
  return { forward, backward };
}

export function countSteps(steps) {
  const c = {};
  for (const s of steps) if (s.comm) c[s.comm] = (c[s.comm] ?? 0) + 1;
  return c;
}

export function mount(el, ctx) {
  const state = { n: 2, headsText: "4", L: 2, sp: false };
  let view = null;

  drawn(el, ctx, {
    view(w) {
      const { lang } = w;
      const choose = (key, label, options) => select({ label: t(lang, label), options, value: state[key], attrs: { "data-size": key },
        onChange: (v) => { state[key] = v; w.render(`select[data-size="${key}"]`); } });
      const heads = numberField({ label: t(lang, "heads"), name: "heads", text: state.headsText, attrs: { "data-testid": "heads", inputmode: "numeric" },
        onInput: (text) => { state.headsText = text; w.update(); } });
      view = { heads, out: h("div", {}) };
      return card({ lang, cls: "tptl", title: t(lang, "title"), intro: t(lang, "intro") },
        h("fieldset", { class: "tpw-sizes" }, choose("n", "n", N_CHOICES), heads.el, choose("L", "layers", L_CHOICES),
          toggle({ label: t(lang, "sp"), checked: state.sp, attrs: { "data-testid": "sp" }, onChange: (on) => { state.sp = on; w.update(); } })),
        view.out);
    },
    update({ lang }) {
      const heads = readHeads(lang);
      if (heads === null) return void fill(view.out, blocked(t(lang, "blocked")));
      const { forward, backward } = timeline(state.n, heads, state.sp);
      const L = state.L;
      const times = (c) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v * L]));
      const ours = { forward: times(countSteps(forward)), backward: times(countSteps(backward)) };
      const pt = pytorchCounts(L, state.sp), pt2 = pytorchCounts(2, state.sp);
      const line = (label, c) => h("p", {}, h("span", { class: "tpw-label" }, t(lang, label)), " ", h("code", {}, countText(c, OPS)));
      const column = (title, c, id) => h("div", { class: "tptl-count", "data-testid": id }, h("h5", {}, title), line("count-fwd", c.forward), line("count-bwd", c.backward));
      fill(view.out,
        h("div", { class: "tptl-phases" }, lanes(lang, t(lang, "forward"), forward), lanes(lang, t(lang, "backward"), backward)),
        panel({ cls: "tptl-counts", testid: "counts", title: t(lang, "counts") },
          h("div", { class: "tptl-columns" }, column(t(lang, "count-ours", { L }), ours, "ours"), column(t(lang, "count-pt", { count: L }), pt, "pytorch")),
          h("p", { class: "tpw-hint", "data-testid": "pt-note" }, t(lang, "pt-note", { fwd: countText(pt2.forward, OPS), bwd: countText(pt2.backward, OPS) })),
          h("p", { class: "tpw-hint" }, t(lang, "pt-why"))));
    },
  });

  function readHeads(lang) {
    const heads = readNumber(state.headsText, { integer: true, min: 1, max: 64 });
    const error = heads === null ? t(lang, "heads-bad", { text: state.headsText })
      : heads % state.n ? t(lang, "heads-n", { heads, n: state.n, list: [1, 2, 3, 4, 5, 6].map((m) => m * state.n).join(", ") }) : "";
    view.heads.setError(error);
    return error ? null : heads;
  }

  function lanes(lang, title, steps) {
    const n = state.n;
    const rows = steps.map((s) => (s.comm
      ? h("div", { class: `tptl-comm tptl-${s.comm}`, "data-testid": "comm", "data-op": s.comm, style: `grid-column: 1 / span ${n}` },
        h("strong", {}, t(lang, s.comm)), " · ", t(lang, s.why))
      : [h("div", { class: "tptl-step", style: `grid-column: 1 / span ${n}` }, t(lang, s.local)),
        Array.from({ length: n }, (_, i) => h("div", { class: `tptl-box gpu-${i}`, "data-testid": "box" }, t(lang, ...s.rank(i))))]));
    return h("div", { class: "tptl-phase" }, h("h4", {}, title),
      h("div", { class: "tptl-lanes", style: `grid-template-columns: repeat(${n}, minmax(0, 1fr))` },
        Array.from({ length: n }, (_, i) => h("div", { class: `tptl-lane-head gpu-${i}` }, gpuBadge(t(lang, "gpu", { i })))),
        rows));
  }
}
