# catches: test_train_tp::test_matches_one_device[n=2 sp], test_train_tp::test_matches_one_device[n=4 sp]
# Under sp the loss taken from rank 0's chunk alone.
import numpy as np

import tpsim

LN_KEYS = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")


def shard_block(params, n, n_heads):
    D = params["Wq"].shape[0]
    width = D // n_heads * (n_heads // n)   # whole heads: (n_heads / n) heads of d_head columns
    f = params["A"].shape[1] // n
    shards = []
    for i in range(n):
        heads = slice(i * width, (i + 1) * width)
        ffn = slice(i * f, (i + 1) * f)
        shard = {key: params[key].copy() for key in LN_KEYS}
        shard.update(Wq=params["Wq"][:, heads].copy(), Wk=params["Wk"][:, heads].copy(),
                     Wv=params["Wv"][:, heads].copy(), Wo=params["Wo"][heads].copy(),
                     A=params["A"][:, ffn].copy(), B=params["B"][ffn].copy())
        shards.append(shard)
    return shards


def block_forward(dist, X, shards, n_heads, sp=False):
    k = n_heads // dist.n
    # Attention sub-block. Without sp every rank normalises the whole X (f: copy-to, identity
    # forward); with sp each rank normalises its rows, then all-gathers them.
    ln1 = [tpsim.layernorm_forward(x, s["ln1_g"], s["ln1_b"]) for x, s in zip(X, shards)]
    H = dist.all_gather([y for y, _ in ln1]) if sp else [y for y, _ in ln1]
    att = [tpsim.heads_forward(h, s["Wq"], s["Wk"], s["Wv"], k) for h, s in zip(H, shards)]
    partial = [O @ s["Wo"] for (O, _), s in zip(att, shards)]                 # row-parallel Wo
    summed = dist.reduce_scatter(partial) if sp else dist.all_reduce(partial)  # g
    Y = [x + a for x, a in zip(X, summed)]                                     # residual once
    # MLP sub-block, the same pattern.
    ln2 = [tpsim.layernorm_forward(y, s["ln2_g"], s["ln2_b"]) for y, s in zip(Y, shards)]
    H2 = dist.all_gather([y for y, _ in ln2]) if sp else [y for y, _ in ln2]
    U = [h @ s["A"] for h, s in zip(H2, shards)]                               # column-parallel A
    G = [tpsim.gelu(u) for u in U]
    partial = [g @ s["B"] for g, s in zip(G, shards)]                          # row-parallel B
    summed = dist.reduce_scatter(partial) if sp else dist.all_reduce(partial)
    Z = [y + m for y, m in zip(Y, summed)]
    # With sp the cache keeps only each rank's rows of the LayerNorm outputs; the backward
    # gathers them again (Megatron's choice), so no sequence-long activation is kept whole.
    cache = dict(sp=sp, k=k, shards=shards, ln1=ln1, ln2=ln2,
                 att=[c for _, c in att], O=[O for O, _ in att], U=U, G=G,
                 H=None if sp else H, H2=None if sp else H2)
    return Z, cache


def block_backward(dist, dZ, cache):
    sp, shards = cache["sp"], cache["shards"]
    # MLP sub-block. g's backward: identity (copies of dZ) or, with sp, an all-gather.
    dZ_full = dist.all_gather(dZ) if sp else dZ
    H2 = dist.all_gather([y for y, _ in cache["ln2"]]) if sp else cache["H2"]
    grads = [dict() for _ in shards]
    dH2 = []
    for i, s in enumerate(shards):
        grads[i]["B"] = cache["G"][i].T @ dZ_full[i]
        dU = dZ_full[i] @ s["B"].T * tpsim.gelu_grad(cache["U"][i])
        grads[i]["A"] = H2[i].T @ dU
        dH2.append(dU @ s["A"].T)                                  # this rank's part of dH2
    dH2 = dist.reduce_scatter(dH2) if sp else dist.all_reduce(dH2)  # f's backward
    dY = []
    for i, (ln, _) in enumerate(zip(cache["ln2"], shards)):
        dx, grads[i]["ln2_g"], grads[i]["ln2_b"] = tpsim.layernorm_backward(dH2[i], ln[1])
        dY.append(dZ[i] + dx)
    # Attention sub-block.
    dY_full = dist.all_gather(dY) if sp else dY
    H = dist.all_gather([y for y, _ in cache["ln1"]]) if sp else cache["H"]
    dH = []
    for i, s in enumerate(shards):
        grads[i]["Wo"] = cache["O"][i].T @ dY_full[i]
        dO = dY_full[i] @ s["Wo"].T
        dh, grads[i]["Wq"], grads[i]["Wk"], grads[i]["Wv"] = \
            tpsim.heads_backward(dO, H[i], cache["att"][i])
        dH.append(dh)
    dH = dist.reduce_scatter(dH) if sp else dist.all_reduce(dH)
    dX = []
    for i, ln in enumerate(cache["ln1"]):
        dx, grads[i]["ln1_g"], grads[i]["ln1_b"] = tpsim.layernorm_backward(dH[i], ln[1])
        dX.append(dY[i] + dx)
    if sp:  # each rank saw its rows only: sum the four LayerNorm gradients in one all-reduce
        packed = dist.all_reduce([np.concatenate([g[key] for key in LN_KEYS]) for g in grads])
        for g, total in zip(grads, packed):
            for key, part in zip(LN_KEYS, np.split(total, len(LN_KEYS))):
                g[key] = part
    return dX, grads


def train_tp(blocks, X, target, n, n_heads, steps, lr, sp=False):
    dist = tpsim.SimDist(n)
    shards = [shard_block(params, n, n_heads) for params in blocks]
    T, D = X.shape
    rows = lambda a: np.split(a, n) if sp else [a.copy() for _ in range(n)]  # noqa: E731
    Xs, targets = rows(X), rows(target)
    losses = []
    for _ in range(steps):
        Z, caches = Xs, []
        for block in shards:
            Z, cache = block_forward(dist, Z, block, n_heads, sp)
            caches.append(cache)
        parts = [0.5 * ((z - t) ** 2).sum() for z, t in zip(Z, targets)]
        if sp:
            dist.all_reduce(parts)
        losses.append(float(parts[0]) / (T * D))
        dZ = [(z - t) / (T * D) for z, t in zip(Z, targets)]
        for block, cache in zip(reversed(shards), reversed(caches)):
            dZ, grads = block_backward(dist, dZ, cache)
            for shard, grad in zip(block, grads):
                for key in shard:
                    shard[key] -= lr * grad[key]
    return losses
