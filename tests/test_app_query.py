"""The Query page with AppTest: a loaded document's matches and misses, a pasted copy, an
index given to ``nearsim app --index``, a folder that is not an index."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import nearsim as ns

ROOT = Path(__file__).resolve().parents[1]
QUERY = "pages/views/query.py"


@pytest.fixture
def argv(monkeypatch):
    """The app's script arguments (``nearsim app --index DIR`` hands them to the script)."""
    from nearsim_app.explorer import launch

    def use(*args: str) -> None:
        monkeypatch.setattr(sys, "argv", ["app.py", *args])
        launch.index_argument.cache_clear()

    yield use
    launch.index_argument.cache_clear()


def query_page(n_docs: int = 300) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["n_docs"] = str(n_docs)
    at.run()
    at.switch_page(QUERY).run()
    return at


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_loaded_document_shows_its_matches_and_misses(argv):
    argv()
    at = query_page()
    no_errors(at)
    assert at.title[0].value == "Query"
    assert [r.value for r in at.radio if r.key == "query_target"] == ["The loaded documents"]
    # a document with an edited copy among the loaded ones (the Example plants them)
    for doc in range(40):
        at.selectbox(key="query_doc").set_value(doc).run()
        if int(metrics(at)["Matches"]) > 0:
            break
    no_errors(at)
    got = metrics(at)
    matches, frames = int(got["Matches"]), at.main.dataframe
    assert matches > 0
    assert len(frames[0].value) == matches
    t = at.slider(key="threshold").value
    assert (frames[0].value["estimate"] >= t).all() and (frames[0].value["whole bands"] > 0).all()
    missed = int(got["Would miss (share no band)"])
    if missed:
        lost = frames[1].value
        assert len(lost) == missed
        assert (lost["whole bands"] == 0).all() and (lost["exact Jaccard"] >= t).all()
    # the explainer of the first match: its bands, its exact Jaccard
    assert any("A candidate pair" in m.value for m in at.main.markdown)
    assert any("Shingle sets" in m.value for m in at.main.markdown)


def test_a_pasted_copy_of_a_loaded_document_matches_it_with_estimate_one(argv):
    argv()
    at = query_page()
    at.selectbox(key="query_doc").set_value(7).run()
    text = at.text_area(key="query_shown_7").value
    label = at.selectbox(key="query_doc").format_func(7)
    picked = at.main.dataframe[0].value.set_index("document")["exact Jaccard"]
    at.radio(key="query_how").set_value("Paste a text").run()
    assert at.info  # nothing pasted yet: a hint, no table
    at.text_area(key="query_text").input(text).run()
    no_errors(at)
    found = at.main.dataframe[0].value
    row = found[found["document"] == label]
    assert len(row) == 1
    assert float(row["estimate"].iloc[0]) == 1.0 and float(row["exact Jaccard"].iloc[0]) == 1.0
    # the pasted copy's exact Jaccard with every other match is the loaded document's own
    pasted = found.set_index("document")["exact Jaccard"].drop(label)
    assert len(pasted) > 0 and pasted.index.isin(picked.index).all()
    assert (pasted.to_numpy() == picked[pasted.index].to_numpy()).all()


@pytest.mark.parametrize("keep_texts", [True, False])
def test_an_index_given_to_the_app_is_queried_with_its_own_settings(tmp_path, argv, keep_texts):
    texts = ns.example_corpus(500, seed=9)["text"].tolist()
    idx = ns.Index.create(
        tmp_path / "posts", ns.RunSettings(threshold=0.6), keep_texts=keep_texts
    )
    idx.add(texts, [f"post-{i}" for i in range(len(texts))])
    argv("--index", str(tmp_path / "posts"))
    at = query_page()
    at.radio(key="query_target").set_value(f"The index in {tmp_path / 'posts'}").run()
    at.radio(key="query_how").set_value("Paste a text").run()
    probe = texts[3].replace(".", "!", 1) + " Updated."
    at.text_area(key="query_text").input(probe).run()
    no_errors(at)
    want = idx.query([probe])
    want = want[want["match_id"] != ""]
    got = at.main.dataframe[0].value
    assert list(got["id"]) == list(want["match_id"]) and "post-3" in set(got["id"])
    assert got["estimate"].tolist() == pytest.approx(want["estimate"].tolist())
    if keep_texts:  # exact Jaccard and the shingles need the stored texts
        assert (got["exact Jaccard"] > 0.5).all()
        assert any("Shingle sets" in m.value for m in at.main.markdown)
    else:
        assert "exact Jaccard" not in got.columns
        assert any("keeps no texts" in c.value for c in at.main.caption)
    assert any("share a bucket" in m.value for m in at.main.markdown)  # the explanation
    assert any("t = 0.6" in i.value for i in at.info)  # its own settings, said
    at.toggle(key="query_scan").set_value(True).run()
    no_errors(at)


def test_a_folder_that_is_not_an_index_gives_a_message_not_a_traceback(tmp_path, argv):
    (tmp_path / "notes").mkdir()
    argv("--index", str(tmp_path / "notes"))
    at = query_page()
    at.radio(key="query_target").set_value(f"The index in {tmp_path / 'notes'}").run()
    at.radio(key="query_how").set_value("Paste a text").run()
    at.text_area(key="query_text").input("a short note about the harbour and the storm").run()
    assert not at.exception
    assert any("is not a nearsim index" in e.value for e in at.error)
