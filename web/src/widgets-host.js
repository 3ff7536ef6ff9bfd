// Mounts the live widgets into the placeholders the build renders from `{{ widget: NAME }}`.
// The widgets are the lessons' own (lessons/<slug>/widgets/NAME.js); the build generates the
// `lesson-widgets` module that maps each lesson id to its widget modules (tools/sitebuild/bundle.py).

import "./widgets/widgets.css";
import { widgets } from "lesson-widgets";

export function mountWidgets(doc, { language, runWithLearnerCode }) {
  for (const el of doc.querySelectorAll(".widget[data-widget]")) {
    const name = el.dataset.widget;
    const widget = widgets[el.dataset.lesson]?.[name];
    if (!widget) {
      // `lessonkit check` matches placeholders with the lesson's widget files; this only shows
      // if a page and its bundle come from different builds.
      el.textContent = `Widget "${name}" is missing from this build.`;
      continue;
    }
    try {
      widget.mount(el, {
        lang: language.current,
        onLangChange: (callback) => language.onChange(callback),
        runWithLearnerCode: async (calls) => runWithLearnerCode(declaredOnly(name, widget.calls, calls)),
      });
    } catch (error) {
      // One broken widget must not take the editor and the grader down with it.
      console.error(`widget ${name}:`, error);
      el.textContent = `Widget "${name}" failed to start: ${error.message}`;
    }
  }
}

// A widget runs only the learner functions its `calls` declares: those are the ones
// `lessonkit check` has matched with the lesson's functions, so learners never see a grader
// error about a function their lesson does not have.
function declaredOnly(name, declared, calls) {
  const undeclared = calls.map((c) => c.fn).filter((fn) => !declared.includes(fn));
  if (undeclared.length) {
    throw new Error(`widget ${name} calls ${undeclared.join(", ")}, which its \`calls\` does not declare`);
  }
  return calls;
}
