// The widget's numbers through the kit's formatNumberIn (Intl): "1.64" and "12,345.6" in English,
// "1,64" and "12 345,6" in Polish. What the kit does not have: a fixed number of decimals, a
// percentage, and reading back a number typed either way.
import { formatNumberIn } from "widget-kit/i18n.js";

/** value with exactly `digits` decimals (trailing zeros kept: a table column lines up). */
export function formatFixed(lang, value, digits = 2) {
  return formatNumberIn(lang, value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A percentage: "82%" in English, "82 %" in Polish. */
export function formatPercent(lang, fraction, digits = 1) {
  const text = formatFixed(lang, 100 * fraction, digits);
  return lang === "pl" ? `${text}\u00a0%` : `${text}%`;
}

/** Reads a number typed in either style ("1,64" or "1.64"); NaN when it is not one. */
export function parseNumber(text) {
  const clean = String(text).trim().replace(/[\s\u202f\u00a0]/g, "").replace(",", ".");
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(clean) ? Number(clean) : NaN;
}
