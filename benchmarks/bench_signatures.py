"""MinHash signatures and the b × r tuner, side by side with rensa and datasketch.

Run from the repository root after ``pip install -e '.[bench]'``::

    python -m benchmarks.bench_signatures

Writes the "signatures" section of benchmarks/RESULTS.md. Every figure comes from this
one run on one generated corpus: 20,000 short news-like documents (``example_corpus``),
char 5-grams, k = 128. Times are the best of three runs after a warm-up (the warm-up
compiles and caches the numba kernels); ratios are what matters.

``--parts goals`` writes the "sketch-goals" section: just the second sketch's goals,
quickly (``benchmarks/_sketch_goals.py``; ``--baseline none`` and ``--smh-baseline none``
skip the old code).

``--parts sketches`` writes the "sketches" section: signing throughput per CPU-second
(one thread each) of classic MinHash and SuperMinHash from raw text, beside rensa's
R-MinHash and C-MinHash, datasketch and (when it is importable) FastSketchLSH, on short
news items and on long documents installed on this machine
(``benchmarks.corpora.real_documents``).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

import nearsim as ns
from benchmarks._report import machine, markdown_table, write_section
from nearsim.io.documents import example_corpus

K = 128
SEED = 1


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_bytes(fn) -> int:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--datasketch-docs", type=int, default=20_000)
    parser.add_argument("--long-docs", type=int, default=3_000, help="sketches: real documents")
    parser.add_argument("--parts", default="signatures,sketches",
                        help="signatures, sketches, goals (comma-separated)")
    parser.add_argument("--repeats", type=int, default=3, help="goals: interleaved rounds")
    parser.add_argument("--baseline", default="f1721c8",
                        help="goals: the commit before the text-path rework, or none")
    parser.add_argument("--smh-baseline", default="8d55d6e",
                        help="goals: SuperMinHash's commit before the level-by-level kernel")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if "signatures" in parts:
        signatures_part(args)
    if "sketches" in parts:
        from benchmarks._sketch_throughput import sketches_part

        sketches_part(args)
    if "goals" in parts:
        from benchmarks._sketch_goals import goals_part

        goals_part(args)


def signatures_part(args: argparse.Namespace) -> None:
    import rensa
    from datasketch import MinHash
    from datasketch.lsh import _optimal_param

    texts = example_corpus(args.docs, seed=0)["text"].tolist()
    mh = ns.MinHasher(K, seed=SEED)
    mh.signatures([ns.shingles(t) for t in texts[:50]])  # compile / load kernels
    mh.text_signatures(texts[:50])

    t_shingle, lists = best_of(lambda: [ns.shingles(t) for t in texts])
    n_shingles = sum(map(len, lists))
    t_ours_lists, sig = best_of(lambda: mh.signatures(lists))
    t_ours_text, sig_text = best_of(lambda: mh.text_signatures(texts))
    assert (sig == sig_text).all(), "fast path differs from the shingle-list path"

    def rensa_objects():
        out = []
        for sh in lists:
            m = rensa.RMinHash(num_perm=K, seed=SEED)
            m.update(sh)
            out.append(m.digest())
        return out

    t_rensa_obj, _ = best_of(rensa_objects)
    t_rensa_bulk, _ = best_of(lambda: rensa.RMinHash.digest_matrix_from_token_sets(lists, K, SEED))
    nd = min(args.datasketch_docs, len(lists))
    t_ds, _ = best_of(  # datasketch hashes bytes: encoding is part of its cost
        lambda: MinHash.bulk([[x.encode() for x in sh] for sh in lists[:nd]], num_perm=K),
        repeats=1,
    )
    t_ds_scaled = t_ds * len(lists) / nd

    # the tuner: fresh arguments every call, so nothing can be memoised
    thresholds = 0.8 + np.arange(30) * 1e-4
    t0 = time.perf_counter()
    for t in thresholds:
        ns.tune(float(t), K)
    t_tune = (time.perf_counter() - t0) / len(thresholds)
    t0 = time.perf_counter()
    for t in thresholds:
        _optimal_param(float(t), K, 0.5, 0.5)
    t_tune_ds = (time.perf_counter() - t0) / len(thresholds)
    same = all(
        (lambda c: (c.b, c.r))(ns.tune(float(t), K)[0]) == _optimal_param(float(t), K, 0.5, 0.5)
        for t in thresholds[:5]
    )

    peak_lists = peak_bytes(lambda: mh.signatures(lists))
    peak_text = peak_bytes(lambda: mh.text_signatures(texts))
    one_byte = mh.text_signatures(texts, one_byte=True)

    n = len(texts)
    rows = [
        {
            "task": "shingle lists → signatures",
            "nearsim": f"{t_ours_lists:.3f} s",
            "peer": f"rensa RMinHash per document {t_rensa_obj:.3f} s",
            "nearsim speed ÷ peer": f"{t_rensa_obj / t_ours_lists:.2f}×",
        },
        {
            "task": "shingle lists → signatures",
            "nearsim": f"{t_ours_lists:.3f} s",
            "peer": f"rensa digest_matrix_from_token_sets (bulk) {t_rensa_bulk:.3f} s",
            "nearsim speed ÷ peer": f"{t_rensa_bulk / t_ours_lists:.2f}×",
        },
        {
            "task": "shingle lists → signatures",
            "nearsim": f"{t_ours_lists:.3f} s",
            "peer": f"datasketch MinHash.bulk (incl. encoding) {t_ds_scaled:.1f} s"
            + (f" (measured on {nd:,}, scaled)" if nd < n else ""),
            "nearsim speed ÷ peer": f"{t_ds_scaled / t_ours_lists:.0f}×",
        },
        {
            "task": "raw text → signatures",
            "nearsim": f"{t_ours_text:.3f} s (text_signatures)",
            "peer": f"Python shingling + rensa bulk {t_shingle + t_rensa_bulk:.3f} s",
            "nearsim speed ÷ peer": f"{(t_shingle + t_rensa_bulk) / t_ours_text:.1f}×",
        },
        {
            "task": "raw text → signatures",
            "nearsim": f"{t_ours_text:.3f} s (text_signatures)",
            "peer": f"Python shingling + rensa per document {t_shingle + t_rensa_obj:.3f} s",
            "nearsim speed ÷ peer": f"{(t_shingle + t_rensa_obj) / t_ours_text:.1f}×",
        },
        {
            "task": "tune(t≈0.8, 128), fresh t each call",
            "nearsim": f"{t_tune * 1e3:.2f} ms",
            "peer": f"datasketch _optimal_param {t_tune_ds * 1e3:.1f} ms",
            "nearsim speed ÷ peer": f"{t_tune_ds / t_tune:.0f}×",
        },
    ]
    body = "\n\n".join(
        [
            "## Signatures and tuner (`benchmarks/bench_signatures.py`)",
            f"{machine()}. Corpus: `example_corpus({n}, seed=0)`, {n_shingles:,} char "
            f"5-gram shingles (mean {n_shingles / n:.0f} per document), k = {K}. Best of "
            "three after a warm-up; datasketch once.",
            markdown_table(rows, ["task", "nearsim", "peer", "nearsim speed ÷ peer"]),
            f"Tuner picks equal datasketch's on the timed thresholds: {same}. "
            f"Python shingling alone: {t_shingle:.3f} s.",
            f"Memory: signatures hold {sig.nbytes / n:.0f} bytes per document (4·k), "
            f"{one_byte.nbytes / n:.0f} with `one_byte=True` (k); nothing per shingle is "
            f"kept. Peak traced allocation while computing: {peak_lists / 2**20:.1f} MiB "
            f"from shingle lists (the joined UTF-8 buffer and spans, freed on return), "
            f"{peak_text / 2**20:.1f} MiB from raw text.",
        ]
    )
    write_section("signatures", body)


if __name__ == "__main__":
    main()
