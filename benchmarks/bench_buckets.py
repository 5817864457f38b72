"""What ``nearsim dedup``'s rules for real corpora change, against all pairs of every bucket.

Run from the repository root after ``pip install -e '.[bench]'``::

    python -m benchmarks.bench_buckets            # about 3 minutes

Two rules keep a run linear in the size of a bucket: exact copies (the same normalised
text) are linked to their first occurrence before banding, and a band bucket of more than
L distinct documents gives only its first member's pairs and each member's pair with the
next (2m − 3 pairs, not m(m − 1)/2). This script bands the same signatures, side by side,

* ``all pairs``: every pair of every bucket, copies included (the rule before);
* ``copies first``: copies linked, every pair of the distinct documents' buckets;
* ``copies + L``: copies linked and the bucket limit L (``nearsim dedup`` uses 100),

on three corpora — short news items without hot buckets (the Example generator), a crawl
with boilerplate copied thousands of times (``benchmarks.corpora.hot_bucket_corpus``), and
documents installed on this machine (``benchmarks.corpora.real_documents``: manual pages,
package documents, Python sources) — and reports, against ``all pairs``: candidates,
accepted pairs (estimate ≥ t), clusters and removals, the documents whose cluster is not the
same set of documents, the accepted pairs whose two documents no longer share a cluster,
and the banding's time and peak memory (tracemalloc: NumPy's allocations). It writes the
"buckets" section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from benchmarks._report import machine, markdown_table, write_section

THRESHOLD = 0.8
LIMITS = (20, 100, 1000)


def corpora(sizes: dict[str, int]) -> dict[str, list[str]]:
    from benchmarks.corpora import hot_bucket_corpus, real_documents
    from nearsim.io.example import _generate

    return {
        "news items": _generate(sizes["news"], 0)["text"].tolist(),
        "crawl with boilerplate": [
            r["text"] for r in hot_bucket_corpus(sizes["hot"], seed=0)
        ],
        "installed documents": [r["text"] for r in real_documents(sizes["real"] or None, seed=0)],
    }


def same_cluster_docs(labels: np.ndarray, reference: np.ndarray) -> int:
    """Documents whose cluster is not the same set of documents as in ``reference``."""
    pairs = np.unique(np.stack([labels, reference], axis=1), axis=0)
    split = np.bincount(pairs[:, 1], minlength=reference.max() + 1) > 1  # ref cluster split
    merged = np.bincount(pairs[:, 0], minlength=labels.max() + 1) > 1  # new cluster merges
    return int((split[reference] | merged[labels]).sum())


def band(sig, valid, links, settings, limit):
    """Candidate pairs under one rule, with the banding's seconds and peak bytes."""
    import nearsim as ns

    tracemalloc.start()
    started = time.perf_counter()
    distinct = valid.copy()
    if links is not None:
        distinct[links[:, 1]] = False
    cand = ns.candidate_pairs(
        sig, settings.bands, settings.rows, valid=distinct, max_pairs=10**9, bucket_limit=limit
    )
    if links is not None:
        cand = np.concatenate([cand, links])
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return cand, seconds, peak


def measure(texts: list[str]) -> list[dict]:
    import nearsim as ns

    settings = ns.RunSettings(threshold=THRESHOLD)
    sig = ns.MinHasher(settings.num_perm, settings.hash_seed).text_signatures(texts)
    valid = sig[:, 0] != np.uint32(0xFFFFFFFF)
    links = ns.copy_pairs(ns.copy_keys(texts), valid)
    n = len(texts)
    rows, reference = [], None
    for name, use_links, limit in [
        ("all pairs", False, None),
        ("copies first", True, None),
        *[(f"copies + {limit}", True, limit) for limit in LIMITS],
    ]:
        cand, seconds, peak = band(sig, valid, links if use_links else None, settings, limit)
        est = ns.estimate_pairs(sig, cand)
        accepted = cand[est >= THRESHOLD]
        labels = ns.clusters(n, accepted)
        sizes = np.bincount(labels)
        row = {
            "rule": name,
            "candidates": f"{len(cand):,}",
            "accepted": f"{len(accepted):,}",
            "clusters": f"{int((sizes >= 2).sum()):,}",
            "removed": f"{int(sizes[sizes >= 2].sum() - (sizes >= 2).sum()):,}",
            "banding s": f"{seconds:.2f}",
            "banding peak MB": f"{peak / 1e6:,.0f}",
        }
        if reference is None:
            reference, ref_pairs = labels, accepted
            row["docs clustered otherwise"] = row["pairs no longer in one cluster"] = "—"
        else:
            apart = labels[ref_pairs[:, 0]] != labels[ref_pairs[:, 1]]
            row["docs clustered otherwise"] = f"{same_cluster_docs(labels, reference):,}"
            row["pairs no longer in one cluster"] = f"{int(apart.sum()):,}"
        rows.append(row)
        print(row, flush=True)
    distinct = valid.copy()
    distinct[links[:, 1]] = False
    largest = _largest_bucket(sig, distinct, settings)
    return rows, {"copies": int(links.shape[0]), "largest bucket": largest}


def _largest_bucket(sig, valid, settings) -> int:
    from nearsim.banding import band_keys

    best = 0
    for b in range(settings.bands):
        keys = band_keys(np.ascontiguousarray(sig), b * settings.rows, (b + 1) * settings.rows)
        best = max(best, int(np.unique(keys[valid], return_counts=True)[1].max()))
    return best


COLUMNS = [
    "rule", "candidates", "accepted", "clusters", "removed", "docs clustered otherwise",
    "pairs no longer in one cluster", "banding s", "banding peak MB",
]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--news", type=int, default=100_000)
    parser.add_argument("--hot", type=int, default=60_000)
    parser.add_argument("--real", type=int, default=0, help="0: every installed document")
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    parts = [
        "## Exact copies and the bucket limit against all pairs (`benchmarks/bench_buckets.py`)",
        "",
        f"{machine()}; run {started}. Default settings (character 5-grams, k = 128, "
        f"t = {THRESHOLD}, 9 bands × 13 rows); accepted = MinHash estimate ≥ t; clusters of "
        "size ≥ 2. Against *all pairs*: documents whose cluster is not the same set of "
        "documents, and accepted pairs whose two documents no longer share a cluster.",
    ]
    for name, texts in corpora({"news": args.news, "hot": args.hot, "real": args.real}).items():
        print(f"== {name}", flush=True)
        rows, facts = measure(texts)
        parts += [
            "",
            f"### {name}: {len(texts):,} documents ({facts['copies']:,} exact copies; largest "
            "band bucket "
            f"{facts['largest bucket']:,} distinct documents)",
            "",
            markdown_table(rows, COLUMNS),
        ]
    write_section("buckets", "\n".join(parts))


if __name__ == "__main__":
    main()
