// Mounts the live widgets into the placeholders the build renders from `{{ widget: NAME }}`.

import { widgets } from "./widgets/index.js";

export function mountWidgets(doc, { language, runWithLearnerCode }) {
  for (const el of doc.querySelectorAll(".widget[data-widget]")) {
    const name = el.dataset.widget;
    const widget = widgets[name];
    if (!widget) {
      // The build checks names against web/widgets.json; this only shows if the two disagree.
      el.textContent = `Widget "${name}" is missing from this build.`;
      continue;
    }
    try {
      widget.mount(el, {
        lang: language.current,
        onLangChange: (callback) => language.onChange(callback),
        runWithLearnerCode,
      });
    } catch (error) {
      // One broken widget must not take the editor and the grader down with it.
      console.error(`widget ${name}:`, error);
      el.textContent = `Widget "${name}" failed to start: ${error.message}`;
    }
  }
}
