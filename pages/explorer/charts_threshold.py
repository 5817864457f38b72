"""Charts of the Threshold page: the labels, what they say about t, and the removal rate.

Like ``explorer/charts.py`` (whose colours and :func:`~explorer.charts.finish` they use):
axis titles, one legend below the plot, the data binned or small, no Streamlit import.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from nearsim.explore.labels import LABELS

from .charts import CURVE_COLOR, FN_COLOR, FP_COLOR, MEASURED_COLOR, finish

PRECISION_COLOR = FP_COLOR
RECALL_COLOR = FN_COLOR
SUGGESTED_COLOR = MEASURED_COLOR
LABEL_COLORS = dict(zip(LABELS, (MEASURED_COLOR, FP_COLOR, "#aaaaaa"), strict=True))


def _domain(values, threshold: float, pad: float = 0.05) -> list[float]:
    """An x range around the labelled similarities and t, within [0, 1]."""
    vals = np.append(np.asarray(values, dtype=np.float64), threshold)
    return [max(0.0, float(vals.min()) - pad), min(1.0, float(vals.max()) + pad)]


def label_curve_chart(curve: pd.DataFrame, threshold: float, choice=None, labelled=()):
    """Precision and recall of "J ≥ t" against the labels, with their intervals.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``nearsim.explore.labels.label_curve`` output (threshold, precision, recall and their
        ``_low`` / ``_high`` interval columns).
    threshold : float
        The current t, marked.
    choice : nearsim.explore.labels.ThresholdChoice, optional
        The suggested t, marked with its interval shaded.
    labelled : array_like of float
        The labelled pairs' similarities: the x axis spans them (and t), ± 0.05.
    """
    x_range = _domain(labelled, threshold)
    shown = curve[(curve["threshold"] >= x_range[0]) & (curve["threshold"] <= x_range[1])]
    names = {
        "precision": "precision of J ≥ t",
        "recall": "recall of J ≥ t",
        "t": f"current t = {threshold:g}",
    }
    colors = {"precision": PRECISION_COLOR, "recall": RECALL_COLOR, "t": CURVE_COLOR}
    if choice is not None:
        names["best"] = (
            f"suggested t = {choice.threshold:g} ({choice.level:.0%} interval "
            f"{choice.low:g} – {choice.high:g})"
        )
        colors["best"] = SUGGESTED_COLOR
    color = alt.Color(
        "what:N",
        title=None,
        scale=alt.Scale(domain=list(names.values()), range=list(colors.values())),
        sort=list(names.values()),
    )
    x = alt.X("threshold:Q", title="threshold t (J ≥ t called a duplicate)")
    x = x.scale(domain=x_range, nice=False)
    long = []
    for measure in ("precision", "recall"):
        part = shown[["threshold", measure, f"{measure}_low", f"{measure}_high"]]
        part = part.set_axis(["threshold", "value", "low", "high"], axis=1)
        long.append(part.assign(what=names[measure]))
    df = pd.concat(long, ignore_index=True)
    y = alt.Y("value:Q", title="precision / recall", scale=alt.Scale(domain=[0, 1]))
    layers = [
        alt.Chart(df.dropna(subset=["low"]))
        .mark_area(opacity=0.15)
        .encode(x=x, y=alt.Y("low:Q", title="precision / recall"), y2="high:Q", color=color),
        alt.Chart(df.dropna(subset=["value"]))
        .mark_line(interpolate="step-after", strokeWidth=2.5)
        .encode(
            x=x,
            y=y,
            color=color,
            tooltip=[
                alt.Tooltip("threshold:Q", title="t", format=".2f"),
                alt.Tooltip("what:N", title="measure"),
                alt.Tooltip("value:Q", format=".3f"),
                alt.Tooltip("low:Q", title="interval from", format=".3f"),
                alt.Tooltip("high:Q", title="to", format=".3f"),
            ],
        ),
    ]
    marks = [{"at": threshold, "what": names["t"]}]
    if choice is not None:
        marks.append({"at": choice.threshold, "what": names["best"]})
        if np.isfinite(choice.low) and np.isfinite(choice.high):
            span = pd.DataFrame([{"lo": choice.low, "hi": choice.high, "what": names["best"]}])
            layers.insert(
                0,
                alt.Chart(span)
                .mark_rect(opacity=0.12)
                .encode(x=alt.X("lo:Q").scale(domain=x_range, nice=False), x2="hi:Q", color=color),
            )
    layers.append(
        alt.Chart(pd.DataFrame(marks))
        .mark_rule(strokeWidth=2, strokeDash=[5, 3])
        .encode(x="at:Q", color=color, tooltip=["what:N"])
    )
    return finish(alt.layer(*layers), 480)


def labels_strip(labels: pd.DataFrame, threshold: float) -> alt.LayerChart:
    """Each labelled pair as a tick at its similarity, one line per label.

    Parameters
    ----------
    labels : pandas.DataFrame
        A labels table (i, j, jaccard, label).
    threshold : float
        The current t, marked.
    """
    x_range = _domain(labels["jaccard"], threshold)
    color = alt.Color(
        "label:N",
        title="your label",
        scale=alt.Scale(domain=list(LABELS), range=list(LABEL_COLORS.values())),
    )
    ticks = (
        alt.Chart(labels[["i", "j", "jaccard", "label"]])
        .mark_tick(thickness=2, size=22)
        .encode(
            x=alt.X("jaccard:Q", title="exact Jaccard similarity of the pair").scale(
                domain=x_range, nice=False
            ),
            y=alt.Y("label:N", title="label", sort=list(LABELS)),
            color=color,
            tooltip=["i:Q", "j:Q", alt.Tooltip("jaccard:Q", format=".3f"), "label:N"],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"t": [threshold]}))
        .mark_rule(strokeDash=[5, 3], color=CURVE_COLOR)
        .encode(x="t:Q")
    )
    return finish(alt.layer(ticks, rule), 330)


def removal_chart(curve: pd.DataFrame, threshold: float) -> alt.LayerChart:
    """Share of documents removed and clusters for every threshold, the current t marked.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``nearsim.explore.removal.removal_curve`` output (threshold, clusters, removed_share, …).
    threshold : float
        The current t, marked when it is on the grid's range.
    """
    share_name = "documents removed (all but one per cluster), share"
    cluster_name = "clusters of two or more documents"
    t_name = f"current t = {threshold:g}"
    lo, hi = float(curve["threshold"].min()), float(curve["threshold"].max())
    on_grid = lo <= threshold <= hi
    domain = [share_name, cluster_name] + ([t_name] if on_grid else [])
    color = alt.Color(
        "what:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[FP_COLOR, FN_COLOR, CURVE_COLOR][: len(domain)]),
        sort=domain,
    )
    x = alt.X("threshold:Q", title="threshold t (pairs with exact J ≥ t joined)")
    x = x.scale(domain=[lo, hi], nice=False)
    tips = [
        alt.Tooltip("threshold:Q", title="t", format=".2f"),
        alt.Tooltip("removed:Q", title="documents removed", format=","),
        alt.Tooltip("removed_share:Q", title="share removed", format=".2%"),
        alt.Tooltip("clusters:Q", title="clusters", format=","),
        alt.Tooltip("largest:Q", title="largest cluster", format=","),
    ]
    data = curve[["threshold", "removed", "removed_share", "clusters", "largest"]]
    share = (
        alt.Chart(data.assign(what=share_name))
        .mark_line(point=True, strokeWidth=2.5)
        .encode(
            x=x,
            y=alt.Y(
                "removed_share:Q", title="share of documents removed", axis=alt.Axis(format="%")
            ),
            color=color,
            tooltip=tips,
        )
    )
    clusters = (
        alt.Chart(data.assign(what=cluster_name))
        .mark_line(strokeDash=[6, 3], strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y(
                "clusters:Q",
                title="clusters",
                axis=alt.Axis(orient="right", format=",d", tickMinStep=1),
            ),
            color=color,
            tooltip=tips,
        )
    )
    layers = [share, clusters]
    if on_grid:
        layers.append(
            alt.Chart(pd.DataFrame({"t": [threshold], "what": [t_name]}))
            .mark_rule(strokeWidth=2)
            .encode(x="t:Q", color=color, tooltip=["what:N"])
        )
    return finish(alt.layer(*layers).resolve_scale(y="independent"), 400)


def cluster_sizes(sizes: np.ndarray) -> alt.Chart:
    """How many clusters have each size, on log-log axes: a templated family or a chain
    stands apart on the right, far from the pairs and triples most clusters are.

    Parameters
    ----------
    sizes : ndarray of int64, shape (c,)
        The size of every cluster of two or more documents.
    """
    size, count = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    df = pd.DataFrame({"size": size, "clusters": count})
    chart = (
        alt.Chart(df)
        .mark_circle(size=60, color=MEASURED_COLOR, opacity=0.85)
        .encode(
            x=alt.X(
                "size:Q", title="Cluster size (documents, log scale)", scale=alt.Scale(type="log")
            ),
            y=alt.Y(
                "clusters:Q", title="Clusters of that size (log scale)", scale=alt.Scale(type="log")
            ),
            tooltip=[
                alt.Tooltip("size:Q", title="size"),
                alt.Tooltip("clusters:Q", title="clusters"),
            ],
        )
    )
    return finish(chart, 240)
