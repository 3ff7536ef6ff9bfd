"""Figures of a companion's measurements (matplotlib, imported when a figure is drawn)."""


def speedup(rows, key, title, paper=None, paper_label="paper"):
    """Speedup against N, one line per value of `key` (e.g. the width D) from rows of run.data
    with "N", key, "speedup" and "bound" (the most this machine allows at that N), and a published
    curve `paper` ({N: speedup}) drawn only beside GPU measurements (rows with "device": "cuda")."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    ns = sorted({1, *(r["N"] for r in rows)})
    bounds = {1: 1.0, **{r["N"]: r["bound"] for r in rows}}
    ax.plot(ns, [bounds[m] for m in ns], ":", color="grey", label="the most this machine allows")
    for value in sorted({r[key] for r in rows}):
        mine = sorted((r["N"], r["speedup"]) for r in rows if r[key] == value)
        ax.plot([1] + [m for m, _ in mine], [1.0] + [s for _, s in mine], "s--", label=f"this run, {key}={value}")
    on_gpu = bool(rows) and all(r["device"] == "cuda" for r in rows)
    if on_gpu and paper:
        ax.plot(list(paper), list(paper.values()), "o-", label=paper_label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ns, [str(m) for m in ns])
    ax.set_title(f"{title} on {'GPUs' if on_gpu else 'CPU processes'}: strong scaling")
    ax.set_xlabel("N (ranks)")
    ax.set_ylabel("speedup vs one device")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
