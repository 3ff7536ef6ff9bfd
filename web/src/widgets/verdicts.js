// The verdict on a list of the learner's answers (one per bar, per degree, per step): ✓ when
// all match, else ✗ naming those that missed. Its texts are the widget's own ("match",
// "mismatch" with {which}), since what was compared differs from widget to widget.

import { verdict } from "./try-mine.js";

/**
 * The verdict on a list of answers, `wrong` being the names of those that missed: ✓ "match",
 * or ✗ "mismatch" naming them ({which}: "2, 4") through the widget's `t`.
 */
export function missesVerdict(t, lang, wrong) {
  return wrong.length ? verdict(false, t(lang, "mismatch", { which: wrong.join(", ") }), "mismatch") : verdict(true, t(lang, "match"), "match");
}

