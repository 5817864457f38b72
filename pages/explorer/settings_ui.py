"""The sidebar: one widget per Settings field, built from FIELD_SPECS, and the address bar.

The address is read once per session, raw, and run through ``Settings.parse_query``: the
user hears, in one warning, what a tampered or outdated link reset. From then on the
widgets hold the settings (session state keyed by the field names) and every run writes
the settings in force back to the address (``Settings.to_query()``), so the address bar,
the Share link and the widgets can never disagree, and junk in a link does not stay in
the address. Cross-field rules (bands × rows ≤ num_perm, bands and rows from the tuner)
are applied in change callbacks, before the next run draws the widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

import streamlit as st
from nearsim_app.explorer import launch

from nearsim.explore.export import dedup_command
from nearsim.settings import FIELD_SPECS, Settings, fit_banding, tuned_bands_rows

STEPS = {"threshold": 0.01, "fp_weight": 0.05, "n_docs": 100, "num_perm": 8}
SECTIONS = {
    "Documents": ("source", "n_docs", "example_seed"),
    "Shingles": (
        "shingle_kind",
        "shingle_k",
        "lowercase",
        "remove_punctuation",
        "collapse_whitespace",
        "min_shingles",
    ),
    "MinHash": ("num_perm", "hash_seed", "sketch"),
    "Banding (LSH)": ("threshold", "auto_tune", "fp_weight", "bands", "rows"),
    "SimHash": ("simhash_distance",),
}
SECTION_OF = {name: title for title, names in SECTIONS.items() for name in names}
PROBLEMS = "_link_problems"
NOTES = "_setting_notes"
SEEDED = "_settings_seeded"
TOUCHED = "_settings_touched"
"""Set once the user changes a setting: from then on the widgets, not the address, lead."""
VISIT_QUERY = "_visit_had_query"


def _query_dict(params: Mapping) -> dict[str, list[str]]:
    return {k: params.get_all(k) if hasattr(params, "get_all") else params[k] for k in params}


def seed(params: Mapping | None = None, *, announce: bool = True) -> tuple[Settings, list[str]]:
    """Put the settings parsed from a query into session state.

    Parameters
    ----------
    params : mapping, optional
        A query (str → str or list of str); default: this page's address.
    announce : bool
        Keep the problems for :func:`show_problems` to display.

    Returns
    -------
    (Settings, list of str)
        The settings and what was reset.
    """
    raw = _query_dict(st.query_params if params is None else params)
    settings, problems = Settings.parse_query(raw)
    for name in FIELD_SPECS:
        st.session_state[name] = getattr(settings, name)
    if announce:
        st.session_state[PROBLEMS] = problems
    return settings, problems


def current_settings() -> Settings:
    """The settings the widgets hold (the defaults where they cannot be used together)."""
    ss = st.session_state
    values = {name: ss.get(name, spec.default) for name, spec in FIELD_SPECS.items()}
    try:
        return Settings(**values)
    except ValueError:
        return Settings()


def _address_holds(settings: Settings) -> bool:
    """Whether the address bar's query is exactly these settings' query."""
    return _query_dict(st.query_params) == {k: [v] for k, v in settings.to_query().items()}


def write_address(settings: Settings) -> None:
    """Make the address bar hold exactly the settings in force (only what changed)."""
    if not _address_holds(settings):
        st.query_params.from_dict(settings.to_query())


def apply_settings(**changes) -> None:
    """Set some settings from a page (a button's ``on_click``: it runs before the sidebar
    is drawn, so the widgets show the new values); validated as Settings."""
    st.session_state[TOUCHED] = True
    new = current_settings().replace(**changes)
    for name in FIELD_SPECS:
        st.session_state[name] = getattr(new, name)
    st.session_state[PROBLEMS] = []


def reset_to_defaults() -> None:
    """Every setting back to its default, except where the documents come from (a button's
    ``on_click``, before the widgets are drawn)."""
    ss = st.session_state
    defaults = Settings(source=current_settings().source)
    for name in FIELD_SPECS:
        ss[name] = getattr(defaults, name)
    ss[TOUCHED] = True
    ss[PROBLEMS] = []


def _note(name: str, text: str) -> None:
    st.session_state.setdefault(NOTES, {})[SECTION_OF[name]] = text


def _fix_banding(changed: str) -> None:
    """Keep bands × rows ≤ num_perm after one of them changed, and say what moved."""
    ss = st.session_state
    if ss.get("auto_tune", True):
        return
    keep = "rows" if changed == "rows" else "bands"
    b, r = fit_banding(ss["bands"], ss["rows"], ss["num_perm"], keep=keep)
    k = ss["num_perm"]
    if b != ss["bands"] and changed != "bands":
        _note("bands", f"Bands lowered to {b} so that bands × rows ≤ {k}.")
    elif r != ss["rows"] and changed != "rows":
        _note("rows", f"Rows per band lowered to {r} so that bands × rows ≤ {k}.")
    ss["bands"], ss["rows"] = b, r


def _link_not_applied() -> bool:
    """The address holds settings this untouched session has not put in force."""
    if st.session_state.get(TOUCHED) or len(st.query_params) == 0:
        return False
    return not _address_holds(current_settings())


def _on_change(name: str) -> None:
    ss = st.session_state
    ss[TOUCHED] = True
    ss[PROBLEMS] = []
    spec = FIELD_SPECS[name]
    if spec.kind == "int":  # a typed value out of range: say so, keep the last good one
        try:
            spec.coerce(ss[name])
        except ValueError:
            typed = ss[name]
            ss[name] = ss.get("_good", {}).get(name, spec.default)
            _note(
                name,
                f"{spec.label}: {typed} is not accepted ({spec.accepted()}); kept {ss[name]}.",
            )
            return
    if name == "auto_tune" and not ss["auto_tune"]:
        # start the manual choice from the tuner's
        ss["bands"], ss["rows"] = tuned_bands_rows(ss["threshold"], ss["num_perm"], ss["fp_weight"])
    if name in ("num_perm", "bands", "rows"):
        _fix_banding(name)


JS_SAFE_INT = 2**53 - 1
"""The largest integer a browser's number input holds exactly (larger seeds stay valid)."""


def _widget(name: str, container, value) -> None:
    """Draw one setting's widget. Its value is in session state under ``name``; ``value``
    (the setting in force) is also given as the widget's default, so that a widget the
    browser draws afresh without its state starts from the setting, not from Streamlit's
    own default (off, the slider's minimum, 0). CI once saw every sidebar setting come back
    at those defaults together, on a tab's click at 20,000 documents; the change callbacks
    then took them as the user's (threshold 0.05, 128 bands of 1 row)."""
    spec = FIELD_SPECS[name]
    kw = {"key": name, "help": spec.help, "on_change": _on_change, "args": (name,)}
    if spec.kind == "bool":
        container.toggle(spec.label, value=bool(value), **kw)
    elif spec.kind == "choice":
        container.radio(
            spec.label,
            spec.choices,
            index=spec.choices.index(value),
            format_func=spec.label_of,
            horizontal=True,
            **kw,
        )
    elif spec.kind == "float":
        container.slider(
            spec.label,
            min_value=float(spec.low),
            max_value=float(spec.high),
            value=float(value),
            step=STEPS.get(name, 0.01),
            **kw,
        )
    else:  # no min/max: a value out of range is explained by _on_change, not a red box
        default = int(value) if abs(int(value)) <= JS_SAFE_INT else "min"  # Streamlit's own
        container.number_input(spec.label, value=default, step=STEPS.get(name, 1), **kw)


def sidebar() -> tuple[Settings, dict]:
    """Draw every setting in the sidebar.

    Returns
    -------
    settings : Settings
        The validated settings in force.
    slots : dict of str to container
        One empty container at the top of each section, for a message about it.
    """
    ss = st.session_state
    if not ss.get(SEEDED):
        seed()
        ss[SEEDED] = True
        if launch.corpus_arguments().paths and "source" not in st.query_params:
            ss["source"] = "corpus"  # `nearsim app corpus.jsonl` opens on that corpus
    elif _link_not_applied():
        # A first run can start before Streamlit has the page's query (CI saw a link's
        # values lost that way): until the user changes something, the link's settings win.
        seed()
        ss[VISIT_QUERY] = True
    good = ss.get("_good")
    if good is not None:  # a widget's state that Streamlit dropped comes back from the last run
        for name in FIELD_SPECS:
            if name not in ss:
                ss[name] = good[name]
    settings = current_settings()
    ss["_good"] = settings.to_dict()
    side = st.sidebar
    notes = ss.pop(NOTES, {})
    slots = {}
    for title, names in SECTIONS.items():
        side.subheader(title)
        slots[title] = side.empty()
        for name in names:
            if name in ("n_docs", "example_seed") and settings.source != "example":
                continue
            if name in ("bands", "rows") and settings.auto_tune:
                continue
            _widget(name, side, getattr(settings, name))
        if title == "Banding (LSH)" and settings.auto_tune:
            b, r = settings.bands, settings.rows
            side.caption(f"Tuned: **{b} bands × {r} rows** per band (b·r = {b * r}).")
        if title in notes:
            side.info(notes[title])
    side.button(
        "Reset settings to defaults",
        key="reset_defaults",
        icon=":material/restart_alt:",
        on_click=reset_to_defaults,
        help="Every setting above back to its default; your documents stay.",
    )
    return settings, slots


def show_stage_error(slots: dict, stage: str, message: str) -> None:
    """Put a library error next to the inputs of the stage that raised it (the section of
    the most specific setting the stage depends on)."""
    from nearsim.pipeline import key_fields

    fields = key_fields(stage)
    slot = slots.get(SECTION_OF[fields[-1]]) if fields else None
    if slot is not None:
        slot.error(message, icon=":material/error:")


def show_problems() -> None:
    """One warning listing what a tampered or outdated link reset."""
    problems = st.session_state.get(PROBLEMS) or []
    if problems:
        st.warning(
            "Some settings in this link could not be used and were reset:\n\n"
            + "\n".join(f"- {p}" for p in problems),
            icon=":material/warning:",
        )


def share_link(settings: Settings) -> str:
    """This app's address with the settings (never the documents) as its query."""
    base = (st.context.url or "").split("?", 1)[0]
    query = urlencode(settings.to_query())
    return f"{base}?{query}" if query else base


def share_button(settings: Settings) -> None:
    """A Share popover that shows the link, and under it the same settings as a
    ``nearsim dedup`` command."""
    with st.sidebar.popover("Share these settings", icon=":material/share:", width="stretch"):
        st.caption("The link carries the settings only — never your documents.")
        st.code(share_link(settings), language=None, wrap_lines=True)
        st.caption(
            "The same settings over a whole corpus (INPUT: your files or folder; DIR: a "
            "folder for the results):"
        )
        st.code(dedup_command(settings), language="bash", wrap_lines=True)
