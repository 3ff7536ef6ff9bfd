# catches: test_attention::test_worked_example, test_attention::test_not_causal, test_attention::test_causal_by_default, test_attention::test_random[T=5 D=8 2 heads], test_attention::test_random[T=6 D=12 3 heads], test_attention::test_random[T=8 D=16 4 heads causal=False], test_attention::test_random[T=7 D=8 8 heads of width 1], test_tp_attention::test_worked_example, test_tp_attention::test_one_head_per_gpu[*], test_tp_attention::test_several_heads_per_gpu[T=5 D=16 4 heads n=2], test_tp_attention::test_several_heads_per_gpu[T=7 D=24 6 heads n=3], test_tp_attention::test_several_heads_per_gpu[T=4 D=32 8 heads n=2 causal=False], test_tp_attention::test_one_gpu
# Scores divided by sqrt(D), the model width, instead of sqrt(d_head).
import numpy as np


def softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def heads(X, Wq, Wk, Wv, count, causal):
    D = np.shape(X)[1]
    X = np.asarray(X, dtype=float)
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d_head = Q.shape[1] // count
    T = X.shape[0]
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    outputs = []
    for h in range(count):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = Q[:, cols] @ K[:, cols].T / np.sqrt(D)
        if causal:
            scores = np.where(future, -np.inf, scores)
        outputs.append(softmax(scores) @ V[:, cols])
    return np.concatenate(outputs, axis=1)


def attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return heads(X, Wq, Wk, Wv, n_heads, causal) @ Wo


def shard_attention(Wq, Wk, Wv, Wo, n_heads, n):
    width = Wq.shape[1] // n
    blocks = [slice(i * width, (i + 1) * width) for i in range(n)]
    return [(Wq[:, b].copy(), Wk[:, b].copy(), Wv[:, b].copy(), Wo[b, :].copy()) for b in blocks]


def tp_attention(X, shards, n_heads, causal=True):
    local = n_heads // len(shards)
    return sum(heads(X, q, k, v, local, causal) @ o for q, k, v, o in shards)
