// What this browser remembers for the learner, in localStorage: the code per lesson (saved on
// every edit, with the starter it grew from), the language, and each lesson's progress. Keys are
// namespaced by the site's base path, so two copies of the course on one origin (GitHub Pages
// serves every project of a user from one) share neither code nor progress.

// The site's root: the folder above assets/, where this script lives. Read once, while the
// script runs (document.currentScript is only set then).
const SCRIPT = document.currentScript?.src || location.href;
export const SITE_BASE = new URL("../", SCRIPT).pathname;
const PREFIX = `tp-course:${SITE_BASE}:`;

export function storageKey(name) {
  return PREFIX + name;
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;  // storage blocked or an unreadable entry: start afresh
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;  // storage full or blocked: the page still works; the caller decides what to say
  }
}

export class SavedCode {
  /** `starters`: {lang: the lesson's starter in lang} for each of its languages. */
  constructor(lessonId, starters) {
    this.key = storageKey(`lesson:${lessonId}`);
    this.starters = starters;
  }

  /** Whether `code` is the starter, in any language: code the learner has not edited. */
  isStarter(code) {
    return Object.values(this.starters).includes(code);
  }

  /**
   * What the editor opens with in `lang`: {code, starterChanged}. Code the learner never edited
   * follows the starter, in `lang` (a new build's, or after a language switch) silently; edited
   * code is kept, and starterChanged says the starter moved on since it was saved.
   */
  restore(lang) {
    const starter = this.starters[lang];
    const saved = read(this.key);
    if (!saved || typeof saved.code !== "string") return { code: starter, starterChanged: false };
    if (saved.code === saved.starter || this.isStarter(saved.code)) return { code: starter, starterChanged: false };
    return { code: saved.code, starterChanged: !this.isStarter(saved.starter) };
  }

  /**
   * Saves `code`, grown from the starter in `lang`. Whether it was kept: false when storage is
   * full or blocked (the page says so).
   */
  save(code, { lang, starterSeen = true }) {
    // Until the learner has seen the notice, keep the old starter so a reload shows it again.
    const saved = starterSeen ? null : read(this.key);
    const starter = saved ? saved.starter : this.starters[lang];
    return write(this.key, { code, starter, savedAt: Date.now() });
  }
}

/** Each lesson's state ("started" or "passed") and the lesson visited last. */
export class CourseProgress {
  constructor() {
    this.key = storageKey("progress");
  }

  get data() {
    const data = read(this.key);
    return data && typeof data.lessons === "object" ? data : { lessons: {}, last: null };
  }

  state(lessonId) {
    return this.data.lessons[lessonId] || "new";
  }

  visit(lessonId) {
    const data = this.data;
    data.last = lessonId;
    write(this.key, data);
  }

  failedRuns(lessonId) {
    return this.data.failed?.[lessonId] || 0;
  }

  countFailedRun(lessonId) {
    const data = this.data;
    data.failed = { ...data.failed, [lessonId]: (data.failed?.[lessonId] || 0) + 1 };
    write(this.key, data);
  }

  /** "started" never overwrites "passed": a lesson once passed stays passed. */
  mark(lessonId, state) {
    const data = this.data;
    if (data.lessons[lessonId] === "passed") return;
    data.lessons[lessonId] = state;
    write(this.key, data);
  }
}

export const LANG_KEY = storageKey("lang");

export function savedLanguage() {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch {
    return null;
  }
}

export function saveLanguage(lang) {
  try {
    localStorage.setItem(LANG_KEY, lang);
  } catch {
    // Storage blocked: the choice lasts for this visit only.
  }
}
