"""Benchmark the exact ground truth: nearsim.exact_pairs against SetSimilaritySearch.

Run from the repository root::

    python -m benchmarks.bench_join            # full run, writes the "join" section
    python -m benchmarks.bench_join --quick    # smaller corpora, for a smoke test

Corpora (all generated here, seeded):

* news: ``nearsim.io.documents.example_corpus`` (short news-like texts, a third of them
  edited copies) when it exists, else a small stand-in generator below; char 5-grams.
* hard: short texts over a vocabulary of 40 short words. They have only a few thousand
  distinct 5-grams, nearly all of them frequent, so the prefix filter alone leaves most
  pairs as candidates; verification and the other filters carry the load.

Each timing runs in a fresh subprocess (so peak memory is that run's alone, read from
``resource.getrusage``) after one warm-up call in the same process (numba's compiled
code is cached on disk; the warm-up only loads it). Shingling is not timed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._report import machine, markdown_table, write_section

WORK = Path(tempfile.gettempdir()) / "nearsim_bench_join"

# --------------------------------------------------------------------------- corpora

_WORDS = (
    "council city river bridge school market police court workers storm road price "
    "company shares report minister election museum hospital festival team season "
    "record rain fire train airport budget plan union strike energy water housing"
).split()


def _standin_news(n: int, seed: int) -> list[str]:
    """Short news-like sentences, a third of them edited copies of earlier ones."""
    rng = np.random.default_rng(seed)
    cities = [
        f"{a}{b}"
        for a in ("Port ", "New ", "Upper ", "")
        for b in ("Alden", "Brixham", "Corvo", "Dunmore", "Elgin", "Fenwick", "Galway", "Harlow")
    ]
    texts: list[str] = []
    for k in range(n):
        if k > 10 and rng.random() < 0.33:
            words = texts[int(rng.integers(0, k))].split()
            for _ in range(int(rng.integers(1, 6))):
                words[int(rng.integers(0, len(words)))] = str(rng.choice(_WORDS))
            texts.append(" ".join(words))
            continue
        city = str(rng.choice(cities))
        body = " ".join(str(w) for w in rng.choice(_WORDS, size=int(rng.integers(12, 30))))
        texts.append(
            f"The {rng.choice(_WORDS)} in {city} said on day {rng.integers(1, 28)} that "
            f"{rng.integers(2, 9000)} {body}."
        )
    return texts


def news_texts(n: int, seed: int = 0) -> tuple[list[str], str]:
    try:
        from nearsim.io.documents import example_corpus
    except ImportError:
        return _standin_news(n, seed), "stand-in generator (nearsim.io.documents missing)"
    return example_corpus(n, seed)["text"].tolist(), "nearsim.io.documents.example_corpus"


_HARD_WORDS = (
    "a an the of to in on at by is it as or and but not red big old new sun sea day "
    "way man cat dog run sat top low far end one two six ten air art ice"
).split()


def hard_texts(n: int, seed: int = 1) -> list[str]:
    """Short texts over 40 words: few distinct 5-grams, nearly all of them frequent."""
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    for k in range(n):
        if k > 10 and rng.random() < 0.3:
            words = texts[int(rng.integers(0, k))].split()
            for _ in range(int(rng.integers(1, 4))):
                words[int(rng.integers(0, len(words)))] = str(rng.choice(_HARD_WORDS))
            texts.append(" ".join(words))
        else:
            texts.append(" ".join(rng.choice(_HARD_WORDS, size=int(rng.integers(15, 40)))))
    return texts


def shingle_all(texts: list[str]) -> list[list[str]]:
    try:
        from nearsim.shingling import shingles
    except ImportError:  # an equivalent inline: lower-case, collapse white space, 5-grams

        def shingles(text: str, kind: str = "char", k: int = 5) -> list[str]:
            norm = " ".join(text.lower().split())
            if len(norm) <= k:
                return [norm] if norm else []
            return list(dict.fromkeys(norm[i : i + k] for i in range(len(norm) - k + 1)))

    return [shingles(t, kind="char", k=5) for t in texts]


# --------------------------------------------------------------------------- one timed run


def _peak_mb() -> float:
    """This process's peak resident memory in MB (its own, not a parent's: VmHWM)."""
    from nearsim.run.result import peak_memory_bytes

    return peak_memory_bytes() / 2**20


def _child(task: dict) -> dict:
    """Runs in a subprocess: load the sets, warm up, time one call."""
    with open(task["sets"], "rb") as fh:
        sets = pickle.load(fh)
    base = _peak_mb()  # interpreter, numpy and the pickled shingle lists
    kind = task["kind"]
    t = task.get("threshold")
    if kind == "flat":  # the app's input: FlatShingles spans, no Python strings to join
        from nearsim.hashing import flatten
        from nearsim.join.exact import exact_pairs

        flat = flatten(sets)
        exact_pairs(flatten(sets[:50]), t)
        start = time.perf_counter()
        df = exact_pairs(flat, t, method="ppjoin")
        seconds = time.perf_counter() - start
        pairs = sorted(zip(df["i"].tolist(), df["j"].tolist(), strict=True))
        return {"seconds": seconds, "pairs": pairs, "peak_mb": _peak_mb(), "base_mb": base}
    if kind == "tokens":  # the pipeline's way: intern once (TokenSets), then join
        from nearsim.hashing import flatten
        from nearsim.join.exact import exact_pairs
        from nearsim.join.tokens import TokenSets

        flat = flatten(sets)
        exact_pairs(TokenSets.from_shingles(flatten(sets[:50])), t)
        start = time.perf_counter()
        tokens = TokenSets.from_shingles(flat)
        intern_s = time.perf_counter() - start
        start = time.perf_counter()
        df = exact_pairs(tokens, t, method="ppjoin")
        seconds = time.perf_counter() - start
        pairs = sorted(zip(df["i"].tolist(), df["j"].tolist(), strict=True))
        return {
            "seconds": seconds,
            "intern_s": intern_s,
            "pairs": pairs,
            "peak_mb": _peak_mb(),
            "base_mb": base,
        }
    if kind == "ppjoin" or kind == "brute" or kind == "auto":
        from nearsim.join.exact import exact_pairs, join_funnel

        exact_pairs(sets[:50], t, method=kind)
        start, cpu = time.perf_counter(), time.process_time()
        df = exact_pairs(sets, t, method=kind)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        pairs = sorted(zip(df["i"].tolist(), df["j"].tolist(), strict=True))
        stats = dataclasses.asdict(join_funnel(sets, t)) if kind == "ppjoin" else {}
        return {
            "seconds": seconds,
            "cpu": cpu,
            "pairs": pairs,
            "stats": stats,
            "peak_mb": _peak_mb(),
            "base_mb": base,
        }
    if kind == "sample":
        from nearsim.join.sample import similarity_sample
        from nearsim.join.tokens import TokenSets

        similarity_sample(sets[:50])
        start = time.perf_counter()
        df = similarity_sample(sets)
        seconds = time.perf_counter() - start
        tokens = TokenSets.from_shingles(sets)
        start = time.perf_counter()
        similarity_sample(tokens)
        from_tokens = time.perf_counter() - start
        return {
            "seconds": seconds,
            "from_tokens_s": from_tokens,
            "rows": len(df),
            "attrs": dict(df.attrs),
            "peak_mb": _peak_mb(),
            "base_mb": base,
        }
    if kind == "sss":
        from SetSimilaritySearch import all_pairs

        start = time.perf_counter()
        found = list(all_pairs(sets, similarity_func_name="jaccard", similarity_threshold=t))
        seconds = time.perf_counter() - start
        pairs = sorted((min(int(a), int(b)), max(int(a), int(b))) for a, b, _ in found)
        return {"seconds": seconds, "pairs": pairs, "peak_mb": _peak_mb(), "base_mb": base}
    if kind in ("tables", "hamming-brute"):
        from nearsim.hamming import hamming_pairs
        from nearsim.simhash import SimHasher

        fps = SimHasher(seed=1).fingerprints(sets)
        method = "tables" if kind == "tables" else "brute"
        hamming_pairs(fps[:50], task["max_distance"], method=method)
        start = time.perf_counter()
        df = hamming_pairs(fps, task["max_distance"], method=method)
        seconds = time.perf_counter() - start
        pairs = sorted(zip(df["i"].tolist(), df["j"].tolist(), strict=True))
        return {"seconds": seconds, "pairs": pairs, "peak_mb": _peak_mb(), "base_mb": base}
    raise ValueError(f"unknown task kind {kind!r}")


def run(task: dict, timeout: float = 3600) -> dict:
    """Run one task in a fresh interpreter and return its result."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(task, fh)
        task_file = fh.name
    out_file = task_file + ".out"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_join", "--child", task_file, out_file],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    with open(out_file) as fh:
        return json.load(fh)


def _save_sets(name: str, sets: list[list[str]]) -> str:
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.pkl"
    with open(path, "wb") as fh:
        pickle.dump(sets, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return str(path)


# --------------------------------------------------------------------------- report


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def _fmt_s(x: float) -> str:
    return f"{x:.2f}" if x >= 0.1 else f"{x:.3f}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small corpora (smoke test)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        with open(args.child[0]) as fh:
            task = json.load(fh)
        with open(args.child[1], "w") as fh:
            json.dump(_child(task), fh)
        return

    load_before = _load()
    small, large, hard_n = (600, 3000, 800) if args.quick else (3000, 20000, 3000)
    texts, source = news_texts(large, seed=0)
    news = shingle_all(texts)
    hard = shingle_all(hard_texts(hard_n, seed=1))
    files = {
        f"news {small:,}": _save_sets(f"news{small}", news[:small]),
        f"news {large:,}": _save_sets(f"news{large}", news),
        f"hard {hard_n:,}": _save_sets(f"hard{hard_n}", hard),
    }
    distinct = {
        f"news {small:,}": len(set().union(*map(set, news[:small]))),
        f"news {large:,}": len(set().union(*map(set, news))),
        f"hard {hard_n:,}": len(set().union(*map(set, hard))),
    }

    rows = []
    notes = []
    for corpus, path in files.items():
        for t in (0.5, 0.8):
            ours = run({"kind": "ppjoin", "sets": path, "threshold": t})
            row = {"corpus": corpus, "distinct 5-grams": f"{distinct[corpus]:,}", "t": t}
            if "error" in ours:
                row["ppjoin s"] = f"error: {ours['error']}"
                rows.append(row)
                continue
            st = ours["stats"]
            row.update(
                {
                    "ppjoin s": _fmt_s(ours["seconds"]),
                    "ppjoin CPU s": _fmt_s(ours["cpu"]),
                    "peak MB": f"{ours['peak_mb']:.0f}",
                    "lists MB": f"{ours['base_mb']:.0f}",
                    "pairs": f"{len(ours['pairs']):,}",
                    "postings entries": f"{st['entries']:,}",
                    "documents met": f"{st['met']:,}",
                    "verified": f"{st['position']:,}",
                    "bitmap-rejected": f"{st['position'] - st['verified']:,}",
                }
            )
            if corpus.startswith("news"):
                flat = run({"kind": "flat", "sets": path, "threshold": t})
                if "error" not in flat:
                    row["ppjoin s (FlatShingles in)"] = _fmt_s(flat["seconds"])
                    if flat["pairs"] != ours["pairs"]:
                        notes.append(f"MISMATCH FlatShingles vs lists on {corpus} t={t}")
                tok = run({"kind": "tokens", "sets": path, "threshold": t})
                if "error" not in tok:
                    row["TokenSets s"] = _fmt_s(tok["intern_s"])
                    row["ppjoin s (TokenSets in)"] = _fmt_s(tok["seconds"])
                    if tok["pairs"] != ours["pairs"]:
                        notes.append(f"MISMATCH TokenSets vs lists on {corpus} t={t}")
            if not corpus.startswith(f"news {large:,}"):
                brute = run({"kind": "brute", "sets": path, "threshold": t})
                if "error" not in brute:
                    row["brute s"] = _fmt_s(brute["seconds"])
                    if brute["pairs"] != ours["pairs"]:
                        notes.append(f"MISMATCH brute vs ppjoin on {corpus} t={t}")
                peer = run({"kind": "sss", "sets": path, "threshold": t})
                if "error" in peer:
                    row["SetSimilaritySearch s"] = f"error: {peer['error']}"
                else:
                    row["SetSimilaritySearch s"] = _fmt_s(peer["seconds"])
                    row["peer / ours"] = f"{peer['seconds'] / ours['seconds']:.0f}×"
                    row["peer peak MB"] = f"{peer['peak_mb']:.0f}"
                    row["same pairs"] = "yes" if peer["pairs"] == ours["pairs"] else "NO"
            rows.append(row)

    sample_rows = []
    for corpus in (f"news {large:,}", f"hard {hard_n:,}"):
        res = run({"kind": "sample", "sets": files[corpus]})
        if "error" in res:
            sample_rows.append({"corpus": corpus, "seconds": str(res["error"])})
            continue
        at = res["attrs"]
        sample_rows.append(
            {
                "corpus": corpus,
                "seconds": _fmt_s(res["seconds"]),
                "seconds (TokenSets in)": _fmt_s(res["from_tokens_s"]),
                "peak MB": f"{res['peak_mb']:.0f}",
                "rows": f"{res['rows']:,}",
                "mode": at["mode"],
                "floor": at["floor"],
                "pairs drawn": f"{at['sampled_pairs']:,}",
                "zero pairs": f"{at['zero_pairs']:,}",
            }
        )

    sim_rows = []
    try:
        import nearsim.simhash  # noqa: F401

        have_simhash = True
    except ImportError:
        have_simhash = False
    if have_simhash:
        res = {}
        for kind in ("tables", "hamming-brute"):
            res[kind] = run({"kind": kind, "sets": files[f"news {large:,}"], "max_distance": 3})
        row = {"fingerprints": f"{large:,}", "max distance": 3}
        for kind, label in (("tables", "tables s"), ("hamming-brute", "brute s")):
            r = res[kind]
            row[label] = f"error: {r['error']}" if "error" in r else _fmt_s(r["seconds"])
        if all("error" not in r for r in res.values()):
            row["pairs"] = f"{len(res['tables']['pairs']):,}"
            row["same pairs"] = (
                "yes" if res["tables"]["pairs"] == res["hamming-brute"]["pairs"] else "NO"
            )
            row["brute / tables"] = (
                f"{res['hamming-brute']['seconds'] / res['tables']['seconds']:.1f}×"
            )
        sim_rows.append(row)

    body = [
        "## Exact join (nearsim.join.exact, nearsim.join.sample)",
        "",
        f"{machine()}; load average before/after the run {load_before} / {_load()} "
        "(the machine is shared: above about 1, wall times are inflated; CPU s, the "
        "CPU time of both threads together, much less so). "
        f"News corpus: {source}; char 5-grams. Times are one call in a fresh "
        "process after a warm-up (compiled code loaded from numba's cache); the input is "
        "Python shingle lists, so interning them is part of the time; shingling is not. "
        "Peak MB: the process's peak resident memory (VmHWM), interpreter, numpy, pandas, "
        "numba and the shingle lists included (lists MB: right after loading the lists). "
        'SetSimilaritySearch: `all_pairs(sets, similarity_func_name="jaccard", '
        "similarity_threshold=t)`. Postings entries: index entries read by the PPJoin "
        "probes; documents met: distinct (probe, document) pairs sharing a prefix "
        "shingle; verified: candidates left after the prefix, length and positional "
        "filters; bitmap-rejected: of those, dropped by the bitmap bound without looking "
        "at the shingles (all four from `nearsim.join_funnel`, not timed). FlatShingles "
        "in: the same join fed `nearsim.hashing.FlatShingles` spans, which skips joining "
        "Python strings. TokenSets s: interning those spans once "
        "(`nearsim.TokenSets.from_shingles`); TokenSets in: the join alone on them (what "
        "a pipeline holding the tokens pays per threshold).",
        "",
        markdown_table(
            rows,
            [
                "corpus",
                "distinct 5-grams",
                "t",
                "ppjoin s",
                "ppjoin CPU s",
                "ppjoin s (FlatShingles in)",
                "TokenSets s",
                "ppjoin s (TokenSets in)",
                "brute s",
                "SetSimilaritySearch s",
                "peer / ours",
                "same pairs",
                "pairs",
                "peak MB",
                "lists MB",
                "peer peak MB",
                "postings entries",
                "documents met",
                "verified",
                "bitmap-rejected",
            ],
        ),
        "",
        "### similarity_sample (pairs over the whole similarity range, for the rate chart; "
        "independent of the threshold)",
        "",
        markdown_table(
            sample_rows,
            [
                "corpus",
                "seconds",
                "seconds (TokenSets in)",
                "peak MB",
                "rows",
                "mode",
                "floor",
                "pairs drawn",
                "zero pairs",
            ],
        ),
    ]
    body += ["", "### SimHash search (nearsim.simhash.hamming_pairs)", ""]
    if sim_rows:
        body.append(
            markdown_table(
                sim_rows,
                [
                    "fingerprints",
                    "max distance",
                    "tables s",
                    "brute s",
                    "brute / tables",
                    "pairs",
                    "same pairs",
                ],
            )
        )
    else:
        body.append("nearsim.simhash is not there yet; section skipped.")
    if notes:
        body += ["", *notes]
    write_section("join", "\n".join(body))


if __name__ == "__main__":
    main()
