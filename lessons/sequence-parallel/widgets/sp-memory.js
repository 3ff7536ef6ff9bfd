// Widget "sp-memory": the paper's activation memory per layer per GPU for s, b, h, a, t typed by
// the learner, with SP and selective recomputation switches, a bar chart of the five
// configurations and the communication per layer beside it. "Try with my code" runs the
// learner's activation_bytes on the five bars.

import "./sp-memory.css";
import { h, fill } from "widget-kit/dom.js";
import { formatNumberIn, translator } from "widget-kit/i18n.js";
import { card } from "widget-kit/views.js";
import TEXT from "./sp-memory.text.json" with { type: "json" };
import { decimalIn } from "widget-kit/matrix.js";
import { numberField, readNumber, toggle } from "widget-kit/controls.js";
import { tryMine, verdict } from "widget-kit/try-mine.js";
import { activationBytes, commBytes, CONFIGS, GIB } from "../widget-lib/sp-math.js";

export const calls = ["activation_bytes"];

// GPT-3 size, as in the paper: s = 2048, b = 1, h = 12288, a = 96, t = 8.
const DEFAULTS = { s: "2048", b: "1", h: "12288", a: "96", t: "8" };
const FIELDS = ["s", "b", "h", "a", "t"];

const t = translator(TEXT);
const gib = (bytes, lang) => decimalIn(lang, (bytes / GIB).toFixed(3));
// Learner results are shown as they came back: a GiB value mistaken for bytes stays visible.
const shownBytes = (v, lang) => (Math.abs(v) >= 1000 ? grouped(v, lang) : formatNumberIn(lang, Number(v.toPrecision(6))));
const grouped = (n, lang) => formatNumberIn(lang, Math.round(n));

/** The five bars for these sizes: [{key, t, sp, recompute, bytes}]. */
export function bars({ s, b, h: hidden, a, t: degree }) {
  return CONFIGS.map((c) => {
    const tt = c.t ?? degree;
    return { ...c, t: tt, bytes: activationBytes(s, b, hidden, a, tt, c.sp, c.recompute) };
  });
}

export function mount(el, ctx) {
  const mine = tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => compute() });
  const state = { lang: ctx.lang ?? "en", text: { ...DEFAULTS }, sp: true, selective: false };
  let view = null;

  function render() {
    const lang = state.lang;
    const fields = Object.fromEntries(FIELDS.map((name) => [name, numberField({ label: t(lang, `field-${name}`), name,
      text: state.text[name], attrs: { inputmode: "numeric" }, onInput: (text) => { state.text[name] = text; compute(); } })]));
    const choice = (key, label) => toggle({ label: t(lang, label), checked: state[key], attrs: { "data-switch": key },
      onChange: (on) => { state[key] = on; compute(); } });
    view = {
      fields,
      current: h("p", { class: "spm-current", "data-testid": "current" }),
      chart: h("div", { class: "spm-chart", "data-testid": "bars" }),
      comm: h("div", { class: "tpw-panel spm-comm", "data-testid": "comm" }),
    };
    fill(el, card(
      { lang, cls: "spm", title: t(lang, "title"), intro: t(lang, "intro") },
      h("fieldset", { class: "spm-fields" }, Object.values(fields).map((f) => f.el)),
      h("div", { class: "spm-switches" }, choice("sp", "switch-sp"), choice("selective", "switch-sel")),
      view.current,
      h("div", { class: "spm-body" },
        h("div", { class: "spm-bars" }, h("h4", {}, t(lang, "bars-title")), view.chart),
        view.comm),
      mine.block(lang, tryLearner)
    ));
    compute();
  }

  function read() {
    const values = {};
    for (const name of FIELDS) {
      values[name] = readNumber(state.text[name], { integer: true, min: 1 });
      view.fields[name].setError(values[name] === null ? t(state.lang, "not-integer", { text: state.text[name] }) : "");
    }
    let ok = !Object.values(values).includes(null);
    // Each GPU holds whole attention heads (Megatron-LM asserts a % t == 0), and with sequence
    // parallelism whole rows of the sequence (s % t == 0): t = 100000 with 96 heads is no layer.
    if (ok) {
      const problem = values.a % values.t ? t(state.lang, "t-heads", { t: values.t, a: values.a })
        : state.sp && values.s % values.t ? t(state.lang, "t-sequence", { t: values.t, s: values.s }) : "";
      view.fields.t.setError(problem);
      ok = !problem;
    }
    return ok ? values : null;
  }

  function compute() {
    const lang = state.lang;
    const sizes = read();
    if (!sizes) {
      view.current.textContent = t(lang, "blocked");
      fill(view.chart);
      fill(view.comm);
      view.sizes = null;
      view.key = null;
      renderLearner();
      return;
    }
    view.sizes = sizes;
    view.key = JSON.stringify(sizes);
    const chosenBytes = activationBytes(sizes.s, sizes.b, sizes.h, sizes.a, sizes.t, state.sp, state.selective ? "selective" : "none");
    view.current.textContent = t(lang, "current", { bytes: grouped(chosenBytes, lang), gib: gib(chosenBytes, lang) });
    const all = bars(sizes);
    view.bars = all;
    const top = Math.max(...all.map((x) => x.bytes));
    const chosen = all.find((x) => x.t === sizes.t && x.sp === state.sp && x.recompute === (state.selective ? "selective" : "none") && x.key !== "one") ?? null;
    const learnerBytes = mine.last?.status === "done" && mine.last.key === view.key ? mine.last.outcome.results : null;
    fill(view.chart, all.map((x, k) => h(
      "div", { class: `spm-row ${x === chosen ? "is-chosen" : ""}`, "data-testid": `bar-${x.key}` },
      h("span", { class: "spm-label" }, t(lang, `cfg-${x.key}`, { t: sizes.t })),
      h("span", { class: "spm-track" }, h("span", { class: "spm-bar gpu-0", style: `width: ${(100 * x.bytes) / top}%` })),
      h("span", { class: "spm-value", "data-testid": `value-${x.key}` }, gib(x.bytes, lang)),
      learnerBytes ? h("span", { class: `spm-yours ${close(learnerBytes[k], x.bytes) ? "is-equal" : "is-different"}` }, t(lang, "yours", { bytes: typeof learnerBytes[k] === "number" ? shownBytes(learnerBytes[k], lang) : JSON.stringify(learnerBytes[k]) })) : null
    )));
    if (sizes.t === 1) {
      fill(view.comm, h("h4", {}, t(lang, "comm-title")), h("p", {}, t(lang, "comm-one")));
    } else {
      const tp = commBytes(sizes.s, sizes.b, sizes.h, sizes.t, false);
      const sp = commBytes(sizes.s, sizes.b, sizes.h, sizes.t, true);
      fill(view.comm, h("h4", {}, t(lang, "comm-title")),
        h("p", { "data-testid": "comm-tp" }, t(lang, "comm-tp", { each: grouped(tp.perBlock.allReduce, lang), total: grouped(tp.total, lang) })),
        h("p", { "data-testid": "comm-sp" }, t(lang, "comm-sp", { each: grouped(sp.perBlock.allGather, lang), total: grouped(sp.total, lang) })),
        h("p", { class: "tpw-verdict is-equal" }, "✓ ", t(lang, "comm-same")));
    }
    renderLearner();
  }

  const close = (got, want) => typeof got === "number" && Math.abs(got - want) <= 1e-9 * Math.abs(want);

  function tryLearner() {
    const sizes = view.sizes;
    if (!sizes) return;
    mine.start(view.key, view.bars.map((x) => ({ fn: "activation_bytes", args: [sizes.s, sizes.b, sizes.h, sizes.a, x.t, x.sp, x.recompute] })),
      { reference: view.bars.map((x) => x.bytes), bars: view.bars.map((x) => ({ key: x.key, t: x.t })) });
  }

  function renderLearner() {
    mine.show(state.lang, view.key, (L) => {
      const lang = state.lang;
      const wrong = L.reference.map((want, k) => (close(L.outcome.results[k], want) ? null : t(lang, `cfg-${L.bars[k].key}`, { t: L.bars[k].t }))).filter(Boolean);
      return verdict(!wrong.length, wrong.length ? t(lang, "mismatch", { which: wrong.join(", ") }) : t(lang, "match"), wrong.length ? "mismatch" : "match");
    });
  }

  ctx.onLangChange?.((lang) => { state.lang = lang; render(); });
  render();
}
