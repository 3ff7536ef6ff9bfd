# case: While loading, installs an import hook that swaps every check file for one test that always passes; in the split no check file is imported where it runs, so its functions fail.
# attacks: the import system the checks are loaded with, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import importlib.abc
import importlib.util
import sys

import numpy as np


class Swap(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[-1].startswith(("test_", "conftest")):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec("def test_values(solution):\n    pass\n", module.__dict__)


sys.meta_path.insert(0, Swap())


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
