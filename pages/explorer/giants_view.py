"""The giant-cluster warning of the Clusters and Threshold views, with the member check
one click away."""

from __future__ import annotations

import streamlit as st

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
