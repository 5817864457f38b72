"""The Threshold page with AppTest: labelling by buttons and keys, labels per corpus, CSV in
and out, the suggested threshold, the removal rate, and every document source."""

from __future__ import annotations

import html
import io
import json

import pandas as pd
import pytest
from nearsim_app.explorer import labelling, state
from streamlit.testing.v1 import AppTest
from test_app import ROOT, app, no_errors  # app(): the 300-document Example by default

import nearsim as ns
from nearsim.explore.labels import labels_to_csv
from nearsim.join.sample import similarity_band

PAGE = "pages/views/threshold.py"
KEYS = "threshold_keys"


def opened(query=None, tab: str | None = None) -> AppTest:
    at = app(query)
    at.run()
    at.switch_page(PAGE).run()
    if tab is not None:
        show(at, tab)
    return at


def show(at: AppTest, tab: str) -> None:
    at.session_state["threshold_tab"] = tab
    at.run()


def view(at: AppTest) -> dict:
    return at.session_state[labelling.VIEW]


def book(at: AppTest) -> dict:
    """This session's labels of its only corpus ({} before any)."""
    labels = at.session_state[labelling.BOOK] if labelling.BOOK in at.session_state else {}
    return next(iter(labels.values()), {}) if labels else {}


def progress(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def pair_line(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Pair "))


def press(at: AppTest, *keys: str) -> None:
    """Key presses as the component reports them: its state holds the latest presses, each
    with a sequence number that only grows."""
    seq = at.session_state["_test_seq"] if "_test_seq" in at.session_state else 0
    presses = [{"seq": seq + k + 1, "key": key} for k, key in enumerate(keys)]
    at.session_state["_test_seq"] = seq + len(keys)
    at.session_state[KEYS] = {"presses": presses}
    at.run()


def by_rule(at: AppTest, count: int, cut: float = 0.75) -> None:
    """Label ``count`` pairs with the keyboard: a duplicate when J ≥ cut."""
    for _ in range(count):
        v = view(at)
        _, _, jac = v["queue"][v["pos"]]
        press(at, "d" if jac >= cut else "n")


# -- states of the page --------------------------------------------------------------------
def test_no_documents_says_what_to_do():
    at = opened({"source": "paste"})
    no_errors(at)
    assert at.title[0].value == "Threshold"
    assert any("Paste some text" in i.value for i in at.info)
    assert not at.get("progress")


def test_few_documents_with_no_pair_near_t():
    at = app({"source": "paste"})
    at.run()
    at.text_area(key=state.PASTE_KEY).input(
        "The council approved the new budget on Monday.\n"
        "A storm closed the harbour for two days.\n"
        "Tickets for the final sold out within an hour."
    ).run()
    at.switch_page(PAGE).run()
    no_errors(at)
    assert any("No pair of these documents" in i.value for i in at.info)
    show(at, "What your labels say")
    no_errors(at)
    assert any("No labels yet" in i.value for i in at.info)
    show(at, "Removal rate")
    no_errors(at)
    assert at.metric[0].value == "0 (0.0%)"
    assert at.get("vega_lite_chart")


def test_page_opens_with_plain_sentences_and_the_first_pair():
    at = opened()
    no_errors(at)
    assert "hand labels and the removal rate" in at.markdown[0].value
    assert progress(at) == "0 of 40 labelled"
    assert pair_line(at).startswith("**Pair 1 of 40**")
    assert any("0.60 to 1.00" in m.value for m in at.markdown)  # t ± 0.2 at t = 0.8
    v = view(at)
    bands = pd.Series(similarity_band([q[2] for q in v["queue"]])).value_counts()
    assert sorted(bands.index) == list(range(12, 20)) and (bands == 5).all()


# -- labelling -----------------------------------------------------------------------------
def test_labelling_through_the_buttons_with_undo_and_moving():
    at = opened()
    first = view(at)["queue"][0]
    at.button(key="label_duplicate").click().run()
    no_errors(at)
    assert progress(at) == "1 of 40 labelled"
    assert book(at) == {(first[0], first[1]): (first[2], "duplicate")}
    assert pair_line(at).startswith("**Pair 2 of 40**")
    at.button(key="label_not_a_duplicate").click().run()
    at.button(key="label_unsure").click().run()
    assert [v[1] for v in book(at).values()] == ["duplicate", "not a duplicate", "unsure"]
    assert progress(at) == "3 of 40 labelled"

    at.button(key="label_previous").click().run()  # back to pair 3: its label is shown
    assert pair_line(at).startswith("**Pair 3 of 40**") and "Your label: **unsure**" in pair_line(
        at
    )
    at.button(key="label_duplicate").click().run()  # relabelled, then on to the next open one
    assert list(book(at).values())[-1][1] == "duplicate"
    assert progress(at) == "3 of 40 labelled"
    assert pair_line(at).startswith("**Pair 4 of 40**")

    at.button(key="label_undo").click().run()  # takes back the relabel: unsure again
    assert list(book(at).values())[-1][1] == "unsure"
    assert pair_line(at).startswith("**Pair 3 of 40**")
    for _ in range(3):
        at.button(key="label_undo").click().run()
    assert book(at) == {} and progress(at) == "0 of 40 labelled"
    assert at.button(key="label_undo").disabled
    at.button(key="label_next").click().run()
    assert pair_line(at).startswith("**Pair 2 of 40**")
    no_errors(at)


def test_keyboard_events_through_the_components_state():
    at = opened()
    queue = view(at)["queue"]
    press(at, "d")
    assert book(at) == {(queue[0][0], queue[0][1]): (queue[0][2], "duplicate")}
    at.run()  # a rerun for another reason does not repeat the press
    assert len(book(at)) == 1
    press(at, "n", "x", "u")  # two presses merged into one rerun; "x" is no shortcut
    assert [v[1] for v in book(at).values()] == ["duplicate", "not a duplicate", "unsure"]
    press(at, "ArrowLeft", "ArrowLeft")
    assert pair_line(at).startswith("**Pair 2 of 40**")
    press(at, "ArrowRight")
    assert pair_line(at).startswith("**Pair 3 of 40**")
    press(at, "z")
    assert len(book(at)) == 2
    # a stale state (sequence numbers already seen) is ignored
    at.session_state[KEYS] = {"presses": [{"seq": 1, "key": "d"}]}
    at.run()
    assert len(book(at)) == 2
    no_errors(at)


def test_all_labelled_then_draw_more():
    at = opened()
    by_rule(at, 40)
    no_errors(at)
    assert progress(at) == "40 of 40 labelled"
    assert any("All 40 pairs drawn are labelled" in s.value for s in at.success)
    at.button(key="label_more").click().run()
    assert progress(at) == "40 of 66 labelled"  # 300 documents: 26 more near t = 0.8
    assert pair_line(at).startswith("**Pair 41 of 66**")
    assert at.button(key="label_more").disabled
    no_errors(at)


def test_labels_of_one_corpus_never_show_on_another():
    at = opened()
    press(at, "d", "n")
    assert "2 of 40 labelled" == progress(at)
    at.number_input(key="n_docs").set_value(400).run()
    no_errors(at)
    assert progress(at).startswith("0 of ")
    assert any(m.value.startswith("**0** labels for these documents") for m in at.markdown)
    at.number_input(key="n_docs").set_value(300).run()
    assert progress(at) == "2 of 40 labelled"


def test_labels_kept_in_the_browser_come_back():
    """What the storage component hands Python when the page opens (see storage.stored)."""
    at = opened()
    press(at, "d", "n", "u")
    digest = next(iter(at.session_state[labelling.BOOK]))
    rows = [[i, j, jac, lab] for (i, j), (jac, lab) in book(at).items()]
    fresh = app()
    fresh.session_state["_storage_kept"] = {
        "labels": json.dumps({"version": 1, "labels": {digest: rows}})
    }
    fresh.run()
    fresh.switch_page(PAGE).run()
    no_errors(fresh)
    assert progress(fresh) == "3 of 40 labelled"
    assert pair_line(fresh).startswith("**Pair 4 of 40**")  # the first open pair
    # a damaged entry is left out, not an error
    broken = app()
    broken.session_state["_storage_kept"] = {"labels": '{"version": 1, "labels": {"x": 3}}'}
    broken.run()
    broken.switch_page(PAGE).run()
    no_errors(broken)
    assert progress(broken) == "0 of 40 labelled"


# -- CSV -----------------------------------------------------------------------------------
def _csv_of(at: AppTest) -> bytes:
    rows = book(at)
    table = pd.DataFrame(
        [(i, j, jac, lab) for (i, j), (jac, lab) in rows.items()],
        columns=["i", "j", "jaccard", "label"],
    )
    return labels_to_csv(table)


def test_export_and_import_round_trip():
    at = opened()
    by_rule(at, 6)
    export = at.get("download_button")[0]
    assert not export.proto.disabled
    assert export.proto.label == "Export labels (CSV)"
    data = _csv_of(at)
    assert data.count(b"\n") == 7  # header and six labels

    fresh = opened()
    assert progress(fresh) == "0 of 40 labelled"
    fresh.get("file_uploader")[0].upload("labels.csv", data, "text/csv").run()
    no_errors(fresh)
    assert any(
        "Imported 6 labels from labels.csv: 6 new, 0 replaced" in html.unescape(s.value)
        for s in fresh.success
    )
    assert book(fresh) == book(at)
    assert progress(fresh) == "6 of 40 labelled"
    fresh.run()  # the same file is imported once
    assert len(book(fresh)) == 6


def test_import_from_other_settings_warns_and_keeps_the_labels():
    at = opened()
    by_rule(at, 3)
    table = pd.read_csv(io.BytesIO(_csv_of(at)))
    table["jaccard"] = 0.5
    fresh = opened()
    fresh.get("file_uploader")[0].upload("old.csv", table.to_csv(index=False).encode(), "text/csv")
    fresh.run()
    no_errors(fresh)
    assert any("3 of them have another exact Jaccard here" in w.value for w in fresh.warning)
    assert len(book(fresh)) == 3


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("0,1,0.5,duplicate\n2,3,0.4,maybe\n", "row 2 (line 3): label='maybe'"),
        ("0,300,0.5,duplicate\n", "row 1 (line 2): j='300' is not accepted; accepted: an integer"),
        ("0,1,x,duplicate\n", "row 1 (line 2): jaccard='x'"),
    ],
)
def test_a_bad_csv_is_a_message_naming_the_row(body, match):
    at = opened()
    data = ("i,j,jaccard,label\n" + body).encode()
    at.get("file_uploader")[0].upload("bad.csv", data, "text/csv").run()
    assert not at.exception
    shown = html.unescape(at.error[0].value) if at.error else ""  # names shown as text
    assert "bad.csv" in shown and match in shown
    assert book(at) == {}
    at.run()  # still said while the file is there
    assert at.error


# -- what the labels say -------------------------------------------------------------------
def test_suggested_threshold_appears_after_enough_labels_and_is_used():
    at = opened()
    by_rule(at, 5)
    show(at, "What your labels say")
    no_errors(at)
    assert {m.label: m.value for m in at.metric}["Suggested t"] == "—"
    assert any("once at least 10 pairs are labelled" in i.value for i in at.info)
    assert at.get("vega_lite_chart")  # the curve is drawn from the first labels on

    show(at, "Label pairs")
    by_rule(at, 15)
    show(at, "What your labels say")
    no_errors(at)
    suggested = {m.label: m.value for m in at.metric}["Suggested t"]
    assert suggested != "—"
    value = float(suggested)
    assert 0.6 < value <= 0.8  # labels split at 0.75: the suggestion is in the gap
    assert any(m.value.startswith("**What it means.**") for m in at.markdown)
    assert len(at.get("vega_lite_chart")) == 2
    button = at.button(key="use_labels_t")
    assert button.label == f"Use t = {value:g}"
    button.click().run()
    no_errors(at)
    assert at.slider(key="threshold").value == pytest.approx(value)
    assert at.query_params["threshold"] == f"{value:g}"
    assert at.button(key="use_labels_t").disabled  # in use now


# -- removal rate --------------------------------------------------------------------------
def test_removal_rate_chart_and_a_target():
    at = opened({"n_docs": "2000"}, tab="Removal rate")
    no_errors(at)
    curve = ns.removal_rates(
        [ns.shingles(x) for x in ns.example_corpus(2000, 0)["text"]], [0.8]
    ).iloc[0]
    metrics = {m.label: m.value for m in at.metric}
    removed, clusters = int(curve.removed), int(curve.clusters)
    assert metrics["Documents removed at t = 0.8"] == f"{removed:,} ({removed / 2000:.1%})"
    assert metrics["Clusters of two or more"] == f"{clusters:,}"
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert "current t = 0.8" in json.dumps(spec)
    at.number_input(key="removal_target").set_value(5.0).run()
    no_errors(at)
    line = next(m.value for m in at.markdown if m.value.startswith("To remove about"))
    chosen = float(line.split("t = ")[1].split("*")[0])
    at.button(key="use_removal_t").click().run()
    assert at.slider(key="threshold").value == pytest.approx(chosen)
    no_errors(at)


def test_removal_below_the_curves_start_is_explained():
    at = opened({"n_docs": "300", "threshold": "0.4"}, tab="Removal rate")
    no_errors(at)
    assert any("t = 0.4 is outside it (the curve starts at 0.50" in c.value for c in at.caption)


def test_a_curve_starting_above_one_half_offers_to_extend_it(monkeypatch):
    """When the similarity sample's floor rose over dense bands, the curve starts there
    (read from the pairs already listed) and a button extends it down to 0.5."""
    import streamlit as st

    from nearsim import pipeline
    from nearsim.join import sample as sample_module

    monkeypatch.setattr(sample_module, "MIN_BAND_ROWS", 0)  # the floor rises to the top
    monkeypatch.setattr(pipeline, "SAMPLE_MAX_LISTED", 0)
    st.cache_resource.clear()
    try:
        at = opened({"n_docs": "3000"}, tab="Removal rate")
        no_errors(at)
        start = float(at.dataframe[0].value["t"].iloc[0])
        assert start > 0.5
        assert any("so the curve starts at" in i.value for i in at.info)
        at.button(key="removal_extend").click().run()
        no_errors(at)
        assert float(at.dataframe[0].value["t"].iloc[0]) == 0.5
        assert not any("so the curve starts at" in i.value for i in at.info)
    finally:
        st.cache_resource.clear()


# -- every source --------------------------------------------------------------------------
def _every_tab(at: AppTest) -> None:
    for tab in ("Label pairs", "What your labels say", "Removal rate"):
        show(at, tab)
        no_errors(at)
        assert at.title[0].value == "Threshold"


def test_example_source_at_2000():
    at = opened({"n_docs": "2000"})
    by_rule(at, 12)
    _every_tab(at)


def test_paste_source_labels_a_pasted_pair():
    at = app({"source": "paste"})
    at.run()
    at.text_area(key=state.PASTE_KEY).input(
        "The harbour ferry left at dawn with forty passengers and a dog.\n"
        "The harbour ferry left at dawn with forty-one passengers and a dog.\n"
        "Rain is expected over the hills by the weekend."
    ).run()
    at.switch_page(PAGE).run()
    no_errors(at)
    assert progress(at) == "0 of 1 labelled"
    press(at, "d")
    assert any("All 1 pairs drawn are labelled" in s.value for s in at.success)
    _every_tab(at)


def test_csv_source():
    data = (ROOT / "sample_data" / "job_posts.csv").read_bytes()
    at = app({"source": "csv"})
    at.run()
    at.get("file_uploader")[0].upload("job_posts.csv", data, "text/csv").run()
    at.switch_page(PAGE).run()
    no_errors(at)
    _every_tab(at)


def test_files_source():
    site = ROOT / "sample_data" / "site"
    files = [(p.name, p.read_bytes(), "text/html") for p in sorted(site.glob("*.html"))]
    at = app({"source": "files"})
    at.run()
    at.get("file_uploader")[0].set_value(files).run()
    at.switch_page(PAGE).run()
    no_errors(at)
    _every_tab(at)


def test_corpus_source_jsonl():
    texts = ns.example_corpus(400, seed=5)["text"]
    data = "\n".join(json.dumps({"id": k, "body": t}) for k, t in enumerate(texts)).encode()
    at = app({"source": "corpus"})
    at.run()
    at.get("file_uploader")[0].upload("corpus.jsonl", data, "application/json").run()
    at.selectbox(key=state.CORPUS_FIELD).set_value("body").run()
    at.switch_page(PAGE).run()
    no_errors(at)
    assert progress(at).endswith("labelled")
    press(at, "d")
    _every_tab(at)
