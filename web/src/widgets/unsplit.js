// The check every tensor-parallel widget shows under its GPUs: the split computation gives what
// one device computes unsplit. Its texts are the widget's own ("equal", "not-equal" with
// {diff}), since what is compared differs from widget to widget.

import { verdict } from "./try-mine.js";

/**
 * ✓ "equal", or ✗ "not-equal" with {diff} (the largest difference, written as the widget
 * writes it), as `data-testid="equal"`.
 */
export function unsplitVerdict(t, lang, equal, diff) {
  return verdict(equal, equal ? t(lang, "equal") : t(lang, "not-equal", { diff }), null, "equal");
}
