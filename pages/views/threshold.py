"""Threshold: choose t from hand labels of the pairs near it, and from the removal rate."""

from __future__ import annotations

import hashlib
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import (
    charts_threshold,
    drawing,
    giants_view,
    keys,
    labelling,
    settings_ui,
    state,
)
from nearsim_app.explorer.diff import side_by_side
from nearsim_app.explorer.safe_text import md

from nearsim.explore.labels import best_threshold, label_curve, labels_to_csv, read_labels_csv
from nearsim.explore.threshold_pairs import LABEL_PER_ROUND, LOW_JOIN
from nearsim.join.exact import pair_jaccard
from nearsim.join.sample import BAND_WIDTH, similarity_band

KEYS = "threshold_keys"  # the keyboard component
ROUNDS = "label_rounds"  # rounds of pairs shown (this page's own state)
UPLOAD = "labels_upload"
IMPORTED = "_labels_imported"  # (name, sha256) of the last file imported
NOTE = "_labels_import_note"  # (kind, text) about the last import
MIN_LABELS = 10  # decisive labels before a threshold is suggested

st.title("Threshold")
st.markdown(
    "**Choose t: hand labels and the removal rate.** Exact Jaccard is not the truth you "
    "care about: a crawler's team, studying where to set the threshold, read the pairs near "
    "the cut-off and found the same list in two languages at 0.96 (not a duplicate) and the "
    "same stadium under two slugs at 0.72–0.85 (a duplicate). Label pairs drawn from each "
    "0.05 range of similarity around t, see which threshold your labels support, and see "
    "what share of the documents a run would remove at each threshold."
)

page = state.require_documents()
settings, docs, run = page.settings, page.docs, page.run
t, digest = settings.threshold, docs.digest
ss = st.session_state


def use_threshold(value: float) -> None:
    """Set the sidebar's threshold (a callback: it runs before the widgets are drawn)."""
    settings_ui.apply_settings(threshold=float(round(value, 2)))


def more_pairs() -> None:
    ss[ROUNDS] = int(ss.get(ROUNDS, 1)) + 1


def labels_now() -> pd.DataFrame:
    """This corpus's labels with J computed under the current settings (0 for a pair with
    a document below the minimum number of shingles: it is never paired)."""
    table = labelling.table(digest)
    if not len(table):
        return table
    pairs = table[["i", "j"]].to_numpy(np.int64)
    valid = run.get("valid")
    jac = pair_jaccard(run.get("tokens"), pairs)
    return table.assign(jaccard=np.where(valid[pairs[:, 0]] & valid[pairs[:, 1]], jac, 0.0))


def import_labels() -> None:
    """The uploader's callback: read the CSV and merge it into this corpus's labels."""
    up = ss.get(UPLOAD)
    if up is None:
        ss.pop(NOTE, None)
        return
    data = up.getvalue()
    ident = (up.name, hashlib.sha256(data).hexdigest())
    if ss.get(IMPORTED) == ident:
        return
    try:
        imported = read_labels_csv(data, n=docs.n)
    except ValueError as exc:
        ss[NOTE] = ("error", f"{md(up.name)}: {md(str(exc))}")
        return
    new, replaced = labelling.merge(digest, imported)
    ss[IMPORTED] = ident
    text = (
        f"Imported {len(imported):,} labels from {md(up.name)}: {new:,} new, {replaced:,} replaced."
    )
    here = pair_jaccard(run.get("tokens"), imported[["i", "j"]].to_numpy(np.int64))
    differ = int((np.abs(here - imported["jaccard"].to_numpy()) > 1e-9).sum())
    if differ:
        text += (
            f" {differ:,} of them have another exact Jaccard here than in the file: they may be"
            " labels of other documents or other shingle settings. They are kept; every figure"
            " here uses the similarity computed on these documents."
        )
    ss[NOTE] = ("warning" if differ else "success", text)


# -- 1. labelling --------------------------------------------------------------------------
def per_range(pool: pd.DataFrame, shown: pd.DataFrame) -> None:
    """How many pairs each 0.05 range holds, how many are drawn and labelled."""
    low, high = pool.attrs["low"], pool.attrs["high"]
    first, stop = round(low / BAND_WIDTH), round(high / BAND_WIDTH)
    bands = np.arange(first, stop)
    listed = np.bincount(similarity_band(pool["jaccard"]), minlength=stop)[first:stop]
    sampled = bands * BAND_WIDTH < pool.attrs["complete_from"] - 1e-9
    scale = np.where(sampled, 1.0 / max(pool.attrs["sample_fraction"], 1e-12), 1.0)
    band = shown["band"].to_numpy()
    drawn = np.bincount(band, minlength=stop)[first:stop]
    pairs = zip(shown["i"].tolist(), shown["j"].tolist(), strict=True)
    mine = np.array([labelling.label_of(digest, i, j) is not None for i, j in pairs], bool)
    done = np.bincount(band[mine], minlength=stop)[first:stop]
    total = float((listed * scale).sum())
    m = st.columns(3)
    m[0].metric(
        f"Pairs with J from {low:.2f} to {high:.2f}",
        ("≈ " if sampled.any() else "") + f"{round(total):,}",
        help="In these documents (ranges drawn from the sample: estimated).",
    )
    m[1].metric("Drawn to label", f"{len(shown):,}")
    m[2].metric("Labelled", f"{int(done.sum()):,}", help="Of the pairs drawn.")
    with st.expander("Pairs per range of similarity"):
        st.dataframe(
            pd.DataFrame(
                {
                    "range": [f"{b * BAND_WIDTH:.2f}–{(b + 1) * BAND_WIDTH:.2f}" for b in bands],
                    "pairs in the documents": [
                        ("≈ " if s else "") + f"{round(c * f):,}"
                        for c, f, s in zip(listed, scale, sampled, strict=True)
                    ],
                    "drawn": drawn,
                    "labelled": done,
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "Each range gives at most 5 pairs a round, so thin ranges are read as often as "
            "crowded ones; the precision and recall on the next tab are among these pairs, "
            "not the corpus's."
        )


def label_view() -> None:
    pool, drawn = run.get("label_pool"), run.get("label_draw")
    low, high = pool.attrs["low"], pool.attrs["high"]
    st.markdown(
        f"Pairs are drawn from each 0.05 range of exact similarity from **{low:.2f} to "
        f"{high:.2f}** (t ± 0.2), {LABEL_PER_ROUND} per range at a time and in random order, "
        "so that every range near the cut-off is read about as often — not mostly the "
        "commonest one. Read both texts and decide whether a run should keep only one of them."
    )
    st.caption(
        "Keys: **d** duplicate · **n** not a duplicate · **u** unsure · **←** previous · "
        "**→** next · **z** undo (not while typing in a box)."
    )
    if pool.attrs["complete_from"] > low:
        st.caption(
            f"Ranges below {pool.attrs['complete_from']:.2f} are drawn from the random sample "
            "of pairs (an exact join that low is slow on many documents); within a range every "
            "pair has the same chance either way."
        )
    if not len(drawn):
        st.info(
            f"No pair of these documents has an exact similarity from {low:.2f} to {high:.2f}. "
            "Move t, or load documents that have near duplicates."
        )
        return
    available = int(drawn["round"].max()) + 1
    rounds = min(max(int(ss.get(ROUNDS, 1)), 1), available)
    shown = drawn[drawn["round"] < rounds]
    queue = list(
        zip(shown["i"].tolist(), shown["j"].tolist(), shown["jaccard"].tolist(), strict=True)
    )
    labelling.set_view(digest, t, queue)
    labelling.handle_keys(KEYS)  # presses no callback has handled (set in session state)
    pos, n = labelling.position(), len(queue)
    done = sum(labelling.label_of(digest, i, j) is not None for i, j, _ in queue)
    per_range(pool, shown)
    st.progress(done / n, text=f"{done} of {n} labelled")

    cols = st.columns([1.3, 1.6, 1.1, 1.2, 1.1, 1.1])
    at_end = pos >= n
    buttons = (  # action, label, icon, disabled
        ("duplicate", "Duplicate (d)", "check", at_end),
        ("not a duplicate", "Not a duplicate (n)", "close", at_end),
        ("unsure", "Unsure (u)", "help", at_end),
        ("previous", "Previous", "arrow_back", pos == 0),
        ("next", "Next", "arrow_forward", at_end),
        ("undo", "Undo (z)", "undo", not labelling.can_undo(digest)),
    )
    for col, (action, text, icon, disabled) in zip(cols, buttons, strict=True):
        col.button(
            text,
            key=f"label_{action.replace(' ', '_')}",
            icon=f":material/{icon}:",
            on_click=labelling.act,
            args=(action,),
            disabled=disabled,
            type="primary" if action == "duplicate" else "secondary",
            width="stretch",
        )

    if at_end:
        st.success(
            f"All {n} pairs drawn are labelled. See what they say in the next tab"
            + (", or draw more." if rounds < available else ".")
        )
    else:
        i, j, jac = queue[pos]
        lo = float(similarity_band([jac])[0]) * BAND_WIDTH
        got = labelling.label_of(digest, i, j)
        st.markdown(
            f"**Pair {pos + 1} of {n}**: {md(docs.labels[i])} and {md(docs.labels[j])}, "
            f"exact Jaccard **{jac:.3f}** (range {lo:.2f}–{lo + BAND_WIDTH:.2f})."
            + (f" Your label: **{got}** — a key or a button changes it." if got else "")
        )
        side_by_side(docs.labels[i], docs.texts[i], docs.labels[j], docs.texts[j])
        st.caption(
            "Words only in the first are struck through in red; words only in the second are green."
        )
    st.button(
        f"Draw {LABEL_PER_ROUND} more from each range",
        key="label_more",
        icon=":material/add:",
        on_click=more_pairs,
        disabled=rounds >= available,
        help=f"{available} rounds can be drawn from these documents at t = {t:g}.",
    )
    keys.listen(KEYS, labelling.KEYMAP, on_press=partial(labelling.handle_keys, KEYS))


def your_labels() -> None:
    table = labels_now()
    st.subheader("Your labels")
    st.markdown(
        f"**{len(table):,}** labels for these documents, kept in this browser with your "
        "documents (never in a link) and shown only for these documents. Export them as CSV "
        "to keep or share them; import a CSV to carry on."
    )
    if len(table):
        shown = pd.DataFrame(
            {
                "first": [docs.labels[i] for i in table["i"]],
                "second": [docs.labels[j] for j in table["j"]],
                "exact Jaccard": table["jaccard"].round(3),
                "label": table["label"],
            }
        )
        st.dataframe(shown.iloc[::-1], hide_index=True, width="stretch", height=220)
        st.caption("Latest first; the exact Jaccard is computed with the current settings.")
    left, right = st.columns(2)
    with left:
        st.download_button(
            "Export labels (CSV)",
            data=labels_to_csv(table) if len(table) else b"i,j,jaccard,label\n",
            file_name=f"nearsim-labels-{digest}.csv",
            mime="text/csv",
            icon=":material/download:",
            disabled=not len(table),
            key="labels_export",
        )
        st.caption("Columns i, j (document rows from 0), jaccard, label.")
    with right:
        st.file_uploader(
            "Import labels (CSV with columns i, j, jaccard, label)",
            type=["csv"],
            key=UPLOAD,
            on_change=import_labels,
        )
    import_labels()  # a file no callback has read yet (each file is imported once)
    note = ss.get(NOTE)
    if note is not None:
        {"error": st.error, "warning": st.warning, "success": st.success}[note[0]](note[1])


# -- 2. what the labels say ----------------------------------------------------------------
def verdict_view() -> None:
    table = labels_now()
    kinds = table["label"].value_counts() if len(table) else pd.Series(dtype=int)
    n_dup, n_not = int(kinds.get("duplicate", 0)), int(kinds.get("not a duplicate", 0))
    n_unsure = int(kinds.get("unsure", 0))
    st.markdown(
        "For every threshold t, the rule **“J ≥ t is a duplicate”** is scored against your "
        "labels: its **precision** is the share of labelled pairs above t that you called "
        "duplicates, its **recall** the share of your duplicates that are above t. Shaded: "
        "95% intervals (exact, Clopper–Pearson), wide when few labels count. Pairs marked "
        "unsure are left out."
    )
    m = st.columns(4)
    m[0].metric("Duplicates", f"{n_dup:,}")
    m[1].metric("Not duplicates", f"{n_not:,}")
    m[2].metric("Unsure", f"{n_unsure:,}")
    if n_dup + n_not == 0:
        m[3].metric("Suggested t", "—")
        st.info("No labels yet for these documents: label pairs in the first tab, or import a CSV.")
        return
    curve = label_curve(table)
    choice = None
    if n_dup and n_not and n_dup + n_not >= MIN_LABELS:
        choice = best_threshold(table, seed=0)
    m[3].metric(
        "Suggested t",
        f"{choice.threshold:g}" if choice else "—",
        help="The t with the best Youden's index: recall of the duplicates plus recall of "
        "the non-duplicates, minus 1.",
    )
    if choice is None:
        st.info(
            f"A threshold is suggested once at least {MIN_LABELS} pairs are labelled "
            "duplicate or not a duplicate, with at least one of each (now "
            f"{n_dup} and {n_not})."
        )
    else:
        row = curve.loc[np.isclose(curve["threshold"], choice.threshold)].iloc[0]
        above = int(row.duplicates_above + row.not_above)
        st.markdown(
            f"**What it means.** Calling every pair with J ≥ **{choice.threshold:g}** a "
            "duplicate agrees best with your labels: "
            f"{int(row.duplicates_above)} of your {n_dup} duplicates are above it (recall "
            f"{row.recall:.0%}), and {int(row.duplicates_above)} of the {above} labelled "
            f"pairs above it are duplicates (precision {row.precision:.0%}). Had you "
            f"labelled other pairs like these, the choice would land between **{choice.low:g}"
            f"** and **{choice.high:g}** ({choice.level:.0%} of {choice.resamples:,} "
            "bootstrap resamples of your labels); label more pairs in that range to narrow "
            "it. These rates are among the pairs you labelled — drawn evenly per range, not "
            "in proportion to the corpus."
        )
        same = abs(choice.threshold - t) < 1e-9
        st.button(
            f"Use t = {choice.threshold:g}",
            key="use_labels_t",
            icon=":material/done:",
            type="primary",
            on_click=use_threshold,
            args=(choice.threshold,),
            disabled=same,
            help="Set the sidebar's threshold to the suggestion."
            if not same
            else "The threshold in use is already the suggestion.",
        )
    drawing.chart(charts_threshold.label_curve_chart, curve, t, choice, table["jaccard"])
    st.caption(
        f"Precision and recall of “J ≥ t” against your {n_dup + n_not:,} decisive labels, "
        "with 95% intervals; the current t"
        + (" and the suggested one (its interval shaded) are" if choice else " is")
        + " marked."
    )
    drawing.chart(charts_threshold.labels_strip, table, t)
    st.caption("Each labelled pair at its exact similarity; the dashed line is the current t.")
    with st.expander("Precision and recall for every t"):
        shown = curve.rename(
            columns={
                "threshold": "t",
                "duplicates_above": "duplicates ≥ t",
                "not_above": "not duplicates ≥ t",
                "duplicates_below": "duplicates < t",
                "not_below": "not duplicates < t",
            }
        ).drop(columns=["f1", "youden"])
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f")
                for c in shown.columns
                if c.startswith(("precision", "recall"))
            }
            | {"t": st.column_config.NumberColumn(format="%.2f")},
        )
        st.caption("Intervals: exact 95% Clopper–Pearson; empty where nothing is counted.")


# -- 3. removal rate -----------------------------------------------------------------------
REMOVAL_LOW = "_removal_from_half"  # digests whose curve the user asked to start at 0.5


def removal_view() -> None:
    curve = run.get("removal")
    extended = docs.digest in st.session_state.get(REMOVAL_LOW, ())
    if extended:
        curve = run.get("removal_low")
    st.markdown(
        "A run keeps one document of each cluster and removes the rest. Here are the share "
        "of documents that goes and the number of clusters at every threshold, from the "
        "exact similarities (every pair with J ≥ the curve's lowest t), so you can also "
        "choose t by how much you are willing to remove. A MinHash run finds most of these "
        "pairs — see Results for its recall at your banding."
    )
    lo, hi = float(curve["threshold"].min()), float(curve["threshold"].max())
    if lo > LOW_JOIN + 1e-9:
        st.info(
            f"Many pairs of these documents are similar, so the curve starts at "
            f"t = {lo:.2f}, from the pairs already listed for the other pages. Extending it "
            f"down to {LOW_JOIN:g} lists every pair with J ≥ {LOW_JOIN:g} (an exact join; "
            "on many long documents it can take a while)."
        )
        st.button(
            f"Extend the curve down to t = {LOW_JOIN:g}",
            key="removal_extend",
            icon=":material/south:",
            on_click=_extend_removal,
            args=(docs.digest,),
        )
    on_grid = lo - 1e-9 <= t <= hi + 1e-9
    m = st.columns(3)
    if on_grid:
        row = curve.iloc[int(np.argmin(np.abs(curve["threshold"].to_numpy() - t)))]
        m[0].metric(
            f"Documents removed at t = {t:g}", f"{int(row.removed):,} ({row.removed_share:.1%})"
        )
        m[1].metric("Clusters of two or more", f"{int(row.clusters):,}")
        m[2].metric("Largest cluster", f"{int(row.largest):,}")
    giants_view.warn(page, on_clusters=False)
    giants_view.by_group(page, run.get("clusters"), what="a run at these settings")
    target = st.number_input(
        "Target share of documents to remove (%)",
        min_value=0.0,
        max_value=100.0,
        value=None,
        step=0.5,
        key="removal_target",
        placeholder="for example 5",
        help="The threshold whose removal rate is closest to this is suggested.",
    )
    if target is not None:
        gap = np.abs(curve["removed_share"].to_numpy() - target / 100)
        pick = curve.iloc[int(np.flatnonzero(gap == gap.min())[-1])]  # a tie: the higher t
        st.markdown(
            f"To remove about **{target:g}%** of the documents, use **t = "
            f"{pick.threshold:g}**: it removes {int(pick.removed):,} ({pick.removed_share:.1%}) "
            f"in {int(pick.clusters):,} clusters."
        )
        st.button(
            f"Use t = {pick.threshold:g}",
            key="use_removal_t",
            icon=":material/done:",
            on_click=use_threshold,
            args=(float(pick.threshold),),
            disabled=abs(float(pick.threshold) - t) < 1e-9,
        )
    drawing.chart(charts_threshold.removal_chart, curve, t)
    st.caption(
        f"Share of the {docs.n:,} documents removed (all but one per cluster of pairs with "
        f"exact J ≥ t) and clusters, for t from {lo:.2f} to {hi:.2f}"
        + (
            "; the line is the current t."
            if on_grid
            else f". The current t = {t:g} is outside it (the curve starts at {lo:.2f}: "
            "below, the similarity sample lists only a random share of the pairs)."
        )
    )
    with st.expander("Removal rate for every t"):
        st.dataframe(
            curve.rename(
                columns={
                    "threshold": "t",
                    "pairs": "pairs with J ≥ t",
                    "removed": "documents removed",
                    "removed_share": "share removed",
                    "largest": "largest cluster",
                }
            ),
            hide_index=True,
            width="stretch",
            column_config={
                "t": st.column_config.NumberColumn(format="%.2f"),
                "share removed": st.column_config.NumberColumn(format="percent"),
            },
        )


def _extend_removal(digest: str) -> None:
    st.session_state[REMOVAL_LOW] = (*st.session_state.get(REMOVAL_LOW, ())[-3:], digest)


def label_tab() -> None:
    label_view()
    your_labels()


tabs = st.tabs(
    ["Label pairs", "What your labels say", "Removal rate"],
    key="threshold_tab",
    on_change="rerun",  # lazy: only the open tab's content is computed
)
for tab, draw in zip(tabs, (label_tab, verdict_view, removal_view), strict=True):
    if tab.open is not False:
        with tab:
            draw()
