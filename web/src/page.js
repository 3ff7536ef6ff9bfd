// A lesson page: starts Python in the background, wires the editor, Run/Stop/Reset, the results,
// the language switch and the live widgets. The index page loads this too and finds no lesson.

import "./page.css";
import { createEditor } from "./editor.js";
import { SavedCode } from "./storage.js";
import { PythonWorker } from "./python-worker-client.js";
import { Results, summarize } from "./results.js";
import { Progress } from "./progress.js";
import { LanguageSwitch } from "./language.js";
import { mountWidgets } from "./widgets-host.js";
import { registerServiceWorker } from "./offline.js";

const $ = (id) => document.getElementById(id);

function readConfig() {
  const element = $("lesson-config");
  if (!element) return null;
  const config = JSON.parse(element.textContent);
  // The worker needs absolute URLs: it resolves them against its own script's address.
  for (const [name, url] of Object.entries(config.urls)) config.urls[name] = new URL(url, location.href).href;
  return config;
}

function main() {
  const config = readConfig();
  const language = new LanguageSwitch(document);
  if (!config) {
    registerServiceWorker();
    return;
  }

  const status = $("run-status");
  const setStatus = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  // Python first: its download and start-up take seconds, the rest of the page milliseconds.
  const progress = new Progress($("python-progress"));
  let pythonReady = false;
  let running = false;
  const python = new PythonWorker(config, {
    onProgress: (p) => {
      pythonReady = false;
      progress.update(p);
    },
    onReady: () => {
      pythonReady = true;
      progress.ready();
      if (!running) setStatus("idle", "Python is ready. Press Run to check your solution.");
    },
    onFailure: (message) => {
      progress.failed(message);
      setStatus("error", message);
    },
  });
  python.start();
  registerServiceWorker(python.ready);

  const runButton = $("run");
  const stopButton = $("stop");
  const results = new Results($("results"), $("output"));
  const saved = new SavedCode(config.lesson.id, config.lesson.starter);
  const notice = new Notice($("notice"));

  let starterSeen = true;
  const restored = saved.restore();
  const editor = createEditor($("editor"), {
    doc: restored.code,
    onChange: (text) => saved.save(text, { starterSeen }),
    onRun: () => run(),
  });

  async function run() {
    if (running) return;
    running = true;
    runButton.disabled = true;
    stopButton.disabled = false;
    results.clear();
    setStatus("running", pythonReady ? "Running the checks…"
      : "Python is still loading; your code runs as soon as it is ready.");
    const outcome = await python.grade(editor.getText(), {
      onEvent: (event) => {
        if (event.event === "check_start") {
          setStatus("running", `Running: ${event.title}`);
          results.running(event.id, event.title);
        }
      },
    });
    running = false;
    runButton.disabled = false;
    stopButton.disabled = true;
    if (outcome.kind === "report") {
      results.show(outcome.report);
      const summary = summarize(outcome.report);
      setStatus(summary.state, summary.text);
    } else if (outcome.kind === "stopped") {
      results.clear();
      setStatus("stopped", "Stopped. Your code is unchanged; press Run when you are ready.");
    } else {
      results.clear();
      // Python may be left in a broken state: start afresh so the next Run works.
      python.restart();
      setStatus("error", `Python failed while grading (${outcome.message}). It has been restarted; press Run to try again.`);
    }
  }

  runButton.addEventListener("click", () => run());
  // Ctrl/Cmd+Enter runs from anywhere on the page; the editor handles it first when focused.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  });
  stopButton.addEventListener("click", () => {
    setStatus("stopping", "Stopping…");
    python.stop();
  });

  // Reset asks first (a dialog), then offers Undo: CodeMirror's history holds the old text too.
  const dialog = $("reset-dialog");
  const replaceWithStarter = (why) => {
    const previous = editor.getText();
    editor.setText(config.lesson.starter);
    starterSeen = true;
    saved.save(config.lesson.starter);
    notice.show(why, [["Undo", () => {
      editor.setText(previous);
      notice.hide();
    }]]);
  };
  $("reset").addEventListener("click", () => dialog.showModal());
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "replace") replaceWithStarter("Your code was replaced with the starter.");
    dialog.returnValue = "";
  });

  if (restored.starterChanged) {
    starterSeen = false;
    notice.show(
      "This lesson's starter code changed since you last worked on it. Your code is kept below.",
      [
        ["Use the new starter", () => replaceWithStarter("Your code was replaced with the new starter.")],
        ["Keep my code", () => {
          starterSeen = true;
          saved.save(editor.getText());
          notice.hide();
        }],
      ],
    );
  }

  mountWidgets(document, {
    language,
    runWithLearnerCode: async (calls) => {
      const outcome = await python.runExample(editor.getText(), calls);
      if (outcome.kind === "report") return outcome.report;
      if (outcome.kind === "timeout") {
        return { ok: false, message: `Your code did not finish within ${config.lesson.checkSeconds} s.` };
      }
      return { ok: false, message: outcome.message || "Python was stopped." };
    },
  });
}

// A line of text with action buttons, above the editor.
class Notice {
  constructor(root) {
    this.root = root;
  }

  show(text, actions) {
    const p = document.createElement("p");
    p.textContent = text;
    const buttons = actions.map(([label, action]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.addEventListener("click", action);
      return button;
    });
    this.root.replaceChildren(p, ...buttons);
    this.root.hidden = false;
  }

  hide() {
    this.root.hidden = true;
    this.root.replaceChildren();
  }
}

main();
