"""The "sketches" section of RESULTS.md (``python -m benchmarks.bench_signatures --parts
sketches``): signing throughput per CPU-second of both of nearsim's sketches and of the
peers, on short news items and on long installed documents.

Every tool runs on one thread (numba's ``set_num_threads(1)``, FastSketchLSH's
``num_threads=1``; rensa's bulk calls may start threads of their own, so CPU time, not wall
time, is what is compared). Throughput is UTF-8 megabytes of raw text per CPU-second
(``time.process_time``), best of two after a warm-up. nearsim signs from raw text
(normalising, cutting, hashing and minimising in one call); the peers take Python sets of
shingles, which their users must build: both their kernel alone and kernel + Python
shingling (``nearsim.shingles``, the same char 5-grams) are given.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

import nearsim as ns
from benchmarks._report import machine, markdown_table, write_section
from benchmarks.corpora import real_documents
from nearsim.io.documents import example_corpus

K = 128
SEED = 1


def cpu_best(fn, repeats: int = 2) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def _peers(lists: list[list[str]]) -> dict:
    """CPU seconds of each peer's kernel on these shingle lists (None: not available)."""
    import rensa
    from datasketch import MinHash

    out = {}
    out["rensa R-MinHash (digest matrix)"] = cpu_best(
        lambda: rensa.RMinHash.digest_matrix_from_token_sets(lists, K, SEED)
    )
    out["rensa C-MinHash"] = cpu_best(
        lambda: rensa.CMinHash.digests_from_token_sets(lists, K, SEED)
    )
    nd = max(1, len(lists) // 10)  # datasketch is slow: a tenth, scaled
    t = cpu_best(
        lambda: MinHash.bulk([[x.encode() for x in sh] for sh in lists[:nd]], num_perm=K),
        repeats=1,
    )
    out["datasketch 2.0 MinHash.bulk (incl. encoding; a tenth, scaled)"] = t * len(lists) / nd
    try:
        from FastSketchLSH import FastSimilaritySketch
    except ImportError:
        out["FastSketchLSH"] = None
    else:
        sk = FastSimilaritySketch(size=K, seed=SEED)
        out["FastSketchLSH 1.0 FastSimilaritySketch"] = cpu_best(
            lambda: sk.batch(lists, num_threads=1)
        )
    return out


def _corpus_rows(label: str, texts: list[str]) -> tuple[list[dict], dict]:
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    classic = ns.MinHasher(K, SEED)
    smh = ns.MinHasher(K, SEED, sketch="superminhash")
    for h in (classic, smh):
        h.text_signatures(texts[:50])  # load the compiled kernels
    t_shingle = cpu_best(lambda: [ns.shingles(t) for t in texts], repeats=1)
    lists = [ns.shingles(t) for t in texts]
    sig = classic.text_signatures(texts)
    same = bool((sig == classic.signatures(lists)).all())
    times = {
        "nearsim MinHash (classic), text_signatures": cpu_best(
            lambda: classic.text_signatures(texts)
        ),
        "nearsim SuperMinHash, text_signatures": cpu_best(lambda: smh.text_signatures(texts)),
    }
    peers = _peers(lists)
    base = times["nearsim MinHash (classic), text_signatures"]
    rows = []
    for name, t in {**times, **peers}.items():
        if t is None:
            rows.append({"corpus": label, "tool": name + ": not installed"})
            continue
        peer = name in peers
        total = t + t_shingle if peer else t
        rows.append({
            "corpus": label,
            "tool": name,
            "CPU s": f"{t:.3f}",
            "MB / CPU-s (kernel)": f"{mb / t:.1f}" if peer else "",
            "MB / CPU-s from text": f"{mb / total:.1f}",
            "time ÷ classic's": f"{total / base:.2f}",
        })  # fmt: skip
    facts = {
        "label": label,
        "docs": len(texts),
        "mb": mb,
        "chars": float(np.mean([len(t) for t in texts])),
        "shingles": float(np.mean([len(sh) for sh in lists])),
        "shingle_s": t_shingle,
        "same": same,
    }
    return rows, facts


def sketches_part(args) -> None:
    numba.set_num_threads(1)
    load_before = os.getloadavg()[0]
    news = example_corpus(args.docs, seed=0)["text"].tolist()
    long = [d["text"] for d in real_documents(args.long_docs, seed=0)]
    rows, facts = [], []
    for label, texts in (("news", news), ("long (installed documents)", long)):
        r, f = _corpus_rows(label, texts)
        rows += r
        facts.append(f)
        print(markdown_table(r, list(r[0])), flush=True)
    load_after = os.getloadavg()[0]
    described = "; ".join(
        f"{f['label']}: {f['docs']:,} documents, {f['mb']:.1f} MB, mean {f['chars']:,.0f} "
        f"characters and {f['shingles']:,.0f} distinct char 5-grams, Python shingling "
        f"{f['shingle_s']:.2f} CPU s"
        for f in facts
    )
    columns = ["corpus", "tool", "CPU s", "MB / CPU-s (kernel)", "MB / CPU-s from text",
               "time ÷ classic's"]  # fmt: skip
    body = "\n\n".join([
        "## Sketches: signing throughput per CPU-second (`benchmarks/bench_signatures.py "
        "--parts sketches`)",
        f"{machine()}; load average {load_before:.1f} before, {load_after:.1f} after (the "
        "machine is shared by several engineers: CPU seconds are less affected than wall "
        "time, but not immune). One thread per tool, k = 128, char 5-grams, best of two "
        f"after a warm-up. {described}.",
        markdown_table(rows, columns),
        "MB / CPU-s: UTF-8 megabytes of raw text per CPU-second. Peers take Python sets of "
        "shingles: their kernel alone, and with the Python shingling their users pay. "
        "Classic MinHash from text equals the shingle-list path bit for bit on both corpora: "
        f"{all(f['same'] for f in facts)}.",
    ])  # fmt: skip
    write_section("sketches", body)
