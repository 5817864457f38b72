"""The sidebar: one widget per Settings field, bound to the URL, built from FIELD_SPECS.

The URL is read once, raw, before any widget exists, and run through
``Settings.parse_query``: a bound widget would silently drop a value it cannot show, and
the user deserves to hear what a tampered link reset. Widgets then start from the parsed
settings. Cross-field rules (bands × rows ≤ num_perm, bands and rows from the tuner) are
applied in change callbacks, before the next run draws the widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

import streamlit as st

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
    "MinHash": ("num_perm", "hash_seed"),
    "Banding (LSH)": ("threshold", "auto_tune", "fp_weight", "bands", "rows"),
    "SimHash": ("simhash_distance",),
}
PROBLEMS = "_link_problems"
SEEDED = "_settings_seeded"


def _query_dict(params: Mapping) -> dict[str, list[str]]:
    return {k: params.get_all(k) if hasattr(params, "get_all") else params[k] for k in params}


def seed(params: Mapping | None = None, *, announce: bool = True) -> tuple[Settings, list[str]]:
    """Put the settings parsed from a query into session state.

    Parameters
    ----------
    params : mapping, optional
        A query (str → str or list of str); default: this page's URL query.
    announce : bool
        Keep the problems for :func:`show_problems` to display.
    """
    raw = _query_dict(st.query_params if params is None else params)
    settings, problems = Settings.parse_query(raw)
    for name in FIELD_SPECS:
        st.session_state[name] = getattr(settings, name)
    if announce:
        st.session_state[PROBLEMS] = problems
    return settings, problems


def seed_from_address() -> None:
    """Seed the settings from this page's address, once per session.

    The address bar is then rewritten to hold only the settings in force, and the script
    reruns before any widget is drawn: on a first load a widget bound to the URL takes the
    link's raw value over the repaired one (``bands × rows`` over ``num_perm``), and junk
    keys or escaped markup would otherwise stay in the address after the warning.
    """
    ss = st.session_state
    if ss.get(SEEDED):
        return
    settings, _ = seed()
    ss[SEEDED] = True
    clean = settings.to_query()
    if _query_dict(st.query_params) != {k: [v] for k, v in clean.items()}:
        st.query_params.from_dict(clean)
        st.rerun()


def _fix_banding(changed: str) -> None:
    """Keep bands × rows ≤ num_perm after one of them changed, and say what moved."""
    ss = st.session_state
    if ss.get("auto_tune", True):
        return
    keep = "rows" if changed == "rows" else "bands"
    b, r = fit_banding(ss["bands"], ss["rows"], ss["num_perm"], keep=keep)
    if b != ss["bands"] and changed != "bands":
        ss["_banding_note"] = f"Bands lowered to {b} so that bands × rows ≤ {ss['num_perm']}."
    elif r != ss["rows"] and changed != "rows":
        ss["_banding_note"] = (
            f"Rows per band lowered to {r} so that bands × rows ≤ {ss['num_perm']}."
        )
    ss["bands"], ss["rows"] = b, r


def _on_change(name: str) -> None:
    ss = st.session_state
    ss[PROBLEMS] = []
    if name == "auto_tune" and not ss["auto_tune"]:
        # start the manual choice from the tuner's
        ss["bands"], ss["rows"] = tuned_bands_rows(ss["threshold"], ss["num_perm"], ss["fp_weight"])
    if name in ("num_perm", "bands", "rows"):
        _fix_banding(name)


def _widget(name: str, container) -> None:
    spec = FIELD_SPECS[name]
    kw = {
        "key": name,
        "help": spec.help,
        "bind": "query-params",
        "on_change": _on_change,
        "args": (name,),
    }
    if spec.kind == "bool":
        container.toggle(spec.label, value=spec.default, **kw)
    elif spec.kind == "choice":
        # no format_func: a bound radio writes the option as displayed into the URL, and the
        # link must carry the same values as Settings.to_query()
        container.radio(
            spec.label,
            spec.choices,
            index=spec.choices.index(spec.default),
            horizontal=True,
            **kw,
        )
    elif spec.kind == "float":
        container.slider(
            spec.label,
            min_value=float(spec.low),
            max_value=float(spec.high),
            value=float(spec.default),
            step=STEPS.get(name, 0.01),
            **kw,
        )
    else:
        container.number_input(
            spec.label,
            min_value=int(spec.low),
            max_value=None if spec.high is None else int(spec.high),
            value=int(spec.default),
            step=STEPS.get(name, 1),
            **kw,
        )


def sidebar() -> Settings:
    """Draw every setting in the sidebar and return the validated Settings."""
    ss = st.session_state
    seed_from_address()
    side = st.sidebar
    slots = {}
    for title, names in SECTIONS.items():
        side.subheader(title)
        slots[title] = side.empty()
        for name in names:
            if name in ("n_docs", "example_seed") and ss.get("source") != "example":
                continue
            if name in ("bands", "rows") and ss.get("auto_tune", True):
                continue
            _widget(name, side)
        if title == "Banding (LSH)":
            if ss.get("auto_tune", True):
                b, r = tuned_bands_rows(ss["threshold"], ss["num_perm"], ss["fp_weight"])
                side.caption(f"Tuned: **{b} bands × {r} rows** per band (b·r = {b * r}).")
            note = ss.pop("_banding_note", None)
            if note:
                side.info(note)
    ss["_error_slots"] = slots
    values = {name: ss.get(name, spec.default) for name, spec in FIELD_SPECS.items()}
    try:
        return Settings(**values)
    except ValueError as exc:
        side.error(f"These settings cannot be used: {exc}. Using the defaults instead.")
        return Settings()


STAGE_SECTIONS = {
    "shingles": "Shingles",
    "signatures": "MinHash",
    "candidates": "Banding (LSH)",
    "exact": "Banding (LSH)",
    "sample": "Banding (LSH)",
    "evaluation": "Banding (LSH)",
    "rates": "Banding (LSH)",
    "simhash": "SimHash",
}


def show_stage_error(stage: str | None, message: str) -> None:
    """Put a library error next to the inputs of the stage that raised it."""
    slots = st.session_state.get("_error_slots") or {}
    slot = slots.get(STAGE_SECTIONS.get(stage or "", ""), None)
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
    """A Share popover that shows the link."""
    with st.sidebar.popover("Share these settings", icon=":material/share:", width="stretch"):
        st.caption("The link carries the settings only — never your documents.")
        st.code(share_link(settings), language=None, wrap_lines=True)
