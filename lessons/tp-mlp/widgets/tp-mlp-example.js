// Widget "tp-mlp-example": the lesson's worked example, Y = GeLU(XA)B on N simulated GPUs,
// recomputed on every keystroke, with a button that runs the same numbers through the
// learner's own shard_mlp and tp_mlp.

import { h, fill, sub } from "widget-kit/dom.js";
import { formatExponent, translator } from "widget-kit/i18n.js";
import TEXT from "./tp-mlp-example.text.json" with { type: "json" };
import { matrixInput, resizeTexts, showErrors } from "widget-kit/grid.js";
import { select } from "widget-kit/controls.js";
import { blocked, card, dataTable, gpuCard, matrixFigure, panel, valueLine } from "widget-kit/views.js";
import { live } from "widget-kit/live.js";
import { verdict } from "widget-kit/try-mine.js";
import { unsplitVerdict } from "widget-kit/unsplit.js";
import { missedSumLine } from "widget-kit/missed-sum.js";
import { tpMlp, checkMlpShapes, divisors, formatVector, compareLearner, indexRange } from "widget-kit/matrix.js";

// The learner functions "Try with my code" runs (lessonkit check: declared in lesson.toml).
export const calls = ["shard_mlp", "tp_mlp"];

// The lesson's numbers (issue 2, §4): one token, D = 2, F = 4, N = 2.
const DEFAULT_X = [1, 2];
const DEFAULT_A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const DEFAULT_B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const DEFAULT_N = 2;
const [MAX_D, MAX_F] = [4, 8]; // small enough that every GPU card and both matrices fit on a phone

const t = translator(TEXT);

export function mount(el, ctx) {
  // text: what the learner typed, so a language switch or a resize keeps it verbatim.
  const state = { D: DEFAULT_X.length, F: DEFAULT_A[0].length, N: DEFAULT_N,
    text: { X: [DEFAULT_X.map(String)], A: DEFAULT_A.map((r) => r.map(String)), B: DEFAULT_B.map((r) => r.map(String)) } };
  let view = null;

  live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const nOptions = divisors(state.F);
      const size = (name, options) => select({ label: t(lang, `size-${name}`), options, value: state[name], attrs: { "data-size": name },
        onChange: (v) => { resize(name, v); w.render(`select[data-size="${name}"]`); } });
      // An N that no longer divides F stays chosen, marked, until the learner picks another.
      const nBad = nOptions.includes(state.N) ? [] : [{ value: state.N, text: t(lang, "n-bad-option", { N: state.N }) }];
      const grid = (name, more) => matrixInput({ name, caption: t(lang, `caption-${name}`), cls: `tpw-matrix-${name}`, text: state.text, onInput: w.update, ...more });
      // A's columns and B's rows in the colour of the GPU that owns them, labelled "GPU i"
      // (none while N does not divide F).
      const gpuOf = (k) => (state.F % state.N === 0 ? Math.floor((k * state.N) / state.F) : null);
      const gpuClass = (k) => (gpuOf(k) === null ? null : `gpu-${gpuOf(k)}`);
      const tag = (k) => h("span", { class: `tpw-gpu-tag ${gpuClass(k) ?? ""}`.trim() }, gpuOf(k) === null ? "" : t(lang, "gpu", { i: gpuOf(k) }));
      view = { grids: { X: grid("X", { vector: true }), A: grid("A", { colHead: tag, cellClass: (_, c) => gpuClass(c) }), B: grid("B", { rowHead: tag, cellClass: (r) => gpuClass(r) }) },
        sizeErrors: h("div", { class: "tpw-errors", "data-testid": "size-errors" }), results: h("div", { class: "tpw-results" }) };
      return card({ lang, cls: "tpw-example", title: t(lang, "title"), intro: t(lang, "intro") },
        h("fieldset", { class: "tpw-sizes" }, h("legend", {}, t(lang, "sizes")), size("D", seq(1, MAX_D)), size("F", seq(1, MAX_F)), size("N", [...nOptions, ...nBad])),
        view.sizeErrors, h("div", { class: "tpw-inputs" }, Object.values(view.grids).map((g) => g.el)), view.results, w.tryBlock());
    },
    update({ lang }) {
      const input = readInputs(lang);
      if (!input) return void fill(view.results, blocked(t(lang, "blocked")));
      const result = tpMlp(input.X, input.A, input.B, input.N);
      fill(view.results, resultsView(lang, result, input));
      return { input, result };
    },
    calls: ({ input: { X, A, B, N }, result }) => [[{ fn: "shard_mlp", args: [A, B, N], as: "shards" }, { fn: "tp_mlp", args: [X, { ref: "shards" }] }], { reference: result }],
    result({ lang }, L) {
      const ref = L.reference;
      const cmp = compareLearner(L.outcome.results, ref);
      const yours = cmp.verdict === "bad-shape"
        ? t(lang, "bad-shape", { got: cmp.got ? JSON.stringify(L.outcome.results[1]) : t(lang, "not-numbers"), count: ref.Y.length })
        : formatVector(cmp.got, "()", lang);
      const shardHint = cmp.shardProblem && hintFor(cmp.shardProblem, ref, lang);
      return [
        dataTable({ cls: "tpw-compare", rowHeads: false, head: [t(lang, "reference"), t(lang, "yours")], rows: [[
          { text: formatVector(ref.Y, "()", lang), "data-testid": "reference-Y", "aria-label": "Y (reference)" },
          { text: yours, "data-testid": "learner-Y", "aria-label": "Y (your code)" }]] }),
        verdict(cmp.verdict === "match", t(lang, cmp.verdict === "match" ? "match" : "mismatch"), cmp.verdict),
        shardHint ? h("p", { class: "tpw-hint" }, shardHint) : null,
        cmp.verdict === "mismatch" && missedSumLine(t, lang, cmp.got, ref.gpus.map((g) => g.Y_i)),
      ];
    },
  });

  function resize(name, value) {
    state[name] = value;
    const { D, F, text } = state;
    state.text = { X: resizeTexts(text.X, 1, D), A: resizeTexts(text.A, D, F), B: resizeTexts(text.B, F, D) };
  }

  /** Reads the inputs; returns {X, A, B, N} or null after showing every problem inline. */
  function readInputs(lang) {
    const read = Object.fromEntries(["X", "A", "B"].map((name) => [name, view.grids[name].read(t, lang)]));
    const X = read.X ? read.X[0] : new Array(state.D).fill(0);
    const problems = checkMlpShapes(X, read.A ?? state.text.A, read.B ?? state.text.B, state.N);
    showErrors(view.sizeErrors, problems.map((p) => ({
      text: p.code === "not-divisible" ? t(lang, "not-divisible", { F: p.F, N: p.N, list: divisors(p.F).join(", ") }) : t(lang, "shape-problem") })));
    if (!Object.values(read).every(Boolean) || problems.length) return null;
    return { X, A: read.A, B: read.B, N: state.N };
  }

  function resultsView(lang, r, input) {
    const N = input.N, gpuOf = (k) => Math.floor((k * N) / r.XA.length);
    const line = (aria, label, values, testid, colour) => valueLine(label, values, lang, { testid, ariaLabel: aria, gpuOf: colour });
    const unsplit = panel({ cls: "tpw-unsplit", title: t(lang, "unsplit-title") }, line("XA", "XA", r.XA, "XA", gpuOf),
      line("GeLU(XA)", "GeLU(XA)", r.H, "GeLU-XA", gpuOf), line(t(lang, "label-Y-unsplit"), "Y = GeLU(XA)B", r.Y, "Y-unsplit"));
    const cards = r.gpus.map((g, i) =>
      gpuCard({ i, label: t(lang, "gpu", { i }), note: t(lang, "owns", { cols: indexRange(...g.range), count: g.range[1] - g.range[0] }) },
        h("div", { class: "tpw-shard" }, matrixFigure(sub("A", i), g.A_i, lang), matrixFigure(sub("B", i), g.B_i, lang)),
        line(`GPU ${i} H_${i}`, [sub("H", i), " = GeLU(X", sub("A", i), ")"], g.H_i, `H-${i}`),
        line(t(lang, "label-partial", { i }), [sub("Y", i), " = ", sub("H", i), sub("B", i)], g.Y_i, `Y-${i}`)));
    const partialNames = r.gpus.flatMap((_, i) => [i ? " + " : "", ...sub("Y", i)]);
    const reduce = panel({ cls: "tpw-reduce", title: t(lang, "reduce-title") },
      line("Y (all-reduce)", [...partialNames, h("span", { class: "tpw-aside" }, ` (${t(lang, "reduce-sum", { count: N })})`)], r.allReduce, "Y-allreduce"),
      line(t(lang, "label-Y-compare"), ["GeLU(XA)B", h("span", { class: "tpw-aside" }, ` (${t(lang, "unsplit")})`)], r.Y, "Y-unsplit-compare"),
      unsplitVerdict(t, lang, r.equal, formatExponent(lang, r.maxDiff, 2)));
    return [unsplit, h("div", { class: "tpw-gpus-block" }, h("h4", {}, t(lang, "gpus-title", { count: N })), h("div", { class: "tpw-gpus" }, cards)), reduce];
  }

  function hintFor(problem, ref, lang) {
    if (problem.part === "count") return t(lang, "shard-count", { N: ref.gpus.length });
    if (problem.part === "pair") return t(lang, "shard-pair", { i: problem.gpu });
    return t(lang, `shard-${problem.part}`, { i: problem.gpu, cols: indexRange(...ref.gpus[problem.gpu].range) });
  }
}

const seq = (from, to) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
