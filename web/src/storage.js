// The learner's code, saved per lesson in localStorage on every edit. The starter it grew from is
// saved with it, so a lesson whose starter changed later can say so instead of hiding the new one.

const PREFIX = "tp-course:lesson:";

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;  // storage blocked or an unreadable entry: start from the starter
  }
}

export class SavedCode {
  constructor(lessonId, starter) {
    this.key = PREFIX + lessonId;
    this.starter = starter;
  }

  /**
   * What the editor opens with: {code, starterChanged}. Code the learner never edited follows the
   * new starter silently; edited code is kept, and starterChanged says the starter moved on.
   */
  restore() {
    const saved = read(this.key);
    if (!saved || typeof saved.code !== "string") return { code: this.starter, starterChanged: false };
    if (saved.starter === this.starter) return { code: saved.code, starterChanged: false };
    if (saved.code === saved.starter) return { code: this.starter, starterChanged: false };
    return { code: saved.code, starterChanged: true };
  }

  save(code, { starterSeen = true } = {}) {
    // Until the learner has seen the notice, keep the old starter so a reload shows it again.
    const saved = starterSeen ? null : read(this.key);
    const starter = saved ? saved.starter : this.starter;
    try {
      localStorage.setItem(this.key, JSON.stringify({ code, starter, savedAt: Date.now() }));
    } catch {
      // Storage full or blocked: the page still works, the code just is not kept.
    }
  }
}
