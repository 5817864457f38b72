"""Hand labels in this session: per set of documents, with undo and a position in the queue.

Labels are keyed by the documents' digest (``Documents.digest``), so the labels of one
corpus never show on another. ``explorer/storage.py`` keeps them in this browser with
:func:`dump` and :func:`load`; they never go in a link. The Threshold page draws the pairs
to label and calls :func:`set_view` on every run, and every way of acting on the pair on
screen — its buttons (callbacks) and its keyboard shortcuts — goes through :func:`act`,
which works on the pairs that run drew.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import streamlit as st

from nearsim.explore.labels import LABELS, check_labels

BOOK = "_hand_labels"  # {digest: {(i, j): (jaccard, label)}}, each dict in the order labelled
UNDO = "_hand_labels_undo"  # [(digest, i, j, previous (jaccard, label) or None)]
VIEW = "_label_view"  # what the last run drew: digest, threshold, queue, pos
MAX_CORPORA = 20  # sets of documents whose labels the browser keeps (the latest touched)
MAX_KEPT = 20_000  # labels the browser keeps in all (about 1 MB)
MAX_UNDO = 500
_DIGEST = re.compile(r"[0-9a-f]{16}")

ACTIONS = (*LABELS, "previous", "next", "undo")
KEYMAP = {
    "d": "duplicate",
    "n": "not a duplicate",
    "u": "unsure",
    "ArrowLeft": "previous",
    "ArrowRight": "next",
    "z": "undo",
}
"""Keyboard shortcuts: key (``KeyboardEvent.key``) → action."""


def _book() -> dict[str, dict[tuple[int, int], tuple[float, str]]]:
    return st.session_state.setdefault(BOOK, {})


def _touch(digest: str) -> dict[tuple[int, int], tuple[float, str]]:
    """This digest's labels, moved to the end (the latest touched)."""
    book = _book()
    labels = book.pop(digest, {})
    book[digest] = labels
    return labels


def table(digest: str) -> pd.DataFrame:
    """The labels of these documents, in the order labelled (a ``nearsim.explore.labels`` table)."""
    rows = _book().get(digest, {})
    return pd.DataFrame(
        {
            "i": np.array([p[0] for p in rows], dtype=np.int64),
            "j": np.array([p[1] for p in rows], dtype=np.int64),
            "jaccard": np.array([v[0] for v in rows.values()], dtype=np.float64),
            "label": pd.Series([v[1] for v in rows.values()], dtype=object),
        }
    )


def label_of(digest: str, i: int, j: int) -> str | None:
    """The label of one pair, or None."""
    got = _book().get(digest, {}).get((int(i), int(j)))
    return None if got is None else got[1]


def count(digest: str) -> int:
    return len(_book().get(digest, {}))


def put(digest: str, i: int, j: int, jaccard: float, label: str) -> None:
    """Label one pair (a new label for a labelled pair replaces it); undoable."""
    if label not in LABELS:
        raise ValueError(f"label={label!r} is not accepted; accepted: one of {LABELS}")
    labels = _touch(digest)
    pair = (int(i), int(j))
    previous = labels.pop(pair, None)
    labels[pair] = (float(jaccard), label)
    undo = st.session_state.setdefault(UNDO, [])
    undo.append((digest, pair[0], pair[1], previous))
    del undo[:-MAX_UNDO]


def undo(digest: str) -> tuple[int, int] | None:
    """Take back the last label given to these documents; the pair it was, or None."""
    stack = st.session_state.get(UNDO) or []
    for k in range(len(stack) - 1, -1, -1):
        if stack[k][0] == digest:
            _, i, j, previous = stack.pop(k)
            labels = _touch(digest)
            labels.pop((i, j), None)
            if previous is not None:
                labels[(i, j)] = previous
            return i, j
    return None


def merge(digest: str, labels: pd.DataFrame) -> tuple[int, int]:
    """Add checked labels (imported ones win over the session's); not undoable.

    Returns
    -------
    (int, int)
        Labels that were new, and labels that replaced one of the session's.
    """
    book = _touch(digest)
    new = replaced = 0
    for i, j, jac, label in labels[["i", "j", "jaccard", "label"]].itertuples(index=False):
        pair = (int(i), int(j))
        if pair in book:
            replaced += 1
            del book[pair]
        else:
            new += 1
        book[pair] = (float(jac), str(label))
    return new, replaced


# -- kept in the browser ------------------------------------------------------------------
def dump() -> str | None:
    """The labels to keep in the browser, as JSON (None when there are none).

    Only the :data:`MAX_CORPORA` sets of documents touched last, and at most
    :data:`MAX_KEPT` labels in all (the latest sets first).
    """
    kept: dict[str, list] = {}
    total = 0
    for digest, labels in reversed(list(_book().items())[-MAX_CORPORA:]):
        if not labels or total + len(labels) > MAX_KEPT:
            continue
        kept[digest] = [[i, j, jac, label] for (i, j), (jac, label) in labels.items()]
        total += len(labels)
    if not kept:
        return None
    return json.dumps({"version": 1, "labels": dict(reversed(kept.items()))})


def load(raw) -> bool:
    """Put labels kept in the browser into the session (the session's own win).

    A damaged entry, or one set of documents whose rows do not pass
    ``nearsim.explore.labels.check_labels``, is left out (and replaced by the next write).

    Returns
    -------
    bool
        Whether any label was added.
    """
    try:
        payload = json.loads(raw) if isinstance(raw, str) else None
        corpora = payload["labels"] if isinstance(payload, dict) else None
    except (ValueError, KeyError, TypeError):
        return False
    if not isinstance(corpora, dict):
        return False
    book = _book()
    added = False
    for digest, rows in corpora.items():
        if not (isinstance(digest, str) and _DIGEST.fullmatch(digest) and isinstance(rows, list)):
            continue
        try:
            frame = pd.DataFrame(rows, columns=["i", "j", "jaccard", "label"])
            checked = check_labels(frame, "kept labels")
        except (ValueError, TypeError):
            continue
        mine = book.setdefault(digest, {})
        for i, j, jac, label in checked.itertuples(index=False):
            if (int(i), int(j)) not in mine:
                mine[(int(i), int(j))] = (float(jac), str(label))
                added = True
    return added


# -- the pair on screen --------------------------------------------------------------------
def _first_open(digest: str, queue: list, start: int = 0) -> int:
    """The first unlabelled pair at or after ``start`` (wrapping), or len(queue)."""
    labels = _book().get(digest, {})
    n = len(queue)
    for step in range(n):
        q = (start + step) % n
        if (queue[q][0], queue[q][1]) not in labels:
            return q
    return n


def set_view(digest: str, threshold: float, queue: list[tuple[int, int, float]]) -> int:
    """Record the pairs this run draws; returns the position of the pair to show.

    The position is kept while the documents, the threshold and the queue stay the same;
    otherwise it moves to the first unlabelled pair (len(queue) when all are labelled).
    """
    ss = st.session_state
    view = ss.get(VIEW)
    same = (
        view is not None
        and view["digest"] == digest
        and view["threshold"] == threshold
        and view["queue"] == queue
    )
    pos = min(view["pos"], len(queue)) if same else _first_open(digest, queue)
    ss[VIEW] = {"digest": digest, "threshold": threshold, "queue": queue, "pos": pos}
    return pos


def position() -> int:
    view = st.session_state.get(VIEW)
    return 0 if view is None else view["pos"]


def can_undo(digest: str) -> bool:
    """Whether this session has a label of these documents to take back."""
    return any(entry[0] == digest for entry in st.session_state.get(UNDO) or [])


def handle_keys(component_key: str) -> None:
    """Act on the shortcut keys pressed since the last call (:mod:`explorer.keys`)."""
    from . import keys

    for key in keys.new_presses(component_key, KEYMAP):
        act(KEYMAP[key])


def act(action: str) -> None:
    """Label, move or undo on the pairs the last run drew (a button's or a key's action)."""
    view = st.session_state.get(VIEW)
    if view is None or action not in ACTIONS:
        return
    digest, queue, pos = view["digest"], view["queue"], view["pos"]
    n = len(queue)
    if action in LABELS:
        if pos >= n:
            return
        i, j, jac = queue[pos]
        put(digest, i, j, jac, action)
        pos = _first_open(digest, queue, pos + 1) if n else 0
    elif action == "previous":
        pos = max(pos - 1, 0)
    elif action == "next":
        pos = min(pos + 1, n)
    else:
        pair = undo(digest)
        where = [q for q, (i, j, _) in enumerate(queue) if (i, j) == pair]
        if where:
            pos = where[0]
    view["pos"] = pos
