"""Keep settings and pasted text in this browser's local storage.

Streamlit has no API for the browser's storage, so a tiny inline component (custom
components v2: no build step, no files, nothing loaded from elsewhere) reads it once
when the page opens and writes whatever Python hands it on each rerun. Documents other
than pasted text are never stored, and nothing leaves the browser.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

SETTINGS_KEY = "nearsim.settings"
PASTE_KEY = "nearsim.paste"
MAX_PASTE_CHARS = 2_000_000  # local storage holds about 5 MB per site
COMPONENT_KEY = "nearsim_storage"

_JS = """
export default function(component) {
    const { data, setStateValue } = component;
    const read = (k) => {
        try { return window.localStorage.getItem(k); } catch (e) { return null; }
    };
    const write = (k, v) => {
        try {
            if (v === null || v === undefined) { window.localStorage.removeItem(k); }
            else { window.localStorage.setItem(k, v); }
        } catch (e) { /* storage full or disabled: carry on without it */ }
    };
    // Read once per page load, before anything is written, and hand it to Python.
    if (!window.__nearsimStorageRead) {
        window.__nearsimStorageRead = true;
        setStateValue("stored", { settings: read(SETTINGS_KEY), paste: read(PASTE_KEY) });
    }
    if (data && data.write) {
        for (const [k, v] of Object.entries(data.write)) { write(k, v); }
    }
}
""".replace("SETTINGS_KEY", json.dumps(SETTINGS_KEY)).replace("PASTE_KEY", json.dumps(PASTE_KEY))


@st.cache_resource
def _component():
    return st.components.v2.component("nearsim_storage", js=_JS, html="<span></span>")


KEPT = "_storage_kept"


def stored() -> dict[str, Any] | None:
    """What the browser had stored when the page opened (None until it has answered).

    The browser answers once per page load; the answer is remembered in the session,
    because the component's own state does not survive a change of its data.
    """
    ss = st.session_state
    if ss.get(KEPT) is not None:
        return ss[KEPT]
    value = ss.get(COMPONENT_KEY)
    got = getattr(value, "stored", None)
    if got is None and isinstance(value, dict):
        got = value.get("stored")
    if isinstance(got, dict):
        ss[KEPT] = got
        return got
    return None


def sync(write: dict[str, str | None] | None = None) -> dict[str, Any] | None:
    """Mount the storage component; write ``write`` (key → value, None deletes).

    The whole current state is sent on every run (writing it again is harmless): a
    browser that skips an intermediate run's data still ends up with the latest values.

    Returns
    -------
    dict or None
        ``{"settings": str | None, "paste": str | None}`` as stored when the page
        opened (None until the browser has answered, and in tests without a browser).
    """
    if stored() is None:
        # until the browser has said what it kept, write nothing: a new tab would otherwise
        # replace the kept settings with the defaults before restoring them
        write = {}
    write = {
        k: (v if v is None or len(v) <= MAX_PASTE_CHARS else None) for k, v in (write or {}).items()
    }
    try:
        result = _component()(
            key=COMPONENT_KEY,
            data={"write": write or {}},
            default={"stored": None},
            height=0,
            on_stored_change=lambda: None,
        )
    except Exception:  # no browser (AppTest) or components unavailable: work without it
        return None
    kept = getattr(result, "stored", None)
    return kept if isinstance(kept, dict) else None
