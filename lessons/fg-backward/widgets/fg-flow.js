// Widget "fg-flow": the worked example forward and backward on N simulated GPUs, live, with f and
// g drawn where they act and a switch for what the backward all-reduce does; "Try with my code"
// runs the learner's tp_mlp_backward on the same numbers.

import "./fg-flow.css";
import { h, fill, sub } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import TEXT from "./fg-flow.text.json" with { type: "json" };
import { matrixInput } from "widget-kit/grid.js";
import { radios, select } from "widget-kit/controls.js";
import { blocked, card, dataTable, gpuBadge, gpuCard, matrixFigure, panel, valueLine } from "widget-kit/views.js";
import { live } from "widget-kit/live.js";
import { missedSumLine } from "widget-kit/missed-sum.js";
import { verdict } from "widget-kit/try-mine.js";
import { formatNumber, formatVector, hasShape, indexRange, shardRange } from "widget-kit/matrix.js";
import { fgFlow, maxMatrixDiff, MODES } from "../widget-lib/fg-math.js";

export const calls = ["tp_mlp_backward"];

// The lesson's worked example (tp-mlp's A and B), one token X = (1, 2), dY = (1, 1).
const A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const F = A[0].length;
const GPU_COUNTS = [1, 2, 4];

const t = translator(TEXT);

export function mount(el, ctx) {
  const state = { N: 2, mode: "sum", text: { X: [["1", "2"]], dY: [["1", "1"]] } }; // what the learner typed, kept verbatim
  let view = null;

  live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const grid = (name) => matrixInput({ name, caption: t(lang, `caption-${name}`), vector: true, text: state.text, onInput: w.update });
      view = { grids: { X: grid("X"), dY: grid("dY") }, results: h("div", { class: "fg-flow-results" }) };
      return card({ lang, cls: "fg-flow", title: t(lang, "title"), intro: t(lang, "intro") },
        h("div", { class: "tpw-inputs" }, view.grids.X.el, view.grids.dY.el,
          select({ label: t(lang, "size-N"), options: GPU_COUNTS, value: state.N, attrs: { "data-size": "N" }, onChange: (n) => { state.N = n; w.render('select[data-size="N"]'); } })),
        radios({ legend: t(lang, "mode-legend"), options: MODES.map((m) => ({ value: m, text: t(lang, `mode-${m}`) })), value: state.mode, cls: "fg-flow-modes",
          onChange: (m) => { state.mode = m; w.update(); } }),
        view.results, w.tryBlock());
    },
    update(w) {
      const [X, dY] = ["X", "dY"].map((name) => view.grids[name].read(t, w.lang)?.[0]);
      if (!X || !dY) return void fill(view.results, blocked(t(w.lang, "blocked")));
      const input = { X, dY, N: state.N };
      const result = fgFlow(X, dY, A, B, state.N, state.mode);
      fill(view.results, flowView(w.lang, result, input));
      return { input, result };
    },
    calls: ({ input: { X, dY, N }, result }) => [[{ fn: "tp_mlp_backward", args: [X, result.gpus.map((g) => [g.A_i, g.B_i]), dY] }],
      { truth: result.truth, N, shares: result.gpus.map((g) => g.dX) }],
    result({ lang }, L) {
      const v = judge(L.outcome.results[0], L.truth, L.N);
      const text = v.kind === "match" ? t(lang, "learner-match")
        : v.kind === "dx" ? t(lang, "learner-dx")
        : v.kind === "grads" ? t(lang, "learner-grads", { i: v.gpu })
        : t(lang, "learner-shape", { D: L.truth.dX.length, N: L.N });
      return [
        dataTable({ cls: "tpw-compare", head: [null, t(lang, "reference"), t(lang, "yours")], rows: [["dX",
          { text: formatVector(L.truth.dX, "()", lang), "data-testid": "reference-dX" }, { text: v.dX ? formatVector(v.dX, "()", lang) : "—", "data-testid": "learner-dX" }]] }),
        verdict(v.kind === "match", text, v.kind),
        // A dX that is one GPU's dX_i, or a sum of the wrong ones: f's all-reduce, named.
        v.kind === "dx" && missedSumLine(t, lang, v.dX, L.shares, { total: "dX" }),
      ];
    },
  });

  function flowView(lang, r, { X, dY, N }) {
    const gpu = (g, i, body) => gpuCard({ i, label: t(lang, "gpu", { i }),
      note: t(lang, "owns", { cols: indexRange(...g.range), count: g.range[1] - g.range[0] }) }, body);
    const line = (aria, label, values, testid) => valueLine(label, values, lang, { testid, ariaLabel: aria });
    const matrixView = (label, M, testid) => matrixFigure(label, M, lang, { testid });
    const forwardCards = r.gpus.map((g, i) =>
      gpu(g, i, [
        h("div", { class: "tpw-shard" }, matrixView(sub("A", i), g.A_i), matrixView(sub("B", i), g.B_i)),
        line(`Z_${i}`, [sub("Z", i), " = X", sub("A", i)], g.Z, `Z-${i}`),
        line(`H_${i}`, [sub("H", i), " = GeLU(", sub("Z", i), ")"], g.H, `H-${i}`),
        line(`Y_${i}`, [sub("Y", i), " = ", sub("H", i), sub("B", i)], g.Y, `Y-${i}`),
      ])
    );
    const backwardCards = r.gpus.map((g, i) =>
      gpu(g, i, [
        line(`dZ_${i}`, ["d", sub("Z", i), " = dY", sub("B", i), "ᵀ ⊙ GeLU′(", sub("Z", i), ")"], g.dZ, `dZ-${i}`),
        line(`dX_${i}`, ["d", sub("X", i), " = d", sub("Z", i), " ", sub("A", i), "ᵀ"], g.dX, `dX-${i}`),
        h("div", { class: "tpw-shard" },
          matrixView(["d", ...sub("A", i), " = outer(X, d", ...sub("Z", i), ")"], g.dA, `dA-${i}`),
          matrixView(["d", ...sub("B", i), " = outer(", ...sub("H", i), ", dY)"], g.dB, `dB-${i}`)),
      ])
    );
    const names = (base) => r.gpus.flatMap((_, i) => [i ? " + " : "", ...sub(base, i)]);
    const fBackward = {
      sum: ["dX = ", ...names("dX")],
      average: ["dX = (", ...names("dX"), `) / ${N}`],
      none: ["dX = ", ...sub("dX", 0)],
      weights: ["dX = ", ...names("dX")],
    }[state.mode];
    const kept = r.kept.map((k, i) => h("div", { class: `fg-flow-kept gpu-${i} ${r.keptOk[i] ? "is-equal" : "is-different"}`, "data-testid": `kept-${i}`, "data-ok": String(r.keptOk[i]) },
      gpuBadge(t(lang, "gpu", { i })), h("span", { class: "tpw-icon", "aria-hidden": "true" }, r.keptOk[i] ? "✓" : "✗"),
      matrixView(["d", ...sub("A", i)], k.dA), matrixView(["d", ...sub("B", i)], k.dB)));
    return [
      h("h4", { class: "fg-flow-phase" }, t(lang, "forward")),
      operator("f", t(lang, "f-forward"), line("X", "X", X, "f-X")),
      h("div", { class: "tpw-gpus" }, forwardCards),
      operator("g", t(lang, "g-forward"), [line("Y", ["Y = ", ...names("Y")], r.Y, "Y"), verdict(r.yOk, t(lang, "y-ok"), null, "y-verdict")]),
      h("h4", { class: "fg-flow-phase" }, t(lang, "backward")),
      operator("g", t(lang, "g-backward"), line("dY", "dY", dY, "g-dY")),
      h("div", { class: "tpw-gpus" }, backwardCards),
      operator("f", t(lang, `f-backward-${state.mode}`), [
        line("dX", fBackward, r.dX, "dX"),
        verdict(r.dXOk, r.dXOk ? t(lang, "dx-ok") : t(lang, "dx-bad", { want: formatVector(r.truth.dX, "()", lang), diff: formatNumber(r.dXDiff, lang) }), null, "dx-verdict"),
      ], state.mode !== "sum" && state.mode !== "weights" && N > 1),
      panel({ cls: "fg-flow-kept-panel", title: t(lang, "kept-title") }, h("div", { class: "fg-flow-kept-list" }, kept),
        verdict(r.keptOk.every(Boolean), r.keptOk.every(Boolean) ? t(lang, "grads-ok") : t(lang, "grads-bad"), null, "grads-verdict")),
    ];
  }
}

/** The learner's (dX, grads) against the unsplit truth: {kind: match | dx | grads | shape, dX, gpu}. */
export function judge(result, truth, N) {
  // run_calls sends NaN and infinities as the strings "nan", "inf", "-inf": numbers, just wrong ones.
  const SPECIAL = { nan: NaN, inf: Infinity, "-inf": -Infinity };
  const numbers = (v) => (Array.isArray(v) ? v.map(numbers) : typeof v === "string" && v in SPECIAL ? SPECIAL[v] : v);
  const D = truth.dX.length;
  const [dX, grads] = Array.isArray(result) ? numbers(result) : [];
  const w = F / N;
  const scale = Math.max(1, ...truth.dX.map(Math.abs), ...truth.dA.flat().map(Math.abs), ...truth.dB.flat().map(Math.abs));
  const close = (d) => d <= 1e-6 * scale; // float32 arithmetic in the learner's code passes
  const shapesOk = hasShape(dX, [D]) && Array.isArray(grads) && grads.length === N
    && grads.every((p) => Array.isArray(p) && p.length === 2 && hasShape(p[0], [D, w]) && hasShape(p[1], [w, D]));
  if (!shapesOk) return { kind: "shape", dX: hasShape(dX, [D]) ? dX : null };
  if (!close(Math.max(...dX.map((v, k) => Math.abs(v - truth.dX[k]))))) return { kind: "dx", dX };
  for (let i = 0; i < N; i++) {
    const [s, e] = shardRange(F, N, i);
    const okA = close(maxMatrixDiff(grads[i][0], truth.dA.map((row) => row.slice(s, e))));
    const okB = close(maxMatrixDiff(grads[i][1], truth.dB.slice(s, e)));
    if (!okA || !okB) return { kind: "grads", dX, gpu: i };
  }
  return { kind: "match", dX };
}

/** A bar showing where f or g acts, what it does there, and its result. */
function operator(name, what, body, wrong = false) {
  return h("div", { class: `fg-flow-op fg-flow-op-${name}${wrong ? " is-wrong" : ""}`, "data-testid": `op-${name}` },
    h("p", { class: "fg-flow-op-head" }, h("span", { class: "fg-flow-op-name" }, name), " ", what), body);
}
