// The Python worker, one bundle for three roles (docs/architecture.md, "Worker protocol"): the
// page's first message, `init`, says which one this worker plays:
//   grader   split mode: pytest and the checks; asks the page for every learner call;
//   learner  split mode: runs the learner's code, answering the requests the page forwards;
//   single   not isolated: both in one interpreter, a fresh worker for every Run.
// Only strings (JSON) pass to and from Python.

import { describe, newRequest, post } from "./boot.js";
import { grader } from "./grader.js";
import { learner } from "./learner.js";
import { single } from "./single.js";

const ROLES = { grader, learner, single };
let handlers = null;  // the role's message handlers, by message type, once booted

// Messages are handled one at a time, in order: a job sent while Pyodide loads waits for it.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(async () => {
    newRequest();
    try {
      if (data.type === "init") {
        handlers = await ROLES[data.role](data);
        post({ type: "ready" });
      } else {
        await handlers[data.type](data);
      }
    } catch (error) {
      post({ type: "crash", id: data.id ?? null, message: describe(error) });
    }
  });
};
