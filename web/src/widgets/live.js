// The life of a widget on the page, the same in every widget: drawn in the page's language and
// drawn again when the learner switches it, recomputed on every edit, and "Try with my code"
// run on the numbers the widget shows now. A widget gives what is its own (what it draws, how it
// computes, what it runs and how it judges the answer); this keeps the rest.

import { drawn } from "./drawn.js";
import { tryMine } from "./try-mine.js";

/**
 * live(el, ctx, t, {view, update, calls, result}) -> w, the widget mounted in `el` (drawn.js's
 * life, with "Try with my code"):
 * - view(w): the nodes of the whole widget in `w.lang` (its card); put `w.tryBlock()` where
 *   "Try with my code" goes. Drawn on mount, on a language switch and by `w.render(focus)`;
 * - update(w): recomputes from what the learner typed (after every edit: call `w.update()`)
 *   and returns `current`, the numbers shown now (`{input, ...}`, its `key` by default
 *   JSON.stringify(input)), or null while an entry is unreadable (the button is then disabled);
 * - calls(current) -> [calls, extra]: what "Try with my code" runs (runWithLearnerCode's
 *   list) and what the comparison needs later (tryMine's `start`);
 * - result(w, last): the nodes for a finished run (tryMine's `show`).
 * w has `lang`, `mine` (the tryMine), `current`, `render(focus)` (draw anew, then focus the
 * element matching the CSS selector `focus`: the select the learner just changed),
 * `update()` and `tryBlock()`.
 */
export function live(el, ctx, t, { view, update, calls, result }) {
  const w = {
    current: null,
    mine: tryMine({ run: ctx.runWithLearnerCode, t, onChange: () => w.update() }),
    tryBlock: () => w.mine.block(w.lang, () => w.current && w.mine.start(w.current.key, ...calls(w.current))),
  };
  return drawn(el, ctx, {
    view,
    update() {
      const current = update(w) ?? null;
      if (current) current.key ??= JSON.stringify(current.input);
      w.current = current;
      w.mine.show(w.lang, current?.key ?? null, (last) => result(w, last));
    },
  }, w);
}
