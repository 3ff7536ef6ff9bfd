"""What the command line's learner process may touch: its scratch folder, and nothing else.

The learner process (lessonkit.learner_host, started by lessonkit.learner_process) calls
`confine(work, lesson_copy)` once Python, numpy and lessonkit are imported and before any
learner code runs. On Linux with Landlock (5.13 and later) that makes the process, for the
rest of its life and in every process it starts:
- read (and run) only the interpreter's own folders (its prefixes, its import path, /usr,
  /lib*) and the lesson copy the grader made for it: never the author's lesson folder (its
  reference.py, checks, wrong/), another folder of the user's, or /proc, where the grader's
  command line and environment are;
- write, create and delete only inside its scratch folder (`work`), plus /dev/null;
- send no signal to a process outside it, reach no abstract socket outside it, open no TCP
  connection (where the kernel's Landlock has those: ABI 6 and 4).
Where it runs as root it also drops every capability first, so it cannot raise its memory
limit again, nor override file permissions.

`confine` returns what was applied, in words ("landlock 7", "none: ..."), for the report of
`lessonkit grade` and for tests. Where Landlock is missing (another OS, an old kernel, a
container that filters the syscalls) nothing is confined: the learner process has the user's
file rights, and the grader's last wall is comparing the checks' bytes before and after a run
(lessonkit.runner, `intact_checks`). docs/threat-model.md says what each case guarantees.
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # every Linux arch
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAPBSET_DROP = 24

# Filesystem rights by the ABI that introduced them (docs: include/uapi/linux/landlock.h).
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_ONLY = _EXECUTE | _WRITE_FILE | _READ_FILE | (1 << 14) | (1 << 15)  # truncate, ioctl
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_NET_TCP = (1 << 0) | (1 << 1)          # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)           # abstract unix sockets, signals (ABI 6)

# Where the kernel keeps what a read-only interpreter still needs outside its prefixes.
_SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32")


def read_roots(exclude: Path) -> list[Path]:
    """The folders the learner process may read: the interpreter's and its import path's,
    none of which holds `exclude` (the author's lesson folder) or lies inside it."""
    found = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
             *(p for p in sys.path if p), *_SYSTEM_READ]
    roots = []
    for name in found:
        path = Path(name).resolve()
        if not path.is_dir() or path in roots:
            continue
        if path == exclude or path in exclude.parents or exclude in path.parents:
            continue
        roots.append(path)
    return roots


def abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                               ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def confine(work: Path, readable: list[Path], hidden: Path) -> str:
    """Confine this process (see the module's docstring): write in `work`, read `readable`
    and the interpreter's folders (never `hidden`, the author's lesson folder). Returns what
    was applied, in words."""
    version = abi()
    if version < 1:
        return "none: this system has no Landlock"
    libc = ctypes.CDLL(None, use_errno=True)
    fs = _FS_BY_ABI[max(v for v in _FS_BY_ABI if v <= version)]
    attr = struct.pack("=Q", fs)
    if version >= 4:
        attr += struct.pack("=Q", _NET_TCP)
    if version >= 6:
        attr += struct.pack("=Q", _SCOPES)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return f"none: Landlock refused a ruleset (errno {ctypes.get_errno()})"
    try:
        rules = [(p, _READ) for p in [*read_roots(hidden), *readable]]
        rules += [(Path(work), fs), (Path(os.devnull), _READ_FILE | _WRITE_FILE)]
        for path, rights in rules:
            _allow(libc, ruleset, path, rights & fs)
        _drop_root()
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 \
                or libc.syscall(_SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return f"landlock {version}"


def _allow(libc, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not there: nothing to allow
    try:
        if not path.is_dir():
            rights &= _FILE_ONLY
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        if libc.syscall(_SYS_ADD_RULE, ruleset, ctypes.c_int(_RULE_PATH_BENEATH), rule,
                        ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(fd)


def _drop_root() -> None:
    """As root: give up every capability (effective, permitted, inheritable, and the bounding
    set), so file permissions hold for this process and its memory limit stays put."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # v3, self
    data = ctypes.create_string_buffer(bytes(24), 24)
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
