"""Shingles & MinHash: shingles, the hash functions, a pair's estimate, MinHash worked by
hand, the estimator's spread, and how the shingle length k changes what is rare."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts_teach, drawing, pair_view, state
from nearsim_app.explorer.safe_text import md

from nearsim.explore.explain import book_example, estimate_spread
from nearsim.lsh import candidate_probability
from nearsim.minhash import MinHasher

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
shingles = run.get("shingles")
hasher = MinHasher(settings.num_perm, settings.hash_seed)
KIND = "character" if settings.shingle_kind == "char" else "word"


def _label(i: int) -> str:
    text = docs.texts[i].replace("\n", " ")
    return f"{docs.labels[i]} — {text[:70]}{'…' if len(text) > 70 else ''}"


# Up to this many documents, one is picked from a list of them all; above it, by its row
# number (the list of 20,000 names, about 1.6 MB, took the browser 1–2 s to draw).
PICK_LIMIT = 2000


def pick_document(container, label: str, key: str, default: int) -> int:
    """A document's row: from a list of every document, or typed on a large corpus."""
    if docs.n <= PICK_LIMIT:
        return container.selectbox(label, range(docs.n), format_func=_label, key=key, index=default)
    ss = st.session_state
    if not isinstance(ss.get(key), int) or not 0 <= ss[key] < docs.n:
        ss[key] = default
    row = container.number_input(
        f"{label}: row 0 – {docs.n - 1:,}", min_value=0, max_value=docs.n - 1, step=1, key=key
    )
    container.caption(_label(row))
    return int(row)


SHOWN_SHINGLES = 400
SHINGLES_TEST_ID = "nearsimShingles"  # the browser tests find the list by it
SHINGLE_STYLE = (
    "font-family:'Source Code Pro',monospace;font-size:0.85rem;line-height:1.6;"
    "padding:0.75rem 1rem;border-radius:0.5rem;background:rgba(128,128,128,0.08);"
    "overflow-wrap:anywhere"
)


def shingles_tab() -> None:
    doc = pick_document(st, "Document", "hash_doc", min(1, docs.n - 1))
    sh = shingles.shingles_of(doc)
    st.caption(
        f"{len(sh):,} distinct {KIND} {settings.shingle_k}-grams, in order of first "
        "appearance (spaces shown as ␣)."
    )
    # Plain monospace HTML, not st.code: the code block's highlighter is 1.5 MB of script
    # that the browser would load, compile and run for this one list (0.25 s of a 0.5 s
    # first visit of this page, measured in chromium).
    shown = " · ".join(md(s.replace(" ", "␣")) for s in sh[:SHOWN_SHINGLES])
    more = " …" if len(sh) > SHOWN_SHINGLES else ""
    st.markdown(
        f'<div data-testid="{SHINGLES_TEST_ID}" style="{SHINGLE_STYLE}">{shown}{more}</div>',
        unsafe_allow_html=True,
    )


def hash_tab() -> None:
    doc = st.session_state.get("hash_doc", min(1, docs.n - 1))
    sh = shingles.shingles_of(doc)
    left, right = st.columns(2)
    with left:
        st.markdown("**The first sixteen hash functions**")
        st.dataframe(hasher.parameters(16), hide_index=True, width="stretch")
        st.caption(
            f"a_i and b_i drawn with seed {settings.hash_seed}; MurmurHash3 itself always "
            "uses seed 0. Change the hash seed in the sidebar to draw other functions."
        )
    with right:
        st.markdown(f"**Which shingle wins each position** of {md(docs.labels[doc])}")
        if not sh:
            st.info("This document has no shingles, so its signature is all 2³² − 1.")
            return
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
            "value — that value is the signature's entry at that position. (The document "
            "is the one chosen on the Shingles tab.)"
        )


def pair_tab() -> None:
    doc = st.session_state.get("hash_doc", min(1, docs.n - 1))
    parent = docs.parent[doc] if docs.parent is not None else -1
    c1, c2 = st.columns(2)
    a = pick_document(c1, "First document", "pair_a", int(parent) if parent >= 0 else 0)
    b = pick_document(c2, "Second document", "pair_b", doc)
    sig = run.get("signatures")
    first32 = min(32, settings.num_perm)
    agree = sig[a] == sig[b]
    st.dataframe(
        pd.DataFrame(
            [sig[a][:first32], sig[b][:first32], np.where(agree[:first32], "=", "")],
            index=["first", "second", "agree"],
            columns=[str(i) for i in range(first32)],
        ).astype(str),
        width="stretch",
    )
    st.caption("The first 32 positions of both signatures; agreeing positions are marked =.")
    pair_view.explain(page, a, b)

    st.markdown("**The estimator's spread.** The same pair under 200 different hash seeds:")
    spread = _spread(page, a, b)
    drawing.chart(charts_teach.estimate_spread, spread, settings.num_perm)
    est = spread["estimate"]
    st.caption(
        f"Estimates of 200 seeds: mean {est.mean():.3f}, standard deviation {est.std():.3f}; "
        f"theory: the exact J = {spread.attrs['jaccard']:.3f} and √(J(1 − J)/k) = "
        f"{spread.attrs['standard_error']:.3f} with k = {settings.num_perm}. Raise k in the "
        "sidebar to narrow it."
    )


@st.cache_data(max_entries=32, show_spinner="Hashing the pair with 200 seeds…")
def _cached_spread(digest: str, key: tuple, a: int, b: int, num_perm: int, _first, _second):
    return estimate_spread(_first, _second, num_perm, seeds=200)


def _spread(page, a: int, b: int) -> pd.DataFrame:
    digest, key = page.run.key("shingles")
    return _cached_spread(
        digest, key, a, b, page.settings.num_perm, shingles.shingles_of(a), shingles.shingles_of(b)
    )


def worked_tab() -> None:
    st.markdown(
        "MinHash by hand on *Mining of Massive Datasets*' own example (§3.3, Figs. 3.2–3.5): "
        "four sets S1 … S4 over the rows a, b, c, d, e, numbered 0 … 4, their "
        "**characteristic matrix** (a 1 where a set holds the row's element), and the book's "
        "two hash functions h1(x) = x + 1 mod 5 and h2(x) = 3x + 1 mod 5, each of which "
        "stands for a random order of the rows. Visit the rows one at a time: for every set "
        "with a 1 in that row, lower its signature entry to the row's hash value if that is "
        "smaller. At the end each entry is the smallest hash among the set's rows — the "
        "first row of that set in the function's order."
    )
    hashes = st.slider(
        "Hash functions",
        1,
        8,
        2,
        key="worked_hashes",
        help="The first two are the book's; more are other distinct (a, b) mod 5.",
    )
    ex = book_example(num_hashes=hashes, seed=settings.hash_seed)
    n_rows = ex.matrix.shape[0]
    names = ex.hashes.columns
    formulas = ", ".join(
        f"{h}(x) = {'' if a == 1 else a}x + {b} mod {ex.p}"
        for h, (a, b) in zip(names, ex.params, strict=True)
    )
    shown = pd.concat([ex.matrix, ex.hashes], axis=1)
    shown.insert(0, "row x", range(n_rows))
    step = st.slider("Rows visited", 0, n_rows, n_rows, key="worked_step")
    left, right = st.columns([3, 2])
    with left:
        st.dataframe(shown, width="stretch")  # 1 + 4 + 8 narrow columns: all fit
        st.caption(f"The characteristic matrix and the hash of each row number: {formulas}.")
    with right:
        sig = ex.steps[step - 1] if step else np.full(ex.signatures.shape, np.inf)
        table = pd.DataFrame(sig, index=names, columns=ex.matrix.columns)
        st.dataframe(table.map(lambda v: "∞" if np.isinf(v) else str(int(v))), width="stretch")
        st.caption(
            f"The signature matrix after {step} of {n_rows} rows"
            + (f" (row {step - 1}, {ex.matrix.index[step - 1]}, just visited)." if step else ".")
            + (" The book's Fig. 3.5 is the last of these." if hashes == 2 else "")
        )

    st.markdown("**The permuted matrix.** Each function orders the rows:")
    which = st.segmented_control("Order by", list(names), default=names[0], key="worked_order")
    h = which or names[0]
    order = np.argsort(ex.hashes[h].to_numpy(), kind="stable")
    permuted = ex.matrix.iloc[order].copy()
    permuted.insert(0, f"{h}(x)", ex.hashes[h].to_numpy()[order])
    st.dataframe(permuted, width="stretch")
    first = {c: permuted.index[permuted[c].to_numpy() == 1][0] for c in ex.matrix.columns}
    st.caption(
        f"The rows in {h}'s order. Each set's minhash is the first row with a 1 in its "
        "column: " + ", ".join(f"{c}: {x}" for c, x in first.items()) + "."
    )
    st.markdown(
        "**Why two columns agree with probability J.** Take a random order of the rows and "
        "look at the rows where S or T has a 1: they are of two kinds, X (both have a 1) and "
        "Y (only one has). The first of them in the order is equally likely to be any of "
        "them, and the two minhashes are equal exactly when it is an X row. So P(agree) = "
        "|X| / (|X| + |Y|) = |S ∩ T| / |S ∪ T| = J(S, T), and the share of agreeing "
        "signature rows estimates J."
    )
    if step == n_rows:
        st.dataframe(ex.pairs.round(3), hide_index=True, width="stretch")
        st.caption(
            "Each pair of sets: the true Jaccard similarity, and the share of signature rows "
            "where their columns agree. With so few hash functions the estimate is coarse; "
            "with k of them its standard error is √(J(1 − J)/k)."
        )

    b, r, t = settings.bands, settings.rows, settings.threshold
    st.markdown(
        f"**From signatures to candidates: AND, then OR.** Cut the signature into b = {b} "
        f"bands of r = {r} rows. One position agrees with probability s. A band agrees only "
        f"if all its r rows do (AND): s^r. The pair is a candidate if any of the b bands "
        f"agrees (OR): P(s) = 1 − (1 − s^r)^b."
    )
    sims = np.round(np.arange(0.1, 1.0, 0.1), 1)
    st.dataframe(
        pd.DataFrame(
            {
                "similarity s": sims,
                "one row agrees": sims,
                f"a band agrees (s^{r})": sims**r,
                f"a candidate (1 − (1 − s^{r})^{b})": candidate_probability(sims, b, r),
            }
        ).round(4),
        hide_index=True,
        width="stretch",
    )
    s1, s2 = t, max(round(t - 0.3, 2), 0.05)
    d1, d2 = round(1 - s1, 2), round(1 - s2, 2)
    p_and = (s1**r, s2**r)
    p_or = tuple(float(x) for x in candidate_probability(np.array([s1, s2]), b, r))
    st.markdown(
        f"In the book's terms (§3.6), with Jaccard distance d = 1 − s, one MinHash function "
        f"is ({d1}, {d2}, {s1}, {s2})-sensitive: pairs within distance {d1} agree with "
        f"probability at least p1 = {s1}, pairs beyond {d2} with at most p2 = {s2}. The "
        f"AND of r = {r} makes it ({d1}, {d2}, {p_and[0]:.4f}, {p_and[1]:.4f})-sensitive "
        f"(both fall); the OR of b = {b} bands makes it ({d1}, {d2}, {p_or[0]:.4f}, "
        f"{p_or[1]:.4f})-sensitive: p1 is lifted back up while p2 stays small."
    )


def k_tab() -> None:
    st.markdown(
        "Shingles must be long enough that any given shingle is rare: if k is too small, "
        "almost every shingle appears in many documents and unrelated documents look "
        "alike. Measured on your documents for every k: the share of shingles found in one "
        "document only, and the mean Jaccard similarity of random pairs that are not near "
        "duplicates (it should be near 0)."
    )
    profile = run.get("k_profile")
    drawing.chart(charts_teach.shingle_length, profile, settings.shingle_kind, settings.shingle_k)
    now = profile[profile["k"] == settings.shingle_k]
    line = (
        f" At k = {settings.shingle_k}: {float(now['share_in_one_document'].iloc[0]):.1%} of "
        f"the shingles are in one document only, and unrelated pairs have a mean Jaccard of "
        f"{float(now['mean_jaccard_unrelated'].iloc[0]):.3f}."
        if len(now)
        else ""
    )
    st.caption(
        f"{KIND.capitalize()} k-grams on a random {int(profile['documents'].iloc[0]):,} of "
        f"your documents (dashed: the k in use).{line}"
    )


def sketches_tab() -> None:
    st.markdown(
        "Everything above is **classic MinHash**: k independent hash functions, each "
        "evaluated on every shingle. **SuperMinHash** (Ertl, 2017) makes the k values in "
        "one pass: each shingle draws a random order of the k positions and offers them "
        "values from rounds 0, 1, 2, …, stopping as soon as it can no longer win any. Two "
        "signatures still agree at a position with probability J, but the positions are "
        "negatively correlated (one shingle cannot win two positions in the same round), "
        "so the estimate spreads less: its variance is J(1 − J)/k · α(k, u), with α below "
        "1 for a union of u shingles of up to a few thousand and tending to 1 beyond. "
        "The price: its own S-curve (the Banding page draws it). Choose the sketch in the "
        "sidebar; measured here on your documents with both."
    )
    cmp = run.get("sketches")
    if 0 < cmp.signed < run.n:
        st.info(
            f"Your documents are long: the spread and recall below are measured on a "
            f"random {cmp.signed:,} of the {run.n:,} documents (the pairs inside them), "
            "so that signing with both sketches and several seeds stays quick. The "
            "signing times are for all of them."
        )
    by = {row.sketch: row for row in cmp.timing.itertuples()}
    q = cmp.quality.groupby("sketch", sort=False).mean(numeric_only=True)
    m = st.columns(4)
    for col, name in zip(m[:2], ("MinHash", "SuperMinHash"), strict=True):
        col.metric(
            f"{name}: signing",
            f"{by[name].seconds:.2f} s",
            help="Wall time to sign every document from its text (the best of two timings "
            "on up to 8 MB of your documents, scaled to all of them).",
        )
    for col, name in zip(m[2:], ("MinHash", "SuperMinHash"), strict=True):
        col.metric(
            f"{name}: recall after the filter",
            f"{q.loc[name, 'recall_filtered']:.1%}",
            help=f"Mean over {cmp.seeds} hash seeds, {settings.bands} × {settings.rows} at "
            f"t = {settings.threshold:g}.",
        )
    st.subheader("Estimator spread by set size")
    spread = cmp.spread.rename(
        columns={
            "sketch": "sketch",
            "union": "union of the pair (shingles)",
            "pairs": "estimates",
            "mean_error": "mean error",
            "spread": "spread ÷ √(J(1 − J)/k)",
            "expected": "theory",
        }
    )
    st.dataframe(spread.round(4), hide_index=True, width="stretch")
    st.caption(
        "Pairs of known exact similarity J (0 < J < 1) from your documents, each estimated "
        f"with {cmp.seeds} hash seeds: the root mean square of the estimate's error divided "
        "by classic MinHash's standard error √(J(1 − J)/k). Theory: 1 for MinHash, "
        "√α(k, u) for SuperMinHash. A mean error near 0: both are unbiased."
    )
    st.subheader("Recall at the same bands × rows")
    table = cmp.quality.groupby("sketch", sort=False).mean(numeric_only=True).drop(columns="seed")
    table = table.rename(
        columns={
            "candidates": "candidates",
            "recall": "recall of the candidates",
            "precision": "precision of the candidates",
            "accepted": "kept after the estimate filter",
            "recall_filtered": "recall after the filter",
            "precision_filtered": "precision after the filter",
        }
    )
    st.dataframe(table.round(4), width="stretch")
    st.caption(
        f"{settings.bands} bands × {settings.rows} rows at t = {settings.threshold:g}, "
        f"k = {settings.num_perm}, against the exact pairs"
        + (f" among the {cmp.signed:,} signed documents" if 0 < cmp.signed < run.n else "")
        + "; means over hash seeds "
        f"{settings.hash_seed} to {settings.hash_seed + cmp.seeds - 1}. With a smaller "
        "spread, fewer true pairs fall below t after the filter and fewer false ones "
        "pass it; on few true pairs the difference is within chance."
    )


tabs = st.tabs(
    [
        "Shingles",
        "Hash functions",
        "A pair",
        "Worked example",
        "Choosing the shingle length",
        "Two sketches",
    ],
    key="minhash_tab",
    on_change="rerun",  # lazy: only the open tab's content is computed
)
views = (shingles_tab, hash_tab, pair_tab, worked_tab, k_tab, sketches_tab)
for tab, draw in zip(tabs, views, strict=True):
    if tab.open is not False:
        with tab:
            draw()
