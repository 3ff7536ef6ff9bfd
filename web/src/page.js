// A lesson page: starts Python in the background, wires the editor, Run/Stop/Reset, the results,
// hints, the language switch, progress and the live widgets. The home page loads this too: it
// finds no lesson and shows each lesson's progress instead. Moving to another page of the
// course swaps the page in place (navigation.js) and mounts it again here: Python, once
// started, stays loaded and moves to the new lesson.

import "./page.css";
import { createEditor } from "./editor.js";
import { CourseProgress, SavedCode } from "./storage.js";
import { PythonWorker } from "./python-worker-client.js";
import { Results, learnerLine, summarize } from "./results.js";
import { Progress } from "./progress.js";
import { LanguageSwitch } from "./language.js";
import { uiText } from "./ui-text.js";
import { mountWidgets } from "./widgets-host.js";
import { showHomeProgress } from "./home.js";
import { isolate, registerServiceWorker } from "./offline.js";
import { lookAhead, startNavigation } from "./navigation.js";

const $ = (id) => document.getElementById(id);

function readConfig() {
  const element = $("lesson-config");
  if (!element) return null;
  const config = JSON.parse(element.textContent);
  // The worker needs absolute URLs: it resolves them against its own script's address.
  for (const [name, url] of Object.entries(config.urls)) config.urls[name] = new URL(url, location.href).href;
  return config;
}

// A box wider than its column scrolls sideways (a formula, a prose table, a widget's matrix, as
// on a phone): make exactly those reachable by keyboard (arrow keys scroll a focused box; axe's
// scrollable-region-focusable), and recheck when the width changes or a widget redraws.
const SCROLLING_BOXES = ".prose .katex-display, .prose table, .tpw-grid";

function focusableWideBoxes(doc, cleanups) {
  const update = () => {
    for (const box of doc.querySelectorAll(SCROLLING_BOXES)) {
      if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    }
  };
  update();
  const resized = new ResizeObserver(update);
  resized.observe(doc.body);
  // The prose holds the widgets (not the editor, whose every keystroke would be a mutation);
  // childList only: its own tabindex edits are not seen.
  const redrawn = new MutationObserver(update);
  const prose = doc.getElementById("prose");
  if (prose) redrawn.observe(prose, { childList: true, subtree: true });
  // A formula widens without any of that when its KaTeX font arrives: the browser fetches a font
  // the first time a shown glyph needs it (the other language's formulas, once switched to).
  doc.fonts.addEventListener("loadingdone", update);
  cleanups.push(() => { resized.disconnect(); redrawn.disconnect(); doc.fonts.removeEventListener("loadingdone", update); });
  return update;
}

// The page's Python, once a lesson started it: it outlives the pages swapped in place.
let python = null;
// What the page shown now needs from the next move: {canLeave(), unmount()}.
let mounted = null;
// How long after Python is ready the page fetches the next lesson ahead.
const LOOK_AHEAD_AFTER_MS = 1000;
const NO_PYTHON_HOOKS = { onProgress() {}, onReady() {}, onFailure() {} };

function main() {
  mounted = mount();
  startNavigation({
    leave: () => {
      if (!mounted.canLeave()) return false;
      mounted.unmount();
      return true;
    },
    fits: (doc) => {
      // Python moves to a lesson only if it needs what the loaded interpreters have.
      const element = doc.getElementById("lesson-config");
      if (!python || !element) return true;
      const next = JSON.parse(element.textContent);
      const now = python.config;
      return JSON.stringify([next.lesson.packages, next.lesson.requirements || [], next.sha256.engine, next.sha256.lock])
        === JSON.stringify([now.lesson.packages, now.lesson.requirements || [], now.sha256.engine, now.sha256.lock]);
    },
    arrive: () => {
      mounted = mount();
    },
  });
}

/** The first lesson shown starts Python (pages shown after it in place keep it). */
function startPythonOnce(worker) {
  if (location.protocol === "file:") {
    // Browsers refuse module workers and fetches from file:// pages: say so instead of hanging.
    $("file-protocol").hidden = false;
    $("python-progress").hidden = true;
    return;
  }
  const startPython = () => {
    worker.start();
    registerServiceWorker(worker.ready);
    // Learner code shares the grader's interpreter here: the page says so (threat-model.md).
    $("shared-interpreter").hidden = self.crossOriginIsolated;
  };
  // A first visit on a host without COOP/COEP: the service worker is registered now and the
  // page reloads through it, isolated, before Python starts; the workbench is inert until
  // then, so nothing is typed into a page about to reload (what is typed is saved anyway).
  const workbench = $("workbench");
  workbench.inert = true;
  isolate().then((reloading) => {
    if (reloading) return;
    workbench.inert = false;
    startPython();
  });
}

/** Wires the page now in the document; returns {canLeave(), unmount()}. */
function mount() {
  const cleanups = [];
  const language = new LanguageSwitch(document);
  const wideBoxes = focusableWideBoxes(document, cleanups);
  // The other language's boxes were hidden (zero width) until now.
  language.onChange(() => requestAnimationFrame(wideBoxes));
  const course = new CourseProgress();
  const config = readConfig();
  const unmount = () => cleanups.forEach((cleanup) => cleanup());
  if (!config) {
    showHomeProgress(document, course, language);
    registerServiceWorker();
    if (python) python.hooks = NO_PYTHON_HOOKS;
    return { canLeave: () => true, unmount };
  }
  const lessonId = config.lesson.id;
  const t = (key, vars) => uiText(language.current, key, vars);
  course.visit(lessonId);

  // The status region is announced by screen readers: it changes when a run starts and when it
  // ends, never per check (the results list shows the progress).
  const status = $("run-status");
  const setStatus = (state, key, vars) => {
    status.dataset.state = state;
    status.dataset.ui = key;
    status.dataset.uiVars = JSON.stringify(vars || {});
    status.textContent = t(key, vars);
  };
  const fileProtocol = location.protocol === "file:";
  const progress = new Progress($("python-progress"), t);
  let pythonReady = false;
  let running = false;
  // Python moving to this lesson from the one before: it is ready when the move is done.
  let moving = false;
  // The next lesson's page and files are fetched a moment after Python is ready here (not
  // beside its start), so a move to it waits for no fetch (navigation.js lookAhead).
  let lookAheadTimer = null;
  cleanups.push(() => clearTimeout(lookAheadTimer));
  const hooks = {
    onProgress: (p) => {
      pythonReady = false;
      progress.update(p);
    },
    onReady: () => {
      if (moving) return;
      pythonReady = true;
      progress.ready();
      if (!running) setStatus("idle", "pythonReady");
      clearTimeout(lookAheadTimer);
      lookAheadTimer = setTimeout(lookAhead, LOOK_AHEAD_AFTER_MS);
    },
    onFailure: (message) => {
      progress.failed(message);
      status.dataset.state = "error";
      status.textContent = message;
    },
    lang: () => language.current,
  };
  if (python) {
    python.hooks = hooks;
    moving = true;
    $("shared-interpreter").hidden = self.crossOriginIsolated;
    python.switchLesson(config).then((outcome) => {
      moving = false;
      // A move that failed has started Python afresh; the next Run waits for it.
      if (outcome.kind === "lesson") hooks.onReady();
      else hooks.onFailure(outcome.message);
    });
  } else {
    python = new PythonWorker(config, hooks);
    startPythonOnce(python);
  }

  const runButton = $("run");
  const stopButton = $("stop");
  const results = new Results($("results"), $("output"), () => language.current);
  // The starter in each of the lesson's languages (English: starter.py itself).
  const starters = Object.fromEntries(config.lesson.languages.map(
    (lang) => [lang, config.lesson.translatedStarters[lang] ?? config.lesson.starter]));
  const saved = new SavedCode(lessonId, starters);
  const notice = new Notice($("notice"));
  const stale = $("stale-note");
  const nextAfterPass = $("next-after-pass");
  let gradedSource = null;

  let starterSeen = true;
  // Every save goes through here: one that fails (storage full or blocked) is shown with a way
  // to download the code, and a browser's leave-page warning guards the text only the editor
  // holds; the next save that works takes both away.
  const saveFailed = $("save-failed");
  const keep = (text) => {
    const kept = saved.save(text, { lang: language.current, starterSeen });
    saveFailed.hidden = kept;
    window.onbeforeunload = kept ? null : (event) => event.preventDefault();
  };
  // Moving on in place would drop text only the editor holds: the browser's own navigation
  // (and its leave-page warning) takes over then.
  const canLeave = () => saveFailed.hidden;
  const restored = saved.restore(language.current);
  const editor = createEditor($("editor"), {
    doc: restored.code,
    lang: language.current,
    onChange: (text) => {
      keep(text);
      if (!saved.isStarter(text)) course.mark(lessonId, "started");
      stale.hidden = gradedSource === null || text === gradedSource;
    },
    onRun: () => run(),
  });
  if (course.state(lessonId) === "passed") nextAfterPass.hidden = false;
  language.onChange((lang) => editor.setLanguage(lang));

  // The model solution: offered after passing, or after the lesson's number of failed runs;
  // fetched only when the learner asks (docs/threat-model.md).
  const solution = $("model-solution");
  const afterFails = config.lesson.solutionAfterFailedRuns;
  const offerSolution = () => {
    solution.hidden = !(course.state(lessonId) === "passed"
      || (afterFails > 0 && course.failedRuns(lessonId) >= afterFails));
  };
  offerSolution();
  $("show-solution").addEventListener("click", async () => {
    const code = $("model-solution-code");
    try {
      const response = await fetch(config.urls.solution);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      code.textContent = await response.text();
    } catch (error) {
      code.textContent = t("solutionUnavailable", { message: error.message });
    }
    code.hidden = false;
    $("show-solution").hidden = true;
    code.focus();
  });

  const setRunning = (on) => {
    running = on;
    // aria-disabled rather than disabled: a disabled button would drop the keyboard focus.
    runButton.setAttribute("aria-disabled", String(on));
    stopButton.disabled = !on;
  };

  async function run() {
    if (running || fileProtocol) return;
    setRunning(true);
    clearReport();
    stale.hidden = true;
    editor.markLines([]);
    course.mark(lessonId, "started");
    setStatus("running", pythonReady ? "runningChecks" : "waitingForPython");
    const source = editor.getText();
    const outcome = await python.grade(source, {
      lang: language.current,
      onEvent: (event) => {
        if (event.event === "check_start") results.running(event.id, event.title);
      },
    });
    setRunning(false);
    if (outcome.kind === "report") {
      gradedSource = source;
      stale.hidden = editor.getText() === source;
      shown = { report: outcome.report, lang: language.current };
      showReport();
      markFailingLines(outcome.report);
      if (outcome.report.passed) {
        course.mark(lessonId, "passed");
        nextAfterPass.hidden = false;
      } else {
        course.countFailedRun(lessonId);
      }
      offerSolution();
    } else if (outcome.kind === "stopped") {
      clearReport();
      setStatus("stopped", "stopped");
    } else {
      clearReport();
      // The worker client has already started Python afresh, so the next Run works.
      setStatus("error", "pythonFailed", { message: outcome.message });
    }
  }

  // The last report on screen, and the language it was graded in. After a language switch the
  // page's own text (summary, statuses, notes, hint buttons) is shown again in the new language;
  // the checks' titles and messages stay as graded, and a note says so (Run grades anew).
  let shown = null;
  const otherLanguage = $("graded-lang-note");
  function showReport() {
    results.show(shown.report);
    const summary = summarize(shown.report, language.current);
    status.dataset.state = summary.state;
    delete status.dataset.ui;
    status.textContent = summary.text;
    otherLanguage.hidden = shown.lang === language.current;
  }
  function clearReport() {
    shown = null;
    results.clear();
    otherLanguage.hidden = true;
  }
  language.onChange(() => {
    if (shown && !running) showReport();
  });

  function markFailingLines(report) {
    const marks = new Map();
    for (const check of report.checks) {
      const line = check.status === "passed" ? null : learnerLine(check.message);
      if (line && !marks.has(line)) marks.set(line, { line, message: `${check.title}\n\n${check.message}` });
    }
    editor.markLines([...marks.values()]);
  }

  runButton.addEventListener("click", () => run());
  // Ctrl/Cmd+Enter runs from anywhere on the page; the editor handles it first when focused.
  const runKey = (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  };
  document.addEventListener("keydown", runKey);
  cleanups.push(() => document.removeEventListener("keydown", runKey));
  // A Run still going when the learner moves on ends, as a page load would end it.
  cleanups.push(() => running && python.stop());
  stopButton.addEventListener("click", () => {
    setStatus("stopping", "stopping");
    python.stop();
  });

  // Reset asks first (a dialog), then offers Undo: CodeMirror's history holds the old text too.
  const dialog = $("reset-dialog");
  const replaceWith = (text, message) => {
    const previous = editor.getText();
    starterSeen = true;
    editor.setText(text);
    notice.show(message, [[t("undo"), () => {
      editor.setText(previous);
      notice.hide();
    }]]);
  };
  $("reset").addEventListener("click", () => dialog.showModal());
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "replace") replaceWith(starters[language.current], t("replaced"));
    dialog.returnValue = "";
  });

  // The starter the learner has not touched follows the language (its docstrings are
  // translated); edited code stays as it is.
  language.onChange((lang) => {
    if (saved.isStarter(editor.getText())) editor.setText(starters[lang]);
  });

  if (restored.starterChanged) {
    starterSeen = false;
    notice.show(t("starterChanged"), [
      [t("useNewStarter"), () => replaceWith(starters[language.current], t("replacedNew"))],
      [t("keepMyCode"), () => {
        starterSeen = true;
        keep(editor.getText());
        notice.hide();
      }],
    ]);
  }

  // Download and upload of solution.py: the learner's own copy, outside this browser.
  const download = () => {
    const url = URL.createObjectURL(new Blob([editor.getText()], { type: "text/x-python" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: "solution.py" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  $("download").addEventListener("click", download);
  $("save-failed-download").addEventListener("click", download);
  const upload = $("upload-file");
  $("upload").addEventListener("click", () => upload.click());
  upload.addEventListener("change", async () => {
    const file = upload.files[0];
    upload.value = "";
    if (!file) return;
    try {
      replaceWith(await file.text(), t("uploaded", { name: file.name }));
    } catch {
      notice.show(t("uploadFailed", { name: file.name }), []);
    }
  });

  // Narrow screens show the prose or the workbench, one tap apart.
  const layout = document.querySelector(".lesson-layout");
  const showView = (view) => {
    layout.dataset.view = view;
    for (const b of document.querySelectorAll("[data-view-choice]")) {
      b.setAttribute("aria-pressed", String(b.dataset.viewChoice === view));
    }
  };
  for (const button of document.querySelectorAll("[data-view-choice]")) {
    button.addEventListener("click", () => showView(button.dataset.viewChoice));
  }
  // The skip link lands in the editor itself, past the prose and the widgets' controls.
  $("skip-to-editor").addEventListener("click", (event) => {
    event.preventDefault();
    showView("code");
    editor.focus();
  });

  mountWidgets(document, {
    language,
    runWithLearnerCode: async (calls) => {
      const outcome = await python.runExample(editor.getText(), calls, { lang: language.current });
      if (outcome.kind === "report") return outcome.report;
      if (outcome.kind === "timeout") return { ok: false, message: t("tryTimeout", { seconds: config.lesson.checkSeconds }) };
      return { ok: false, message: outcome.message || t("pythonStopped") };
    },
  });
  return { canLeave, unmount };
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
