"""``nearsim dedup`` on what real corpora hold: thousands of copies of one page, families of
near copies in one band bucket, chains of small edits, and logs that are not terminals.

Each test here failed on the engine before exact copies, the bucket limit and the member
check: the hot buckets stopped the run (more than 20,000,000 candidate pairs), a chain was
one cluster with its ends far apart, and a pipe got carriage-return progress bars.
"""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nearsim as ns
from nearsim.cli import main
from nearsim.run.dask_engine import dedup_dask, local_cluster
from nearsim.run.local import dedup
from nearsim.run.progress import PlainProgress

BANNER = (
    "We use cookies to give you the best experience on our website. Some are essential to "
    "make the site work; others help us understand how you use it, so that we can improve "
    "it, and let our partners show you adverts that match your interests. You can accept "
    "all cookies, refuse the optional ones, or choose which kinds you allow in the settings. "
    "You can change your mind at any time from the link at the bottom of every page. Read "
    "our cookie policy and our privacy notice to learn more about the data we collect."
)
COPIES, NEAR = 10_000, 1_500


def dated(i: int) -> str:
    """The banner with a date and a counter: near copies, all in the same band buckets."""
    return f"{BANNER} Last updated 2026-{1 + i % 12:02d}-{1 + i % 28:02d}, visit {48_213 + i}."


@pytest.fixture(scope="module")
def news() -> list[str]:
    return ns.example_corpus(2_000, seed=11)["text"].tolist()


@pytest.fixture(scope="module")
def crawl(news, tmp_path_factory):
    """2,000 news items with 10,000 copies of a cookie banner and 1,500 dated variants of it
    spread among them (a fixed shuffle); returns (path, texts, rows of the news items in
    the order of ``news``)."""
    texts = news + [BANNER] * COPIES + [dated(i) for i in range(NEAR)]
    order = np.random.default_rng(4).permutation(len(texts))
    texts = [texts[i] for i in order]
    news_rows = np.argsort(order)[: len(news)]  # where news item i landed
    path = tmp_path_factory.mktemp("crawl") / "crawl.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    return path, texts, news_rows


@pytest.fixture(scope="module")
def news_only(news, tmp_path_factory):
    path = tmp_path_factory.mktemp("news") / "news.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in news))
    return path


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labelings group the documents alike (whatever the numbers)."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.fixture(scope="module")
def scheduler():
    cluster = local_cluster(2)
    yield cluster.scheduler_address
    cluster.close()


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_crawl_with_thousands_of_copies_of_one_page_runs_to_the_end(
    crawl, news_only, engine, scheduler
):
    path, texts, news_rows = crawl
    run = dedup if engine == "local" else lambda p, **kw: dedup_dask(p, scheduler=scheduler, **kw)
    got = run(path)
    alone = run(news_only)
    summary = got.summary()
    # the copies are linked to their first occurrence, not paired with each other
    assert summary["exact_duplicates"] == COPIES - 1 + _news_copies(alone)
    assert summary["candidates"] < 60_000  # all pairs of the bucket alone: 66 million
    banner_rows = [i for i, t in enumerate(texts) if t.startswith(BANNER)]
    assert len(set(got.labels[banner_rows].tolist())) == 1  # copies and variants: one cluster
    kept = got.kept_rows()
    assert kept[banner_rows].tolist() == [min(banner_rows)] * len(banner_rows)
    # every news item is clustered as it is without the boilerplate
    assert same_partition(got.labels[news_rows], alone.labels)
    assert not set(got.labels[news_rows].tolist()) & set(got.labels[banner_rows].tolist())


def _news_copies(result) -> int:
    return result.summary()["exact_duplicates"]


def test_the_engines_agree_on_a_crawl_with_hot_buckets(crawl, scheduler):
    path = crawl[0]
    local = dedup(path, verify="exact", cluster_check=True)
    got = dedup_dask(path, scheduler=scheduler, verify="exact", cluster_check=True)
    assert got.pairs.tolist() == local.pairs.tolist()
    assert got.candidates == local.candidates
    assert got.labels.tolist() == local.labels.tolist()
    assert got.similarity.tolist() == local.similarity.tolist()
    assert got.summary()["exact_duplicates"] == local.summary()["exact_duplicates"]


# -- chains ----------------------------------------------------------------------------------
WORDS = (
    "river stone market bridge harbour lantern orchard meadow quarry valley summit canyon "
    "village tavern garden cellar chapel beacon ferry mill tower forge granary pasture"
).split()


def chain(length: int = 100, seed: int = 2) -> list[str]:
    """A ~1,500-character article and 99 edits of it, each one word away from the last."""
    rng = np.random.default_rng(seed)
    words = [WORDS[i] for i in rng.integers(0, len(WORDS), 230)]
    out = [" ".join(words)]
    for step in range(1, length):
        words = list(words)
        words[(step * 37) % len(words)] = f"edit{step}"
        out.append(" ".join(words))
    return out


def exact_jaccard(a: str, b: str) -> float:
    x, y = set(ns.shingles(a)), set(ns.shingles(b))
    return len(x & y) / len(x | y)


@pytest.fixture(scope="module")
def chained(tmp_path_factory):
    texts = chain()
    assert exact_jaccard(texts[0], texts[-1]) < 0.5  # the ends are far apart
    assert min(exact_jaccard(a, b) for a, b in itertools.pairwise(texts)) > 0.95
    path = tmp_path_factory.mktemp("chain") / "chain.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    return path, texts


def run_cli(path: Path, out: Path, *options: str) -> tuple[pd.DataFrame, dict]:
    assert main(["dedup", str(path), "--out", str(out), "--quiet", *options]) == 0
    table = pd.read_parquet(out / "clusters.parquet")
    return table, json.loads((out / "summary.json").read_text())


def test_a_chain_is_one_cluster_without_the_check(chained, tmp_path):
    path, texts = chained
    table, summary = run_cli(path, tmp_path, "--verify", "exact")
    assert table["cluster"].nunique() == 1 and summary["split_off"] == 0
    far = [
        exact_jaccard(texts[k], texts[r])
        for r, k in zip(table["row"], table["cluster"], strict=False)
    ]
    np.testing.assert_allclose(table["similarity_to_kept"], far, rtol=0, atol=1e-12)
    assert min(far) < 0.5  # documents removed in the name of one they barely resemble


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_the_member_check_leaves_no_removed_document_below_the_threshold(chained, tmp_path, verify):
    path, texts = chained
    table, summary = run_cli(path, tmp_path, "--verify", verify, "--cluster-check", "true")
    removed = table[~table["keep"]]
    exact = [
        exact_jaccard(texts[k], texts[r])
        for r, k in zip(removed["row"], removed["cluster"], strict=False)
    ]
    if verify == "exact":  # brute force: every removal within t of the document kept for it
        assert min(exact) >= 0.8
    else:  # the estimate is what was checked
        assert (removed["similarity_to_kept"] >= 0.8).all()
    assert summary["split_off"] > 0 and table["cluster"].nunique() > 1
    assert summary["removed"] == len(removed) > 0


def test_similarity_to_kept_is_the_estimate_against_the_kept_document(tmp_path, news_only):
    table, _ = run_cli(news_only, tmp_path)
    texts = [json.loads(line)["text"] for line in news_only.read_text().splitlines()]
    sig = ns.MinHasher(128, 1).text_signatures(texts)
    want = (sig[table["cluster"].to_numpy()] == sig[table["row"].to_numpy()]).mean(axis=1)
    np.testing.assert_array_equal(table["similarity_to_kept"].to_numpy(), want)
    assert (table.loc[table["keep"], "similarity_to_kept"] == 1.0).all()
    assert (table.loc[~table["keep"], "similarity_to_kept"] < 1.0).any()


# -- the command line ----------------------------------------------------------------------
EXPLORER_OPTIONS = ("--source", "--n-docs", "--example-seed", "--simhash-distance")


def test_dedup_offers_only_settings_that_change_a_run(capsys):
    with pytest.raises(SystemExit):
        main(["dedup", "--help"])
    shown = capsys.readouterr().out
    assert "--num-perm" in shown and "--cluster-check" in shown
    assert not [o for o in EXPLORER_OPTIONS if o in shown]
    for option in EXPLORER_OPTIONS:
        assert main(["dedup", "x.jsonl", "--out", "o", option, "3"]) == 2


def test_a_link_s_explorer_values_are_ignored_by_dedup(news_only, tmp_path):
    link = "http://127.0.0.1:8501/?source=csv&n_docs=500&simhash_distance=9&threshold=0.7"
    _, summary = run_cli(news_only, tmp_path / "a", "--settings", link)
    _, plain = run_cli(news_only, tmp_path / "b", "--threshold", "0.7")
    assert summary["settings"] == plain["settings"] == "threshold=0.7"
    assert summary["pairs"] == plain["pairs"]


def test_the_candidate_guard_names_its_option(news_only, tmp_path, capsys):
    args = ["dedup", str(news_only), "--out", str(tmp_path), "--max-candidates", "10", "--quiet"]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("nearsim: error: banding would give more than 10 candidate pairs")
    assert "--max-candidates" in err


def test_progress_to_a_pipe_is_plain_lines(news_only, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "nearsim", "dedup", str(news_only), "--out", str(tmp_path)],
        capture_output=True,  # bytes: text mode would turn a carriage return into a newline
        timeout=300,
    )
    err = run.stderr.decode("utf-8")
    assert run.returncode == 0, err
    assert "\r" not in err and "?docs/s" not in err
    lines = err.split("\n")[:-1]
    assert lines and all(line.startswith("nearsim: ") for line in lines)
    assert any("documents read and signed: 2,000 docs" in line for line in lines)


def test_plain_progress_writes_at_most_one_line_per_interval():
    stream = io.StringIO()
    with PlainProgress("documents", "docs", stream, every=3600) as bar:
        for _ in range(10_000):
            bar.update(10)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "nearsim: documents…"  # the stage begins
    assert len(lines) == 2 and "100,000 docs" in lines[1]  # then only the closing line


# -- documents installed on this machine -------------------------------------------------
@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """1,500 manual pages, package documents and Python sources of this machine (templated
    families, licence files copied across packages), as JSON lines with ids and sources."""
    from benchmarks.corpora import real_documents, write_jsonl

    records = real_documents(1_500, seed=1)
    path = tmp_path_factory.mktemp("installed") / "installed.jsonl"
    write_jsonl(records, path)
    return path, records


def test_on_installed_documents_every_removal_is_within_the_threshold_of_what_is_kept(
    installed, tmp_path
):
    path, records = installed
    table, summary = run_cli(
        path, tmp_path, "--id-field", "id", "--verify", "exact", "--cluster-check", "true"
    )
    assert table["id"].tolist() == [r["id"] for r in records]
    removed = table[~table["keep"]]
    assert len(removed) > 100 and summary["split_off"] > 0  # chains were there, and split
    texts = [r["text"] for r in records]
    worst = min(
        exact_jaccard(texts[k], texts[r])
        for r, k in zip(removed["row"], removed["cluster"], strict=True)
    )
    assert worst >= 0.8  # brute force, set by set
    unchecked, _ = run_cli(path, tmp_path / "unchecked", "--verify", "exact")
    gone = unchecked[~unchecked["keep"]]
    assert gone["similarity_to_kept"].min() < 0.8  # without the check, chains remove more


def test_the_explorer_s_member_check_is_the_run_s_rule(chained, tmp_path):
    """The Clusters view's check and ``--cluster-check true --verify exact`` give the same
    clusters on the same documents: the leavers of a chain are grouped again among
    themselves, not left alone."""
    path, texts = chained
    table, _ = run_cli(path, tmp_path, "--verify", "exact", "--cluster-check", "true")
    run = ns.pipeline.Runner(texts, ns.Settings(threshold=0.8))
    detail, labels = run.get("check")
    assert same_partition(labels, table["cluster"].to_numpy())
    assert len(set(labels.tolist())) < len(texts) - 1  # grouped again, not all alone
    assert (~detail["kept"]).sum() > 0
