// Widget "tp-training": a tiny two-block transformer trained with SGD on one device, with
// tensor parallelism on n GPUs, and with TP + sequence parallelism, all in JavaScript on every
// edit; the three loss curves on one plot. "Try with my code" runs the learner's train_tp on
// the same model and draws its curves on the same axes.

import "./tp-training.css";
import { h, fill } from "widget-kit/dom.js";
import { formatFixed, translator } from "widget-kit/i18n.js";
import { card } from "widget-kit/views.js";
import TEXT from "./tp-training.text.json" with { type: "json" };
import { numberField, readNumber, select } from "widget-kit/controls.js";
import { legend, plot, redrawOnResize, widthOf } from "widget-kit/plot.js";
import { tryMine, verdict } from "widget-kit/try-mine.js";
import { randomProblem, train } from "../widget-lib/tp-model.js";

export const calls = ["train_tp"];

const SIZES = { L: 2, T: 8, D: 8, F: 16 };
const HEADS = 4;
const N_CHOICES = [1, 2, 4];

const t = translator(TEXT);

const fmt = (lang, v, digits = 4) => formatFixed(lang, v, digits);
const expo = (lang, v) => {
  const s = v === 0 ? "0" : v.toExponential(1);
  return lang === "pl" ? s.replace(".", ",") : s;
};
const countText = (c) => "{" + Object.entries(c).map(([k, v]) => `${k}: ${v}`).join(", ") + "}";
const maxDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
// The fields: what each accepts (readNumber's limits) and the message for anything else.
const FIELDS = {
  steps: { integer: true, min: 1, max: 40 },
  lr: { above: 0, max: 5 },
  seed: { integer: true, min: 0, max: 99999 },
};

export function mount(el, ctx) {
  const state = { lang: ctx.lang ?? "en", n: 2, text: { steps: "12", lr: "0.5", seed: "3" } };
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  let view = null;

  function render(focus) {
    const lang = state.lang;
    const fields = Object.fromEntries(Object.keys(FIELDS).map((key) => [key, numberField({ label: t(lang, key), name: key,
      text: state.text[key], lang, attrs: { "data-testid": key }, onInput: (text) => { state.text[key] = text; compute(); } })]));
    view = { fields, out: h("div", {}) };
    fill(el, card({ lang, cls: "tptr", title: t(lang, "title"), intro: t(lang, "intro") },
      h("fieldset", { class: "tpw-sizes" },
        select({ label: t(lang, "n"), options: N_CHOICES, value: state.n, attrs: { "data-size": "n" },
          onChange: (n) => { state.n = n; render("n"); } }),
        Object.values(fields).map((f) => f.el)),
      view.out, mine.block(lang, tryLearner)));
    if (focus) el.querySelector(`select[data-size="${focus}"]`)?.focus();
    compute();
  }

  function read() {
    const values = { n: state.n };
    for (const [key, limits] of Object.entries(FIELDS)) {
      values[key] = readNumber(state.text[key], limits);
      view.fields[key].setError(values[key] === null ? t(state.lang, `bad-${key}`, { text: state.text[key] }) : "");
    }
    return Object.values(values).includes(null) ? null : values;
  }

  function compute() {
    const lang = state.lang;
    const input = read();
    if (!input) {
      fill(view.out, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      view.current = null;
      renderLearner();
      return;
    }
    const { blocks, X, target } = randomProblem(input.seed, SIZES);
    const one = train(blocks, X, target, 1, HEADS, input.steps, input.lr, false);
    const tp = train(blocks, X, target, input.n, HEADS, input.steps, input.lr, false);
    const sp = train(blocks, X, target, input.n, HEADS, input.steps, input.lr, true);
    view.current = { input, key: JSON.stringify(input), blocks, X, target, one: one.losses };
    const points = (values) => values.map((y, i) => ({ x: i + 1, y }));
    const series = [
      { id: "one", name: t(lang, "one"), points: points(one.losses), cls: "tptr-one", marker: null },
      { id: "tp", name: t(lang, "tp", { n: input.n }), points: points(tp.losses), cls: "gpu-0", marker: "circle", r: 4.5, line: false },
      { id: "sp", name: t(lang, "sp", { n: input.n }), points: points(sp.losses), cls: "gpu-1", marker: "cross", line: false },
    ];
    const last = mine.last;
    if (last?.status === "done" && last.key === view.current.key && last.outcome.ok) {
      const [a, b] = last.outcome.results;
      if (isLosses(a, input.steps)) series.push({ id: "mine", name: t(lang, "mine"), points: points(a), cls: "gpu-2", marker: "square" });
      if (isLosses(b, input.steps)) series.push({ id: "mine-sp", name: t(lang, "mine-sp"), points: points(b), cls: "gpu-3", marker: "square" });
    }
    view.series = series;
    fill(view.out,
      h("div", { class: "tptr-figure" }, h("div", { class: "tptr-plot" }), legend(series)),
      h("p", { class: "tpw-line", "data-testid": "losses" }, `${t(lang, "one")}: ${one.losses.slice(0, 5).map((v) => fmt(lang, v)).join("; ")}${one.losses.length > 5 ? "; …" : ""}`),
      h("p", { class: "tpw-verdict is-equal", "data-testid": "diff" }, h("span", { class: "tpw-icon", "aria-hidden": "true" }, "✓"), " ",
        t(lang, "diff", { tp: expo(lang, maxDiff(tp.losses, one.losses)), sp: expo(lang, maxDiff(sp.losses, one.losses)) })),
      h("p", { class: "tpw-hint", "data-testid": "run-counts" }, t(lang, "counts", { tp: countText(tp.counts), sp: countText(sp.counts) })));
    draw();
    renderLearner();
  }

  function draw() {
    const lang = state.lang, box = view.out.querySelector(".tptr-plot");
    const all = view.series.flatMap((s) => s.points.map((p) => p.y));
    const [lo, hi] = [Math.min(0, ...all), Math.max(...all) * 1.05];
    const width = widthOf(box), steps = view.current.input.steps;
    fill(box, plot({ width, height: Math.round(Math.min(280, Math.max(220, width * 0.5))), testid: "plot",
      title: t(lang, "title"), xLabel: t(lang, "axis"), yLabel: t(lang, "loss"), series: view.series,
      x: { ticks: steps === 1 ? [1] : [1, steps] }, y: { min: lo, max: hi, ticks: [lo, (lo + hi) / 2, hi], format: (v) => fmt(lang, v, 2) } }));
  }

  function isLosses(v, steps) {
    return Array.isArray(v) && v.length === steps && v.every((x) => typeof x === "number");
  }

  function tryLearner() {
    const c = view.current;
    if (!c) return;
    const { n, steps, lr } = c.input;
    const blocks = c.blocks.map((b) => ({ dict: b }));
    const args = (sp) => [blocks, c.X, c.target, n, HEADS, steps, lr, sp];
    mine.start(c.key, [{ fn: "train_tp", args: args(false) }, { fn: "train_tp", args: args(true) }], { one: c.one, steps });
  }

  function renderLearner() {
    mine.show(state.lang, view.current?.key ?? null, (L) => {
      const lang = state.lang;
      for (const got of L.outcome.results) {
        if (!isLosses(got, L.steps)) return verdict(false, t(lang, "bad-result", { count: L.steps, got: JSON.stringify(got).slice(0, 200) }), "shape");
        const step = got.findIndex((v, i) => !(Math.abs(v - L.one[i]) <= 1e-6 * Math.max(1, Math.abs(L.one[i]))));
        if (step >= 0) return verdict(false, t(lang, "mismatch", { step: step + 1, want: fmt(lang, L.one[step], 6), got: fmt(lang, got[step], 6) }), "values");
      }
      const diff = Math.max(...L.outcome.results.map((r) => maxDiff(r, L.one)));
      return verdict(true, t(lang, "match", { diff: expo(lang, diff) }), "match");
    });
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
  redrawOnResize(el, () => view.current && draw());
}
