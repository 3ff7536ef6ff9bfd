"""Checks of train_tp(blocks, X, target, n, n_heads, steps, lr, sp): the TP loss curve is the
one-device curve, and every collective of the run is counted."""
import numpy as np
import pytest

from lessonkit.checking import Call, call, expect_close, expect_unchanged, fail
from lessonkit.i18n import _, number

L, T, D, HEADS, F, STEPS, LR = 2, 8, 8, 4, 16, 4, 0.5


def problem(ref, rng):
    blocks = [ref.random_params(rng, D, F, scale=0.5) for _ in range(L)]
    return blocks, rng.normal(size=(T, D)), rng.normal(size=(T, D))


def run_counts(n, sp):
    per = {"all_reduce": 4} if not sp else {"all_gather": 6, "reduce_scatter": 4, "all_reduce": 1}
    total = {k: STEPS * L * v for k, v in per.items()}
    if sp:
        total["all_reduce"] += STEPS  # the loss's partial sums
    return total


CASES = [(1, False), (2, False), (4, False), (2, True), (4, True)]


@pytest.mark.parametrize("n,sp", CASES, ids=[f"n={n}{' sp' if sp else ''}" for n, sp in CASES])
def test_matches_one_device(solution, ref, fresh, n, sp):
    """train_tp's losses lie on the one-device curve, with steps·L·(forward + backward) collectives"""
    blocks, X, target = problem(ref, fresh)
    c = call(solution, "tpharness.train", blocks, X, target, n, HEADS, STEPS, LR, sp)
    expected = ref.train(blocks, X, target, 1, HEADS, STEPS, LR, False)
    what = _("train_tp(blocks, X, target, n={n}, n_heads, steps={steps}, lr, sp={sp})", n=n, steps=STEPS, sp=sp)
    losses = Call(c.name, c.args, c.params, c.got[0], c.after, c.dtypes)
    wrong = [(_("every step after the first is off: SGD updated rank 0's shard only. Each rank "
                "holds its own shard and gets its own gradients: update every rank's."),
              lambda: ref.train(blocks, X, target, n, HEADS, STEPS, LR, sp, sgd_rank0=True)),
             (_("the heads were dealt out interleaved in shard_block; see its checks."),
              lambda: ref.train(blocks, X, target, n, HEADS, STEPS, LR, sp, how="interleaved"))]
    if sp:
        wrong.insert(0, (_("the loss is rank 0's chunk alone: under sp each rank holds T/n rows "
                           "of Z, so each gives a partial sum; add the n partial sums with one "
                           "dist.all_reduce per step."),
                         lambda: ref.train(blocks, X, target, n, HEADS, STEPS, LR, sp, loss_rank0=True)))
    got = np.asarray(c.got[0], dtype=float).ravel()
    blown = np.flatnonzero(np.abs(got) > 1e6 * np.max(np.abs(expected)))
    if got.shape == np.shape(expected) and blown.size:
        # Shown to two digits: past a blow-up, the last digits depend on the platform's libm.
        step = int(blown[0])
        fail(_("{what}: the loss grows without bound: {got} at step {step}, where one device has "
               "{want}. A loss that explodes usually counts something n times: the residual added "
               "to every rank's partial, or a gradient summed twice (see the checks of "
               "block_forward and block_backward).", what=what, step=step,
               got=number(got[step], ".2g"), want=number(expected[step], ".2g")))
    expect_close(losses, expected, **ref.TOL, what=what, mistakes=wrong)
    if not c.got[1]:
        fail(_("{what} created no tpsim.SimDist: shard every block over a SimDist(n) and send "
               "all communication through it.", what=what))
    total = {}
    for one in c.got[1]:
        for k, v in dict(one).items():
            total[k] = total.get(k, 0) + int(v)
    ref.expect_counts(what, total, run_counts(n, sp), [])


def test_inputs_unchanged(solution, ref):
    """train_tp leaves blocks, X and target unchanged"""
    blocks, X, target = problem(ref, np.random.default_rng(49))
    expect_unchanged(call(solution, "train_tp", blocks, X, target, 2, HEADS, 2, LR, True))
