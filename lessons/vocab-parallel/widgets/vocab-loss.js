// Widget "vocab-loss": the vocabulary-parallel cross-entropy of two tokens over V = 8 ids on
// 2 or 4 GPUs, stepped through its three all-reduces (max, sum of exponentials, target logit),
// with the wrong "local max only" variant one switch away and the learner's own
// vp_cross_entropy on the same numbers.

import "./vocab-loss.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import { inputGrid, readGrid, showErrors, entryErrorText, ENTRY_MESSAGES } from "widget-kit/grid.js";
import { select, toggle } from "widget-kit/controls.js";
import { card } from "widget-kit/views.js";
import { TRY_MINE_MESSAGES, tryMine, verdict } from "widget-kit/try-mine.js";
import { formatNumber, formatVector } from "widget-kit/matrix.js";
import { vocabParallelLoss, ownerOf, parseTarget } from "../widget-lib/vocab-loss-math.js";

export const calls = ["vp_cross_entropy"];

// The lesson's worked example (lesson.md, "Worked example").
const V = 8;
const DEFAULT_Z = [[1, 3, 0, 2, 4, 1, 0, 2], [0, 5, 1, 2, 1, 0, 2, 1]];
const DEFAULT_TARGETS = [1, 6];
const GPU_COUNTS = [2, 4];
const LAST_STEP = 4;

export const MESSAGES = {
  en: {
    ...TRY_MINE_MESSAGES.en,
    ...ENTRY_MESSAGES.en,
    title: "Three all-reduces make the loss",
    intro: "Edit any logit or target; every number below is recomputed as you type. Step through the all-reduces with the buttons.",
    gpus: "GPUs",
    "local-max-only": "Use only each GPU's local max (the classic mistake)",
    token: "token {t}",
    id: "id {v}",
    target: "target of token {t}",
    "target-empty": "The target of token {t} is empty: type an id from 0 to 7.",
    "target-range": "The target of token {t}, “{text}”, is not an id: type a whole number from 0 to 7.",
    gpu: "GPU {i}",
    owns: "ids {start}–{last}",
    back: "← Back",
    next: "Next all-reduce →",
    all: "Show all",
    step: "Step {k} of 4",
    "step-0": "Each GPU holds only its slice of every row of logits.",
    "step-1": "1. all-reduce MAX: every GPU's local maximum, and the global maximum m.",
    "step-1-wrong": "1. Each GPU keeps its own local maximum mᵢ (no all-reduce MAX used below).",
    "step-2": "2. all-reduce SUM of Σ exp(z − m), each GPU with the same global m.",
    "step-2-wrong": "2. all-reduce SUM of Σ exp(z − mᵢ), each GPU with its own mᵢ: sums in different units.",
    "step-3": "3. all-reduce SUM of the target's logit: only its owner adds it, the others add 0.",
    "step-4": "The loss on every GPU: m + log Σ − z_target, beside the loss from the full row.",
    "row-reduced": "all-reduced",
    "loss-split": "loss from the all-reduces",
    "loss-full": "loss from the full row (one device)",
    equal: "Equal: the three all-reduces give exactly the full-row loss.",
    "not-equal": "Not equal: off by up to {diff}. Rescaling to the global maximum is what makes the GPUs' sums add up.",
    blocked: "Fix the input marked above to see the results.",
    "try-hint": "Runs your vp_cross_entropy on these slices and targets and compares it with the reference.",
    running: "Running your vp_cross_entropy…",
    yours: "your vp_cross_entropy",
    reference: "reference",
    match: "Match: your vp_cross_entropy gives the reference losses.",
    mismatch: "Mismatch: your vp_cross_entropy gives different losses.",
    "local-max-hint": "Hint: your losses are the ones of the local-max mistake (the switch above): rescale every GPU's sum to the global maximum m before adding them.",
    "bad-shape": "Your vp_cross_entropy returned {got}; expected {T} losses, one per token.",
    stale: "The numbers have changed since this run; press the button again.",
  },
  pl: {
    ...TRY_MINE_MESSAGES.pl,
    ...ENTRY_MESSAGES.pl,
    title: "Trzy all-reduce dają stratę",
    intro: "Zmień dowolny logit lub cel; wszystkie liczby poniżej liczą się od nowa w trakcie pisania. Przyciskami przejdź przez kolejne all-reduce.",
    gpus: "Liczba GPU",
    "local-max-only": "Użyj tylko lokalnego maksimum każdego GPU (klasyczny błąd)",
    token: "token {t}",
    id: "id {v}",
    target: "cel tokenu {t}",
    "target-empty": "Cel tokenu {t} jest pusty: wpisz identyfikator od 0 do 7.",
    "target-range": "Cel tokenu {t}, „{text}”, nie jest identyfikatorem: wpisz liczbę całkowitą od 0 do 7.",
    gpu: "GPU {i}",
    owns: "id {start}–{last}",
    back: "← Wstecz",
    next: "Następny all-reduce →",
    all: "Pokaż wszystko",
    step: "Krok {k} z 4",
    "step-0": "Każde GPU ma tylko swój kawałek każdego wiersza logitów.",
    "step-1": "1. all-reduce MAX: lokalne maksimum każdego GPU i globalne maksimum m.",
    "step-1-wrong": "1. Każde GPU zostaje przy własnym lokalnym maksimum mᵢ (all-reduce MAX nie jest niżej używany).",
    "step-2": "2. all-reduce SUM z Σ exp(z − m), każde GPU z tym samym globalnym m.",
    "step-2-wrong": "2. all-reduce SUM z Σ exp(z − mᵢ), każde GPU z własnym mᵢ: sumy w różnych jednostkach.",
    "step-3": "3. all-reduce SUM logitu celu: dodaje go tylko jego właściciel, pozostałe dodają 0.",
    "step-4": "Strata na każdym GPU: m + log Σ − z_cel, obok straty z pełnego wiersza.",
    "row-reduced": "po all-reduce",
    "loss-split": "strata z all-reduce",
    "loss-full": "strata z pełnego wiersza (jedno urządzenie)",
    equal: "Równe: trzy all-reduce dają dokładnie stratę z pełnego wiersza.",
    "not-equal": "Różne: różnica do {diff}. Dopiero przeskalowanie do globalnego maksimum sprawia, że sumy z GPU można dodać.",
    blocked: "Popraw zaznaczone pole powyżej, aby zobaczyć wyniki.",
    "try-hint": "Uruchamia twoje vp_cross_entropy na tych kawałkach i celach i porównuje wynik ze wzorcowym.",
    running: "Uruchamiam twoje vp_cross_entropy…",
    yours: "Twoje vp_cross_entropy",
    reference: "wzorzec",
    match: "Zgodne: twoje vp_cross_entropy daje wzorcowe straty.",
    mismatch: "Niezgodne: twoje vp_cross_entropy daje inne straty.",
    "local-max-hint": "Podpowiedź: twoje straty to straty błędu lokalnego maksimum (przełącznik powyżej): przed dodaniem przeskaluj sumę każdego GPU do globalnego maksimum m.",
    "bad-shape": "Twoje vp_cross_entropy zwróciło {got}; oczekiwano {T} strat, po jednej na token.",
  },
};

const t = translator(MESSAGES);

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

