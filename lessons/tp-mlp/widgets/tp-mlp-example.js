// Widget "tp-mlp-example": the lesson's worked example, Y = GeLU(XA)B on N simulated GPUs,
// recomputed on every keystroke, with a button that runs the same numbers through the
// learner's own shard_mlp and tp_mlp.

import { h, fill, sub } from "widget-kit/dom.js";
import { inflect, translator } from "widget-kit/i18n.js";
import { matrixInput, showErrors, ENTRY_MESSAGES } from "widget-kit/grid.js";
import { select } from "widget-kit/controls.js";
import { card, gpuCard, matrixFigure, valueLine } from "widget-kit/views.js";
import { TRY_MINE_MESSAGES, tryMine, verdict } from "widget-kit/try-mine.js";
import { MISSED_SUM_MESSAGES, missedSumHint } from "widget-kit/missed-sum.js";
import { tpMlp, checkMlpShapes, divisors, formatVector, compareLearner, decimalIn, indexRange } from "widget-kit/matrix.js";

// The learner functions "Try with my code" runs (lessonkit check: declared in lesson.toml).
export const calls = ["shard_mlp", "tp_mlp"];

// The lesson's numbers (issue 2, §4): one token, D = 2, F = 4, N = 2.
const DEFAULT_X = [1, 2];
const DEFAULT_A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const DEFAULT_B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const DEFAULT_N = 2;
// Small enough that every GPU card and both matrices fit on a phone without scrolling sideways.
const MAX_D = 4;
const MAX_F = 8;

/** The widget's text; exported so the unit tests can check both languages are complete. */
export const MESSAGES = {
  en: {
    ...TRY_MINE_MESSAGES.en,
    ...MISSED_SUM_MESSAGES.en,
    ...ENTRY_MESSAGES.en,
    title: "The worked example, live",
    intro: "Change any number: every result below is recomputed as you type.",
    sizes: "Sizes",
    "size-D": "D (token width)",
    "size-F": "F (hidden width)",
    "size-N": "n (GPUs)",
    "n-bad-option": "{N} (does not divide F)",
    "not-divisible": "F = {F} is not divisible by n = {N}: every GPU must get the same number of columns. Choose n from {list}.",
    "shape-problem": "The shapes of X, A and B do not fit together.",
    "caption-X": "X: one token (length D)",
    "caption-A": "A (D × F): split by columns",
    "caption-B": "B (F × D): split by rows",
    gpu: "GPU {i}",
    "unsplit-title": "On one device (unsplit)",
    "gpus-title": ({ N }) => (N === 1 ? "On 1 GPU (nothing to split)" : `On ${N} GPUs, each with its own shard`),
    owns: ({ cols, one }) => (one ? `column ${cols} of A, row ${cols} of B` : `columns ${cols} of A, rows ${cols} of B`),
    "reduce-title": "All-reduce",
    "reduce-sum": ({ N }) => (N === 1 ? "the only partial" : `sum of the ${N} partials`),
    unsplit: "computed on one device",
    "label-Y-unsplit": "Y (unsplit)",
    "label-partial": "GPU {i} partial Y_{i}",
    "label-Y-compare": "Y (unsplit, for comparison)",
    equal: "Equal: the all-reduce gives exactly the unsplit result.",
    "not-equal": "Not equal: the largest difference is {diff}.",
    blocked: "Fix the input marked above to see the results.",
    "try-hint": "Runs your shard_mlp and tp_mlp on these numbers, in Python, and shows their result next to the reference.",
    running: "Running your shard_mlp and tp_mlp…",
    reference: "Reference",
    yours: "Your code",
    match: "Match: your tp_mlp gives the reference result.",
    mismatch: "Mismatch: your tp_mlp gives a different result.",
    "bad-shape": ({ got, D }) => `Your tp_mlp returned ${got}; for one token X it should return ${D} number${D === 1 ? "" : "s"}.`,
    "shard-count": "Hint: your shard_mlp did not return a list of {N} pairs (A_i, B_i).",
    "shard-pair": "Hint: item {i} of your shard_mlp's list is not a pair (A_i, B_i).",
    "shard-A": "Hint: your A_{i} is not columns {cols} of A.",
    "shard-B": "Hint: your B_{i} is not rows {cols} of B.",
    "not-numbers": "not a list of numbers",
  },
  pl: {
    ...TRY_MINE_MESSAGES.pl,
    ...MISSED_SUM_MESSAGES.pl,
    ...ENTRY_MESSAGES.pl,
    title: "Przykład na żywo",
    intro: "Zmień dowolną liczbę: wszystkie wyniki poniżej liczą się od nowa w trakcie pisania.",
    sizes: "Rozmiary",
    "size-D": "D (szerokość tokenu)",
    "size-F": "F (szerokość warstwy ukrytej)",
    "size-N": "n (liczba GPU)",
    "n-bad-option": "{N} (nie dzieli F)",
    "not-divisible": "F = {F} nie dzieli się przez n = {N}: każde GPU musi dostać tyle samo kolumn. Wybierz n spośród {list}.",
    "shape-problem": "Kształty X, A i B do siebie nie pasują.",
    "caption-X": "X: jeden token (długość D)",
    "caption-A": "A (D × F): podział kolumnami",
    "caption-B": "B (F × D): podział wierszami",
    gpu: "GPU {i}",
    "unsplit-title": "Na jednym urządzeniu (bez podziału)",
    "gpus-title": ({ N }) => (N === 1 ? "Na 1 GPU (nie ma czego dzielić)" : `Na ${N} GPU, każde z własnym kawałkiem`),
    owns: ({ cols, one }) => (one ? `kolumna ${cols} macierzy A, wiersz ${cols} macierzy B` : `kolumny ${cols} macierzy A, wiersze ${cols} macierzy B`),
    "reduce-title": "All-reduce",
    "reduce-sum": ({ N }) => (N === 1 ? "jedyny wynik częściowy" : `suma ${N} wyników częściowych`),
    unsplit: "policzone na jednym urządzeniu",
    "label-Y-unsplit": "Y (bez podziału)",
    "label-partial": "GPU {i}: wynik częściowy Y_{i}",
    "label-Y-compare": "Y (bez podziału, do porównania)",
    equal: "Równe: all-reduce daje dokładnie wynik bez podziału.",
    "not-equal": "Różne: największa różnica wynosi {diff}.",
    blocked: "Popraw zaznaczone pole powyżej, aby zobaczyć wyniki.",
    "try-hint": "Uruchamia twoje shard_mlp i tp_mlp na tych liczbach, w Pythonie, i pokazuje wynik obok wzorcowego.",
    running: "Uruchamiam twoje shard_mlp i tp_mlp…",
    reference: "Wzorzec",
    yours: "Twój kod",
    match: "Zgodne: twoje tp_mlp daje wynik wzorcowy.",
    mismatch: "Niezgodne: twoje tp_mlp daje inny wynik.",
    "bad-shape": ({ got, D }) => `Twoje tp_mlp zwróciło ${got}; dla jednego tokenu X powinno zwrócić ${D} ${inflect("pl", D, { one: "liczbę", few: "liczby", many: "liczb" })}.`,
    "shard-count": "Podpowiedź: twoje shard_mlp nie zwróciło listy {N} par (A_i, B_i).",
    "shard-pair": "Podpowiedź: element {i} listy z shard_mlp nie jest parą (A_i, B_i).",
    "shard-A": "Podpowiedź: twoje A_{i} to nie kolumny {cols} macierzy A.",
    "shard-B": "Podpowiedź: twoje B_{i} to nie wiersze {cols} macierzy B.",
    "not-numbers": "coś, co nie jest listą liczb",
  },
};

const t = translator(MESSAGES);

export function mount(el, ctx) {
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  const state = {
    lang: ctx.lang ?? "en",
    D: DEFAULT_X.length,
    F: DEFAULT_A[0].length,
    N: DEFAULT_N,
    // What the learner typed, as text, so a language switch or a resize keeps it verbatim.
    text: { X: [DEFAULT_X.map(String)], A: DEFAULT_A.map((r) => r.map(String)), B: DEFAULT_B.map((r) => r.map(String)) },
  };
  let view = null;

  function render(focusName) {
    const lang = state.lang;
    const nOptions = divisors(state.F);
    const size = (name, options) => select({ label: t(lang, `size-${name}`), options, value: state[name], attrs: { "data-size": name },
      onChange: (v) => resize(name, v) });
    // An N that no longer divides F stays chosen, marked, until the learner picks another.
    const nBad = nOptions.includes(state.N) ? [] : [{ value: state.N, text: t(lang, "n-bad-option", { N: state.N }) }];
    const grid = (name, more) => matrixInput({ name, caption: t(lang, `caption-${name}`), cls: `tpw-matrix-${name}`,
      values: state.text[name], onInput: edited, ...more });
    view = {
      grids: {
        X: grid("X", { vector: true }),
        A: grid("A", { colHead: (c) => h("span", { class: "tpw-gpu-tag", "data-col": c }) }),
        B: grid("B", { rowHead: (r) => h("span", { class: "tpw-gpu-tag", "data-row": r }) }),
      },
      sizeErrors: h("div", { class: "tpw-errors", "data-testid": "size-errors" }),
      results: h("div", { class: "tpw-results" }),
    };
    fill(el, card({ lang, cls: "tpw-example", title: t(lang, "title"), intro: t(lang, "intro") },
      h("fieldset", { class: "tpw-sizes" }, h("legend", {}, t(lang, "sizes")),
        size("D", seq(1, MAX_D)), size("F", seq(1, MAX_F)), size("N", [...nOptions, ...nBad])),
      view.sizeErrors,
      h("div", { class: "tpw-inputs" }, Object.values(view.grids).map((g) => g.el)),
      view.results,
      mine.block(lang, tryLearner)));
    if (focusName) el.querySelector(`select[data-size="${focusName}"]`)?.focus();
    compute();
  }

  function edited() {
    for (const name of ["X", "A", "B"]) state.text[name] = view.grids[name].texts();
    compute();
  }

  function resize(name, value) {
    if (name === "N") {
      state.N = value;
      render("N");
      return;
    }
    state[name] = value;
    const { D, F } = state;
    // Keep what overlaps, fill new entries with 0.
    const reshape = (m, rows, cols) => seq(0, rows - 1).map((r) => seq(0, cols - 1).map((c) => m[r]?.[c] ?? "0"));
    state.text = { X: reshape(state.text.X, 1, D), A: reshape(state.text.A, D, F), B: reshape(state.text.B, F, D) };
    render(name);
  }

  /** Reads the inputs; returns {X, A, B, N} or null after showing every problem inline. */
  function readInputs() {
    const lang = state.lang;
    const read = Object.fromEntries(["X", "A", "B"].map((name) => [name, view.grids[name].read(t, lang)]));
    const ok = Object.values(read).every(Boolean);
    const X = read.X ? read.X[0] : new Array(state.D).fill(0);
    const problems = checkMlpShapes(X, read.A ?? state.text.A, read.B ?? state.text.B, state.N);
    showErrors(
      view.sizeErrors,
      problems.map((p) => ({
        text: p.code === "not-divisible"
          ? t(lang, "not-divisible", { F: p.F, N: p.N, list: divisors(p.F).join(", ") })
          : t(lang, "shape-problem"),
      }))
    );
    if (!ok || problems.length) return null;
    return { X, A: read.A, B: read.B, N: state.N };
  }

  function compute() {
    const input = readInputs();
    const divides = state.F % state.N === 0;
    paintShards(divides ? state.N : null);
    if (!input) {
      fill(view.results, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(state.lang, "blocked")));
      view.current = null;
      renderLearner();
      return;
    }
    const r = tpMlp(input.X, input.A, input.B, input.N);
    view.current = { input, result: r, key: JSON.stringify(input) };
    fill(view.results, resultsView(r, input));
    renderLearner();
  }

  /** Colours A's columns and B's rows by the GPU that owns them and labels them "GPU i". */
  function paintShards(N) {
    const lang = state.lang;
    const F = state.F;
    const gpuOf = (k) => (N ? Math.floor((k * N) / F) : null);
    const { A, B } = view.grids;
    A.inputs.forEach((row) => row.forEach((input, c) => setGpu(input.parentElement, gpuOf(c))));
    B.inputs.forEach((row, r) => row.forEach((input) => setGpu(input.parentElement, gpuOf(r))));
    for (const tag of A.table.querySelectorAll(".tpw-gpu-tag[data-col]")) {
      const c = Number(tag.dataset.col);
      labelTag(tag, gpuOf(c), lang);
      setGpu(tag.parentElement, gpuOf(c));
    }
    for (const tag of B.table.querySelectorAll(".tpw-gpu-tag[data-row]")) {
      const r = Number(tag.dataset.row);
      labelTag(tag, gpuOf(r), lang);
      setGpu(tag.parentElement, gpuOf(r));
    }
  }

  function resultsView(r, input) {
    const lang = state.lang;
    const N = input.N;
    const F = r.XA.length;
    const gpuOf = (k) => Math.floor((k * N) / F);
    const line = (aria, label, values, testid, colour) => valueLine(label, values, lang, { testid, ariaLabel: aria, gpuOf: colour });
    const unsplit = h(
      "div",
      { class: "tpw-panel tpw-unsplit" },
      h("h4", {}, t(lang, "unsplit-title")),
      line("XA", "XA", r.XA, "XA", gpuOf),
      line("GeLU(XA)", "GeLU(XA)", r.H, "GeLU-XA", gpuOf),
      line(t(lang, "label-Y-unsplit"), "Y = GeLU(XA)B", r.Y, "Y-unsplit")
    );
    const cards = r.gpus.map((g, i) =>
      gpuCard({ i, label: t(lang, "gpu", { i }), note: t(lang, "owns", { cols: indexRange(...g.range), one: g.range[1] - g.range[0] === 1 }) },
        h("div", { class: "tpw-shard" }, matrixFigure(sub("A", i), g.A_i, lang), matrixFigure(sub("B", i), g.B_i, lang)),
        line(`GPU ${i} H_${i}`, [sub("H", i), " = GeLU(X", sub("A", i), ")"], g.H_i, `H-${i}`),
        line(t(lang, "label-partial", { i }), [sub("Y", i), " = ", sub("H", i), sub("B", i)], g.Y_i, `Y-${i}`)));
    const partialNames = r.gpus.flatMap((_, i) => [i ? " + " : "", ...sub("Y", i)]);
    const reduce = h(
      "div",
      { class: "tpw-panel tpw-reduce" },
      h("h4", {}, t(lang, "reduce-title")),
      line("Y (all-reduce)", [...partialNames, h("span", { class: "tpw-aside" }, ` (${t(lang, "reduce-sum", { N })})`)], r.allReduce, "Y-allreduce"),
      line(t(lang, "label-Y-compare"), ["GeLU(XA)B", h("span", { class: "tpw-aside" }, ` (${t(lang, "unsplit")})`)], r.Y, "Y-unsplit-compare"),
      verdict(r.equal, r.equal ? t(lang, "equal") : t(lang, "not-equal", { diff: decimalIn(lang, r.maxDiff.toExponential(2)) }), null, "equal"));
    return [
      unsplit,
      h("div", { class: "tpw-gpus-block" }, h("h4", {}, t(lang, "gpus-title", { N })), h("div", { class: "tpw-gpus" }, cards)),
      reduce,
    ];
  }

  function tryLearner() {
    const current = view.current;
    if (!current) return;
    const { X, A, B, N } = current.input;
    mine.start(current.key, [
      { fn: "shard_mlp", args: [A, B, N], as: "shards" },
      { fn: "tp_mlp", args: [X, { ref: "shards" }] },
    ], { reference: current.result });
  }

  function renderLearner() {
    mine.show(state.lang, view.current?.key ?? null, (L) => {
      const lang = state.lang;
      const ref = L.reference;
      const cmp = compareLearner(L.outcome.results, ref);
      const D = ref.Y.length;
      const yours = cmp.verdict === "bad-shape"
        ? t(lang, "bad-shape", { got: cmp.got ? JSON.stringify(L.outcome.results[1]) : t(lang, "not-numbers"), D })
        : formatVector(cmp.got, "()", lang);
      const shardHint = cmp.shardProblem && hintFor(cmp.shardProblem, ref, lang);
      const sumHint = cmp.verdict === "mismatch" && missedSumHint(t, lang, cmp.got, ref.gpus.map((g) => g.Y_i));
      return [
        h(
          "table",
          { class: "tpw-compare" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t(lang, "reference")), h("th", { scope: "col" }, t(lang, "yours")))),
          h("tbody", {}, h("tr", {},
            h("td", { "data-testid": "reference-Y", "aria-label": "Y (reference)" }, formatVector(ref.Y, "()", lang)),
            h("td", { "data-testid": "learner-Y", "aria-label": "Y (your code)" }, yours)
          ))
        ),
        verdict(cmp.verdict === "match", t(lang, cmp.verdict === "match" ? "match" : "mismatch"), cmp.verdict),
        shardHint ? h("p", { class: "tpw-hint" }, shardHint) : null,
        sumHint ? h("p", { class: "tpw-hint", "data-testid": "learner-sum-hint" }, sumHint) : null,
      ];
    });
  }

  function hintFor(problem, ref, lang) {
    if (problem.part === "count") return t(lang, "shard-count", { N: ref.gpus.length });
    if (problem.part === "pair") return t(lang, "shard-pair", { i: problem.gpu });
    return t(lang, `shard-${problem.part}`, { i: problem.gpu, cols: indexRange(...ref.gpus[problem.gpu].range) });
  }

  ctx.onLangChange?.((lang) => {
    state.lang = lang;
    render();
  });
  render();
}

function setGpu(cell, gpu) {
  cell.className = cell.className.replace(/\bgpu-\d+\b/g, "").trim();
  if (gpu !== null) cell.classList.add(`gpu-${gpu}`);
}

function labelTag(tag, gpu, lang) {
  tag.textContent = gpu === null ? "" : t(lang, "gpu", { i: gpu });
}

function seq(from, to) {
  return Array.from({ length: to - from + 1 }, (_, k) => from + k);
}
