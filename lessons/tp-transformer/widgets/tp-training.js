// Widget "tp-training": a tiny two-block transformer trained with SGD on one device, with
// tensor parallelism on n GPUs, and with TP + sequence parallelism, all in JavaScript on every
// edit; the three loss curves on one plot. "Try with my code" runs the learner's train_tp on
// the same model and draws its curves on the same axes.

import "./tp-training.css";
import { h, fill, uid } from "widget-kit/dom.js";
import { formatNumberIn, translator } from "widget-kit/i18n.js";
import { showErrors } from "widget-kit/grid.js";
import { TRY_MINE_MESSAGES, tryMine, verdict } from "widget-kit/try-mine.js";
import { randomProblem, train } from "../widget-lib/tp-model.js";

export const calls = ["train_tp"];

const SIZES = { L: 2, T: 8, D: 8, F: 16 };
const HEADS = 4;
const N_CHOICES = [1, 2, 4];

export const MESSAGES = {
  en: {
    ...TRY_MINE_MESSAGES.en,
    title: "Training curves: one device, TP, TP + SP",
    intro: "A tiny model (2 blocks, T = 8 tokens, D = 8, 4 heads, F = 16) trained with SGD, recomputed as you edit. The tensor-parallel curves lie on the one-device curve: the split changes where the sums happen, not what they add up to.",
    n: "n (GPUs)", steps: "steps", lr: "learning rate", seed: "seed",
    "bad-steps": "steps must be a whole number from 1 to 40; “{text}” is not.",
    "bad-lr": "the learning rate must be a number above 0 and at most 5; “{text}” is not.",
    "bad-seed": "the seed must be a whole number from 0 to 99999; “{text}” is not.",
    blocked: "Fix the input marked above to see the curves.",
    one: "one device", tp: "TP on n = {n}", sp: "TP + SP on n = {n}", mine: "your train_tp", "mine-sp": "your train_tp, sp",
    axis: "step", loss: "loss",
    diff: "Largest difference from one device: TP {tp}, TP + SP {sp}.",
    counts: "Collectives of the run: TP {tp}; TP + SP {sp}.",
    "try-hint": "Runs your train_tp on this model, without and with sp, and draws your losses.",
    running: "Running your train_tp…",
    match: "Match: your losses lie on the one-device curve (largest difference {diff}).",
    mismatch: "Your losses leave the one-device curve at step {step}: expected {want}, yours {got}.",
    "bad-result": {
      one: "Your train_tp should return a list of {count} number; it returned {got}.",
      other: "Your train_tp should return a list of {count} numbers; it returned {got}.",
    },
  },
  pl: {
    ...TRY_MINE_MESSAGES.pl,
    title: "Krzywe uczenia: jedno urządzenie, TP, TP + SP",
    intro: "Mały model (2 bloki, T = 8 tokenów, D = 8, 4 głowice, F = 16) trenowany metodą SGD, liczony od nowa przy każdej zmianie. Krzywe z równoległością tensorową leżą na krzywej z jednego urządzenia: podział zmienia miejsce sumowania, a nie wynik.",
    n: "n (liczba GPU)", steps: "kroki", lr: "współczynnik uczenia", seed: "ziarno",
    "bad-steps": "liczba kroków musi być liczbą całkowitą od 1 do 40; „{text}” nią nie jest.",
    "bad-lr": "współczynnik uczenia musi być liczbą większą od 0 i nie większą niż 5; „{text}” nią nie jest.",
    "bad-seed": "ziarno musi być liczbą całkowitą od 0 do 99999; „{text}” nią nie jest.",
    blocked: "Popraw zaznaczone pole powyżej, aby zobaczyć krzywe.",
    one: "jedno urządzenie", tp: "TP na n = {n}", sp: "TP + SP na n = {n}", mine: "twoje train_tp", "mine-sp": "twoje train_tp, sp",
    axis: "krok", loss: "strata",
    diff: "Największa różnica względem jednego urządzenia: TP {tp}, TP + SP {sp}.",
    counts: "Operacje zbiorowe całego treningu: TP {tp}; TP + SP {sp}.",
    "try-hint": "Uruchamia twoje train_tp na tym modelu, bez sp i z sp, i rysuje twoje straty.",
    running: "Uruchamiam twoje train_tp…",
    match: "Zgodne: twoje straty leżą na krzywej z jednego urządzenia (największa różnica {diff}).",
    mismatch: "Twoje straty schodzą z krzywej jednego urządzenia w kroku {step}: oczekiwano {want}, twoje {got}.",
    // "listę 1 liczby", "listę 2 liczb", "listę 5 liczb": the genitive after "listę".
    "bad-result": {
      one: "Twoje train_tp powinno zwrócić listę {count} liczby; zwróciło {got}.",
      few: "Twoje train_tp powinno zwrócić listę {count} liczb; zwróciło {got}.",
      many: "Twoje train_tp powinno zwrócić listę {count} liczb; zwróciło {got}.",
    },
  },
};
const t = translator(MESSAGES);

const fmt = (lang, v, digits = 4) => formatNumberIn(lang, v, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const expo = (lang, v) => {
  const s = v === 0 ? "0" : v.toExponential(1);
  return lang === "pl" ? s.replace(".", ",") : s;
};
const countText = (c) => "{" + Object.entries(c).map(([k, v]) => `${k}: ${v}`).join(", ") + "}";
const maxDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

/** An SVG plot of the series [{name, values, cls, marker}] over steps 1..steps. */
function plot(lang, series, steps) {
  const W = 520, H = 260, left = 48, right = 12, top = 12, bottom = 36;
  const all = series.flatMap((s) => s.values);
  const ymax = Math.max(...all) * 1.05, ymin = Math.min(0, Math.min(...all));
  const x = (i) => left + (steps === 1 ? 0.5 : i / (steps - 1)) * (W - left - right);
  const y = (v) => top + (1 - (v - ymin) / (ymax - ymin || 1)) * (H - top - bottom);
  const ns = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, ...kids) => { const e = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); kids.forEach((c) => e.append(c)); return e; };
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "tptr-plot", role: "img", "aria-label": series.map((s) => s.name).join(", "), "data-testid": "plot" });
  svg.append(el("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: "tptr-axis" }));
  svg.append(el("line", { x1: left, y1: top, x2: left, y2: H - bottom, class: "tptr-axis" }));
  for (const v of [ymin, (ymin + ymax) / 2, ymax]) {
    svg.append(el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", class: "tptr-tick" }, fmt(lang, v, 2)));
  }
  for (const i of [0, steps - 1]) svg.append(el("text", { x: x(i), y: H - bottom + 16, "text-anchor": "middle", class: "tptr-tick" }, String(i + 1)));
  svg.append(el("text", { x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle", class: "tptr-tick" }, t(lang, "axis")));
  for (const s of series) {
    const pts = s.values.map((v, i) => [x(i), y(v)]);
    const g = el("g", { class: `tptr-series ${s.cls}`, "data-series": s.id });
    if (s.line) g.append(el("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: "tptr-line" }));
    for (const [px, py] of pts) {
      if (s.marker === "circle") g.append(el("circle", { cx: px, cy: py, r: 4.5, class: "tptr-dot" }));
      if (s.marker === "cross") g.append(el("path", { d: `M${px - 4},${py - 4}L${px + 4},${py + 4}M${px - 4},${py + 4}L${px + 4},${py - 4}`, class: "tptr-cross" }));
      if (s.marker === "square") g.append(el("rect", { x: px - 3.5, y: py - 3.5, width: 7, height: 7, class: "tptr-dot" }));
    }
    svg.append(g);
  }
  return svg;
}

export function mount(el, ctx) {
  const state = { lang: ctx.lang ?? "en", n: 2, text: { steps: "12", lr: "0.5", seed: "3" } };
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  let view = null;

  function render(focus) {
    const lang = state.lang;
    const field = (key) => {
      const id = uid(`tptr-${key}`);
      const input = h("input", { id, class: "tpw-cell", value: state.text[key], "data-testid": key, inputmode: "decimal",
        oninput: (e) => { state.text[key] = e.target.value; compute(); } });
      return { input, label: h("label", { class: "tpw-size", for: id }, h("span", {}, t(lang, key)), input) };
    };
    const fields = { steps: field("steps"), lr: field("lr"), seed: field("seed") };
    const nSelect = h("label", { class: "tpw-size" }, h("span", {}, t(lang, "n")),
      h("select", { "data-size": "n", onchange: (e) => { state.n = Number(e.target.value); render("n"); } },
        N_CHOICES.map((v) => h("option", { value: v, selected: v === state.n }, String(v)))));
    view = { fields, errors: h("div", { class: "tpw-errors", "data-testid": "errors" }), out: h("div", {}) };
    fill(el, h("section", { class: "tpw tptr", lang },
      h("h3", { class: "tpw-title" }, t(lang, "title")),
      h("p", { class: "tpw-intro" }, t(lang, "intro")),
      h("fieldset", { class: "tpw-sizes" }, nSelect, fields.steps.label, fields.lr.label, fields.seed.label),
      view.errors, view.out, mine.block(lang, tryLearner)));
    if (focus) el.querySelector(`select[data-size="${focus}"]`)?.focus();
    compute();
  }

  function read() {
    const lang = state.lang, errors = [];
    const whole = (key, lo, hi) => {
      const s = state.text[key].trim();
      const v = /^\d+$/.test(s) ? Number(s) : NaN;
      return v >= lo && v <= hi ? v : null;
    };
    const steps = whole("steps", 1, 40), seed = whole("seed", 0, 99999);
    const lrText = state.text.lr.trim().replace(",", ".");
    const lr = /^\d*\.?\d+(e-?\d+)?$/i.test(lrText) && Number(lrText) > 0 && Number(lrText) <= 5 ? Number(lrText) : null;
    for (const [key, v, msg] of [["steps", steps, "bad-steps"], ["lr", lr, "bad-lr"], ["seed", seed, "bad-seed"]]) {
      view.fields[key].input.setAttribute("aria-invalid", String(v === null));
      if (v === null) errors.push({ input: view.fields[key].input, text: t(lang, msg, { text: state.text[key] }) });
    }
    showErrors(view.errors, errors);
    return errors.length ? null : { steps, lr, seed, n: state.n };
  }

  function compute() {
    const lang = state.lang;
    const input = read();
    if (!input) {
      fill(view.out, h("p", { class: "tpw-blocked", "data-testid": "blocked" }, t(lang, "blocked")));
      view.current = null;
      renderLearner();
      return;
    }
    const { blocks, X, target } = randomProblem(input.seed, SIZES);
    const one = train(blocks, X, target, 1, HEADS, input.steps, input.lr, false);
    const tp = train(blocks, X, target, input.n, HEADS, input.steps, input.lr, false);
    const sp = train(blocks, X, target, input.n, HEADS, input.steps, input.lr, true);
    view.current = { input, key: JSON.stringify(input), blocks, X, target, one: one.losses };
    const series = [
      { id: "one", name: t(lang, "one"), values: one.losses, cls: "tptr-one", line: true },
      { id: "tp", name: t(lang, "tp", { n: input.n }), values: tp.losses, cls: "gpu-0", marker: "circle" },
      { id: "sp", name: t(lang, "sp", { n: input.n }), values: sp.losses, cls: "gpu-1", marker: "cross" },
    ];
    const last = mine.last;
    if (last?.status === "done" && last.key === view.current.key && last.outcome.ok) {
      const [a, b] = last.outcome.results;
      if (isLosses(a, input.steps)) series.push({ id: "mine", name: t(lang, "mine"), values: a, cls: "gpu-2", marker: "square", line: true });
      if (isLosses(b, input.steps)) series.push({ id: "mine-sp", name: t(lang, "mine-sp"), values: b, cls: "gpu-3", marker: "square", line: true });
    }
    fill(view.out,
      h("div", { class: "tptr-figure" }, plot(lang, series, input.steps),
        h("ul", { class: "tptr-legend" }, series.map((s) => h("li", { class: `${s.cls} tptr-key-${s.id}` }, h("span", { class: "tptr-swatch", "aria-hidden": "true" }), s.name)))),
      h("p", { class: "tpw-line", "data-testid": "losses" }, `${t(lang, "one")}: ${one.losses.slice(0, 5).map((v) => fmt(lang, v)).join("; ")}${one.losses.length > 5 ? "; …" : ""}`),
      h("p", { class: "tpw-verdict is-equal", "data-testid": "diff" }, h("span", { class: "tpw-icon", "aria-hidden": "true" }, "✓"), " ",
        t(lang, "diff", { tp: expo(lang, maxDiff(tp.losses, one.losses)), sp: expo(lang, maxDiff(sp.losses, one.losses)) })),
      h("p", { class: "tpw-hint", "data-testid": "run-counts" }, t(lang, "counts", { tp: countText(tp.counts), sp: countText(sp.counts) })));
    renderLearner();
  }

  function isLosses(v, steps) {
    return Array.isArray(v) && v.length === steps && v.every((x) => typeof x === "number");
  }

  function tryLearner() {
    const c = view.current;
    if (!c) return;
    const { n, steps, lr } = c.input;
    const blocks = c.blocks.map((b) => ({ dict: b }));
    const args = (sp) => [blocks, c.X, c.target, n, HEADS, steps, lr, sp];
    mine.start(c.key, [{ fn: "train_tp", args: args(false) }, { fn: "train_tp", args: args(true) }], { one: c.one, steps });
  }

  function renderLearner() {
    mine.show(state.lang, view.current?.key ?? null, (L) => {
      const lang = state.lang;
      for (const got of L.outcome.results) {
        if (!isLosses(got, L.steps)) return verdict(false, t(lang, "bad-result", { count: L.steps, got: JSON.stringify(got).slice(0, 200) }), "shape");
        const step = got.findIndex((v, i) => !(Math.abs(v - L.one[i]) <= 1e-6 * Math.max(1, Math.abs(L.one[i]))));
        if (step >= 0) return verdict(false, t(lang, "mismatch", { step: step + 1, want: fmt(lang, L.one[step], 6), got: fmt(lang, got[step], 6) }), "values");
      }
      const diff = Math.max(...L.outcome.results.map((r) => maxDiff(r, L.one)));
      return verdict(true, t(lang, "match", { diff: expo(lang, diff) }), "match");
    });
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
}
