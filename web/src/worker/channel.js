// The grader worker's synchronous line to the page (split mode): a SharedArrayBuffer the page
// writes each answer to a learner request into, while the grader waits in `Atomics.wait`. The
// layout (Int32 control words, then the answer's UTF-8 bytes) is py/lessonkit/protocol.json's
// `sab`. Only the page and the grader worker hold it; the learner worker never sees it.

import protocol from "../../../py/lessonkit/protocol.json";

const { words, word, state, bytes_offset: offset, bytes_capacity: capacity } = protocol.sab;

export function createChannel() {
  return new SharedArrayBuffer(offset + capacity);
}

function views(buffer) {
  return { control: new Int32Array(buffer, 0, words), bytes: new Uint8Array(buffer, offset, capacity) };
}

/** Grader side, before posting a request: no answer yet. */
export function expectAnswer(buffer) {
  Atomics.store(views(buffer).control, word.state, state.waiting);
}

/** Grader side: blocks until the page has answered; returns the answer's text. */
export function waitForAnswer(buffer) {
  const { control, bytes } = views(buffer);
  while (Atomics.load(control, word.state) === state.waiting) {
    Atomics.wait(control, word.state, state.waiting);
  }
  const length = Atomics.load(control, word.length);
  // slice() copies into an unshared buffer, which TextDecoder needs.
  return new TextDecoder().decode(bytes.slice(0, length));
}

/**
 * Page side: writes `text`, the answer to request `seq`, and wakes the grader. An answer larger
 * than the channel is written as nothing, which the grader cannot decode: a learner error for
 * the check ("your code wrote something the grader could not read"), never a pass.
 */
export function answer(buffer, seq, text) {
  const { control, bytes } = views(buffer);
  let encoded = new TextEncoder().encode(text);
  if (encoded.length > bytes.length) encoded = encoded.subarray(0, 0);
  bytes.set(encoded);
  Atomics.store(control, word.length, encoded.length);
  Atomics.store(control, word.seq, seq);
  Atomics.store(control, word.state, state.ready);
  Atomics.notify(control, word.state);
}
