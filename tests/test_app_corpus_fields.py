"""A corpus's id and group fields in the explorer, and sizing from the loaded file's size."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import nearsim as ns
from nearsim.explore.export import dedup_argv
from nearsim.explore.removal import removal_by_group
from nearsim.explore.sizing import run_plan
from nearsim.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def _corpus() -> bytes:
    """300 news items: ids "doc-…", and a source that is "wire" for the edited copies (a
    group that loses most of its documents) and "site" for the originals."""
    df = ns.example_corpus(300, seed=3)
    rows = [
        {"key": f"doc-{i}", "body": t, "source": "wire" if p >= 0 else "site"}
        for i, (t, p) in enumerate(zip(df["text"], df["parent"], strict=True))
    ]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_id_and_group_fields_reach_every_list_the_command_and_the_sizing():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["source"] = "corpus"
    at.query_params["threshold"] = "0.6"
    at.run()
    at.get("file_uploader")[0].upload("news.jsonl", _corpus(), "application/json").run()
    at.selectbox(key="corpus_text_field").set_value("body").run()
    at.selectbox(key="corpus_id_field").set_value("key").run()
    at.selectbox(key="corpus_group_field").set_value("source").run()
    assert not at.exception and not at.error
    preview = at.dataframe[-1].value
    assert preview["document"].iloc[0] == "doc-0"  # ids, not row numbers
    at.switch_page("pages/views/clusters.py").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    listed = next(d.value for d in at.dataframe if "first document" in d.value.columns)
    assert listed["first document"].str.startswith("doc-").all()
    groups = {str(m.value) for m in at.markdown if "Removal per" in str(m.value)}
    assert groups, "no removal per group on Clusters"
    table = next(d.value for d in at.dataframe if "share removed" in d.value.columns)
    assert set(table["group"]) == {"site", "wire"}
    assert any("wire" in w.value and "more than 50%" in w.value for w in at.warning)
    at.switch_page("pages/views/export.py").run()
    assert not at.exception
    code = next(c.value for c in at.code if c.value.startswith("nearsim dedup"))
    assert "--id-field key --group-field source" in code
    assert at.number_input(key="sizing_n").value == 1000  # 300 loaded: the smallest N
    assert any("What `nearsim dedup` would do at N = 1,000" in m.value for m in at.markdown)


def test_sizing_starts_at_the_file_size(tmp_path):
    """A corpus file of 25,000 records (more than the explorer samples) is sized at 25,000."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(5000)])
    lines = "".join(
        json.dumps({"text": " ".join(rng.choice(words, 12))}) + "\n" for _ in range(25_000)
    )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["source"] = "corpus"
    at.run()
    at.get("file_uploader")[0].upload("big.jsonl", lines.encode(), "application/json").run()
    at.switch_page("pages/views/export.py").run()
    assert not at.exception and not at.error
    assert at.number_input(key="sizing_n").value == 25_000


def test_removal_by_group_against_counting():
    labels = np.array([0, 0, 1, 1, 1, 2, 3, 3])  # clusters' firsts: 0, 2, 5, 6
    groups = ["a", "b", "a", "b", "b", "a", "c", "c"]
    t = removal_by_group(labels, groups).set_index("group")
    assert t.loc["b", "documents"] == 3 and t.loc["b", "removed"] == 3  # 1, 3, 4
    assert t.loc["a", "removed"] == 0 and t.loc["c", "removed"] == 1
    assert t["most_lost"].to_dict() == {"b": True, "c": False, "a": False}
    with pytest.raises(ValueError, match="groups"):
        removal_by_group(labels, groups[:3])


def test_exported_command_carries_id_and_group_fields():
    argv = dedup_argv(Settings(), "c.jsonl", "out", id_field="key", group_field="source")
    assert argv[-4:] == ["--id-field", "key", "--group-field", "source"]
    assert "--id-field" not in dedup_argv(Settings(), "c.jsonl", "out")


def test_run_plan_memory_guard_and_engine():
    gb = 10**9
    small = run_plan(25_799, 128, 1e6, 23 * gb, 20_000_000)
    assert small.engine == "local" and not small.guard_stops
    assert small.local_bytes == pytest.approx(240e6 + 25_799 * (512 + 73) + 1e7)
    big = run_plan(10**8, 128, 1e11, 23 * gb, 20_000_000)
    assert big.engine == "dask" and big.guard_stops
    with pytest.raises(ValueError, match="documents"):
        run_plan(0, 128, 0.0, gb, 1)
