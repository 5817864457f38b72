"""Banding: the S-curve, what it costs, the tuner, and measured candidate rates."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import charts, state
from nearsim.lsh import (
    candidate_probability,
    effective_threshold,
    false_negative_area,
    false_positive_area,
    steepest_point,
    tune,
)

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
fp, fn = false_positive_area(t, b, r), false_negative_area(t, b, r)

m = st.columns(5)
m[0].metric("Bands × rows per band", f"{b} × {r}", help="b bands, each of r signature values")
m[1].metric("P(candidate) at t", f"{candidate_probability(t, b, r):.3f}")
m[2].metric("Steepest point", f"{steepest_point(b, r):.3f}")
m[3].metric(
    "(1/b)^(1/r)",
    f"{effective_threshold(b, r):.3f}",
    help="The usual rule of thumb for where the curve rises.",
)
m[4].metric(
    "Signature values unused", f"{k - b * r}", help="k − b·r values take no part in banding."
)

rates = None
if page is not None:
    try:
        rates = page.run.get("rates")
    except ValueError as exc:
        st.error(f"Measured rates are not available: {exc}")

st.altair_chart(charts.s_curve(b, r, t, rates), width="stretch")
caption = (
    f"The S-curve for {b} bands of {r} rows; false-positive area {fp:.4f}, false-negative "
    f"area {fn:.4f}."
)
if rates is not None:
    sampled = bool(rates["sampled"].any())
    caption += (
        " Points: the measured share of pairs in each 0.05 band of exact similarity that "
        "became candidates (bars: ±2 standard errors of the S-curve's expectation)."
        + (" Triangles are measured on a random sample of pairs." if sampled else "")
    )
else:
    caption += " Load documents to see measured candidate rates on your data."
st.caption(caption)

if rates is not None:
    with st.expander("Measured rates per similarity band"):
        shown = rates.rename(
            columns={
                "lo": "from",
                "hi": "to",
                "pairs": "pairs in band",
                "candidates": "became candidates",
                "rate": "measured rate",
                "expected": "S-curve expects",
                "expected_se": "standard error",
            }
        )
        st.dataframe(shown, hide_index=True, width="stretch")
        if rates["sampled"].any():
            st.caption(
                "Bands marked sampled are measured on a uniform random sample of all pairs; "
                "the others count every pair."
            )

st.subheader("Pick b and r for me")
st.markdown(
    "The tuner tries every b × r ≤ k and ranks them by w·FP + (1 − w)·FN, the weighted "
    "sum of the two areas — the same choice datasketch's MinHashLSH makes. Turn on **Pick "
    "bands and rows for me** in the sidebar to use its first choice, and slide the "
    "**false-positive weight** down to miss fewer pairs (at the cost of more candidates to "
    "check)."
)
choices = tune(t, k, settings.fp_weight, 1 - settings.fp_weight)
table = pd.DataFrame(choices, columns=["b", "r", "fp", "fn", "error"])
table.insert(0, "rank", range(1, len(table) + 1))
table["P(t)"] = 1 - (1 - t ** table["r"]) ** table["b"]
best8 = table.head(8).rename(
    columns={
        "b": "bands b",
        "r": "rows per band r",
        "fp": "false-positive area",
        "fn": "false-negative area",
        "error": "weighted error",
    }
)
left, right = st.columns([3, 2])
with left:
    st.dataframe(best8, hide_index=True, width="stretch")
    st.caption(
        f"The best eight of {len(table):,} choices for t = {t:g}, k = {k}, "
        f"false-positive weight {settings.fp_weight:g}."
    )
with right:
    st.altair_chart(charts.tuner_scatter(table, (b, r)), width="stretch")
    st.caption("Every choice's two areas; the best eight and the banding in use are marked.")
