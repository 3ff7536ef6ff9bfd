// The page's Python workers: one worker of one role (web/src/worker/worker.js), and a supply of
// them started ahead of need, so that replacing a used worker costs the next Run no start-up.

export class PythonProcess {
  /**
   * Starts a worker of `role` ("grader" | "learner" | "single"). `extra`: what the role needs
   * besides the lesson (the grader's channel and interrupt buffer).
   */
  constructor(config, role, extra = {}) {
    // While booting: where its progress goes (nowhere unless a job waits for it).
    this.onProgress = null;
    // Once booted: every message it sends, and its death (worker error) after the start.
    this.onMessage = () => {};
    this.onDeath = () => {};
    // Set once learner code has run in it (not the warm-up's starter): the next Run needs another.
    this.dirty = false;
    this.worker = new Worker(config.urls.worker);
    this.lessonLoads = new Map();  // id -> {resolve, reject}: lessons sent, not loaded yet
    this.lessonIds = 0;
    let booted = false;
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        const load = this.lessonLoads.get(data.id);
        if (booted && load && (data.type === "lesson-loaded" || data.type === "crash")) {
          this.lessonLoads.delete(data.id);
          if (data.type === "crash") load.reject(new Error(`Python could not open this lesson: ${data.message}`));
          else load.resolve(this);
        } else if (booted) {
          this.onMessage(data);
        } else if (data.type === "progress") {
          this.onProgress?.(data);
        } else if (data.type === "ready") {
          booted = true;
          resolve(this);
        } else if (data.type === "crash") {
          reject(new Error(`Python could not start: ${data.message}`));
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        // The worker itself died (its memory ran out, for instance).
        const message = event.message || "the Python worker stopped";
        if (booted) this.onDeath(message);
        else reject(new Error(`The Python worker failed to start: ${message}`));
      };
    });
    this.ready.catch(() => {
      this.failed = true;  // reported to whoever waits for it
    });
    const { lesson, urls, sha256, downloadBytes } = config;
    this.worker.postMessage({ type: "init", role, lesson, urls, sha256, downloadBytes, ...extra });
  }

  post(message) {
    this.worker.postMessage(message);
  }

  /**
   * Swaps the lesson in this worker, booted or still starting: `lesson` is the new page
   * config's, `zip` its lesson.zip bytes and `sha256` theirs (the worker checks them).
   * `ready` then also waits for the new lesson, so nothing reaches the worker before it.
   */
  loadLesson(lesson, zip, sha256) {
    // Ids of their own (negative), never a job's.
    const id = -(++this.lessonIds);
    const loaded = new Promise((resolve, reject) => this.lessonLoads.set(id, { resolve, reject }));
    this.worker.postMessage({ type: "lesson", id, lesson, zip, sha256 });
    this.ready = this.ready.then(() => loaded);
    this.ready.catch(() => {
      this.failed = true;
    });
    return this.ready;
  }

  end() {
    this.worker.terminate();
  }
}

/**
 * Keeps one worker of a role started ahead, for the next `take()`. The page calls `refill()`
 * when it is idle and its worker has run learner code: a worker starting uses the CPU a Run
 * would, so it never starts during one; when none is ready, `take()` starts one.
 */
export class Spares {
  constructor(make) {
    this.make = make;
    this.spare = null;
  }

  /** The spare (ready or still starting), or a new worker when there is none. */
  take() {
    const taken = this.spare && !this.spare.failed ? this.spare : this.make();
    this.spare = null;
    return taken;
  }

  refill() {
    if (!this.spare || this.spare.failed) this.spare = this.make();
  }

  /** The spare, if one was started (it moves to another lesson with the page). */
  get started() {
    return this.spare && !this.spare.failed ? this.spare : null;
  }
}
