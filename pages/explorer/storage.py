"""Keep settings, pasted text, the CSV file and hand labels in this browser's local storage.

Streamlit has no API for the browser's storage, so a tiny inline component (custom
components v2: no build step, no files, nothing loaded from elsewhere) reads it once
when the page opens and writes whatever Python hands it on each rerun. The pasted text and
an uploaded CSV file (with its chosen column) are kept, so a reload does
not lose them; other files are not. Hand labels (``explorer/labelling.py``) are kept per
set of documents, keyed by their digest. Nothing leaves the browser, and none of it goes
in a link.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from nearsim.settings import Settings

SETTINGS_KEY = "nearsim.settings"
PASTE_KEY = "nearsim.paste"
CSV_KEY = "nearsim.csv"
LABELS_KEY = "nearsim.explore.labels"
MAX_PASTE_CHARS = 2_000_000  # local storage holds about 5 MB per site
MAX_CSV_BYTES = 2_000_000  # base64 makes it 2.7 MB
COMPONENT_KEY = "nearsim_storage"
KEYS = {"settings": SETTINGS_KEY, "paste": PASTE_KEY, "csv": CSV_KEY, "labels": LABELS_KEY}

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
    // Read once per page load, before anything is written. What was kept goes to Python
    // (a rerun restores it); an empty store needs no answer and no rerun.
    if (!window.__nearsimStorageRead) {
        window.__nearsimStorageRead = true;
        const kept = {};
        let held = false;
        for (const [name, key] of Object.entries(KEYS)) {
            kept[name] = read(key);
            held = held || kept[name] !== null;
        }
        window.__nearsimStorageHeld = held;
        if (held) { setStateValue("stored", kept); }
    }
    // Kept values are not overwritten before Python has restored them (data.restored).
    if (data && data.write && (!window.__nearsimStorageHeld || data.restored)) {
        for (const [k, v] of Object.entries(data.write)) { write(k, v); }
    }
}
""".replace("KEYS", json.dumps(KEYS))


@st.cache_resource
def _component():
    return st.components.v2.component("nearsim_storage", js=_JS, html="<span></span>")


KEPT = "_storage_kept"


def stored() -> dict[str, Any] | None:
    """What the browser had stored when the page opened (None until it has answered, and
    for good when it kept nothing).

    The browser answers once per page load when it kept anything; the answer is
    remembered in the session, because the component's own state does not survive a
    change of its data.
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


def _csv_value() -> str | None:
    from . import state

    upload = st.session_state.get(state.CSV_STATE)
    if not upload or len(upload[1]) > MAX_CSV_BYTES:
        return None
    name, data = upload
    column = st.session_state.get(state.CSV_COLUMN)
    payload = {"name": name, "column": column, "data": base64.b64encode(data).decode("ascii")}
    return json.dumps(payload)


def restore(kept: dict[str, Any]) -> bool:
    """Put the kept pasted text, CSV file and labels back into the session (where it has
    none; labels are merged, the session's own winning).

    Returns
    -------
    bool
        Whether anything was restored (the page should then run again).
    """
    from . import labelling, state

    ss = st.session_state
    changed = labelling.load(kept.get("labels"))
    paste = kept.get("paste")
    if isinstance(paste, str) and paste and not ss.get(state.PASTE_KEY):
        ss[state.PASTE_KEY] = paste
        changed = True
    raw = kept.get("csv")
    if isinstance(raw, str) and raw and not ss.get(state.CSV_STATE):
        try:
            payload = json.loads(raw)
            data = base64.b64decode(payload["data"], validate=True)
            name = str(payload["name"])
        except (ValueError, KeyError, TypeError, binascii.Error):
            return changed  # a damaged entry is ignored (and overwritten by the next write)
        ss[state.CSV_STATE] = (name, data)
        if isinstance(payload.get("column"), str):
            ss[state.CSV_COLUMN] = payload["column"]
        changed = True
    return changed


def sync(settings: Settings) -> dict[str, Any] | None:
    """Mount the storage component and write the current settings, paste, CSV and labels.

    The whole current state is sent on every run (writing it again is harmless): a
    browser that skips an intermediate run's data still ends up with the latest values.
    A browser that kept something answers once, and writes nothing until Python has
    restored it (``restored`` in the data): a new tab would otherwise replace the kept
    settings with the defaults before restoring them. A browser that kept nothing does
    not answer, so a first visit costs one script run, not two, and writes at once.

    Returns
    -------
    dict or None
        What the browser had stored when the page opened (None until it has answered, and
        in tests without a browser).
    """
    from . import labelling, state

    paste = st.session_state.get(state.PASTE_KEY) or None
    write = {
        SETTINGS_KEY: urlencode(settings.to_query()),
        PASTE_KEY: paste if paste is None or len(paste) <= MAX_PASTE_CHARS else None,
        CSV_KEY: _csv_value(),
        LABELS_KEY: labelling.dump(),
    }
    try:
        result = _component()(
            key=COMPONENT_KEY,
            data={"write": write, "restored": stored() is not None},
            default={"stored": None},
            height=0,
            on_stored_change=lambda: None,
        )
    except Exception:  # no browser (AppTest) or components unavailable: work without it
        return None
    kept = getattr(result, "stored", None)
    return kept if isinstance(kept, dict) else None
