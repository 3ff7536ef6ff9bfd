// Widget "tp-scaling": the cost model's speedup and efficiency against the TP degree t = 1…64,
// for a layer, a GPU and two links the learner sets with sliders (or types); a marker where the
// group leaves the server; Megatron-LM's appendix D.2 points, revealed after the learner has
// predicted them; and "Try with my code", which draws the learner's tp_speedup over the model.

import "./tp-scaling.css";
import { h, fill } from "widget-kit/dom.js";
import { formatFixed, formatPercent, translator } from "widget-kit/i18n.js";
import { card } from "widget-kit/views.js";
import TEXT from "./tp-scaling.text.json" with { type: "json" };
import { parseNumber } from "widget-kit/matrix.js";
import { numberField, readNumber, slider } from "widget-kit/controls.js";
import { legend, plot, redrawOnResize, widthOf } from "widget-kit/plot.js";
import { tryMine, verdict } from "widget-kit/try-mine.js";
import { D2_CONFIG, D2_MEASURED, DEGREES, busFor, scaling } from "../widget-lib/cost-model.js";

export const calls = ["tp_speedup"];

// Table headers carry soft hyphens (\u00ad), so that a phone can break the long words.
// Each control: its key in the model's configuration, the slider's range, how a typed value is
// read (the model takes FLOP/s and seconds; the controls show TFLOP/s and µs), and `rule`: the
// readNumber limits a value must keep and the message for one that does not.
const WHOLE = { limits: { integer: true, min: 1 }, message: "bad-integer" };
const POSITIVE = { limits: { above: 0 }, message: "bad-positive" };
const CONTROLS = [
  { key: "b", min: 1, max: 64, step: 1, rule: WHOLE },
  { key: "s", min: 128, max: 8192, step: 128, rule: WHOLE },
  { key: "h", min: 256, max: 16384, step: 128, rule: WHOLE },
  { key: "gpuFlops", min: 1, max: 2000, step: 1, scale: 1e12, rule: POSITIVE },
  { key: "intraGBps", min: 1, max: 1000, step: 1, rule: POSITIVE },
  { key: "interGBps", min: 0.25, max: 400, step: 0.25, rule: POSITIVE },
  { key: "gpusPerNode", min: 1, max: 64, step: 1, rule: WHOLE },
  { key: "latencyS", min: 0, max: 100, step: 0.5, scale: 1e-6, rule: { limits: { min: 0 }, message: "bad-zero" } },
];

const t = translator(TEXT);

/** The value a control shows for a model value (TFLOP/s for FLOP/s, µs for seconds). */
const shown = (c, value) => (c.scale ? value / c.scale : value);

export function mount(el, ctx) {
  const state = {
    lang: ctx.lang ?? "en",
    text: Object.fromEntries(CONTROLS.map((c) => [c.key, String(+shown(c, D2_CONFIG[c.key]).toFixed(6))])),
    guess: "",
    revealed: false,
    guessError: false,
  };
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  let view = null;

  function render() {
    const lang = state.lang;
    const controls = Object.fromEntries(CONTROLS.map((c) => [c.key, slider({ label: t(lang, `field-${c.key}`), name: c.key,
      min: c.min, max: c.max, step: c.step, text: state.text[c.key], lang,
      onInput: (text) => { state.text[c.key] = text; compute(); } })]));
    const guess = numberField({ label: t(lang, "predict-label"), name: "guess", text: state.guess,
      onInput: (text) => { state.guess = text; state.guessError = text.trim() !== "" && !validGuess(); renderPredict(); } });
    view = {
      controls, guess,
      echo: h("p", { class: "tps-echo", "data-testid": "guess-echo" }),
      reveal: h("div", { class: "tps-reveal", "data-testid": "reveal", "aria-live": "polite" }),
      summary: h("p", { class: "tps-summary", "data-testid": "summary" }),
      plots: h("div", { class: "tps-plots" }),
      legend: h("div"),
      table: h("div", { class: "tps-table-wrap" }),
    };
    fill(el, card({ lang, cls: "tps", title: t(lang, "title"), intro: t(lang, "intro") },
      h("div", { class: "tpw-panel tps-predict" },
        h("h4", {}, t(lang, "predict-title")),
        h("p", {}, t(lang, "predict-prompt")),
        h("div", { class: "tps-guess" }, guess.el,
          h("button", { type: "button", class: "tpw-button", "data-testid": "reveal-button", onclick: reveal }, t(lang, "predict-button"))),
        view.echo, view.reveal),
      h("fieldset", { class: "tps-controls" }, CONTROLS.map((c) => controls[c.key].el)),
      view.summary, view.plots, view.legend, view.table,
      mine.block(lang, tryLearner)));
    renderPredict();
    compute();
  }

  // A prediction is a speedup on 8 GPUs: any number from 0 to 64 (64 already beyond ideal).
  const validGuess = () => readNumber(state.guess, { min: 0, max: 64 }) !== null;

  function reveal() {
    state.guessError = !validGuess();
    if (!state.guessError) state.revealed = true;
    renderPredict();
    compute();
  }

  function renderPredict() {
    const lang = state.lang;
    view.guess.setError(state.guessError ? t(lang, "predict-bad", { text: state.guess }) : "");
    const g = parseNumber(state.guess);
    view.echo.textContent = validGuess() ? t(lang, "predict-echo", { guess: formatFixed(lang, g, 2), eff: formatPercent(lang, g / 8, 1) }) : "";
    if (!state.revealed) return fill(view.reveal);
    const model = scaling(D2_CONFIG).rows;
    const modelAt = (n) => model.find((r) => r.t === n).speedup;
    fill(view.reveal,
      h("table", { class: "tpw-compare tps-d2", "data-testid": "d2-table" },
        h("caption", {}, t(lang, "reveal-title")),
        h("thead", {}, h("tr", {}, ["col-t", "col-paper", "col-paper-eff", "col-model"].map((k) => h("th", { scope: "col" }, t(lang, k))))),
        h("tbody", {}, D2_MEASURED.map((p) => h("tr", {},
          h("th", { scope: "row" }, String(p.t)),
          h("td", {}, formatFixed(lang, p.speedup, p.t === 1 ? 1 : 2)),
          h("td", {}, formatPercent(lang, p.speedup / p.t, p.t === 8 ? 2 : p.t === 4 ? 1 : 0)),
          h("td", {}, formatFixed(lang, modelAt(p.t), 2)))))),
      h("p", { "data-testid": "reveal-guess" }, t(lang, "reveal-guess", {
        guess: formatFixed(lang, g, 2), paper: formatFixed(lang, 2.98, 2), model: formatFixed(lang, modelAt(8), 2) })));
  }

  function read() {
    const cfg = {};
    let ok = true;
    for (const c of CONTROLS) {
      const v = readNumber(state.text[c.key], c.rule.limits);
      view.controls[c.key].setError(v === null ? t(state.lang, c.rule.message, { text: state.text[c.key] }) : "");
      cfg[c.key] = c.scale ? v * c.scale : v;
      ok &&= v !== null;
    }
    return ok ? cfg : null;
  }

  function compute() {
    const lang = state.lang;
    const cfg = read();
    view.cfg = cfg;
    view.key = cfg ? JSON.stringify(cfg) : null;
    view.summary.classList.toggle("tpw-blocked", !cfg);
    if (!cfg) {
      view.summary.textContent = t(lang, "blocked");
      fill(view.plots);
      fill(view.legend);
      fill(view.table);
      renderLearner();
      return;
    }
    const { rows, best } = scaling(cfg);
    view.rows = rows;
    view.summary.textContent = t(lang, "summary", { t: best.t, speedup: formatFixed(lang, best.speedup, 2),
      ms: formatFixed(lang, best.seconds * 1e3, 3), node: cfg.gpusPerNode });
    draw();
    fill(view.table, h("table", { class: "tpw-compare tps-table", "data-testid": "model-table" },
      h("caption", {}, t(lang, "table-caption")),
      h("thead", {}, h("tr", {}, ["col-t", "col-bus", "col-ms", "col-speedup", "col-eff"].map((k) => h("th", { scope: "col" }, t(lang, k))))),
      h("tbody", {}, rows.map((r) => h("tr", { class: r === best ? "is-best" : null, "data-testid": `row-${r.t}` },
        h("th", { scope: "row" }, String(r.t)),
        h("td", {}, formatFixed(lang, r.bus, 2)),
        h("td", {}, formatFixed(lang, r.seconds * 1e3, 3)),
        h("td", { "data-testid": `speedup-${r.t}` }, formatFixed(lang, r.speedup, 2)),
        h("td", {}, formatPercent(lang, r.efficiency, 1)))))));
    renderLearner();
  }

  function learnerPoints() {
    const last = mine.last;
    if (last?.status !== "done" || last.key !== view.key) return null;
    return last.outcome.results.map((y, k) => ({ x: DEGREES[k], y })).filter((p) => typeof p.y === "number" && Number.isFinite(p.y));
  }

  function draw() {
    const { lang } = state, { rows, cfg } = view;
    const width = widthOf(view.plots);
    const yours = learnerPoints();
    const paper = state.revealed ? D2_MEASURED : [];
    const leaves = cfg.gpusPerNode < 64 ? [{ x: cfg.gpusPerNode * Math.SQRT2, label: t(lang, "leaves"), cls: "gpu-3", testid: "leaves" }] : [];
    const common = { width, height: Math.round(Math.min(280, Math.max(200, width * 0.5))), xLabel: t(lang, "x-axis"), vlines: leaves };
    const x = { ticks: DEGREES, log: true };
    const ideal = { name: t(lang, "legend-ideal"), dashed: true, marker: null };
    const model = { name: t(lang, "legend-model"), cls: "gpu-0" };
    const mineLine = { name: t(lang, "legend-yours"), cls: "gpu-1", dashed: true };
    const paperDots = { name: t(lang, "legend-paper"), cls: "gpu-4", line: false, marker: "diamond" };
    const speedMax = Math.max(...rows.map((r) => r.speedup), ...paper.map((p) => p.speedup), ...(yours ?? []).map((p) => Math.min(p.y, 128)), 2);
    const speed = plot({ ...common, testid: "speedup-plot", x,
      title: t(lang, "speedup-title"), yLabel: t(lang, "speedup-axis"),
      desc: t(lang, "speedup-desc", { values: rows.map((r) => `t = ${r.t}: ${formatFixed(lang, r.speedup, 2)}`).join("; ") }),
      y: { max: speedMax * 1.05, format: (v) => formatFixed(lang, v, v < 10 && v % 1 ? 1 : 0) },
      series: [
        { ...ideal, points: DEGREES.filter((d) => d <= speedMax * 1.05).map((d) => ({ x: d, y: d })) },
        { ...model, points: rows.map((r) => ({ x: r.t, y: r.speedup })), testid: "model-line" },
        yours ? { ...mineLine, points: yours, testid: "learner-line" } : null,
        { ...paperDots, points: paper.map((p) => ({ x: p.t, y: p.speedup, testid: `paper-${p.t}`, label: formatFixed(lang, p.speedup, p.t === 1 ? 1 : 2) })) },
      ].filter(Boolean) });
    const eff = plot({ ...common, testid: "efficiency-plot", x,
      title: t(lang, "eff-title"), yLabel: t(lang, "eff-axis"),
      desc: t(lang, "eff-desc", { values: rows.map((r) => `t = ${r.t}: ${formatPercent(lang, r.efficiency, 1)}`).join("; ") }),
      y: { max: 100, format: (v) => formatFixed(lang, v, 0) },
      series: [
        { ...model, points: rows.map((r) => ({ x: r.t, y: 100 * r.efficiency })) },
        yours ? { ...mineLine, points: yours.map((p) => ({ x: p.x, y: (100 * p.y) / p.x })) } : null,
        { ...paperDots, points: paper.map((p) => ({ x: p.t, y: (100 * p.speedup) / p.t })) },
      ].filter(Boolean) });
    fill(view.plots, speed, eff);
    fill(view.legend, legend([model, ideal, paper.length ? paperDots : null, yours ? mineLine : null,
      leaves.length ? { name: t(lang, "leaves"), cls: "gpu-3", dashed: true } : null].filter(Boolean)));
  }

  function tryLearner() {
    const cfg = view.cfg;
    if (!cfg) return;
    mine.start(view.key, DEGREES.map((n) => ({ fn: "tp_speedup", args: [cfg.b, cfg.s, cfg.h, n, cfg.gpuFlops, busFor(n, cfg), cfg.latencyS] })),
      { reference: view.rows.map((r) => r.speedup) });
  }

  function renderLearner() {
    mine.show(state.lang, view.key, (L) => {
      const wrong = L.reference.map((want, k) => {
        const got = L.outcome.results[k];
        return typeof got === "number" && Math.abs(got - want) <= 1e-9 * Math.abs(want) ? null : String(DEGREES[k]);
      }).filter(Boolean);
      return verdict(!wrong.length, wrong.length ? t(state.lang, "mismatch", { which: wrong.join(", ") }) : t(state.lang, "match"),
        wrong.length ? "mismatch" : "match");
    });
  }

  ctx.onLangChange?.((lang) => {
    state.lang = lang;
    for (const c of CONTROLS) state.text[c.key] = String(parseNumber(state.text[c.key]) || state.text[c.key]);
    render();
  });
  render();
  redrawOnResize(el, () => view.cfg && draw());
}
