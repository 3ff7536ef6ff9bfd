// The page between the grader worker and the learner worker (split mode). The grader's learner
// requests are forwarded to the current learner worker; the answer goes back through the
// grader's channel (web/src/worker/channel.js), either the learner's own, unread, or one the
// page makes itself (timeout, stopped, crashed: the kinds in py/lessonkit/protocol.json). After
// a page-made answer the learner worker is ended and a spare one, already started, takes its
// place: the grader's side knows it and loads the learner's file again before its next call.

import { answer } from "./worker/channel.js";
import { PythonProcess, Spares } from "./spare-workers.js";

// Learner workers kept booted beside the one in use: one while that one is clean (Stop, or a
// time limit, during the next Run takes it), two once it has run learner code (the next Run
// takes one, and Stop during that Run the other), so neither waits for a boot; a Run right
// after a Run takes the second while the first's replacement boots. One learner (Pyodide,
// numpy and lessonkit) is about 100 MB (bench/site_bench.py).
const spareLearners = (learner) => (learner?.dirty ? 2 : 1);

export class LearnerLink {
  /** `config()`: the page config workers start with now (it changes with the lesson). */
  constructor(config, channel) {
    this.channel = channel;
    this.spares = new Spares(() => new PythonProcess(config(), "learner"), () => spareLearners(this.learner));
    this.pending = null;  // {id, seq, learner, onAnswer}
    this.ids = 0;
    // Set when the learner worker was replaced with no request waiting (it died between
    // calls): the grader's side does not know, so its next call is answered `crashed` at once.
    this.lost = false;
    this.replace();
  }

  get ready() {
    return this.learner.ready;
  }

  replace() {
    this.learner?.end();
    const learner = this.spares.take();
    this.learner = learner;
    learner.onMessage = (data) => this.fromLearner(learner, data);
    learner.onDeath = (message) => {
      if (this.example?.learner === learner) {
        const { id, onMessage } = this.example;
        this.endExample();
        onMessage({ type: "crash", id, message });
      } else if (!this.answerFromPage("crashed", { how: "worker" })) {
        this.lost = true;
        this.replace();
      }
    };
  }

  /**
   * Forwards the grader's request (a JSON string) once the learner worker is ready; `onSent()`
   * when it has gone (the page's timers pause while a replaced worker starts), `onAnswer()` when
   * the grader has its answer, whoever made it.
   */
  async forward(seq, request, { onSent = () => {}, onAnswer = () => {} } = {}) {
    const learner = this.learner;
    const id = ++this.ids;
    this.pending = { id, seq, learner, onAnswer };
    if (this.lost) {
      if (JSON.parse(request).op === "load") this.lost = false;
      else return void this.answerFromPage("crashed", { how: "worker" });
    }
    try {
      await learner.ready;
    } catch {
      this.answerFromPage("crashed", { how: "worker" });
      return;
    }
    if (this.pending?.id !== id) return;  // answered meanwhile (Stop)
    learner.post({ type: "request", id, request });
    onSent();
  }

  /**
   * Runs a widget's call list in the learner worker; resolves once it is sent (the page's timer
   * starts then, not on any message of the learner's). `onMessage(data)` gets its report or crash.
   */
  async runExample(id, source, inputs, lang, onMessage) {
    const learner = this.learner;
    this.example = { id, learner, onMessage };
    await learner.ready;
    if (this.example?.id !== id) return false;
    learner.post({ type: "run-example", id, source, inputs, lang });
    return true;
  }

  /** Ends a widget's run (its time ran out, or Stop): its worker is replaced. */
  endExample() {
    this.example = null;
    this.replace();
  }

  get waiting() {
    return this.pending !== null;
  }

  /** Answers the waiting request with a page-made `kind`; false when none waits. */
  answerFromPage(kind, extra = {}) {
    const pending = this.pending;
    if (!pending) return false;
    this.pending = null;
    answer(this.channel, pending.seq, JSON.stringify({ seq: pending.seq, kind, ...extra }));
    this.replace();
    pending.onAnswer();
    return true;
  }

  /** Answers a request at once, without the learner worker (the run is stopped, or the check's
   *  time is up). */
  answerAtOnce(seq, kind) {
    answer(this.channel, seq, JSON.stringify({ seq, kind }));
  }

  /** The grader is gone (ended by the page): nobody waits for an answer any more. */
  abandon() {
    if (this.pending) {
      this.pending = null;
      this.replace();
    }
  }

  fromLearner(learner, data) {
    if (learner !== this.learner) return;
    const pending = this.pending;
    if (data.type === "response" && pending && data.id === pending.id) {
      this.pending = null;
      answer(this.channel, pending.seq, String(data.response));
      pending.onAnswer();
    } else if (data.type === "crash" && pending) {
      // Python itself failed in the learner worker (a fatal error): it is not usable again.
      this.answerFromPage("crashed", { how: "worker" });
    } else if (this.example?.learner === learner && data.id === this.example.id
               && (data.type === "report" || data.type === "crash")) {
      const { onMessage } = this.example;
      this.example = null;
      onMessage(data);
    }
  }
}
