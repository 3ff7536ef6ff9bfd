"""lessonkit.checkmath, the math hidden checks share: each derivative against finite differences
of its function, softmax and cross-entropy against their definitions, LayerNorm's two forms
against each other, and the generators' ranges."""
import math

import numpy as np
import pytest

from lessonkit import checkmath as cm

X = np.linspace(-4.0, 4.0, 41)


def numeric_grad(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f,grad", [(cm.tanh_gelu, cm.tanh_gelu_grad),
                                    (cm.erf_gelu, cm.erf_gelu_grad)], ids=["tanh", "erf"])
def test_gelu_derivatives_match_finite_differences(f, grad):
    assert np.allclose(grad(X), numeric_grad(f, X), rtol=1e-6, atol=1e-8)


def test_gelu_values_and_mistake_switches():
    assert cm.tanh_gelu(1.0) == pytest.approx(0.841192, abs=1e-6)  # the lessons' 0.841
    assert cm.erf_gelu(1.0) == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))))
    assert not np.allclose(cm.tanh_gelu(X, k=0.0447), cm.tanh_gelu(X), rtol=1e-6, atol=0)
    assert not np.allclose(cm.tanh_gelu_grad(X, cube=1.0), cm.tanh_gelu_grad(X))
    assert np.allclose(cm.tanh_gelu_grad(X, product_rule=False),
                       0.5 * (1 + np.tanh(cm.SQRT_2_OVER_PI * (X + cm.GELU_CUBIC * X**3))))
    assert np.array_equal(cm.relu([-1.0, 2.0]), [0.0, 2.0])


def test_softmax_and_cross_entropy_follow_their_definitions():
    z = np.array([[1.0, 3.0, 0.0, 2.0], [1000.0, 999.0, -5.0, 0.0]])  # the second would overflow
    p = cm.softmax(z)
    assert np.allclose(p.sum(axis=-1), 1.0) and np.isfinite(p).all()
    assert np.allclose(p[0], np.exp(z[0]) / np.exp(z[0]).sum())
    targets = np.array([1, 0])
    assert np.allclose(cm.cross_entropy(z, targets), -np.log(p[[0, 1], targets]))
    assert np.allclose(cm.softmax(z, axis=0).sum(axis=0), 1.0)
    assert np.array_equal(cm.onehot(targets, 4), [[0, 1, 0, 0], [1, 0, 0, 0]])


def test_layernorm_forms_agree_and_backward_matches_finite_differences():
    rng = np.random.default_rng(0)
    x, g, b, dy = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=5), rng.normal(size=(3, 5))
    y, cache = cm.layernorm_forward(x, g, b)
    assert np.allclose(y, cm.layernorm(x, g, b))
    dx, dg, db = cm.layernorm_backward(dy, cache)
    h = 1e-6
    for name, got, arg in (("x", dx, x), ("gamma", dg, g), ("beta", db, b)):
        want = np.zeros_like(arg)
        for i in np.ndindex(arg.shape):
            up, down = arg.copy(), arg.copy()
            up[i] += h
            down[i] -= h
            parts = {"x": x, "gamma": g, "beta": b}
            f = lambda v: (cm.layernorm(**{**parts, name: v}) * dy).sum()  # noqa: E731
            want[i] = (f(up) - f(down)) / (2 * h)
        assert np.allclose(got, want, atol=1e-6), name
    assert not np.allclose(cm.layernorm(x, g, b, ddof=1), y)


def test_generators_draw_what_they_promise():
    rng = np.random.default_rng(1)
    counts = {cm.gpu_count(rng, 8) for _ in range(200)}
    assert counts == {1, 2, 4, 8}
    assert all(cm.multiple(rng, 3, 1, 5) in (3, 6, 9, 12) for _ in range(50))
    shards = cm.mlp_shards(rng, 4, [1, 3])
    assert [(a.shape, b.shape) for a, b in shards] == [((4, 1), (1, 4)), ((4, 3), (3, 4))]


def test_attention_follows_its_definition_and_its_mistake_switches():
    rng = np.random.default_rng(3)
    X, Wq, Wk, Wv = rng.normal(size=(5, 4)), *(rng.normal(size=(4, 4)) for _ in range(3))
    out = cm.attention_heads(X, Wq, Wk, Wv, 2)
    # Head by head from the definition: softmax over the keys up to and including each query.
    for h, cols in enumerate((slice(0, 2), slice(2, 4))):
        Q, K, V = X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols]
        for t in range(5):
            s = Q[t] @ K[:t + 1].T / math.sqrt(2)
            w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
            assert np.allclose(out[t, cols], w @ V[:t + 1])
    P = cm.attention_weights(X @ Wq, X @ Wk)
    assert np.allclose(P.sum(axis=-1), 1.0) and np.allclose(np.triu(P, 1), 0.0)
    assert np.allclose(cm.attention_weights(X, X, causal=False).sum(axis=-1), 1.0)
    hides_self = cm.attention_weights(X, X, offset=0)
    assert np.all(hides_self[0] == 0.0) and np.allclose(hides_self[1:].sum(axis=-1), 1.0)
    assert np.allclose(cm.attention_weights(X, X, axis=0).sum(axis=0), 1.0)
    after = cm.attention_weights(X, X, mask_after=True)
    assert np.allclose(np.triu(after, 1), 0.0) and not np.allclose(after.sum(axis=-1), 1.0)


def test_mlp_partials_add_up_to_the_unsplit_mlp():
    ex = cm.mlp_example()
    parts = cm.mlp_partials(ex.X, ex.shards)
    assert len(parts) == 2
    assert np.allclose(sum(parts), cm.tanh_gelu(ex.X @ ex.A) @ ex.B)
    assert np.allclose(sum(parts), [1.682, 2.796], atol=5e-4)  # the course's Y ≈ (1.682, 2.796)
    assert np.allclose(sum(cm.mlp_partials(ex.X, ex.shards, act=cm.relu)),
                       cm.relu(ex.X @ ex.A) @ ex.B)


def loss_gradient(loss, name, value):
    """d loss / d value by central differences (the scalar `loss` given `value` as its argument
    `name`; numeric_grad is the elementwise derivative of a function of one array)."""
    out = np.zeros_like(value)
    for i in np.ndindex(value.shape):
        hi, lo = value.copy(), value.copy()
        hi[i] += 1e-6
        lo[i] -= 1e-6
        out[i] = (loss(**{name: hi}) - loss(**{name: lo})) / 2e-6
    return out


def test_mlp_backward_matches_finite_differences_and_its_mistake_switches():
    rng = np.random.default_rng(5)
    X, A, B, dY = rng.normal(size=(3, 4)), rng.normal(size=(4, 6)), rng.normal(size=(6, 4)), rng.normal(size=(3, 4))

    def loss(X=X, A=A, B=B):
        return float(np.sum((cm.tanh_gelu(X @ A) @ B) * dY))

    dX, dA, dB = cm.mlp_backward(X, A, B, dY)
    for got, name, value in ((dX, "X", X), (dA, "A", A), (dB, "B", B)):
        assert np.allclose(got, loss_gradient(loss, name, value), rtol=1e-5, atol=1e-7), name
    one, row = cm.mlp_backward(X[0], A, B, dY[0]), cm.mlp_backward(X[:1], A, B, dY[:1])
    assert one[0].shape == (4,) and all(np.allclose(a, b) for a, b in zip(one, row))  # one token
    for mistake in ({"at_h": True}, {"dB_from_z": True}, {"act_grad": cm.erf_gelu_grad}):
        assert not all(np.allclose(a, b) for a, b in zip(cm.mlp_backward(X, A, B, dY, **mistake),
                                                        (dX, dA, dB))), mistake


def test_attention_backward_matches_finite_differences():
    rng = np.random.default_rng(7)
    x, dO = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    W = {name: rng.normal(size=(6, 6)) for name in ("Wq", "Wk", "Wv")}
    scale = lambda dh: 1 / math.sqrt(dh)  # noqa: E731
    O, cache = cm.attention_forward(x, W["Wq"], W["Wk"], W["Wv"], 3, scale)
    assert np.allclose(O, cm.attention_heads(x, W["Wq"], W["Wk"], W["Wv"], 3))

    def loss(x=x, **given):
        w = {**W, **given}
        return float(np.sum(cm.attention_forward(x, w["Wq"], w["Wk"], w["Wv"], 3, scale)[0] * dO))

    grads = cm.attention_backward(dO, W["Wq"], W["Wk"], W["Wv"], cache)
    for got, name in zip(grads, ("x", "Wq", "Wk", "Wv")):
        assert np.allclose(got, loss_gradient(loss, name, x if name == "x" else W[name]), rtol=1e-5,
                           atol=1e-7), name


def test_sequence_collectives_split_sum_and_stack_rows():
    partials = [np.arange(12.0).reshape(6, 2), np.ones((6, 2)), np.full((6, 2), 2.0)]
    chunks = cm.reduce_scatter(partials)
    assert [c.shape for c in chunks] == [(2, 2)] * 3
    assert np.array_equal(chunks[1], [[7.0, 8.0], [9.0, 10.0]])  # rows 2-3 of the sum
    assert np.array_equal(cm.all_gather(chunks), sum(partials))
    assert np.array_equal(cm.all_gather(cm.row_chunks(partials[0], 2)), partials[0])
    assert cm.row_chunks(np.arange(4), 4)[3].tolist() == [3.0]
