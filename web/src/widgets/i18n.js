// Widget text in the page's languages. Each widget keeps its own messages; this module only
// looks them up and fills in {placeholders}.

/**
 * translator({en: {key: "Hello {name}"}, pl: {...}}) -> t(lang, key, vars).
 * A message may also be a function of vars (for plurals and lists). A key missing in one
 * language falls back to English, so a half-translated widget still shows text.
 */
export function translator(messages) {
  return function t(lang, key, vars = {}) {
    const msg = messages[lang]?.[key] ?? messages.en[key];
    if (msg === undefined) throw new Error(`widget text "${key}" is missing`);
    if (typeof msg === "function") return msg(vars);
    return msg.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
  };
}
