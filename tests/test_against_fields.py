"""``nearsim dedup NEW --against DIR --group-field F``: the new documents' removals per
group against a groupby of clusters.<fmt>; and ``--keep-apart`` refused there in one line
that says why and what to run instead."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import nearsim as ns
from nearsim.cli import main


def _jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _corpora(tmp_path: Path):
    """1,000 stored news items; 600 new ones: 400 unseen, 100 copies of stored ones, 100
    repeated within the new part; three sources, every seventh without the field."""
    texts = ns.example_corpus(1400, seed=4)["text"].tolist()
    old = [{"id": f"old-{i}", "text": t} for i, t in enumerate(texts[:1000])]
    fresh = texts[1000:] + texts[:100] + texts[1000:1100]
    sources = ["board-a", "board-b", "board-c"]
    new = [
        {"id": f"new-{i}", "text": t} | ({"source": sources[i % 3]} if i % 7 else {})
        for i, t in enumerate(fresh)
    ]
    index = tmp_path / "index"
    assert main(["index", "build", _jsonl(tmp_path / "old.jsonl", old), "--index", str(index),
                 "--id-field", "id", "--threshold", "0.7", "--quiet"]) == 0  # fmt: skip
    return index, _jsonl(tmp_path / "new.jsonl", new), new


def test_group_field_with_against_counts_the_new_documents_per_group(tmp_path, capsys):
    index, new_path, new = _corpora(tmp_path)
    out = tmp_path / "out"
    assert main(["dedup", new_path, "--against", str(index), "--out", str(out), "--id-field",
                 "id", "--group-field", "source"]) == 0  # fmt: skip
    assert "removed/documents per source: " in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    clusters = pd.read_parquet(out / "clusters.parquet")
    frame = pd.DataFrame(
        {"source": [r.get("source", "") for r in new], "removed": ~clusters["keep"].to_numpy()}
    )
    expected = frame.groupby("source")["removed"].agg(["size", "sum"])
    got = summary["removed_by_group"]
    assert summary["group_field"] == "source"
    assert set(got) == set(expected.index) == {"", "board-a", "board-b", "board-c"}
    for value, g in got.items():
        assert (g["documents"], g["removed"]) == tuple(expected.loc[value]), value
    # the 100 copies of stored documents are removed, and with them at least the 100 repeats
    assert sum(g["removed"] for g in got.values()) == summary["removed"] >= 200


def test_keep_apart_with_against_is_refused_saying_why(tmp_path, capsys):
    index, new_path, _new = _corpora(tmp_path)
    code = main(["dedup", new_path, "--against", str(index), "--out", str(tmp_path / "o"),
                 "--id-field", "id", "--keep-apart", "source"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nearsim: error: --keep-apart with --against")
    assert "nearsim dedup OLD NEW --keep-apart F" in err[0]
    assert not (tmp_path / "o").exists()
