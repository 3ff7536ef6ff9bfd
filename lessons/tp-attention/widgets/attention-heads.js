// Widget "attention-heads": multi-head self-attention split by heads over N simulated GPUs.
// Each head's attention pattern is a heat map in the colour of the GPU that owns it; each GPU's
// partial output, their sum (the all-reduce) and the unsplit output are recomputed on every
// edit. "Try with my code" runs the learner's shard_attention and tp_attention on the same
// numbers.

import { h, fill } from "widget-kit/dom.js";
import { formatExponent, translator } from "widget-kit/i18n.js";
import TEXT from "./attention-heads.text.json" with { type: "json" };
import { matrixInput } from "widget-kit/grid.js";
import { select, toggle } from "widget-kit/controls.js";
import { blocked, card, gpuCard, matrixFigure, panel } from "widget-kit/views.js";
import { live } from "widget-kit/live.js";
import { missedSumLine, sumTerms } from "widget-kit/missed-sum.js";
import { verdict } from "widget-kit/try-mine.js";
import { unsplitVerdict } from "widget-kit/unsplit.js";
import { decimalIn, divisors, formatNumber, indexRange } from "widget-kit/matrix.js";
import { tpAttention, seededWeights, compareLearnerAttention } from "../widget-lib/attention.js";
import "./attention-heads.css";

// The learner functions "Try with my code" runs (lessonkit check: declared in lesson.toml).
export const calls = ["shard_attention", "tp_attention"];

// A small sequence: T = 4 tokens of width D = 8, 4 heads of width 2, N = 2 GPUs.
const D = 8;
const DEFAULT_X = [
  [1, 0, 2, 0, 1, -1, 0, 1],
  [0, 1, 0, 2, -1, 1, 1, 0],
  [1, 1, -1, 0, 0, 2, -1, 1],
  [2, -1, 0, 1, 1, 0, 2, -1],
];
const DEFAULT_HEADS = 4;
const DEFAULT_N = 2;
const HEAD_OPTIONS = divisors(D); // 1, 2, 4, 8

const t = translator(TEXT);
/** A difference as the learner reads it: "2.7" or "0.004" when visible at 3 decimals, else "3.1e-12". */
const formatDiff = (d, lang) => (d >= 0.001 ? formatNumber(d, lang) : formatExponent(lang, d, 1));

export function mount(el, ctx) {
  const state = { nHeads: DEFAULT_HEADS, N: DEFAULT_N, causal: true, seed: 1, text: { X: DEFAULT_X.map((row) => row.map(String)) } }; // text: what the learner typed
  let view = null;

  live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const change = (name, value) => {
        if (name === "heads") {
          state.nHeads = value;
          if (value % state.N) state.N = Math.max(...divisors(value).filter((d) => d <= state.N));
        } else if (name === "N") state.N = value;
        else if (name === "causal") state.causal = value;
        else state.seed = value;
        w.render(`[data-setting="${name}"]`);
      };
      const choose = (name, label, options, value) => select({ label: t(lang, label), options, value, attrs: { "data-setting": name }, onChange: (v) => change(name, v) });
      const settings = h("fieldset", { class: "tpw-sizes attention-heads-settings" }, h("legend", {}, t(lang, "settings")),
        choose("heads", "heads", HEAD_OPTIONS, state.nHeads), choose("N", "gpus", divisors(state.nHeads), state.N),
        toggle({ label: t(lang, "causal"), checked: state.causal, attrs: { "data-setting": "causal" }, onChange: (on) => change("causal", on) }),
        h("button", { type: "button", class: "tpw-button attention-heads-reseed", "data-setting": "seed", onclick: () => change("seed", state.seed + 1) }, t(lang, "reseed")));
      const grid = matrixInput({ name: "X", caption: t(lang, "caption-X"), cls: "attention-heads-x", text: state.text, onInput: w.update });
      view = { grid, results: h("div", { class: "tpw-results attention-heads-results" }) };
      return card({ lang, cls: "attention-heads", title: t(lang, "title"), intro: t(lang, "intro") }, settings,
        h("p", { class: "attention-heads-note" }, t(lang, "weights", { seed: state.seed }), " ", t(lang, "head-width", { D, H: state.nHeads, d: D / state.nHeads })),
        grid.el, view.results, w.tryBlock());
    },
    update({ lang }) {
      // Scores multiply two entries of X by the weights: beyond 1e6 a product leaves the range
      // the heat maps and the T × D outputs can show (1e308 overflowed to NaN).
      const values = view.grid.read(t, lang, { limit: 1e6 });
      if (!values) return void fill(view.results, blocked(t(lang, "blocked")));
      const W = seededWeights(D, state.seed);
      const input = { X: values, W, nHeads: state.nHeads, N: state.N, causal: state.causal };
      const result = tpAttention(values, W, state.nHeads, state.N, state.causal);
      fill(view.results, resultsView(lang, result));
      return { input, result };
    },
    calls: ({ input: { X, W, nHeads, N, causal }, result }) => [[
      { fn: "shard_attention", args: [W.q, W.k, W.v, W.o, nHeads, N], as: "shards" },
      { fn: "tp_attention", args: [X, { ref: "shards" }, nHeads, causal] },
    ], { reference: result, N }],
    result({ lang }, L) {
      const cmp = compareLearnerAttention(L.outcome.results, L.reference, L.N);
      const ok = cmp.verdict === "match";
      const diff = cmp.got ? Math.max(...cmp.got.flat().map((v, k) => Math.abs(v - L.reference.unsplit.flat()[k]))) : null;
      return [
        verdict(ok, t(lang, cmp.verdict === "bad-shape" ? "bad-shape" : ok ? "match" : "mismatch"), cmp.verdict),
        cmp.got && !ok ? h("p", {}, t(lang, "largest-diff", { diff: formatDiff(diff, lang) })) : null,
        cmp.got ? matrixView(t(lang, "yours-title"), cmp.got, "learner-out", lang) : null,
        cmp.shardProblem ? h("p", { class: "tpw-hint", "data-testid": "shard-hint" }, shardHint(lang, cmp.shardProblem, L)) : null,
        // The all-reduce forgotten (one GPU's Y_i) or summing the wrong GPUs, named.
        cmp.verdict === "mismatch" && missedSumLine(t, lang, cmp.got.flat(), L.reference.gpus.map((g) => g.Y.flat())),
      ];
    },
  });

  function resultsView(lang, r) {
    const d = D / state.nHeads;
    const cards = r.gpus.map((g, i) => {
      const first = g.heads[0].index, last = g.heads[g.heads.length - 1].index;
      return gpuCard({ i, label: t(lang, "gpu", { i }), note: t(lang, "owns", { first, last, count: g.heads.length, cols: indexRange(...g.shard.range) }) },
        h("div", { class: "attention-heads-body" },
          h("div", { class: "attention-heads-maps" }, g.heads.map((hd) => heatMap(lang, hd, d, i))),
          matrixView(t(lang, "partial", { i }), g.Y, `partial-${i}`, lang))
      );
    });
    return [
      h("div", { class: "tpw-gpus attention-heads-gpus" }, cards),
      panel({ cls: "tpw-reduce", title: t(lang, "reduce-title") },
        h("div", { class: "attention-heads-compare" },
          matrixView(t(lang, "sum", { count: state.N, terms: sumTerms("Y", state.N) }), r.sum, "sum", lang),
          matrixView(t(lang, "unsplit"), r.unsplit, "unsplit", lang)),
        unsplitVerdict(t, lang, r.equal, formatDiff(r.maxDiff, lang))),
    ];
  }

  /** One head's T×T weights: each cell tinted by its weight in its GPU's colour. */
  function heatMap(lang, hd, d, gpu) {
    return h(
      "figure",
      { class: `attention-heads-map gpu-${gpu}`, "data-testid": `head-${hd.index}` },
      h("figcaption", {}, t(lang, "head", { h: hd.index })),
      h("table", { class: "attention-heads-heat", title: t(lang, "heat-caption", { d: formatNumber(d, lang) }) },
        h("tbody", {}, hd.P.map((row, q) => h("tr", {}, row.map((p, k) => {
          const hidden = state.causal && k > q;
          return h("td", {
            class: hidden ? "is-masked" : null,
            // The tint tops out at 75% of the GPU's colour: black digits then keep a contrast of
            // at least 4.5:1 on every GPU colour (white would need 95% on some, and between the
            // two neither reads).
            style: hidden ? null : `--weight: ${Math.round(p * 75)}%`,
            "aria-label": hidden ? t(lang, "masked") : `P[${q}][${k}] = ${formatNumber(p, lang)}`,
          }, hidden ? "·" : decimalIn(lang, p.toFixed(2).replace(/^0/, "")));
        })))))
    );
  }

  function shardHint(lang, problem, L) {
    if (problem.part === "count") return t(lang, "shard-count", { N: L.N });
    if (problem.part === "tuple") return t(lang, "shard-tuple", { i: problem.gpu });
    const cols = indexRange(...L.reference.gpus[problem.gpu].shard.range);
    const what = problem.part === "Wo" ? t(lang, "shard-rows", { cols }) : t(lang, "shard-columns", { cols, part: problem.part });
    return t(lang, "shard-part", { part: problem.part, i: problem.gpu, what });
  }

}

/** A read-only T×D matrix with a caption. */
const matrixView = (caption, M, testid, lang) => matrixFigure(caption, M, lang, { cls: "attention-heads-out", testid });
