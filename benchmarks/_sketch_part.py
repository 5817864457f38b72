"""The ``sketch`` part of ``benchmarks/bench_corpus.py``: ``nearsim dedup --sketch
superminhash`` beside classic MinHash and rensa, and its section "corpus-sketch" of
RESULTS.md.

* At ``--peer-size`` (100,000) news documents, 16 bands × 8 rows (rensa's LSH needs a
  number of bands that divides k = 128), the estimate filter at t = 0.8: ``nearsim dedup``
  with each sketch and rensa's R-MinHash job (``_corpus_tasks.rensa``), each under the hash
  seeds of ``SEEDS``; recall and precision of the accepted pairs against the exact pairs
  (J ≥ 0.8), averaged over the seeds, and each run's wall and CPU time and peak memory.
* At each ``--sizes`` above that (1,000,000 by default), ``nearsim dedup`` at 16 × 8 with
  each sketch, once: wall, CPU, peak memory and the signing stage (no exact pairs there,
  unless the ``nearsim`` part already computed them).
"""

from __future__ import annotations

from benchmarks._report import machine, markdown_table, write_section

SEEDS = (1, 2, 3)
BANDING = (16, 8)
SKETCHES = ("minhash", "superminhash")


def _banding_args() -> tuple[str, ...]:
    return ("--auto-tune", "false", "--bands", str(BANDING[0]), "--rows", str(BANDING[1]))


def part_sketch(bench) -> None:
    """Run the part (``bench``: the ``bench_corpus.Bench``), storing every run."""
    from benchmarks.bench_corpus import _nearsim_found

    n = bench.n_peer
    path = bench.corpus(n)
    bench.truth(n)
    bench.warm_up()
    bench.warm_file(path)
    for seed in SEEDS:  # round robin over the tools: drift in load hits each alike
        for sketch in SKETCHES:
            name = f"sketch-{sketch}-{n}-seed{seed}"
            print(f"nearsim dedup --sketch {sketch} --hash-seed {seed} ({n:,})", flush=True)
            extra = (*_banding_args(), "--sketch", sketch, "--hash-seed", str(seed))
            res = bench.nearsim(n, name, extra=extra)
            res["score"] = bench.score(n, name, **_nearsim_found(res))
            copies = bench.task("score_copies", f"copies-{name}", n=n, path=str(path),
                                truth=str(bench.truth(n)), **_nearsim_found(res))  # fmt: skip
            copies.pop("measured")
            res["score"].update(copies)
            bench.store.put(f"sketch/{sketch}/{n}/{seed}", res)
        print(f"rensa 16x8 seed {seed}", flush=True)
        name = f"rensa-sketch-seed{seed}"
        files = {"pairs_out": str(bench.work / f"{name}.pairs.npy"),
                 "labels_out": str(bench.work / f"{name}.labels.npy")}  # fmt: skip
        res = bench.task("rensa", name, path=str(path), threshold=0.8, banding=list(BANDING),
                         out_dir=str(bench.work / f"out-{name}"), seed=seed, **files)  # fmt: skip
        res.update(res.pop("measured"))
        res["score"] = bench.score(n, name, pairs_npy=files["pairs_out"],
                                   labels_npy=files["labels_out"])  # fmt: skip
        bench.store.put(f"sketch/rensa/{n}/{seed}", res)
    for size in (s for s in bench.args.sizes if s > n):
        bench.warm_file(bench.corpus(size))
        for sketch in SKETCHES:
            name = f"sketch-{sketch}-{size}"
            print(f"nearsim dedup --sketch {sketch} ({size:,})", flush=True)
            res = bench.nearsim(size, name, extra=(*_banding_args(), "--sketch", sketch))
            if bench.store.get(f"truth/{size}"):
                res["score"] = bench.score(size, name, **_nearsim_found(res))
            bench.store.put(f"sketch/{sketch}/{size}/1", res)


def _stage(res: dict, *names: str) -> float | None:
    seconds = res.get("summary", {}).get("seconds", {})
    for name in names:
        if name in seconds:
            return seconds[name]
    return None


def _row(tool: str, size: int, runs: list[dict]) -> dict:
    def value(r, key):  # nearsim: its pairs with the copies put back (copy_expanded_score)
        score = r.get("score", {})
        return score.get(key + "_with_copies", score.get(key))

    def mean(key):
        vals = [value(r, key) for r in runs if value(r, key) is not None]
        return sum(vals) / len(vals) if vals else None

    def pct(x):
        return "" if x is None else f"{x:.2%}"

    recalls = [value(r, "recall") for r in runs if value(r, "recall") is not None]
    walls = [r["wall"] for r in runs if "wall" in r]
    cpus = [r["cpu"] for r in runs if "cpu" in r]
    peak = max((r.get("maxrss_mb", 0) for r in runs), default=0)
    sign = [_stage(r, "sign", "signatures", "read+sign") for r in runs]
    sign = [s for s in sign if s is not None]
    loads = [f"{r.get('load_before', 0):.1f}/{r.get('load_after', 0):.1f}" for r in runs]
    return {
        "documents": f"{size:,}",
        "tool (16 × 8, estimate filter)": tool,
        "runs (hash seeds)": len(runs),
        "recall (mean)": pct(mean("recall")),
        "recall per seed": ", ".join(f"{x:.2%}" for x in recalls),
        "precision (mean)": pct(mean("precision")),
        "wall s (best)": f"{min(walls):.1f}" if walls else "",
        "CPU s (best)": f"{min(cpus):.1f}" if cpus else "",
        "signing s": f"{min(sign):.2f}" if sign else "",
        "peak MB": f"{peak:,.0f}",
        "load before/after": ", ".join(loads),
    }


def report_sketch(data: dict) -> None:
    """Rebuild the "corpus-sketch" section from the stored runs."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for key, value in data.items():
        if key.startswith("sketch/") and key.count("/") == 3:
            _, tool, size, _seed = key.split("/")
            groups.setdefault((tool, int(size)), []).append(value)
    names = {"minhash": "nearsim dedup (classic MinHash)",
             "superminhash": "nearsim dedup --sketch superminhash",
             "rensa": "rensa R-MinHash + RMinHashLSH"}  # fmt: skip
    order = {"minhash": 0, "superminhash": 1, "rensa": 2}
    rows = [
        _row(names[tool], size, runs)
        for (tool, size), runs in sorted(groups.items(), key=lambda kv: (kv[0][1], order[kv[0][0]]))
    ]
    if not rows:
        return
    columns = list(rows[0])
    body = "\n\n".join([
        "## The second sketch on whole corpora (`benchmarks/bench_corpus.py --parts sketch`)",
        f"{machine()}. The machine is shared: the load "
        "average before/after each run is given; compare within a size, not across days. "
        "News corpus (`nearsim.io.example._generate`), char 5-grams, k = 128, 16 bands × 8 "
        "rows, estimate filter at t = 0.8; recall and precision of the accepted pairs "
        "against every pair with exact Jaccard ≥ 0.8 (nearsim's pairs with its exact copies "
        "put back: its pairs file links each copy to its first occurrence only, "
        "`copy_expanded_score`), for hash seeds "
        f"{', '.join(map(str, SEEDS))} at the smaller size (rensa: the same seeds). Wall and "
        "CPU: the whole process (reading, signing, banding, verifying, clustering, writing); "
        "signing: nearsim's own stage time from summary.json; peak: the process's maximum "
        "resident memory.",
        markdown_table(rows, columns),
    ])  # fmt: skip
    write_section("corpus-sketch", body)


def copy_expanded_score(task: dict) -> dict:
    """Recall and precision of a ``nearsim dedup`` run's pairs with its exact copies put
    back (:func:`benchmarks._corpus_tasks.with_copies`), scored like rensa's."""
    import numpy as np
    import pandas as pd

    from benchmarks._corpus_tasks import with_copies

    n = task["n"]
    df = pd.read_parquet(task["pairs_parquet"], columns=["a", "b"])
    found = df["a"].to_numpy(np.int64) * n + df["b"].to_numpy(np.int64)
    codes = with_copies(found, task["path"], n)
    true = np.load(task["truth"])
    hit = int(np.intersect1d(codes, true).shape[0])
    return {
        "found_with_copies": int(codes.shape[0]),
        "recall_with_copies": hit / max(true.shape[0], 1),
        "precision_with_copies": hit / max(codes.shape[0], 1),
    }
