"""The explorer's main script: page set-up, the settings sidebar, navigation and error
handling.

``app.py`` at the repository's top (``scripts/app``, ``streamlit run app.py``) calls
:func:`main`; an installed copy runs this file itself (``nearsim app``). It draws the
settings sidebar, keeps settings and documents in the browser, writes the settings in force
to the address bar, and runs the page the user picked. The page scripts are in
``pages/views/`` (``nearsim_app/views/`` installed); they read settings, ask
:mod:`nearsim_app.explorer.state` for stages, and draw.

Why ``pages/views/`` and not ``pages/`` itself: Streamlit still looks for page scripts in a
``pages/`` folder beside the main script until ``st.navigation`` has run once in a process,
and would list every ``pages/*.py`` it found as a page of its own — and run one of them
without this main script, if the first visit of a fresh server asked for it by name. With
no script at the top of ``pages/`` it finds none.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import streamlit as st
from nearsim_app.explorer import settings_ui, state, storage
from nearsim_app.explorer.safe_text import md

# the page scripts' folder (pages/views/ in the repository, nearsim_app/views/ installed)
VIEWS = Path(__file__).resolve().parent.parent / "views"

# each view: its script, title and icon (an icon font shipped with Streamlit)
PAGES = (
    ("documents.py", "Documents", ":material/description:"),
    ("minhash.py", "MinHash", ":material/tag:"),
    ("banding.py", "Banding", ":material/ssid_chart:"),
    ("results.py", "Results", ":material/task_alt:"),
    ("threshold.py", "Threshold", ":material/rule:"),
    ("clusters.py", "Clusters", ":material/workspaces:"),
    ("compare.py", "Compare", ":material/compare_arrows:"),
    ("query.py", "Query", ":material/search:"),
    ("export.py", "Export", ":material/output:"),
    ("audit.py", "Audit", ":material/fact_check:"),
)


def page_path(script: str) -> str:
    """The absolute path of a page script, as ``st.Page`` and ``st.page_link`` take it."""
    return str(VIEWS / script)


def main() -> None:
    """One run of the explorer's script."""
    st.set_page_config(
        page_title="nearsim — near-duplicate explorer",
        page_icon="🔎",  # inlined as a data: URL; a material icon would be fetched from Google
        layout="wide",
        initial_sidebar_state="auto",  # collapsed on a narrow screen, open on a wide one
    )

    ss = st.session_state

    # -- restore what this browser kept, once per visit ----------------------------------------
    if not ss.get(settings_ui.SEEDED):
        ss[settings_ui.VISIT_QUERY] = len(st.query_params) > 0
    kept = storage.stored()
    if kept is not None and not ss.get("_storage_restored"):
        ss["_storage_restored"] = True
        if not ss.get(settings_ui.VISIT_QUERY) and kept.get("settings"):
            settings_ui.seed(parse_qs(kept["settings"]), announce=False)
            ss[settings_ui.SEEDED] = True
        if storage.restore(kept):
            st.rerun()

    # -- settings ------------------------------------------------------------------------------
    settings, slots = settings_ui.sidebar()
    settings_ui.share_button(settings)
    settings_ui.write_address(settings)

    # -- keep settings and documents in this browser (before the page: a page may stop early)
    storage.sync(settings)

    pages = [st.Page(page_path(script), title=title, icon=icon) for script, title, icon in PAGES]
    page = st.navigation(pages, position="top")
    settings_ui.show_problems()

    try:
        page.run()
    except state.StageError as exc:  # the library's message says what was wrong and accepted
        settings_ui.show_stage_error(slots, exc.stage, md(str(exc)))
        st.error(f"These settings cannot be used on these documents: {md(str(exc))}")
    except MemoryError:
        st.error(
            "This ran out of memory. Try fewer documents, a higher threshold or more rows per band."
        )
    except Exception as exc:  # never a traceback on the page
        # not the user's settings or documents (those come back as StageError): a fault here
        st.error(
            f"This view failed because of a fault in nearsim, not in your settings or documents "
            f"({type(exc).__name__}: {md(str(exc))}). Your settings and text are kept; change "
            "a setting or reload the page to try again."
        )


if __name__ == "__main__":  # installed: streamlit run nearsim_app/explorer/main.py
    main()
