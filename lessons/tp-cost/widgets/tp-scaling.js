// Widget "tp-scaling": the cost model's speedup and efficiency against the TP degree t = 1…64,
// for a layer, a GPU and two links the learner sets with sliders (or types); a marker where the
// group leaves the server; Megatron-LM's appendix D.2 points, revealed after the learner has
// predicted them; and "Try with my code", which draws the learner's tp_speedup over the model.

import "./tp-scaling.css";
import { h, fill } from "widget-kit/dom.js";
import { formatFixed, formatPercent, translator } from "widget-kit/i18n.js";
import { card, dataTable, panel } from "widget-kit/views.js";
import TEXT from "./tp-scaling.text.json" with { type: "json" };
import { closeTo, parseNumber } from "widget-kit/matrix.js";
import { fieldGroup, numberField, readNumber } from "widget-kit/controls.js";
import { live } from "widget-kit/live.js";
import { heightFor, legend, plot, redrawOnResize, widthOf } from "widget-kit/plot.js";
import { missesVerdict } from "widget-kit/verdicts.js";
import { D2_CONFIG, D2_MEASURED, DEGREES, busFor, scaling } from "../widget-lib/cost-model.js";

export const calls = ["tp_speedup"];

// Table headers carry soft hyphens (\u00ad), so that a phone can break the long words.
// Each control: its key in the model's configuration, the slider's range, how a typed value is
// read (the model takes FLOP/s and seconds; the controls show TFLOP/s and µs), and `rule`: the
// readNumber limits a value must keep and the message for one that does not.
const WHOLE = { limits: { integer: true, min: 1 }, message: "bad-integer" };
const POSITIVE = { limits: { above: 0 }, message: "bad-positive" };
const CONTROLS = [
  { key: "b", slider: { min: 1, max: 64, step: 1 }, rule: WHOLE },
  { key: "s", slider: { min: 128, max: 8192, step: 128 }, rule: WHOLE },
  { key: "h", slider: { min: 256, max: 16384, step: 128 }, rule: WHOLE },
  { key: "gpuFlops", slider: { min: 1, max: 2000, step: 1 }, scale: 1e12, rule: POSITIVE },
  { key: "intraGBps", slider: { min: 1, max: 1000, step: 1 }, rule: POSITIVE },
  { key: "interGBps", slider: { min: 0.25, max: 400, step: 0.25 }, rule: POSITIVE },
  { key: "gpusPerNode", slider: { min: 1, max: 64, step: 1 }, rule: WHOLE },
  { key: "latencyS", slider: { min: 0, max: 100, step: 0.5 }, scale: 1e-6, rule: { limits: { min: 0 }, message: "bad-zero" } },
];

const t = translator(TEXT);

/** The value a control shows for a model value (TFLOP/s for FLOP/s, µs for seconds). */
const shown = (c, value) => (c.scale ? value / c.scale : value);

export function mount(el, ctx) {
  const state = {
    text: Object.fromEntries(CONTROLS.map((c) => [c.key, String(+shown(c, D2_CONFIG[c.key]).toFixed(6))])),
    guess: "",
    revealed: false,
    guessError: false,
  };
  let view = null;
  // A prediction is a speedup on 8 GPUs: any number from 0 to 64 (64 already beyond ideal).
  const validGuess = () => readNumber(state.guess, { min: 0, max: 64 }) !== null;
  const head = (lang, keys) => keys.map((k) => t(lang, k));

  const w = live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      // A language switch writes the typed numbers again the new language's way ("1,5" ↔ "1.5").
      for (const c of CONTROLS) state.text[c.key] = String(parseNumber(state.text[c.key]) || state.text[c.key]);
      const controls = fieldGroup(CONTROLS.map((c) => ({ name: c.key, label: t(lang, `field-${c.key}`), slider: c.slider, limits: c.rule.limits,
        error: (text) => t(lang, c.rule.message, { text }) })), { text: state.text, lang, onInput: w.update });
      const guess = numberField({ label: t(lang, "predict-label"), name: "guess", text: state.guess,
        onInput: (text) => { state.guess = text; state.guessError = text.trim() !== "" && !validGuess(); renderPredict(lang); } });
      view = { controls, guess, echo: h("p", { class: "tps-echo", "data-testid": "guess-echo" }),
        reveal: h("div", { class: "tps-reveal", "data-testid": "reveal", "aria-live": "polite" }),
        summary: h("p", { class: "tps-summary", "data-testid": "summary" }), plots: h("div", { class: "tps-plots" }), legend: h("div"), table: h("div", { class: "tps-table-wrap" }) };
      renderPredict(lang);
      return card({ lang, cls: "tps", title: t(lang, "title"), intro: t(lang, "intro") },
        panel({ cls: "tps-predict", title: t(lang, "predict-title") }, h("p", {}, t(lang, "predict-prompt")),
          h("div", { class: "tps-guess" }, guess.el, h("button", { type: "button", class: "tpw-button", "data-testid": "reveal-button", onclick: reveal }, t(lang, "predict-button"))),
          view.echo, view.reveal),
        h("fieldset", { class: "tps-controls" }, controls.els),
        view.summary, view.plots, view.legend, view.table, w.tryBlock());
    },
    update(w) {
      const { lang } = w;
      const read = view.controls.read();
      view.summary.classList.toggle("tpw-blocked", !read);
      if (!read) {
        view.summary.textContent = t(lang, "blocked");
        [view.plots, view.legend, view.table].forEach((box) => fill(box));
        return null;
      }
      const cfg = Object.fromEntries(CONTROLS.map((c) => [c.key, c.scale ? read[c.key] * c.scale : read[c.key]]));
      const { rows, best } = scaling(cfg);
      view.summary.textContent = t(lang, "summary", { t: best.t, speedup: formatFixed(lang, best.speedup, 2), ms: formatFixed(lang, best.seconds * 1e3, 3), node: cfg.gpusPerNode });
      view.drawn = { rows, cfg };
      draw(lang, w.mine);
      fill(view.table, dataTable({ cls: "tpw-compare tps-table", testid: "model-table", caption: t(lang, "table-caption"), head: head(lang, ["col-t", "col-bus", "col-ms", "col-speedup", "col-eff"]),
        rows: rows.map((r) => ({ class: r === best ? "is-best" : null, "data-testid": `row-${r.t}`, cells: [String(r.t), formatFixed(lang, r.bus, 2),
          formatFixed(lang, r.seconds * 1e3, 3), { text: formatFixed(lang, r.speedup, 2), "data-testid": `speedup-${r.t}` }, formatPercent(lang, r.efficiency, 1)] })) }));
      return { input: cfg, rows };
    },
    calls: ({ input: cfg, rows }) => [DEGREES.map((n) => ({ fn: "tp_speedup", args: [cfg.b, cfg.s, cfg.h, n, cfg.gpuFlops, busFor(n, cfg), cfg.latencyS] })),
      { reference: rows.map((r) => r.speedup) }],
    result: ({ lang }, L) => missesVerdict(t, lang, L.reference.map((want, k) => (closeTo(L.outcome.results[k], want, 1e-9, 0) ? null : String(DEGREES[k]))).filter(Boolean)),
  });

  function reveal() {
    state.guessError = !validGuess();
    if (!state.guessError) state.revealed = true;
    renderPredict(w.lang);
    w.update();
  }

  function renderPredict(lang) {
    view.guess.setError(state.guessError ? t(lang, "predict-bad", { text: state.guess }) : "");
    const g = parseNumber(state.guess);
    view.echo.textContent = validGuess() ? t(lang, "predict-echo", { guess: formatFixed(lang, g, 2), eff: formatPercent(lang, g / 8, 1) }) : "";
    if (!state.revealed) return fill(view.reveal);
    const modelAt = (n) => scaling(D2_CONFIG).rows.find((r) => r.t === n).speedup;
    fill(view.reveal,
      dataTable({ cls: "tpw-compare tps-d2", testid: "d2-table", caption: t(lang, "reveal-title"), head: head(lang, ["col-t", "col-paper", "col-paper-eff", "col-model"]),
        rows: D2_MEASURED.map((p) => [String(p.t), formatFixed(lang, p.speedup, p.t === 1 ? 1 : 2),
          formatPercent(lang, p.speedup / p.t, p.t === 8 ? 2 : p.t === 4 ? 1 : 0), formatFixed(lang, modelAt(p.t), 2)]) }),
      h("p", { "data-testid": "reveal-guess" }, t(lang, "reveal-guess", { guess: formatFixed(lang, g, 2), paper: formatFixed(lang, 2.98, 2), model: formatFixed(lang, modelAt(8), 2) })));
  }

  function draw(lang, mine) {
    const { rows, cfg } = view.drawn;
    const width = widthOf(view.plots);
    const yours = mine.resultsFor(JSON.stringify(cfg))?.map((y, k) => ({ x: DEGREES[k], y })).filter((p) => typeof p.y === "number" && Number.isFinite(p.y));
    const paper = state.revealed ? D2_MEASURED : [];
    const leaves = cfg.gpusPerNode < 64 ? [{ x: cfg.gpusPerNode * Math.SQRT2, label: t(lang, "leaves"), cls: "gpu-3", testid: "leaves" }] : [];
    const common = { width, height: heightFor(width, 200), xLabel: t(lang, "x-axis"), vlines: leaves, x: { ticks: DEGREES, log: true } };
    const ideal = { name: t(lang, "legend-ideal"), dashed: true, marker: null };
    const model = { name: t(lang, "legend-model"), cls: "gpu-0" };
    const mineLine = { name: t(lang, "legend-yours"), cls: "gpu-1", dashed: true };
    const paperDots = { name: t(lang, "legend-paper"), cls: "gpu-4", line: false, marker: "diamond" };
    const speedMax = Math.max(...rows.map((r) => r.speedup), ...paper.map((p) => p.speedup), ...(yours ?? []).map((p) => Math.min(p.y, 128)), 2);
    const speed = plot({ ...common, testid: "speedup-plot", title: t(lang, "speedup-title"), yLabel: t(lang, "speedup-axis"),
      desc: t(lang, "speedup-desc", { values: rows.map((r) => `t = ${r.t}: ${formatFixed(lang, r.speedup, 2)}`).join("; ") }),
      y: { max: speedMax * 1.05, format: (v) => formatFixed(lang, v, v < 10 && v % 1 ? 1 : 0) },
      series: [
        { ...ideal, points: DEGREES.filter((d) => d <= speedMax * 1.05).map((d) => ({ x: d, y: d })) },
        { ...model, points: rows.map((r) => ({ x: r.t, y: r.speedup })), testid: "model-line" },
        yours ? { ...mineLine, points: yours, testid: "learner-line" } : null,
        { ...paperDots, points: paper.map((p) => ({ x: p.t, y: p.speedup, testid: `paper-${p.t}`, label: formatFixed(lang, p.speedup, p.t === 1 ? 1 : 2) })) },
      ].filter(Boolean) });
    const eff = plot({ ...common, testid: "efficiency-plot", title: t(lang, "eff-title"), yLabel: t(lang, "eff-axis"),
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

  redrawOnResize(el, () => w.current && draw(w.lang, w.mine));
}
