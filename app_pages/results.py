"""Results: which real pairs the index finds and misses, against exact ground truth."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from explorer import charts, state
from explorer.diff import side_by_side as show_pair

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
shingled = run.get("shingles")


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
    st.altair_chart(charts.found_by_similarity(truth, truth["found"].to_numpy()), width="stretch")
    st.caption("True pairs by exact similarity: found by banding, or missed.")


def exact_jaccard(i: int, j: int) -> float:
    a, b = set(shingled.shingles_of(i)), set(shingled.shingles_of(j))
    union = len(a | b)
    return len(a & b) / union if union else 0.0


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


def pair_detail(df: pd.DataFrame, key: str) -> None:
    """Pick one pair of the table and read both texts side by side."""
    rows = df.reset_index(drop=True)
    pick = st.selectbox(
        "Read a pair side by side",
        range(len(rows)),
        format_func=lambda q: f"{docs.labels[rows['i'][q]]} and {docs.labels[rows['j'][q]]}",
        key=key,
    )
    i, j = int(rows["i"][pick]), int(rows["j"][pick])
    show_pair(docs.labels[i], docs.texts[i], docs.labels[j], docs.texts[j])
    st.caption(
        "Words only in the first are struck through in red; words only in the second are green."
    )


def missed_pairs() -> None:
    st.markdown(
        f"**{len(ev.missed):,}** true pairs never shared a whole band — raise the "
        "false-negative weight, or use more bands of fewer rows, to catch them."
    )
    if len(ev.missed):
        missed = ev.missed.sort_values("jaccard", ascending=False)
        st.dataframe(side_by_side(missed, ["jaccard"]), hide_index=True, width="stretch")
        st.caption(f"The {min(100, len(missed))} most similar of {len(missed):,} missed pairs.")
        pair_detail(missed.head(100), "missed_pick")
    else:
        st.success("Banding found every true pair.")


def false_candidates() -> None:
    st.markdown(
        f"**{len(ev.false_candidates):,}** candidates have an exact similarity below t: work "
        "the second step has to throw away."
    )
    if len(ev.false_candidates):
        fc = ev.false_candidates.sort_values("estimate", ascending=False).head(100).copy()
        fc["jaccard"] = [exact_jaccard(i, j) for i, j in zip(fc["i"], fc["j"], strict=True)]
        st.dataframe(side_by_side(fc, ["estimate", "jaccard"]), hide_index=True, width="stretch")
        st.caption(
            f"The {len(fc)} highest-estimate of {len(ev.false_candidates):,} false candidates, "
            "with their exact similarity."
        )
        pair_detail(fc, "false_pick")
    else:
        st.success("Every candidate is a true pair.")


def estimates() -> None:
    table = ev.candidate_table
    if not len(table):
        st.info("No candidates at these settings.")
        return
    shown = table.sample(2000, random_state=0) if len(table) > 2000 else table.copy()
    known = ev.true_table.set_index(["i", "j"])["jaccard"]
    key = pd.MultiIndex.from_arrays([shown["i"], shown["j"]])
    jac = known.reindex(key).to_numpy(dtype=np.float64, copy=True)  # writable under pandas 3
    for q in np.flatnonzero(np.isnan(jac)):
        jac[q] = exact_jaccard(int(shown["i"].iloc[q]), int(shown["j"].iloc[q]))
    shown["jaccard"] = jac
    shown["verdict"] = np.select(
        [shown["true"] & shown["accepted"], shown["true"], shown["accepted"]],
        ["true pair, accepted", "true pair, rejected by estimate", "false, accepted"],
        default="false, rejected",
    )
    st.altair_chart(charts.estimate_vs_exact(shown, settings.threshold), width="stretch")
    st.caption(
        "Each candidate's MinHash estimate against its exact similarity; the dashed lines "
        f"are t = {settings.threshold:g}."
        + (f" A random 2,000 of {len(table):,} candidates." if len(table) > 2000 else "")
    )


tabs = st.tabs(
    ["Missed pairs", "False candidates", "Estimate against exact"],
    key="results_tab",
    on_change="rerun",  # lazy: only the open tab's content is computed
)
for tab, draw in zip(tabs, (missed_pairs, false_candidates, estimates), strict=True):
    if tab.open is not False:
        with tab:
            draw()
