// A widget's settings: a number field, a slider with a number field beside it, a select and a
// switch, each labelled, each number with its own inline error. Number fields are text inputs
// (not type=number), so what the learner typed stays visible and an error can quote it; they
// read "1,5" as well as "1.5" and show numbers in the page's language.

import { h, uid } from "./dom.js";
import { decimalIn, parseNumber } from "./matrix.js";

/**
 * The number `text` holds if it is one within the rules, else null: `integer` (a whole
 * number), `min`/`max` (inclusive), `above` (exclusive lower bound).
 */
export function readNumber(text, { integer = false, min = -Infinity, max = Infinity, above = -Infinity } = {}) {
  const v = parseNumber(text);
  return Number.isFinite(v) && (!integer || Number.isInteger(v)) && v >= min && v <= max && v > above ? v : null;
}

function numberInput(id, name, text, attrs, onInput) {
  return h("input", {
    type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false", id, class: "tpw-cell",
    "data-field": name, "aria-describedby": `${id}-error`, value: text, ...attrs,
    oninput: (e) => onInput(e.target.value),
  });
}

function errorLine(id, name) {
  return h("span", { class: "tpw-field-error", id: `${id}-error`, "data-testid": `error-${name}`, "aria-live": "polite" });
}

/** setError(text) for `input`: "" clears it. */
function errorSetter(input, error) {
  return (text) => {
    input.setAttribute("aria-invalid", String(Boolean(text)));
    error.textContent = text || "";
  };
}

/**
 * numberField({label, name, text, lang, onInput(text), attrs}) -> {el, input, setError(text)}:
 * a label, its input (`data-field` = name, plus `attrs`; `text` written with `lang`'s decimal
 * separator) and the error line under it (`data-testid` = "error-<name>", linked by
 * aria-describedby).
 */
export function numberField({ label, name, text, lang = "en", onInput, attrs = {} }) {
  const id = uid(`tpw-${name}`);
  const input = numberInput(id, name, decimalIn(lang, text), attrs, onInput);
  const error = errorLine(id, name);
  const el = h("div", { class: "tpw-field" }, h("label", { for: id }, label), input, error);
  return { el, input, setError: errorSetter(input, error) };
}

/**
 * slider({label, name, min, max, step, text, lang, onInput(text)}) -> {el, input, range,
 * setError(text)}: a range input (`data-slider` = name) and a number field beside it that
 * follow each other; the field takes any value, the slider shows it clamped to its range.
 */
export function slider({ label, name, min, max, step, text, lang, onInput }) {
  const id = uid(`tpw-${name}`);
  const clamp = (v) => (Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : min);
  const range = h("input", {
    type: "range", min, max, step, class: "tpw-range", "data-slider": name, "aria-label": label,
    value: clamp(parseNumber(text)),
    oninput: (e) => {
      input.value = decimalIn(lang, e.target.value);
      onInput(e.target.value);
    },
  });
  const input = numberInput(id, name, decimalIn(lang, text), {}, (value) => {
    const v = parseNumber(value);
    if (Number.isFinite(v)) range.value = clamp(v);
    onInput(value);
  });
  const error = errorLine(id, name);
  const el = h("div", { class: "tpw-slider" }, h("label", { for: id }, label), range, input, error);
  return { el, input, range, setError: errorSetter(input, error) };
}

/**
 * select({label, options, value, onChange(value), attrs}) -> a label holding a <select>:
 * `options` are values (numbers are given back as numbers) or {value, text}; `attrs` go on
 * the select (its name for the tests: data-size, data-setting).
 */
export function select({ label, options, value, onChange, attrs = {} }) {
  const items = options.map((o) => (typeof o === "object" ? o : { value: o, text: String(o) }));
  return h("label", { class: "tpw-size" }, h("span", {}, label),
    h("select", { ...attrs, onchange: (e) => onChange(items[e.target.selectedIndex].value) }, items.map((o) => h("option", { value: o.value, selected: o.value === value }, o.text))));
}

/** toggle({label, checked, onChange(checked), attrs}) -> a label holding a checkbox. */
export function toggle({ label, checked, onChange, attrs = {} }) {
  return h("label", { class: "tpw-switch-one" },
    h("input", { type: "checkbox", ...attrs, checked, onchange: (e) => onChange(e.target.checked) }), " ", label);
}

/** radios({legend, options: [{value, text}], value, onChange(value), cls}) -> a fieldset of radio buttons, one chosen. */
export function radios({ legend, options, value, onChange, cls = "" }) {
  const name = uid("tpw-radio");
  return h("fieldset", { class: `tpw-switch ${cls}`.trim(), role: "radiogroup" }, h("legend", {}, legend),
    options.map((o) => h("label", {}, h("input", { type: "radio", name, value: o.value, checked: o.value === value,
      onchange: () => onChange(o.value) }), " ", o.text)));
}

/**
 * fieldGroup(specs, {text, lang, onInput}) -> {fields, els, read()}: a widget's number settings,
 * one numberField per spec, or a slider where the spec has `slider: {min, max, step}`. A spec
 * is {name, label, limits (readNumber's), error(text) (the message for a value outside them),
 * attrs}. `text` ({name: what the learner typed}) is kept up to date; onInput() after each
 * edit. read() shows each field's error or clears it and gives {name: number}, or null while
 * one is not readable.
 */
export function fieldGroup(specs, { text, lang, onInput }) {
  const fields = Object.fromEntries(specs.map((s) => {
    const common = { label: s.label, name: s.name, text: text[s.name], lang, onInput: (value) => { text[s.name] = value; onInput(); } };
    return [s.name, s.slider ? slider({ ...common, ...s.slider }) : numberField({ ...common, attrs: s.attrs })];
  }));
  return {
    fields,
    els: specs.map((s) => fields[s.name].el),
    read() {
      const values = Object.fromEntries(specs.map((s) => [s.name, readNumber(text[s.name], s.limits)]));
      for (const s of specs) fields[s.name].setError(values[s.name] === null ? s.error(text[s.name]) : "");
      return Object.values(values).includes(null) ? null : values;
    },
  };
}

/**
 * stepper({last, label(step), buttons: {back, next, all}, onStep(step)}) -> {el, set(step)}:
 * the controls that walk through a computation's steps 1…last: back, the step's line
 * (`data-testid` "step", read aloud when it changes), next, and "all" (straight to the last);
 * each button's `data-step-button` is its key. set(step) shows a step (kept within 1…last)
 * and disables the buttons that would not move; the buttons call onStep(the step they go to).
 * It stays on screen while the steps change, so the focus stays on the button pressed.
 */
export function stepper({ last, label, buttons, onStep }) {
  let step = 1;
  const button = (key, to) => h("button", { type: "button", class: "tpw-button", "data-step-button": key, onclick: () => onStep(clampStep(to(), last)) }, buttons[key]);
  const line = h("p", { class: "tpw-step", "data-testid": "step", "aria-live": "polite" });
  const back = button("back", () => step - 1), next = button("next", () => step + 1), all = button("all", () => last);
  return {
    el: h("div", { class: "tpw-stepper" }, back, line, next, all),
    set(to) {
      step = clampStep(to, last);
      line.textContent = label(step);
      back.disabled = step === 1;
      next.disabled = all.disabled = step === last;
    },
  };
}

/** `step` kept within 1…last. */
export function clampStep(step, last) {
  return Math.max(1, Math.min(last, step));
}
