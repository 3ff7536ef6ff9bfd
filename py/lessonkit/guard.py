"""The grader and the learner's code share one interpreter (in the browser there is no other
choice), so learner code can reach the grader's modules, classes and files. The guard makes
that useless instead of forbidding names: just before each piece of learner code runs it
records the grader's world, and right after it compares. Whatever learner code changed is put
back. A change made while a check runs is reported as `Tampered`, which the runner turns into
an "error" for that check; one made while the file loads is put back before any check runs
and becomes a note in the learner's output.

What is recorded (identity, not equality, so objects that lie in `__eq__` change nothing):
- the namespace and the class of every module of the packages the grader computes verdicts
  with (`_TRUSTED`: numpy, pytest, pluggy, lessonkit, builtins and the standard modules they
  use) and of the check modules, and the attributes of every class those modules define;
- functions' code, defaults and keyword defaults: CPython announces every such assignment to
  audit hooks, so ours keeps the old value as it happens, for any function not the learner's;
- the import system (`sys.modules`, `sys.meta_path`, `sys.path_hooks`, `sys.path`,
  `sys.path_importer_cache`), trace, profile and monitoring hooks, `gc.callbacks`, the
  SIGALRM/SIGINT handlers and the signal mask;
- the files in the lesson's `checks/` folder (listing and contents);
- extra state the runner asks for (`watch`): its results, pytest's plugins, hooks and items.

While learner code runs, the functions written in the checks folder refuse to run (so their
reference answers cannot be borrowed) and `os._exit` raises instead of ending Python. Learner
code may not add audit hooks (they cannot be removed again) or leave threads running; both
are refused or reported. See docs/threat-model.md for what this does not cover.
"""
from __future__ import annotations

import gc
import itertools
import operator
import os
import signal
import sys
import threading
import types
from contextlib import contextmanager
from pathlib import Path

# Captured at import, before any learner code runs: the guard never looks these up again.
_is = operator.is_
_all = all
_map = map
_len = len
_vars = vars
_type = type
_isinstance = isinstance
_getattr = getattr
_tuple = tuple
_list = list
_sorted = sorted
_FunctionType = types.FunctionType
_chain = itertools.chain
_proxy_values = types.MappingProxyType.values
_dict_values = dict.values
_module_of = operator.attrgetter("module")

_ModuleType = types.ModuleType
_settrace = sys.settrace
_setprofile = sys.setprofile
_gettrace = sys.gettrace
_getprofile = sys.getprofile
_monitoring = getattr(sys, "monitoring", None)
_signal_names = [s for s in ("SIGALRM", "SIGINT") if hasattr(signal, s)]
_SIGNALS = [getattr(signal, s) for s in _signal_names]
_getsignal = signal.getsignal
_setsignal = signal.signal
_sigmask = getattr(signal, "pthread_sigmask", None)
_main_thread = threading.main_thread
_current_thread = threading.current_thread
_active_count = threading.active_count
_limbo = threading._limbo
_thread = __import__("_thread")
_thread_count = getattr(_thread, "_count", None)
_get_ident = _thread.get_ident
_current_frames = sys._current_frames
_sleep = __import__("time").sleep
_THREAD_GRACE = (20, 0.005)  # re-counts, and seconds between them, for a busy host's threads
_frozenset = frozenset
_MISSING = object()
_LEARNER_FILE = "solution.py"  # learner.FILENAME (learner.py imports this module)
# sys attributes that say how the grader's process is wired; the rest of `sys` is volatile.
_SYS_ATTRS = ("modules", "meta_path", "path_hooks", "path", "path_importer_cache",
              "displayhook", "excepthook", "unraisablehook", "breakpointhook", "settrace",
              "setprofile", "setrecursionlimit", "getrecursionlimit", "_getframe", "exit")
_SYS_LISTS = ("meta_path", "path_hooks", "path")
# The packages recorded (with the check modules): the code a verdict is computed with, and
# what it calls. Recording the whole standard library too would cost more time around each
# call than grading itself (this runs after every call of a learner function).
_TRUSTED = {"lessonkit", "numpy", "pytest", "_pytest", "pluggy", "iniconfig", "builtins",
            "copy", "copyreg", "functools", "contextlib", "dataclasses", "inspect", "json",
            "math", "operator", "traceback", "linecache", "types", "warnings", "signal", "abc",
            "collections", "enum", "re", "importlib", "os", "posixpath", "genericpath", "stat",
            "io", "time", "gc", "pathlib", "threading", "weakref"}
# Not the grader's: the program's own __main__, the volatile `sys`, the learner's module.
_UNWATCHED = {"__main__", "sys", "solution",
              # pytest sets two globals here around every test, for assertion rewriting,
              # which the grader does not use (--assert=plain).
              "_pytest.assertion.util"}


class Tampered(Exception):
    """Learner code changed the grader's world; `message` is written for the learner.
    `fatal`: something could not be put back (a thread still running, the grader's own
    records): stop grading."""

    def __init__(self, message: str, fatal: bool = False):
        super().__init__(message)
        self.message = message
        self.fatal = fatal


# --- state of the current grading run ---------------------------------------------------
_learner_active = [False]
_refused: list[str] = []         # what the audit hook refused while learner code ran
_learner_modules: set[str] = set()  # modules first imported by learner code: not trusted
_checks_dir: list = [None]
_watches: list = []              # (name, fn, restore): fn() -> tuple compared by identity
_tree: list = [None]             # the checks folder's files, read once per run
_fresh = [True]                  # a run just started: compare the whole world once


_FUNCTION_ATTRS = ("__code__", "__defaults__", "__kwdefaults__")
_changed_functions: list = []    # (function, attribute, value before) seen by the audit hook


def _audit(event, args):
    """Python calls this for every audited event, so it returns at once unless learner code
    runs. Two events matter then:
    - a new audit hook: hooks run for the life of the process and cannot be removed (in the
      browser a learner's hook would see every later run), so it is refused (a RuntimeError
      makes sys.addaudithook skip it silently);
    - a function's code, defaults or keyword defaults being replaced or deleted: the old
      value is kept, to be put back when the learner's code returns (learner functions
      excepted). Comparing every function's code after each call would cost far more."""
    if not _learner_active[0]:
        return
    if event == "sys.addaudithook":
        _refused.append("sys.addaudithook")
        raise RuntimeError("audit hooks are not allowed here")
    if event == "object.__setattr__" or event == "object.__delattr__":
        target, name = args[0], args[1]
        if _type(target) is _FunctionType and name in _FUNCTION_ATTRS:
            if target.__code__.co_filename != _LEARNER_FILE:
                _changed_functions.append((target, name, _getattr(target, name)))


sys.addaudithook(_audit)


@contextmanager
def session(checks_dir=None):
    """One grading run: which checks folder to protect. Watches added during the run (also
    just before it starts) end with it."""
    _checks_dir[0] = Path(checks_dir) if checks_dir is not None else None
    _notes.clear()
    _tree[0] = None
    _fresh[0] = True
    # The grader writes nothing into the checks folder while it runs (so only learner code
    # can); in the browser Pyodide never writes bytecode anyway.
    bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield
    finally:
        sys.dont_write_bytecode = bytecode
        _checks_dir[0] = None
        _tree[0] = None
        _watches.clear()


def watch(name: str, fn, restore=None) -> None:
    """Also compare `fn()` (a tuple of objects, compared by identity) around learner code;
    `name` says what it is in the learner's message. On a change, `restore(before)` puts it
    back; without `restore` the change cannot be undone and grading stops (Tampered.fatal).
    For the current session."""
    _watches.append((name, fn, restore))


class ProcessExit(SystemExit):
    """What `os._exit()` raises inside learner code: ending the process would take the
    grader with it (in the browser, Pyodide cannot be restarted without a new worker)."""


def _exit_instead(status=0):
    raise ProcessExit(f"os._exit({status}) was called")


def _checks_code(*args, **kwargs):
    raise RuntimeError("the checks' own code cannot be used by your solution; compute the "
                       "answer in your own function")


_os_exit = os._exit
_posix = sys.modules.get(os.name)  # `posix`, where os._exit comes from
_BLOCKED_CODE = _checks_code.__code__


# While the guard records or restores, a time limit (SIGALRM) or Stop (SIGINT) must not land
# halfway: the handlers in timelimit.py see CRITICAL and leave the exception in PENDING, and
# the guard raises it once the grader's world is whole again.
CRITICAL = [False]
PENDING: list = [None]


def _raise_pending() -> None:
    exc, PENDING[0] = PENDING[0], None
    if exc is not None:
        raise exc()


@contextmanager
def learner_code(loading: bool = False):
    """Run the block as learner code: record before, compare, put back and report after.

    A change made while a check runs raises Tampered (that check does not count). A change
    made while the file loads (`loading`) is put back before any check runs, so it cannot
    affect a verdict: it becomes a note for the learner instead (see `notes`). Changes that
    cannot be put back raise Tampered either way.
    """
    CRITICAL[0] = True
    try:
        # Before the snapshot: a thread the host starts from here on is counted.
        _host_threads[0] = _frozenset(_current_frames()) - {_get_ident()}
        _host_starts[0] = 0
        snap = _Snapshot()
        blocked = _block_checks_code()
        _swap_exit(_exit_instead)
        _learner_active[0] = True
    finally:
        CRITICAL[0] = False
    raised = True
    try:
        _raise_pending()
        yield
        raised = False
    finally:
        CRITICAL[0] = True  # first: a list store, no call a trace function could see
        # Before any other Python call: a trace or profile function left by learner code
        # would otherwise run inside the grader's frames and could rewrite their locals.
        left_profile = _getprofile()
        _setprofile(None)
        left_trace = _gettrace()
        _settrace(None)
        try:
            _learner_active[0] = False
            _swap_exit(_os_exit)
            changes, undoable = snap.restore(left_trace, left_profile)
            for fn, code in blocked:  # after restore(), which may put the stub back first
                fn.__code__ = code
        finally:
            CRITICAL[0] = False
        _raise_pending()
        if changes and not raised:
            if loading and not undoable:
                _notes.extend(c for c in changes if c not in _notes)
            else:
                raise Tampered(_message(changes, "thread" in " ".join(undoable)), bool(undoable))


_notes: list[str] = []


def notes() -> str:
    """For the learner's output: what their file changed while loading (then put back)."""
    if not _notes:
        return ""
    text = (f"[grader] While loading, your file changed {', '.join(_notes[:6])}"
            f"{' and more' if _len(_notes) > 6 else ''}. These belong to the grader or to "
            "the libraries it uses, so they were put back before the checks ran: your "
            "functions are checked with the originals.\n")
    _notes.clear()
    return text


def _swap_exit(fn) -> None:
    for module in (os, _posix):
        if module is not None and "_exit" in _vars(module):
            _vars(module)["_exit"] = fn


# The host's own threads may start threads while learner code runs (a test's HTTP server
# starts one per request): those starts are counted, so that only a thread nobody else explains
# stops grading. Every thread `threading` starts goes through one of these module functions,
# counted from the guard's import on (a swap around learner code alone would miss the host's
# starts while the guard records and compares); only threads that were running before learner
# code began count as the host's.
_host_threads = [frozenset()]    # idents of the threads running when learner code began
_host_starts = [0]               # threads they started since


def _counting(start):
    def counted(*args, **kwargs):
        if _get_ident() in _host_threads[0]:
            _host_starts[0] += 1
        return start(*args, **kwargs)
    return counted


for _module in (threading, _thread):
    for _name in ("_start_new_thread", "_start_joinable_thread", "start_new_thread",
                  "start_joinable_thread"):
        if _name in _vars(_module):
            _vars(_module)[_name] = _counting(_vars(_module)[_name])
del _module, _name


def _block_checks_code() -> list:
    """While learner code runs, the functions defined in the checks folder raise instead of
    running, so their reference answers cannot be borrowed. Returns what to put back."""
    root = _checks_dir[0]
    if root is None:
        return []
    prefix = str(root) + os.sep
    blocked, seen = [], set()
    for rec in _world.records.values():
        if not rec.file.startswith(prefix):
            continue
        for fn in rec.functions:
            code = fn.__code__
            # Only functions written in the checks folder (not the helpers they import), once.
            if (id(fn) not in seen and not code.co_freevars
                    and code.co_filename.startswith(prefix)):
                seen.add(id(fn))
                blocked.append((fn, code))
                fn.__code__ = _BLOCKED_CODE
    return blocked


def _message(changes: list[str], thread: bool) -> str:
    shown = ", ".join(changes[:4]) + (f" and {_len(changes) - 4} more" if _len(changes) > 4
                                       else "")
    text = (f"Your code changed things that belong to the grader or to the libraries it uses: "
            f"{shown}. A result obtained that way cannot be trusted, so this check does not "
            "count.")
    if thread:
        text += " Grading stopped here, because a running thread cannot be stopped."
    else:
        text += " Everything was put back for the next checks."
    return text + (" Solve the task inside your own functions, using numpy as it is; do not "
                   "patch libraries, the checks or their files.")


class _Module:
    """One trusted module as it was: its namespace, its classes' attributes and its
    functions' code, each kept as flat tuples so that comparing is a few C-level passes."""

    def __init__(self, name: str, module):
        self.name, self.module, self.type = name, module, _type(module)
        ns = _vars(module)
        file = ns.get("__file__")
        self.file = file if _type(file) is str else ""
        self.keys, self.values = _tuple(ns), _tuple(ns.values())
        classes, functions, seen = [], [], set()
        for value in self.values:
            _collect(value, name, seen, classes, functions)
        self.classes = _tuple(classes)
        self.class_lens = _tuple(_map(_len, _map(_vars, classes)))
        self.class_keys = _tuple(_chain(*_map(_vars, classes)))
        self.class_values = _tuple(_chain(*_map(_proxy_values, _map(_vars, classes))))
        # Functions are not compared (the audit hook sees their code being replaced); they
        # are kept for blocking the checks' own code while learner code runs.
        self.functions = _tuple(functions)
        self.offset = 0  # where this module's values start in the world's flat list

    def same_shape(self, other) -> bool:
        """Same keys, classes (and their attributes) and functions as `other`: only the
        namespace's values may differ."""
        return (self.type is other.type and _len(self.keys) == _len(other.keys)
                and _all(_map(_is, self.keys, other.keys))
                and self.classes == other.classes and self.class_lens == other.class_lens
                and _all(_map(_is, self.class_keys, other.class_keys))
                and _all(_map(_is, self.class_values, other.class_values))
                and self.functions == other.functions)

    def intact(self) -> bool:
        ns = _vars(self.module)
        if not (_type(self.module) is self.type and _len(ns) == _len(self.keys)
                and _all(_map(_is, ns, self.keys)) and _all(_map(_is, ns.values(), self.values))):
            return False
        classes = self.classes
        return not classes or (
            _tuple(_map(_len, _map(_vars, classes))) == self.class_lens
            and _all(_map(_is, _chain(*_map(_vars, classes)), self.class_keys))
            and _all(_map(_is, _chain(*_map(_proxy_values, _map(_vars, classes))),
                          self.class_values)))

    def restore(self) -> list[str]:
        """Put everything back as recorded; say what had changed."""
        changes = []
        if _type(self.module) is not self.type:
            changes.append(f"the type of module {self.name}")
            self.module.__class__ = self.type
        changes += _restore_namespace(self.name, _vars(self.module), self.keys, self.values)
        start = 0
        for cls, n in zip(self.classes, self.class_lens):
            changes += _restore_class(cls, self.class_keys[start:start + n],
                                      self.class_values[start:start + n])
            start += n
        return changes


def _collect(value, module_name, seen, classes, functions):
    # Only functions and classes defined in this module: re-exported ones are recorded by
    # their own module (and a function a module merely holds may be replaced by its owner
    # at any time: pytest sets one per test).
    if _type(value) is _FunctionType:
        if id(value) not in seen and value.__module__ == module_name:
            seen.add(id(value))
            functions.append(value)
        return
    if not _isinstance(value, type) or id(value) in seen:
        return
    cd = _vars(value)
    if cd.get("__module__") != module_name:
        return
    seen.add(id(value))
    classes.append(value)
    for member in cd.values():
        if _type(member) in (staticmethod, classmethod):
            member = member.__func__
        if _type(member) is property:
            for f in (member.fget, member.fset, member.fdel):
                if _type(f) is _FunctionType:
                    _collect(f, module_name, seen, classes, functions)
        elif _type(member) is _FunctionType or _isinstance(member, type):
            _collect(member, module_name, seen, classes, functions)


class _World:
    """The trusted modules, recorded once per process and kept up to date before each piece
    of learner code (modules the grader imported since, modules that left sys.modules).
    Besides one `_Module` per module (to find and undo a change), everything is also kept in
    a few flat tuples, so that the common case, nothing changed, costs a handful of C-level
    passes instead of a Python loop over thousands of objects."""

    def __init__(self):
        self.records: dict = {}
        self.flat = None
        self.seen: list = []   # sys.modules' values when last refreshed

    def refresh(self) -> None:
        """Before learner code: record modules the grader imported since last time, forget
        those that left sys.modules, and re-record those the grader itself changed in
        between (`warnings.catch_warnings` swaps attributes of `warnings`, for instance).

        The full comparison runs when a grading run starts and whenever the set of modules
        changed (pytest importing the checks); between two pieces of learner code in one run
        the grader changes nothing it records, so then only the set of modules is looked at.
        """
        modules = sys.modules
        if (not _fresh[0] and _len(modules) == _len(self.seen)
                and _all(_map(_is, modules.values(), self.seen))):
            return
        _fresh[0] = False
        self.seen = _list(modules.values())
        changed = False
        for name in _list(self.records):
            if modules.get(name) is not self.records[name].module:
                del self.records[name]
                changed = True
        checks = _checks_dir[0]
        checks = str(checks) + os.sep if checks is not None else None
        for name, module in _list(modules.items()):
            if (name in self.records or name in _UNWATCHED or name in _learner_modules
                    or not _isinstance(module, _ModuleType)):
                continue
            if name.partition(".")[0] not in _TRUSTED:
                file = _vars(module).get("__file__")
                if not (checks and _type(file) is str and file.startswith(checks)):
                    continue
            self.records[name] = _Module(name, module)
            changed = True
        if not changed and self.flat is not None and self.intact():
            return
        values = self.flat[5] if self.flat is not None else None
        for name, rec in _list(self.records.items()):
            if rec.intact():
                continue
            new = self.records[name] = _Module(name, rec.module)
            if not changed and new.same_shape(rec):
                # Only values changed (pytest sets a module global for every test, for
                # instance): patch them in place instead of rebuilding everything.
                new.offset = rec.offset
                values[rec.offset:rec.offset + _len(rec.values)] = new.values
            else:
                changed = True
        if changed:
            self.flat = self._flatten()

    def _flatten(self):
        recs = _list(self.records.values())
        offset = 0
        for r in recs:
            r.offset = offset
            offset += _len(r.values)
        modules = _tuple(r.module for r in recs)
        spaces = _tuple(_map(_vars, modules))
        classes = _tuple(_chain.from_iterable(r.classes for r in recs))
        return (modules, _tuple(r.type for r in recs), spaces,
                _tuple(_map(_len, spaces)), _tuple(_chain.from_iterable(r.keys for r in recs)),
                _list(_chain.from_iterable(r.values for r in recs)),
                classes, _tuple(_chain.from_iterable(r.class_lens for r in recs)),
                _tuple(_chain.from_iterable(r.class_keys for r in recs)),
                _tuple(_chain.from_iterable(r.class_values for r in recs)))

    def intact(self) -> bool:
        (modules, types_, spaces, lens, keys, values, classes, class_lens, class_keys,
         class_values) = self.flat
        from_iter = _chain.from_iterable
        # Keys are left to the per-module comparison: with the same sizes and the same values
        # in the same order, a renamed key could only be the last one of its namespace,
        # which no verdict depends on (the same holds for class attributes below).
        if not (_all(_map(_is, _map(_type, modules), types_))
                and _tuple(_map(_len, spaces)) == lens
                and _all(_map(_is, from_iter(_map(_dict_values, spaces)), values))):
            return False
        proxies = _tuple(_map(_vars, classes))
        return (_tuple(_map(_len, proxies)) == class_lens
                and _all(_map(_is, from_iter(_map(_proxy_values, proxies)), class_values)))

    def restore(self) -> list[str]:
        changes = []
        rerecord = []
        for name, rec in self.records.items():
            if not rec.intact():
                changes += rec.restore()
                if not rec.intact():  # only volatile names differ: they are the new normal
                    rerecord.append(name)
        for name in rerecord:
            self.records[name] = _Module(name, self.records[name].module)
        if rerecord:
            self.flat = self._flatten()
        return changes


_world = _World()


class _Snapshot:
    """The grader's world just before learner code runs."""

    def __init__(self):
        _world.refresh()
        self.module_count = _len(sys.modules)
        self.sys_values = [(a, _getattr(sys, a, _MISSING)) for a in _SYS_ATTRS]
        self.sys_lists = [(a, _list(_getattr(sys, a, ()))) for a in _SYS_LISTS]
        cache = sys.path_importer_cache
        self.importer_cache = (_tuple(cache), _tuple(cache.values()))
        self.trace, self.profile = _gettrace(), _getprofile()
        self.monitoring = _monitoring_tools()
        self.gc_callbacks = _list(gc.callbacks)
        main = _current_thread() is _main_thread()
        self.signals = [(s, _getsignal(s)) for s in _SIGNALS] if main else []
        self.mask = _sigmask(signal.SIG_BLOCK, []) if (_sigmask and main) else None
        # A thread another thread has just started counts in _thread._count() only once it
        # holds the GIL, but in `threading`'s _limbo from before its start: counting those too
        # keeps a host's start just before this snapshot from looking like the learner's.
        self.threads = (_active_count(), (_thread_count() if _thread_count else 0) + _len(_limbo))
        # The checks folder as it was when this run started: only learner code writes there.
        if _checks_dir[0] is not None and _tree[0] is None:
            _tree[0] = _read_tree(_checks_dir[0])
        self.files = _tree[0]
        self.watched = [(n, fn, restore, fn()) for n, fn, restore in _watches]

    # -- compare and put back -----------------------------------------------------------

    def _extra_threads(self) -> bool:
        """More threads now than when learner code began, beyond those the host started."""
        threads = (_active_count(), _thread_count() if _thread_count else 0)
        host = _host_starts[0]
        return threads[0] > self.threads[0] + host or threads[1] > self.threads[1] + host

    def restore(self, left_trace, left_profile) -> tuple[list[str], list[str]]:
        """Put back what changed; returns (every change, the changes that could not be put
        back: watched state and threads)."""
        changes: list[str] = []
        undoable: list[str] = []
        # Modules first imported now were imported by learner code: never trusted later.
        modules = sys.modules
        if _len(modules) != self.module_count:  # new names come last: dicts keep order
            _learner_modules.update(_list(modules)[self.module_count:])
        if _refused:
            changes.append("the audit hooks (sys.addaudithook)")
            _refused.clear()
        while _changed_functions:  # newest first, so the oldest value ends up in place
            fn, name, before = _changed_functions.pop()
            changes.append(f"{fn.__module__}.{fn.__qualname__}")
            if before is None and name != "__code__":
                setattr(fn, name, None)
            else:
                setattr(fn, name, before)
        if left_trace is not self.trace:
            changes.append("sys.settrace")
        if left_profile is not self.profile:
            changes.append("sys.setprofile")
        _settrace(self.trace)
        _setprofile(self.profile)
        if _monitoring_tools() != self.monitoring:
            _reset_monitoring(self.monitoring)
            changes.append("sys.monitoring")
        for attr, value in self.sys_values:
            if _getattr(sys, attr, _MISSING) is not value:
                changes.append(f"sys.{attr}")
                setattr(sys, attr, value)
        for attr, items in self.sys_lists:
            current = _getattr(sys, attr)
            if _len(current) != _len(items) or not _all(_map(_is, current, items)):
                changes.append(f"sys.{attr}")
                current[:] = items
        # New entries are what importing new modules does; only replaced ones are changes.
        cache = sys.path_importer_cache
        paths, finders = self.importer_cache
        if not _all(_map(_is, _map(cache.get, paths), finders)):
            for path, finder in zip(paths, finders):
                if cache.get(path, _MISSING) is not finder:
                    changes.append(f"sys.path_importer_cache[{path!r}]")
                    cache[path] = finder
        records = _world.records
        if not _all(_map(_is, _map(modules.get, records), _map(_module_of, records.values()))):
            for name, rec in records.items():
                if modules.get(name, _MISSING) is not rec.module:
                    changes.append(f"sys.modules[{name!r}]")
                    modules[name] = rec.module
        if not _world.intact():
            changes += _world.restore()
        callbacks = gc.callbacks
        if _len(callbacks) != _len(self.gc_callbacks) or not _all(
                _map(_is, callbacks, self.gc_callbacks)):
            changes.append("gc.callbacks")
            gc.callbacks[:] = self.gc_callbacks
        for sig, handler in self.signals:
            if _getsignal(sig) is not handler:
                changes.append(f"the {signal.Signals(sig).name} handler")
                _setsignal(sig, handler)
        if self.mask is not None and _sigmask(signal.SIG_BLOCK, []) != self.mask:
            changes.append("the signal mask")
            _sigmask(signal.SIG_SETMASK, self.mask)
        if self.files is not None:
            now = _read_tree(_checks_dir[0])
            if now != self.files:
                changes.append(f"the check files in {_checks_dir[0]}")
                _write_tree(_checks_dir[0], self.files, now)
        for name, fn, put_back, before in self.watched:
            after = fn()
            if _len(after) != _len(before) or not _all(_map(_is, after, before)):
                changes.append(name)
                if put_back is None:
                    undoable.append(name)
                else:
                    put_back(before)
        extra = self._extra_threads()
        # A busy host (one that started threads while learner code ran) may have one in flight
        # around the snapshot that the counts above miss by one, under load (1 of 2000 runs in
        # test_guard's busy-host test); it ends within moments, as a thread the learner left
        # running does not. Only a host that starts threads gets this grace.
        for _ in range(_THREAD_GRACE[0] if _host_starts[0] else 0):
            if not extra:
                break
            _sleep(_THREAD_GRACE[1])
            extra = self._extra_threads()
        if extra:
            changes.append("a thread that is still running")
            undoable.append("a thread")
        return changes, undoable


# Names Python itself adds to a module while learner code runs: a warning raised on behalf
# of a module's code records itself in that module's __warningregistry__.
_VOLATILE_NAMES = {"__warningregistry__"}


def _restore_namespace(owner: str, ns: dict, keys, values) -> list[str]:
    changes = []
    before = dict(zip(keys, values))
    for key in _list(ns):
        if key in _VOLATILE_NAMES:
            continue
        if key not in before:
            value = ns[key]
            # `import numpy.foo` binds the new submodule in its parent package: not a change.
            if _type(value) is _ModuleType and value.__name__ == f"{owner}.{key}":
                continue
            changes.append(f"{owner}.{key}")
            del ns[key]
    for key, value in before.items():
        if key not in _VOLATILE_NAMES and ns.get(key, _MISSING) is not value:
            changes.append(f"{owner}.{key}")
            ns[key] = value
    return changes


def _restore_class(cls, keys, values) -> list[str]:
    changes = []
    cd = _vars(cls)
    owner = f"{cls.__module__}.{cls.__qualname__}"
    before = dict(zip(keys, values))
    for key in _list(cd):
        if key not in before:
            changes.append(f"{owner}.{key}")
            delattr(cls, key)
    for key, value in before.items():
        if cd.get(key, _MISSING) is not value:
            changes.append(f"{owner}.{key}")
            if key not in ("__dict__", "__weakref__"):
                setattr(cls, key, value)
    return changes


def _monitoring_tools():
    if _monitoring is None:
        return ()
    return _tuple(_monitoring.get_tool(i) for i in range(6))


def _reset_monitoring(before):
    for tool in range(6):
        if _monitoring.get_tool(tool) != before[tool]:
            _monitoring.set_events(tool, 0)
            for event in _vars(_monitoring.events).values():
                if _isinstance(event, int) and event and not event & (event - 1):
                    _monitoring.register_callback(tool, event, None)
            if before[tool] is None:
                _monitoring.free_tool_id(tool)


def _read_tree(root: Path) -> dict:
    """Every file under `root` with its bytes (checks folders are a few small files)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in _sorted(filenames):
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    out[path] = f.read()
            except OSError:
                out[path] = None
    return out


def _write_tree(root: Path, files: dict, now: dict) -> None:
    for path in now:
        if path not in files:
            try:
                os.remove(path)
            except OSError:
                pass
    for path, data in files.items():
        if data is not None and now.get(path) != data:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
