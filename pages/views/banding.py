"""Banding: the S-curve, what it costs, measured against predicted, and two tuners."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts, drawing, settings_ui, state

from nearsim.lsh import (
    candidate_probability,
    effective_threshold,
    false_negative_area,
    false_positive_area,
    steepest_point,
    tune,
)
from nearsim.sketch_law import DEFAULT_UNION

st.title("Banding")
st.markdown(
    "The signature of k values is cut into **b bands**, each of **r rows** (r consecutive "
    "signature values). Two documents become a **candidate pair** when all r values of at "
    "least one band are equal. For a pair of similarity s that happens with probability "
    "1 − (1 − s^r)^b: an S-curve whose steep part should sit at your threshold t. The "
    "area under the curve left of t is the false-positive cost (dissimilar pairs that "
    "still become candidates); the area above it right of t is the false-negative cost "
    "(near duplicates that are never compared)."
)

settings, page, _why = state.current()
b, r, t, k = settings.bands, settings.rows, settings.threshold, settings.num_perm
sketch = settings.sketch
own = sketch != "minhash"  # a sketch with its own S-curve (SuperMinHash)
choices = tune(t, k, settings.fp_weight, 1 - settings.fp_weight, sketch=sketch)
if own:  # the areas under its own curve: the tuner's, for the banding in use
    fp, fn = next((c.fp, c.fn) for c in choices if (c.b, c.r) == (b, r))
    st.info(
        "Your signatures are **SuperMinHash**: its positions are not independent (one "
        "shingle cannot win two positions in the same round), so the chance that a pair "
        "becomes a candidate is not exactly 1 − (1 − s^r)^b. Everything on this page uses "
        "its own S-curve, simulated once for k = "
        f"{k} (the dashed line is the formula, for comparison). The simulation assumes "
        f"pairs of short documents, about {DEFAULT_UNION} distinct shingles in the two "
        "together; for long documents the sketch's curve moves towards the formula. See "
        "the **Two sketches** tab of the MinHash page for what the sketch changes on your "
        "documents."
    )
else:
    fp, fn = false_positive_area(t, b, r), false_negative_area(t, b, r)


def p_at(s: float, bands: int, rows: int) -> float:
    return candidate_probability(s, bands, rows, sketch=sketch, num_perm=k)


def pct(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.1%}"


m = st.columns(5)
m[0].metric("Bands × rows per band", f"{b} × {r}", help="b bands, each of r signature values")
m[1].metric("P(candidate) at t", f"{p_at(t, b, r):.3f}")
m[2].metric("Steepest point", f"{steepest_point(b, r):.3f}")
m[3].metric(
    "(1/b)^(1/r)",
    f"{effective_threshold(b, r):.3f}",
    help="The usual rule of thumb for where the curve rises.",
)
m[4].metric(
    "Signature values unused", f"{k - b * r}", help="k − b·r values take no part in banding."
)

rates = page.run.get("rates") if page is not None else None
drawing.chart(charts.s_curve_spec, b, r, t, rates, sketch, k)
caption = (
    f"The S-curve for {b} bands of {r} rows at threshold t = {t:g}; false-positive area "
    f"{fp:.4f}, false-negative area {fn:.4f}."
)
if own:
    gap = abs(p_at(t, b, r) - candidate_probability(t, b, r))
    caption += (
        f" SuperMinHash's curve is simulated (20,000 draws per similarity; at t it differs "
        f"from the formula by {gap:.3f})."
    )
if rates is not None:
    caption += (
        " Points: the measured share of pairs in each 0.05 range of exact similarity that "
        "became candidates (bars: ±2 standard errors of the S-curve's expectation)."
        + (
            " Light points are measured on a random sample of the pairs."
            if rates["sampled"].any()
            else ""
        )
    )
else:
    caption += " Load documents to see measured candidate rates on your data."
st.caption(caption)

if rates is not None:
    with st.expander("Measured rates per similarity range"):
        shown = rates.rename(
            columns={
                "lo": "similarity from",
                "hi": "to",
                "pairs": "pairs in this range",
                "candidates": "became candidates",
                "rate": "measured share",
                "expected": "S-curve expects",
                "expected_se": "standard error",
                "sampled": "sampled",
            }
        )
        st.dataframe(shown, hide_index=True, width="stretch")
        if rates["sampled"].any():
            st.caption(
                "Ranges marked sampled are measured on a uniform random sample of all "
                "pairs; the others count every pair."
            )

if page is not None:
    st.subheader("Predicted and measured on your documents")
    st.markdown(
        "From the exact similarities of your documents' pairs, the MinHash model predicts "
        "what this banding will do: how many candidates it makes and which share of the "
        "true pairs it finds — before and after the estimate filter. The measured figures "
        "are what the index actually did with this hash seed; they scatter around the "
        "prediction by chance."
    )
    pred = page.run.get("prediction")
    ev = page.run.get("evaluation")
    table = pd.DataFrame(
        {
            "": [
                "candidate pairs",
                "recall of the candidates",
                "precision of the candidates",
                "kept after the estimate filter",
                "recall after the filter",
                "precision after the filter",
            ],
            "predicted": [
                f"{pred.candidates:,.1f}",
                pct(pred.recall),
                pct(pred.precision),
                f"{pred.accepted:,.1f}",
                pct(pred.recall_filtered),
                pct(pred.precision_filtered),
            ],
            "measured": [
                f"{ev.candidates:,}",
                pct(ev.recall),
                pct(ev.precision),
                f"{ev.accepted:,}",
                pct(ev.recall_filtered),
                pct(ev.precision_filtered),
            ],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(
        f"{b} bands × {r} rows at t = {t:g}, on {ev.true_pairs:,} true pairs (the prediction "
        f"expects {pred.true_pairs:,.0f} from the pairs' weights)."
    )

st.subheader("Pick b and r for me")
st.markdown(
    "The **area tuner** tries every b × r ≤ k and ranks them by w·FP + (1 − w)·FN, the "
    "weighted sum of the two areas — the same choice datasketch's MinHashLSH makes. Turn on "
    "**Pick bands and rows for me** in the sidebar to use its first choice, and slide the "
    "**false-positive weight** down to miss fewer pairs (at the cost of more candidates)."
)
table = pd.DataFrame(choices, columns=["b", "r", "fp", "fn", "error"])
table.insert(0, "rank", range(1, len(table) + 1))
best8 = (
    table.head(8)
    .assign(**{"P(t)": [p_at(t, c.b, c.r) for c in choices[:8]]})
    .rename(
        columns={
            "b": "bands b",
            "r": "rows per band r",
            "fp": "false-positive area",
            "fn": "false-negative area",
            "error": "weighted error",
        }
    )
)
left, right = st.columns([3, 2])
with left:
    st.dataframe(best8, hide_index=True, width="stretch")
    st.caption(
        f"The best eight of {len(table):,} choices for t = {t:g}, k = {k}, "
        f"false-positive weight {settings.fp_weight:g}"
        + (", under SuperMinHash's own curve." if own else ".")
    )
with right:
    drawing.chart(charts.tuner_scatter_spec, table, (b, r))
    st.caption("Every choice's two areas; the best eight and the banding in use are marked.")

if page is None:
    st.stop()

st.markdown(
    "The **recall tuner** uses your corpus instead: from its pairs' similarities it "
    "predicts every b × r and keeps those that reach a recall target with the fewest "
    "candidates to check."
)
target = st.slider(
    "Recall target R (of the candidates)", 0.5, 0.999, 0.95, 0.005, key="recall_target"
)
comparison = state.tuner_comparison(page, target)
ranked = pd.DataFrame(
    {
        "bands b": [p.b for p in comparison.recall],
        "rows per band r": [p.r for p in comparison.recall],
        "expected candidates": [round(p.candidates, 1) for p in comparison.recall],
        "recall": [pct(p.recall) for p in comparison.recall],
        "precision": [pct(p.precision) for p in comparison.recall],
        "recall after the filter": [pct(p.recall_filtered) for p in comparison.recall],
    }
)
st.dataframe(ranked, hide_index=True, width="stretch")
first, areas = comparison.recall[0], comparison.areas
reached = not math.isnan(first.recall) and first.recall >= target
st.caption(
    f"The best eight b × r for recall ≥ {target:.1%} at t = {t:g}, k = {k}, predicted on "
    "this corpus." + ("" if reached else " No banding reaches the target: highest recall first.")
)
if (first.b, first.r) == (areas.b, areas.r):
    st.markdown(
        f"Both tuners choose **{areas.b} × {areas.r}** here: on this corpus the area "
        f"tuner's choice already reaches the recall target with the fewest candidates."
    )
else:
    st.markdown(
        f"The area tuner chooses **{areas.b} × {areas.r}** (predicted "
        f"{areas.candidates:,.0f} candidates, recall {pct(areas.recall)}); the recall tuner "
        f"**{first.b} × {first.r}** ({first.candidates:,.0f} candidates, recall "
        f"{pct(first.recall)}). They differ because the areas weigh every similarity from 0 "
        f"to t alike, while {comparison.low_share:.1%} of this corpus's pairs sit below "
        f"{comparison.low:g}, where every banding makes almost no candidates, and only "
        f"{comparison.near_share:.2%} within 0.1 of t — where the choice decides what is "
        "caught and what it costs."
    )
st.button(
    f"Use {first.b} bands × {first.r} rows",
    key="use_recall_choice",
    on_click=settings_ui.apply_settings,  # before the sidebar is drawn again
    kwargs={"auto_tune": False, "bands": first.b, "rows": first.r},
)
