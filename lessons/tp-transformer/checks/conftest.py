"""Shared pieces of the tp-transformer checks: the lesson's math written again here (never
through tpsim, which learner code can reach), the classic wrong versions (used only after the
learner's call has returned), random problems and the worked example.

`run_block` simulates n GPUs as lists, one item per rank. With n = 1 it is one device: the
checks' expected values are one-device results laid out per rank, so a sharding bug of the
simulation could not hide one of the learner's."""
import math

import numpy as np
import pytest

from lessonkit.checking import fail
from lessonkit.checkmath import (all_gather, attention_backward, attention_forward, f64,
                                 layernorm_backward, layernorm_forward, mlp_backward, row_chunks,
                                 tanh_gelu)
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _

LN_KEYS = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")
KEYS = ("ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g", "ln2_b", "A", "B")
# Relative to the largest entry of the expected result: float32 arithmetic (~1e-6) passes,
# every classic mistake (>= 1e-2 here) does not.
TOL = dict(rtol=2e-4, atol=1e-7)


# ---- n simulated GPUs ------------------------------------------------------------------------
def shard(params, n, n_heads, how=None):
    """Rank i's shard; `how` names a classic mistake: "wo_cols", "interleaved", "a_rows"."""
    p = {k: f64(v) for k, v in params.items()}
    D, F = p["Wq"].shape[0], p["A"].shape[1]
    dh, k = D // n_heads, n_heads // n
    out = []
    for i in range(n):
        heads = range(i, n_heads, n) if how == "interleaved" else range(i * k, (i + 1) * k)
        cols = np.concatenate([np.arange(h * dh, (h + 1) * dh) for h in heads])
        ffn = np.arange(i * F // n, (i + 1) * F // n)
        s = {key: p[key].copy() for key in LN_KEYS}
        s.update(Wq=p["Wq"][:, cols], Wk=p["Wk"][:, cols], Wv=p["Wv"][:, cols],
                 Wo=p["Wo"][:, cols] if how == "wo_cols" else p["Wo"][cols],
                 A=p["A"][i * D // n:(i + 1) * D // n] if how == "a_rows" else p["A"][:, ffn],
                 B=p["B"][ffn])
        out.append(s)
    return out


def layout(full, n, sp):
    """A whole (T, D) array as n ranks hold it: row chunks with sp, copies without."""
    return row_chunks(full, n) if sp else [f64(full) for _ in range(n)]


def run_block(X, shards, n_heads, sp, dZ=None, residual=1, own_partial=False,
              scale=None, one_head=False, ln_summed=True):
    """(Z, dX, grads) of one block on len(shards) ranks; dX and grads are None without dZ.
    The keywords make the classic mistakes: `residual=n` adds X to every rank's partial,
    `own_partial` keeps one rank's partial (no sum), `scale` replaces 1/sqrt(d_head),
    `one_head` runs each rank's heads as one wide head, `ln_summed=False` leaves each rank
    its own share of the LayerNorm gradients under sp."""
    n = len(shards)
    k = 1 if one_head else n_heads // n
    sc = scale or (lambda dh: 1 / math.sqrt(dh))
    gather = (lambda xs: [all_gather(xs)] * n) if sp else (lambda xs: xs)

    def reduce(parts):
        totals = parts if own_partial else [sum(parts)] * n
        return [row_chunks(t, n)[i] for i, t in enumerate(totals)] if sp else totals

    X = [f64(x) for x in X]
    ln1 = [layernorm_forward(x, s["ln1_g"], s["ln1_b"]) for x, s in zip(X, shards)]
    H = gather([y for y, _ in ln1])
    att = [attention_forward(h, s["Wq"], s["Wk"], s["Wv"], k, sc) for h, s in zip(H, shards)]
    Y = [residual * x + a for x, a in zip(X, reduce([O @ s["Wo"] for (O, _), s in zip(att, shards)]))]
    ln2 = [layernorm_forward(y, s["ln2_g"], s["ln2_b"]) for y, s in zip(Y, shards)]
    H2 = gather([y for y, _ in ln2])
    U = [h @ s["A"] for h, s in zip(H2, shards)]
    Z = [residual * y + m for y, m in zip(Y, reduce([tanh_gelu(u) @ s["B"] for u, s in zip(U, shards)]))]
    if dZ is None:
        return Z, None, None
    dZf = gather([f64(d) for d in dZ])
    g = [dict() for _ in shards]
    dH2 = []
    for i, s in enumerate(shards):
        dh, g[i]["A"], g[i]["B"] = mlp_backward(H2[i], s["A"], s["B"], dZf[i])
        dH2.append(dh)
    dH2 = reduce(dH2)
    dY = []
    for i in range(n):
        dx, g[i]["ln2_g"], g[i]["ln2_b"] = layernorm_backward(dH2[i], ln2[i][1])
        dY.append(f64(dZ[i]) + dx)
    dYf = gather(dY)
    dH = []
    for i, s in enumerate(shards):
        g[i]["Wo"] = att[i][0].T @ dYf[i]
        dh, g[i]["Wq"], g[i]["Wk"], g[i]["Wv"] = attention_backward(dYf[i] @ s["Wo"].T, s["Wq"], s["Wk"], s["Wv"], att[i][1])
        dH.append(dh)
    dH = reduce(dH)
    dX = []
    for i in range(n):
        dx, g[i]["ln1_g"], g[i]["ln1_b"] = layernorm_backward(dH[i], ln1[i][1])
        dX.append(dY[i] + dx)
    if sp and ln_summed:
        for key in LN_KEYS:
            total = sum(gi[key] for gi in g)
            for gi in g:
                gi[key] = total
    return Z, dX, g


def one_device(X, params, n_heads, dZ=None):
    """(Z, dX, full gradients) of the block on one device."""
    Z, dX, g = run_block([X], [{k: f64(v) for k, v in params.items()}], n_heads, False,
                         None if dZ is None else [dZ])
    return Z[0], None if dX is None else dX[0], None if g is None else g[0]


def train(blocks, X, target, n, n_heads, steps, lr, sp, how=None, sgd_rank0=False, loss_rank0=False):
    """The losses of train_tp; the keywords make the classic mistakes."""
    shards = [shard(p, n, n_heads, how) for p in blocks]
    T, D = np.shape(X)
    Xs, ts = layout(X, n, sp), layout(target, n, sp)
    losses = []
    for _ in range(steps):
        # The forward alone first (to keep every block's input), then the backward.
        inputs, Z = [], Xs
        for s in shards:
            inputs.append(Z)
            Z = run_block(Z, s, n_heads, sp)[0]
        parts = [0.5 * ((z - t) ** 2).sum() / (T * D) for z, t in zip(Z, ts)]
        losses.append(parts[0] if (loss_rank0 or not sp) else sum(parts))
        dZ = [(z - t) / (T * D) for z, t in zip(Z, ts)]
        for s, x in zip(reversed(shards), reversed(inputs)):
            _z, dZ, g = run_block(x, s, n_heads, sp, dZ)
            for i, (si, gi) in enumerate(zip(s, g)):
                if i == 0 or not sgd_rank0:
                    for key in si:
                        si[key] = si[key] - lr * gi[key]
    return losses


# ---- problems --------------------------------------------------------------------------------
def random_params(rng, D, F, scale=1.0):
    """A block's parameters, weights ~ N(0, 1/fan_in) (times `scale`)."""
    w = lambda a, b: rng.normal(0, scale / math.sqrt(a), size=(a, b))  # noqa: E731
    return dict(ln1_g=rng.normal(1, 0.2, D), ln1_b=rng.normal(0, 0.2, D),
                Wq=w(D, D), Wk=w(D, D), Wv=w(D, D), Wo=w(D, D),
                ln2_g=rng.normal(1, 0.2, D), ln2_b=rng.normal(0, 0.2, D),
                A=w(D, F), B=w(F, D))


def worked_example():
    """T = 4 tokens, D = 4, two heads of width 2, F = 4, n = 2 GPUs: numbers one can follow."""
    I = np.eye(4)
    params = dict(ln1_g=np.ones(4), ln1_b=np.zeros(4),
                  Wq=I.copy(), Wk=I.copy(), Wv=np.array([[1.0, 0, 0, 1], [0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 1]]),
                  Wo=0.5 * I, ln2_g=np.ones(4), ln2_b=np.zeros(4),
                  A=np.array([[1.0, 0, -1, 0], [0, 1, 0, -1], [1, 1, 0, 0], [0, 0, 1, 1]]),
                  B=0.5 * np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]))
    X = np.array([[1.0, 0, 0, -1], [0, 2, 0, 0], [1, 1, -1, -1], [0, 0, 3, 1]])
    return params, X


ref = ref_fixture(globals())


def expect_counts(what, got, expected, explain=()):
    """`got` the learner's collective counts, `expected` the exact ones; `explain` pairs of
    (counts, hint) for the classic mistakes that show only in the counts."""
    got = {k: int(v) for k, v in dict(got).items() if v}
    if got == expected:
        return
    show = lambda c: "{" + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())) + "}" if c else "{}"  # noqa: E731
    message = _("{what} issued the collectives {got}; exactly {want} are needed.",
                what=what, got=show(got), want=show(expected))
    for wrong, hint in explain:
        if got == wrong:
            message += "\n" + _("Hint: {hint}", hint=hint)
            break
    fail(message)
