"""Tolerance equality with the numbers that decided it. Tolerances are derived from the dtype's
machine epsilon and the expected output's magnitude, so that fp64 is held near fp64's precision
and bf16 is allowed bf16's rounding, whatever the scale of the numbers."""

import torch

# Units of eps a comparison allows by default: a few roundings per output for the half-precision
# formats (their error is dominated by rounding the result), more for fp32/fp64, whose sums of
# tens to hundreds of products in another order (another rank split, another kernel) round
# differently at each addition.
DEFAULT_ULPS = {torch.float64: 64, torch.float32: 64, torch.float16: 8, torch.bfloat16: 8}


def tolerance(dtype, magnitude, ulps=None):
    """The absolute tolerance `ulps` · eps(dtype) · magnitude (magnitude: the largest |expected|,
    at least 1 so that results near zero are not held to a tighter bound than eps)."""
    ulps = DEFAULT_ULPS.get(dtype, 64) if ulps is None else ulps
    return ulps * torch.finfo(dtype).eps * max(1.0, float(magnitude))


def compare(actual, expected, rtol=None, atol=None, ulps=None):
    """(ok, detail): ok when shapes agree and |actual - expected| <= atol + rtol * |expected|
    everywhere. By default, for the coarser of the two dtypes, rtol = ulps · eps and atol = ulps ·
    eps · max(1, max|expected|) (see tolerance). Bitwise equality is reported, never required: it
    is a property of the kernels (cuBLAS picks them per shape), not of the maths."""
    actual, expected = torch.as_tensor(actual), torch.as_tensor(expected)
    if actual.shape != expected.shape:
        return False, f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    floating = [d for d in (actual.dtype, expected.dtype) if d.is_floating_point]
    coarse = max(floating, key=lambda d: torch.finfo(d).eps) if floating else torch.float64
    a, e = actual.detach().double().cpu(), expected.detach().double().cpu()
    magnitude = e.abs().max().item() if e.numel() else 0.0
    rule = ""
    if rtol is None and atol is None:
        units = DEFAULT_ULPS.get(coarse, 64) if ulps is None else ulps
        rtol, atol = units * torch.finfo(coarse).eps, tolerance(coarse, magnitude, units)
        rule = f" = {units} eps({str(coarse).removeprefix('torch.')}) · (1, max(1, max|expected| = {magnitude:.3g}))"
    rtol, atol = rtol or 0.0, atol or 0.0
    diff = (a - e).abs()
    allowed = atol + rtol * e.abs()
    ok = bool(torch.isfinite(a).all()) and bool((diff <= allowed).all())
    worst = diff.max().item() if diff.numel() else 0.0
    bitwise = torch.equal(actual.detach().cpu(), expected.detach().cpu().to(actual.dtype))
    return ok, (f"max |diff| {worst:.2e} (allowed {atol:.1e} + {rtol:.1e}·|expected|{rule}); "
                f"bitwise equal: {'yes' if bitwise else 'no'}")


def compare_all(named, **tolerances):
    """(ok, detail) of compare over [(name, actual, expected), ...]: ok when every pair agrees;
    the detail names each pair's numbers."""
    results = [(name, *compare(actual, expected, **tolerances)) for name, actual, expected in named]
    return all(ok for _, ok, _ in results), "; ".join(f"{name}: {detail}" for name, _, detail in results)


def max_diff(a, b):
    """The largest |a - b|, in float64 on the CPU (b may be a nested list of the lesson's numbers)."""
    return (a.detach().double().cpu() - torch.as_tensor(b).double().cpu()).abs().max().item()


def printed(actual, lesson, digits=3):
    """Whether `actual` rounds to the lesson's numbers, printed with `digits` decimals: every entry
    within half a unit of the last printed digit."""
    return max_diff(actual, lesson) <= 0.5 * 10**-digits


def fmt(values, digits=3):
    """A tensor or list as the lesson prints it: "(0.841, 1.955)" (no "-0.000")."""
    flat = torch.as_tensor(values).detach().double().flatten().tolist()
    return "(" + ", ".join(f"{round(v, digits) + 0.0:.{digits}f}" for v in flat) + ")"


def ints(t):
    """Whole numbers as the lesson writes them: "[4, 3]"."""
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def expect_in(run, key, title, dtype, compute, ulps):
    """One verdict on a computation in a lower precision: compute(dtype) returns (got, want), and
    `got` must keep `dtype` and be within `ulps` eps of `want` (compare: want is the fp64 result of
    the same rounded inputs). bf16 where the device has it in hardware, else a SKIP (run.has_bf16)."""
    if dtype == torch.bfloat16 and not run.has_bf16(key, title):
        return
    got, want = compute(dtype)
    ok, detail = compare(got, want, ulps=ulps)
    run.expect(key, title, ok and got.dtype == dtype, f"{got.dtype}; {detail}")
