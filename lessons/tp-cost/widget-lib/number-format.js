// Numbers as each language writes them: "1.64" and "12 345.6" in English, "1,64" and
// "12 345,6" in Polish (a thin no-break space between thousands, a comma before decimals).

const THIN = "\u202f";

/** value with `digits` decimals (trailing zeros kept), grouped in thousands, in lang's style. */
export function formatNumber(lang, value, digits = 2) {
  if (!Number.isFinite(value)) return String(value);
  const fixed = Math.abs(value).toFixed(digits);
  const [whole, frac] = fixed.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, THIN);
  const sign = value < 0 && Number(fixed) !== 0 ? "\u2212" : "";
  return sign + grouped + (frac ? (lang === "pl" ? "," : ".") + frac : "");
}

/** A percentage: "82%" in English, "82 %" in Polish. */
export function formatPercent(lang, fraction, digits = 1) {
  const text = formatNumber(lang, 100 * fraction, digits);
  return lang === "pl" ? `${text}\u00a0%` : `${text}%`;
}

/** Reads a number typed in either style ("1,64" or "1.64"); NaN when it is not one. */
export function parseNumber(text) {
  const clean = String(text).trim().replace(/[\s\u202f\u00a0]/g, "").replace(",", ".");
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(clean) ? Number(clean) : NaN;
}
