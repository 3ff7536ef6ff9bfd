// Widget text in the course's languages. A widget's text lives beside it, in
// widgets/<name>.text.json ({"en": {key: message}, "pl": {...}}; the kit's shared texts in
// ./text.json); this module looks a message up, fills in {placeholders} and writes numbers
// and lists the language's way. The build checks the files (authorkit/widget_text.py).

import KIT_TEXT from "./text.json" with { type: "json" };

/**
 * A number the way `lang` writes it: Polish "50 257" and "1,65", English "50,257" and "1.65".
 * `options` are Intl.NumberFormat's (say {maximumFractionDigits: 3}); by default every digit a
 * float has is kept. Grouping starts at five digits in Polish ("5000"), as in CLDR.
 */
export function formatNumberIn(lang, value, options = {}) {
  if (!Number.isFinite(value)) return String(value);
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 20, ...options }).format(value);
}

/**
 * The form of a word for `count` in `lang`: forms are {one, few, many, other}, the categories
 * of Intl.PluralRules (English: one, other; Polish: one, few, many). `${n} ${inflect("pl", n,
 * {one: "liczba", few: "liczby", many: "liczb"})}` gives "1 liczba", "4 liczby", "5 liczb".
 */
export function inflect(lang, count, forms) {
  return forms[new Intl.PluralRules(lang).select(count)] ?? forms.other ?? forms.many;
}

/**
 * translator(TEXT) -> t(lang, key, vars), TEXT being a widget's {"en": {...}, "pl": {...}}; the
 * kit's shared texts (./text.json: entry errors, "Try with my code", the missed-sum hints) are
 * there too, and the widget's own text overrides them. A message is
 * - a string: {name} is replaced by vars.name: a number written the language's way
 *   (formatNumberIn), a list as the language joins it ("0 and 1", "0 i 1"), anything else as given;
 * - plural forms, {one, few, many, other} (the categories of Intl.PluralRules: English has
 *   one and other, Polish one, few and many), chosen by `vars.count`: "4 liczby", "5 liczb";
 * - (in the page's web/src/ui-text.js only, not in a text file) a function of vars.
 * A key missing in one language falls back to English (the build reports it).
 */
export function translator(text) {
  return function t(lang, key, vars = {}) {
    const [msgLang, msg] = [[lang, text], [lang, KIT_TEXT], ["en", text], ["en", KIT_TEXT]]
      .map(([l, source]) => [l, source[l]?.[key]]).find(([, m]) => m !== undefined) ?? [];
    if (msg === undefined) throw new Error(`widget text "${key}" is missing`);
    if (typeof msg === "function") return msg(vars); // the page's own ui-text.js (JSON holds none)
    const template = typeof msg === "object" ? inflect(msgLang, vars.count, msg) : msg;
    return template.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? written(lang, vars[name]) : `{${name}}`));
  };
}

function written(lang, value) {
  if (Array.isArray(value)) return new Intl.ListFormat(lang, { type: "conjunction" }).format(value.map((v) => written(lang, v)));
  return typeof value === "number" ? formatNumberIn(lang, value) : String(value);
}

/** `value` with exactly `digits` decimals, trailing zeros kept (a table column lines up). */
export function formatFixed(lang, value, digits = 2) {
  return formatNumberIn(lang, value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * A tiny number (a rounding difference) in scientific notation with `digits` decimals, the
 * language's way: "1.7e-16", Polish "1,7e-16"; 0 is "0".
 */
export function formatExponent(lang, value, digits = 1) {
  const text = value === 0 ? "0" : value.toExponential(digits);
  return lang === "pl" ? text.replace(".", ",") : text;
}

/** A fraction as a percentage: "82.5%" in English, "82,5 %" in Polish. */
export function formatPercent(lang, fraction, digits = 1) {
  const text = formatFixed(lang, 100 * fraction, digits);
  return lang === "pl" ? `${text}\u00a0%` : `${text}%`;
}
