"""The explorer's Audit view (AppTest): a run's folder and another tool's table audited,
the same figures as ``nearsim audit``, and bad input as a message, never a traceback."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import nearsim as ns
from nearsim.audit.run import audit
from nearsim.cli import main

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit_app")
    texts = ns.example_corpus(400, seed=9)["text"].tolist()
    rows = [{"id": f"d{i}", "text": t, "src": "ab"[i % 2]} for i, t in enumerate(texts)]
    path = folder / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["dedup", str(path), "--id-field", "id", "--out", str(folder / "run"),
                 "--quiet"]) == 0  # fmt: skip
    return path, folder / "run"


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["n_docs"] = "300"
    at.run()
    return at.switch_page("pages/views/audit.py").run()


def test_the_audit_view_shows_the_commands_figures(run):
    path, folder = run
    at = _page()
    assert not at.exception and at.info  # asks for the corpus and the run first
    at.text_input(key="audit_corpus").set_value(str(path))
    at.text_input(key="audit_run").set_value(str(folder))
    at.text_input(key="audit_ifield").set_value("id")
    at.text_input(key="audit_gfield").set_value("src")
    at.number_input(key="audit_sample").set_value(100)
    at.run()
    at.button(key="audit_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    shown = {m.label: m.value for m in at.metric}
    expected = audit(path, run=folder, id_field="id", group_field="src", sample=100)
    assert shown["Precision"] == f"{100 * expected['precision']['estimate']:.1f}%"
    assert shown["Removed"] == f"{expected['removed']['removed']:,}"
    assert len(at.dataframe) == 1  # removal per group
    assert at.selectbox(key="audit_pick").options  # the pair explainer has pairs


def test_another_tools_table_and_bad_input(run, tmp_path):
    path, folder = run
    labels = pd.read_parquet(folder / "clusters.parquet")
    table = labels[["id", "cluster"]].rename(columns={"cluster": "c"}).iloc[::-1]
    table.to_csv(tmp_path / "t.csv", index=False)
    at = _page()
    at.text_input(key="audit_corpus").set_value(str(path))
    at.radio(key="audit_mode").set_value("Another tool's cluster table").run()
    at.text_input(key="audit_table").set_value(str(tmp_path / "t.csv"))
    at.text_input(key="audit_cfield").set_value("c")
    at.text_input(key="audit_ifield").set_value("id")
    at.number_input(key="audit_sample").set_value(100)
    at.run()
    at.button(key="audit_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Recall" in {m.label for m in at.metric}
    at.text_input(key="audit_cfield").set_value("no_such_column")
    at.run()
    at.button(key="audit_go").click().run()
    assert not at.exception
    assert at.error and "no_such_column" in html.unescape(at.error[0].value)  # shown as text
