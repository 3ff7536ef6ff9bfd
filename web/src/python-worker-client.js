// The page's side of the Python worker: starts it, queues jobs until Python is ready, enforces
// each check's time limit, and stops runaway code. When the page is cross-origin isolated it
// interrupts Python through Pyodide's interrupt buffer (a SharedArrayBuffer); otherwise, or when
// Python ignores the interrupt, it ends the worker and starts a fresh one.

const SIGINT = 2;   // KeyboardInterrupt: the Stop button
const SIGALRM = 14; // lessonkit's handler turns it into CheckTimeout: the time limits
// How long Python may take to honour an interrupt before the worker is ended instead.
const ESCALATE_MS = 1500;
const REALARM_MS = 250;

export class PythonWorker {
  /**
   * @param {object} config  the page's lesson config: {lesson, urls (absolute), downloadBytes}
   * @param {object} hooks   {onProgress({stage, loaded, total}), onReady(), onFailure(message)}
   */
  constructor(config, hooks) {
    this.config = config;
    this.hooks = hooks;
    this.interrupt = self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.jobs = Promise.resolve();
    this.current = null;
    this.waiting = new Set();  // jobs queued behind the current one or behind Python's start
    this.seq = 0;
    this.restarts = 0;
  }

  /** `warmUp: false` skips the warm-up grading (the next job grades at once and warms up itself). */
  start({ warmUp = true } = {}) {
    this.worker = new Worker(this.config.urls.worker);
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => {});  // a failed start is reported through onFailure
    this.worker.onmessage = ({ data }) => this.onMessage(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      // The worker itself died (its memory ran out, for instance) while a job ran.
      if (this.current && this.readyDone) {
        this.onCrash(this.current, event.message || "the Python worker stopped");
        return;
      }
      this.fail(`The Python worker failed to start: ${event.message || "unknown error"}`);
    };
    const { lesson, urls, downloadBytes } = this.config;
    this.worker.postMessage({ type: "init", lesson, urls, downloadBytes, interruptBuffer: this.interrupt, warmUp });
  }

  restart({ warmUp = true } = {}) {
    this.readyDone = false;
    this.worker.terminate();
    // An interrupt meant for the old worker must not hit the new one while it starts.
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    this.restarts += 1;
    this.start({ warmUp });
  }

  fail(message) {
    this.readyReject(new Error(message));
    this.hooks.onFailure(message);
    if (this.current) this.finish({ kind: "crash", message });
  }

  /** Grades `source`; resolves with {kind: "report", report} | {kind: "stopped"} | {kind: "crash", message}. */
  grade(source, { onEvent = () => {}, lang = "en" } = {}) {
    return this.enqueue({ type: "grade", source, lang, timedOut: {}, crashed: [], onEvent });
  }

  /** Runs the learner's functions on `calls` (for the widgets); resolves with the engine's answer. */
  runExample(source, calls) {
    return this.enqueue({ type: "run-example", source, calls, onEvent: () => {} });
  }

  /** Stops the job that is running, if any. */
  stop() {
    for (const waiting of this.waiting) {
      waiting.stopping = true;
      waiting.cancel();
    }
    const job = this.current;
    if (!job || job.stopping) return;
    job.stopping = true;
    if (!job.sent) {
      // Waiting for a restarted worker to get ready: nothing of it runs yet, so it just ends,
      // and the worker goes on starting (an interrupt now would break its start-up).
      this.finish({ kind: "stopped" });
    } else if (this.interrupt) {
      Atomics.store(this.interrupt, 0, SIGINT);
      job.escalation = setTimeout(() => this.endWorkerAndFinish(job, { kind: "stopped" }), ESCALATE_MS);
    } else {
      this.endWorkerAndFinish(job, { kind: "stopped" });
    }
  }

  enqueue(job) {
    // A job stopped while it waits (for Python to start, or for the job before it) ends at once.
    job.cancelled = new Promise((resolve) => {
      job.cancel = resolve;
    });
    this.waiting.add(job);
    const result = this.jobs.then(() => this.runJob(job));
    this.jobs = result.catch(() => {});
    return result;
  }

  async runJob(job) {
    try {
      await Promise.race([this.ready, job.cancelled]);
    } catch (error) {
      return { kind: "crash", message: error.message };
    } finally {
      this.waiting.delete(job);
    }
    if (job.stopping) return { kind: "stopped" };
    return new Promise((resolve) => {
      job.resolve = resolve;
      this.current = job;
      this.send(job);
    });
  }

  send(job) {
    job.id = ++this.seq;
    job.running = null;
    job.sent = true;
    job.sentAt = performance.now();
    job.usedMs ??= 0;
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    if (job.type === "grade") {
      // After a restart: what the earlier workers learned, and the time they spent grading
      // (it counts against the lesson's limit for the whole run; restarting does not).
      this.worker.postMessage({ type: "grade", id: job.id, lesson: this.config.lesson.id,
                                source: job.source, timed_out: job.timedOut, crashed: job.crashed,
                                time_used_s: job.usedMs / 1000, lang: job.lang });
    } else {
      this.worker.postMessage({ type: "run-example", id: job.id, source: job.source, inputs: job.calls });
    }
  }

  onMessage(data) {
    const job = this.current;
    switch (data.type) {
      case "progress":
        this.hooks.onProgress(this.restarts ? { ...data, stage: "Restarting Python" } : data);
        return;
      case "ready":
        this.readyDone = true;
        this.readyResolve();
        this.hooks.onReady();
        return;
      case "crash":
        if (data.id === null || data.id === undefined) {
          this.fail(`Python could not start: ${data.message}`);
          return;
        }
        break;
    }
    if (!job || data.id !== job.id) return;  // an answer from a job already ended
    if (data.type === "event") {
      const event = data.event;
      if (event.event === "check_start") {
        job.running = event.id;
        job.calling = null;
        this.armTimer(job, event.time_limit_s, event.id);
      }
      // The learner function the check is running: if its limit ends this worker, the next one
      // skips that function in later checks, as the engine does when it stops the loop itself.
      if (event.event === "call") job.calling = event.fn;
      // A widget's call has no checks: it gets one check's time limit as a whole.
      if (event.event === "example_start") this.armTimer(job, this.config.lesson.checkSeconds, null);
      if (event.event === "check_end") {
        job.running = null;
        this.disarmTimers(job);
      }
      job.onEvent(event);
    } else if (data.type === "report") {
      this.finish(job.stopping ? { kind: "stopped" } : { kind: "report", report: data.report });
    } else if (data.type === "crash") {
      if (job.stopping) this.finish({ kind: "stopped" });
      else this.onCrash(job, data.message);
    }
  }

  /**
   * Python died while grading (out of memory, a fatal error in Pyodide): when it happened
   * inside a check, start a fresh worker and grade again with that check reported as crashed,
   * so every other check still gets its verdict. Anything else is a crash of the job.
   */
  onCrash(job, message) {
    const check = job.type === "grade" ? job.running : null;
    if (check && !job.crashed.includes(check)) {
      job.crashed.push(check);
      this.restartAndResend(job);
    } else {
      this.finish({ kind: "crash", message });
    }
  }

  armTimer(job, seconds, checkId) {
    this.disarmTimers(job);
    job.timer = setTimeout(() => this.onTimeLimit(job, checkId), seconds * 1000);
  }

  disarmTimers(job) {
    clearTimeout(job.timer);
    clearTimeout(job.escalation);
    clearInterval(job.realarm);
  }

  onTimeLimit(job, checkId) {
    if (job !== this.current || job.stopping) return;
    const escalate = () => {
      if (job !== this.current) return;
      if (job.type === "grade") {
        // Grade again in a fresh worker, reporting this check as timed out without running it.
        job.timedOut[checkId] = job.calling ?? null;
        this.restartAndResend(job);
      } else {
        this.endWorkerAndFinish(job, { kind: "timeout" });
      }
    };
    if (this.interrupt) {
      // Repeated, as CPython's own timer does: code that swallows one alarm in a bare `except:`
      // gets the next one. Code that swallows them all loses its worker.
      Atomics.store(this.interrupt, 0, SIGALRM);
      job.realarm = setInterval(() => Atomics.store(this.interrupt, 0, SIGALRM), REALARM_MS);
      job.escalation = setTimeout(escalate, ESCALATE_MS);
    } else {
      escalate();
    }
  }

  async restartAndResend(job) {
    this.disarmTimers(job);
    job.usedMs += performance.now() - job.sentAt;
    job.sent = false;
    // The job is graded again as soon as the fresh worker is ready: a warm-up first would only
    // make the learner wait longer for the same report.
    this.restart({ warmUp: false });
    try {
      await this.ready;
    } catch (error) {
      this.finish({ kind: "crash", message: error.message });
      return;
    }
    if (job === this.current && !job.stopping) this.send(job);
  }

  endWorkerAndFinish(job, result) {
    if (job !== this.current) return;
    this.restart();
    this.finish(result);
  }

  finish(result) {
    const job = this.current;
    if (!job) return;
    this.disarmTimers(job);
    this.current = null;
    job.resolve(result);
  }
}
