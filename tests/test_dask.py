"""``--engine dask``: the same output as the local engine on a LocalCluster of two worker
processes, over several partitionings and bad records, after a worker is killed, and the
errors of a scheduler that cannot be reached."""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask.utils import key_split
from distributed import Client
from distributed.diagnostics.plugin import SchedulerPlugin

import nearsim as ns
import nearsim.run.dask_engine as de
from nearsim.cli import main
from nearsim.io.fields import field_text
from nearsim.run import dask_pairs as dp
from nearsim.run.dask_engine import dedup_dask
from nearsim.run.dask_read import Piece, Reading, plan_partitions, read_partition
from nearsim.run.local import dedup

SETTINGS = ns.Settings(threshold=0.7)


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of two single-threaded worker processes for the module."""
    cluster = de.local_cluster(2)
    yield cluster
    cluster.close()


@pytest.fixture(scope="module")
def scheduler(cluster):
    return cluster.scheduler_address


@pytest.fixture(scope="module")
def texts():
    """2,000 Example documents, a third of them edited copies."""
    return ns.example_corpus(2000, seed=5)["text"].tolist()


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows))
    return path


def assert_same(local, got) -> None:
    """Every field of the two results, value for value."""
    assert got.id_list == local.id_list
    assert got.valid.tolist() == local.valid.tolist()
    assert got.exact_duplicates == local.exact_duplicates
    assert got.similarity.tolist() == local.similarity.tolist()
    assert got.split_off == local.split_off
    assert got.candidates == local.candidates
    assert got.pairs.tolist() == local.pairs.tolist()
    assert got.estimates.tolist() == local.estimates.tolist()
    assert (got.jaccard is None) == (local.jaccard is None)
    if local.jaccard is not None:
        assert got.jaccard.tolist() == local.jaccard.tolist()
    assert got.labels.tolist() == local.labels.tolist()
    assert got.read_report == local.read_report
    pd.testing.assert_frame_equal(got.cluster_table(), local.cluster_table())


def both(paths, scheduler, *, settings=SETTINGS, **options):
    """The local run and the Dask run on the same input; the Dask run checked against it."""
    dask_only = {k: options.pop(k) for k in ("blocksize",) if k in options}
    local = dedup(paths, settings, **options)
    got = dedup_dask(paths, settings, scheduler=scheduler, **options, **dask_only)
    assert_same(local, got)
    return local, got


# -- partitionings -------------------------------------------------------------------------
@pytest.mark.parametrize("verify", ["estimate", "exact", "none"])
def test_one_json_lines_file_cut_into_byte_ranges(tmp_path, scheduler, texts, verify):
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    plan = plan_partitions([path], 60_000, "text", None)
    assert len(plan) >= 6  # the file really is cut
    local, _ = both(path, scheduler, verify=verify, blocksize=60_000)
    assert local.pairs.shape[0] > 100  # there is something to agree on


@pytest.mark.parametrize(
    "settings",
    [
        ns.Settings(shingle_kind="word", shingle_k=2, threshold=0.5, min_shingles=25),
        ns.Settings(num_perm=64, auto_tune=False, bands=12, rows=4, threshold=0.6),
    ],
    ids=["word-shingles-and-a-minimum", "bands-leaving-columns-unused"],
)
def test_other_settings(tmp_path, scheduler, texts, settings):
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    local, _ = both(path, scheduler, settings=settings, blocksize=100_000)
    assert local.pairs.shape[0] > 100
    if settings.min_shingles:
        assert 0 < (~local.valid).sum() < len(texts) / 2  # some documents have no signature


def test_several_files_of_several_formats(tmp_path, scheduler, texts):
    """JSON lines (plain and gzip), CSV, Parquet and text files in one run; ids are record
    numbers, and a text file's id is its path."""
    import gzip

    folder = tmp_path / "corpus"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", ({"text": t} for t in texts[:600]))
    with gzip.open(folder / "b.jsonl.gz", "wt") as f:
        f.writelines(json.dumps({"text": t}) + "\n" for t in texts[600:900])
    pd.DataFrame({"text": texts[900:1300]}).to_csv(folder / "c.csv", index=False)
    pd.DataFrame({"text": texts[1300:1900]}).to_parquet(folder / "d.parquet", row_group_size=150)
    for i, t in enumerate(texts[1900:]):
        (folder / f"e{i:03d}.txt").write_text(t)
    local, _ = both(folder, scheduler, blocksize=60_000)
    assert local.id_list[-1].endswith("e099.txt")
    assert len(plan_partitions(sorted(folder.iterdir()), 60_000, "text", None)) > 5


def test_parquet_row_groups_with_an_id_column(tmp_path, scheduler, texts):
    path = tmp_path / "news.parquet"
    table = pa.table({"text": texts, "doc": [f"d{i}" for i in range(len(texts))]})
    pq.write_table(table, path, row_group_size=128)
    plan = plan_partitions([path], 40_000, "text", "doc")
    assert len(plan) > 4 and all(p.row_groups is not None for part in plan for p in part)
    both(path, scheduler, id_field="doc", blocksize=40_000)


def test_a_single_partition_and_no_candidates(tmp_path, scheduler, texts):
    path = write_jsonl(tmp_path / "one.jsonl", [{"text": "alone here"}, {"text": "x"}])
    both(path, scheduler)
    path = write_jsonl(tmp_path / "few.jsonl", ({"text": t} for t in texts[:50]))
    both(path, scheduler, blocksize=10**9)


# -- bad records ---------------------------------------------------------------------------
@pytest.fixture
def messy(tmp_path, texts):
    """Bad records in several partitions: lines that are not JSON, a missing field, nulls in
    Parquet row groups, a Parquet file without the text column (all its rows bad)."""
    rows = []
    for i, t in enumerate(texts[:1200]):
        rows.append({"text": t, "doc": i})
        if i % 250 == 200:
            rows.append("not json\n")
        if i % 400 == 10:
            rows.append({"body": "no text field"})
    write_jsonl(tmp_path / "a.jsonl", rows)
    col = [None if i % 97 == 5 else t for i, t in enumerate(texts[1200:])]
    pq.write_table(
        pa.table({"text": col, "doc": list(range(1200, 2000))}),
        tmp_path / "b.parquet",
        row_group_size=100,
    )
    pq.write_table(pa.table({"body": ["x", "y"], "doc": [0, 1]}), tmp_path / "c.parquet")
    return tmp_path


def test_skipped_bad_records_number_rows_and_ids_as_the_local_engine(messy, scheduler):
    local, got = both(messy, scheduler, on_error="skip", blocksize=120_000)
    assert "skipped 18 bad records (7 in" in local.read_report
    assert local.id_list[9:12] == ["9", "10", "12"]  # record 11 is bad
    assert got.n == len(local.ids) == 1991 and got.id_list[-1] == "2006"
    both(messy, scheduler, on_error="skip", id_field="doc", blocksize=120_000)


def test_the_first_bad_record_stops_the_run_with_the_local_message(tmp_path, scheduler, texts):
    rows = [{"text": t} for t in texts[:1500]]
    rows[1200:1200] = ["not json\n"]
    rows[1400:1400] = [{"body": "no text field"}]
    path = write_jsonl(tmp_path / "a.jsonl", rows)
    with pytest.raises(ValueError, match="line 1201") as local:
        dedup(path, SETTINGS)
    with pytest.raises(ValueError, match=re.escape(str(local.value))):
        dedup_dask(path, SETTINGS, scheduler=scheduler, blocksize=20_000)
    assert len(plan_partitions([path], 20_000, "text", None)) > 10


# -- clusters in the workers ---------------------------------------------------------------
def test_clusters_across_partitions_equal_the_local_engine_s(tmp_path, scheduler, texts):
    """The components come from large-star / small-star in the workers, across many small
    partitions; the labels are the local engine's."""
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    local, got = both(path, scheduler, verify="none", blocksize=30_000)
    assert (np.bincount(local.labels) >= 3).any()  # chains of copies, not only pairs
    assert got.extra["component_rounds"] >= 2  # union-find per partition was not enough


# -- removals per group and pairs kept apart ----------------------------------------------
def _fielded(tmp_path: Path, texts: list[str]) -> Path:
    """The Example documents with 80 exact copies and two fields drawn at random: a source
    (strings, a number, null, sometimes missing) and a language (empty and null too)."""
    rng = np.random.default_rng(11)
    texts = list(texts)
    n = len(texts)
    for i in rng.choice(np.arange(1, n), 80, replace=False).tolist():
        texts[i] = texts[int(rng.integers(0, i))]
    sources = rng.choice(np.array(["news", "blog", "forum", 7, None], dtype=object), n)
    langs = rng.choice(np.array(["en", "fr", "", None], dtype=object), n)
    rows = []
    for i, text in enumerate(texts):
        row = {"text": text, "src": sources[i], "lang": langs[i]}
        if i % 97 == 0:
            del row["src"]
        rows.append(row)
    return write_jsonl(tmp_path / "fielded.jsonl", rows)


def _same_fields(local, got) -> None:
    want, have = local.summary(), got.summary()
    for key in ("group_field", "removed_by_group", "keep_apart", "kept_apart"):
        assert (key in have) == (key in want)
        if key in want:
            assert have[key] == want[key], key
            if key == "removed_by_group":  # the same order: most documents first
                assert list(have[key]) == list(want[key])


@pytest.mark.parametrize(
    ("verify", "cluster_check", "group", "apart"),
    [
        ("estimate", False, "src", "lang"),
        ("exact", True, "src", "lang"),
        ("estimate", True, "lang", "lang"),
        ("none", False, None, "src"),
    ],
)
def test_group_field_and_keep_apart_equal_the_local_engine_s(
    tmp_path, scheduler, texts, verify, cluster_check, group, apart
):
    """``--group-field`` and ``--keep-apart`` over many partitions of a JSON lines file:
    removals per group (values, counts and order), the pairs kept apart and their count,
    and every table equal to the local engine's."""
    path = _fielded(tmp_path, texts)
    local, got = both(
        path, scheduler, verify=verify, cluster_check=cluster_check, group_field=group,
        keep_apart=apart, blocksize=60_000,
    )  # fmt: skip
    _same_fields(local, got)
    assert got.extra["kept_apart"] > 0  # the rule has pairs to refuse
    lines = path.read_text().splitlines()
    values = np.array([field_text(json.loads(line).get(apart)) for line in lines])
    a, b = got.pairs[:, 0], got.pairs[:, 1]
    assert not ((values[a] == values[b]) & (values[a] != "")).any()
    if group is not None:
        assert sum(g["removed"] for g in got.extra["removed_by_group"].values()) == int(
            (~got.cluster_table()["keep"]).sum()
        ) > 0


def _local_and_dask_summaries(tmp_path, args, scheduler) -> tuple[dict, dict]:
    """``nearsim ARGS`` with the local engine and with Dask: both succeed and write the same
    clusters and pairs; their summaries (local, Dask)."""
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    dask_args = ["--engine", "dask", "--scheduler", scheduler]
    assert main([*args, "--out", str(tmp_path / "dask"), *dask_args]) == 0
    for name in ("clusters.parquet", "pairs.parquet"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "dask" / name), pd.read_parquet(tmp_path / "local" / name)
        )
    local, got = (
        json.loads((tmp_path / d / "summary.json").read_text()) for d in ("local", "dask")
    )
    return local, got


def test_the_command_line_writes_the_fields_figures_as_the_local_engine(
    tmp_path, scheduler, texts
):
    path = _fielded(tmp_path, texts)
    args = ["dedup", str(path), "--threshold", "0.7", "--quiet", "--group-field", "src",
            "--keep-apart", "lang"]  # fmt: skip
    local, got = _local_and_dask_summaries(tmp_path, args, scheduler)
    for key in ("removed_by_group", "kept_apart", "group_field", "keep_apart", "removed"):
        assert got[key] == local[key]
    assert list(got["removed_by_group"]) == list(local["removed_by_group"])


# -- faults --------------------------------------------------------------------------------
class KillAfter(SchedulerPlugin):
    """Kills a worker process (SIGKILL) the moment it finishes its ``count``-th task of a
    kind: mid-run, with results of that stage in its memory and more of its tasks queued."""

    def __init__(self, scheduler, pids: dict, prefix: str, count: int):
        self.scheduler, self.pids, self.prefix, self.count = scheduler, pids, prefix, count
        self.done: dict[str, int] = {}
        self.killed: list[str] = []

    def transition(self, key, start, finish, *args, **kwargs):
        if self.killed or finish != "memory" or key_split(key) != self.prefix:
            return
        (worker,) = (ws.address for ws in self.scheduler.tasks[key].who_has)
        self.done[worker] = self.done.get(worker, 0) + 1
        if self.done[worker] == self.count and worker in self.pids:
            os.kill(self.pids[worker], signal.SIGKILL)
            self.killed.append(worker)


def test_a_local_cluster_waits_for_a_slow_worker_to_come_back(cluster):
    """A LocalCluster closes a dead worker's nanny if no replacement registers within the
    lost-worker timeout (15 s by default); a fresh worker importing numba and nearsim took
    longer on CI's two busy cores, and the fault tests after it ran with one worker."""
    import dask

    assert dask.config.get("distributed.deploy.lost-worker-timeout") == "300s"


@pytest.mark.parametrize(
    ("prefix", "count"),
    [
        ("read_or_load", 3),
        ("band_frame", 2),
        ("bucket_codes", 1),
        ("verify_second", 2),
        ("large_star", 2),
        ("with_similarities", 1),
    ],
    ids=[
        "while-reading",
        "while-band-records-are-shuffled",
        "while-the-band-shuffle-s-output-is-read",
        "while-verifying",
        "while-clustering",
        "while-members-are-measured",
    ],
)
def test_a_worker_killed_mid_run_changes_nothing(tmp_path, cluster, texts, prefix, count):
    """A worker is killed (SIGKILL) at each stage: while the partitions are read and signed
    (its signatures are lost), while the band records are sent through the P2P shuffle and
    while its output is turned into pair codes (the shuffle runs again), while candidates
    are verified, while the connected components' rounds run, and while members are
    measured against their kept document: Dask recomputes what it held and the output is
    unchanged."""
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    local = dedup(path, SETTINGS, verify="exact", cluster_check=True)
    assert local.split_off > 0  # the member check has work to redo
    with Client(cluster.scheduler_address) as client:
        # the nanny restarts the worker killed by the previous case: a fresh process that
        # imports numpy, numba and nearsim, which takes over 30 s on two busy cores
        client.wait_for_workers(2, timeout=300)
        pids = client.run(os.getpid)
    plugin = KillAfter(cluster.scheduler, pids, prefix, count)
    cluster.scheduler.add_plugin(plugin, name="kill-after")
    try:
        got = dedup_dask(
            path,
            SETTINGS,
            scheduler=cluster.scheduler_address,
            verify="exact",
            cluster_check=True,
            blocksize=40_000,
        )
    finally:
        cluster.scheduler.remove_plugin("kill-after")
    assert plugin.killed, f"no worker finished {count} {prefix} tasks"
    assert_same(local, got)
    with Client(cluster.scheduler_address) as client:
        client.wait_for_workers(2, timeout=300)  # the nanny's new worker, for the next test


# -- a client that dies resumes from what is on disk ---------------------------------------
CRASHING_CLIENT = """
import os, sys
import nearsim as ns
from nearsim.run import dask_engine, dask_resume

stage = sys.argv[4]
if stage == "signatures":  # dies once every partition is signed, before banding
    dask_engine._Run.find_pairs = lambda self: os._exit(3)
else:  # dies the moment the stage is marked complete on disk
    mark = dask_resume.Work.mark
    def mark_and_die(self, name, figures):
        mark(self, name, figures)
        if name == stage:
            os._exit(3)
    dask_resume.Work.mark = mark_and_die
dask_engine.dedup_dask(sys.argv[1], ns.Settings(threshold=0.7), scheduler=sys.argv[2],
                       out=sys.argv[3], verify="exact", cluster_check=True, blocksize=40_000)
"""


@pytest.mark.parametrize("stage", ["signatures", "pairs", "clusters"])
def test_a_client_that_dies_resumes_from_the_completed_stages_on_disk(
    tmp_path, scheduler, texts, stage
):
    """The client process dies (``os._exit``) after a stage is on disk; run again, the
    engine loads what was kept — each signed partition, the verified pairs, the clusters —
    and writes the local engine's tables. After signing, three partitions' files are
    removed too: only those are read and signed again."""
    import subprocess
    import sys

    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    out = tmp_path / "out"
    args = [str(path), scheduler, str(out), stage]
    died = subprocess.run([sys.executable, "-c", CRASHING_CLIENT, *args], timeout=300)
    assert died.returncode == 3
    work = out / ".nearsim-work"
    signed = sorted((work / "signatures").glob("part-*.npz"))
    assert len(signed) > 5 and not (out / "summary.json").exists()
    for kept in work.rglob("part-*"):  # arrays only: loading runs no code from the folder
        assert kept.suffix == ".npz"
        np.load(kept, allow_pickle=False).files  # noqa: B018
    if stage == "signatures":
        for part in signed[2:5]:
            part.unlink()
    got = dedup_dask(path, SETTINGS, scheduler=scheduler, out=out, verify="exact",
                     cluster_check=True, blocksize=40_000)  # fmt: skip
    want = {"signatures": ["signatures"], "pairs": ["signatures", "pairs"],
            "clusters": ["signatures", "pairs", "clusters"]}  # fmt: skip
    assert got.summary["resumed"] == want[stage]
    assert not work.exists()  # a finished run leaves no work folder
    local = dedup(path, SETTINGS, verify="exact", cluster_check=True)
    assert local.split_off > 0
    for name, table in (("clusters", local.cluster_table()), ("pairs", local.pair_table())):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"), table)
    assert got.summary["split_off"] == local.split_off
    assert got.summary["candidates"] == local.candidates


def test_a_kept_partition_loads_as_it_was_read(tmp_path):
    """A partition kept for a restart (ids, a bad record skipped, two fields, an empty
    value, non-ASCII text) loads with every attribute equal, from arrays alone."""
    from nearsim.run import dask_resume as dk

    sources, langs = ["a", None, "b\u00e9", 7] * 3, ["en", ""] * 6
    rows = [{"text": f"doc {i} caf\u00e9", "url": f"u/{i}\u00e9", "src": s, "lang": lang}
            for i, (s, lang) in enumerate(zip(sources, langs, strict=True))]  # fmt: skip
    path = write_jsonl(tmp_path / "c.jsonl", [*rows[:5], "not json\n", *rows[5:]])
    reading = Reading("text", "url", "skip", 4, ("src", "lang"))
    part = read_partition((Piece(str(path), path.stat().st_size),), SETTINGS, reading)
    assert part.error is None and part.report.skipped == 1 and part.n == 12
    kept = tmp_path / "part-00000.npz"
    dk.save_part(part, kept)
    again = dk.load_part(kept)
    for name in ("valid", "signatures", "keys", "positions"):
        assert np.array_equal(getattr(again, name), getattr(part, name))
        assert getattr(again, name).dtype == getattr(part, name).dtype
    assert again.given_ids == part.given_ids and again.records == part.records
    assert again.report == part.report and again.seconds == part.seconds
    for name in ("src", "lang"):
        assert again.values(name).tolist() == part.values(name).tolist()
    assert part.values("src").tolist()[:4] == ["a", "", "b\u00e9", "7"]
    pairs = (pd.DataFrame({"a": [1, 2], "b": [3, 4], "estimate": [0.5, 1.0]}), 7, 1)
    dk.save_items(pairs, kept)
    frame, m, apart = dk.load_items(kept)
    pd.testing.assert_frame_equal(frame, pairs[0])
    assert (m, apart) == (7, 1)


def test_a_different_job_in_the_same_folder_starts_afresh(tmp_path, scheduler, texts):
    """What an earlier run kept is used only by the same input and options."""
    import subprocess
    import sys

    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts[:800]))
    out = tmp_path / "out"
    died = subprocess.run(
        [sys.executable, "-c", CRASHING_CLIENT, str(path), scheduler, str(out), "pairs"],
        timeout=300,
    )
    assert died.returncode == 3 and (out / ".nearsim-work" / "pairs" / "done.json").exists()
    other = ns.Settings(threshold=0.6)
    got = dedup_dask(path, other, scheduler=scheduler, out=out, verify="exact",
                     cluster_check=True, blocksize=40_000)  # fmt: skip
    assert got.summary["resumed"] == []
    local = dedup(path, other, verify="exact", cluster_check=True)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "pairs.parquet"), local.pair_table())


# -- the command line ----------------------------------------------------------------------
def test_the_command_line_writes_the_local_engine_s_files(tmp_path, scheduler, texts):
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    args = ["dedup", str(path), "--threshold", "0.7", "--quiet", "--verify", "exact"]
    local, got = _local_and_dask_summaries(tmp_path, args, scheduler)
    for key in ("documents", "candidates", "pairs", "clusters", "removed", "settings", "read"):
        assert got[key] == local[key]


def _news_with_one_page_copied(total: int, copies: int) -> list[str]:
    """Example news items with ``copies`` copies of one page among them, spread evenly:
    half of them exact, half with one word changed (distinct documents sharing most
    band buckets: the bucket limit's case)."""
    news = []
    for seed in range(total // 20_000 + 1):
        news += ns.example_corpus(20_000, seed=seed)["text"].tolist()
    page = " ".join(f"word{i}" for i in range(60))
    variants = [page if i % 2 else f"{page} edit{i}" for i in range(copies)]
    texts = news[: total - copies]
    step = len(texts) // copies
    for i, v in enumerate(variants):
        texts.insert(i * (step + 1), v)
    return texts


def test_a_hot_bucket_of_8000_copies_among_60000_writes_the_local_engine_s_files(
    tmp_path, scheduler
):
    """8,000 copies of one page among 60,000 documents: all their pairs would be 32 million
    candidates; the Dask engine runs to the end and its folders of parts equal the local
    engine's files."""
    texts = _news_with_one_page_copied(60_000, 8_000)
    path = write_jsonl(tmp_path / "crawl.jsonl", ({"text": t} for t in texts))
    args = ["dedup", str(path), "--quiet"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    dask_args = ["--engine", "dask", "--scheduler", scheduler]
    assert main([*args, "--out", str(tmp_path / "dask"), *dask_args]) == 0
    for name in ("clusters.parquet", "pairs.parquet"):
        assert (tmp_path / "dask" / name).is_dir()
        assert len(list((tmp_path / "dask" / name).glob("part-*.parquet"))) > 1
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "dask" / name), pd.read_parquet(tmp_path / "local" / name)
        )
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert summary["documents"] == 60_000 and summary["candidates"] < 1_000_000
    assert summary["workers_peak_memory_bytes"] > 0 and summary["peak_memory_bytes"] > 0
    clusters = pd.read_parquet(tmp_path / "dask" / "clusters.parquet")
    assert clusters["cluster_size"].max() >= 8_000  # the page's copies are one cluster
    assert not list((tmp_path / "dask").glob(".*"))  # no temporary folder left behind


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_csv_and_json_lines_are_folders_of_parts_with_the_local_rows(
    tmp_path, scheduler, texts, fmt
):
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts))
    args = ["dedup", str(path), "--threshold", "0.7", "--quiet", "--format", fmt]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    dask_args = ["--engine", "dask", "--scheduler", scheduler]
    assert main([*args, "--out", str(tmp_path / "dask"), *dask_args]) == 0
    read = pd.read_csv if fmt == "csv" else lambda p: pd.read_json(p, lines=True)
    for name in ("clusters", "pairs"):
        parts = sorted((tmp_path / "dask" / f"{name}.{fmt}").glob(f"part-*.{fmt}"))
        assert parts
        got = pd.concat([read(p) for p in parts], ignore_index=True)
        want = read(tmp_path / "local" / f"{name}.{fmt}")
        pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_a_second_run_replaces_the_first_run_s_files_and_folders(tmp_path, scheduler, texts):
    """A local run's single files and a Dask run's folders replace each other whole."""
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts[:500]))
    out = tmp_path / "out"
    base = ["dedup", str(path), "--quiet", "--out", str(out)]
    dask_args = ["--engine", "dask", "--scheduler", scheduler]
    assert main(base) == 0
    local = pd.read_parquet(out / "clusters.parquet")
    assert main([*base, *dask_args]) == 0
    assert (out / "clusters.parquet").is_dir()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "clusters.parquet"), local)
    assert main(base) == 0
    assert (out / "clusters.parquet").is_file()
    assert sorted(p.name for p in out.iterdir()) == [
        "clusters.parquet", "pairs.parquet", "summary.json"
    ]


def test_an_unreachable_scheduler_is_one_line_naming_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(de, "CONNECT_TIMEOUT", 1.0)
    path = write_jsonl(tmp_path / "a.jsonl", [{"text": "one two three"}])
    address = "tcp://127.0.0.1:9"  # the discard port: nothing listens there
    code = main(["dedup", str(path), "--out", str(tmp_path / "out"), "--engine", "dask",
                 "--scheduler", address, "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and address in err and "cannot be reached" in err
    assert not (tmp_path / "out" / "summary.json").exists()


def io_loops() -> int:
    return sum(t.name == "IO loop" for t in threading.enumerate())


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "nonsense", "xyz://a:1"])
def test_a_failed_connection_leaves_no_loop_behind_and_the_next_one_works(
    address, tmp_path, scheduler, monkeypatch
):
    """A Client whose constructor raised used to keep its IO-loop thread; its late __del__
    could then break the next Client (CI: ``LoopRunner`` ``assert loop is not None``)."""
    monkeypatch.setattr(de, "CONNECT_TIMEOUT", 1.0)
    path = write_jsonl(tmp_path / "a.jsonl", [{"text": "one two three four"}])
    before = io_loops()
    with pytest.raises(ValueError, match="cannot be reached"):
        dedup_dask(path, SETTINGS, scheduler=address)
    assert io_loops() == before
    gc.collect()  # the failed Client's __del__, if it were still due, runs here
    assert dedup_dask(path, SETTINGS, scheduler=scheduler).id_list == ["0"]
    assert io_loops() == before


def test_bad_worker_counts_and_addresses_are_refused(tmp_path, capsys):
    path = write_jsonl(tmp_path / "a.jsonl", [{"text": "one two three"}])
    with pytest.raises(ValueError, match=r"workers=0 is not accepted; accepted: an integer ≥ 1"):
        dedup_dask(path, workers=0)
    with pytest.raises(ValueError, match="workers=True is not accepted"):
        dedup_dask(path, workers=True)
    with pytest.raises(ValueError, match="'nonsense' cannot be reached"):
        dedup_dask(path, scheduler="nonsense")
    code = main(["dedup", str(path), "--out", str(tmp_path / "o"), "--engine", "dask",
                 "--workers", "0"])  # fmt: skip
    assert code == 2 and "workers=0" in capsys.readouterr().err


def test_progress_comes_from_dask_on_stderr(tmp_path, scheduler, texts, capsys):
    path = write_jsonl(tmp_path / "news.jsonl", ({"text": t} for t in texts[:300]))
    dedup_dask(path, SETTINGS, scheduler=scheduler, progress=True)
    captured = capsys.readouterr()
    assert "Completed" in captured.err and "nearsim: reading and signing" in captured.err
    assert captured.out == ""


# -- the workers' functions, alone -------------------------------------------------------
def test_signature_rows_survive_the_binary_column_sliced_and_empty():
    rows = np.random.default_rng(0).integers(0, 2**32, (7, 16), dtype=np.uint32)
    column = dp.rows_as_bytes(rows)
    assert dp.bytes_as_rows(column, 16).tolist() == rows.tolist()
    assert dp.bytes_as_rows(column.iloc[[5, 1, 2]], 16).tolist() == rows[[5, 1, 2]].tolist()
    assert dp.bytes_as_rows(column.iloc[3:], 16).tolist() == rows[3:].tolist()
    assert dp.bytes_as_rows(column.iloc[:0], 16).shape == (0, 16)
    with pytest.raises(ValueError, match="a signature row of 64 bytes is not accepted"):
        dp.bytes_as_rows(column, 17)


def test_a_hot_bucket_s_first_document_travels_once_per_destination():
    """The bucket limit pairs every member of a hot bucket with its first ones, so millions
    of candidates can share one first document. Its signature must travel once to each row
    partition its candidates go to, not once per candidate (a copy per candidate killed the
    workers of a 10⁶-document run with 250,000 dated banners in one bucket), and each
    destination must still compare every candidate with the right signature."""
    from types import SimpleNamespace

    k, n, bounds = 16, 1200, (400, 800)  # three row partitions: [0, 400), [400, 800), [800, n)
    rng = np.random.default_rng(5)
    sigs = rng.integers(0, 2, (n, k), dtype=np.uint32)  # two values: many agreements
    star = [0 * n + b for b in range(1, n)] + [1 * n + b for b in range(2, n, 3)]
    chance = rng.choice(np.arange(2, 400), 50, replace=False)  # other first documents
    pairs = star + [int(a) * n + int(b) for a in chance for b in rng.integers(a + 1, n, 4)]
    codes = np.repeat(np.asarray(pairs, dtype=np.int64), 2)  # a pair shares two bands
    first = SimpleNamespace(signatures=sigs[:400])
    out = dp.attach_first(pd.DataFrame(index=codes), first, 0, n, None, None, bounds)
    a, b = out["code"].to_numpy() // n, out["b"].to_numpy()
    destination = np.searchsorted(bounds, b, side="right")
    widths = np.diff(np.frombuffer(pa.array(out["sig_a"].array).buffers()[1], np.int64))
    carried = widths > 0
    assert set(np.unique(widths)) == {0, 4 * k}
    assert len(set(zip(a[carried], destination[carried], strict=True))) == int(carried.sum())
    assert int(carried.sum()) == len(set(zip(a, destination, strict=True)))  # one each
    assert int(carried.sum()) < len(out) // 10
    settings = ns.RunSettings(threshold=0.5, num_perm=k, bands=4, rows=4, auto_tune=False)
    found = []
    for d, (lo, hi) in enumerate(zip((0, *bounds), (*bounds, n), strict=True)):
        mine = out[destination == d].set_index("b")
        part = SimpleNamespace(signatures=sigs[lo:hi])
        accepted, count, _ = dp.verify_second(mine, part, lo, n, settings, "estimate", None)
        assert count <= len(mine)
        found += list(zip(accepted["a"], accepted["b"], accepted["estimate"], strict=True))
    expected = []
    for code in np.unique(codes):
        x, y = sigs[code // n], sigs[code % n]
        eq = x == y
        if eq.reshape(4, 4).all(axis=1).any() and eq.mean() >= 0.5:
            expected.append((code // n, code % n, eq.mean()))
    assert sorted(found) == sorted(expected) and len(expected) > 20


def test_a_huge_bucket_stops_before_its_pairs_are_made():
    records = pd.DataFrame(
        {"key": np.full(3000, 7, np.uint64), "band": np.zeros(3000, np.uint16),
         "row": np.arange(3000, dtype=np.int64)}
    )  # fmt: skip
    every = 3000 * 2999 // 2
    codes = dp.bucket_codes(records, 3000, max_pairs=every, limit=3000)["code"].to_numpy()
    assert codes.shape[0] == every and (np.diff(codes) > 0).all()
    with pytest.raises(ns.banding.TooManyPairsError, match="4,498,500 candidate pairs"):
        dp.bucket_codes(records, 3000, max_pairs=1_000_000, limit=3000)


def test_a_file_a_worker_cannot_open_is_reported_as_such(tmp_path):
    missing = Piece(str(tmp_path / "elsewhere.csv"), 0)
    part = read_partition((missing,), SETTINGS, Reading("text", None, "fail"))
    assert part.n == 0 and "a Dask worker cannot read the input" in part.error
    assert "shared storage" in part.error
