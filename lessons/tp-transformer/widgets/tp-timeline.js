// Widget "tp-timeline": one transformer layer on n GPUs as a timeline, one lane per rank:
// local work as boxes in the rank's colour, every collective as a bar across all ranks, the
// forward then the backward, with or without sequence parallelism. The counts are read off the
// timeline itself and shown beside those PyTorch's test asserts for its whole model.

import "./tp-timeline.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import { numberField, readNumber, select, toggle } from "widget-kit/controls.js";
import { pytorchCounts } from "../widget-lib/tp-model.js";

export const calls = [];

const N_CHOICES = [1, 2, 4, 8];
const L_CHOICES = [1, 2, 3, 4];
const OPS = ["all_reduce", "all_gather", "reduce_scatter"];

export const MESSAGES = {
  en: {
    title: "One layer on n GPUs, collective by collective",
    intro: "Boxes are each GPU's own work; a bar across every lane is a collective, where all GPUs wait for each other. Switch sequence parallelism on and watch each all-reduce split in two.",
    n: "n (GPUs)", heads: "heads", layers: "layers L", sp: "sequence parallelism (sp)",
    "heads-bad": "heads must be a whole number from 1 to 64; “{text}” is not.",
    "heads-n": "{heads} heads cannot be split evenly over n = {n} GPUs: every GPU holds whole heads. Try {list}.",
    blocked: "Fix the input marked above to see the timeline.",
    gpu: "GPU {i}", forward: "Forward", backward: "Backward",
    ln1: "LayerNorm 1", ln2: "LayerNorm 2", "ln-all": "all T rows", "ln-rows": "rows chunk {i}",
    att: "attention: Q, K, V columns of its heads, then O·Wo rows → partial", "att-rank": "heads {heads}",
    res1: "+ X (the residual, once, after the sum)", res2: "+ Y (the residual)",
    "res-all": "all rows", "res-rows": "chunk {i}",
    mlp: "MLP: GeLU(H₂ A_i) B_i → partial", "mlp-rank": "A cols {cols}",
    "b-mlp": "dB_i, dA_i and its part of dH₂", "b-ln2": "LayerNorm 2 backward, + dZ",
    "b-att": "dWo_i, its heads' backward, its part of dH", "b-ln1": "LayerNorm 1 backward, + dY",
    "b-rank-local": "local",
    all_reduce: "all-reduce", all_gather: "all-gather", reduce_scatter: "reduce-scatter",
    "why-g": "g: sum the partials", "why-f-b": "f's backward: sum the parts of dH",
    "why-ag-f": "f: gather the normalised rows", "why-rs-g": "g: sum, keep own rows",
    "why-ag-dz": "g's backward: gather dZ", "why-ag-dy": "g's backward: gather dY",
    "why-ag-ln2": "gather LayerNorm 2's rows again (not kept whole)", "why-ag-ln1": "gather LayerNorm 1's rows again",
    "why-rs-f": "f's backward: sum, keep own rows", "why-ln-grads": "sum the 4 LayerNorm gradients, packed",
    counts: "Collectives counted", "count-ours": "this layer × L = {L}", "count-pt": {
      one: "PyTorch's test model ({count} layer + embeddings + output)",
      other: "PyTorch's test model ({count} layers + embeddings + output)",
    },
    "count-fwd": "forward", "count-bwd": "backward",
    "pt-note": "PyTorch's test_tp_examples.py asserts the L = 2 column: forward {fwd}, backward {bwd}.",
    "pt-why": "The extra ones: 2 embeddings (row-wise, vocabulary split), the output layer (column-wise), and in the TP backward separate wq, wk, wv (3 sums per layer where a fused QKV needs 1).",
  },
  pl: {
    title: "Jedna warstwa na n GPU, operacja zbiorowa po operacji",
    intro: "Prostokąty to własna praca każdego GPU; pasek przez wszystkie tory to operacja zbiorowa, na której wszystkie GPU czekają na siebie. Włącz równoległość sekwencyjną i zobacz, jak każdy all-reduce dzieli się na dwa.",
    n: "n (liczba GPU)", heads: "głowice", layers: "warstwy L", sp: "równoległość sekwencyjna (sp)",
    "heads-bad": "liczba głowic musi być liczbą całkowitą od 1 do 64; „{text}” nią nie jest.",
    "heads-n": "Liczby głowic ({heads}) nie da się równo podzielić na n = {n} GPU: każde GPU trzyma całe głowice. Spróbuj {list}.",
    blocked: "Popraw zaznaczone pole powyżej, aby zobaczyć oś czasu.",
    gpu: "GPU {i}", forward: "W przód", backward: "Wstecz",
    ln1: "LayerNorm 1", ln2: "LayerNorm 2", "ln-all": "wszystkie T wierszy", "ln-rows": "kawałek wierszy {i}",
    att: "uwaga: kolumny Q, K, V jego głowic, potem wiersze O·Wo → wynik częściowy", "att-rank": "głowice {heads}",
    res1: "+ X (residuum, raz, po sumie)", res2: "+ Y (residuum)",
    "res-all": "wszystkie wiersze", "res-rows": "kawałek {i}",
    mlp: "MLP: GeLU(H₂ A_i) B_i → wynik częściowy", "mlp-rank": "kolumny A {cols}",
    "b-mlp": "dB_i, dA_i i jego część dH₂", "b-ln2": "LayerNorm 2 wstecz, + dZ",
    "b-att": "dWo_i, jego głowice wstecz, jego część dH", "b-ln1": "LayerNorm 1 wstecz, + dY",
    "b-rank-local": "lokalnie",
    all_reduce: "all-reduce", all_gather: "all-gather", reduce_scatter: "reduce-scatter",
    "why-g": "g: suma wyników częściowych", "why-f-b": "f wstecz: suma części dH",
    "why-ag-f": "f: zebranie znormalizowanych wierszy", "why-rs-g": "g: suma, każdy zostawia swoje wiersze",
    "why-ag-dz": "g wstecz: zebranie dZ", "why-ag-dy": "g wstecz: zebranie dY",
    "why-ag-ln2": "ponowne zebranie wierszy LayerNorm 2 (nie trzymanych w całości)", "why-ag-ln1": "ponowne zebranie wierszy LayerNorm 1",
    "why-rs-f": "f wstecz: suma, każdy zostawia swoje wiersze", "why-ln-grads": "suma 4 gradientów LayerNorm, spakowanych",
    counts: "Policzone operacje zbiorowe", "count-ours": "ta warstwa × L = {L}", "count-pt": {
      one: "model z testu PyTorcha ({count} warstwa + embeddingi + wyjście)",
      few: "model z testu PyTorcha ({count} warstwy + embeddingi + wyjście)",
      many: "model z testu PyTorcha ({count} warstw + embeddingi + wyjście)",
    },
    "count-fwd": "w przód", "count-bwd": "wstecz",
    "pt-note": "test_tp_examples.py z PyTorcha sprawdza kolumnę L = 2: w przód {fwd}, wstecz {bwd}.",
    "pt-why": "Dodatkowe: 2 embeddingi (dzielone wierszami, podział słownika), warstwa wyjściowa (dzielona kolumnami), a wstecz w TP osobne wq, wk, wv (3 sumy na warstwę tam, gdzie połączone QKV potrzebuje 1).",
  },
};
const t = translator(MESSAGES);

const range = (a, b) => (a === b ? `${a}` : `${a}–${b}`);
const countText = (c) => "{" + OPS.filter((op) => c[op]).map((op) => `${op}: ${c[op]}`).join(", ") + "}";

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
  const state = { lang: ctx.lang ?? "en", n: 2, headsText: "4", L: 2, sp: false };
  let view = null;

  function render(focus) {
    const lang = state.lang;
    const choose = (key, label, options) => select({ label: t(lang, label), options, value: state[key], attrs: { "data-size": key },
      onChange: (v) => { state[key] = v; render(key); } });
    const heads = numberField({ label: t(lang, "heads"), name: "heads", text: state.headsText, attrs: { "data-testid": "heads", inputmode: "numeric" },
      onInput: (text) => { state.headsText = text; compute(); } });
    view = { heads, out: h("div", {}) };
    fill(el, h("section", { class: "tpw tptl", lang },
      h("h3", { class: "tpw-title" }, t(lang, "title")),
      h("p", { class: "tpw-intro" }, t(lang, "intro")),
      h("fieldset", { class: "tpw-sizes" }, choose("n", "n", N_CHOICES), heads.el, choose("L", "layers", L_CHOICES),
        toggle({ label: t(lang, "sp"), checked: state.sp, attrs: { "data-testid": "sp" }, onChange: (on) => { state.sp = on; compute(); } })),
      view.out));
    if (focus) el.querySelector(`select[data-size="${focus}"]`)?.focus();
    compute();
  }

  function readHeads() {
    const lang = state.lang;
    const heads = readNumber(state.headsText, { integer: true, min: 1, max: 64 });
    let error = "";
    if (heads === null) error = t(lang, "heads-bad", { text: state.headsText });
    else if (heads % state.n) {
      const ok = [1, 2, 3, 4, 5, 6].map((m) => m * state.n).join(", ");
      error = t(lang, "heads-n", { heads, n: state.n, list: ok });
    }
    view.heads.setError(error);
    return error ? null : heads;
  }

  function lanes(title, steps) {
    const lang = state.lang, n = state.n;
    const rows = steps.map((s) => {
      if (s.comm) {
        return h("div", { class: `tptl-comm tptl-${s.comm}`, "data-testid": "comm", "data-op": s.comm, style: `grid-column: 1 / span ${n}` },
          h("strong", {}, t(lang, s.comm)), " · ", t(lang, s.why));
      }
      return [h("div", { class: "tptl-step", style: `grid-column: 1 / span ${n}` }, t(lang, s.local)),
        Array.from({ length: n }, (_, i) => {
          const [key, vars] = s.rank(i);
          return h("div", { class: `tptl-box gpu-${i}`, "data-testid": "box" }, t(lang, key, vars));
        })];
    });
    return h("div", { class: "tptl-phase" }, h("h4", {}, title),
      h("div", { class: "tptl-lanes", style: `grid-template-columns: repeat(${n}, minmax(0, 1fr))` },
        Array.from({ length: n }, (_, i) => h("div", { class: `tptl-lane-head gpu-${i}` }, h("span", { class: "tpw-gpu-badge" }, t(lang, "gpu", { i })))),
        rows));
  }

  function compute() {
    const lang = state.lang;
    const heads = readHeads();
    if (heads === null) {
      fill(view.out, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      return;
    }
    const { forward, backward } = timeline(state.n, heads, state.sp);
    const L = state.L;
    const times = (c) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v * L]));
    const ours = { forward: times(countSteps(forward)), backward: times(countSteps(backward)) };
    const pt = pytorchCounts(L, state.sp), pt2 = pytorchCounts(2, state.sp);
    const column = (title, c, id) => h("div", { class: "tptl-count", "data-testid": id }, h("h5", {}, title),
      h("p", {}, h("span", { class: "tpw-label" }, t(lang, "count-fwd")), " ", h("code", {}, countText(c.forward))),
      h("p", {}, h("span", { class: "tpw-label" }, t(lang, "count-bwd")), " ", h("code", {}, countText(c.backward))));
    fill(view.out,
      h("div", { class: "tptl-phases" }, lanes(t(lang, "forward"), forward), lanes(t(lang, "backward"), backward)),
      h("div", { class: "tpw-panel tptl-counts", "data-testid": "counts" },
        h("h4", {}, t(lang, "counts")),
        h("div", { class: "tptl-columns" }, column(t(lang, "count-ours", { L }), ours, "ours"), column(t(lang, "count-pt", { count: L }), pt, "pytorch")),
        h("p", { class: "tpw-hint", "data-testid": "pt-note" }, t(lang, "pt-note", { fwd: countText(pt2.forward), bwd: countText(pt2.backward) })),
        h("p", { class: "tpw-hint" }, t(lang, "pt-why"))));
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
}
