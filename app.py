"""nearsim explorer: choose and check near-duplicate detection settings.

Run with ``scripts/app`` (or ``streamlit run app.py``). This entry point draws the
settings sidebar (every setting bound to the URL), keeps settings and pasted text in the
browser, and hands over to the page the user picked. Pages live in ``pages/``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode

import streamlit as st

from explorer import settings_ui, state, storage

st.set_page_config(
    page_title="nearsim — near-duplicate explorer",
    page_icon="🔎",  # inlined as a data: URL; a material icon would be fetched from Google
    layout="wide",
    initial_sidebar_state="expanded",
)

ss = st.session_state

# -- restore what this browser kept, once per visit ----------------------------------------
if not ss.get(settings_ui.SEEDED):
    ss["_visit_had_query"] = len(st.query_params) > 0
stored = storage.stored()
if stored is not None and not ss.get("_storage_restored"):
    ss["_storage_restored"] = True
    rerun = False
    if not ss.get("_visit_had_query") and stored.get("settings"):
        settings_ui.seed(parse_qs(stored["settings"]), announce=False)
        ss[settings_ui.SEEDED] = True
        rerun = True
    if stored.get("paste") and not ss.get(state.PASTE_KEY):
        ss[state.PASTE_KEY] = stored["paste"]
        rerun = True
    if rerun:
        st.rerun()

# -- settings ------------------------------------------------------------------------------
settings = settings_ui.sidebar()
settings_ui.share_button(settings)
ss["_settings"] = settings

# -- keep settings and pasted text in this browser (before the page: a page may stop early)
storage.sync(
    {
        storage.SETTINGS_KEY: urlencode(settings.to_query()),
        storage.PASTE_KEY: (ss.get(state.PASTE_KEY) or None),
    }
)

pages = [
    st.Page("pages/documents.py", title="Documents", icon=":material/description:", default=True),
    st.Page("pages/minhash.py", title="Shingles & MinHash", icon=":material/tag:"),
    st.Page("pages/banding.py", title="Banding", icon=":material/ssid_chart:"),
    st.Page("pages/results.py", title="Results", icon=":material/task_alt:"),
    st.Page("pages/clusters.py", title="Clusters", icon=":material/workspaces:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
]
page = st.navigation(pages, position="top")
settings_ui.show_problems()
ss["_status_slot"] = st.empty()

try:
    page.run()
except state.StageError as exc:  # the library's message says what was wrong and accepted
    settings_ui.show_stage_error(exc.stage, str(exc))
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
