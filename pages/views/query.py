"""Query: one document against the loaded documents or an index — its matches with their
estimates, exact Jaccard and the pair explainer, and the true neighbours it would miss."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts_teach, drawing, launch, pair_view, state
from nearsim_app.explorer.safe_text import md

from nearsim.hashing import text_shingles
from nearsim.join.exact import pair_jaccard
from nearsim.join.overlap import overlaps_with
from nearsim.run.signing import sign_batch
from nearsim.shingling import shingles as shingles_of

LOADED = "The loaded documents"
PICK, PASTE = "Pick a loaded document", "Paste a text"
MAX_SCAN = 2_000_000  # stored signatures read to look for an index's misses (512 MB at k = 128)
SCAN_CHUNK = 100_000

st.title("Query")
st.markdown(
    "Check one document the way a filter in front of a database does: which documents would "
    "it be called a duplicate of? A **match** shares a whole band with it (so a lookup finds "
    "it) and its MinHash estimate reaches the threshold. Beside the matches: the documents "
    "it **would miss** — true neighbours (exact Jaccard at or above the threshold) that "
    "share no band, so no lookup ever finds them."
)

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run
index_path = launch.index_argument()
targets = [LOADED] + ([f"The index in {index_path}"] if index_path else [])
target = st.radio("Look for matches among", targets, key="query_target", horizontal=True)
how = st.radio("The document", [PICK, PASTE], key="query_how", horizontal=True)

if how == PICK:
    me = st.selectbox(
        "Document", range(docs.n), format_func=lambda i: docs.labels[i], key="query_doc"
    )
    text = docs.texts[me]
    st.text_area("Its text", text, height=120, disabled=True, key=f"query_shown_{me}")
else:
    me = None
    text = st.text_area(
        "Text", key="query_text", height=160, placeholder="Paste the text of a new document"
    )
    if not text.strip():
        st.info("Paste a text to see its matches.")
        st.stop()


def table(frame: pd.DataFrame) -> None:
    three = {
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("estimate", "exact Jaccard")
        if c in frame.columns
    }
    st.dataframe(frame, hide_index=True, width="stretch", column_config=three)


def jaccard_to(mine: set, others) -> np.ndarray:
    return np.array([len(mine & o) / len(mine | o) if mine | o else 0.0 for o in others])


# -- against the loaded documents ------------------------------------------------------------
def against_loaded() -> None:
    sig, valid, sh = run.get("signatures"), run.get("valid"), run.get("shingles")
    b, r, t = settings.bands, settings.rows, settings.threshold
    opts = settings.shingle_options()
    if me is None:
        q_valid, q_sig, _ = sign_batch([text], settings.run_settings())
        q_valid, q_sig = bool(q_valid[0]), q_sig[0]
        mine = set(shingles_of(text, **opts))
        q_label = "Your text"
    else:
        q_valid, q_sig, mine = bool(valid[me]), sig[me], set(sh.shingles_of(me))
        q_label = docs.labels[me]
    agree = sig == q_sig
    estimate = agree.mean(axis=1)
    bands = agree[:, : b * r].reshape(docs.n, b, r).all(axis=2).sum(axis=1)
    others = np.ones(docs.n, dtype=bool)
    if me is not None:
        others[me] = False
    usable = others & valid & q_valid
    candidate = usable & (bands > 0)
    match = candidate & (estimate >= t)
    if me is None:  # from the shingles' bytes: no Python string per shingle
        inter, size = overlaps_with(sh.flat, text_shingles([text], **opts))
        exact = inter / np.maximum(sh.counts + size - inter, 1)
    else:  # the interned tokens the other pages share: no Python string per shingle
        every = np.stack([np.full(docs.n, me, np.int64), np.arange(docs.n)], axis=1)
        exact = pair_jaccard(run.get("tokens"), every)
    true = usable & (exact >= t)
    missed = true & ~candidate
    if not q_valid:
        st.warning(
            "This document has too few shingles for a signature: it matches nothing. Lower "
            "the minimum number of shingles or the shingle size to give it one."
        )
    m = st.columns(4)
    m[0].metric("Matches", f"{int(match.sum()):,}")
    m[1].metric(f"True neighbours (J ≥ {t:g})", f"{int(true.sum()):,}")
    m[2].metric("Would miss (share no band)", f"{int(missed.sum()):,}")
    m[3].metric("Matches below t in exact Jaccard", f"{int((match & ~true).sum()):,}")

    def rows(mask) -> pd.DataFrame:
        pick = np.flatnonzero(mask)
        pick = pick[np.argsort(-estimate[pick], kind="stable")]
        return pd.DataFrame({
            "doc": pick, "document": [docs.labels[i] for i in pick],
            "estimate": estimate[pick], "exact Jaccard": exact[pick], "whole bands": bands[pick],
        })  # fmt: skip

    found, lost = rows(match), rows(missed)
    left, right = st.columns(2)
    with left:
        st.subheader("Matches")
        if len(found):
            table(found.drop(columns="doc"))
        else:
            st.caption("No loaded document shares a whole band and reaches the threshold.")
    with right:
        st.subheader("Would miss")
        if len(lost):
            table(lost.drop(columns="doc"))
        else:
            st.caption("Every true neighbour shares a band: nothing missed.")
    shown = pd.concat([found, lost], ignore_index=True)
    if not len(shown):
        return
    names = [
        f"{d} ({'match' if k < len(found) else 'missed'}, estimate {e:.3f})"
        for k, (d, e) in enumerate(zip(shown["document"], shown["estimate"], strict=True))
    ]
    pick = st.selectbox("Explain", range(len(shown)), format_func=names.__getitem__,
                        key="query_explain")  # fmt: skip
    j = int(shown["doc"][pick])
    pair_view.explain_texts(
        settings,
        (q_label, text, sorted(mine), q_sig, q_valid),
        (docs.labels[j], docs.texts[j], sh.shingles_of(j), sig[j], bool(valid[j])),
    )


# -- against an index ------------------------------------------------------------------------
def against_index(path: str) -> None:
    import nearsim as ns

    try:
        idx = ns.Index.open(path)
    except ValueError as exc:
        st.error(f"The index cannot be opened: {md(str(exc))}")
        return
    s = idx.settings
    run_now = settings.run_settings()
    if s.run_settings() != run_now:
        st.info(
            f"The index keeps the settings it was built with ({s.shingle_kind} {s.shingle_k}-"
            f"grams, k = {s.num_perm}, t = {s.threshold:g}, {s.bands} bands × {s.rows} rows); "
            "its matches use those, not the sidebar's."
        )
    signed = idx.sign([text])
    found = idx.query_signed(signed)
    k = s.num_perm
    positions = found.position
    estimate = found.count / k
    ids = idx.ids(positions) if len(positions) else []
    opts = s.shingle_options()
    mine = set(shingles_of(text, **opts))
    exact = (
        jaccard_to(mine, (set(shingles_of(x, **opts)) for x in idx.texts(positions)))
        if idx.keep_texts and len(positions)
        else np.full(len(positions), np.nan)
    )
    m = st.columns(3)
    m[0].metric(f"Matches among {len(idx):,} indexed", f"{len(positions):,}")
    m[1].metric("Exact copies", f"{int(found.copy.sum()):,}")
    m[2].metric("Stored texts", "kept" if idx.keep_texts else "not kept")
    if not signed.valid[0]:
        st.warning("This text has too few shingles for a signature: it matches nothing.")
    frame = pd.DataFrame({
        "position": positions, "id": ids, "estimate": estimate, "exact Jaccard": exact,
    })  # fmt: skip
    st.subheader("Matches")
    if len(frame):
        table(frame if idx.keep_texts else frame.drop(columns="exact Jaccard"))
    else:
        st.caption("No indexed document shares a whole band and reaches the threshold.")
    st.caption(
        "An exact copy (the same text after normalisation) matches its text's first stored "
        "occurrence only. In a bucket of more than "
        f"{idx.bucket_limit} stored documents, a lookup compares with the bucket's first and "
        "latest member only, as `nearsim dedup` does, so a boilerplate page copied a million "
        "times costs two comparisons."
    )
    st.subheader("Would miss")
    if len(idx) > MAX_SCAN:
        st.caption(f"The index is too large ({len(idx):,} documents) to read every signature.")
        missed = None
    elif st.toggle("Look for the documents it would miss (reads every stored signature)",
                   key="query_scan"):  # fmt: skip
        missed = scan_misses(idx, signed.sig[0], s)
        if not len(missed):
            st.caption(
                "No stored document reaches the threshold without sharing a band: nothing "
                "missed (by the estimate; exact Jaccard needs the texts)."
            )
        else:
            st.caption(
                "Stored documents whose estimate reaches the threshold but that share no "
                "whole band with the text: no lookup finds them."
            )
            table(missed)
    else:
        missed = None
    choices = list(frame.itertuples(index=False))
    if missed is not None:
        choices += list(missed.itertuples(index=False))
    if not choices or not signed.valid[0]:
        return
    pick = st.selectbox(
        "Explain", range(len(choices)), key="query_index_explain",
        format_func=lambda c: f"{choices[c].id} (position {choices[c].position}, estimate "
        f"{choices[c].estimate:.3f})",
    )  # fmt: skip
    position = int(choices[pick].position)
    e = idx.explain(text, position)
    st.markdown(e.summary())
    if idx.keep_texts:
        other = idx.texts([position])[0]
        pair_view.explain_texts(
            s,
            ("Your text", text, sorted(mine), signed.sig[0], bool(signed.valid[0])),
            (e.id, other, sorted(set(shingles_of(other, **opts))),
             idx.signatures([position])[0], e.valid),
        )  # fmt: skip
    else:
        drawing.chart(charts_teach.band_grid, e.band_rows, e.full_bands)
        st.caption(
            f"The {k}-value signatures cut into {s.bands} bands of {s.rows} rows: a band whose "
            "cells all agree puts the two in one bucket. The index keeps no texts, so the "
            "shingles and the exact Jaccard are not shown (build it with --keep-texts)."
        )


def scan_misses(idx, q_sig: np.ndarray, s) -> pd.DataFrame:
    """Stored documents with estimate ≥ t that share no whole band with ``q_sig``."""
    b, r, t = s.bands, s.rows, s.threshold
    found_pos, found_est = [], []
    for lo in range(0, len(idx), SCAN_CHUNK):
        pos = np.arange(lo, min(lo + SCAN_CHUNK, len(idx)))
        agree = idx.signatures(pos) == q_sig
        est = agree.mean(axis=1)
        whole = agree[:, : b * r].reshape(len(pos), b, r).all(axis=2).any(axis=1)
        hit = (est >= t) & ~whole & idx.valid(pos)
        found_pos.append(pos[hit])
        found_est.append(est[hit])
    pos = np.concatenate(found_pos)
    return pd.DataFrame({
        "position": pos, "id": idx.ids(pos) if len(pos) else [],
        "estimate": np.concatenate(found_est),
    })  # fmt: skip


if target == LOADED:
    against_loaded()
else:
    against_index(str(Path(index_path)))
