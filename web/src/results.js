// The results panel: one item per check (title, status, the grader's message) and the
// learner's printed output.

const STATUS_TEXT = { passed: "passed", failed: "failed", error: "error", timeout: "timed out" };

export class Results {
  constructor(list, output) {
    this.list = list;
    this.output = output;
    this.outputText = output.querySelector("pre");
    this.items = new Map();
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
    item.querySelector(".check-status").textContent = "running";
  }

  show(report) {
    this.clear();
    for (const check of report.checks) {
      const item = this.item(check.id);
      item.dataset.status = check.status;
      item.querySelector(".check-title").textContent = check.title;
      item.querySelector(".check-status").textContent = STATUS_TEXT[check.status] ?? check.status;
      const message = item.querySelector(".check-message");
      message.textContent = check.status === "passed" ? "" : check.message || "";
      message.hidden = !message.textContent;
    }
    // Bring the first check that needs the learner's attention into view.
    const first = this.list.querySelector('.check:not([data-status="passed"])');
    if (first) first.scrollIntoView({ block: "nearest" });
    const stdout = report.stdout || "";
    this.output.hidden = !stdout;
    this.outputText.textContent = stdout + (report.stdout_truncated ? "\n… (output cut here)" : "");
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

export function summarize(report) {
  const passed = report.checks.filter((c) => c.status === "passed").length;
  const total = report.checks.length;
  if (report.passed) {
    return { state: "passed", text: total === 1 ? "The check passed." : `All ${total} checks passed. Well done!` };
  }
  const timedOut = report.checks.filter((c) => c.status === "timeout").length;
  const extra = timedOut ? ` (${timedOut} timed out)` : "";
  return { state: "failed", text: `${passed} of ${total} checks passed${extra}. See the messages below.` };
}
