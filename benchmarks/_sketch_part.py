"""The ``sketch`` part of ``benchmarks/bench_corpus.py``: ``nearsim dedup --sketch
superminhash`` beside classic MinHash and rensa, and its section "corpus-sketch" of
RESULTS.md.

* At ``--peer-size`` (100,000) news documents, 16 bands × 8 rows (rensa's LSH needs a
  number of bands that divides k = 128), the estimate filter at t = 0.8: ``nearsim dedup``
  with each sketch and rensa's R-MinHash job (``_corpus_tasks.rensa``), each under the hash
  seeds of ``--seeds`` (1, 2, 3 by default); recall and precision of the accepted pairs
  against the exact pairs (J ≥ 0.8), their mean over the seeds with its standard error,
  and each run's wall and CPU time and peak memory.
* At each ``--sizes`` above that (1,000,000 by default), ``nearsim dedup`` at 16 × 8 with
  each sketch, once: wall, CPU, peak memory and the signing stage (no exact pairs there,
  unless the ``nearsim`` part already computed them).
* Where the true pairs are lost (:func:`misses`): for every true pair and seed, from the
  three sketches' signatures alone (no pipeline; its recall per seed equals the runs'),
  whether it is a candidate at 16 × 8 and whether its estimate reaches 0.8, by exact J;
  and each estimator's mean squared error over J(1 − J)/k.

The runs at ``--peer-size`` are made when that size is among ``--sizes`` (``--sizes
1000000`` runs the larger size alone, keeping the stored seeds' runs).
"""

from __future__ import annotations

from benchmarks._report import machine, markdown_table, write_section

BANDING = (16, 8)
SKETCHES = ("minhash", "superminhash")


def _banding_args() -> tuple[str, ...]:
    return ("--auto-tune", "false", "--bands", str(BANDING[0]), "--rows", str(BANDING[1]))


def part_sketch(bench) -> None:
    """Run the part (``bench``: the ``bench_corpus.Bench``), storing every run."""
    from benchmarks.bench_corpus import _nearsim_found

    n = bench.n_peer
    bench.warm_up()
    if n in bench.args.sizes:
        _seed_runs(bench, n)
    for size in (s for s in bench.args.sizes if s > n):
        bench.warm_file(bench.corpus(size))
        for sketch in SKETCHES:
            name = f"sketch-{sketch}-{size}"
            print(f"nearsim dedup --sketch {sketch} ({size:,})", flush=True)
            res = bench.nearsim(size, name, extra=(*_banding_args(), "--sketch", sketch))
            if bench.store.get(f"truth/{size}"):
                res["score"] = bench.score(size, name, **_nearsim_found(res))
            bench.store.put(f"sketch/{sketch}/{size}/1", res)


def _seed_runs(bench, n: int) -> None:
    from benchmarks.bench_corpus import _nearsim_found

    path = bench.corpus(n)
    bench.truth(n)
    bench.warm_file(path)
    seeds = tuple(bench.args.seeds)
    bench.store.put(f"sketch-seeds/{n}", {"seeds": list(seeds)})
    for seed in seeds:  # round robin over the tools: drift in load hits each alike
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
    print("where the true pairs are lost", flush=True)
    bench.store.put(f"sketch-misses/{n}", misses(str(path), str(bench.truth(n)), n, seeds))


BINS = (0.8, 103 / 128, 0.82, 0.85, 0.9, 1.0, 1.01)
"""Exact-J bins of the breakdown; 103/128 is the smallest estimate ≥ 0.8 at k = 128."""


def misses(path: str, truth: str, n: int, seeds: tuple[int, ...]) -> dict:
    """For each sketch and seed, which true pairs (J ≥ 0.8) are candidates at 16 × 8 and
    which have an estimate ≥ 0.8, from the signatures of the documents in those pairs
    (nearsim: ``MinHasher.text_signatures``; rensa: ``RMinHash.from_token_sets`` on the
    job's shingle sets, its bands of 8 consecutive values). Pair level, so exact copies
    count as the runs count them (found: equal signatures)."""
    import numpy as np
    import rensa as rs

    import nearsim as ns
    from benchmarks._corpus_tasks import char_shingles, read_texts
    from nearsim.superminhash import variance_factor

    texts = read_texts(path)
    true = np.load(truth)
    docs, inv = np.unique(np.concatenate([true // n, true % n]), return_inverse=True)
    ii, jj = inv[: true.shape[0]], inv[true.shape[0] :]
    sets = [char_shingles(texts[d]) for d in docs.tolist()]
    inter = np.array([len(sets[a] & sets[b]) for a, b in zip(ii, jj, strict=True)])
    union = np.array([len(sets[a] | sets[b]) for a, b in zip(ii, jj, strict=True)])
    jac = inter / union
    k, (b, r) = 128, BANDING
    binned = np.digitize(jac, BINS) - 1
    out: dict = {"pairs": int(true.shape[0]), "union_median": float(np.median(union)),
                 "alpha": variance_factor(k, int(np.median(union))),
                 "bins": [int((binned == i).sum()) for i in range(len(BINS) - 1)],
                 "tools": {}}  # fmt: skip
    sub = [texts[d] for d in docs.tolist()]
    for tool in (*SKETCHES, "rensa"):
        rows = []
        for seed in seeds:
            if tool == "rensa":
                mhs = rs.RMinHash.from_token_sets(sets, k, seed)
                sig = np.array([m.digest() for m in mhs], dtype=np.uint64)
            else:
                sig = ns.MinHasher(k, seed, sketch=tool).text_signatures(sub)
            eq = sig[ii] == sig[jj]
            est = eq.mean(axis=1)
            cand = eq.reshape(-1, b, r).all(axis=2).any(axis=1)
            keep = est >= 0.8
            some = jac < 1
            rows.append({
                "recall": float((cand & keep).mean()),
                "not_candidate": [int((~cand & (binned == i)).sum()) for i in range(len(BINS) - 1)],
                "filtered": [int((cand & ~keep & (binned == i)).sum())
                             for i in range(len(BINS) - 1)],
                "mse_ratio": float(np.mean((est - jac)[some] ** 2)
                                   / np.mean((jac * (1 - jac) / k)[some])),
            })  # fmt: skip
        out["tools"][tool] = rows
    return out


def _misses_text(m: dict) -> str:
    import numpy as np

    names = {"minhash": "classic MinHash", "superminhash": "SuperMinHash",
             "rensa": "rensa R-MinHash"}  # fmt: skip
    rows = []
    for tool, runs in m["tools"].items():
        rec = np.array([x["recall"] for x in runs])
        nc = np.sum([x["not_candidate"] for x in runs], axis=0)
        fi = np.sum([x["filtered"] for x in runs], axis=0)
        total = m["pairs"] * len(runs)
        se = rec.std(ddof=1) / np.sqrt(len(rec)) if len(rec) > 1 else float("nan")
        row = {
            "sketch": names[tool],
            "recall (mean ± s.e.)": f"{rec.mean():.2%} ± {se:.2%}",
            "lost: not a candidate": f"{nc.sum() / total:.2%}",
            "lost: estimate < 0.8": f"{fi.sum() / total:.2%}",
            "mean sq. error ÷ J(1−J)/k": f"{np.mean([x['mse_ratio'] for x in runs]):.3f}",
        }
        for i, cnt in enumerate(m["bins"]):
            if cnt and i < len(BINS) - 2:
                all_ = cnt * len(runs)
                row[f"lost at J ∈ [{BINS[i]:.3f}, {BINS[i + 1]:.3f})"] = (
                    f"{(nc[i] + fi[i]) / all_:.1%} ({nc[i] / all_:.1%} + {fi[i] / all_:.1%})"
                )
        rows.append(row)
    bins = ", ".join(f"[{BINS[i]:.3f}, {BINS[i + 1]:.3f}): {c:,}" for i, c in
                     enumerate(m["bins"][:-1]))  # fmt: skip
    return "\n\n".join([
        "### Where the true pairs are lost (pair level, the same seeds)",
        f"Every one of the {m['pairs']:,} true pairs under every seed, from the sketches' "
        "signatures alone: a candidate at 16 × 8 (some band of 8 equal values), and an "
        "estimate ≥ 0.8 (at k = 128, at least 103 equal values: 0.805). The recall per seed "
        "is the runs' above, to the pair. Pairs by exact J: "
        f"{bins}; J = 1 (exact copies, never lost): {m['bins'][-1]:,}. Lost: share of the "
        "bin's pairs not found (not a candidate + estimate below 0.8). Median union "
        f"{m['union_median']:.0f} shingles, where SuperMinHash's α(128, u) = "
        f"{m['alpha']:.3f}.",
        markdown_table(rows, list(rows[0])),
    ])  # fmt: skip


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

    def spread(key):  # the mean's standard error over the seeds
        vals = [value(r, key) for r in runs if value(r, key) is not None]
        if len(vals) < 2:
            return ""
        m = sum(vals) / len(vals)
        sd = (sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
        return f" ± {sd / len(vals) ** 0.5:.2%}"

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
        "recall (mean ± s.e.)": pct(mean("recall")) + spread("recall"),
        "recall per seed": ", ".join(f"{x:.2%}" for x in recalls),
        "precision (mean ± s.e.)": pct(mean("precision")) + spread("precision"),
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
            _, tool, size, seed = key.split("/")
            wanted = data.get(f"sketch-seeds/{size}", {}).get("seeds")
            if wanted is None or int(seed) in wanted:  # the last run's seeds only
                groups.setdefault((tool, int(size)), []).append(value)
    seeds = sorted({s for k, v in data.items() if k.startswith("sketch-seeds/")
                    for s in v["seeds"]})  # fmt: skip
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
        f"{', '.join(map(str, seeds or (1, 2, 3)))} at the smaller size (rensa: the same "
        "seeds; ± is the standard error of the mean over the seeds). Wall and "
        "CPU: the whole process (reading, signing, banding, verifying, clustering, writing); "
        "signing: nearsim's own stage time from summary.json; peak: the process's maximum "
        "resident memory.",
        markdown_table(rows, columns),
        *[_misses_text(v) for k, v in sorted(data.items()) if k.startswith("sketch-misses/")],
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
