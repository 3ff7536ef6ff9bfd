"""What the checks of a function that splits weights across GPUs share: matrices whose entries
say where they came from (so a returned block shows which columns and rows it holds), and the
returned list of per-GPU tuples, taken apart with a message that says what came back instead.

    from lessonkit.sharding import columns_of, labelled, per_gpu, rows_of

    A, B = labelled(D, F), labelled(F, D, tag=0.5)
    for i, (A_i, B_i) in enumerate(per_gpu(call(solution, "shard_mlp", A, B, n), n, ("A", "B"))):
        ... columns_of(A_i) == list(range(i * F // n, (i + 1) * F // n)) ...

Like lessonkit.checking, call these only after the learner's call has returned."""
from __future__ import annotations

import numpy as np

from .checking import describe, fail, to_array
from .i18n import _, _n

LABEL = 1000  # entry [r, c] of a labelled matrix is LABEL·r + c (+ its tag): fewer rows, columns


def labelled(rows: int, cols: int, tag: float = 0.0, rng=None):
    """A (rows, cols) matrix with entry [r, c] = 1000 r + c + tag: a block's first row names its
    columns, its first column its rows; `tag` (below 0.5) tells several matrices apart. With
    `rng`, each entry gets a random fraction below 0.4 too (the labels still read the same), so
    a solution cannot know the values in advance."""
    grid = LABEL * np.arange(rows, dtype=float)[:, None] + np.arange(cols)[None, :]
    return grid + tag + (0.0 if rng is None else rng.uniform(0.0, 0.4, grid.shape))


def columns_of(block) -> list[int]:
    """Which columns of a labelled matrix a (2-D) block holds, read from its first row."""
    return [int(v) for v in np.floor(block[0] % LABEL)] if block.ndim == 2 and block.shape[0] else []


def rows_of(block) -> list[int]:
    """Which rows of a labelled matrix a (2-D) block holds, read from its first column."""
    return [int(v) for v in block[:, 0] // LABEL] if block.ndim == 2 and block.shape[1] else []


def per_gpu(c, n: int, names: tuple[str, ...]) -> list[tuple]:
    """The value returned by call `c` as n tuples of float arrays, GPU i's holding
    `names` (("A", "B"): the pair (A_i, B_i)), or a failure that says what came back: None
    (a forgotten `return`), not a list, a list of another length (n ignored, when it holds 2),
    an item that is not such a tuple, or an item that is not an array."""
    got, pair = c.got, len(names) == 2
    items = ", ".join(f"{name}_i" for name in names)
    if got is None:
        fail(_("{what} returned None. Did you forget a `return` statement?", what=c.text())
             + "\n" + c.inputs())
    if not isinstance(got, (list, tuple)):
        fail((_("{call} should return a list of {n} pairs ({items}); it returned {got}.", call=c.text(),
                n=n, items=items, got=describe(got)) if pair else
              _("{call} should return a list of {n} tuples ({items}); it returned {got}.",
                call=c.text(), n=n, items=items, got=describe(got))) + "\n" + c.inputs())
    if len(got) != n:
        count = dict(call=c.text(), count=len(got), n=n)
        hint = (" " + _("It looks like n is ignored: the number of GPUs must come from the "
                        "argument.") if n != 2 and len(got) == 2 else "")
        fail((_n("{call} returned {count} pair; with n = {n} there must be one pair per GPU, "
                 "{n} in all.",
                 "{call} returned {count} pairs; with n = {n} there must be one pair per GPU, "
                 "{n} in all.", len(got), **count) if pair else
              _n("{call} returned {count} tuple; with n = {n} there must be one tuple per GPU, "
                 "{n} in all.",
                 "{call} returned {count} tuples; with n = {n} there must be one tuple per GPU, "
                 "{n} in all.", len(got), **count)) + hint + "\n" + c.inputs())
    out = []
    for i, item in enumerate(got):
        if not isinstance(item, (list, tuple)) or len(item) != len(names):
            mine = ", ".join(f"{name}_{i}" for name in names)
            fail(_("Item {i} of the list should be a pair ({items}); it is {got}.", i=i,
                   items=mine, got=describe(item)) if pair else
                 _("Item {i} of the list should be a tuple ({items}); it is {got}.", i=i,
                   items=mine, got=describe(item)))
        out.append(tuple(to_array(m, _("{name}_{i} (item {i} of what {call} returned)",
                                       name=name, i=i, call=c.text()))
                         for name, m in zip(names, item)))
    return out
