"""``nearsim dedup --group-field`` and ``--keep-apart``: the readers' further fields, removals
per group against a pandas groupby, and keep-apart against brute force."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nearsim as ns
from nearsim.cli import main
from nearsim.io.fields import field_text
from nearsim.run.local import dedup


def _corpus(tmp_path: Path, n: int = 1200, seed: int = 5):
    """Example documents (a third edited copies, some exact) with a source and a language
    drawn at random, as JSON lines; some records lack the fields or hold other types."""
    rng = np.random.default_rng(seed)
    texts = ns.example_corpus(n, seed=seed)["text"].tolist()
    for i in rng.choice(n, 60, replace=False).tolist():  # exact copies of earlier documents
        texts[i] = texts[int(rng.integers(0, max(i, 1)))]
    sources = rng.choice(["news", "blog", "forum", 7, None], n).tolist()
    langs = rng.choice(["en", "fr", "de", "", None], n).tolist()
    rows = []
    for i, text in enumerate(texts):
        row = {"text": text, "src": sources[i], "lang": langs[i]}
        if i % 97 == 0:
            del row["src"]
        rows.append(row)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, texts, rows


def test_readers_return_fields_as_json_writes_them(tmp_path):
    values = ["en", 7, None, True, 2.5, [1, "a"], {"b": 1, "a": 2}]
    rows = [{"text": f"doc {i}", "f": v} for i, v in enumerate(values)] + [{"text": "no f"}]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = ns.read_corpus(path, fields=["f"])["f"].tolist()
    assert got == ["en", "7", "", "true", "2.5", '[1,"a"]', '{"a":2,"b":1}', ""]
    # the fast (pyarrow) path: one type on every line, with nulls and missing fields
    plain = [{"text": f"d{i}", "f": v} for i, v in enumerate(["a", None, "b"])] + [{"text": "x"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in plain))
    assert ns.read_corpus(path, fields=["f"])["f"].tolist() == ["a", "", "b", ""]
    ints = [{"text": f"d{i}", "f": v} for i, v in enumerate([3, None, -12])]
    path.write_text("".join(json.dumps(r) + "\n" for r in ints))
    assert ns.read_corpus(path, fields=["f"])["f"].tolist() == ["3", "", "-12"]
    # Parquet and CSV give the same strings; a column a file lacks is empty
    frame = pd.DataFrame({"text": ["a b c", "d e f"], "f": ["x", None], "g": [1, 2]})
    frame.to_parquet(tmp_path / "t.parquet")
    got = ns.read_corpus(tmp_path / "t.parquet", fields=["f", "g", "h"])
    assert got[["f", "g", "h"]].to_numpy().tolist() == [["x", "1", ""], ["", "2", ""]]
    frame.to_csv(tmp_path / "t.csv", index=False)
    got = ns.read_corpus(tmp_path / "t.csv", fields=["f", "g"])
    assert got[["f", "g"]].to_numpy().tolist() == [["x", "1"], ["", "2"]]


@pytest.mark.parametrize("bad", [["id"], ["f", "f"], [""], "f"])
def test_bad_fields_are_refused(tmp_path, bad):
    (tmp_path / "a.jsonl").write_text('{"text": "a"}\n')
    with pytest.raises(ValueError, match="fields"):
        ns.read_corpus(tmp_path / "a.jsonl", fields=bad)


def test_removed_by_group_equals_a_groupby(tmp_path):
    path, _texts, rows = _corpus(tmp_path)
    result = dedup([path], ns.RunSettings(threshold=0.7), group_field="src")
    summary = result.summary()
    labels = result.labels
    first = pd.Series(np.arange(len(labels))).groupby(labels).transform("min").to_numpy()
    frame = pd.DataFrame(
        {
            "src": [field_text(r.get("src")) for r in rows],
            "removed": first != np.arange(len(labels)),
        }
    )
    expected = frame.groupby("src")["removed"].agg(["size", "sum"])
    got = summary["removed_by_group"]
    assert set(got) == set(expected.index) == {"news", "blog", "forum", "7", ""}
    for value, g in got.items():
        assert g == {
            "documents": expected.loc[value, "size"],
            "removed": expected.loc[value, "sum"],
        }
    assert sum(g["removed"] for g in got.values()) == summary["removed"] > 0
    docs = [g["documents"] for g in got.values()]
    assert docs == sorted(docs, reverse=True)  # most documents first


def test_keep_apart_equals_brute_force(tmp_path):
    """Brute force: every pair sharing a whole band whose estimate reaches t and whose two
    documents do not share a non-empty language; clusters = its connected components."""
    path, texts, rows = _corpus(tmp_path)
    settings = ns.RunSettings(threshold=0.7)
    result = dedup([path], settings, keep_apart="lang")
    langs = np.array([field_text(r.get("lang")) for r in rows])
    mh = ns.MinHasher(settings.num_perm, seed=settings.hash_seed)
    sig = mh.text_signatures(texts, **settings.shingle_options())
    n = len(texts)
    a, b = np.triu_indices(n, 1)
    same_band = np.zeros(a.shape[0], dtype=bool)
    for band in range(settings.bands):
        cols = slice(band * settings.rows, (band + 1) * settings.rows)
        same_band |= (sig[a, cols] == sig[b, cols]).all(axis=1)
    est = (sig[a] == sig[b]).mean(axis=1)
    apart = (langs[a] == langs[b]) & (langs[a] != "")
    accepted = same_band & (est >= settings.threshold)
    brute = np.stack([a, b], axis=1)[accepted & ~apart]
    assert np.count_nonzero(accepted & apart) > 0  # the rule has pairs to keep apart
    expected = ns.clusters(n, brute)
    got = result.labels
    # the same partition
    assert pd.crosstab(got, expected).astype(bool).sum(axis=1).max() == 1
    assert pd.crosstab(expected, got).astype(bool).sum(axis=1).max() == 1
    pairs = result.pairs
    shared = (langs[pairs[:, 0]] == langs[pairs[:, 1]]) & (langs[pairs[:, 0]] != "")
    assert not shared.any()
    assert result.summary()["kept_apart"] == np.count_nonzero(
        same_band & (est >= settings.threshold) & apart
    )


def test_cli_group_field_and_keep_apart(tmp_path):
    path, _texts, _rows = _corpus(tmp_path, n=600)
    out = tmp_path / "out"
    code = main(["dedup", str(path), "--out", str(out), "--group-field", "src",
                 "--keep-apart", "lang", "--quiet"])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    clusters = pd.read_parquet(out / "clusters.parquet")
    assert sum(g["removed"] for g in summary["removed_by_group"].values()) == int(
        (~clusters["keep"]).sum()
    )
    assert summary["keep_apart"] == "lang" and summary["kept_apart"] >= 0


def test_against_an_index_refuses_the_fields(tmp_path, capsys):
    path, _texts, _rows = _corpus(tmp_path, n=300)
    code = main(["dedup", str(path), "--out", str(tmp_path / "o"), "--against",
                 str(tmp_path / "index"), "--keep-apart", "lang"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--keep-apart" in err[0] and "--against" in err[0]
