// Mounts the live widgets into the placeholders the build renders from `{{ widget: NAME }}`.
// The widgets are the lessons' own (lessons/<slug>/widgets/NAME.js); the build generates the
// `lesson-widgets` module that maps each lesson id to its widget modules (tools/sitebuild/bundle.py).

import "./widgets/widgets.css";
import { widgets } from "lesson-widgets";
import { sourceLocation } from "./source-location.js";

export function mountWidgets(doc, { language, runWithLearnerCode }) {
  // A `serve --watch` build (its pages carry the live-reload script) names a widget's errors by
  // the lesson's own file and line, also those thrown later by the widget's event handlers.
  const live = doc.getElementById("live-reload") !== null;
  if (live) {
    doc.defaultView.addEventListener("error", async (event) => {
      const at = await sourceLocation(event.error);
      if (at?.startsWith("lessons/")) console.error(`widget error at ${at}: ${event.message}`);
    });
  }
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
      el.textContent = `Widget "${name}" failed to start: ${error.message}`;
      if (!live) console.error(`widget ${name}:`, error);
      else {
        sourceLocation(error).then((at) => {
          if (at) el.textContent += ` (${at})`;
          console.error(`widget ${name}${at ? ` at ${at}` : ""}:`, error);
        });
      }
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
