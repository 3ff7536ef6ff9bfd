// Widget "vocab-loss": the vocabulary-parallel cross-entropy of two tokens over V = 8 ids on
// 2 or 4 GPUs, stepped through its three all-reduces (max, sum of exponentials, target logit),
// with the wrong "local max only" variant one switch away and the learner's own
// vp_cross_entropy on the same numbers.

import "./vocab-loss.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import TEXT from "./vocab-loss.text.json" with { type: "json" };
import { inputGrid, readGrid, showErrors, entryErrorText } from "widget-kit/grid.js";
import { select, toggle } from "widget-kit/controls.js";
import { card } from "widget-kit/views.js";
import { tryMine, verdict } from "widget-kit/try-mine.js";
import { formatNumber, formatVector } from "widget-kit/matrix.js";
import { vocabParallelLoss, ownerOf, parseTarget } from "../widget-lib/vocab-loss-math.js";

export const calls = ["vp_cross_entropy"];

// The lesson's worked example (lesson.md, "Worked example").
const V = 8;
const DEFAULT_Z = [[1, 3, 0, 2, 4, 1, 0, 2], [0, 5, 1, 2, 1, 0, 2, 1]];
const DEFAULT_TARGETS = [1, 6];
const GPU_COUNTS = [2, 4];
const LAST_STEP = 4;

const t = translator(TEXT);

export function mount(el, ctx) {
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  const state = {
    lang: ctx.lang ?? "en",
    n: 2,
    localMaxOnly: false,
    step: 1,
    z: DEFAULT_Z.map((row) => row.map(String)),
    targets: DEFAULT_TARGETS.map(String),
  };
  let view = null;

  function render(focus) {
    const lang = state.lang;
    const gpuOfId = (v) => `gpu-${ownerOf(v, V, state.n)}`;
    const grid = inputGrid({
      name: "z", values: state.z, onInput: edited,
      cellClass: (_, c) => gpuOfId(c),
      rowHead: (r) => t(lang, "token", { t: r }),
      colHead: (c) => h("span", { class: `vocab-loss-id ${gpuOfId(c)}` }, t(lang, "id", { v: c })),
    });
    const targetInputs = state.targets.map((value, k) =>
      h("label", { class: "vocab-loss-target" }, h("span", {}, t(lang, "target", { t: k })),
        h("input", { type: "text", inputmode: "numeric", class: "tpw-cell", value, "data-target": k, "aria-label": t(lang, "target", { t: k }), oninput: edited })));
    const stepButton = (key, onclick) => h("button", { type: "button", class: "tpw-button", "data-step-button": key, onclick }, t(lang, key));
    view = {
      grid, targetInputs: targetInputs.map((l) => l.querySelector("input")),
      errors: h("div", { class: "tpw-errors", "data-testid": "errors" }),
      stepLabel: h("p", { class: "vocab-loss-step", "data-testid": "step", "aria-live": "polite" }),
      back: stepButton("back", () => setStep(state.step - 1)),
      next: stepButton("next", () => setStep(state.step + 1)),
      all: stepButton("all", () => setStep(LAST_STEP)),
      stages: h("div", { class: "vocab-loss-stages" }),
    };
    fill(el, card({ lang, cls: "vocab-loss", title: t(lang, "title"), intro: t(lang, "intro") },
      h("div", { class: "vocab-loss-controls" },
        select({ label: t(lang, "gpus"), options: GPU_COUNTS, value: state.n, attrs: { "data-size": "n" }, onChange: (n) => { state.n = n; render("n"); } }),
        toggle({ label: t(lang, "local-max-only"), checked: state.localMaxOnly, attrs: { "data-testid": "local-max-only" },
          onChange: (on) => { state.localMaxOnly = on; compute(); } })),
      h("div", { class: "vocab-loss-logits" }, grid.table),
      h("div", { class: "vocab-loss-targets" }, targetInputs),
      view.errors,
      h("div", { class: "vocab-loss-stepper" }, view.back, view.stepLabel, view.next, view.all),
      view.stages,
      mine.block(lang, tryLearner)));
    if (focus) el.querySelector(`select[data-size="${focus}"]`)?.focus();
    compute();
  }

  function edited() {
    state.z = view.grid.inputs.map((row) => row.map((input) => input.value));
    state.targets = view.targetInputs.map((input) => input.value);
    compute();
  }

  function setStep(step) {
    // Steps 1 to 4: the slices (the "step-0" caption) show above every step, so there is
    // nothing before step 1 to go back to.
    state.step = Math.max(1, Math.min(LAST_STEP, step));
    compute();
  }

  /** {z, targets} or null after showing every problem inline. */
  function readInputs() {
    const lang = state.lang;
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

  function compute() {
    const lang = state.lang;
    view.stepLabel.textContent = t(lang, "step", { k: state.step });
    view.back.disabled = state.step === 1;
    view.next.disabled = view.all.disabled = state.step === LAST_STEP;
    const input = readInputs();
    view.current = input && { input, key: JSON.stringify([input, state.n]) };
    if (!input) {
      fill(view.stages, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      renderLearner();
      return;
    }
    view.targetInputs.forEach((inp, k) => { inp.parentElement.className = `vocab-loss-target gpu-${ownerOf(input.targets[k], V, state.n)}`; });
    const r = vocabParallelLoss(input.z, input.targets, state.n, { localMaxOnly: state.localMaxOnly });
    view.current.reference = vocabParallelLoss(input.z, input.targets, state.n).loss;
    view.current.localMax = vocabParallelLoss(input.z, input.targets, state.n, { localMaxOnly: true }).loss;
    fill(view.stages, stages(r, input));
    renderLearner();
  }

  function stages(r, input) {
    const lang = state.lang;
    const wrong = state.localMaxOnly;
    const T = input.targets.length;
    const gpuRows = (values, testid, mark) => r.gpus.map((g, i) => h("tr", { class: `gpu-${i}` },
      h("th", { scope: "row" }, h("span", { class: "tpw-gpu-badge" }, t(lang, "gpu", { i })), " ", h("span", { class: "tpw-aside" }, t(lang, "owns", { start: g.start, last: g.end - 1 }))),
      values(g).map((v, k) => h("td", { "data-testid": `${testid}-${i}-${k}`, class: mark && mark(g, k) ? "vocab-loss-owner" : null }, formatNumber(v, lang)))));
    const table = (caption, rowsEl, reduced, testid, op) => h("table", { class: "vocab-loss-table" },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, h("td"), Array.from({ length: T }, (_, k) => h("th", { scope: "col" }, t(lang, "token", { t: k }))))),
      h("tbody", {}, rowsEl, reduced ? h("tr", { class: "vocab-loss-reduced" }, h("th", { scope: "row" }, `${op} → ${t(lang, "row-reduced")}`),
        reduced.map((v, k) => h("td", { "data-testid": `${testid}-${k}` }, formatNumber(v, lang)))) : null));
    const out = [h("p", { class: "vocab-loss-caption" }, t(lang, "step-0"))];
    if (state.step >= 1) out.push(table(t(lang, wrong ? "step-1-wrong" : "step-1"), gpuRows((g) => g.localMax, "local-max"), wrong ? null : r.m, "m", "MAX"));
    if (state.step >= 2) out.push(table(t(lang, wrong ? "step-2-wrong" : "step-2"), gpuRows((g) => g.localSum, "local-sum"), r.s, "s", "SUM"));
    if (state.step >= 3) out.push(table(t(lang, "step-3"), gpuRows((g) => g.targetPart, "target-part", (g, k) => input.targets[k] >= g.start && input.targets[k] < g.end), r.zTarget, "z-target", "SUM"));
    if (state.step >= 4) {
      const diff = Math.max(...r.loss.map((v, k) => Math.abs(v - r.fullLoss[k])));
      const equal = diff <= 1e-9 * Math.max(1, ...r.fullLoss.map(Math.abs));
      out.push(h("div", { class: "tpw-panel vocab-loss-result" },
        h("p", { class: "vocab-loss-caption" }, t(lang, "step-4")),
        h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, t(lang, "loss-split")), " ≈ ", h("output", { "data-testid": "loss-split" }, formatVector(r.loss, "()", lang))),
        h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, t(lang, "loss-full")), " ≈ ", h("output", { "data-testid": "loss-full" }, formatVector(r.fullLoss, "()", lang))),
        verdict(equal, equal ? t(lang, "equal") : t(lang, "not-equal", { diff: formatNumber(diff, lang) }), null, "equal")));
    }
    return out;
  }

  function tryLearner() {
    const current = view.current;
    if (!current) return;
    const { z, targets } = current.input;
    const shards = Array.from({ length: state.n }, (_, i) => z.map((row) => row.slice((i * V) / state.n, ((i + 1) * V) / state.n)));
    mine.start(current.key, [{ fn: "vp_cross_entropy", args: [shards, { ints: targets }] }],
      { reference: current.reference, localMax: current.localMax });
  }

  function renderLearner() {
    mine.show(state.lang, view.current?.key ?? null, (L) => {
      const lang = state.lang;
      const ref = L.reference;
      const losses = L.outcome.results[0];
      const numbers = Array.isArray(losses) && losses.length === ref.length && losses.every((v) => typeof v === "number");
      const close = (want) => numbers && losses.every((v, k) => Math.abs(v - want[k]) <= 1e-6 * Math.max(1, Math.abs(want[k])));
      const match = close(ref);
      return [
        h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, t(lang, "reference")), " ≈ ", h("output", { "data-testid": "reference-loss" }, formatVector(ref, "()", lang))),
        h("p", { class: "tpw-line" }, h("span", { class: "tpw-label" }, t(lang, "yours")), " ", h("output", { "data-testid": "learner-loss" },
          numbers ? `≈ ${formatVector(losses, "()", lang)}` : t(lang, "bad-shape", { got: JSON.stringify(losses), T: ref.length }))),
        verdict(match, t(lang, match ? "match" : "mismatch"), match ? "match" : "mismatch"),
        !match && close(L.localMax) ? h("p", { class: "tpw-hint", "data-testid": "learner-hint" }, t(lang, "local-max-hint")) : null,
      ];
    });
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
}

