// Widget "sp-memory": the paper's activation memory per layer per GPU for s, b, h, a, t typed by
// the learner, with SP and selective recomputation switches, a bar chart of the five
// configurations and the communication per layer beside it. "Try with my code" runs the
// learner's activation_bytes on the five bars.

import "./sp-memory.css";
import { h, fill } from "widget-kit/dom.js";
import { formatNumberIn, translator } from "widget-kit/i18n.js";
import { card } from "widget-kit/views.js";
import TEXT from "./sp-memory.text.json" with { type: "json" };
import { closeTo, decimalIn } from "widget-kit/matrix.js";
import { fieldGroup, toggle } from "widget-kit/controls.js";
import { live } from "widget-kit/live.js";
import { missesVerdict } from "widget-kit/verdicts.js";
import { activationBytes, commBytes, CONFIGS, GIB } from "../widget-lib/sp-math.js";

export const calls = ["activation_bytes"];

const t = translator(TEXT);
const gib = (bytes, lang) => decimalIn(lang, (bytes / GIB).toFixed(3));
// Learner results are shown as they came back: a GiB value mistaken for bytes stays visible.
const shownBytes = (v, lang) => (Math.abs(v) >= 1000 ? grouped(v, lang) : formatNumberIn(lang, Number(v.toPrecision(6))));
const grouped = (n, lang) => formatNumberIn(lang, Math.round(n));
const close = (got, want) => closeTo(got, want, 1e-9, 0);

/** The five bars for these sizes: [{key, t, sp, recompute, bytes}]. */
export function bars({ s, b, h: hidden, a, t: degree }) {
  return CONFIGS.map((c) => {
    const tt = c.t ?? degree;
    return { ...c, t: tt, bytes: activationBytes(s, b, hidden, a, tt, c.sp, c.recompute) };
  });
}

export function mount(el, ctx) {
  // GPT-3 size, as in the paper: s = 2048, b = 1, h = 12288, a = 96, t = 8.
  const state = { text: { s: "2048", b: "1", h: "12288", a: "96", t: "8" }, sp: true, selective: false };
  let view = null;

  live(el, ctx, t, {
    view(w) {
      const { lang } = w;
      const fields = fieldGroup(["s", "b", "h", "a", "t"].map((name) => ({ name, label: t(lang, `field-${name}`), limits: { integer: true, min: 1 },
        attrs: { inputmode: "numeric" }, error: (text) => t(lang, "not-integer", { text }) })), { text: state.text, onInput: w.update });
      const choice = (key, label) => toggle({ label: t(lang, label), checked: state[key], attrs: { "data-switch": key }, onChange: (on) => { state[key] = on; w.update(); } });
      view = { fields, current: h("p", { class: "spm-current", "data-testid": "current" }), chart: h("div", { class: "spm-chart", "data-testid": "bars" }),
        comm: h("div", { class: "tpw-panel spm-comm", "data-testid": "comm" }) };
      return card({ lang, cls: "spm", title: t(lang, "title"), intro: t(lang, "intro") },
        h("fieldset", { class: "spm-fields" }, fields.els),
        h("div", { class: "spm-switches" }, choice("sp", "switch-sp"), choice("selective", "switch-sel")),
        view.current,
        h("div", { class: "spm-body" }, h("div", { class: "spm-bars" }, h("h4", {}, t(lang, "bars-title")), view.chart), view.comm),
        w.tryBlock());
    },
    update(w) {
      const { lang } = w;
      const sizes = read(lang);
      if (!sizes) {
        view.current.textContent = t(lang, "blocked");
        fill(view.chart);
        fill(view.comm);
        return null;
      }
      const recompute = state.selective ? "selective" : "none";
      const chosenBytes = activationBytes(sizes.s, sizes.b, sizes.h, sizes.a, sizes.t, state.sp, recompute);
      view.current.textContent = t(lang, "current", { bytes: grouped(chosenBytes, lang), gib: gib(chosenBytes, lang) });
      const all = bars(sizes);
      const top = Math.max(...all.map((x) => x.bytes));
      const chosen = all.find((x) => x.t === sizes.t && x.sp === state.sp && x.recompute === recompute && x.key !== "one") ?? null;
      const learnerBytes = w.mine.resultsFor(JSON.stringify(sizes));
      fill(view.chart, all.map((x, k) => h("div", { class: `spm-row ${x === chosen ? "is-chosen" : ""}`, "data-testid": `bar-${x.key}` },
        h("span", { class: "spm-label" }, t(lang, `cfg-${x.key}`, { t: sizes.t })),
        h("span", { class: "spm-track" }, h("span", { class: "spm-bar gpu-0", style: `width: ${(100 * x.bytes) / top}%` })),
        h("span", { class: "spm-value", "data-testid": `value-${x.key}` }, gib(x.bytes, lang)),
        learnerBytes ? h("span", { class: `spm-yours ${close(learnerBytes[k], x.bytes) ? "is-equal" : "is-different"}` },
          t(lang, "yours", { bytes: typeof learnerBytes[k] === "number" ? shownBytes(learnerBytes[k], lang) : JSON.stringify(learnerBytes[k]) })) : null)));
      const [tp, sp] = [false, true].map((seq) => commBytes(sizes.s, sizes.b, sizes.h, sizes.t, seq));
      fill(view.comm, h("h4", {}, t(lang, "comm-title")), sizes.t === 1 ? h("p", {}, t(lang, "comm-one")) : [
        h("p", { "data-testid": "comm-tp" }, t(lang, "comm-tp", { each: grouped(tp.perBlock.allReduce, lang), total: grouped(tp.total, lang) })),
        h("p", { "data-testid": "comm-sp" }, t(lang, "comm-sp", { each: grouped(sp.perBlock.allGather, lang), total: grouped(sp.total, lang) })),
        h("p", { class: "tpw-verdict is-equal" }, "✓ ", t(lang, "comm-same"))]);
      return { input: sizes, bars: all };
    },
    calls: ({ input: sizes, bars: all }) => [all.map((x) => ({ fn: "activation_bytes", args: [sizes.s, sizes.b, sizes.h, sizes.a, x.t, x.sp, x.recompute] })),
      { reference: all.map((x) => x.bytes), bars: all.map((x) => ({ key: x.key, t: x.t })) }],
    result: ({ lang }, L) => missesVerdict(t, lang, L.reference.map((want, k) => (close(L.outcome.results[k], want) ? null : t(lang, `cfg-${L.bars[k].key}`, { t: L.bars[k].t }))).filter(Boolean)),
  });

  function read(lang) {
    const values = view.fields.read();
    // Each GPU holds whole attention heads (Megatron-LM asserts a % t == 0), and with sequence
    // parallelism whole rows of the sequence (s % t == 0): t = 100000 with 96 heads is no layer.
    if (!values) return null;
    const problem = values.a % values.t ? t(lang, "t-heads", { t: values.t, a: values.a })
      : state.sp && values.s % values.t ? t(lang, "t-sequence", { t: values.t, s: values.s }) : "";
    view.fields.fields.t.setError(problem);
    return problem ? null : values;
  }
}
