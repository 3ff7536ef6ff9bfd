// The page's side of Python: starts the workers, queues jobs until Python is ready, enforces
// each check's time limit, and stops runaway code (docs/architecture.md, "Worker protocol").
//
// Cross-origin isolated page (split mode): a grader worker (pytest, the checks, the report) and a
// learner worker (the learner's code), never one interpreter; the grader's learner requests go
// through the page (learner-channel.js), which owns the timers, driven only by the grader's
// check_start/check_end. A learner request past its check's limit is answered `timeout` at once
// and the learner worker swapped for a fresh one (the spare, if one has started).
// Every grading Run starts on a learner worker no learner code has run in (the warm-up's, or
// a spare started ahead).
// Not isolated (single mode): one worker grades in-process; every Run grades in a fresh worker
// (started ahead, warmed up), and a time limit or Stop ends the worker and, for a time limit,
// grades again in a fresh one with that check reported as timed out. Learner code there can
// send events as the grader would, so a whole-run deadline armed by the page alone backs the
// check timers up.

import protocol from "../../py/lessonkit/protocol.json";
import { fetched, readBytes } from "./fetch-ahead.js";
import { LearnerLink } from "./learner-channel.js";
import { PythonProcess, Spares } from "./spare-workers.js";
import { createChannel } from "./worker/channel.js";

const { SIGINT, SIGALRM } = protocol.signals;
// How long Python may take to honour Stop, or a time limit, before its worker is ended instead.
const STOP_ESCALATE_MS = protocol.stop_escalation_s * 1000;
const GRACE_MS = protocol.grace_s * 1000;
const REALARM_MS = protocol.realarm_s * 1000;
// Spare workers (the next Run's, or the one that takes over after Stop or a time limit; how
// many: learner-channel.js) start once the page has been idle this long after Python got
// ready: not while the learner's first moves on a fresh page (typing, the widgets, a first
// Run) want the CPU a boot takes on a machine with few cores. After that a job that took one
// starts the next as soon as its result is shown if no booted spare is left (never during a
// Run: the Run would share the CPU with the boot), else once the page has been idle this long
// again, one boot at a time, so a Run right after a Run and Stop find one ready.
const SPARE_AFTER_IDLE_MS = 2000;

/** A timer that can be paused (while a replaced worker starts: restarting is never charged). */
class Countdown {
  constructor(ms, onExpire) {
    this.left = ms;
    this.onExpire = onExpire;
    this.timer = null;
    this.resume();
  }

  pause() {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.left -= performance.now() - this.since;
  }

  resume() {
    if (this.timer !== null || this.done) return;
    this.since = performance.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.onExpire();
    }, Math.max(0, this.left));
  }

  cancel() {
    clearTimeout(this.timer);
    this.done = true;
  }
}

export class PythonWorker {
  /**
   * @param {object} config  the page's lesson config: {lesson, urls (absolute), sha256, downloadBytes}
   * @param {object} hooks   {onProgress({stage, loaded, total}), onReady(), onFailure(message),
   *                         lang() (the page's language)}: the page shown now's (replaced when
   *                         the page moves to another lesson)
   */
  constructor(config, hooks) {
    this.config = config;
    this.hooks = hooks;
    this.split = self.crossOriginIsolated;
    this.jobs = Promise.resolve();
    this.current = null;
    this.waiting = new Set();  // jobs queued behind the current one or behind Python's start
    this.seq = 0;
    // A job asked for before `start()` (a widget's "Try with my code" while the page is
    // reloading into isolation) waits for it.
    this.started = new Promise((resolve) => {
      this.begin = resolve;
    });
  }

  /** Starts Python; `ready` resolves once the first Run will be as fast as any later one. */
  start() {
    this.begin();
    if (this.split) {
      this.channel = createChannel();
      this.interrupt = new Int32Array(new SharedArrayBuffer(4));
      this.link = new LearnerLink(() => this.config, this.channel);
      this.spares = this.link.spares;
      this.startGrader();
      this.grader.onProgress = (p) => this.hooks.onProgress(p);
      // The warm-up runs through both workers, so it is the first job: a Run pressed before it
      // waits behind it, and Stop leaves it alone.
      // In the page's language: the grader keeps the checks it collects for that language.
      this.ready = this.enqueue({ type: "grade", source: this.config.lesson.starter, lang: this.lang(), warmUp: true })
        .then((outcome) => {
          if (outcome.kind !== "report") throw new Error(outcome.message);
        });
    } else {
      this.spares = new Spares(() => new PythonProcess(this.config, "single"));
      this.single = this.spares.take();
      this.listen(this.single);
      this.single.onProgress = (p) => this.hooks.onProgress(p);
      this.ready = this.single.ready;  // the single role warms up before it says ready
    }
    // A spare that has booted: the next one starts at once if no job runs (else after the job).
    this.spares.onBooted = () => {
      if (!this.current && !this.waiting.size) this.spares.refill();
    };
    this.ready.then(() => {
      this.readyOnce = true;
      this.hooks.onReady();
      this.refillWhenIdle(SPARE_AFTER_IDLE_MS);
    }, (error) => this.hooks.onFailure(error.message));
  }

  /** The page's language now (the checks are collected in it). */
  lang() {
    return this.hooks.lang?.() ?? "en";
  }

  /** Starts a spare after `ms` if no job runs or waits then (the job's end tries again). */
  refillWhenIdle(ms) {
    if (this.refillTimer && this.refillAt <= performance.now() + ms) return;  // one comes sooner
    clearTimeout(this.refillTimer);
    this.refillAt = performance.now() + ms;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = null;
      if (!this.current && !this.waiting.size) this.spares.refill();
    }, ms);
  }

  startGrader() {
    this.grader = new PythonProcess(this.config, "grader", { channel: this.channel, interruptBuffer: this.interrupt });
    this.listen(this.grader);
  }

  listen(process) {
    process.onMessage = (data) => this.onMessage(data);
    process.onDeath = (message) => {
      const job = this.current;
      if (job && job.sent && this.processOf(job) === process) this.onCrash(job, message);
    };
  }

  /** Starts afresh (after Python failed in a way the page cannot tell apart from a broken one). */
  startAfresh() {
    if (this.split) {
      this.restartGrader();
      this.link.replace();
    } else {
      this.replaceSingle();
    }
  }

  restartGrader() {
    this.grader.end();
    this.link.abandon();
    // An interrupt meant for the old grader must not hit the new one while it starts.
    Atomics.store(this.interrupt, 0, 0);
    this.startGrader();
  }

  replaceSingle() {
    this.single.end();
    this.single = this.spares.take();
    this.listen(this.single);
  }

  /** The worker a job runs in. */
  processOf(job) {
    if (!this.split) return this.single;
    return job.type === "grade" ? this.grader : this.link.learner;
  }

  /** Grades `source`; resolves with {kind: "report", report} | {kind: "stopped"} | {kind: "crash", message}. */
  grade(source, { onEvent = () => {}, lang = "en" } = {}) {
    return this.enqueue({ type: "grade", source, lang, onEvent });
  }

  /** Runs the learner's functions on `calls` (for the widgets); resolves with the engine's answer,
   *  or {kind: "timeout"} | {kind: "stopped"} | {kind: "crash", message}; its messages in `lang`. */
  runExample(source, calls, { lang = "en" } = {}) {
    return this.enqueue({ type: "run-example", source, calls, lang });
  }

  /**
   * Moves Python to another lesson of this build (navigation.js), keeping the loaded
   * interpreters: every worker, the spare included, unpacks the new lesson.zip (fetched here:
   * the learner worker cannot fetch; each worker checks its sha256) and reads the lesson. After
   * the jobs before it; resolves once a Run of the new lesson can start, with
   * {kind: "lesson"} | {kind: "crash", message} (Python was started afresh then).
   */
  switchLesson(config) {
    return this.enqueue({ type: "lesson", config });
  }

  async loadLesson(config) {
    const { lesson, urls, sha256 } = config;
    // Workers started from now on boot into the new lesson; a spare that started before is
    // moved below with the rest.
    this.config = config;
    const spares = [...this.spares.started];
    try {
      // Fetched ahead while the page before it was idle, as a rule (navigation.js lookAhead).
      const zip = await fetched(urls.lesson, readBytes);
      // Workers started from now on are handed these bytes rather than fetching them again.
      if (this.config === config) this.config = { ...config, lessonZip: zip };
      const lang = this.lang();
      const processes = this.split ? [this.grader, this.link.learner] : [this.single];
      const loads = processes.map((process) => process.loadLesson(lesson, zip, sha256.lesson, lang));
      // The spares move too, once the workers in use have (not sharing the CPU with them
      // before the lesson is ready), or failed to (a restart then takes a spare); a Run waits
      // for one only once it takes it.
      await Promise.allSettled(loads);
      for (const spare of spares) spare.loadLesson(lesson, zip, sha256.lesson, lang);
      await Promise.all(loads);
      return { kind: "lesson" };
    } catch (error) {
      this.startAfresh();
      return { kind: "crash", message: error.message };
    }
  }

  /** Stops the job that is running, if any (never the warm-up, nor a move to another lesson). */
  stop() {
    for (const waiting of this.waiting) {
      if (waiting.warmUp || waiting.type === "lesson") continue;
      waiting.stopping = true;
      waiting.cancel();
      this.waiting.delete(waiting);
    }
    const job = this.current;
    if (!job || job.stopping || job.warmUp) return;
    job.stopping = true;
    if (!job.sent) {
      // Waiting for a replaced worker to get ready: nothing of it runs yet, so it just ends.
      this.finish({ kind: "stopped" });
    } else if (!this.split) {
      this.replaceSingle();
      this.finish({ kind: "stopped" });
    } else if (job.type === "run-example") {
      this.link.endExample();
      this.finish({ kind: "stopped" });
    } else {
      // The learner's call (if one runs) is answered `stopped`; otherwise the grader's own code
      // is interrupted. Either way the grader reports at once, or is ended.
      if (!this.link.answerFromPage("stopped")) Atomics.store(this.interrupt, 0, SIGINT);
      job.escalation = setTimeout(() => {
        if (job !== this.current) return;
        this.restartGrader();
        this.finish({ kind: "stopped" });
      }, STOP_ESCALATE_MS);
    }
  }

  enqueue(job) {
    Object.assign(job, { timedOut: {}, crashed: [], usedMs: 0, onEvent: job.onEvent ?? (() => {}) });
    // A job stopped while it waits (for Python to start, or for the job before it) ends at once.
    job.cancelled = new Promise((resolve) => {
      job.cancel = resolve;
    });
    this.waiting.add(job);
    // Its turn comes after the jobs before it (the warm-up, say) even when it was stopped;
    // the caller hears of a Stop at once.
    const turn = this.jobs.then(() => (job.stopping ? { kind: "stopped" } : this.runJob(job)));
    this.jobs = turn.catch(() => {});
    return Promise.race([turn, job.cancelled.then(() => ({ kind: "stopped" }))]);
  }

  async runJob(job) {
    await this.started;
    if (job.type === "lesson") {
      this.waiting.delete(job);
      const outcome = await this.loadLesson(job.config);
      this.refillWhenIdle(0);
      return outcome;
    }
    try {
      if (!this.split && job.type === "grade" && this.single.dirty) this.replaceSingle();
      // A Run after one (or after Try with my code) must not meet what that code left behind.
      if (this.split && job.type === "grade" && this.link.learner.dirty) this.link.replace();
      await Promise.race([this.whenReady(job), job.cancelled]);
    } catch (error) {
      this.startAfresh();  // a worker that failed to start is no use to the next job
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

  /**
   * Resolves when the worker `job` needs is ready. One that is still starting (a replacement
   * the job caught up with) shows its progress meanwhile, as "Restarting Python".
   */
  whenReady(job) {
    // A Run waits for its learner worker here too, before its time starts (not the warm-up,
    // whose learner starts with the page and shows the page's own progress).
    const processes = this.split && job.type === "grade" && !job.warmUp
      ? [this.grader, this.link.learner] : [this.processOf(job)];
    return Promise.all(processes.map((process) => this.shownStarting(process)));
  }

  shownStarting(process) {
    if (!process.onProgress) {
      let shown = false;
      process.onProgress = (p) => {
        shown = true;
        this.hooks.onProgress({ ...p, stage: "Restarting Python" });
      };
      process.ready.then(() => shown && this.hooks.onReady(), () => {});
    }
    return process.ready;
  }

  async send(job) {
    job.id = ++this.seq;
    job.running = null;
    job.sent = true;
    job.sentAt = performance.now();
    job.lastStart = null;
    if (this.split) Atomics.store(this.interrupt, 0, 0);
    if (!this.split && job.type === "grade") {
      // Counts grading only: each attempt gets what the earlier ones left.
      const ms = this.config.lesson.totalSeconds * 1000 + GRACE_MS - job.usedMs;
      job.runCountdown = new Countdown(ms, () => this.onRunDeadline(job));
    }
    const process = this.processOf(job);
    if (job.type === "grade") {
      // After a restart: what the earlier workers learned, and the time they spent grading
      // (it counts against the lesson's limit for the whole run; restarting does not).
      process.post({ type: "grade", id: job.id, lesson: this.config.lesson.id, source: job.source,
                     timed_out: job.timedOut, crashed: job.crashed, time_used_s: job.usedMs / 1000,
                     lang: job.lang });
    } else if (this.split) {
      if (!job.warmUp) this.link.learner.dirty = true;
      // A widget's call list gets one check's time limit as a whole.
      if (await this.link.runExample(job.id, job.source, job.calls, job.lang, (data) => this.onMessage(data))) {
        this.armCheck(job, this.config.lesson.checkSeconds);
      }
    } else {
      process.post({ type: "run-example", id: job.id, source: job.source, inputs: job.calls, lang: job.lang });
    }
    if (!this.split) process.dirty = true;
  }

  onMessage(data) {
    const job = this.current;
    if (!job || data.id !== job.id) return;  // an answer from a job already ended
    if (data.type === "event") {
      this.onEvent(job, data.event);
    } else if (data.type === "learner" && this.split) {
      this.onLearnerRequest(job, data);
    } else if (data.type === "report") {
      this.finish(job.stopping ? { kind: "stopped" } : { kind: "report", report: data.report });
    } else if (data.type === "crash") {
      if (job.stopping) this.finish({ kind: "stopped" });
      else this.onCrash(job, data.message);
    }
  }

  onEvent(job, event) {
    if (event.event === "check_start") {
      job.running = event.id;
      job.lastStart = { id: event.id, at: performance.now() };
      job.calling = null;
      job.expired = false;
      job.answeredTimeout = false;
      this.armCheck(job, event.time_limit_s);
    }
    // The learner function the check is running: if its limit ends the worker, the next one
    // skips that function in later checks, as the engine does when it stops the loop itself.
    if (event.event === "call") job.calling = event.fn;
    // Single mode: a widget's call list starts when the worker gets to it.
    if (event.event === "example_start" && !this.split) this.armCheck(job, this.config.lesson.checkSeconds);
    // One for another check (a collection error's, or one learner code sent) leaves the
    // running check's timer armed.
    if (event.event === "check_end" && event.id === job.running) {
      job.running = null;
      // A reload between checks (after a lost learner worker) is not this check's.
      job.expired = false;
      this.disarm(job);
      // An alarm the grader did not take in this check must not hit the next one.
      if (this.split) Atomics.store(this.interrupt, 0, 0);
    }
    job.onEvent(event);
  }

  /** Split mode: the grader asks for a learner call; its answer comes back through the channel. */
  onLearnerRequest(job, { seq, request, time_limit_s: limit }) {
    if (job.stopping) return this.link.answerAtOnce(seq, "stopped");
    if (job.expired) return this.link.answerAtOnce(seq, "timeout");
    if (!job.warmUp) this.link.learner.dirty = true;
    // A learner worker still starting (after a replacement) does not eat the check's time.
    job.countdown?.pause();
    this.link.forward(seq, request, {
      onSent: () => {
        job.countdown?.resume();
        if (typeof limit === "number") {
          job.callCountdown = new Countdown(limit * 1000, () => this.onTimeLimit(job, false));
        }
      },
      onAnswer: () => {
        job.callCountdown?.cancel();
        job.callCountdown = null;
      },
    });
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
      if (this.split) this.restartGrader();
      else this.replaceSingle();
      this.finish({ kind: "crash", message });
    }
  }

  armCheck(job, seconds) {
    this.disarm(job);
    job.countdown = new Countdown(seconds * 1000, () => this.onTimeLimit(job, true));
  }

  disarm(job) {
    job.countdown?.cancel();
    job.callCountdown?.cancel();
    clearTimeout(job.escalation);
    clearInterval(job.realarm);
  }

  /**
   * `ofCheck`: the check's own limit ran out (else a learner request's own `time_limit_s`, the
   * time its check had left when the grader asked). A learner request that waits is answered
   * `timeout` at once; its worker is swapped for a spare.
   */
  onTimeLimit(job, ofCheck) {
    if (job !== this.current || job.stopping) return;
    const checkId = job.running;
    const regrade = () => {
      if (job !== this.current) return;
      // Grade again in a fresh worker, reporting this check as timed out without running it.
      job.timedOut[checkId] = job.calling ?? null;
      this.restartAndResend(job);
    };
    if (!this.split) {
      if (job.type === "grade") return regrade();
      this.replaceSingle();
      return this.finish({ kind: "timeout" });
    }
    if (job.type === "run-example") {
      this.link.endExample();
      return this.finish({ kind: "timeout" });
    }
    if (!ofCheck) {
      if (this.link.answerFromPage("timeout")) job.answeredTimeout = true;
      return;
    }
    job.expired = true;
    // A request with its own limit (its check's time left when the grader asked) runs to it.
    if (this.link.waiting) {
      if (!job.callCountdown && this.link.answerFromPage("timeout")) job.answeredTimeout = true;
      return;
    }
    // The grader was told this check timed out and is ending it.
    if (job.answeredTimeout) return;
    // No learner call waits: the grader's own code is past the check's limit. Alarmed
    // repeatedly, as CPython's own timer does; a grader that does not stop is ended.
    Atomics.store(this.interrupt, 0, SIGALRM);
    job.realarm = setInterval(() => Atomics.store(this.interrupt, 0, SIGALRM), REALARM_MS);
    job.escalation = setTimeout(regrade, GRACE_MS);
  }

  /**
   * Single mode: the run's grading time (total_seconds + grace_s) is past, though no check
   * timer expired: learner code sent a check_end as the grader would, say. The check that
   * started last is reported as timed out, charged one check's limit from its start as its own
   * timer would have been (so every attempt of a run costs at least that much, and the run
   * ends); a fresh worker grades again, the checks before it keeping their verdicts.
   */
  onRunDeadline(job) {
    if (job !== this.current || job.stopping) return;
    const { id, at } = job.lastStart ?? { id: "load", at: job.sentAt };
    job.timedOut[id] = job.calling ?? null;
    this.restartAndResend(job, at - job.sentAt + this.config.lesson.checkSeconds * 1000);
  }

  /** `usedMs`: what this attempt counts against the run's time (by default, all it took). */
  async restartAndResend(job, usedMs = performance.now() - job.sentAt) {
    this.disarm(job);
    job.runCountdown?.cancel();
    job.usedMs += usedMs;
    job.sent = false;
    if (this.split) this.restartGrader();
    else this.replaceSingle();
    try {
      await this.whenReady(job);
    } catch (error) {
      this.startAfresh();
      this.finish({ kind: "crash", message: error.message });
      return;
    }
    if (job === this.current && !job.stopping) this.send(job);
  }

  finish(result) {
    const job = this.current;
    if (!job) return;
    this.disarm(job);
    job.runCountdown?.cancel();
    this.current = null;
    // Single mode: the worker a Run graded in is used; the next Run gets a fresh one.
    if (!this.split && job.type === "grade" && !job.warmUp && this.single.dirty) this.replaceSingle();
    job.resolve(result);
    // After the result is shown (a timer runs after the page's own continuation); not after
    // the warm-up, whose spares wait for the page's first idle moments. While a booted spare
    // is still kept, the next Run has its worker, and the one to replace the spare just taken
    // waits until the page is idle: a boot started now would share the 2 cores with a Run
    // pressed right after this one.
    if (this.readyOnce) this.refillWhenIdle(this.spares.started.some((spare) => spare.booted) ? SPARE_AFTER_IDLE_MS : 0);
  }
}
