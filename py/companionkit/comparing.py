"""Tolerance equality with the numbers that decided it."""

import torch

# torch.testing.assert_close's defaults per dtype (rtol, atol), so a detail can say what was allowed.
DEFAULT_TOLERANCES = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1.3e-6, 1e-5),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
}


def compare(actual, expected, rtol=None, atol=None):
    """(ok, detail): ok when shapes agree and |actual - expected| <= atol + rtol * |expected|
    everywhere. Tolerances default to assert_close's for the coarser of the two dtypes. Bitwise
    equality is reported, never required: it is a property of the kernels (cuBLAS picks them per
    shape), not of the maths."""
    actual, expected = torch.as_tensor(actual), torch.as_tensor(expected)
    if actual.shape != expected.shape:
        return False, f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    coarse = max((actual.dtype, expected.dtype), key=lambda d: DEFAULT_TOLERANCES.get(d, (0, 0))[0])
    d_rtol, d_atol = DEFAULT_TOLERANCES.get(coarse, (0.0, 0.0))
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    a, e = actual.detach().double().cpu(), expected.detach().double().cpu()
    diff = (a - e).abs()
    allowed = atol + rtol * e.abs()
    ok = bool(torch.isfinite(a).all()) and bool((diff <= allowed).all())
    worst = diff.max().item() if diff.numel() else 0.0
    bitwise = torch.equal(actual.detach().cpu(), expected.detach().cpu().to(actual.dtype))
    return ok, (f"max |diff| {worst:.2e} (allowed {atol:.1e} + {rtol:.1e}·|expected|); "
                f"bitwise equal: {'yes' if bitwise else 'no'}")
