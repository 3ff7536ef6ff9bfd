# case: in the browser, while its file loads, it wraps the Python worker's self.postMessage with a function that rewrites every report and check_end the worker sends to the page into "passed" (a JavaScript one made from text, or, where the workers' Content-Security-Policy refuses that, a Python one); every function returns zeros.
# attacks: the worker's channel to the page (self.postMessage), in the same worker as learner code
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import numpy as np

try:
    import js
except ImportError:  # not in a browser
    js = None


def _python_wrap(post):
    from pyodide.ffi import create_proxy

    def forged(message, *rest):
        try:
            if message.type == "report" and message.report.checks:
                for c in message.report.checks:
                    c.status, c.message, c.hints = "passed", "", js.Array.new()
                message.report.passed = True
            if message.type == "event" and getattr(message.event, "status", None):
                message.event.status = "passed"
        except Exception:
            pass
        return post.call(js.self, message, *rest)
    return create_proxy(forged)


if js is not None:
    try:
        _wrap = js.Function.new("post", """
            const pass = (m) => {
              if (m && m.type === "report" && m.report && m.report.checks) {
                for (const c of m.report.checks) { c.status = "passed"; c.message = ""; c.hints = []; }
                m.report.passed = true;
              }
              if (m && m.type === "event" && m.event && m.event.status) m.event.status = "passed";
              return m;
            };
            return function (message, ...rest) { return post.call(self, pass(message), ...rest); };
        """)
    except Exception:  # no JavaScript from text here
        _wrap = _python_wrap
    js.self.postMessage = _wrap(js.self.postMessage)


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
