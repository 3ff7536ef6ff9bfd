// "Try with my code", the same in every widget: the button, a line saying what it runs, and a
// box showing the last run: "running…", the learner's error (their message names their line),
// or the widget's own comparison, then what their code printed, and a note once the widget's
// numbers have changed since that run. The widget keeps its numbers and its verdicts; this
// keeps the run.

import { h, fill } from "./dom.js";

/**
 * A verdict line, ✓ or ✗ and `text`; `data-verdict` names which (`code`), `data-ok` whether
 * it is ✓ (the tests read them); `testid` is "learner-verdict" for a run of the learner's code.
 */
export function verdict(ok, text, code, testid = "learner-verdict") {
  return h(
    "p",
    { class: `tpw-verdict ${ok ? "is-equal" : "is-different"}`, "data-testid": testid, "data-verdict": code, "data-ok": String(ok) },
    h("span", { class: "tpw-icon", "aria-hidden": "true" }, ok ? "✓" : "✗"),
    " ",
    text
  );
}

/**
 * tryMine({run, t, onChange}): the "Try with my code" part of one widget.
 * - run: `ctx.runWithLearnerCode`; null on a page without Python, which then shows no button;
 * - t: the widget's translator; its text has "try-hint" and "running" (what the button
 *   runs); "try-button", "failed", "stale" and "printed" are the kit's (text.json), and a
 *   widget's own text may override them;
 * - onChange(): redraws the widget (a run started or ended); the widget's redraw calls show().
 */
export function tryMine({ run, t, onChange }) {
  run = typeof run === "function" ? run : null;
  let last = null; // {key, status: "running" | "done" | "error", outcome | message, stdout, ...extra}
  let parts = null; // the button and box of the block on screen

  return {
    /** The last run, or null: its `key`, `status`, `outcome` (when done) and the `extra` given to start. */
    get last() {
      return last;
    },

    /** The results of the last run if it finished on the numbers named `key`, else null (a curve of the learner's to draw). */
    resultsFor(key) {
      return last?.status === "done" && last.key === key ? last.outcome.results : null;
    },

    /**
     * The block to place in the widget, made anew on each render (null without Python); the
     * button calls `onTry`, which reads the widget's numbers and calls start().
     */
    block(lang, onTry) {
      if (!run) {
        parts = null;
        return null;
      }
      parts = {
        button: h("button", { type: "button", class: "tpw-button", onclick: onTry }, t(lang, "try-button")),
        box: h("div", { class: "tpw-learner-result", "data-testid": "learner-result", "aria-live": "polite" }),
      };
      return h("div", { class: "tpw-learner" }, parts.button, h("p", { class: "tpw-hint" }, t(lang, "try-hint")), parts.box);
    },

    /**
     * Runs `calls` (runWithLearnerCode's list) on the numbers named `key` (any string that
     * changes with them); `extra` is kept with the run, for the comparison (the reference).
     */
    async start(key, calls, extra = {}) {
      if (!run || key === null || last?.status === "running") return;
      last = { ...extra, key, status: "running" };
      onChange();
      let outcome;
      try {
        outcome = await run(calls);
      } catch (err) {
        outcome = { ok: false, message: err?.message ?? String(err) };
      }
      last = outcome?.ok
        ? { ...last, status: "done", outcome, stdout: outcome.stdout }
        : { ...last, status: "error", message: outcome?.message ?? String(outcome), stdout: outcome?.stdout };
      onChange();
    },

    /**
     * Shows the last run against the widget's numbers now: `key` (null while they are invalid:
     * the button is then disabled) and `result(last)`, the nodes for a finished run.
     */
    show(lang, key, result) {
      if (!parts) return;
      const { button, box } = parts;
      button.disabled = key === null || last?.status === "running";
      if (!last) return fill(box);
      box.dataset.status = last.status;
      if (last.status === "running") return fill(box, h("p", { class: "tpw-running" }, t(lang, "running")));
      const body = last.status === "error"
        ? [verdict(false, t(lang, "failed"), "error"), h("pre", { class: "tpw-message" }, last.message)]
        : result(last);
      const printed = last.stdout
        ? h("details", { class: "tpw-stdout" }, h("summary", {}, t(lang, "printed")), h("pre", {}, last.stdout))
        : null;
      const stale = key !== last.key ? h("p", { class: "tpw-stale", "data-testid": "learner-stale" }, t(lang, "stale")) : null;
      return fill(box, body, printed, stale);
    },
  };
}
