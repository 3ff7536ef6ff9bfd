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
    this.booted = false;  // Python started (a lesson sent since may still be loading)
    this.worker = new Worker(config.urls.worker);
    this.lessonLoads = new Map();  // id -> {resolve, reject}: lessons sent, not loaded yet
    this.lessonIds = 0;
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        const load = this.lessonLoads.get(data.id);
        if (this.booted && load && (data.type === "lesson-loaded" || data.type === "crash")) {
          this.lessonLoads.delete(data.id);
          if (data.type === "crash") load.reject(new Error(`Python could not open this lesson: ${data.message}`));
          else load.resolve(this);
        } else if (this.booted) {
          this.onMessage(data);
        } else if (data.type === "progress") {
          this.onProgress?.(data);
        } else if (data.type === "ready") {
          this.booted = true;
          resolve(this);
        } else if (data.type === "crash") {
          reject(new Error(`Python could not start: ${data.message}`));
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        // The worker itself died (its memory ran out, for instance).
        const message = event.message || "the Python worker stopped";
        if (this.booted) this.onDeath(message);
        else reject(new Error(`The Python worker failed to start: ${message}`));
      };
    });
    this.ready.catch(() => {
      this.failed = true;  // reported to whoever waits for it
    });
    const { lesson, urls, sha256, downloadBytes, lessonZip } = config;
    this.worker.postMessage({ type: "init", role, lesson, urls, sha256, downloadBytes, lessonZip, ...extra });
  }

  post(message) {
    this.worker.postMessage(message);
  }

  /**
   * Swaps the lesson in this worker, booted or still starting: `lesson` is the new page
   * config's, `zip` its lesson.zip bytes and `sha256` theirs (the worker checks them); `lang`
   * the page's language (the grader collects the checks in it).
   * `ready` then also waits for the new lesson, so nothing reaches the worker before it.
   */
  loadLesson(lesson, zip, sha256, lang) {
    // Ids of their own (negative), never a job's.
    const id = -(++this.lessonIds);
    const loaded = new Promise((resolve, reject) => this.lessonLoads.set(id, { resolve, reject }));
    this.worker.postMessage({ type: "lesson", id, lesson, zip, sha256, lang });
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
 * Keeps up to `size()` workers of a role started ahead, for the next `take()`s. The page calls
 * `refill()` when no job runs (a worker starting uses the CPU a Run would); each call starts
 * at most one, and none while another is still booting (`onBooted()` says when one is, so
 * the page can start the next). When none is kept, `take()` starts one.
 */
export class Spares {
  constructor(make, size = () => 1) {
    this.make = make;
    this.size = size;
    this.pool = [];
    this.onBooted = () => {};
  }

  /** The spare started first (ready, or the nearest to it), or a new worker when none is kept. */
  take() {
    return this.started.shift() ?? this.make();
  }

  refill() {
    const pool = this.started;
    if (pool.length >= this.size() || pool.some((spare) => !spare.booted)) return;
    const spare = this.make();
    pool.push(spare);
    spare.ready.then(() => this.onBooted(), () => {});
  }

  /** The spares kept (they move to another lesson with the page); failed ones are dropped. */
  get started() {
    this.pool = this.pool.filter((spare) => !spare.failed);
    return this.pool;
  }
}
