"""The child processes of ``benchmarks/bench_corpus.py``: each runs alone in a fresh
interpreter, so its time, CPU time and peak memory are its own.

* ``generate``: the benchmark corpus as JSON lines (``nearsim.io.example._generate``).
* ``truth``: the exact ground truth, ``nearsim.exact_pairs`` at the threshold.
* ``datasketch``, ``rensa``: the whole job with a peer library, read → clusters written,
  stage by stage, the way their documentation shows it.

Every peer gets the same input as ``nearsim dedup``: the JSONL file, read with the
standard library's ``json``, and the same shingles (lower-case, white space collapsed,
character 5-grams, as ``nearsim.shingles``), cut with the fastest plain-Python set
comprehension (checked equal to ``nearsim.shingles`` on the first 2,000 documents by the
``truth`` task). A candidate pair is accepted when the library's own MinHash estimate reaches
the threshold, clusters are the connected components of the accepted pairs
(``scipy.sparse.csgraph``), and both tables are written as Parquet, as nearsim does.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

K_SHINGLE = 5


class Stages:
    """Wall and CPU seconds of named stages."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str):
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - wall
        self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu


def read_texts(path: str) -> list[str]:
    """The ``text`` field of every line of a JSON lines file."""
    loads = json.loads
    with open(path, encoding="utf-8") as fh:
        return [loads(line)["text"] for line in fh]


def char_shingles(text: str) -> set[str]:
    """``set(nearsim.shingles(text))`` with the defaults (char 5-grams, lower-case, white
    space collapsed; a text shorter than 5 characters is one shingle)."""
    t = " ".join(text.lower().split())
    if len(t) < K_SHINGLE:
        return {t} if t else set()
    return {t[i : i + K_SHINGLE] for i in range(len(t) - K_SHINGLE + 1)}


def check_shingler(texts: list[str]) -> None:
    import nearsim as ns

    for t in texts[:2000]:
        if char_shingles(t) != set(ns.shingles(t)):
            raise AssertionError(f"peer shingles differ from nearsim.shingling on {t!r}")


# -- generate and truth ------------------------------------------------------------------
def generate(task: dict) -> dict:
    from nearsim.io.example import _generate

    n, out = task["n"], Path(task["path"])
    started = time.perf_counter()
    df = _generate(n, task["seed"])
    tmp = out.with_name(out.name + ".tmp")
    dumps = json.dumps
    with open(tmp, "w", encoding="utf-8") as fh:
        for i, text in enumerate(df["text"].tolist()):
            fh.write(dumps({"id": f"doc-{i:08d}", "text": text}, ensure_ascii=False) + "\n")
    os.replace(tmp, out)
    parent = df["parent"].to_numpy()
    return {
        "n": n,
        "bytes": out.stat().st_size,
        "seconds": time.perf_counter() - started,
        "copies": int((parent >= 0).sum()),
        "mean_chars": float(df["text"].str.len().mean()),
    }


def truth(task: dict) -> dict:
    """Exact pairs with Jaccard ≥ t (char 5-gram sets), saved as ``i * n + j`` codes."""
    import nearsim as ns
    from nearsim.hashing import text_shingles

    texts = read_texts(task["path"])
    check_shingler(texts)
    n = len(texts)
    ns.exact_pairs([["a", "b"], ["a", "b"], ["c"]] * 1000, task["threshold"])  # warm up
    started, cpu = time.perf_counter(), time.process_time()
    flat = text_shingles(texts)
    df = ns.exact_pairs(flat, task["threshold"])
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    codes = df["i"].to_numpy(np.int64) * n + df["j"].to_numpy(np.int64)
    np.save(task["out"], codes)
    return {"n": n, "pairs": int(codes.shape[0]), "seconds": seconds, "cpu": cpu}


# -- the peers ----------------------------------------------------------------------------
def _finish(clock: Stages, n: int, cand: np.ndarray, keep: np.ndarray, task: dict) -> dict:
    """Accepted pairs → clusters → Parquet tables (timed), then the figures."""
    import pandas as pd
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    pairs = cand[keep]
    with clock("clusters"):
        graph = coo_matrix(
            (np.ones(pairs.shape[0], dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n)
        )
        _, labels = connected_components(graph, directed=False)
        rows = np.arange(n, dtype=np.int64)
        first = np.full(labels.max(initial=-1) + 1, n, dtype=np.int64)
        np.minimum.at(first, labels, rows)
        cluster = first[labels]
        sizes = np.bincount(labels)
    with clock("write"):
        out = Path(task["out_dir"])
        out.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"a": pairs[:, 0], "b": pairs[:, 1]}).to_parquet(out / "pairs.parquet")
        pd.DataFrame(
            {
                "row": rows,
                "cluster": cluster,
                "cluster_size": sizes[labels],
                "keep": cluster == rows,
            }
        ).to_parquet(out / "clusters.parquet")
    np.save(task["pairs_out"], pairs[:, 0] * n + pairs[:, 1])
    np.save(task["labels_out"], cluster)
    return {
        "stage_seconds": clock.seconds,
        "stage_cpu": clock.cpu,
        "documents": n,
        "candidates": int(cand.shape[0]),
        "pairs": int(pairs.shape[0]),
        "clusters": int((sizes >= 2).sum()),
        "removed": int(n - (cluster == rows).sum()),
    }


def _pairs_from_lists(found: list[list[int]]) -> np.ndarray:
    """Candidate pairs (i < j, sorted, distinct) from each document's query result."""
    lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    left = np.repeat(np.arange(len(found), dtype=np.int64), lengths)
    right = np.fromiter((j for hits in found for j in hits), dtype=np.int64, count=lengths.sum())
    keep = left < right
    codes = np.unique(left[keep] * len(found) + right[keep])
    return np.stack([codes // len(found), codes % len(found)], axis=1)


def datasketch(task: dict) -> dict:
    """``MinHash.bulk`` + ``MinHashLSH`` (an insertion session, then a query per document),
    the estimate from ``MinHash.jaccard``."""
    from datasketch import MinHash, MinHashLSH

    clock = Stages()
    with clock("read"):
        texts = read_texts(task["path"])
    with clock("shingles"):
        sets = [char_shingles(t) for t in texts]
    with clock("signatures"):  # datasketch hashes bytes: encoding is part of its cost
        mhs = MinHash.bulk(([s.encode("utf-8") for s in sh] for sh in sets), num_perm=128, seed=1)
    del sets
    params = tuple(task["banding"]) if task.get("banding") else None
    with clock("index"):
        lsh = MinHashLSH(threshold=task["threshold"], num_perm=128, params=params)
        with lsh.insertion_session() as session:
            for i, m in enumerate(mhs):
                session.insert(i, m)
    with clock("query"):
        cand = _pairs_from_lists([lsh.query(m) for m in mhs])
    with clock("verify"):
        est = np.fromiter(
            (mhs[i].jaccard(mhs[j]) for i, j in cand.tolist()), dtype=np.float64, count=len(cand)
        )
        keep = est >= task["threshold"]
    out = _finish(clock, len(mhs), cand, keep, task)
    out["banding"] = [lsh.b, lsh.r]
    return out


def rensa(task: dict) -> dict:
    """rensa's bulk R-MinHash (``RMinHash.from_token_sets``: every sketch in one Rust call)
    and ``RMinHashLSH`` (``insert_many``, ``query_all``), the estimate from
    ``RMinHash.jaccard``. Its LSH takes a number of bands that divides num_perm."""
    import rensa as rs

    clock = Stages()
    with clock("read"):
        texts = read_texts(task["path"])
    with clock("shingles"):
        sets = [char_shingles(t) for t in texts]
    with clock("signatures"):
        mhs = rs.RMinHash.from_token_sets(sets, 128, task.get("seed", 1))
    del sets
    b = task["banding"][0]
    with clock("index"):
        lsh = rs.RMinHashLSH(task["threshold"], 128, b)
        lsh.insert_many(mhs)
    with clock("query"):
        cand = _pairs_from_lists(lsh.query_all(mhs))
    with clock("verify"):
        est = np.fromiter(
            (mhs[i].jaccard(mhs[j]) for i, j in cand.tolist()), dtype=np.float64, count=len(cand)
        )
        keep = est >= task["threshold"]
    out = _finish(clock, len(mhs), cand, keep, task)
    out["banding"] = [b, 128 // b]
    return out


def rensa_matrix(task: dict) -> dict:
    """Only the signatures, as rensa's fastest bulk call
    (``digest_matrix_from_token_sets``), for the record: its LSH cannot be queried
    with the matrix, so the job above sketches with ``from_token_sets``."""
    import rensa as rs

    clock = Stages()
    texts = read_texts(task["path"])
    sets = [char_shingles(t) for t in texts]
    with clock("signatures (digest matrix)"):
        rs.RMinHash.digest_matrix_from_token_sets(sets, 128, 1)
    with clock("signatures (objects)"):
        rs.RMinHash.from_token_sets(sets, 128, 1)
    return {"stage_seconds": clock.seconds, "stage_cpu": clock.cpu}


def with_copies(found: np.ndarray, path: str, n: int) -> np.ndarray:
    """A ``nearsim dedup`` run's pair codes (``a * n + b``) with its exact copies put back.

    The run links each later copy to its first occurrence (one pair) and bands distinct
    documents only, so its pairs file lists one pair per copy and none of a copy's pairs
    with the rest. Here (i, j) is found when i and j are copies of one text, or their first
    occurrences are a found pair: the pairs a tool that lists every pair would give, so
    nearsim is scored like the peers.
    """
    import nearsim as ns

    links = ns.copy_pairs(ns.copy_keys(read_texts(path)))
    rep = np.arange(n, dtype=np.int64)
    rep[links[:, 1]] = links[:, 0]
    members: dict[int, list[int]] = {}
    for copy, first in zip(links[:, 1].tolist(), links[:, 0].tolist(), strict=True):
        members.setdefault(first, [first]).append(copy)
    out = set()
    for code in found.tolist():
        ra, rb = int(rep[code // n]), int(rep[code % n])
        for x in members.get(ra, [ra]):
            for y in members.get(rb, [rb]):
                if x != y:
                    out.add(min(x, y) * n + max(x, y))
    for group in members.values():
        for i, x in enumerate(group):
            out.update(min(x, y) * n + max(x, y) for y in group[i + 1 :])
    return np.sort(np.fromiter(out, dtype=np.int64, count=len(out)))


def score(task: dict) -> dict:
    """Recall and precision of a run's accepted pairs against the exact pairs, and of the
    pairs its clusters imply (two documents in one cluster), which is all text-dedup
    gives."""
    import pandas as pd

    n = task["n"]
    true = np.load(task["truth"])
    out: dict = {"true_pairs": int(true.shape[0])}
    if "pairs_parquet" in task or "pairs_npy" in task:
        if "pairs_parquet" in task:
            df = pd.read_parquet(task["pairs_parquet"], columns=["a", "b"])
            found = df["a"].to_numpy(np.int64) * n + df["b"].to_numpy(np.int64)
            if "copies_of" in task:
                found = with_copies(found, task["copies_of"], n)
        else:
            found = np.load(task["pairs_npy"])
        hit = int(np.intersect1d(found, true, assume_unique=True).shape[0])
        out.update(
            found=int(found.shape[0]),
            hit=hit,
            recall=hit / max(true.shape[0], 1),
            precision=hit / max(found.shape[0], 1),
        )
    if "clusters_parquet" in task:
        cluster = pd.read_parquet(task["clusters_parquet"], columns=["cluster"])["cluster"]
        cluster = cluster.to_numpy(np.int64)
    else:
        cluster = np.load(task["labels_npy"]).astype(np.int64)
    sizes = np.bincount(cluster, minlength=n)
    implied = int((sizes * (sizes - 1) // 2).sum())
    together = int((cluster[true // n] == cluster[true % n]).sum())
    out.update(
        clusters=int((sizes >= 2).sum()),
        removed=int(n - (cluster == np.arange(n)).sum()),
        implied_pairs=implied,
        cluster_recall=together / max(true.shape[0], 1),
        cluster_precision=together / max(implied, 1),
        largest_cluster=int(sizes.max(initial=0)),
    )
    return out


def spread(task: dict) -> dict:
    """How far each tool's MinHash estimate falls from the exact Jaccard, on the pairs of
    the first documents with J ≥ 0.5 (not timed): the estimate filter's recall at t is
    the share of true pairs whose estimate reaches t."""
    import rensa as rs
    from datasketch import MinHash

    import nearsim as ns
    from nearsim.hashing import text_shingles

    texts = read_texts(task["path"])[: task["documents"]]
    ex = ns.exact_pairs(text_shingles(texts), 0.5)
    i, j, jac = (ex[c].to_numpy() for c in ("i", "j", "jaccard"))
    sets = [char_shingles(t) for t in texts]
    used = np.unique(np.concatenate([i, j]))
    where = np.full(len(texts), -1)
    where[used] = np.arange(used.shape[0])
    sig = ns.MinHasher(128, 1).text_signatures(texts)
    digests = np.array([m.digest() for m in rs.RMinHash.from_token_sets(sets, 128, 1)])
    ds = MinHash.bulk(([x.encode() for x in sets[d]] for d in used.tolist()), num_perm=128)
    ds_vals = np.array([m.hashvalues for m in ds])
    est = {
        "nearsim": ns.estimate_pairs(sig, np.stack([i, j], axis=1)),
        "rensa": (digests[i] == digests[j]).mean(axis=1),
        "datasketch": (ds_vals[where[i]] == ds_vals[where[j]]).mean(axis=1),
    }
    t = task["threshold"]
    out: dict = {"documents": len(texts), "pairs": int(i.shape[0]), "ranges": {}}
    for lo, hi in ((0.5, t), (t, 1.0001)):
        m = (jac >= lo) & (jac < hi)
        key = f"{lo:g}–{min(hi, 1):g}"
        out["ranges"][key] = {
            "pairs": int(m.sum()),
            "theory": float(np.sqrt(np.mean(jac[m] * (1 - jac[m])) / 128)),
            **{name: float(np.std(e[m] - jac[m])) for name, e in est.items()},
        }
    true = jac >= t
    out["kept"] = {name: float(np.mean(e[true] >= t)) for name, e in est.items()}
    return out


TASKS = {
    "generate": generate,
    "truth": truth,
    "datasketch": datasketch,
    "rensa": rensa,
    "rensa_matrix": rensa_matrix,
    "score": score,
    "spread": spread,
    "score_copies": lambda task: _sketch_part().copy_expanded_score(task),
}


def _sketch_part():
    from benchmarks import _sketch_part

    return _sketch_part


def run_child(task_file: str, out_file: str) -> None:
    with open(task_file) as fh:
        task = json.load(fh)
    result = TASKS[task["kind"]](task)
    with open(out_file, "w") as fh:
        json.dump(result, fh)
