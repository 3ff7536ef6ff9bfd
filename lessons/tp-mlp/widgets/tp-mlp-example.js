// Widget "tp-mlp-example": the lesson's worked example, Y = GeLU(XA)B on N simulated GPUs,
// recomputed on every keystroke, with a button that runs the same numbers through the
// learner's own shard_mlp and tp_mlp.

import { h, fill, sub } from "widget-kit/dom.js";
import { inflect, translator } from "widget-kit/i18n.js";
import { inputGrid, readGrid, showErrors, entryErrorText, ENTRY_MESSAGES } from "widget-kit/grid.js";
import { TRY_MINE_MESSAGES, tryMine, verdict } from "widget-kit/try-mine.js";
import { MISSED_SUM_MESSAGES, missedSumHint } from "widget-kit/missed-sum.js";
import {
  tpMlp, checkMlpShapes, divisors, formatNumber, formatVector, isShownExactly, compareLearner, decimalIn,
} from "widget-kit/matrix.js";

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

const range = (s, e) => (e - s === 1 ? `${s}` : `${s}–${e - 1}`);

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

/** "=" when every shown number is exact, "≈" when some were rounded to 3 decimals. */
const relation = (values) => (values.every(isShownExactly) ? "=" : "≈");

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
    const sizeSelect = (name, options, value, badOption) =>
      h(
        "select",
        { "data-size": name, onchange: (e) => resize(name, Number(e.target.value)) },
        options.map((v) => h("option", { value: v, selected: v === value }, String(v))),
        badOption ? h("option", { value: badOption, selected: true }, t(lang, "n-bad-option", { N: badOption })) : null
      );
    const nOptions = divisors(state.F);
    const sizes = h(
      "fieldset",
      { class: "tpw-sizes" },
      h("legend", {}, t(lang, "sizes")),
      ["D", "F", "N"].map((name) =>
        h(
          "label",
          { class: "tpw-size" },
          h("span", {}, t(lang, `size-${name}`)),
          name === "D" ? sizeSelect("D", seq(1, MAX_D), state.D)
            : name === "F" ? sizeSelect("F", seq(1, MAX_F), state.F)
            : sizeSelect("N", nOptions, state.N, nOptions.includes(state.N) ? null : state.N)
        )
      )
    );
    const sizeErrors = h("div", { class: "tpw-errors", "data-testid": "size-errors" });

    const gridX = inputGrid({ name: "X", vector: true, values: state.text.X, onInput: edited });
    const gridA = inputGrid({
      name: "A", values: state.text.A, onInput: edited,
      colHead: (c) => h("span", { class: "tpw-gpu-tag", "data-col": c }),
    });
    const gridB = inputGrid({
      name: "B", values: state.text.B, onInput: edited,
      rowHead: (r) => h("span", { class: "tpw-gpu-tag", "data-row": r }),
    });
    const box = (name, grid) => {
      const errors = h("div", { class: "tpw-errors", "data-testid": `errors-${name}` });
      return { errors, el: h("figure", { class: `tpw-matrix tpw-matrix-${name}` }, h("figcaption", {}, t(lang, `caption-${name}`)), grid.table, errors) };
    };
    const boxes = { X: box("X", gridX), A: box("A", gridA), B: box("B", gridB) };

    view = {
      grids: { X: gridX, A: gridA, B: gridB },
      boxes,
      sizeErrors,
      results: h("div", { class: "tpw-results" }),
    };

    fill(
      el,
      h(
        "section",
        { class: "tpw tpw-example", lang },
        h("h3", { class: "tpw-title" }, t(lang, "title")),
        h("p", { class: "tpw-intro" }, t(lang, "intro")),
        sizes,
        sizeErrors,
        h("div", { class: "tpw-inputs" }, boxes.X.el, boxes.A.el, boxes.B.el),
        view.results,
        mine.block(lang, tryLearner)
      )
    );
    if (focusName) el.querySelector(`select[data-size="${focusName}"]`)?.focus();
    compute();
  }

  function edited() {
    for (const name of ["X", "A", "B"]) {
      state.text[name] = view.grids[name].inputs.map((row) => row.map((input) => input.value));
    }
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
    const read = {};
    let ok = true;
    for (const name of ["X", "A", "B"]) {
      const { values, errors } = readGrid(view.grids[name].inputs);
      showErrors(view.boxes[name].errors, errors.map((e) => ({ input: e.input, text: entryErrorText(t, lang, e) })));
      read[name] = values;
      ok &&= values !== null;
    }
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
    const unsplit = h(
      "div",
      { class: "tpw-panel tpw-unsplit" },
      h("h4", {}, t(lang, "unsplit-title")),
      line("XA", "XA", r.XA, gpuOf, "XA", lang),
      line("GeLU(XA)", "GeLU(XA)", r.H, gpuOf, "GeLU-XA", lang),
      line(t(lang, "label-Y-unsplit"), "Y = GeLU(XA)B", r.Y, null, "Y-unsplit", lang)
    );
    const cards = r.gpus.map((g, i) =>
      h(
        "article",
        { class: `tpw-gpu gpu-${i}`, "aria-label": t(lang, "gpu", { i }), "data-testid": `gpu-${i}` },
        h("h5", {}, h("span", { class: "tpw-gpu-badge" }, t(lang, "gpu", { i })), " ", h("span", { class: "tpw-owns" }, t(lang, "owns", { cols: range(...g.range), one: g.range[1] - g.range[0] === 1 }))),
        h("div", { class: "tpw-shard" }, matrixView(sub("A", i), g.A_i, lang), matrixView(sub("B", i), g.B_i, lang)),
        line(`GPU ${i} H_${i}`, [sub("H", i), " = GeLU(X", sub("A", i), ")"], g.H_i, null, `H-${i}`, lang),
        line(t(lang, "label-partial", { i }), [sub("Y", i), " = ", sub("H", i), sub("B", i)], g.Y_i, null, `Y-${i}`, lang)
      )
    );
    const partialNames = r.gpus.flatMap((_, i) => [i ? " + " : "", ...sub("Y", i)]);
    const reduce = h(
      "div",
      { class: "tpw-panel tpw-reduce" },
      h("h4", {}, t(lang, "reduce-title")),
      line("Y (all-reduce)", [...partialNames, h("span", { class: "tpw-aside" }, ` (${t(lang, "reduce-sum", { N })})`)], r.allReduce, null, "Y-allreduce", lang),
      line(t(lang, "label-Y-compare"), ["GeLU(XA)B", h("span", { class: "tpw-aside" }, ` (${t(lang, "unsplit")})`)], r.Y, null, "Y-unsplit-compare", lang),
      h(
        "p",
        { class: `tpw-verdict ${r.equal ? "is-equal" : "is-different"}`, "data-testid": "equal", "data-equal": String(r.equal) },
        h("span", { class: "tpw-icon", "aria-hidden": "true" }, r.equal ? "✓" : "✗"),
        " ",
        r.equal ? t(lang, "equal") : t(lang, "not-equal", { diff: decimalIn(lang, r.maxDiff.toExponential(2)) })
      )
    );
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
    return t(lang, `shard-${problem.part}`, { i: problem.gpu, cols: range(...ref.gpus[problem.gpu].range) });
  }

  ctx.onLangChange?.((lang) => {
    state.lang = lang;
    render();
  });
  render();
}

/** One labelled result: "label = (0.841, 1.955)", entries optionally coloured by GPU. */
function line(ariaLabel, label, values, gpuOf, testid, lang) {
  const texts = values.map((v) => formatNumber(v, lang));
  const entries = texts.map((text, k) => (gpuOf ? h("span", { class: `tpw-entry gpu-${gpuOf(k)}` }, text) : text));
  // Decimal commas (Polish) part the items with semicolons, as formatVector does.
  const separator = texts.some((text) => text.includes(",")) ? "; " : ", ";
  const joined = entries.flatMap((e, k) => (k ? [separator, e] : [e]));
  return h(
    "p",
    { class: "tpw-line" },
    h("span", { class: "tpw-label" }, label),
    ` ${relation(values)} `,
    h("output", { "aria-label": ariaLabel, "data-testid": testid, class: "tpw-vector", "aria-live": "off" }, "(", joined, ")")
  );
}

/** A read-only matrix (a GPU's shard of A or B). */
function matrixView(label, M, lang) {
  return h(
    "figure",
    { class: "tpw-shard-matrix" },
    h("figcaption", {}, label),
    h("table", { class: "tpw-grid tpw-readonly" }, h("tbody", {}, M.map((row) => h("tr", {}, row.map((v) => h("td", {}, formatNumber(v, lang)))))))
  );
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
