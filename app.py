"""nearsim explorer: choose and check near-duplicate detection settings.

Run with ``scripts/app`` (or ``streamlit run app.py``). This entry point draws the
settings sidebar, keeps settings and documents in the browser, writes the settings in
force to the address bar, and runs the page the user picked. Page scripts live in
``app_pages/``; they read settings, ask ``explorer.state`` for stages, and draw.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import streamlit as st

from explorer import settings_ui, state, storage

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

pages = [
    st.Page("app_pages/documents.py", title="Documents", icon=":material/description:"),
    st.Page("app_pages/minhash.py", title="MinHash", icon=":material/tag:"),
    st.Page("app_pages/banding.py", title="Banding", icon=":material/ssid_chart:"),
    st.Page("app_pages/results.py", title="Results", icon=":material/task_alt:"),
    st.Page("app_pages/threshold.py", title="Threshold", icon=":material/rule:"),
    st.Page("app_pages/clusters.py", title="Clusters", icon=":material/workspaces:"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("app_pages/export.py", title="Export", icon=":material/output:"),
]
page = st.navigation(pages, position="top")
settings_ui.show_problems()

try:
    page.run()
except state.StageError as exc:  # the library's message says what was wrong and accepted
    settings_ui.show_stage_error(slots, exc.stage, str(exc))
    st.error(f"These settings cannot be used on these documents: {exc}")
except MemoryError:
    st.error(
        "This ran out of memory. Try fewer documents, a higher threshold or more rows per band."
    )
except Exception as exc:  # never a traceback on the page
    # not the user's settings or documents (those come back as StageError): a fault here
    st.error(
        f"This view failed because of a fault in nearsim, not in your settings or documents "
        f"({type(exc).__name__}: {exc}). Your settings and text are kept; change a setting "
        "or reload the page to try again."
    )
