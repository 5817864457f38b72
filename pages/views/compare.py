"""Compare: SimHash against exact Jaccard on the user's own data, next to MinHash LSH."""

from __future__ import annotations

import math

import streamlit as st
from nearsim_app.explorer import charts, drawing, state

st.title("Compare: SimHash")
st.markdown(
    "A SimHash fingerprint is 64 bits per document, and two near-identical documents differ "
    "in few bits. It is cheap to store and to search at small distances, which suits "
    '"almost identical" (its original use was crawled web pages at distance 3). But a '
    "pair at Jaccard 0.5 is typically 15–20 bits apart, where no distance cut-off both "
    "finds it and keeps chance matches out. MinHash with banding is the tool for "
    '"similar enough". This page shows both on your documents.'
)

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run

fps = run.get("fingerprints")
valid = run.get("valid")
comparison = run.get("compare")
table = comparison.table
d = settings.simhash_distance


def pct(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.1%}"


at = table[table["d"] == min(d, int(table["d"].max()))].iloc[0]
lsh = comparison.lsh or {}
m = st.columns(4)
m[0].metric(f"SimHash ≤ {d} bits: recall", pct(at["recall"]))
m[1].metric(f"SimHash ≤ {d} bits: precision", pct(at["precision"]))
m[2].metric("MinHash LSH: recall", pct(lsh.get("recall", float("nan"))))
m[3].metric("MinHash LSH: precision", pct(lsh.get("precision", float("nan"))))
drawing.chart(charts.compare_curves, table, lsh)
st.caption(
    f'Recall and precision of "SimHash distance ≤ d" against exact Jaccard ≥ '
    f"{settings.threshold:g} over all {comparison.total_pairs:,} pairs, for d = 0 … 24; the "
    f"dashed lines are MinHash LSH candidates at {settings.bands} bands × {settings.rows} rows."
)

st.subheader("Distance against similarity")
dist = run.get("distance_pairs")
drawing.chart(charts.distance_scatter, dist, settings.threshold)
similar = int((dist["jaccard"] >= 0.2).sum())
st.caption(
    f"SimHash distance against exact Jaccard similarity: {similar:,} pairs with J ≥ 0.2 and "
    f"{len(dist) - similar:,} below, drawn at random from the similarity sample."
)

st.subheader("Is the hash healthy?")
st.markdown(
    "A job board once deduplicated its postings with a SimHash whose 64 bits were really 31, "
    "many of which never moved: unrelated job posts looked like duplicates — 174 went in, 8 "
    "came out. The right column is that broken hash on your documents. Test the "
    "hash, not only the dedupe: unrelated documents should sit near 32 bits apart, and "
    "every bit should be set in about half of them."
)
ours = run.get("health")
broken = run.get("broken_health")
left, right = st.columns(2)
with left:
    st.metric(
        f"Ours: mean distance of {ours.documents:,} documents", f"{ours.mean_distance:.1f} of 64"
    )
    st.markdown("**Our SimHash**: share of documents with each bit set")
    drawing.chart(charts.bit_shares, ours.bit_share)
    st.caption(ours.verdict)
with right:
    st.metric(
        f"The job board's broken hash: mean distance of {broken.documents:,} documents",
        f"{broken.mean_distance:.1f} of 64",
    )
    st.markdown("**The job board's broken hash**: share of documents with each bit set")
    drawing.chart(charts.bit_shares, broken.bit_share)
    st.caption(broken.verdict)

st.subheader("One-by-one replay")
kept = run.get("replay")
kept_broken = run.get("broken_replay")
n = int(valid.sum())
r1, r2 = st.columns(2)
r1.metric(f"Our hash, distance ≤ {d}: kept", f"{len(kept):,} of {n:,}")
r2.metric("The broken hash, distance ≤ 12: kept", f"{len(kept_broken):,} of {n:,}")
st.caption(
    "Documents inserted one by one into an empty store, each kept only if nothing stored is "
    "within the distance — what a dedup filter in front of a database does."
)
