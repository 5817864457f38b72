"""The giant-cluster warning of the Clusters and Threshold views, with the member check
one click away."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nearsim.explore.removal import GROUP_LOSS, removal_by_group

from .safe_text import md

CHECK_KEY = "cluster_check"  # the Clusters view's toggle


def _turn_on() -> None:
    st.session_state[CHECK_KEY] = True


def warn(page, *, on_clusters: bool) -> None:
    """Warn about chained clusters and clusters holding a large share of the removals, say
    how many documents the member check would detach, and offer it.

    On the Clusters view the button turns the check on; elsewhere it turns it on and opens
    the Clusters view.
    """
    run, settings = page.run, page.settings
    w = run.get("giants")
    if not (len(w.chains) or len(w.giants)):
        return
    detail, _ = run.get("check")
    detached = int((~detail["kept"]).sum())
    t = settings.threshold
    lines = []
    if len(w.giants):
        g = w.giants.iloc[0]
        lines.append(
            f"One cluster of **{int(g['size']):,}** documents holds **{g['removed_share']:.0%}** "
            f"of the {w.removed:,} documents a run would remove"
            + (f" ({len(w.giants)} such clusters)" if len(w.giants) > 1 else "")
            + ": a templated family or boilerplate, rarely one story told many times."
        )
    if len(w.chains):
        c = w.chains.iloc[0]
        lines.append(
            f"**{len(w.chains):,}** cluster{'s are' if len(w.chains) > 1 else ' is a'} "
            f"chain{'s' if len(w.chains) > 1 else ''}: in the largest ({int(c['size']):,} "
            f"documents) the least similar member has exact Jaccard "
            f"**{c['least_similarity']:.2f}** with the document kept for it, far below "
            f"t = {t:g}. A chain of small edits joins documents whose ends are not similar."
        )
    checked = bool(st.session_state.get(CHECK_KEY))
    lines.append(
        f"The member check compares every member with the document kept in its place and "
        f"would detach **{detached:,}** document{'s' if detached != 1 else ''}"
        + (" (it is on)." if checked else " — it is off.")
    )
    st.warning("\n\n".join(lines), icon=":material/warning:")
    if checked:
        return
    if on_clusters:
        st.button(
            "Turn the member check on",
            key="giants_check_on",
            icon=":material/rule:",
            on_click=_turn_on,
        )
    elif st.button("Turn the member check on and show the clusters", key="giants_check_go",
                   icon=":material/rule:"):  # fmt: skip
        from nearsim_app.explorer.main import page_path

        _turn_on()
        st.switch_page(page_path("clusters.py"))


def by_group(page, labels, *, what: str) -> None:
    """Removal per group (the corpus's group field) for these cluster labels: a table, and
    a warning naming each group that loses most of its documents."""
    docs = page.docs
    if docs.groups is None:
        return
    table = removal_by_group(labels, docs.groups)
    lost = table[table["most_lost"]]
    st.markdown(f"**Removal per {md(docs.group_field or 'group')}** ({what})")
    if len(lost):
        named = ", ".join(
            f"{md(str(g))} ({int(r):,} of {int(d):,})"
            for g, r, d in zip(lost["group"], lost["removed"], lost["documents"], strict=True)
        )
        st.warning(
            f"{len(lost):,} group{'s lose' if len(lost) > 1 else ' loses'} more than "
            f"{GROUP_LOSS:.0%} of {'their' if len(lost) > 1 else 'its'} documents: {named}. "
            "When one source loses most of what was fetched, look at its clusters before "
            "running.",
            icon=":material/warning:",
        )
    st.dataframe(
        pd.DataFrame(
            {
                "group": table["group"],
                "documents": table["documents"],
                "removed": table["removed"],
                "share removed": table["share"],
            }
        ),
        hide_index=True,
        width="stretch",
        height=min(36 * (len(table) + 1) + 2, 280),
        column_config={"share removed": st.column_config.NumberColumn(format="percent")},
    )
