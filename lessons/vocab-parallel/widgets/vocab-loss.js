// Widget "vocab-loss": the vocabulary-parallel cross-entropy of two tokens over V = 8 ids on
// 2 or 4 GPUs, stepped through its three all-reduces (max, sum of exponentials, target logit),
// with the wrong "local max only" variant one switch away and the learner's own
// vp_cross_entropy on the same numbers.

import "./vocab-loss.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import TEXT from "./vocab-loss.text.json" with { type: "json" };
import { inputGrid, readGrid, showErrors, entryErrorText } from "widget-kit/grid.js";
import { select, stepper, toggle } from "widget-kit/controls.js";
import { blocked, card, dataTable, gpuBadge, labelled } from "widget-kit/views.js";
import { live } from "widget-kit/live.js";
import { verdict } from "widget-kit/try-mine.js";
import { unsplitVerdict } from "widget-kit/unsplit.js";
import { allClose, closeTo, formatNumber, formatVector, maxAbsDiff } from "widget-kit/matrix.js";
import { vocabParallelLoss, ownerOf, parseTarget } from "../widget-lib/vocab-loss-math.js";

export const calls = ["vp_cross_entropy"];

// The lesson's worked example (lesson.md, "Worked example").
const V = 8;
const GPU_COUNTS = [2, 4];
const LAST_STEP = 4;

const t = translator(TEXT);

export function mount(el, ctx) {
  // Steps 1 to 4: the slices (the "step-0" caption) show above every step, so there is
  // nothing before step 1 to go back to.
  const state = { n: 2, localMaxOnly: false, step: 1, z: [[1, 3, 0, 2, 4, 1, 0, 2], [0, 5, 1, 2, 1, 0, 2, 1]].map((row) => row.map(String)), targets: ["1", "6"] };
  let view = null;
  const edited = () => {
    state.z = view.grid.inputs.map((row) => row.map((input) => input.value));
    state.targets = view.targetInputs.map((input) => input.value);
    w.update();
  };

  const w = live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const gpuOfId = (v) => `gpu-${ownerOf(v, V, state.n)}`;
      const grid = inputGrid({ name: "z", values: state.z, onInput: edited, cellClass: (_, c) => gpuOfId(c), rowHead: (r) => t(lang, "token", { t: r }),
        colHead: (c) => h("span", { class: `vocab-loss-id ${gpuOfId(c)}` }, t(lang, "id", { v: c })) });
      const targets = state.targets.map((value, k) => h("label", { class: "vocab-loss-target" }, h("span", {}, t(lang, "target", { t: k })),
        h("input", { type: "text", inputmode: "numeric", class: "tpw-cell", value, "data-target": k, "aria-label": t(lang, "target", { t: k }), oninput: edited })));
      const steps = stepper({ last: LAST_STEP, label: (k) => t(lang, "step", { k }), buttons: { back: t(lang, "back"), next: t(lang, "next"), all: t(lang, "all") },
        onStep: (k) => { state.step = k; w.update(); } });
      view = { grid, steps, targetInputs: targets.map((l) => l.querySelector("input")), errors: h("div", { class: "tpw-errors", "data-testid": "errors" }), stages: h("div", { class: "vocab-loss-stages" }) };
      return card({ lang, cls: "vocab-loss", title: t(lang, "title"), intro: t(lang, "intro") },
        h("div", { class: "vocab-loss-controls" },
          select({ label: t(lang, "gpus"), options: GPU_COUNTS, value: state.n, attrs: { "data-size": "n" }, onChange: (n) => { state.n = n; w.render('select[data-size="n"]'); } }),
          toggle({ label: t(lang, "local-max-only"), checked: state.localMaxOnly, attrs: { "data-testid": "local-max-only" }, onChange: (on) => { state.localMaxOnly = on; w.update(); } })),
        h("div", { class: "vocab-loss-logits" }, grid.table), h("div", { class: "vocab-loss-targets" }, targets), view.errors, steps.el, view.stages, w.tryBlock());
    },
    update({ lang }) {
      view.steps.set(state.step);
      const input = readInputs(lang);
      if (!input) return void fill(view.stages, blocked(t(lang, "blocked")));
      view.targetInputs.forEach((inp, k) => { inp.parentElement.className = `vocab-loss-target gpu-${ownerOf(input.targets[k], V, state.n)}`; });
      const loss = (localMaxOnly) => vocabParallelLoss(input.z, input.targets, state.n, { localMaxOnly });
      fill(view.stages, stages(lang, loss(state.localMaxOnly), input));
      return { input, key: JSON.stringify([input, state.n]), reference: loss(false).loss, localMax: loss(true).loss };
    },
    calls: ({ input: { z, targets }, reference, localMax }) => [[{ fn: "vp_cross_entropy",
      args: [Array.from({ length: state.n }, (_, i) => z.map((row) => row.slice((i * V) / state.n, ((i + 1) * V) / state.n))), { ints: targets }] }], { reference, localMax }],
    result({ lang }, L) {
      const losses = L.outcome.results[0];
      const numbers = Array.isArray(losses) && losses.length === L.reference.length && losses.every((v) => typeof v === "number");
      const close = (want) => numbers && losses.every((v, k) => closeTo(v, want[k]));
      const match = close(L.reference);
      return [
        labelled(t(lang, "reference"), " ≈ ", formatVector(L.reference, "()", lang), { testid: "reference-loss" }),
        labelled(t(lang, "yours"), " ", numbers ? `≈ ${formatVector(losses, "()", lang)}` : t(lang, "bad-shape", { got: JSON.stringify(losses), T: L.reference.length }), { testid: "learner-loss" }),
        verdict(match, t(lang, match ? "match" : "mismatch"), match ? "match" : "mismatch"),
        !match && close(L.localMax) ? h("p", { class: "tpw-hint", "data-testid": "learner-hint" }, t(lang, "local-max-hint")) : null,
      ];
    },
  });

  /** {z, targets} or null after showing every problem inline. */
  function readInputs(lang) {
    const { values, errors } = readGrid(view.grid.inputs);
    const messages = errors.map((e) => ({ input: e.input, text: entryErrorText(t, lang, e) }));
    const targets = view.targetInputs.map((input, k) => {
      const parsed = parseTarget(input.value, V);
      if (!parsed.ok) messages.push({ input, text: t(lang, `target-${parsed.reason}`, { t: k, text: input.value.trim() }) });
      return parsed.ok ? parsed.value : null;
    });
    view.targetInputs.forEach((input) => { if (!messages.some((m) => m.input === input)) input.removeAttribute("aria-invalid"); });
    showErrors(view.errors, messages);
    return messages.length ? null : { z: values, targets };
  }

  function stages(lang, r, input) {
    const wrong = state.localMaxOnly;
    const rows = (values, testid, mark) => r.gpus.map((g, i) => ({ class: `gpu-${i}`, cells: [
      [gpuBadge(t(lang, "gpu", { i })), " ", h("span", { class: "tpw-aside" }, t(lang, "owns", { start: g.start, last: g.end - 1 }))],
      ...values(g).map((v, k) => ({ text: formatNumber(v, lang), "data-testid": `${testid}-${i}-${k}`, class: mark?.(g, k) ? "vocab-loss-owner" : null }))] }));
    const table = (caption, gpuRows, reduced, testid, op) => dataTable({ caption, cls: "vocab-loss-table", head: [null, ...input.targets.map((_, k) => t(lang, "token", { t: k }))],
      rows: [...gpuRows, reduced && { class: "vocab-loss-reduced", cells: [`${op} → ${t(lang, "row-reduced")}`, ...reduced.map((v, k) => ({ text: formatNumber(v, lang), "data-testid": `${testid}-${k}` }))] }].filter(Boolean) });
    const diff = maxAbsDiff(r.loss, r.fullLoss);
    return [
      h("p", { class: "vocab-loss-caption" }, t(lang, "step-0")),
      table(t(lang, wrong ? "step-1-wrong" : "step-1"), rows((g) => g.localMax, "local-max"), wrong ? null : r.m, "m", "MAX"),
      state.step >= 2 && table(t(lang, wrong ? "step-2-wrong" : "step-2"), rows((g) => g.localSum, "local-sum"), r.s, "s", "SUM"),
      state.step >= 3 && table(t(lang, "step-3"), rows((g) => g.targetPart, "target-part", (g, k) => input.targets[k] >= g.start && input.targets[k] < g.end), r.zTarget, "z-target", "SUM"),
      state.step >= 4 && h("div", { class: "tpw-panel vocab-loss-result" }, h("p", { class: "vocab-loss-caption" }, t(lang, "step-4")),
        labelled(t(lang, "loss-split"), " ≈ ", formatVector(r.loss, "()", lang), { testid: "loss-split" }),
        labelled(t(lang, "loss-full"), " ≈ ", formatVector(r.fullLoss, "()", lang), { testid: "loss-full" }),
        unsplitVerdict(t, lang, allClose(r.loss, r.fullLoss, 1e-9), formatNumber(diff, lang))),
    ];
  }
}
