// Widget "tp-training": a tiny two-block transformer trained with SGD on one device, with
// tensor parallelism on n GPUs, and with TP + sequence parallelism, all in JavaScript on every
// edit; the three loss curves on one plot. "Try with my code" runs the learner's train_tp on
// the same model and draws its curves on the same axes.

import "./tp-training.css";
import { h, fill } from "widget-kit/dom.js";
import { formatExponent as expo, formatFixed, translator } from "widget-kit/i18n.js";
import { blocked, card } from "widget-kit/views.js";
import TEXT from "./tp-training.text.json" with { type: "json" };
import { fieldGroup, select } from "widget-kit/controls.js";
import { closeTo, hasShape, maxAbsDiff as maxDiff } from "widget-kit/matrix.js";
import { live } from "widget-kit/live.js";
import { heightFor, legend, plot, redrawOnResize, widthOf } from "widget-kit/plot.js";
import { verdict } from "widget-kit/try-mine.js";
import { countText, randomProblem, train } from "../widget-lib/tp-model.js";

export const calls = ["train_tp"];

const SIZES = { L: 2, T: 8, D: 8, F: 16 };
const HEADS = 4;

const t = translator(TEXT);

const fmt = (lang, v, digits = 4) => formatFixed(lang, v, digits);
// The fields: what each accepts (readNumber's limits); the message for anything else is "bad-<name>".
const FIELDS = { steps: { integer: true, min: 1, max: 40 }, lr: { above: 0, max: 5 }, seed: { integer: true, min: 0, max: 99999 } };

export function mount(el, ctx) {
  const state = { n: 2, text: { steps: "12", lr: "0.5", seed: "3" } };
  let view = null;

  const w = live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const fields = fieldGroup(Object.entries(FIELDS).map(([name, limits]) => ({ name, label: t(lang, name), limits, attrs: { "data-testid": name },
        error: (text) => t(lang, `bad-${name}`, { text }) })), { text: state.text, lang, onInput: w.update });
      view = { fields, out: h("div", {}) };
      return card({ lang, cls: "tptr", title: t(lang, "title"), intro: t(lang, "intro") },
        h("fieldset", { class: "tpw-sizes" },
          select({ label: t(lang, "n"), options: [1, 2, 4], value: state.n, attrs: { "data-size": "n" }, onChange: (n) => { state.n = n; w.render('select[data-size="n"]'); } }),
          fields.els),
        view.out, w.tryBlock());
    },
    update(w) {
      const { lang } = w;
      const read = view.fields.read();
      if (!read) return void fill(view.out, blocked(t(lang, "blocked")));
      const input = { n: state.n, ...read };
      const { blocks, X, target } = randomProblem(input.seed, SIZES);
      const [one, tp, sp] = [[1, false], [input.n, false], [input.n, true]].map(([n, seq]) => train(blocks, X, target, n, HEADS, input.steps, input.lr, seq));
      const points = (values) => values.map((y, i) => ({ x: i + 1, y }));
      const series = [
        { id: "one", name: t(lang, "one"), points: points(one.losses), cls: "tptr-one", marker: null },
        { id: "tp", name: t(lang, "tp", { n: input.n }), points: points(tp.losses), cls: "gpu-0", marker: "circle", r: 4.5, line: false },
        { id: "sp", name: t(lang, "sp", { n: input.n }), points: points(sp.losses), cls: "gpu-1", marker: "cross", line: false },
      ];
      const [a, b] = w.mine.resultsFor(JSON.stringify(input)) ?? [];
      if (hasShape(a, [input.steps])) series.push({ id: "mine", name: t(lang, "mine"), points: points(a), cls: "gpu-2", marker: "square" });
      if (hasShape(b, [input.steps])) series.push({ id: "mine-sp", name: t(lang, "mine-sp"), points: points(b), cls: "gpu-3", marker: "square" });
      view.series = series;
      view.steps = input.steps;
      fill(view.out,
        h("div", { class: "tptr-figure" }, h("div", { class: "tptr-plot" }), legend(series)),
        h("p", { class: "tpw-line", "data-testid": "losses" }, `${t(lang, "one")}: ${one.losses.slice(0, 5).map((v) => fmt(lang, v)).join("; ")}${one.losses.length > 5 ? "; …" : ""}`),
        verdict(true, t(lang, "diff", { tp: expo(lang, maxDiff(tp.losses, one.losses)), sp: expo(lang, maxDiff(sp.losses, one.losses)) }), null, "diff"),
        h("p", { class: "tpw-hint", "data-testid": "run-counts" }, t(lang, "counts", { tp: countText(tp.counts), sp: countText(sp.counts) })));
      draw(lang);
      return { input, blocks, X, target, one: one.losses };
    },
    calls: (c) => {
      const args = (sp) => [c.blocks.map((b) => ({ dict: b })), c.X, c.target, c.input.n, HEADS, c.input.steps, c.input.lr, sp];
      return [[{ fn: "train_tp", args: args(false) }, { fn: "train_tp", args: args(true) }], { one: c.one, steps: c.input.steps }];
    },
    result({ lang }, L) {
      for (const got of L.outcome.results) {
        if (!hasShape(got, [L.steps])) return verdict(false, t(lang, "bad-result", { count: L.steps, got: JSON.stringify(got).slice(0, 200) }), "shape");
        const step = got.findIndex((v, i) => !closeTo(v, L.one[i]));
        if (step >= 0) return verdict(false, t(lang, "mismatch", { step: step + 1, want: fmt(lang, L.one[step], 6), got: fmt(lang, got[step], 6) }), "values");
      }
      return verdict(true, t(lang, "match", { diff: expo(lang, Math.max(...L.outcome.results.map((r) => maxDiff(r, L.one)))) }), "match");
    },
  });

  function draw(lang) {
    const box = view.out.querySelector(".tptr-plot");
    const all = view.series.flatMap((s) => s.points.map((p) => p.y));
    const [lo, hi] = [Math.min(0, ...all), Math.max(...all) * 1.05];
    const width = widthOf(box), steps = view.steps;
    fill(box, plot({ width, height: heightFor(width, 220), testid: "plot",
      title: t(lang, "title"), xLabel: t(lang, "axis"), yLabel: t(lang, "loss"), series: view.series,
      x: { ticks: steps === 1 ? [1] : [1, steps] }, y: { min: lo, max: hi, ticks: [lo, (lo + hi) / 2, hi], format: (v) => fmt(lang, v, 2) } }));
  }
  redrawOnResize(el, () => w.current && draw(w.lang));
}
