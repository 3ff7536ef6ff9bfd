// Widget and page text in the course's languages. Each widget keeps its own messages; this
// module looks them up, fills in {placeholders} and writes numbers the language's way.

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
 * translator({en: {key: "Hello {name}"}, pl: {...}}) -> t(lang, key, vars).
 * A message may be:
 * - a string: number vars are written the language's way (formatNumberIn), others as given;
 * - plural forms, {one, few, many, other} (the categories of Intl.PluralRules: English has
 *   one and other, Polish one, few and many), chosen by `vars.count`: "4 liczby", "5 liczb";
 * - a function of vars (for lists and anything else).
 * A key missing in one language falls back to English, so a half-translated widget still
 * shows text.
 */
export function translator(messages) {
  return function t(lang, key, vars = {}) {
    let msg = messages[lang]?.[key] ?? messages.en[key];
    if (msg === undefined) throw new Error(`widget text "${key}" is missing`);
    if (typeof msg === "function") return msg(vars);
    if (typeof msg === "object") msg = inflect(messages[lang]?.[key] ? lang : "en", vars.count, msg);
    return msg.replace(/\{(\w+)\}/g, (_, name) => {
      if (!(name in vars)) return `{${name}}`;
      const value = vars[name];
      return typeof value === "number" ? formatNumberIn(lang, value) : String(value);
    });
  };
}

/** `value` with exactly `digits` decimals, trailing zeros kept (a table column lines up). */
export function formatFixed(lang, value, digits = 2) {
  return formatNumberIn(lang, value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A fraction as a percentage: "82.5%" in English, "82,5 %" in Polish. */
export function formatPercent(lang, fraction, digits = 1) {
  const text = formatFixed(lang, 100 * fraction, digits);
  return lang === "pl" ? `${text}\u00a0%` : `${text}%`;
}
