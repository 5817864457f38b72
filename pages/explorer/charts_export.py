"""Charts of the Presets & export page: what a run costs against the corpus size N.

Both charts take the table :func:`nearsim.explore.sizing.sizing` returns (one row per N), draw
log–log lines and mark the N the user typed. Each ends with :func:`explorer.charts.finish`
(legend below). Nothing here imports Streamlit.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .charts import CURVE_COLOR, FN_COLOR, FP_COLOR, MEASURED_COLOR, finish

GRID_DECADES = (3, 10)
"""The N axis runs from 10³ to 10¹⁰ documents."""
POINTS_PER_DECADE = 4

MEMORY_SERIES = {
    "signature_bytes": "signatures (4 bytes × k per document)",
    "band_key_bytes_peak": "band keys, one band at a time (8 bytes per document)",
    "band_key_bytes_all": "band keys, every band at once (8 bytes × b per document)",
    "candidate_bytes": "expected candidate pairs (16 bytes per pair)",
}
TIME_SERIES = {
    "signature_seconds": "signatures",
    "band_seconds": "banding",
    "verify_seconds": "estimate filter",
    "total_seconds": "total",
}
_MEMORY_COLORS = [FN_COLOR, MEASURED_COLOR, "#7fc8bf", FP_COLOR]
_TIME_COLORS = [FN_COLOR, MEASURED_COLOR, FP_COLOR, CURVE_COLOR]
MARK = "your N"


def size_grid(marked: int | None = None) -> np.ndarray:
    """Corpus sizes for the charts: powers of ten from 10³ to 10¹⁰, four per decade, and
    the typed N (int64, sorted, no repeats)."""
    lo, hi = GRID_DECADES
    grid = np.round(np.logspace(lo, hi, (hi - lo) * POINTS_PER_DECADE + 1)).astype(np.int64)
    if marked is not None:
        grid = np.append(grid, np.int64(marked))
    return np.unique(grid)


def _long(table: pd.DataFrame, series: dict[str, str], what: str) -> pd.DataFrame:
    """One row per (N, series) with a positive value (a log axis cannot show 0)."""
    long = table.melt(
        id_vars=["documents"], value_vars=list(series), var_name="column", value_name=what
    )
    long["series"] = long["column"].map(series)
    long[what] = long[what].astype(np.float64)
    return long[np.isfinite(long[what]) & (long[what] > 0)].drop(columns="column")


def _cost_chart(
    table: pd.DataFrame,
    marked: int,
    series: dict[str, str],
    colors: list[str],
    what: str,
    title: str,
    fmt: str,
) -> alt.LayerChart:
    long = _long(table, series, what)
    names = list(series.values())
    color = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=[*names, MARK], range=[*colors, "#777777"]),
        sort=[*names, MARK],
    )
    x = alt.X(
        "documents:Q",
        title="documents in the corpus, N",
        scale=alt.Scale(type="log", domain=[10.0 ** GRID_DECADES[0], 10.0 ** GRID_DECADES[1]]),
        axis=alt.Axis(
            values=[10.0**e for e in range(GRID_DECADES[0], GRID_DECADES[1] + 1)],
            # a count, not bytes: 1M, 10M, 100M, 1B, 10B
            labelExpr="replace(format(datum.value, '~s'), 'G', 'B')",
        ),
    )
    y = alt.Y(f"{what}:Q", title=title, scale=alt.Scale(type="log"), axis=alt.Axis(format=fmt))
    tooltip = [
        alt.Tooltip("documents:Q", title="N", format=","),
        "series:N",
        alt.Tooltip(f"{what}:Q", format=",.3~g"),
    ]
    lines = alt.Chart(long).mark_line().encode(x=x, y=y, color=color, tooltip=tooltip)
    at_n = long[long["documents"] == marked]
    points = (
        alt.Chart(at_n)
        .mark_point(filled=True, size=70)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )
    rule = (
        alt.Chart(pd.DataFrame({"documents": [marked], "series": [MARK]}))
        .mark_rule(strokeDash=[4, 3])
        .encode(
            x="documents:Q",
            color=color,
            tooltip=[alt.Tooltip("documents:Q", title="your N", format=",")],
        )
    )
    return finish(alt.layer(lines, points, rule), 480)


def memory_chart(table: pd.DataFrame, marked: int) -> alt.LayerChart:
    """Memory of signatures, band keys and expected candidate pairs against N (log–log).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`nearsim.explore.sizing.sizing` output over :func:`size_grid`.
    marked : int
        The typed N, a row of ``table``: marked by a dashed rule and points.
    """
    return _cost_chart(
        table, marked, MEMORY_SERIES, _MEMORY_COLORS, "bytes", "memory (bytes)", "~s"
    )


def time_chart(table: pd.DataFrame, marked: int) -> alt.LayerChart:
    """Time of each step of a run against N (log–log), from measured throughput.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`nearsim.explore.sizing.sizing` output over :func:`size_grid`, with throughput.
    marked : int
        The typed N, a row of ``table``.
    """
    return _cost_chart(table, marked, TIME_SERIES, _TIME_COLORS, "seconds", "time (seconds)", ",~g")
