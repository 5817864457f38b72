"""Altair charts for the explorer's pages.

Every chart has axis titles and a legend; the pages add a one-line caption. Nothing here
imports Streamlit, so the charts can be tested as plain Vega-Lite specifications.
"""

from __future__ import annotations

import functools
import json

import altair as alt
import numpy as np
import pandas as pd

from nearsim.lsh import candidate_probability, effective_threshold, steepest_point

FP_COLOR = "#e4572e"
FN_COLOR = "#4c78a8"
CURVE_COLOR = "#222222"
MEASURED_COLOR = "#2a9d8f"
MARK_COLORS = {"threshold": CURVE_COLOR, "steepest": "#777777", "rule of thumb": "#aaaaaa"}


def finish(chart, height: int):
    """Every chart's last step: its total height (axes and legend included — a fitted
    Vega-Lite chart counts them in), and legends below the plot, one entry per line, so a
    narrow screen keeps the plot's full width."""
    return chart.properties(height=height).configure_legend(
        orient="bottom", direction="vertical", columns=1, labelLimit=320, titleLimit=320
    )


def _stacked_bins(
    values: np.ndarray,
    edges: np.ndarray,
    hi: np.ndarray,
    groups: tuple[tuple[str, np.ndarray], ...],
    *,
    count: str,
    group: str,
    titles: tuple[str, str, str],
    colors: list[str],
    tooltip: list,
    height: int,
) -> alt.Chart:
    """A histogram of ``values`` over ``edges`` (bars from ``edges[:-1]`` to ``hi``), one
    stacked colour per (label, mask) of ``groups``; empty bars left out. ``titles``: the
    x axis, the y axis, the legend."""
    rows = [
        pd.DataFrame(
            {"lo": edges[:-1], "hi": hi, count: np.histogram(values[mask], bins=edges)[0],
             group: label}
        )
        for label, mask in groups
    ]  # fmt: skip
    df = pd.concat(rows, ignore_index=True)
    df = df[df[count] > 0]
    x_title, y_title, legend = titles
    domain = [label for label, _ in groups]
    chart = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("lo:Q", bin="binned", title=x_title),
            x2="hi:Q",
            y=alt.Y(f"{count}:Q", title=y_title, stack=True),
            color=alt.Color(
                f"{group}:N", title=legend, scale=alt.Scale(domain=domain, range=colors)
            ),
            tooltip=tooltip,
        )
    )
    return finish(chart, height)


def shingle_histogram(counts: np.ndarray, min_shingles: int) -> alt.Chart:
    """Distribution of distinct shingles per document, those left without a signature
    (fewer than ``max(min_shingles, 1)``) marked.

    The counts are binned here (at most 40 bins), so the chart carries a few dozen rows
    whatever the number of documents.
    """
    counts = np.asarray(counts, dtype=np.int64)
    floor = max(min_shingles, 1)
    hi = int(counts.max(initial=0)) + 1
    width = max(1, -(-hi // 40))
    edges = np.arange(0, hi + width, width)
    groups = (("gets a signature", counts >= floor), ("no signature", counts < floor))
    tooltip = [
        alt.Tooltip("lo:Q", title="from"),
        alt.Tooltip("hi:Q", title="to (excl.)"),
        alt.Tooltip("documents:Q", title="documents", format=","),
        "status:N",
    ]
    return _stacked_bins(
        counts, edges, edges[1:], groups, count="documents", group="status",
        titles=("distinct shingles per document", "documents", "document"),
        colors=[FN_COLOR, FP_COLOR], tooltip=tooltip, height=300,
    )  # fmt: skip


_PLACE = "@@{}@@"


@functools.lru_cache(maxsize=64)
def _template(build, shape: tuple, data_keys: tuple, label_keys: tuple) -> str:
    """The Vega-Lite JSON of ``build`` for one shape, its data named, its labels holes."""
    labels = {k: _PLACE.format(k) for k in label_keys}
    named = {k: alt.Data(name=k) for k in data_keys}
    return json.dumps(build(named, labels, *shape).to_dict())


def _fill(build, shape: tuple, data: dict, labels: dict) -> dict:
    """``build``'s specification: the shape's template (Altair builds and validates it once
    per shape) with these labels in its holes and these tables as its named datasets."""
    text = _template(build, shape, tuple(data), tuple(labels))
    for k, v in labels.items():
        text = text.replace(json.dumps(_PLACE.format(k)), json.dumps(v))
    spec = json.loads(text)
    spec["datasets"] = dict(data)
    return spec


# one hue per legend entry: t, the steepest point and the rule of thumb were three greys
# beside the black curve, four dots a reader could not tell apart
_S_COLORS = {
    "fp": FP_COLOR, "fn": FN_COLOR, "curve": CURVE_COLOR, "t": "#6a3d9a",
    "formula": "#888888", "steep": "#d4a017", "thumb": "#8c564b",
    "all": MEASURED_COLOR, "sampled": "#7fc8bf",
}  # fmt: skip


def _s_curve_parts(
    b: int, r: int, threshold: float, rates: pd.DataFrame | None, sketch: str = "minhash",
    num_perm: int | None = None,
):  # fmt: skip
    """The S-curve's tables, legend names and shape (which marks it draws). For a sketch
    with its own curve (SuperMinHash), the areas are under that curve and the formula
    1 − (1 − s^r)^b is drawn beside it, dashed."""
    s = np.linspace(0.0, 1.0, 401)
    s = np.union1d(s, [threshold])
    p = candidate_probability(s, b, r, sketch=sketch, num_perm=num_perm)
    curve = pd.DataFrame({"s": s, "p": p})
    own = sketch != "minhash"
    steep, thumb = steepest_point(b, r), effective_threshold(b, r)
    # The names hold no numbers (the page's metrics and the tooltips give them): a new b,
    # r or t then changes the chart's rows only, which the browser swaps in, where a new
    # specification makes it build the chart again.
    names = {
        "fp": "false-positive area (left of t, under the curve)",
        "fn": "false-negative area (right of t, above the curve)",
        "curve": "S-curve of SuperMinHash (simulated)" if own else "S-curve 1 − (1 − s^r)^b",
        "formula": "1 − (1 − s^r)^b (classic MinHash)",
        "t": "threshold t",
        "steep": "steepest point",
        "thumb": "rule of thumb (1/b)^(1/r)",
        "all": "measured share (all pairs)",
        "sampled": "measured share (sampled pairs)",
    }
    shown = ["fp", "fn", "curve", *(["formula"] if own else []), "t", "steep", "thumb"]
    has_rates = rates is not None and len(rates) and rates["rate"].notna().any()
    if has_rates:
        shown += ["all", "sampled"] if rates["sampled"].any() else ["all"]
    left = curve[curve["s"] <= threshold].assign(lo=0.0, hi=lambda d: d["p"], what=names["fp"])
    right = curve[curve["s"] >= threshold].assign(lo=lambda d: d["p"], hi=1.0, what=names["fn"])
    data = {
        "shade": pd.concat([left, right], ignore_index=True),
        "line": curve.assign(what=names["curve"]),
        "marks": pd.DataFrame(
            {"s": [threshold, steep, thumb], "what": [names["t"], names["steep"], names["thumb"]]}
        ),
    }
    if own:
        formula = candidate_probability(s, b, r)
        data["formula"] = pd.DataFrame({"s": s, "p": formula, "what": names["formula"]})
    errors = False
    if has_rates:
        pts = rates.dropna(subset=["rate"]).copy()
        pts["mid"] = (pts["lo"] + pts["hi"]) / 2
        pts["what"] = np.where(pts["sampled"], names["sampled"], names["all"])
        errors = "expected_se" in pts
        if errors:
            pts["err_lo"] = (pts["rate"] - 2 * pts["expected_se"]).clip(0, 1)
            pts["err_hi"] = (pts["rate"] + 2 * pts["expected_se"]).clip(0, 1)
        data["points"] = pts.reset_index(drop=True)
    return data, {k: names[k] for k in shown}, (bool(has_rates), errors, own)


def _s_curve_build(src: dict, names: dict, has_rates: bool, errors: bool, own: bool = False):
    """The S-curve as Altair layers over ``src`` (tables, or named data in a template)."""
    color = alt.Color(
        "what:N",
        title=None,
        scale=alt.Scale(domain=list(names.values()), range=[_S_COLORS[k] for k in names]),
        sort=list(names.values()),
    )
    x = alt.X("s:Q", title="Jaccard similarity of a pair", scale=alt.Scale(domain=[0, 1]))
    shade = (
        alt.Chart(src["shade"])
        .mark_area(opacity=0.35)
        .encode(
            x=x,
            y=alt.Y("lo:Q", title="chance of becoming a candidate", scale=alt.Scale(domain=[0, 1])),
            y2="hi:Q",
            color=color,
            # explicit: Streamlit's default tooltip listed every field, raw ("hi 0.635987…")
            tooltip=[
                alt.Tooltip("what:N", title="area"),
                alt.Tooltip("s:Q", format=".3f"),
                alt.Tooltip("p:Q", title="P(s)", format=".4f"),
            ],
        )
    )
    line = (
        alt.Chart(src["line"])
        .mark_line(strokeWidth=2.5)
        .encode(
            x=x,
            y="p:Q",
            color=color,
            tooltip=[
                alt.Tooltip("s:Q", format=".3f"),
                alt.Tooltip("p:Q", title="P(s)", format=".4f"),
            ],
        )
    )
    rules = (
        alt.Chart(src["marks"])
        .mark_rule(strokeWidth=1.5)
        .encode(x="s:Q", color=color, tooltip=["what:N", alt.Tooltip("s:Q", format=".3f")])
    )
    layers = [shade, line, rules]
    if own:
        layers.insert(
            2,
            alt.Chart(src["formula"])
            .mark_line(strokeWidth=1.5, strokeDash=[5, 4])
            .encode(
                x=x,
                y="p:Q",
                color=color,
                tooltip=[
                    alt.Tooltip("s:Q", format=".3f"),
                    alt.Tooltip("p:Q", title="1 − (1 − s^r)^b", format=".4f"),
                ],
            ),
        )
    if has_rates:
        if errors:
            layers.append(
                alt.Chart(src["points"])
                .mark_rule(opacity=0.6)
                .encode(
                    x="mid:Q",
                    y="err_lo:Q",
                    y2="err_hi:Q",
                    color=color,
                    tooltip=[
                        alt.Tooltip("err_lo:Q", title="2 standard errors from", format=".3f"),
                        alt.Tooltip("err_hi:Q", title="to", format=".3f"),
                    ],
                )
            )
        layers.append(
            alt.Chart(src["points"])
            .mark_point(size=70, filled=True)
            .encode(
                x="mid:Q",
                y="rate:Q",
                color=color,
                shape=alt.Shape("sampled:N", legend=None),
                tooltip=[
                    alt.Tooltip("lo:Q", title="similarity from", format=".2f"),
                    alt.Tooltip("hi:Q", title="to", format=".2f"),
                    alt.Tooltip("pairs:Q", title="pairs in this range", format=","),
                    alt.Tooltip("candidates:Q", title="became candidates", format=","),
                    alt.Tooltip("rate:Q", title="measured share", format=".3f"),
                    alt.Tooltip("expected:Q", title="S-curve expects", format=".3f"),
                ],
            )
        )
    return finish(alt.layer(*layers), 560)


def s_curve(
    b: int,
    r: int,
    threshold: float,
    rates: pd.DataFrame | None = None,
    sketch: str = "minhash",
    num_perm: int | None = None,
):
    """The banding S-curve with the false-positive and false-negative areas shaded.

    One legend for everything drawn (areas, curve, marks, measured points), so it fits
    below the plot on a phone.

    Parameters
    ----------
    b, r : int
        Bands and rows per band.
    threshold : float
        The threshold t: the FP area is under the curve left of t, the FN area above it
        right of t.
    rates : pandas.DataFrame, optional
        ``nearsim.rate_by_band`` output: the measured share of pairs that became
        candidates per 0.05 range of similarity, drawn over the curve.
    sketch : {"minhash", "superminhash"}
        Whose curve is drawn and shaded; for SuperMinHash (its own, simulated curve, for
        signatures of ``num_perm`` values) the formula 1 − (1 − s^r)^b is drawn beside it.
    num_perm : int, optional
        Signature length k (default b·r).

    Returns
    -------
    altair.LayerChart
    """
    data, names, shape = _s_curve_parts(b, r, threshold, rates, sketch, num_perm)
    return _s_curve_build(data, names, *shape)


def s_curve_spec(
    b: int, r: int, threshold: float, rates: pd.DataFrame | None = None,
    sketch: str = "minhash", num_perm: int | None = None,
) -> dict:  # fmt: skip
    """:func:`s_curve` as a Vega-Lite specification, built from its shape's template
    (what the Banding page draws: a new threshold or banding costs no Altair build).

    Returns
    -------
    dict
        The specification; its named ``datasets`` are pandas DataFrames.
    """
    data, names, shape = _s_curve_parts(b, r, threshold, rates, sketch, num_perm)
    return _fill(_s_curve_build, shape, data, names)


_WHICH = ["in use", "best eight", "other choices"]


def _tuner_frame(choices: pd.DataFrame, current: tuple[int, int]) -> pd.DataFrame:
    df = choices.copy()
    df["which"] = np.where(
        (df["b"] == current[0]) & (df["r"] == current[1]),
        "in use",
        np.where(df["rank"] <= 8, "best eight", "other choices"),
    )
    return df


def _tuner_build(src: dict, labels: dict):
    chart = (
        alt.Chart(src["choices"])
        .mark_circle()
        .encode(
            x=alt.X("fp:Q", title="false-positive area"),
            y=alt.Y("fn:Q", title="false-negative area"),
            color=alt.Color(
                "which:N",
                title="banding",
                scale=alt.Scale(domain=_WHICH, range=[FP_COLOR, MEASURED_COLOR, "#bbbbbb"]),
            ),
            size=alt.Size(
                "which:N", scale=alt.Scale(domain=_WHICH, range=[160, 70, 15]), legend=None
            ),
            tooltip=[
                "b:Q",
                "r:Q",
                alt.Tooltip("fp:Q", format=".4f"),
                alt.Tooltip("fn:Q", format=".4f"),
                alt.Tooltip("error:Q", format=".4f"),
            ],
        )
    )
    return finish(chart, 340)


def tuner_scatter(choices: pd.DataFrame, current: tuple[int, int]) -> alt.Chart:
    """Every banding's false-positive against false-negative area, the best eight marked."""
    return _tuner_build({"choices": _tuner_frame(choices, current)}, {})


def tuner_scatter_spec(choices: pd.DataFrame, current: tuple[int, int]) -> dict:
    """:func:`tuner_scatter` as a Vega-Lite specification from its template."""
    return _fill(_tuner_build, (), {"choices": _tuner_frame(choices, current)}, {})


def found_by_similarity(truth: pd.DataFrame, found: np.ndarray) -> alt.Chart:
    """True pairs per 0.01 of similarity, split into found and missed by the index.

    Binned here, so the chart carries at most 200 rows however many pairs there are.
    """
    j = np.clip(truth["jaccard"].to_numpy(np.float64), 0.0, 1.0)
    found = np.asarray(found, dtype=bool)
    edges = np.linspace(0.0, 1.0, 101)
    edges[-1] = 1.0 + 1e-9
    tooltip = [
        alt.Tooltip("lo:Q", title="similarity from", format=".2f"),
        alt.Tooltip("pairs:Q", format=","),
        "outcome:N",
    ]
    return _stacked_bins(
        j, edges, edges[:-1] + 0.01, (("found (candidate)", found), ("missed", ~found)),
        count="pairs", group="outcome",
        titles=("exact Jaccard similarity", "true pairs", "true pair"),
        colors=[MEASURED_COLOR, FP_COLOR], tooltip=tooltip, height=320,
    )  # fmt: skip


def estimate_vs_exact(table: pd.DataFrame, threshold: float) -> alt.Chart:
    """Each candidate's MinHash estimate against its exact similarity."""
    base = alt.Chart(table)
    pts = base.mark_circle(opacity=0.6).encode(
        x=alt.X("jaccard:Q", title="exact Jaccard similarity", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("estimate:Q", title="MinHash estimate", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color(
            "verdict:N",
            title="candidate",
            scale=alt.Scale(
                domain=[
                    "true pair, accepted",
                    "true pair, rejected by estimate",
                    "false, accepted",
                    "false, rejected",
                ],
                range=[MEASURED_COLOR, FN_COLOR, FP_COLOR, "#bbbbbb"],
            ),
        ),
        tooltip=[
            "i:Q",
            "j:Q",
            alt.Tooltip("jaccard:Q", format=".3f"),
            alt.Tooltip("estimate:Q", format=".3f"),
        ],
    )
    rule = alt.Chart(pd.DataFrame({"t": [threshold]})).mark_rule(strokeDash=[4, 3]).encode(x="t:Q")
    hrule = alt.Chart(pd.DataFrame({"t": [threshold]})).mark_rule(strokeDash=[4, 3]).encode(y="t:Q")
    return finish(alt.layer(pts, rule, hrule), 420)


def compare_curves(table: pd.DataFrame, lsh: dict | None) -> alt.LayerChart:
    """SimHash recall and precision by distance d, MinHash LSH at the current b, r beside it."""
    long = table.melt(
        id_vars=["d"], value_vars=["recall", "precision"], var_name="measure", value_name="value"
    )
    long["method"] = "SimHash distance ≤ d"
    lines = (
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=alt.X("d:Q", title="SimHash distance d (bits of 64)"),
            y=alt.Y("value:Q", title="recall / precision", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "measure:N",
                title="measure",
                scale=alt.Scale(domain=["recall", "precision"], range=[FN_COLOR, FP_COLOR]),
            ),
            tooltip=["d:Q", "measure:N", alt.Tooltip("value:Q", format=".3f")],
        )
    )
    layers = [lines]
    if lsh:
        ref = pd.DataFrame(
            {
                "measure": ["recall", "precision"],
                "value": [lsh.get("recall", np.nan), lsh.get("precision", np.nan)],
                "label": ["MinHash LSH recall", "MinHash LSH precision"],
            }
        ).dropna()
        layers.append(
            alt.Chart(ref)
            .mark_rule(strokeDash=[6, 4], strokeWidth=2)
            .encode(
                y="value:Q",
                color=alt.Color("measure:N"),
                tooltip=["label:N", alt.Tooltip("value:Q", format=".3f")],
            )
        )
    return finish(alt.layer(*layers), 380)


def bit_shares(shares: np.ndarray) -> alt.LayerChart:
    """Share of fingerprints with each bit set; a healthy hash sits near 0.5 for every bit.

    No chart title (the page labels it) and a short y-axis title: with the chart fitted
    to its container, an axis title longer than the plot squeezes the plot to a strip.
    """
    df = pd.DataFrame({"bit": np.arange(len(shares)), "share": shares})
    df["health"] = np.where((df["share"] <= 0.0) | (df["share"] >= 1.0), "never moves", "moves")
    bars = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X(
                "bit:O",
                title="bit position",
                axis=alt.Axis(labelAngle=0, values=list(range(0, 64, 8))),
            ),
            y=alt.Y(
                "share:Q",
                title="share of documents",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
            ),
            color=alt.Color(
                "health:N",
                title="bit",
                scale=alt.Scale(domain=["moves", "never moves"], range=[FN_COLOR, FP_COLOR]),
            ),
            tooltip=["bit:O", alt.Tooltip("share:Q", title="share with the bit set", format=".2f")],
        )
    )
    half = alt.Chart(pd.DataFrame({"y": [0.5]})).mark_rule(strokeDash=[4, 3]).encode(y="y:Q")
    return finish(alt.layer(bars, half), 320)


def distance_scatter(df: pd.DataFrame, threshold: float, max_points: int = 2000) -> alt.LayerChart:
    """SimHash distance against exact Jaccard for pairs of the user's documents."""
    if len(df) > max_points:
        df = df.sample(max_points, random_state=0)
    pts = (
        alt.Chart(df)
        .mark_circle(opacity=0.4)
        .encode(
            x=alt.X("jaccard:Q", title="exact Jaccard similarity", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("distance:Q", title="SimHash distance (bits of 64)"),
            color=alt.Color(
                "pair:N",
                title="pair",
                scale=alt.Scale(
                    domain=["near duplicate (J ≥ t)", "below t"], range=[FP_COLOR, FN_COLOR]
                ),
            ),
            tooltip=["i:Q", "j:Q", alt.Tooltip("jaccard:Q", format=".3f"), "distance:Q"],
        )
        # t is in a Vega expression, so a new t rebuilds this one chart. As a column it
        # would not; but then Streamlit could count the points, and it draws a chart of
        # over 2,000 (max_points can be raised) on a canvas, where the tests cannot
        # measure the plot.
        .transform_calculate(
            pair=f"datum.jaccard >= {threshold} ? 'near duplicate (J ≥ t)' : 'below t'"
        )
    )
    return finish(pts, 380)
