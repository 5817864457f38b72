"""Clusters: groups of accepted pairs, and the check against each cluster's first document."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts_threshold, drawing, giants_view, pair_view, state
from nearsim_app.explorer.diff import diff_html
from nearsim_app.explorer.safe_text import html_block, md

from nearsim import pair_jaccard
from nearsim.clustering import cluster_table

st.title("Clusters")
st.markdown(
    "Accepted pairs (candidates whose estimate reaches t) join documents into **clusters**, "
    "and clusters are transitive: if A is like B and B is like C, all three are grouped. A "
    "chain of small edits can therefore join documents whose ends are not similar at all. "
    "The check compares every member with its cluster's **first document** (the one kept in "
    "its place); members below t leave and are grouped again among themselves, until every "
    "member is within t of the document kept for it — as `nearsim dedup --cluster-check true` "
    "does."
)

# Members shown, each in a box of its own that scrolls: whole manual pages, fifty of them,
# made a page 31,808 px tall.
MEMBERS_SHOWN = 20
MEMBER_STYLE = "font-size:0.92rem;line-height:1.5;max-height:10rem;overflow:auto"

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run

labels = run.get("clusters")
table = run.get("cluster_table")
check = st.toggle(
    "Check every member against its cluster's first document",
    key="cluster_check",
    help="Members whose exact Jaccard with the first document is below t leave, and are "
    "grouped again among themselves.",
)
detail = None
if check and len(table):
    detail, checked = run.get("check")
    kept_labels = checked
else:
    kept_labels = labels

m = st.columns(4)
m[0].metric("Clusters (2 or more documents)", f"{len(table):,}")
m[1].metric("Documents in clusters", f"{int(table['size'].sum()) if len(table) else 0:,}")
m[2].metric("Largest cluster", f"{int(table['size'].max()) if len(table) else 0:,}")
if detail is not None:
    m[3].metric("Members taken out by the check", f"{int((~detail['kept']).sum()):,}")
    after = cluster_table(kept_labels)
    st.caption(f"After the check: {len(after):,} clusters of two or more.")
else:
    m[3].metric("Documents alone", f"{docs.n - (int(table['size'].sum()) if len(table) else 0):,}")

if not len(table):
    st.info("No accepted pairs at these settings, so every document is alone.")
    st.stop()

giants_view.warn(page, on_clusters=True)
giants_view.by_group(
    page, kept_labels, what="after the member check" if detail is not None else "at these settings"
)
with st.expander("Cluster sizes", expanded=bool(len(run.get("giants").giants))):
    drawing.chart(charts_threshold.cluster_sizes, table["size"].to_numpy())
    st.caption(
        "How many clusters have each size, both axes logarithmic. Most near duplicates come "
        "in pairs and triples; a point far to the right is a family of templated documents "
        "or a chain."
    )

shown = table.head(500).copy()
shown["first document"] = [docs.labels[f] for f in shown["first"]]
shown["members"] = [
    ", ".join(docs.labels[x] for x in mem[:12]) + (" …" if len(mem) > 12 else "")
    for mem in shown["members"]
]
if detail is not None:
    lost = detail.loc[~detail["kept"]].groupby("cluster").size()
    shown["taken out"] = shown["cluster"].map(lost).fillna(0).astype(int)
st.dataframe(
    shown.drop(columns=["first"]),
    hide_index=True,
    width="stretch",
    height=280,
)
st.caption(
    f"All {len(table):,} clusters, largest first."
    if len(shown) == len(table)
    else f"The {len(shown):,} largest of {len(table):,} clusters."
)


st.subheader("One cluster, differences highlighted")
pick = st.selectbox(
    "Cluster",
    range(len(shown)),
    format_func=lambda q: (
        f"{shown['first document'].iloc[q]} and {int(shown['size'].iloc[q]) - 1} more"
    ),
    key="cluster_pick",
)
row = table.iloc[pick]
members = list(row["members"])[:MEMBERS_SHOWN]
first = members[0]
against = np.array([[first, d] for d in members[1:]], dtype=np.int64).reshape(-1, 2)
jaccard = np.concatenate([[1.0], pair_jaccard(run.get("tokens"), against)])
st.caption("Each member against the first document: words it added are green.")
for d, jac in zip(members, jaccard, strict=True):
    verdict = "" if jac >= settings.threshold else " — below t: the check takes it out"
    st.markdown(f"**{md(docs.labels[d])}** · exact Jaccard with the first {jac:.3f}{verdict}")
    body = (
        html_block(docs.texts[d]) if d == first else diff_html(docs.texts[first], docs.texts[d])[1]
    )
    st.markdown(f'<div style="{MEMBER_STYLE}">{body}</div>', unsafe_allow_html=True)
if len(row["members"]) > MEMBERS_SHOWN:
    st.caption(f"The first {MEMBERS_SHOWN} of {len(row['members']):,} members.")

if len(against):
    st.subheader("Why a member joined")
    st.markdown(
        "A member is in the cluster because a chain of accepted pairs links it to the first "
        "document; here is how it compares with the first document itself."
    )
    pair_view.pick_and_explain(
        page, pd.DataFrame(against, columns=["i", "j"]), "cluster_pair", "Explain a member"
    )

if detail is not None:
    with st.expander("Every checked member"):
        d = detail.copy()
        d["document"] = [docs.labels[x] for x in d["doc"]]
        st.dataframe(
            d[["document", "cluster", "jaccard_to_kept", "kept"]],
            hide_index=True,
            width="stretch",
        )
