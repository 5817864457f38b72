"""Audit: how good was a finished deduplication — a `nearsim dedup` output folder or another
tool's cluster table — measured against exact Jaccard on a sample of the corpus."""

from __future__ import annotations

import os
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st
from nearsim_app.explorer import state
from nearsim_app.explorer.diff import side_by_side
from nearsim_app.explorer.safe_text import md

st.title("Audit")
st.markdown(
    "The other views measure settings on a sample that fits in this page. This one measures "
    "a deduplication that was **actually run** on a whole corpus — by `nearsim dedup` or by "
    "another tool (datatrove, NeMo Curator, text-dedup, …). It draws documents at random, "
    "compares them exactly with the documents the run kept or grouped them with, and "
    "reports **precision** (removed documents really within the threshold of the one kept) "
    "and **recall** (true pairs put in one cluster), each with a 95% interval, the removal "
    "per source, the cluster sizes, and the largest clusters with their least similar member."
)

paths, _name = state.corpus_paths()
corpus = st.text_input(
    "Corpus (files or folders; several separated by ;)",
    value=";".join(paths),
    key="audit_corpus",
    help="The documents the run read, in the same order.",
)
mode = st.radio(
    "What to audit",
    ["A `nearsim dedup` output folder", "Another tool's cluster table"],
    horizontal=True,
    key="audit_mode",
)
ours = mode.startswith("A ")
c = st.columns(3)
if ours:
    target = c[0].text_input("Output folder (`--out` of the run)", key="audit_run")
    cluster_field = None
else:
    target = c[0].text_input("Cluster table (Parquet, CSV or JSON lines)", key="audit_table")
    cluster_field = c[1].text_input("Its cluster column", value="cluster", key="audit_cfield")
text_field = c[2].text_input("Text field", value="text", key="audit_tfield")
c = st.columns(4)
id_field = c[0].text_input("Id field (empty: row numbers)", key="audit_ifield") or None
group_field = c[1].text_input("Group field (optional)", key="audit_gfield") or None
keep_apart = c[2].text_input("Keep-apart field (optional)", key="audit_kfield") or None
sample = c[3].number_input("Sample size", 10, 1_000_000, 2000, step=500, key="audit_sample")


def _stamp(items: list[str]) -> tuple:
    out = []
    for item in items:
        try:
            info = os.stat(item)
            out.append((item, info.st_size, info.st_mtime_ns))
        except OSError:
            out.append((item, None, None))
    return tuple(out)


@st.cache_data(max_entries=4, show_spinner="Auditing the run: reading the corpus once…")
def _audit(corpus: tuple, target: str, ours: bool, cluster_field, text_field, id_field,
           group_field, keep_apart, sample: int, _stamp_key: tuple) -> dict:  # fmt: skip
    from nearsim.audit.run import audit

    return audit(
        list(corpus),
        run=target if ours else None,
        clusters=None if ours else target,
        cluster_field=cluster_field,
        text_field=text_field,
        id_field=id_field,
        group_field=group_field,
        keep_apart=keep_apart,
        sample=int(sample),
    )


items = [p.strip() for p in corpus.split(";") if p.strip()]
go = st.button("Audit", type="primary", key="audit_go", disabled=not (items and target))
key = (tuple(items), target.strip(), ours, cluster_field, text_field, id_field, group_field,
       keep_apart, int(sample))  # fmt: skip
if go:
    st.session_state["audit_args"] = key
if st.session_state.get("audit_args") != key:
    st.info("Give the corpus and the run, then press **Audit**.")
    st.stop()
missing = [p for p in [*items, target.strip()] if not Path(p).exists()]
if missing:
    st.error(f"{md(missing[0])} does not exist: give a file or folder on this computer.")
    st.stop()
try:
    result = _audit(*key, _stamp([*items, target.strip()]))
except ValueError as exc:  # the library says what was wrong and what is accepted
    st.error(f"This cannot be audited: {md(str(exc))}")
    st.stop()


def _pct(v) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


p, r, rem = result["precision"], result["recall"], result["removed"]
t = result["threshold"]
m = st.columns(4)
m[0].metric("Precision", _pct(p["estimate"]), help="Removed documents within t of the kept one")
m[0].caption(f"95% interval {_pct(p['low'])} – {_pct(p['high'])}; {p['checked']:,} checked")
m[1].metric("Recall", _pct(r["estimate"]), help="True pairs (J ≥ t) put in one cluster")
m[1].caption(f"95% interval {_pct(r['low'])} – {_pct(r['high'])}; {r['true_pairs']:,} true pairs")
m[2].metric("Removed", f"{rem['removed']:,}", help="Documents not kept")
m[2].caption(f"of {rem['documents']:,} documents ({_pct(rem['share'])})")
m[3].metric("Largest cluster", f"{result['clusters']['largest']:,}")
m[3].caption(f"{result['clusters']['count']:,} clusters of two or more; t = {t:g}")
for alarm in result["alarms"]:
    st.warning(md(alarm))  # alarms quote groups and ids from the corpus: shown as text
if not result["alarms"]:
    st.success("Nothing alarming: no chain among the largest clusters, no group mostly "
               "removed, both intervals above 0.9.")  # fmt: skip

hist = pd.DataFrame(result["clusters"]["size_histogram"], columns=["size", "clusters"])
if len(hist):
    chart = (
        alt.Chart(hist)
        .mark_circle(size=60)
        .encode(
            x=alt.X("size:Q", scale=alt.Scale(type="log"), title="documents in the cluster"),
            y=alt.Y("clusters:Q", scale=alt.Scale(type="log"), title="clusters of that size"),
            tooltip=["size", "clusters"],
        )
        .properties(height=260)
    )
    st.altair_chart(chart, use_container_width=True)
    st.caption("Cluster sizes on log-log axes: a dot far to the right is a giant cluster.")

if rem.get("by_group"):
    groups = pd.DataFrame(
        [{"value": v or "(empty)", **g} for v, g in rem["by_group"].items()]
    ).rename(columns={"share": "share removed"})
    st.subheader(f"Removal per {rem['group_field']}")
    st.dataframe(groups, hide_index=True, width="stretch", height=240)

st.subheader("The largest clusters and the worst pairs")
choices = {}
texts = result.get("_texts", {})
for g in result["giant_clusters"]:
    kept, least = texts.get(g["cluster"], ("", ""))
    label = (f"cluster {g['cluster']} ({g['size']:,} documents): least similar member, "
             f"J = {g['min_similarity_to_kept']:.2f}")  # fmt: skip
    choices[label] = (g["cluster"], kept, g["least_similar_row"], least,
                      g["min_similarity_to_kept"])  # fmt: skip
for w in result.get("_worst", []):
    if w.get("text") is not None:
        label = f"removed row {w['row']} against kept row {w['kept']}: J = {w['jaccard']:.2f}"
        choices[label] = (w["kept"], w["kept_text"], w["row"], w["text"], w["jaccard"])
if choices:
    pick = st.selectbox("Explain a pair", list(choices), key="audit_pick")
    kept_row, kept_text, row, text, jac = choices[pick]
    side_by_side(f"kept (row {kept_row})", kept_text, f"removed (row {row})", text)
    st.caption(
        f"Exact Jaccard of their shingles: **{jac:.3f}** against the threshold {t:g}. Words only "
        "in the kept document are struck through in red; words only in the removed one are "
        "green."
    )
else:
    st.info("The run removed nothing, so there is no pair to explain.")

from nearsim.audit.report import html_report  # noqa: E402

st.download_button(
    "Download the report (one HTML file)",
    html_report(result),
    file_name="audit-report.html",
    mime="text/html",
    key="audit_download",
)
st.caption(md(f"Audited: {result['source']}. Sample seed {result['sample']['seed']}."))
