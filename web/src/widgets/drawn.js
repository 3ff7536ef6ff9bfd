// The life of every widget on the page: drawn in the page's language, drawn again when the
// learner switches it, recomputed after every edit. A widget that runs the learner's code adds
// "Try with my code" to it through live.js; one that runs none uses this alone.

import { fill } from "./dom.js";

/**
 * drawn(el, ctx, {view, update}, w = {}) -> w, the widget mounted in `el`:
 * - view(w): the nodes of the whole widget in `w.lang`; drawn on mount, on a language switch
 *   and by `w.render(focus)`, which then focuses the element matching the CSS selector
 *   `focus` (the select the learner just changed);
 * - update(w): recomputes from what the learner typed; runs after every render and on
 *   `w.update()` (call it after every edit).
 * `w` may bring fields of its own (live.js's); it gets `lang`, `render` and `update`.
 */
export function drawn(el, ctx, { view, update }, w = {}) {
  Object.assign(w, {
    lang: ctx.lang ?? "en",
    render(focus) {
      fill(el, view(w));
      if (focus) el.querySelector(focus)?.focus();
      w.update();
    },
    update: () => update(w),
  });
  ctx.onLangChange?.((lang) => {
    w.lang = lang;
    w.render();
  });
  w.render();
  return w;
}
