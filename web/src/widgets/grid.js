// Editable matrices and vectors as tables of labelled text inputs, and their inline errors.
// Text inputs (not type=number) so that whatever the learner types stays visible and can be
// reported ("“1..2” is not a number") instead of silently becoming an empty value.

import { h, fill, uid } from "./dom.js";
import { parseEntry, formatNumber } from "./matrix.js";

/** The accessible name of one entry: "A[0][1]" for a matrix, "X[1]" for a vector. */
export function entryName(name, r, c, vector) {
  return vector ? `${name}[${c}]` : `${name}[${r}][${c}]`;
}

/**
 * A table of inputs. `values` is number[][] (one row for a vector). `cellClass(r, c)` gives
 * extra classes (the GPU colour), `rowHead(r)` / `colHead(c)` optional header content.
 * Returns {table, inputs} with inputs[r][c].
 */
export function inputGrid({ name, values, vector = false, cellClass, rowHead, colHead, onInput }) {
  const inputs = values.map((row, r) =>
    row.map((v, c) =>
      h("input", {
        type: "text",
        inputmode: "decimal",
        autocomplete: "off",
        spellcheck: "false",
        class: "tpw-cell",
        "aria-label": entryName(name, r, c, vector),
        value: formatNumber(v).replace("\u2212", "-"),
        oninput: onInput,
      })
    )
  );
  const head = colHead
    ? h("thead", {}, h("tr", {}, rowHead ? h("td") : null, values[0].map((_, c) => h("th", { scope: "col", "data-col": c }, colHead(c)))))
    : null;
  const body = h(
    "tbody",
    {},
    inputs.map((row, r) =>
      h(
        "tr",
        {},
        rowHead ? h("th", { scope: "row", "data-row": r }, rowHead(r)) : null,
        row.map((input, c) => h("td", { class: cellClass ? cellClass(r, c) : null }, input))
      )
    )
  );
  const table = h("table", { class: "tpw-grid" }, head, body);
  return { table, inputs };
}

/**
 * Reads a grid: {values: number[][] | null, errors: [{input, name, text, reason}]}. `limit`:
 * the largest magnitude the widget's arithmetic stays finite and readable for; a larger
 * entry is "too-large", like one beyond what a float holds.
 */
export function readGrid(inputs, { limit = Infinity } = {}) {
  const errors = [];
  const values = inputs.map((row) =>
    row.map((input) => {
      let parsed = parseEntry(input.value);
      if (parsed.ok && Math.abs(parsed.value) > limit) parsed = { ok: false, reason: "too-large" };
      if (parsed.ok) return parsed.value;
      errors.push({ input, name: input.getAttribute("aria-label"), text: input.value.trim(), reason: parsed.reason });
      return NaN;
    })
  );
  for (const row of inputs) for (const input of row) markInvalid(input, null);
  return { values: errors.length ? null : values, errors };
}

/**
 * Shows messages inline in `box` (right under the field they belong to), each as its own
 * role="alert" paragraph linked to the offending input by aria-describedby. `messages` is
 * [{input?, text}]; an empty list clears the box.
 */
export function showErrors(box, messages) {
  fill(
    box,
    messages.map(({ input, text }) => {
      const id = uid("tpw-err");
      if (input) markInvalid(input, id);
      return h("p", { class: "tpw-error", role: "alert", id }, text);
    })
  );
}

function markInvalid(input, messageId) {
  if (messageId) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", messageId);
  } else {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  }
}

/** The learner-facing sentence for one unreadable entry. */
export function entryErrorText(t, lang, error) {
  return t(lang, `entry-${error.reason}`, { name: error.name, text: error.text });
}

/**
 * What the learner typed in a matrix (`texts`), resized to rows × cols: the entries that
 * overlap kept, new ones `fill(r, c)` ("0" unless given).
 */
export function resizeTexts(texts, rows, cols, fill = () => "0") {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => texts[r]?.[c] ?? fill(r, c)));
}

/**
 * matrixInput({name, caption, values, vector, cellClass, rowHead, colHead, onInput, cls, testid, text, key})
 * -> {el, table, inputs, texts(), read(t, lang, {limit})}: an editable matrix under its caption
 * with its inline errors below it (`data-testid` = testid, by default "errors-<name>").
 * read() shows the unreadable entries' messages (the kit's "entry-*" texts, through the widget's t) and
 * gives the numbers, or null while one is unreadable; texts() is what the learner typed.
 * With `text` (the widget's {key: what was typed}, `key` by default `name`), the matrix shows
 * text[key] and keeps it up to date before each onInput(), as fieldGroup does for its fields.
 */
export function matrixInput({ name, caption, cls = "", testid, text, key = name, ...grid }) {
  if (text) {
    const { onInput } = grid;
    Object.assign(grid, { values: text[key], onInput: () => { text[key] = texts(); onInput(); } });
  }
  const { table, inputs } = inputGrid({ name, ...grid });
  const texts = () => inputs.map((row) => row.map((input) => input.value));
  const errors = h("div", { class: "tpw-errors", "data-testid": testid ?? `errors-${name}` });
  return {
    el: h("figure", { class: `tpw-matrix ${cls}`.trim() }, h("figcaption", {}, caption), table, errors),
    table, inputs,
    texts,
    read(t, lang, options) {
      const { values, errors: bad } = readGrid(inputs, options);
      showErrors(errors, bad.map((e) => ({ input: e.input, text: entryErrorText(t, lang, e) })));
      return values;
    },
  };
}
