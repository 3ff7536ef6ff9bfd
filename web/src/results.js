// The results panel: one item per check (title, status, the grader's message, graded hints),
// identical failures folded under the first one, and the learner's printed output.

import { uiText } from "./ui-text.js";

export class Results {
  constructor(list, output, lang) {
    this.list = list;
    this.output = output;
    this.outputText = output.querySelector("pre");
    this.items = new Map();
    this.lang = lang;
  }

  clear() {
    this.list.replaceChildren();
    this.items.clear();
    this.output.hidden = true;
  }

  /** Marks a check as running while the grader works through the list. */
  running(checkId, title) {
    const item = this.item(checkId);
    item.dataset.status = "running";
    item.querySelector(".check-title").textContent = title;
    item.querySelector(".check-status").textContent = uiText(this.lang(), "running");
  }

  show(report) {
    this.clear();
    const lang = this.lang();
    // A failure whose message repeats an earlier one is not told again: its item keeps one
    // line pointing up (the untouched starter fails every check with the same error).
    const firstWith = new Map();
    for (const check of report.checks) {
      const item = this.item(check.id);
      item.dataset.status = check.status;
      item.querySelector(".check-title").textContent = check.title;
      item.querySelector(".check-status").textContent = uiText(lang, check.status);
      const message = item.querySelector(".check-message");
      message.textContent = check.status === "passed" ? "" : check.message || "";
      message.hidden = !message.textContent;
      if (check.status === "passed" || !check.message) continue;
      const first = firstWith.get(check.message);
      if (first) {
        first.count += 1;
        message.hidden = true;
        item.classList.add("same");
        item.append(note("check-same", uiText(lang, "sameAs", { title: first.title })));
        continue;
      }
      firstWith.set(check.message, { item, title: check.title, count: 0 });
      if (check.hints?.length) item.append(hintSteps(check.hints, lang));
    }
    for (const { item, count } of firstWith.values()) {
      if (count) item.querySelector(".check-message").after(note("check-repeats", uiText(lang, "repeats", { count })));
    }
    // Bring the first check that needs the learner's attention into view.
    const first = this.list.querySelector('.check:not([data-status="passed"])');
    if (first) first.scrollIntoView({ block: "nearest" });
    const stdout = report.stdout || "";
    this.output.hidden = !stdout;
    this.outputText.textContent = stdout + (report.stdout_truncated ? "\n" + uiText(lang, "outputCut") : "");
  }

  item(checkId) {
    let item = this.items.get(checkId);
    if (!item) {
      item = document.createElement("li");
      item.className = "check";
      item.dataset.check = checkId;
      item.innerHTML =
        '<span class="check-status"></span><span class="check-title"></span><pre class="check-message" hidden></pre>';
      this.list.append(item);
      this.items.set(checkId, item);
    }
    return item;
  }
}

function note(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

/** Graded hints: one button opens the next step; steps stay open once shown. */
function hintSteps(steps, lang) {
  const box = document.createElement("div");
  box.className = "hints";
  // Paragraphs, not list items: the results list holds one item per check and nothing else.
  const list = document.createElement("div");
  list.className = "hint-steps";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "hint-button";
  const label = () => {
    const shown = list.children.length;
    button.textContent = shown === 0 ? uiText(lang, "showHint", { count: steps.length })
      : uiText(lang, "nextHint", { next: shown + 1, total: steps.length });
    button.hidden = shown === steps.length;
  };
  button.addEventListener("click", () => {
    const step = document.createElement("p");
    const number = document.createElement("strong");
    number.textContent = uiText(lang, "hintStep", { step: list.children.length + 1, total: steps.length }) + ": ";
    step.append(number, steps[list.children.length]);
    list.append(step);
    label();
    // The button disappears after the last step: keep the keyboard near what was just opened.
    if (button.hidden) {
      step.tabIndex = -1;
      step.focus();
    }
  });
  label();
  box.append(list, button);
  return box;
}

/** The line of solution.py a message points at (Python's own traceback format), or null. */
export function learnerLine(message) {
  const lines = [...(message || "").matchAll(/File "solution\.py", line (\d+)/g)];
  return lines.length ? Number(lines[lines.length - 1][1]) : null;
}

export function summarize(report, lang) {
  const passed = report.checks.filter((c) => c.status === "passed").length;
  const total = report.checks.length;
  if (report.passed) {
    return { state: "passed", text: total === 1 ? uiText(lang, "onePassed") : uiText(lang, "allPassed", { total }) };
  }
  const timedOut = report.checks.filter((c) => c.status === "timeout").length;
  const extra = timedOut ? uiText(lang, "timedOutCount", { count: timedOut }) : "";
  return { state: "failed", text: uiText(lang, "somePassed", { passed, total, extra }) };
}
