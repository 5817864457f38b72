"""Shingles & MinHash: a document's shingles, the hash functions, and what a signature is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer import state
from nearsim.minhash import MinHasher, estimate_jaccard, standard_error

st.title("Shingles & MinHash")
st.markdown(
    "Each distinct shingle is hashed once with MurmurHash3 (32 bits), then by k hash "
    "functions h_i(x) = (a_i·x + b_i) mod (2³¹ − 1) with seeded a_i and b_i; the "
    "**signature** keeps each function's minimum over the document's shingles. Two "
    "signatures agree at a position with probability equal to the Jaccard similarity of "
    "the two shingle sets, so the share of agreeing positions estimates it, with "
    "standard error √(J(1 − J)/k)."
)

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run

shingled = run.get("shingles")
hasher = MinHasher(settings.num_perm, settings.hash_seed)


def _label(i: int) -> str:
    text = docs.texts[i].replace("\n", " ")
    return f"{docs.labels[i]} — {text[:70]}{'…' if len(text) > 70 else ''}"


st.subheader("A document's shingles")
doc = st.selectbox(
    "Document", range(docs.n), format_func=_label, key="hash_doc", index=min(1, docs.n - 1)
)
sh = shingled.shingles_of(doc)
kind = "character" if settings.shingle_kind == "char" else "word"
st.caption(
    f"{len(sh):,} distinct {kind} {settings.shingle_k}-grams, in order of first appearance "
    "(spaces shown as ␣)."
)
st.code(
    " · ".join(s.replace(" ", "␣") for s in sh[:400]) + (" …" if len(sh) > 400 else ""),
    language=None,
    wrap_lines=True,
)

left, right = st.columns(2)
with left:
    st.subheader("The first sixteen hash functions")
    st.dataframe(hasher.parameters(16), hide_index=True, width="stretch")
    st.caption(
        f"a_i and b_i drawn with seed {settings.hash_seed}; MurmurHash3 itself always uses "
        "seed 0. Change the hash seed in the sidebar to draw other functions."
    )
with right:
    st.subheader("Which shingle wins each position")
    if sh:
        win = hasher.winners(sh, 16)
        win["shingle"] = win["shingle"].str.replace(" ", "␣")
        st.dataframe(
            win.rename(
                columns={
                    "position": "i",
                    "shingle": "winning shingle",
                    "index": "its place",
                    "hash": "MurmurHash3 x",
                    "value": "min (a_i·x + b_i) mod p",
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "For each of the first sixteen functions, the shingle with the smallest hash "
            "value — that value is the signature's entry at that position."
        )
    else:
        st.info("This document has no shingles, so its signature is all 2³² − 1.")

st.subheader("A pair: estimate against the exact value")
c1, c2 = st.columns(2)
default_b = int(docs.parent[doc]) if docs.parent is not None and docs.parent[doc] >= 0 else 0
a = c1.selectbox("First document", range(docs.n), format_func=_label, key="pair_a", index=default_b)
b = c2.selectbox("Second document", range(docs.n), format_func=_label, key="pair_b", index=doc)
sig = run.get("signatures")
set_a, set_b = set(shingled.shingles_of(a)), set(shingled.shingles_of(b))
union = len(set_a | set_b)
exact = len(set_a & set_b) / union if union else 0.0
est = estimate_jaccard(sig[a], sig[b])
se = standard_error(exact, settings.num_perm)
m1, m2, m3 = st.columns(3)
m1.metric("Exact Jaccard", f"{exact:.3f}")
m2.metric("MinHash estimate", f"{est:.3f} ± {standard_error(est, settings.num_perm):.3f}")
m3.metric("Error in standard errors", "—" if se == 0 else f"{(est - exact) / se:+.1f}")
agree = sig[a] == sig[b]
st.caption(
    f"The signatures agree at {int(agree.sum())} of {settings.num_perm} positions. The "
    f"standard error at the exact value is {se:.3f}: about two in three estimates land "
    "within one standard error."
)
valid = run.get("valid")
if not (valid[a] and valid[b]):
    st.warning("At least one of these documents is below the minimum and has no signature.")
first32 = min(32, settings.num_perm)
st.dataframe(
    pd.DataFrame(
        [sig[a][:first32], sig[b][:first32], np.where(agree[:first32], "=", "")],
        index=["first", "second", "agree"],
        columns=[str(i) for i in range(first32)],
    ).astype(str),
    width="stretch",
)
st.caption("The first 32 positions of both signatures; agreeing positions are marked True.")
