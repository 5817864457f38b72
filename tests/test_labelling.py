"""The explorer's label book (pages/explorer/labelling.py) and key presses (pages/explorer/keys.py),
on a plain dict standing in for Streamlit's session state."""

from __future__ import annotations

import json
import types

import pandas as pd
import pytest
from nearsim_app.explorer import keys, labelling

A, B = "0123456789abcdef", "fedcba9876543210"


@pytest.fixture
def session(monkeypatch):
    state: dict = {}
    fake = types.SimpleNamespace(session_state=state)
    monkeypatch.setattr(labelling, "st", fake)
    monkeypatch.setattr(keys, "st", fake)
    return state


def test_put_undo_and_the_order_labelled(session):
    labelling.put(A, 0, 1, 0.9, "duplicate")
    labelling.put(A, 2, 5, 0.7, "not a duplicate")
    labelling.put(A, 0, 1, 0.9, "unsure")  # relabelled: it moves to the end
    table = labelling.table(A)
    assert table.values.tolist() == [[2, 5, 0.7, "not a duplicate"], [0, 1, 0.9, "unsure"]]
    assert table.dtypes.tolist()[:3] == ["int64", "int64", "float64"]
    assert labelling.undo(A) == (0, 1)
    assert labelling.label_of(A, 0, 1) == "duplicate"  # the relabel taken back
    assert labelling.undo(A) == (2, 5) and labelling.undo(A) == (0, 1)
    assert labelling.count(A) == 0 and labelling.undo(A) is None
    with pytest.raises(ValueError, match="label='dup'"):
        labelling.put(A, 0, 1, 0.9, "dup")


def test_labels_are_per_set_of_documents(session):
    labelling.put(A, 0, 1, 0.9, "duplicate")
    labelling.put(B, 3, 4, 0.5, "unsure")
    assert labelling.count(A) == 1 and labelling.count(B) == 1
    assert labelling.label_of(B, 0, 1) is None
    assert not labelling.can_undo("0" * 16)
    assert labelling.undo(B) == (3, 4) and labelling.count(A) == 1  # undo stays per corpus


def test_merge_counts_new_and_replaced(session):
    labelling.put(A, 0, 1, 0.9, "duplicate")
    imported = pd.DataFrame(
        {"i": [0, 4], "j": [1, 7], "jaccard": [0.9, 0.6], "label": ["not a duplicate", "unsure"]}
    )
    assert labelling.merge(A, imported) == (1, 1)
    assert labelling.label_of(A, 0, 1) == "not a duplicate"  # the file wins


def test_dump_and_load_round_trip(session):
    labelling.put(A, 0, 1, 0.9, "duplicate")
    labelling.put(B, 3, 4, 0.55, "unsure")
    raw = labelling.dump()
    assert json.loads(raw)["version"] == 1
    session.clear()
    assert labelling.dump() is None
    assert labelling.load(raw)
    assert labelling.table(A).values.tolist() == [[0, 1, 0.9, "duplicate"]]
    assert labelling.table(B).values.tolist() == [[3, 4, 0.55, "unsure"]]
    # the session's own labels win over what the browser kept
    labelling.put(A, 0, 1, 0.9, "not a duplicate")
    assert not labelling.load(raw)
    assert labelling.label_of(A, 0, 1) == "not a duplicate"


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "not json",
        "[1, 2]",
        '{"labels": 3}',
        json.dumps({"labels": {"short": [[0, 1, 0.5, "unsure"]]}}),
        json.dumps({"labels": {A: [[1, 0, 0.5, "unsure"]]}}),  # i > j
        json.dumps({"labels": {A: [[0, 1, 2.0, "unsure"]]}}),  # J above 1
        json.dumps({"labels": {A: [[0, 1, 0.5, "maybe"]]}}),
        json.dumps({"labels": {A: [[0, 1]]}}),
    ],
)
def test_load_leaves_damaged_entries_out(session, raw):
    assert not labelling.load(raw)
    assert labelling.count(A) == 0


def test_dump_keeps_the_latest_corpora_within_the_limits(session, monkeypatch):
    monkeypatch.setattr(labelling, "MAX_CORPORA", 2)
    monkeypatch.setattr(labelling, "MAX_KEPT", 3)
    digests = [f"{k:016x}" for k in range(4)]
    for k, d in enumerate(digests):
        for m in range(k + 1):  # corpus k has k + 1 labels
            labelling.put(d, m, m + 1, 0.5, "unsure")
    labelling.put(digests[1], 9, 10, 0.5, "unsure")  # corpus 1 touched last (3 labels)
    kept = json.loads(labelling.dump())["labels"]
    # the two touched last are 3 and 1; 1 (3 labels) fits, 3 (4 labels) does not
    assert list(kept) == [digests[1]]


def test_act_moves_through_the_queue(session):
    queue = [(0, 1, 0.9), (1, 2, 0.8), (2, 3, 0.7)]
    assert labelling.set_view(A, 0.8, queue) == 0
    labelling.act("duplicate")
    assert labelling.position() == 1
    labelling.act("next")
    labelling.act("unsure")  # pair 3 labelled: back to the first open one, pair 2
    assert labelling.position() == 1
    labelling.act("not a duplicate")
    assert labelling.position() == 3  # all labelled: past the end
    labelling.act("duplicate")  # nothing to label there
    assert labelling.count(A) == 3
    labelling.act("previous")
    assert labelling.position() == 2
    labelling.act("undo")  # takes back pair 2's label and shows it
    assert labelling.position() == 1 and labelling.label_of(A, 1, 2) is None
    labelling.act("no such action")
    assert labelling.position() == 1
    # another threshold (another queue): the first open pair
    assert labelling.set_view(A, 0.7, [(5, 6, 0.7), (0, 1, 0.9)]) == 0
    assert labelling.set_view(A, 0.7, [(0, 1, 0.9), (5, 6, 0.7)]) == 1


def test_new_presses_each_once_in_order(session):
    allowed = labelling.KEYMAP
    session["k"] = {"presses": [{"seq": 5, "key": "d"}, {"seq": 6, "key": "x"}]}
    assert keys.new_presses("k", allowed) == ["d"]
    assert keys.new_presses("k", allowed) == []
    session["k"] = {"presses": [{"seq": 5, "key": "d"}, {"seq": 7, "key": "n"}, {"seq": 8}]}
    assert keys.new_presses("k", allowed) == ["n"]
    session["k"] = types.SimpleNamespace(presses=[{"seq": 9, "key": "ArrowLeft"}])
    assert keys.new_presses("k", allowed) == ["ArrowLeft"]
    for junk in (None, {"presses": "d"}, {"presses": [{"seq": True, "key": "d"}]}, 3):
        session["k"] = junk
        assert keys.new_presses("k", allowed) == []


def test_handle_keys_acts_on_the_view(session):
    labelling.set_view(A, 0.8, [(0, 1, 0.9), (1, 2, 0.8)])
    session["keys"] = {"presses": [{"seq": 1, "key": "n"}, {"seq": 2, "key": "d"}]}
    labelling.handle_keys("keys")
    assert labelling.table(A)["label"].tolist() == ["not a duplicate", "duplicate"]
    labelling.handle_keys("keys")  # the same presses again: nothing new
    assert labelling.count(A) == 2
