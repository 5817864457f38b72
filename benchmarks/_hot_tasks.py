"""The child processes of ``bench_corpus --parts hot``: each runs alone in a fresh
interpreter (``python -m benchmarks._hot_tasks TASK.json OUT.json``), so its time, CPU
time and peak memory are its own.

* ``hot_corpora``: ``benchmarks.corpora.hot_bucket_corpus`` at the large size, written as
  JSON lines with and without its boilerplate; the same at the peers' size, also cut in
  two shards for datatrove's two workers; each row's source as a small ``.npy``.
* ``news_truth``: the exact pairs at J ≥ t (nearsim's shingles) among the news items of
  a corpus, and how many of them a perfect clustering at t would remove; not timed.
* ``removed_by_source``: which sources the documents a run removed came from (nearsim's
  ``clusters.parquet``, datatrove's removed rows, text-dedup's labels), and how many of
  the news items removed have no news item at J ≥ t; not timed.
* ``datatrove``: datatrove's MinHash deduplication, its four pipeline steps run with
  ``LocalPipelineExecutor`` as its example ``minhash_deduplication.py`` does, on local
  files. It runs in datatrove's own virtualenv, so this module imports only the standard
  library at the top.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

SOURCES = ("news", "boilerplate", "dated", "chain")


class Clock:
    """Wall and CPU seconds (this process and its reaped children) of named stages."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @staticmethod
    def _cpu() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    def run(self, name: str, fn):
        wall, cpu = time.perf_counter(), self._cpu()
        out = fn()
        self.seconds[name] = time.perf_counter() - wall
        self.cpu[name] = self._cpu() - cpu
        return out


# -- the corpora --------------------------------------------------------------------------
def hot_corpora(task: dict) -> dict:
    import numpy as np

    from benchmarks.corpora import describe, hot_bucket_corpus, without_boilerplate, write_jsonl

    out: dict = {}
    for n, files in ((task["n"], task["large"]), (task["n_peer"], task["peer"])):
        records = hot_bucket_corpus(n, seed=task["seed"])
        code = {s: i for i, s in enumerate(SOURCES)}
        np.save(files["sources"], np.array([code[r["source"]] for r in records], np.int8))
        _write(write_jsonl, records, files["hot"])
        facts = describe(records)
        out[f"hot/{n}"] = dict(_facts(facts), bytes=Path(files["hot"]).stat().st_size)
        if "plain" in files:
            plain = without_boilerplate(records)
            _write(write_jsonl, plain, files["plain"])
            sources = np.array([code[r["source"]] for r in plain], np.int8)
            np.save(files["plain_sources"], sources)
            out[f"plain/{n}"] = dict(
                _facts(describe(plain)), bytes=Path(files["plain"]).stat().st_size
            )
            del plain
        if "shards" in files:  # two halves in row order, for datatrove's two workers
            shards = Path(files["shards"])
            shutil.rmtree(shards, ignore_errors=True)
            shards.mkdir(parents=True)
            half = (len(records) + 1) // 2
            for s, part in enumerate((records[:half], records[half:])):
                _write(write_jsonl, part, shards / f"part-{s}.jsonl")
            out[f"shards/{n}"] = [half, len(records) - half]
        del records
    return out


def _write(write_jsonl, records, path) -> None:
    tmp = Path(f"{path}.tmp")
    write_jsonl(records, tmp)
    os.replace(tmp, path)


def _facts(facts: dict) -> dict:
    return {
        "documents": facts["documents"],
        "distinct_texts": facts["distinct_texts"],
        "mean_chars": facts["mean_chars"],
        "by_source": {s: d["documents"] for s, d in facts["by_source"].items()},
    }


def news_truth(task: dict) -> dict:
    """Among the news rows: which have another news row at exact Jaccard ≥ t (saved as a
    bool per row of the corpus), and ``n − components`` of that graph (what a clustering
    that is right at t removes)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    import nearsim as ns
    from nearsim.hashing import text_shingles

    sources = np.load(task["sources"])
    rows = np.flatnonzero(sources == SOURCES.index("news"))
    with open(task["path"], encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    news = [texts[i] for i in rows.tolist()]
    started = time.perf_counter()
    df = ns.exact_pairs(text_shingles(news), task["threshold"])
    i, j = df["i"].to_numpy(np.int64), df["j"].to_numpy(np.int64)
    m = len(news)
    graph = coo_matrix((np.ones(i.shape[0], np.int8), (i, j)), shape=(m, m))
    components = connected_components(graph, directed=False)[0]
    partner = np.zeros(sources.shape[0], dtype=bool)
    partner[rows[np.concatenate([i, j])]] = True
    np.save(task["out"], partner)
    return {
        "documents": int(sources.shape[0]),
        "news": m,
        "pairs": int(i.shape[0]),
        "with_partner": int(partner.sum()),
        "ideal_removed": int(m - components),
        "seconds": time.perf_counter() - started,
    }


def removed_by_source(task: dict) -> dict:
    """How many documents of each source a run removed, from whichever it wrote."""
    import numpy as np

    sources = np.load(task["sources"])
    n = sources.shape[0]
    removed = np.zeros(n, dtype=bool)
    if "clusters_parquet" in task:
        import pyarrow.parquet as pq

        keep = pq.read_table(task["clusters_parquet"], columns=["keep"])["keep"]
        removed = ~keep.to_numpy(zero_copy_only=False)
    elif "removed_rows" in task:
        removed[np.load(task["removed_rows"])] = True
    else:  # text-dedup: the smallest row of each document's cluster
        labels = np.load(task["labels_npy"])
        removed = labels != np.arange(n)
    if removed.shape[0] != n:
        raise ValueError(f"{removed.shape[0]} rows removed-or-kept, {n} sources")
    out = {}
    if task.get("partner"):  # news items removed though no news item is at J ≥ t
        alone = (sources == SOURCES.index("news")) & ~np.load(task["partner"])
        out["news_removed_without_partner"] = int((removed & alone).sum())
    return {
        **out,
        "documents": int(n),
        "removed": int(removed.sum()),
        "by_source": {
            s: {"documents": int((sources == i).sum()), "removed": int(removed[sources == i].sum())}
            for i, s in enumerate(SOURCES)
        },
    }


# -- datatrove ------------------------------------------------------------------------------
def datatrove(task: dict) -> dict:
    """datatrove 0.10's MinHash deduplication: signatures → buckets → clusters → filter,
    each step one ``LocalPipelineExecutor`` run, on the shards in ``task["shards"]``."""
    import numpy as np
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    work = Path(task["work"])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shards = sorted(Path(task["shards"]).glob("*.jsonl"))
    tasks, workers = len(shards), task["workers"]
    config = MinhashConfig(
        n_grams=task["n_grams"], num_buckets=task["bands"], hashes_per_bucket=task["rows"]
    )
    tokenizer, tokenizer_note = _tokenizer()
    sig_step = MinhashDedupSignature(output_folder=str(work / "signatures"), config=config)
    if tokenizer is not None:
        sig_step.word_tokenizer = tokenizer

    def reader():
        return JsonlReader(str(task["shards"]), glob_pattern="*.jsonl", text_key="text")

    def executor(pipeline, n_tasks, n_workers, name):
        return LocalPipelineExecutor(
            pipeline=pipeline,
            tasks=n_tasks,
            workers=n_workers,
            logging_dir=str(work / "logs" / name),
            skip_completed=False,
        )

    clock = Clock()
    clock.run("signatures", executor([reader(), sig_step], tasks, workers, "signatures").run)
    buckets = MinhashDedupBuckets(
        input_folder=str(work / "signatures"), output_folder=str(work / "buckets"), config=config
    )
    clock.run("buckets", executor([buckets], config.num_buckets, workers, "buckets").run)
    cluster = MinhashDedupCluster(
        input_folder=str(work / "buckets"), output_folder=str(work / "remove"), config=config
    )
    clock.run("clusters", executor([cluster], 1, 1, "clusters").run)
    filter_step = MinhashDedupFilter(input_folder=str(work / "remove"))
    writer = JsonlWriter(str(work / "deduplicated"))
    clock.run("filter", executor([reader(), filter_step, writer], tasks, workers, "filter").run)

    # what it found: the pairs the buckets step wrote, the rows it removed
    dup_pairs = sum(p.stat().st_size for p in (work / "buckets").glob("*.dups")) // 16
    offsets = np.cumsum([0] + [_lines(p) for p in shards])
    removed = []
    for rank in range(tasks):
        f = work / "remove" / f"{rank:06d}.remove"
        if f.exists():
            removed.append(np.fromfile(f, dtype="<u4").astype(np.int64) + offsets[rank])
    removed_rows = np.concatenate(removed) if removed else np.zeros(0, np.int64)
    np.save(task["removed_out"], removed_rows)
    stats = json.loads((work / "logs" / "clusters" / "stats.json").read_text())
    nodes = _stat(stats, "duplicates")
    kept = 0
    for p in (work / "deduplicated").glob("*.jsonl*"):
        kept += _lines(p)
    return {
        "stage_seconds": clock.seconds,
        "stage_cpu": clock.cpu,
        "documents": int(offsets[-1]),
        "pairs": int(dup_pairs),
        "clusters": int(nodes - removed_rows.shape[0]),
        "removed": int(removed_rows.shape[0]),
        "kept_written": kept,
        "config": str(config),
        "tokenizer": tokenizer_note,
        "datatrove": _version("datatrove"),
        "tasks": tasks,
        "workers": workers,
    }


def _tokenizer():
    """datatrove's English word tokenizer (spaCy's blank English) where spaCy is
    installed; else white space, said so."""
    try:
        import spacy  # noqa: F401

        return None, f"spaCy {_version('spacy')} blank English (datatrove's default)"
    except ImportError:
        from datatrove.utils.word_tokenizers import WordTokenizer

        class Whitespace(WordTokenizer):
            def word_tokenize(self, text):
                return text.split()

            def sent_tokenize(self, text):
                return [text]

            def span_tokenize(self, text):
                raise NotImplementedError

        return Whitespace(), "white space (spaCy is not installed: datatrove's default needs it)"


def _stat(stats, name: str) -> int:
    """One counter of datatrove's merged stats.json."""
    for step in stats:
        value = step.get("stats", {}).get(name)
        if value is not None:
            return int(value["total"] if isinstance(value, dict) else value)
    return 0


def _lines(path: Path) -> int:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        return sum(1 for _ in fh)


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


TASKS = {
    "hot_corpora": hot_corpora,
    "news_truth": news_truth,
    "removed_by_source": removed_by_source,
    "datatrove": datatrove,
}


def main(task_file: str, out_file: str) -> None:
    task = json.loads(Path(task_file).read_text())
    result = TASKS[task["kind"]](task)
    Path(out_file).write_text(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:3])
