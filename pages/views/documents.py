"""Documents: where the documents come from, how many there are, and what they look like."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts, drawing, launch, settings_ui, state
from nearsim_app.explorer.safe_text import md

from nearsim.io.documents import DOCUMENT_EXTENSIONS

st.title("Documents")
st.markdown(
    "Near-duplicate detection compares documents as **sets of shingles**. Pick a source "
    "in the sidebar: **Example** generates short news-like texts in which about a third "
    "are edited copies of earlier ones, **Paste** takes one document per line (or "
    "blank-line separated paragraphs), **CSV** takes one column of a file, **Files** "
    "makes each .txt, .md or .html file one document (HTML: visible text only — "
    "navigation, header, footer, sidebars and scripts are dropped), and **JSONL / "
    "Parquet** takes a field of your corpus — a random 20,000 documents of a bigger file. "
    "Everything stays on this computer."
)

ss = st.session_state
settings = settings_ui.current_settings()


def _store_csv() -> None:
    up = ss.get("upload_csv")
    ss[state.CSV_STATE] = (up.name, up.getvalue()) if up is not None else None
    ss.pop(state.CSV_COLUMN, None)


def _store_corpus() -> None:
    up = ss.get("upload_corpus")
    ss[state.CORPUS_STATE] = (
        (up.name, launch.save_upload(up.name, up.getvalue())) if up is not None else None
    )
    ss.pop(state.CORPUS_FIELD, None)


def _store_files() -> None:
    ups = ss.get("upload_files") or []
    ss[state.FILES_STATE] = [(u.name, u.getvalue()) for u in ups]


if settings.source == "paste":
    st.text_area(
        "Your documents",
        key=state.PASTE_KEY,
        height=260,
        placeholder="One document per line — or paragraphs separated by a blank line.",
        help="Kept in this browser's local storage so it is here next time; never uploaded "
        "and never put in a Share link.",
        persist_state="session",
    )
elif settings.source == "csv":
    st.file_uploader("CSV file", type=["csv", "tsv", "txt"], key="upload_csv", on_change=_store_csv)
    upload = ss.get(state.CSV_STATE)
    if upload:
        name, data = upload
        try:
            info, guess = state.csv_choices(data, ss.get(state.CSV_HEADER))
        except ValueError as exc:
            st.error(f"{md(name)}: {md(str(exc))}")
            st.stop()  # said once: the page's documents would repeat it
        if info is not None:
            st.caption(
                f"Using **{md(name)}** ({len(data):,} bytes, {info.rows:,} rows), kept in this "
                "browser. Upload another file to replace it."
            )
            if not info.has_header:
                st.info(info.why, icon=":material/table_rows:")
            header = st.toggle(
                "The first row names the columns",
                value=info.has_header,
                help="Detected from the file; turn it off if the first row is data.",
            )
            if header != info.has_header:
                ss[state.CSV_HEADER] = header
                ss.pop(state.CSV_COLUMN, None)
                st.rerun()
            columns = list(info.columns)
            if ss.get(state.CSV_COLUMN) not in columns:
                ss[state.CSV_COLUMN] = guess  # the column that looks most like text
            st.selectbox(
                "Text column",
                columns,
                key=state.CSV_COLUMN,
                help="Each non-empty cell of this column is one document. The column "
                "that looks most like text is chosen first.",
                persist_state="session",  # kept on pages that do not draw it
            )
elif settings.source == "corpus":
    st.file_uploader(
        "JSON lines or Parquet file",
        type=["jsonl", "ndjson", "json", "gz", "zst", "parquet"],
        key="upload_corpus",
        on_change=_store_corpus,
        help="One JSON object per line (also .jsonl.gz or .jsonl.zst), or a Parquet file. "
        "It is read on this computer; a file of more than 20,000 documents is sampled.",
    )
    paths, name = state.corpus_paths()
    if paths:
        try:
            fields, guess = state.corpus_info(tuple(paths), state.file_stamp(paths))
        except (ValueError, OSError) as exc:
            st.error(f"{md(name)}: {md(state.without_paths(exc, paths, name))}")
            st.stop()  # said once: the page's documents would repeat it
        if fields:
            if ss.get(state.CORPUS_FIELD) not in fields:
                given = launch.corpus_arguments().text_field
                ss[state.CORPUS_FIELD] = given if given in fields else guess
            given_id = launch.corpus_arguments().id_field
            if ss.get(state.CORPUS_ID) not in (state.NO_FIELD, *fields):
                ss[state.CORPUS_ID] = given_id if given_id in fields else state.NO_FIELD
            if ss.get(state.CORPUS_GROUP) not in (state.NO_FIELD, *fields):
                ss[state.CORPUS_GROUP] = state.NO_FIELD
            pick = st.columns(3)
            pick[0].selectbox(
                "Text field",
                list(fields),
                key=state.CORPUS_FIELD,
                help="The field holding each document's text; the one that looks most like "
                "text is chosen first.",
                persist_state="session",
            )
            pick[1].selectbox(
                "Id field",
                [state.NO_FIELD, *fields],
                key=state.CORPUS_ID,
                help="What to call each document in every pair and cluster list and in the "
                "exported command (--id-field); none: its line or row number.",
                persist_state="session",
            )
            pick[2].selectbox(
                "Group field",
                [state.NO_FIELD, *fields],
                key=state.CORPUS_GROUP,
                help="A field such as the source or site of each document: removal is "
                "shown per group, and a group losing most of its documents is named "
                "(--group-field).",
                persist_state="session",
            )
elif settings.source == "files":
    st.file_uploader(
        "Text, Markdown or HTML files",
        type=[e.lstrip(".") for e in DOCUMENT_EXTENSIONS],
        accept_multiple_files=True,
        key="upload_files",
        on_change=_store_files,
    )

settings, page, why = state.current()
if page is None:
    st.info(why)
    st.stop()

docs = page.docs
for problem in docs.problems:
    st.warning(md(problem))
counts = page.run.get("shingles").counts
below = ~page.run.get("valid")

st.caption(md(docs.summary))
c1, c2, c3, c4 = st.columns(4)
c1.metric("Documents", f"{docs.n:,}")
c2.metric("Median shingles per document", f"{np.median(counts):,.0f}")
# a minimum of 0 or 1 leaves out only documents without shingles: say that, not "1"
minimum = settings.min_shingles
left_out = (
    f"Documents with fewer than {minimum} shingles"
    if minimum > 1
    else ("Documents without shingles")
)
c3.metric(left_out, f"{int(below.sum()):,}")
if docs.parent is not None:
    c4.metric("Edited copies (Example)", f"{int((docs.parent >= 0).sum()):,}")
else:
    c4.metric("Characters in all", f"{sum(map(len, docs.texts)):,}")

st.subheader("Shingles per document")
drawing.chart(charts.shingle_histogram, counts, settings.min_shingles)
kind = "character" if settings.shingle_kind == "char" else "word"
st.caption(
    f"Distinct {kind} {settings.shingle_k}-grams per document. {left_out} get no "
    "signature and are left out of every pair"
    + ("." if minimum > 1 else "; raise Minimum shingles to leave out short ones too.")
)

if below.any():
    st.subheader(left_out)
    idx = np.flatnonzero(below)[:200]
    st.dataframe(
        pd.DataFrame(
            {
                "document": [docs.labels[i] for i in idx],
                "shingles": counts[idx],
                "text": [docs.texts[i][:300] for i in idx],
            }
        ),
        hide_index=True,
        width="stretch",
    )

st.subheader("Preview")
limit = min(docs.n, 500)
preview = pd.DataFrame(
    {
        "document": docs.labels[:limit],
        "shingles": counts[:limit],
        "text": [t[:400] for t in docs.texts[:limit]],
    }
)
if docs.parent is not None:
    preview.insert(
        1,
        "copy of",
        ["" if p < 0 else docs.labels[p] for p in docs.parent[:limit]],
    )
st.dataframe(preview, hide_index=True, width="stretch", height=360)
if docs.n > limit:
    st.caption(f"The first {limit} of {docs.n:,} documents.")
