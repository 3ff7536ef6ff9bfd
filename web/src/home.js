// The home page: each lesson's state from this browser's progress (not started, in progress,
// passed) and a link to continue where the learner left off.

import { uiText } from "./ui-text.js";

const STATE_KEYS = { new: "notStarted", started: "inProgress", passed: "passedLesson" };

export function showHomeProgress(doc, course, language) {
  const items = [...doc.querySelectorAll(".lesson-list [data-lesson-id]")];
  const continueLink = doc.getElementById("continue");
  if (!items.length || !continueLink) return;
  const render = () => {
    const lang = language.current;
    for (const item of items) {
      const state = course.state(item.dataset.lessonId);
      item.dataset.state = state;
      item.querySelector(".lesson-state").textContent = uiText(lang, STATE_KEYS[state]);
    }
    // The lesson visited last if it is not passed yet, else the first one not passed.
    const last = items.find((i) => i.dataset.lessonId === course.data.last && i.dataset.state !== "passed");
    const target = last || items.find((i) => i.dataset.state !== "passed");
    const link = continueLink.querySelector("a");
    if (!target) {
      link.removeAttribute("href");
      link.textContent = uiText(lang, "allDone");
    } else {
      link.href = target.querySelector("a").getAttribute("href");
      const titles = target.querySelector(".lesson-title");
      const title = (titles.querySelector(`[data-lang="${lang}"]`) || titles).textContent;
      link.textContent = uiText(lang, target.dataset.state === "new" ? "startWith" : "continueWith", { title });
    }
    continueLink.hidden = false;
  };
  render();
  language.onChange(render);
}
