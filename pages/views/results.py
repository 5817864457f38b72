"""Results: which real pairs the index finds and misses, against exact ground truth."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts, charts_teach, drawing, pair_view, state

st.title("Results")
st.markdown(
    "The **true pairs** are every pair whose exact Jaccard similarity reaches the threshold "
    "t — computed by comparing every pair for up to 2,500 documents, and by an exact "
    "similarity join (PPJoin: prefix, length and positional filtering, then verification) "
    "above that. **Candidates** are the pairs banding proposes. The usual second step "
    "keeps only candidates whose MinHash estimate reaches t; both stages are scored."
)

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run

ev = run.get("evaluation")


def pct(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1%}"


row1 = st.columns(4)
row1[0].metric(
    "Candidate pairs", f"{ev.candidates:,}", help="Pairs equal on at least one whole band."
)
row1[1].metric("True pairs (exact J ≥ t)", f"{ev.true_pairs:,}")
row1[2].metric(
    "Recall of the candidates", pct(ev.recall), help="True pairs that became candidates."
)
row1[3].metric(
    "Precision of the candidates", pct(ev.precision), help="Candidates that are true pairs."
)
row2 = st.columns(4)
row2[0].metric(
    "Kept after the estimate filter",
    f"{ev.accepted:,}",
    help="Candidates whose MinHash estimate is at least t.",
)
row2[1].metric("True pairs kept", f"{ev.true_accepted:,}")
row2[2].metric("Recall after the filter", pct(ev.recall_filtered))
row2[3].metric("Precision after the filter", pct(ev.precision_filtered))
st.caption(
    f"Threshold t = {settings.threshold:g}; {settings.bands} bands × {settings.rows} rows "
    f"per band of a {settings.num_perm}-value signature; {int(run.get('valid').sum()):,} of "
    f"{docs.n:,} documents have a signature."
)

truth = ev.true_table
if len(truth):
    drawing.chart(charts.found_by_similarity, truth, truth["found"].to_numpy())
    st.caption("True pairs by exact similarity: found by banding, or missed.")


def side_by_side(df: pd.DataFrame, value_cols: list[str], limit: int = 100) -> pd.DataFrame:
    rows = df.head(limit)
    return pd.DataFrame(
        {
            "first": [docs.labels[i] for i in rows["i"]],
            "second": [docs.labels[j] for j in rows["j"]],
            **{c: rows[c].round(3).to_numpy() for c in value_cols},
            "first text": [docs.texts[i][:500] for i in rows["i"]],
            "second text": [docs.texts[j][:500] for j in rows["j"]],
        }
    )


def missed_pairs() -> None:
    st.markdown(
        f"**{len(ev.missed):,}** true pairs never shared a whole band — lower the "
        "false-positive weight in the sidebar (the tuner then fears misses more), or use more "
        "bands of fewer rows, to catch them."
    )
    if len(ev.missed):
        missed = ev.missed.sort_values("jaccard", ascending=False)
        st.dataframe(side_by_side(missed, ["jaccard"]), hide_index=True, width="stretch")
        st.caption(f"The {min(100, len(missed))} most similar of {len(missed):,} missed pairs.")
        pair_view.pick_and_explain(page, missed.head(100), "missed_pick", "Explain a missed pair")
    else:
        st.success("Banding found every true pair.")


def false_candidates() -> None:
    st.markdown(
        f"**{len(ev.false_candidates):,}** candidates have an exact similarity below t: work "
        "the second step has to throw away."
    )
    if len(ev.false_candidates):
        table = ev.candidate_table.assign(jaccard=run.get("candidate_jaccard"))
        fc = table[~table["true"]].sort_values("estimate", ascending=False).head(100)
        st.dataframe(side_by_side(fc, ["estimate", "jaccard"]), hide_index=True, width="stretch")
        st.caption(
            f"The {len(fc)} highest-estimate of {len(ev.false_candidates):,} false candidates, "
            "with their exact similarity."
        )
        pair_view.pick_and_explain(page, fc, "false_pick", "Explain a false candidate")
    else:
        st.success("Every candidate is a true pair.")


def estimates() -> None:
    table = ev.candidate_table
    if not len(table):
        st.info("No candidates at these settings.")
        return
    table = table.assign(jaccard=run.get("candidate_jaccard"))
    shown = table.sample(2000, random_state=0) if len(table) > 2000 else table.copy()
    shown["verdict"] = np.select(
        [shown["true"] & shown["accepted"], shown["true"], shown["accepted"]],
        ["true pair, accepted", "true pair, rejected by estimate", "false, accepted"],
        default="false, rejected",
    )
    drawing.chart(charts.estimate_vs_exact, shown, settings.threshold)
    st.caption(
        "Each candidate's MinHash estimate against its exact similarity; the dashed lines "
        f"are t = {settings.threshold:g}."
        + (f" A random 2,000 of {len(table):,} candidates." if len(table) > 2000 else "")
    )


def how_exact() -> None:
    st.markdown(
        "An exact join does not compare every pair: it cuts away pairs that cannot reach t "
        "before verifying the rest. **Prefix filter**: sort each document's shingles from "
        "rarest to commonest; two documents that reach t must share one of the first few — "
        "their prefix. **Length filter**: a set of size x cannot reach t with one smaller "
        "than t·x. **Positional filter**: where in the two prefixes the shared shingle sits "
        "bounds how many more they can share. A bitmap of each set bounds the overlap "
        "without reading the shingles, and what is left is verified exactly."
    )
    funnel = run.get("funnel")
    drawing.chart(charts_teach.join_funnel, funnel.frame())
    st.caption(
        f"Pairs left after each step of the exact join at t = {settings.threshold:g}, from "
        "all pairs of documents to the true pairs (log scale)."
    )


tabs = st.tabs(
    ["Missed pairs", "False candidates", "Estimate against exact", "How the truth is computed"],
    key="results_tab",
    on_change="rerun",  # lazy: only the open tab's content is computed
)
for tab, draw in zip(tabs, (missed_pairs, false_candidates, estimates, how_exact), strict=True):
    if tab.open is not False:
        with tab:
            draw()
