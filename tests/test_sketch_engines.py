"""``sketch="superminhash"`` through the corpus runs: the local engine's pairs and
estimates come from SuperMinHash signatures, the Dask engine gives the same result, and
the command line's ``--sketch`` (dedup and tune) is the same run as the library's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nearsim as ns
from nearsim.cli import main
from nearsim.run.local import dedup

SMH = ns.Settings(threshold=0.7, sketch="superminhash")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, list[str]]:
    texts = ns.example_corpus(1500, seed=11)["text"].tolist()
    path = tmp_path_factory.mktemp("sketch") / "news.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    return path, texts


def test_the_local_run_reads_superminhash_signatures(corpus):
    """Every accepted pair's estimate is the share of equal SuperMinHash positions, and
    the run differs from the classic one (else the setting would not be honoured)."""
    path, texts = corpus
    got = dedup(path, SMH)
    sig = ns.MinHasher(SMH.num_perm, SMH.hash_seed, sketch="superminhash").text_signatures(texts)
    a, b = got.pairs[:, 0], got.pairs[:, 1]
    assert got.pairs.shape[0] > 50
    share = (sig[a] == sig[b]).mean(axis=1)
    np.testing.assert_array_equal(got.estimates, share)
    assert (got.estimates >= 0.7).all()
    classic = dedup(path, ns.Settings(threshold=0.7))
    assert got.estimates.tolist() != classic.estimates.tolist()


def test_the_dask_engine_equals_the_local_one(corpus):
    from nearsim.run.dask_engine import dedup_dask, local_cluster

    path, _ = corpus
    cluster = local_cluster(2)
    try:
        got = dedup_dask(path, SMH, scheduler=cluster.scheduler_address, blocksize=60_000)
    finally:
        cluster.close()
    local = dedup(path, SMH)
    assert got.pairs.tolist() == local.pairs.tolist()
    assert got.estimates.tolist() == local.estimates.tolist()
    assert got.labels.tolist() == local.labels.tolist()
    assert got.candidates == local.candidates


def test_the_command_line_option_is_the_library_run(corpus, tmp_path):
    path, _ = corpus
    code = main(["dedup", str(path), "--out", str(tmp_path), "--threshold", "0.7",
                 "--sketch", "superminhash", "--quiet"])  # fmt: skip
    assert code == 0
    local = dedup(path, SMH)
    pairs = pd.read_parquet(tmp_path / "pairs.parquet")
    assert pairs[["a", "b"]].to_numpy().tolist() == local.pairs.tolist()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert "sketch=superminhash" in json.dumps(summary["settings"])


def test_tune_ranks_under_the_sketch_s_curve(capsys):
    assert main(["tune", "--threshold", "0.7", "--sketch", "superminhash"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "SuperMinHash" in lines[0]
    best = ns.tune(0.7, 128, sketch="superminhash")[0]
    assert lines[2].split()[:3] == ["1", str(best.b), str(best.r)]
    p = ns.candidate_probability(0.7, best.b, best.r, sketch="superminhash", num_perm=128)
    assert float(lines[2].split()[-1]) == pytest.approx(p, abs=5e-4)


def test_the_index_keeps_the_sketch_and_refuses_another(corpus, tmp_path):
    """An index made with SuperMinHash stores the setting, matches with SuperMinHash
    estimates, and opening it with classic MinHash names the difference."""
    _, texts = corpus
    idx = ns.Index.create(tmp_path / "ix", SMH)
    idx.add(texts[:1000])
    hits = idx.query(texts[1000:])
    hit = hits[hits["match_id"] != ""]
    assert len(hit) > 20
    sig = ns.MinHasher(128, SMH.hash_seed, sketch="superminhash").text_signatures(texts)
    rows = hit["row"].to_numpy() + 1000
    matched = hit["match_id"].astype(int).to_numpy()
    np.testing.assert_array_equal(hit["estimate"], (sig[rows] == sig[matched]).mean(axis=1))
    assert ns.Index.open(tmp_path / "ix").settings.sketch == "superminhash"
    with pytest.raises(ValueError, match="sketch 'minhash'"):
        ns.Index.open(tmp_path / "ix", ns.Settings(threshold=0.7))
