// Widget "sp-dataflow": one sequence-parallel MLP block on n simulated GPUs, stage by stage:
// which rows each GPU holds after LayerNorm, the all-gather, its partial output, the
// reduce-scatter and the residual. Recomputed on every edit; "Try with my code" runs the
// learner's sp_mlp_block on the same numbers.

import "./sp-dataflow.css";
import { h, fill } from "widget-kit/dom.js";
import { formatExponent, translator } from "widget-kit/i18n.js";
import TEXT from "./sp-dataflow.text.json" with { type: "json" };
import { matrixInput, resizeTexts, showErrors } from "widget-kit/grid.js";
import { select } from "widget-kit/controls.js";
import { blocked, card, gpuBadge, matrixTable, panel } from "widget-kit/views.js";
import { live } from "widget-kit/live.js";
import { verdict } from "widget-kit/try-mine.js";
import { unsplitVerdict } from "widget-kit/unsplit.js";
import { chunkRows, closeTo, formatNumber, hasShape, indexRange } from "widget-kit/matrix.js";
import { spMlpBlock } from "../widget-lib/sp-math.js";

export const calls = ["sp_mlp_block"];

// The lesson's worked example: T = 4 tokens, D = 2, the A and B of the MLP lesson (F = 4).
const DEFAULT_X = [[0, 2], [1, 3], [3, 1], [2, 2]];
const A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const T_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8];
const N_CHOICES = [1, 2, 4]; // must divide F = 4: each GPU gets the same number of A's columns

const t = translator(TEXT);

/** A read-only matrix whose row r is coloured by `gpuOfRow(r)` (null: no colour). */
const matrixView = (M, gpuOfRow, testid, lang) =>
  matrixTable(M, lang, { cls: "spdf-matrix", testid, cellClass: (r) => (gpuOfRow(r) === null ? "" : `gpu-${gpuOfRow(r)}`) });

const matrixText = (M) => `[${M.map((row) => `[${row.map(formatNumber).join(", ")}]`).join(", ")}]`;

export function mount(el, ctx) {
  const state = { T: DEFAULT_X.length, n: 2, text: { X: DEFAULT_X.map((r) => r.map(String)), gamma: [["1", "1"]], beta: [["0", "0"]] } };
  let view = null;
  const ownerOf = (r) => (state.T % state.n === 0 ? Math.floor((r * state.n) / state.T) : null);
  const stage = (label, content, cls = "") => h("div", { class: `spdf-stage ${cls}` }, h("p", { class: "spdf-label" }, label), content);

  live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const size = (name, options) => select({ label: t(lang, `size-${name}`), options, value: state[name], attrs: { "data-size": name },
        onChange: (v) => {
          state[name] = v;
          if (name === "T") state.text.X = resizeTexts(state.text.X, v, 2, (r, c) => String(c ? (2 * r + 1) % 4 : r % 3));
          w.render(`select[data-size="${name}"]`);
        } });
      const grid = (name, label, more) => matrixInput({ name: label, key: name, testid: `errors-${name}`, caption: t(lang, `caption-${name}`), text: state.text, onInput: w.update, ...more });
      view = {
        grids: { X: grid("X", "X", { cellClass: (r) => (ownerOf(r) === null ? "" : `gpu-${ownerOf(r)}`) }), gamma: grid("gamma", "γ", { vector: true }), beta: grid("beta", "β", { vector: true }) },
        sizeErrors: h("div", { class: "tpw-errors", "data-testid": "size-errors" }),
        stages: h("div", { class: "spdf-stages" }),
      };
      return card({ lang, cls: "spdf", title: t(lang, "title"), intro: t(lang, "intro") },
        h("fieldset", { class: "tpw-sizes" }, size("T", T_CHOICES), size("n", N_CHOICES)), view.sizeErrors,
        h("div", { class: "tpw-inputs" }, Object.values(view.grids).map((g) => g.el)),
        h("p", { class: "tpw-hint" }, t(lang, "fixed-weights")), view.stages, w.tryBlock());
    },
    update({ lang }) {
      const read = Object.fromEntries(["X", "gamma", "beta"].map((name) => [name, view.grids[name].read(t, lang)]));
      const divides = state.T % state.n === 0;
      showErrors(view.sizeErrors, divides ? [] : [{ text: t(lang, "not-divisible", { T: state.T, n: state.n, list: T_CHOICES.filter((T) => T % state.n === 0).join(", ") }) }]);
      if (!Object.values(read).every(Boolean) || !divides) return void fill(view.stages, blocked(t(lang, "blocked")));
      const n = state.n, input = { X: read.X, gamma: read.gamma[0], beta: read.beta[0], n };
      const r = spMlpBlock(input.X, input.gamma, input.beta, A, B, n);
      const rows = state.T / n;
      const own = (i) => () => i;
      const cards = r.gpus.map((g, i) => h("article", { class: `spdf-gpu gpu-${i}`, "data-testid": `gpu-${i}` },
        h("h4", {}, gpuBadge(t(lang, "gpu", { i })), " ", t(lang, "owns", { rows: indexRange(i * rows, (i + 1) * rows) })),
        stage(t(lang, "stage-x"), matrixView(g.X, own(i), `x-${i}`, lang)),
        stage(t(lang, "stage-ln"), matrixView(g.Z_own, own(i), `ln-${i}`, lang)),
        stage(t(lang, "stage-ag"), matrixView(g.Z, ownerOf, `ag-${i}`, lang), "spdf-comm"),
        stage(t(lang, "stage-p"), matrixView(g.P, () => null, `p-${i}`, lang)),
        stage(t(lang, "stage-rs"), matrixView(g.chunk, own(i), `rs-${i}`, lang), "spdf-comm"),
        stage(t(lang, "stage-out"), matrixView(g.out, own(i), `out-${i}`, lang))));
      const sent = (n - 1) * rows * 2;
      const equal = r.maxDiff <= 1e-9;
      fill(view.stages, h("div", { class: "spdf-gpus" }, cards),
        unsplitVerdict(t, lang, equal, formatExponent(lang, r.maxDiff, 2)),
        panel({ cls: "spdf-commbox", testid: "comm", title: t(lang, "comm-title") },
          h("p", {}, n === 1 ? t(lang, "comm-one") : t(lang, "comm", { count: sent, sum: 2 * sent, TD: state.T * 2 }))));
      return { input, result: r };
    },
    calls: ({ input: { X, gamma, beta, n }, result }) => [[{ fn: "sp_mlp_block", args: [chunkRows(X, n), gamma, beta, result.gpus.map((g) => [g.A, g.B])] }],
      { reference: result.outputs, n, rows: X.length / n }],
    result({ lang }, L) {
      const got = L.outcome.results[0];
      const cmp = compareChunks(got, L.reference);
      const text = cmp.kind === "match" ? t(lang, "match")
        : cmp.kind === "shape" ? t(lang, "bad-result", { n: L.n, rows: L.rows, got: JSON.stringify(got) })
        : t(lang, "mismatch", { i: cmp.i, want: matrixText(L.reference[cmp.i]), got: matrixText(got[cmp.i]) });
      return verdict(cmp.kind === "match", text, cmp.kind);
    },
  });
}

/** {kind: "match"} | {kind: "shape"} | {kind: "values", i}: the learner's chunks against ours. */
export function compareChunks(got, want) {
  if (!Array.isArray(got) || got.length !== want.length || !got.every((M, i) => hasShape(M, [want[i].length, want[i][0].length]))) return { kind: "shape" };
  const i = want.findIndex((M, k) => M.some((row, r) => row.some((v, c) => !closeTo(got[k][r][c], v))));
  return i < 0 ? { kind: "match" } : { kind: "values", i };
}
