"""Keyboard shortcuts for a page: a tiny inline component that sends key presses to Python.

Streamlit has no key-binding API, so this component (custom components v2, like
``explorer/storage.py``: no build step, no files, nothing loaded from elsewhere) listens to
``keydown`` on the app's document while it is mounted and hands the keys it was asked
for to Python. Keys typed into a text field, a number input or a select box, and keys
pressed with Ctrl, Alt or Meta (the browser's own shortcuts) are left alone.

Each press gets a sequence number that only grows, and the component's state holds the
last few presses: a press that arrives while the script is still running (two presses
merged into one rerun) is not lost, and a rerun for another reason does not repeat one.
Python reads the state with :func:`new_presses`, which returns each press once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import streamlit as st

COMPONENT_NAME = "nearsim_keys"
KEPT = 20  # presses kept in the component's state

_JS = """
export default function(component) {
    const { data, setStateValue } = component;
    const wanted = new Set((data && data.keys) || []);
    const typing = (el) => {
        if (!el) { return false; }
        const tag = (el.tagName || "").toUpperCase();
        return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT"
            || el.isContentEditable === true
            || (el.getAttribute && el.getAttribute("role") === "combobox");
    };
    const onKey = (event) => {
        if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) { return; }
        if (!wanted.has(event.key)) { return; }
        const target = event.composedPath ? event.composedPath()[0] : event.target;
        if (typing(target) || typing(document.activeElement)) { return; }
        event.preventDefault();
        // a number that only grows, across remounts of this component in the page
        const seq = Math.max((window.__nearsimKeySeq || 0) + 1, Date.now() * 1000);
        window.__nearsimKeySeq = seq;
        const kept = (window.__nearsimKeyPresses || []).concat([{ seq: seq, key: event.key }]);
        window.__nearsimKeyPresses = kept.slice(-KEPT);
        setStateValue("presses", window.__nearsimKeyPresses);
    };
    // one listener at a time, whatever the number of renders
    if (window.__nearsimKeyListener) {
        document.removeEventListener("keydown", window.__nearsimKeyListener);
    }
    window.__nearsimKeyListener = onKey;
    document.addEventListener("keydown", onKey);
    window.__nearsimKeysReady = true;
    return () => {
        document.removeEventListener("keydown", onKey);
        if (window.__nearsimKeyListener === onKey) {
            window.__nearsimKeyListener = null;
            window.__nearsimKeysReady = false;
        }
    };
}
""".replace("KEPT", str(KEPT))


@st.cache_resource
def _component():
    return st.components.v2.component(COMPONENT_NAME, js=_JS, html="<span></span>")


def _presses(value) -> list:
    got = getattr(value, "presses", None)
    if got is None and isinstance(value, dict):
        got = value.get("presses")
    return got if isinstance(got, list) else []


def new_presses(key: str, keys: Iterable[str]) -> list[str]:
    """The keys pressed since the last call (oldest first), read from the component's state.

    Call it before drawing what the keys act on; :func:`listen` mounts the component.

    Parameters
    ----------
    key : str
        The component's key (its state lives in ``st.session_state[key]``).
    keys : iterable of str
        The keys the page acts on (``KeyboardEvent.key`` values: "d", "ArrowLeft").

    Returns
    -------
    list of str
    """
    ss = st.session_state
    seen_key = f"_{key}_seen"
    seen = ss.get(seen_key, 0)
    allowed = set(keys)
    out = []
    for press in _presses(ss.get(key)):
        if not isinstance(press, dict):
            continue
        seq, name = press.get("seq"), press.get("key")
        valid_seq = isinstance(seq, int | float) and not isinstance(seq, bool)
        if valid_seq and seq > seen and isinstance(name, str) and name in allowed:
            out.append(name)
            seen = seq
    ss[seen_key] = seen
    return out


def listen(key: str, keys: Iterable[str], on_press: Callable[[], None] | None = None) -> None:
    """Mount the listener (it draws nothing) for these keys.

    Parameters
    ----------
    key : str
        The component's key, as for :func:`new_presses`.
    keys : iterable of str
        The keys to send to Python.
    on_press : callable, optional
        Called before the rerun a press causes (like a button's ``on_click``); it reads
        the presses with :func:`new_presses`.
    """
    try:
        _component()(
            key=key,
            data={"keys": list(keys)},
            default={"presses": []},
            height=0,
            on_presses_change=on_press or (lambda: None),
        )
    except Exception:  # no browser (AppTest) or components unavailable: the buttons remain
        return
