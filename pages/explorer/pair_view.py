"""The pair explainer: why two documents became a candidate pair, or how close a missed
pair came — reachable from every pair list (missed pairs, false candidates, clusters, the
MinHash page)."""

from __future__ import annotations

import streamlit as st

from nearsim.explore.explain import explain_pair

from . import charts_teach, drawing
from .diff import side_by_side
from .safe_text import md

SHOWN_SHINGLES = 12


def _some(shingles: list[str]) -> str:
    shown = " · ".join(md(s.replace(" ", "␣")) for s in shingles[:SHOWN_SHINGLES])
    return shown + (" …" if len(shingles) > SHOWN_SHINGLES else "")


def band_list(bands) -> str:
    """The agreeing bands (0-based) as users count them: "3", "1 and 4", "1, 2 and 5", or
    the first ten and how many more — never cut silently."""
    names = [str(int(x) + 1) for x in bands]
    if len(names) > 10:
        return ", ".join(names[:10]) + f" and {len(names) - 10} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def explain(page, i: int, j: int) -> None:
    """Draw the explanation of pair (i, j) of the page's documents."""
    settings, docs, run = page.settings, page.docs, page.run
    shingles = run.get("shingles")
    sig = run.get("signatures")
    valid = run.get("valid")
    explain_texts(
        settings,
        (docs.labels[i], docs.texts[i], shingles.shingles_of(i), sig[i], bool(valid[i])),
        (docs.labels[j], docs.texts[j], shingles.shingles_of(j), sig[j], bool(valid[j])),
    )


def explain_texts(settings, first: tuple, second: tuple) -> None:
    """Draw the explanation of any two documents, each given as (label, text, shingles,
    signature, valid) under ``settings`` (the Query page: a pasted text, an indexed one)."""
    (label_i, text_i, sh_i, sig_i, valid_i), (label_j, text_j, sh_j, sig_j, valid_j) = (
        first,
        second,
    )
    b, r, k = settings.bands, settings.rows, settings.num_perm
    e = explain_pair(sh_i, sh_j, sig_i, sig_j, b, r)
    side_by_side(label_i, text_i, label_j, text_j)
    st.caption(
        "Words only in the first are struck through in red; words only in the second are green."
    )

    inter, union = e.jaccard.numerator, e.jaccard.denominator
    n_shared, n_a, n_b = len(e.shared), len(e.only_first), len(e.only_second)
    st.markdown(
        f"**Shingle sets.** {n_shared:,} shingles in both, {n_a:,} only in the first, "
        f"{n_b:,} only in the second, so the exact Jaccard similarity is "
        f"{n_shared:,} / ({n_shared:,} + {n_a:,} + {n_b:,}) = **{float(e.jaccard):.3f}**"
        + (f" (= {inter}/{union})" if union and union < 1000 else "")
        + "."
    )
    with st.expander("The shingles themselves"):
        st.markdown(
            f"In both: {_some(e.shared)}\n\nOnly in the first: {_some(e.only_first)}\n\n"
            f"Only in the second: {_some(e.only_second)}",
            unsafe_allow_html=False,
        )
    if not (valid_i and valid_j):
        st.warning(
            "At least one of these documents is below the minimum number of shingles: it has "
            "no signature and is never in a pair."
        )
        return
    agree = int(e.agree.sum())
    st.markdown(
        f"**Signatures.** They agree at {agree} of {k} positions: the MinHash estimate is "
        f"{e.estimate:.3f} (standard error {e.standard_error:.3f} at the exact value)."
    )
    if e.candidate:
        bands = band_list(e.full_bands)
        verdict = (
            f"**A candidate pair**: band{'s' if len(e.full_bands) > 1 else ''} {bands} "
            f"agree{'s' if len(e.full_bands) == 1 else ''} in all {r} rows, so the two "
            "documents land in the same bucket there."
        )
    else:
        verdict = (
            f"**Not a candidate**: no band agrees in all {r} rows. The closest is band "
            f"{e.best_band + 1}, with {e.best_rows} of {r} rows agreeing."
        )
    st.markdown(
        verdict
        + f" A pair this similar becomes a candidate with probability 1 − (1 − J^{r})^{b} = "
        f"{e.p_candidate:.3f}."
    )
    drawing.chart(charts_teach.band_grid, e.band_rows, e.full_bands)
    st.caption(
        f"The {k}-value signatures cut into {b} bands of {r} rows: each cell is one "
        "position; a band whose cells all agree makes the pair a candidate."
        + (f" The last {k - b * r} positions take no part in banding." if k > b * r else "")
    )


def pick_and_explain(page, pairs, key: str, label: str = "Explain a pair") -> None:
    """A selector over a frame of pairs (columns i, j) and the explanation of the one picked."""
    docs = page.docs
    rows = pairs.reset_index(drop=True)
    if not len(rows):
        return
    names = [
        f"{docs.labels[i]} and {docs.labels[j]}" for i, j in zip(rows["i"], rows["j"], strict=True)
    ]
    pick = st.selectbox(label, range(len(rows)), format_func=names.__getitem__, key=key)
    explain(page, int(rows["i"][pick]), int(rows["j"][pick]))
