"""Every source × every page × every tab, in AppTest, with missed pairs and false
candidates present (issue 9: one of the four sources was unusable past its own page).

Each source carries the same 600 Example documents (pasted one per line, a CSV column,
600 text files, a JSON lines corpus, a Parquet corpus), so every page has true pairs,
missed pairs and false candidates to show at the default settings.
"""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from test_app import app, drew_figures, metrics, no_errors

import nearsim as ns

TEXTS = [" ".join(t.split()) for t in ns.example_corpus(600, seed=0)["text"].tolist()]

# (page, tab key, tab labels) — every tab of every page
PAGES = {
    "pages/views/documents.py": (None, ()),
    "pages/views/minhash.py": (
        "minhash_tab",
        (
            "Shingles",
            "Hash functions",
            "A pair",
            "Worked example",
            "Choosing the shingle length",
            "Two sketches",
        ),
    ),
    "pages/views/banding.py": (None, ()),
    "pages/views/results.py": (
        "results_tab",
        ("Missed pairs", "False candidates", "Estimate against exact", "How the truth is computed"),
    ),
    "pages/views/threshold.py": (
        "threshold_tab",
        ("Label pairs", "What your labels say", "Removal rate"),
    ),
    "pages/views/clusters.py": (None, ()),
    "pages/views/compare.py": (None, ()),
    "pages/views/query.py": (None, ()),
    "pages/views/export.py": (None, ()),
}


def source_files(source: str) -> list[tuple[str, bytes, str]]:
    """The 600 documents as the files the source's uploader takes, ``(name, bytes, MIME
    type)`` each (none for the Example and Paste); text in ``body``, ids in ``id``. A
    Parquet file goes through the corpus source, like a JSON lines file. The browser
    matrix (tests/test_e2e_matrix.py) uploads the same files."""
    frame = pd.DataFrame({"id": range(600), "body": TEXTS})
    if source == "csv":
        return [("docs.csv", frame.to_csv(index=False).encode(), "text/csv")]
    if source == "files":
        return [(f"doc{i:03d}.txt", t.encode(), "text/plain") for i, t in enumerate(TEXTS)]
    if source == "corpus":
        data = "".join(json.dumps({"id": i, "body": t}) + "\n" for i, t in enumerate(TEXTS))
        return [("docs.jsonl", data.encode(), "application/json")]
    if source == "parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return [("docs.parquet", buf.getvalue(), "application/octet-stream")]
    return []


def _load(source: str):
    """An AppTest on the source's Documents page with the 600 documents loaded (a Parquet
    file through the corpus source, as a JSON lines file)."""
    query = {"source": "corpus" if source == "parquet" else source}
    at = app(query if source != "example" else {"n_docs": "600"})
    at.run()
    files = source_files(source)
    if source == "paste":
        at.text_area(key="paste_text").input("\n".join(TEXTS)).run()
    elif source == "files":
        at.get("file_uploader")[0].set_value(files).run()
    elif files:
        at.get("file_uploader")[0].upload(*files[0]).run()
    no_errors(at)
    assert metrics(at)["Documents"] == "600", source
    return at


@pytest.mark.parametrize("source", ["example", "paste", "csv", "files", "corpus", "parquet"])
def test_every_page_and_tab_works_on_every_source(source):
    at = _load(source)
    for path, (key, tabs) in PAGES.items():
        at.switch_page(path).run()
        no_errors(at)
        assert not at.main.info or all("Upload" not in i.value for i in at.main.info), path
        for tab in tabs or (None,):
            if tab is not None:
                at.session_state[key] = tab
                at.run()
            no_errors(at)
            where = f"{source} {path} {tab}"
            assert at.title[0].value, where
            assert at.main.markdown, where  # each view opens with plain sentences
            assert drew_figures(at), where
        if path.endswith("results.py"):
            m = metrics(at)
            # the premise of the matrix: there is something missed and something false
            recall = float(m["Recall of the candidates"].rstrip("%"))
            precision = float(m["Precision of the candidates"].rstrip("%"))
            assert recall < 100 and precision < 100, (source, m)
    # the pair explainer from the missed-pair list
    at.switch_page("pages/views/results.py").run()
    at.session_state["results_tab"] = "Missed pairs"
    at.run()
    assert any("Not a candidate" in md.value for md in at.main.markdown), source
    at.session_state["results_tab"] = "False candidates"
    at.run()
    assert any("A candidate pair" in md.value for md in at.main.markdown), source
    # clusters with the check on
    at.switch_page("pages/views/clusters.py").run()
    at.toggle(key="cluster_check").set_value(True).run()
    no_errors(at)
    assert "Members taken out by the check" in metrics(at)
