"""Checks of activation_bytes(s, b, h, a, t, sp, recompute): the paper's memory formula."""
import pytest

from lessonkit.checking import call, expect_close, expect_raises
from lessonkit.checkmath import gpu_count
from lessonkit.i18n import _

RTOL = 1e-9  # the formula is exact; only floating-point rounding may differ

# GPT-3 size (Korthikanti et al., 2022): s = 2048, b = 1, h = 12288, a = 96.
GPT3 = (2048, 1, 12288, 96)


def mistakes(ref, s, b, h, a, t, sp, recompute):
    args = (s, b, h, a, t, sp, recompute)
    exact = ref.activation_bytes(*args)
    return [
        (_("you returned GiB; the function returns bytes. Dividing by 2³⁰ is for showing "
           "the number, not for the result."), lambda: exact / ref.GIB),
        (_("you returned decimal gigabytes (10⁹ bytes); the function returns bytes."),
         lambda: exact / 1e9),
        (_("with TP alone (no SP) you divided all 34·sbh by t. Only the 24·sbh inside the "
           "attention and MLP blocks is split by tensor parallelism; the 10·sbh of the "
           "LayerNorms, the dropouts and the inputs of each block's first GEMM stays whole on "
           "every GPU: 10 + 24/t."),
         lambda: ref.activation_bytes(s, b, h, a, t, sp, recompute, gemm_term=34 / t)),
        (_("you counted 34·sbh with no split for TP alone; tensor parallelism does split "
           "the 24·sbh inside attention and the MLP: 10 + 24/t."),
         lambda: ref.activation_bytes(s, b, h, a, t, sp, recompute, gemm_term=34)),
        (_("the attention term 5·a·s/h was not divided by t. The heads are split across the "
           "t GPUs, so each keeps 5·a·s/(h·t), with or without SP."),
         lambda: ref.activation_bytes(*args, attention_split=False)),
        (_("with sp=True you kept the 10·sbh unsplit. Sequence parallelism splits LayerNorm, "
           "dropout and the residual along the sequence, so they too are divided by t: 34/t."),
         lambda: ref.activation_bytes(s, b, h, a, t, False, recompute)),
        (_("with recompute=\"selective\" the attention term 5·a·s/(h·t) should be gone: "
           "selective recomputation does not keep the softmax and its dropout but recomputes "
           "them in the backward pass."),
         lambda: ref.activation_bytes(s, b, h, a, t, sp, "none")),
        (_("with recompute=\"none\" the attention term 5·a·s/(h·t) must be counted: without "
           "recomputation the softmax output and its dropout mask are kept."),
         lambda: ref.activation_bytes(s, b, h, a, t, sp, "selective")),
    ]


def check(solution, ref, s, b, h, a, *rest):
    """`rest`: t, sp and recompute, or none of them (the defaults: 1, False, "none")."""
    c = call(solution, "activation_bytes", s, b, h, a, *rest)
    expect_close(c, ref.activation_bytes(s, b, h, a, *rest), rtol=RTOL, atol=0.0,
                 mistakes=mistakes(ref, s, b, h, a, *(rest or (1, False, "none"))))


@pytest.mark.parametrize("t,sp,recompute", [
    pytest.param(1, False, "none", id="t=1: 2.672 GiB"),
    pytest.param(8, False, "none", id="t=8 TP: 0.539 GiB"),
    pytest.param(8, True, "none", id="t=8 TP + SP: 0.334 GiB"),
    pytest.param(8, False, "selective", id="t=8 TP + selective: 0.305 GiB"),
    pytest.param(8, True, "selective", id="t=8 TP + SP + selective: 0.100 GiB"),
])
def test_gpt3(solution, ref, t, sp, recompute):
    """activation_bytes gives the paper's GPT-3 numbers (s = 2048, b = 1, h = 12288, a = 96), in bytes"""
    check(solution, ref, *GPT3, t, sp, recompute)


def test_defaults(solution, ref):
    """activation_bytes(s, b, h, a) with the defaults is one GPU without SP or recomputation: s·b·h·(34 + 5·a·s/h)"""
    check(solution, ref, 1024, 4, 4096, 32)


@pytest.mark.parametrize("s,b,h,a,t,sp,recompute", [
    pytest.param(512, 2, 1024, 16, 2, False, "none", id="s=512 t=2 TP"),
    pytest.param(4096, 8, 8192, 64, 4, True, "none", id="s=4096 t=4 TP + SP"),
    pytest.param(1000, 3, 960, 12, 3, False, "selective", id="s=1000 t=3 TP + selective"),
    pytest.param(2048, 1, 12288, 96, 16, True, "selective", id="s=2048 t=16 TP + SP + selective"),
    pytest.param(2048, 1, 12288, 96, 1, True, "none", id="t=1 with SP: the same as without"),
])
def test_other_models(solution, ref, s, b, h, a, t, sp, recompute):
    """activation_bytes follows the formula for other models and TP degrees"""
    check(solution, ref, s, b, h, a, t, sp, recompute)


@pytest.mark.parametrize("recompute", ["full", "selectve"], ids=["full", "a typo"])
def test_unknown_recompute(solution, recompute):
    """activation_bytes raises ValueError for a recompute value other than "none" or "selective\""""
    expect_raises(solution, "activation_bytes", *GPT3, 8, True, recompute,
                  what=f"activation_bytes(..., recompute={recompute!r})",
                  why=_("The formula only knows \"none\" and \"selective\": a number returned "
                        "for a value it does not understand hides a typo in the caller's "
                        "configuration. Raise ValueError(...) with a message that names the bad "
                        "value."))


def test_fresh_sizes(solution, ref, fresh):
    """activation_bytes follows the formula for model sizes drawn afresh on every run"""
    for _case in range(4):
        a = int(2 ** fresh.integers(2, 8))
        s, b, h = int(256 * fresh.integers(1, 17)), int(fresh.integers(1, 9)), a * int(64 * fresh.integers(1, 4))
        t = gpu_count(fresh, 16)
        check(solution, ref, s, b, h, a, t, bool(fresh.integers(2)),
              ("none", "selective")[int(fresh.integers(2))])
