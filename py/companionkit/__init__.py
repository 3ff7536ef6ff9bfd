"""Shared machinery of the lessons' torch companions: a registry of checks, launching N processes
(NCCL one per GPU, or gloo on CPU), reporting, measuring helpers, the single-download bundle and
the mutation harness. A lesson's companion is only its math; see docs/companion.md.

Names are imported on first use, so that the build can use `companionkit.bundle` without torch."""

import importlib

_EXPORTS = {"Companion": "registry", "Run": "registry", "Results": "results", "compare": "comparing",
            "launch": "launch", "plan": "launch", "run_all": "launch", "torchrun_main": "launch"}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'companionkit' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
