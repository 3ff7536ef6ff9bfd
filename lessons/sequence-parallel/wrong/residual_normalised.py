# catches: test_sp_mlp_block::test_worked_example, test_sp_mlp_block::test_random_blocks[T=3 D=4 F=8 n=1], test_sp_mlp_block::test_random_blocks[T=6 D=4 F=12 n=2], test_sp_mlp_block::test_random_blocks[T=8 D=8 F=32 n=4], test_sp_mlp_block::test_random_blocks[T=16 D=16 F=64 n=8], test_sp_mlp_block::test_random_blocks[T=8 D=8 F=16 n=8], test_sp_mlp_block::test_uses_only_its_shards
# The residual added is LayerNorm(X) instead of X.
import numpy as np


def reduce_scatter(partials):
    total = sum(np.asarray(p, dtype=float) for p in partials)
    return np.split(total, len(partials), axis=0)  # GPU i keeps row chunk i of the sum


def all_gather(chunks):
    return np.concatenate([np.asarray(c, dtype=float) for c in chunks], axis=0)


def layernorm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # population variance
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def sp_mlp_block(X_chunks, gamma, beta, shards):
    Z = all_gather([layernorm(X_i, gamma, beta) for X_i in X_chunks])  # every GPU: all T rows
    partials = [gelu(Z @ A_i) @ B_i for A_i, B_i in shards]             # one (T, D) per GPU
    return [out + Z_i for out, Z_i in zip(reduce_scatter(partials), np.split(Z, len(X_chunks)))]


def activation_bytes(s, b, h, a, t=1, sp=False, recompute="none"):
    if recompute not in ("none", "selective"):
        raise ValueError(f'recompute must be "none" or "selective", not {recompute!r}')
    # Per layer: 10sbh in LayerNorms, dropouts and the residual inputs (split by t only under
    # SP), 24sbh in the attention and MLP GEMMs' inputs (split by t), and 5as^2b in attention's
    # softmax and its dropout (split by t; selective recomputation drops it).
    per_token = (34 / t) if sp else (10 + 24 / t)
    if recompute == "none":
        per_token += 5 * a * s / (h * t)
    return s * b * h * per_token
