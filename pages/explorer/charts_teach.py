"""Charts of the teaching views: a pair's bands, the estimator's spread, choosing k, the
exact join's funnel. Each ends with :func:`explorer.charts.finish` (legend below)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .charts import CURVE_COLOR, FN_COLOR, FP_COLOR, MEASURED_COLOR, finish

MAX_BANDS_SHOWN = 64


def band_grid(band_rows: np.ndarray, full_bands: np.ndarray) -> alt.Chart:
    """A pair's two signatures laid out as b bands (one per line) of r rows (cells): each
    cell says whether the two signatures agree there; a band whose cells all agree makes
    the pair a candidate.

    Parameters
    ----------
    band_rows : ndarray of bool, shape (b, r)
    full_bands : ndarray of int64
        Bands whose rows all agree.
    """
    b, r = band_rows.shape
    shown = min(b, MAX_BANDS_SHOWN)
    band, row = np.meshgrid(np.arange(shown), np.arange(r), indexing="ij")
    agree = band_rows[:shown].ravel()
    full = np.isin(band.ravel(), full_bands)
    what = np.where(full, "agree, in a band that agrees whole", np.where(agree, "agree", "differ"))
    df = pd.DataFrame(
        {
            "band": band.ravel() + 1,
            "row": row.ravel() + 1,
            "position": (band * r + row).ravel(),
            "what": what,
        }
    )
    chart = (
        alt.Chart(df)
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("row:O", title=f"row within the band (1 to {r})", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("band:O", title=f"band (1 to {b})" + (f", first {shown}" if shown < b else "")),
            color=alt.Color(
                "what:N",
                title="the two signatures at this position",
                scale=alt.Scale(
                    domain=["agree, in a band that agrees whole", "agree", "differ"],
                    range=[MEASURED_COLOR, "#a8d5cf", "#eeeeee"],
                ),
            ),
            tooltip=[
                "band:O",
                "row:O",
                alt.Tooltip("position:Q", title="signature position"),
                "what:N",
            ],
        )
    )
    return finish(chart, min(220 + 20 * shown, 1500))


def estimate_spread(spread: pd.DataFrame, num_perm: int) -> alt.LayerChart:
    """One pair's estimate over many hash seeds: a histogram, the exact value and ±1 s.e."""
    j = float(spread.attrs["jaccard"])
    se = float(spread.attrs["standard_error"])
    step = 1.0 / num_perm
    est = spread["estimate"].to_numpy()
    lo = np.floor((est.min() - step / 2) / step) * step
    edges = np.arange(lo, est.max() + step, step) + step / 2
    hist, edges = np.histogram(est, bins=edges)
    bars = pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "seeds": hist, "what": "estimates"})
    x = alt.X("lo:Q", bin="binned", title="MinHash estimate", scale=alt.Scale(zero=False))
    hist_chart = (
        alt.Chart(bars[bars["seeds"] > 0])
        .mark_bar()
        .encode(
            x=x,
            x2="hi:Q",
            y=alt.Y("seeds:Q", title="hash seeds", axis=alt.Axis(tickMinStep=1, format="d")),
            color=alt.Color(
                "what:N",
                title=None,
                scale=alt.Scale(
                    domain=["estimates", "exact Jaccard", "± one standard error √(J(1−J)/k)"],
                    range=[FN_COLOR, CURVE_COLOR, FP_COLOR],
                ),
            ),
        )
    )
    marks = pd.DataFrame(
        {
            "lo": [j, j - se, j + se],
            "what": ["exact Jaccard"] + ["± one standard error √(J(1−J)/k)"] * 2,
        }
    )
    rules = alt.Chart(marks).mark_rule(strokeWidth=2).encode(x="lo:Q", color="what:N")
    return finish(alt.layer(hist_chart, rules), 380)


def shingle_length(profile: pd.DataFrame, kind: str, current: int) -> alt.LayerChart:
    """For each shingle length k: the share of shingles found in one document only, and the
    mean Jaccard of unrelated pairs; the k in use marked."""
    unit = "characters" if kind == "char" else "words"
    long = profile.melt(
        id_vars=["k"],
        value_vars=["share_in_one_document", "mean_jaccard_unrelated"],
        var_name="measure",
        value_name="value",
    )
    long["measure"] = long["measure"].map(
        {
            "share_in_one_document": "shingles found in one document only (share)",
            "mean_jaccard_unrelated": "mean Jaccard of unrelated pairs",
        }
    )
    lines = (
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=alt.X("k:Q", title=f"shingle length k ({unit})", axis=alt.Axis(tickMinStep=1)),
            y=alt.Y("value:Q", title="share / Jaccard", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("measure:N", title=None, scale=alt.Scale(range=[FN_COLOR, FP_COLOR])),
            tooltip=["k:Q", "measure:N", alt.Tooltip("value:Q", format=".3f")],
        )
    )
    now = alt.Chart(pd.DataFrame({"k": [current]})).mark_rule(strokeDash=[4, 3]).encode(x="k:Q")
    return finish(alt.layer(lines, now), 380)


def join_funnel(stages: pd.DataFrame) -> alt.Chart:
    """How many pairs each step of the exact join leaves, from all pairs to the result: a
    log axis ticked at powers of ten, and each bar's count written beside it (a step that
    leaves none is a stub at 1, labelled 0)."""
    pairs = stages["pairs"].to_numpy(np.int64)
    df = stages.assign(shown=np.maximum(pairs, 1), label=[f"{int(v):,}" for v in pairs])
    top = int(np.ceil(np.log10(max(int(df["shown"].max()), 10))))
    powers = [10**e for e in range(top + 1)]
    x = alt.X(
        "shown:Q",
        title="pairs left (log scale)",
        scale=alt.Scale(type="log", domain=[1, 10 ** (top + 1)]),  # room for the labels
        axis=alt.Axis(values=powers, format="~s"),
    )
    y = alt.Y("step:N", sort=None, title=None)
    tip = ["step:N", alt.Tooltip("pairs:Q", title="pairs left", format=",")]
    bars = alt.Chart(df).mark_bar(color=FN_COLOR).encode(y=y, x=x, tooltip=tip)
    text = alt.Chart(df).mark_text(align="left", dx=4).encode(y=y, x=x, text="label:N")
    return finish(alt.layer(bars, text), 60 + 42 * len(stages))
