// The course's central mistake, in "Try with my code": a result that should be the sum over
// the GPUs of their shares, but is one GPU's share alone, some of the shares added up, or
// their mean. The same recognition and the same sentences as the grader's
// (lessonkit.checking.missed_sum), so a learner reads one explanation wherever they meet it.

import { h } from "./dom.js";
import { allClose, hasShape } from "./matrix.js";

/** "Y_0 + Y_1" for 2 GPUs, "Y_0 + Y_1 + Y_2" for 3, "Y_0 + Y_1 + … + Y_7" beyond. */
export function sumTerms(name, n) {
  if (n <= 3) return Array.from({ length: n }, (_, i) => `${name}_${i}`).join(" + ");
  return `${name}_0 + ${name}_1 + … + ${name}_${n - 1}`;
}

/** The sets of two or more GPUs, not all n, a wrong loop may add up (as the grader's _subsets). */
function subsets(n) {
  const found = [];
  if (n <= 4) {
    for (let mask = 1; mask < (1 << n) - 1; mask++) {
      const gpus = [...Array(n).keys()].filter((i) => mask & (1 << i));
      if (gpus.length >= 2) found.push(gpus);
    }
    return found;
  }
  const all = [...Array(n).keys()];
  for (let j = 0; j < n; j++) found.push(all.filter((i) => i !== j));
  for (let k = 2; k < n; k++) found.push(all.slice(0, k), all.slice(n - k));
  return found;
}

const close = (got, want) => hasShape(got, [want.length]) && allClose(got, want, 1e-5);

const added = (shares, gpus) => shares[0].map((_, k) => gpus.reduce((sum, i) => sum + shares[i][k], 0));

/**
 * What `got` (a flat list of numbers) is, when `shares` (one flat list per GPU) should have
 * been added up: {key, vars} for the translator, or null when it is none of these.
 */
export function missedSum(got, shares) {
  const n = shares.length;
  if (n < 2 || !Array.isArray(got)) return null;
  for (let i = 0; i < n; i++) if (close(got, shares[i])) return { key: "missed-one", vars: { i } };
  for (const gpus of subsets(n)) if (close(got, added(shares, gpus))) return { key: "missed-some", vars: { gpus: gpus.join(", ") } };
  const mean = added(shares, [...Array(n).keys()]).map((x) => x / n);
  if (close(got, mean)) return { key: "missed-mean", vars: { n } };
  return null;
}

/** The hint's line (`data-testid="learner-sum-hint"`) under a run's verdict, or null when `got` is none of these. */
export function missedSumLine(t, lang, got, shares, options) {
  const hint = missedSumHint(t, lang, got, shares, options);
  return hint && h("p", { class: "tpw-hint", "data-testid": "learner-sum-hint" }, hint);
}

/** The hint's sentence in `lang` through the widget's translator `t`, or null. */
export function missedSumHint(t, lang, got, shares, { total = "Y", share = total } = {}) {
  const found = missedSum(got, shares);
  if (!found) return null;
  return t(lang, found.key, { ...found.vars, total, share, terms: sumTerms(share, shares.length) });
}
