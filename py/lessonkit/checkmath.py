"""The math hidden checks compute expected values with, written once for every lesson: GeLU
(GPT-2's tanh form, the exact erf form) and their derivatives, ReLU, a stable softmax, LayerNorm
forward and backward, the pieces of cross-entropy, multi-head (causal) attention and its
backward pass, the column-split MLP's partial outputs and the MLP's backward pass, the
sequence-parallel collectives on row chunks, the course's worked MLP and generators of random
problems.

    from lessonkit.checkmath import f64, tanh_gelu, softmax, mlp_shards, gpu_count

Everything here works in float64 on copies (`f64`), so an expected value never depends on the
dtype a check passes in; a keyword that changes the formula (`c`, `cube`, `ddof`, ...) is how
a check computes a classic mistake's value for its hint. The formulas are public (they are in
the lessons' prose); what a lesson keeps hidden in `checks/` is its own composition of them,
its cases and its mistakes. Call these only after the learner's call has returned (see
lessonkit.checking)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)  # GPT-2's tanh GeLU: u = √(2/π)(x + 0.044715x³)
GELU_CUBIC = 0.044715


def f64(a):
    """`a` as a float64 array (a copy where it was not one already)."""
    return np.asarray(a, dtype=np.float64)


# ---- activations ------------------------------------------------------------------------

def tanh_gelu(x, c=SQRT_2_OVER_PI, k=GELU_CUBIC):
    """½x(1 + tanh u), u = c(x + kx³); another `c` or `k` is the rounded-constant mistake."""
    x = f64(x)
    return 0.5 * x * (1.0 + np.tanh(c * (x + k * x**3)))


def tanh_gelu_grad(x, cube=3.0, product_rule=True):
    """d/dx of ½x(1 + tanh u). `cube` is the 3 of d(x³)/dx (cube=1 forgets it);
    product_rule=False keeps only ½(1 + tanh u), the product rule's first term."""
    x = f64(x)
    t = np.tanh(SQRT_2_OVER_PI * (x + GELU_CUBIC * x**3))
    first = 0.5 * (1.0 + t)
    if not product_rule:
        return first
    return first + 0.5 * x * (1.0 - t**2) * SQRT_2_OVER_PI * (1.0 + cube * GELU_CUBIC * x**2)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf_gelu(x):
    """The exact GeLU x·Φ(x)."""
    x = f64(x)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def erf_gelu_grad(x):
    """The exact GeLU's derivative Φ(x) + x·φ(x)."""
    x = f64(x)
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0))) + x * np.exp(-0.5 * x**2) / math.sqrt(2 * math.pi)


def relu(x):
    return np.maximum(f64(x), 0.0)


# ---- softmax and cross-entropy ----------------------------------------------------------

def softmax(z, axis=-1):
    """exp(z) normalised along `axis`, with the maximum subtracted first (no overflow)."""
    z = f64(z)
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def logsumexp(z):
    """log Σ exp(z) of each row of a (T, V) array, computed stably."""
    z = f64(z)
    m = z.max(axis=1)
    return m + np.log(np.exp(z - m[:, None]).sum(axis=1))


def picked(z, targets):
    """z[p, targets[p]] for each row p: the target's logit."""
    z = f64(z)
    return z[np.arange(len(z)), np.asarray(targets)]


def cross_entropy(z, targets):
    """Each row's loss, log Σ exp(z) − z[target]."""
    return logsumexp(z) - picked(z, targets)


def onehot(targets, V):
    targets = np.asarray(targets)
    out = np.zeros((len(targets), V))
    out[np.arange(len(targets)), targets] = 1.0
    return out


# ---- attention and the MLP ----------------------------------------------------------------

def attention_weights(Q_h, K_h, causal=True, scale=None, offset=1, axis=-1, mask_after=False):
    """One head's weights softmax(Q_h K_hᵀ · scale), scale 1/√(width of the head) unless given,
    the keys after each query hidden when `causal`. The mistakes: `offset` is the first
    diagonal hidden (0 hides each token from itself), `axis` the softmax's (0: over the
    queries), `mask_after` zeroes the hidden weights after the softmax. A row with every key
    hidden has no weights: zeros."""
    Q_h, K_h = f64(Q_h), f64(K_h)
    scores = Q_h @ K_h.T * (1.0 / np.sqrt(Q_h.shape[1]) if scale is None else scale)
    T = scores.shape[0]
    hidden = np.triu(np.ones((T, T), dtype=bool), k=offset) if causal else np.zeros((T, T), bool)
    if mask_after:
        return np.where(hidden, 0.0, softmax(scores, axis))
    with np.errstate(invalid="ignore"):
        p = softmax(np.where(hidden, -np.inf, scores), axis)
    return np.where(np.isnan(p), 0.0, p)


def attention_heads(X, Wq, Wk, Wv, count, causal=True, scale=None, **how):
    """The concatenated outputs of `count` heads that share the columns of Wq, Wk, Wv equally
    (Wo not applied); `scale` and `how` as in `attention_weights`."""
    X, Wq, Wk, Wv = (f64(a) for a in (X, Wq, Wk, Wv))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d = Q.shape[1] // count
    factor = 1.0 / np.sqrt(d) if scale is None else scale
    return np.concatenate([attention_weights(Q[:, h * d:(h + 1) * d], K[:, h * d:(h + 1) * d],
                                             causal, factor, **how) @ V[:, h * d:(h + 1) * d]
                           for h in range(count)], axis=1)


def attention_forward(x, Wq, Wk, Wv, heads, scale):
    """Causal self-attention of the rows of `x` over `heads` heads of equal width (Wo not
    applied), the scores times `scale(d_head)`: (O, cache), O of Q's shape, the cache what
    `attention_backward` needs."""
    dh = Wq.shape[1] // heads
    Q, K, V = x @ Wq, x @ Wk, x @ Wv
    O, P = np.zeros_like(Q), []
    for h in range(heads):
        c = slice(h * dh, (h + 1) * dh)
        p = attention_weights(Q[:, c], K[:, c], scale=scale(dh))
        O[:, c] = p @ V[:, c]
        P.append(p)
    return O, (x, Q, K, V, P, heads, scale)


def attention_backward(dO, Wq, Wk, Wv, cache):
    """(dx, dWq, dWk, dWv) of `attention_forward`, from dO, the gradient of its O."""
    x, Q, K, V, P, heads, scale = cache
    dh = Q.shape[1] // heads
    dQ, dK, dV = np.zeros_like(Q), np.zeros_like(K), np.zeros_like(V)
    for h in range(heads):
        c, p = slice(h * dh, (h + 1) * dh), P[h]
        dV[:, c] = p.T @ dO[:, c]
        dp = dO[:, c] @ V[:, c].T
        ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale(dh)
        dQ[:, c], dK[:, c] = ds @ K[:, c], ds.T @ Q[:, c]
    return dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T, x.T @ dQ, x.T @ dK, x.T @ dV


def mlp_partials(X, shards, act=tanh_gelu):
    """Each GPU's partial output act(X A_i) B_i of a column-split MLP, in GPU order: their sum
    is the MLP's output (the all-reduce). `act` another activation is a classic mistake."""
    return [act(f64(X) @ f64(a)) @ f64(b) for a, b in shards]


def mlp_backward(X, A, B, dY, act_grad=tanh_gelu_grad, at_h=False, dB_from_z=False):
    """(dX, dA, dB) of Y = GeLU(X A) B, for rows of tokens or one token (1-D X and dY; dX then
    1-D too, dA and dB outer products): dZ = (dY Bᵀ) ⊙ GeLU′(Z), Z = X A. The mistakes:
    another derivative (`act_grad`), GeLU′ taken at H = GeLU(Z) (`at_h`), dB from Z instead of
    H (`dB_from_z`)."""
    X, A, B, dY = (f64(a) for a in (X, A, B, dY))
    X2, dY2 = np.atleast_2d(X), np.atleast_2d(dY)
    Z = X2 @ A
    H = tanh_gelu(Z)
    dZ = (dY2 @ B.T) * act_grad(H if at_h else Z)
    return (dZ @ A.T).reshape(X.shape), X2.T @ dZ, (Z if dB_from_z else H).T @ dY2


# ---- sequence parallelism: rows over GPUs ---------------------------------------------------

def row_chunks(Y, n):
    """Row chunk i of a (T, ...) array for each GPU i: rows i·T/n … (i+1)·T/n − 1, in float64."""
    return np.split(f64(Y), n, axis=0)


def reduce_scatter(partials):
    """What a reduce-scatter leaves on each GPU: row chunk i of the sum of the partials."""
    return row_chunks(sum(f64(p) for p in partials), len(partials))


def all_gather(chunks):
    """What an all-gather leaves on every GPU: the row chunks stacked in GPU order."""
    return np.concatenate([f64(c) for c in chunks], axis=0)


# ---- LayerNorm --------------------------------------------------------------------------

def layernorm(x, gamma, beta, eps=1e-5, ddof=0, eps_outside=False, axis=-1):
    """(x − mean) / √(var + eps) · γ + β over `axis`. The mistakes: the sample variance
    (ddof=1), eps outside the root (std + eps), another axis."""
    x = f64(x)
    mu = x.mean(axis=axis, keepdims=True)
    std = x.std(axis=axis, ddof=ddof, keepdims=True)
    scale = std + eps if eps_outside else np.sqrt(std**2 + eps)
    return (x - mu) / scale * f64(gamma) + f64(beta)


def layernorm_forward(x, gamma, beta, eps=1e-5):
    """LayerNorm over the last axis, and what `layernorm_backward` needs."""
    x = f64(x)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    return xhat * gamma + beta, (xhat, 1.0 / np.sqrt(var + eps), gamma)


def layernorm_backward(dy, cache):
    """(dx, dγ, dβ) of `layernorm_forward` for rows of tokens (dγ, dβ summed over them)."""
    xhat, inv, gamma = cache
    dxhat = dy * gamma
    dx = inv * (dxhat - dxhat.mean(-1, keepdims=True)
                - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return dx, (dy * xhat).sum(0), dy.sum(0)


# ---- problems ----------------------------------------------------------------------------

def mlp_example():
    """The course's worked MLP (tp-mlp's prose, reused by later lessons): one token
    X = (1, 2), D = 2, F = 4, over N = 2 GPUs, GPU i holding columns 2i, 2i+1 of A and those
    rows of B."""
    A = np.array([[1.0, 0.0, -1.0, 2.0], [0.0, 1.0, 1.0, -1.0]])
    B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    return SimpleNamespace(X=np.array([1.0, 2.0]), A=A, B=B,
                           shards=[(A[:, :2].copy(), B[:2].copy()), (A[:, 2:].copy(), B[2:].copy())])


def gpu_count(rng, most):
    """A power of two from 1 to `most` (a power of two), each as likely."""
    return int(2 ** rng.integers(0, int(math.log2(most)) + 1))


def multiple(rng, n, low, high):
    """n·k for k drawn from low … high − 1: a size that n GPUs split evenly."""
    return n * int(rng.integers(low, high))


def mlp_shards(rng, D, widths, a_scale=1.0):
    """(A_i, B_i) for GPUs of the given widths, drawn one GPU at a time (no whole A and B
    exist anywhere to be remembered): A_i ~ N(0, a_scale/√D), B_i ~ N(0, 1/√width), so a unit
    input gives unit-size outputs."""
    return [(rng.normal(0.0, a_scale / np.sqrt(D), size=(D, w)),
             rng.normal(0.0, 1.0 / np.sqrt(w), size=(w, D))) for w in widths]
