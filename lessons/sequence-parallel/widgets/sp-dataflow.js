// Widget "sp-dataflow": one sequence-parallel MLP block on n simulated GPUs, stage by stage:
// which rows each GPU holds after LayerNorm, the all-gather, its partial output, the
// reduce-scatter and the residual. Recomputed on every edit; "Try with my code" runs the
// learner's sp_mlp_block on the same numbers.

import "./sp-dataflow.css";
import { h, fill } from "widget-kit/dom.js";
import { translator } from "widget-kit/i18n.js";
import { matrixInput, showErrors, ENTRY_MESSAGES } from "widget-kit/grid.js";
import { select } from "widget-kit/controls.js";
import { card, matrixTable } from "widget-kit/views.js";
import { TRY_MINE_MESSAGES, tryMine, verdict } from "widget-kit/try-mine.js";
import { decimalIn, formatNumber, indexRange } from "widget-kit/matrix.js";
import { spMlpBlock, chunkRows } from "../widget-lib/sp-math.js";

export const calls = ["sp_mlp_block"];

// The lesson's worked example: T = 4 tokens, D = 2, the A and B of the MLP lesson (F = 4).
const DEFAULT_X = [[0, 2], [1, 3], [3, 1], [2, 2]];
const A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const F = A[0].length;
const T_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8];
const N_CHOICES = [1, 2, 4]; // must divide F = 4: each GPU gets the same number of A's columns


export const MESSAGES = {
  en: {
    ...TRY_MINE_MESSAGES.en,
    ...ENTRY_MESSAGES.en,
    title: "One sequence-parallel MLP block, row by row",
    intro: "Edit X, γ, β, T or n: every stage is recomputed as you type. Row colours say which GPU the row belongs to in the sequence.",
    "size-T": "T (tokens)",
    "size-n": "n (GPUs)",
    "caption-X": "X (T × 2): the block's input",
    "caption-gamma": "γ",
    "caption-beta": "β",
    "fixed-weights": "A and B are the MLP lesson's (D = 2, F = 4); GPU i gets columns of A and the same rows of B.",
    "not-divisible": "T = {T} is not divisible by n = {n}: every GPU must own the same number of rows. Choose T from {list}.",
    blocked: "Fix the input marked above to see the block.",
    gpu: "GPU {i}",
    owns: "rows {rows}",
    "stage-x": "holds its chunk",
    "stage-ln": "LayerNorm on its own rows (SP)",
    "stage-ag": "all-gather: all T rows (TP)",
    "stage-p": "partial output: GeLU(Z A_i) B_i",
    "stage-rs": "reduce-scatter: its rows of the sum",
    "stage-out": "+ residual X_i: its output",
    "comm-title": "Communication per GPU",
    // Plural forms chosen by count (widget-kit/i18n.js): the numbers each GPU sends.
    comm: {
      one: "all-gather: sends {count} value, reduce-scatter: sends {count} value; together {sum}, the same as a ring all-reduce of the T × D output, 2(n−1)/n · {TD} = {sum}.",
      other: "all-gather: sends {count} values, reduce-scatter: sends {count} values; together {sum}, the same as a ring all-reduce of the T × D output, 2(n−1)/n · {TD} = {sum}.",
    },
    "comm-one": "With n = 1 there is nothing to send.",
    equal: "The n output chunks stacked = X + GeLU(LN(X)A)B on one device.",
    "not-equal": "Not equal to one device: the largest difference is {diff}.",
    "try-hint": "Runs your sp_mlp_block on these chunks and shards, in Python, and compares each GPU's output.",
    running: "Running your sp_mlp_block…",
    match: "Match: your sp_mlp_block gives every GPU the reference output.",
    mismatch: "Mismatch on GPU {i}: expected {want}, yours {got}.",
    "bad-result": "Your sp_mlp_block should return a list of {n} arrays of shape ({rows}, 2); it returned {got}.",
  },
  pl: {
    ...TRY_MINE_MESSAGES.pl,
    ...ENTRY_MESSAGES.pl,
    title: "Jeden blok MLP z równoległością sekwencyjną, wiersz po wierszu",
    intro: "Zmień X, γ, β, T lub n: każdy etap liczy się od nowa w trakcie pisania. Kolor wiersza mówi, do którego GPU należy on w sekwencji.",
    "size-T": "T (tokeny)",
    "size-n": "n (liczba GPU)",
    "caption-X": "X (T × 2): wejście bloku",
    "caption-gamma": "γ",
    "caption-beta": "β",
    "fixed-weights": "A i B pochodzą z lekcji o MLP (D = 2, F = 4); GPU i dostaje kolumny A i te same wiersze B.",
    "not-divisible": "T = {T} nie dzieli się przez n = {n}: każde GPU musi mieć tyle samo wierszy. Wybierz T spośród {list}.",
    blocked: "Popraw zaznaczone pole powyżej, aby zobaczyć blok.",
    gpu: "GPU {i}",
    owns: "wiersze {rows}",
    "stage-x": "ma swój kawałek",
    "stage-ln": "LayerNorm na swoich wierszach (SP)",
    "stage-ag": "all-gather: wszystkie T wierszy (TP)",
    "stage-p": "wynik częściowy: GeLU(Z A_i) B_i",
    "stage-rs": "reduce-scatter: jego wiersze sumy",
    "stage-out": "+ residuum X_i: jego wynik",
    "comm-title": "Komunikacja na jedno GPU",
    comm: {
      one: "all-gather: wysyła {count} liczbę, reduce-scatter: wysyła {count} liczbę; razem {sum}, tyle samo co all-reduce wyniku T × D po pierścieniu, 2(n−1)/n · {TD} = {sum}.",
      few: "all-gather: wysyła {count} liczby, reduce-scatter: wysyła {count} liczby; razem {sum}, tyle samo co all-reduce wyniku T × D po pierścieniu, 2(n−1)/n · {TD} = {sum}.",
      many: "all-gather: wysyła {count} liczb, reduce-scatter: wysyła {count} liczb; razem {sum}, tyle samo co all-reduce wyniku T × D po pierścieniu, 2(n−1)/n · {TD} = {sum}.",
    },
    "comm-one": "Przy n = 1 nie ma czego wysyłać.",
    equal: "n kawałków wyniku ułożonych razem = X + GeLU(LN(X)A)B na jednym urządzeniu.",
    "not-equal": "Różne od jednego urządzenia: największa różnica wynosi {diff}.",
    "try-hint": "Uruchamia twoje sp_mlp_block na tych kawałkach i wagach, w Pythonie, i porównuje wynik każdego GPU.",
    running: "Uruchamiam twoje sp_mlp_block…",
    match: "Zgodne: twoje sp_mlp_block daje każdemu GPU wynik wzorcowy.",
    mismatch: "Niezgodne na GPU {i}: oczekiwano {want}, twoje {got}.",
    "bad-result": "Twoje sp_mlp_block powinno zwrócić listę {n} tablic o kształcie ({rows}, 2); zwróciło {got}.",
  },
};

const t = translator(MESSAGES);

/** A read-only matrix whose row r is coloured by `gpuOfRow(r)` (null: no colour). */
const matrixView = (M, gpuOfRow, testid, lang) =>
  matrixTable(M, lang, { cls: "spdf-matrix", testid, cellClass: (r) => (gpuOfRow(r) === null ? "" : `gpu-${gpuOfRow(r)}`) });

const matrixText = (M) => `[${M.map((row) => `[${row.map(formatNumber).join(", ")}]`).join(", ")}]`;

export function mount(el, ctx) {
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  const state = {
    lang: ctx.lang ?? "en",
    T: DEFAULT_X.length,
    n: 2,
    text: { X: DEFAULT_X.map((r) => r.map(String)), gamma: [["1", "1"]], beta: [["0", "0"]] },
  };
  let view = null;

  const ownerOf = (r) => (state.T % state.n === 0 ? Math.floor((r * state.n) / state.T) : null);

  function render(focus) {
    const lang = state.lang;
    const size = (name, options) => select({ label: t(lang, `size-${name}`), options, value: state[name], attrs: { "data-size": name },
      onChange: (v) => resize(name, v) });
    const grid = (name, label, more) => matrixInput({ name: label, testid: `errors-${name}`, caption: t(lang, `caption-${name}`),
      values: state.text[name], onInput: edited, ...more });
    view = {
      grids: {
        X: grid("X", "X", { cellClass: (r) => (ownerOf(r) === null ? "" : `gpu-${ownerOf(r)}`) }),
        gamma: grid("gamma", "γ", { vector: true }),
        beta: grid("beta", "β", { vector: true }),
      },
      sizeErrors: h("div", { class: "tpw-errors", "data-testid": "size-errors" }),
      stages: h("div", { class: "spdf-stages" }),
    };
    fill(el, card({ lang, cls: "spdf", title: t(lang, "title"), intro: t(lang, "intro") },
      h("fieldset", { class: "tpw-sizes" }, size("T", T_CHOICES), size("n", N_CHOICES)),
      view.sizeErrors,
      h("div", { class: "tpw-inputs" }, Object.values(view.grids).map((g) => g.el)),
      h("p", { class: "tpw-hint" }, t(lang, "fixed-weights")),
      view.stages,
      mine.block(lang, tryLearner)));
    if (focus) el.querySelector(`select[data-size="${focus}"]`)?.focus();
    compute();
  }

  function edited() {
    for (const name of ["X", "gamma", "beta"]) state.text[name] = view.grids[name].texts();
    compute();
  }

  function resize(name, value) {
    state[name] = value;
    if (name === "T") {
      state.text.X = Array.from({ length: value }, (_, r) => state.text.X[r] ?? [String(r % 3), String((2 * r + 1) % 4)]);
    }
    render(name);
  }

  function readInputs() {
    const lang = state.lang;
    const read = Object.fromEntries(["X", "gamma", "beta"].map((name) => [name, view.grids[name].read(t, lang)]));
    const ok = Object.values(read).every(Boolean);
    const divides = state.T % state.n === 0;
    const okT = T_CHOICES.filter((T) => T % state.n === 0).join(", ");
    showErrors(view.sizeErrors, divides ? [] : [{ text: t(lang, "not-divisible", { T: state.T, n: state.n, list: okT }) }]);
    if (!ok || !divides) return null;
    return { X: read.X, gamma: read.gamma[0], beta: read.beta[0], n: state.n };
  }

  function compute() {
    const lang = state.lang;
    const input = readInputs();
    if (!input) {
      fill(view.stages, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      view.current = null;
      renderLearner();
      return;
    }
    const r = spMlpBlock(input.X, input.gamma, input.beta, A, B, input.n);
    view.current = { input, result: r, key: JSON.stringify(input) };
    const n = input.n;
    const rows = state.T / n;
    const own = (i) => () => i;
    const cards = r.gpus.map((g, i) => h(
      "article", { class: `spdf-gpu gpu-${i}`, "data-testid": `gpu-${i}` },
      h("h4", {}, h("span", { class: "tpw-gpu-badge" }, t(lang, "gpu", { i })), " ", t(lang, "owns", { rows: indexRange(i * rows, (i + 1) * rows) })),
      stage(t(lang, "stage-x"), matrixView(g.X, own(i), `x-${i}`, lang)),
      stage(t(lang, "stage-ln"), matrixView(g.Z_own, own(i), `ln-${i}`, lang)),
      stage(t(lang, "stage-ag"), matrixView(g.Z, ownerOf, `ag-${i}`, lang), "spdf-comm"),
      stage(t(lang, "stage-p"), matrixView(g.P, () => null, `p-${i}`, lang)),
      stage(t(lang, "stage-rs"), matrixView(g.chunk, own(i), `rs-${i}`, lang), "spdf-comm"),
      stage(t(lang, "stage-out"), matrixView(g.out, own(i), `out-${i}`, lang))
    ));
    const sent = (n - 1) * rows * 2;
    const equal = r.maxDiff <= 1e-9;
    fill(
      view.stages,
      h("div", { class: "spdf-gpus" }, cards),
      verdict(equal, equal ? t(lang, "equal") : t(lang, "not-equal", { diff: decimalIn(lang, r.maxDiff.toExponential(2)) }), null, "equal"),
      h("div", { class: "tpw-panel spdf-commbox", "data-testid": "comm" },
        h("h4", {}, t(lang, "comm-title")),
        h("p", {}, n === 1 ? t(lang, "comm-one") : t(lang, "comm", { count: sent, sum: 2 * sent, TD: state.T * 2 })))
    );
    renderLearner();
  }

  function stage(label, content, cls = "") {
    return h("div", { class: `spdf-stage ${cls}` }, h("p", { class: "spdf-label" }, label), content);
  }

  function tryLearner() {
    const current = view.current;
    if (!current) return;
    const { X, gamma, beta, n } = current.input;
    const shards = current.result.gpus.map((g) => [g.A, g.B]);
    mine.start(current.key, [{ fn: "sp_mlp_block", args: [chunkRows(X, n), gamma, beta, shards] }],
      { reference: current.result.outputs, n, rows: X.length / n });
  }

  function renderLearner() {
    mine.show(state.lang, view.current?.key ?? null, (L) => {
      const lang = state.lang;
      const got = L.outcome.results[0];
      const cmp = compareChunks(got, L.reference);
      const text = cmp.kind === "match" ? t(lang, "match")
        : cmp.kind === "shape" ? t(lang, "bad-result", { n: L.n, rows: L.rows, got: JSON.stringify(got) })
        : t(lang, "mismatch", { i: cmp.i, want: matrixText(L.reference[cmp.i]), got: matrixText(got[cmp.i]) });
      return verdict(cmp.kind === "match", text, cmp.kind);
    });
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
}

/** {kind: "match"} | {kind: "shape"} | {kind: "values", i}: the learner's chunks against ours. */
export function compareChunks(got, want) {
  const isMatrix = (M, like) => Array.isArray(M) && M.length === like.length
    && M.every((row, r) => Array.isArray(row) && row.length === like[r].length && row.every((v) => typeof v === "number"));
  if (!Array.isArray(got) || got.length !== want.length || !got.every((M, i) => isMatrix(M, want[i]))) return { kind: "shape" };
  const i = want.findIndex((M, k) => M.some((row, r) => row.some((v, c) => !(Math.abs(v - got[k][r][c]) <= 1e-6 * Math.max(1, Math.abs(v))))));
  return i < 0 ? { kind: "match" } : { kind: "values", i };
}
