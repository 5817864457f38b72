"""``bench_corpus --parts hot``: a crawl with boilerplate, end to end, and its RESULTS.md
section ("corpus-hot").

The crawl is ``benchmarks.corpora.hot_bucket_corpus`` (news items with edited copies, 15%
exact copies of three boilerplate pages, 2.5% dated near-copies of the cookie banner, a
chain of 100 small edits). At ``--hot-size`` documents ``nearsim dedup`` runs on it, on
the same crawl ``without_boilerplate``, and with ``--cluster-check true``; at
``--hot-peer-size`` it runs beside datatrove's MinHash deduplication and text-dedup's.
Every run is a fresh process measured by ``bench_corpus.measure`` (wall, CPU, peak memory
of the process and of each process it starts); which sources the removed documents came
from is counted afterwards, in another process, untimed.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from pathlib import Path

from benchmarks._report import machine, markdown_table, write_section

SEED = 0
THRESHOLD = 0.8
DT_BANDING = (9, 13)  # nearsim's default for t = 0.8, k = 128 (the tuner's 9 × 13)
DT_NGRAMS = 5  # datatrove's default: word 5-grams
DT_WORKERS = 2  # the machine's two cores, as nearsim's numba kernels use them
WARM_DOCS = 2_000


def _files(work: Path, big: int, small: int) -> dict:
    def f(name: str) -> str:
        return str(work / name)

    return {
        "large": {
            "hot": f(f"hot-{big}-seed{SEED}.jsonl"),
            "plain": f(f"hot-{big}-seed{SEED}-without-boilerplate.jsonl"),
            "sources": f(f"hot-{big}-seed{SEED}.sources.npy"),
            "plain_sources": f(f"hot-{big}-seed{SEED}-without-boilerplate.sources.npy"),
        },
        "peer": {
            "hot": f(f"hot-{small}-seed{SEED}.jsonl"),
            "shards": f(f"hot-{small}-seed{SEED}-shards"),
            "sources": f(f"hot-{small}-seed{SEED}.sources.npy"),
            "partner": f(f"hot-{small}-seed{SEED}.news-partner.npy"),
        },
    }


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def task(bench, python: str, kind: str, name: str, *, env=None, **args) -> dict:
    """One ``_hot_tasks`` task in a fresh ``python``; its result and measures."""
    from benchmarks.bench_corpus import ROOT, _tail, measure

    task_file, out_file = bench.work / f"{name}.task.json", bench.work / f"{name}.out.json"
    task_file.write_text(json.dumps(dict(args, kind=kind)))
    out_file.unlink(missing_ok=True)
    cmd = [python, "-m", "benchmarks._hot_tasks", str(task_file), str(out_file)]
    m = measure(cmd, bench.work / f"{name}.log", env=env, cwd=ROOT)
    if m["exit"] != 0 or not out_file.exists():
        raise RuntimeError(f"{kind} failed (exit {m['exit']}); see {m['log']}:\n" + _tail(m))
    return dict(json.loads(out_file.read_text()), measured=m)


def run_hot(bench) -> None:
    from benchmarks.bench_corpus import PY, load

    args, store = bench.args, bench.store
    big, small = args.hot_size, args.hot_peer_size
    started, clock, load_before = _now(), time.perf_counter(), load()
    files = _files(bench.work, big, small)
    made = [p for group in files.values() for k, p in group.items() if k != "partner"]
    sizes = (store.get("hot/corpora") or {}).get("sizes")
    if not all(Path(p).exists() for p in made) or sizes != [big, small]:
        print(f"generating the hot crawl at {big:,} and {small:,} documents", flush=True)
        res = task(bench, PY, "hot_corpora", "hot-corpora", seed=SEED, n=big, n_peer=small,
                   large=files["large"], peer=files["peer"])  # fmt: skip
        res["seconds"] = res.pop("measured")["wall"]
        store.put("hot/corpora", dict(res, sizes=[big, small]))
    _warm_up(bench, files)

    large, peer = files["large"], files["peer"]
    if not (store.get("hot/news truth") or {}).get("documents") == small:
        print(f"exact pairs among the news items of the {small:,} (not timed)", flush=True)
        res = task(bench, PY, "news_truth", "hot-news-truth", path=peer["hot"],
                   sources=peer["sources"], threshold=THRESHOLD, out=peer["partner"])  # fmt: skip
        store.put("hot/news truth", {k: v for k, v in res.items() if k != "measured"})
    big_jobs = [
        ("nearsim hot", large["hot"], large["sources"], ()),
        ("nearsim without", large["plain"], large["plain_sources"], ()),
        ("nearsim hot cluster-check", large["hot"], large["sources"], ("--cluster-check", "true")),
    ]
    best: dict[str, dict] = {}
    rounds = max(1, args.repeats_large)
    for rnd in range(rounds):  # round robin: drift in the machine's load hits every job
        for label, path, sources, extra in big_jobs:
            print(f"{label}, {big:,} documents (round {rnd + 1} of {rounds})", flush=True)
            job = (label, big, path, sources, extra)
            _keep_best(bench, best, f"hot/{label} {big}", big, lambda a=job: _nearsim(bench, *a))
    peers = [
        ("nearsim hot", lambda: _nearsim(bench, "nearsim hot", small, peer["hot"],
                                         peer["sources"], (), peer["partner"])),
        ("datatrove", lambda: _datatrove(bench, files, small)),
        ("text-dedup", lambda: _text_dedup(bench, files, small)),
    ]  # fmt: skip
    rounds = max(1, args.repeats)
    for rnd in range(rounds):
        for label, run in peers:
            print(f"{label}, {small:,} documents (round {rnd + 1} of {rounds})", flush=True)
            bench.warm_file(Path(peer["hot"]))
            _keep_best(bench, best, f"hot/{label} {small}", small, run)
    store.put("hot/part", {
        "started": started, "finished": _now(), "seconds": time.perf_counter() - clock,
        "load_before": load_before, "load_after": load(), "machine": machine(),
    })  # fmt: skip


def _nearsim(bench, label, n, path, sources, extra, partner=None) -> dict:
    """``nearsim dedup`` on ``path``, and which sources its removed documents came from."""
    name = f"hot-{label.replace(' ', '-')}-{n}"
    bench.warm_file(Path(path))
    res = bench.nearsim(n, name, extra=extra, repeats=1, path=Path(path))
    clusters = str(Path(res["out"]) / "clusters.parquet")
    res["by_source"] = _by_source(bench, name, sources, partner, clusters_parquet=clusters)
    res["documents"] = res["summary"]["documents"]
    return res


def _keep_best(bench, best: dict, key: str, n: int, run) -> None:
    """Run a job once; store the run of least wall time so far, with every run's wall
    and CPU seconds. A job that fails is stored with its error, not fatal (a run that
    stops is a finding), unless an earlier run of it finished."""
    try:
        res = run()
    except RuntimeError as exc:
        res = {"error": str(exc), "documents": n}
    old = best.get(key)
    walls = [*(old["walls"] if old else []), res.get("wall")]
    cpus = [*(old["cpus"] if old else []), _cpu(res) if "wall" in res else None]
    if old and "error" not in old and ("error" in res or old["wall"] <= res["wall"]):
        res = old
    best[key] = dict(res, walls=walls, cpus=cpus)
    bench.store.put(key, best[key])


def _by_source(bench, name: str, sources: str, partner=None, **found) -> dict:
    from benchmarks.bench_corpus import PY

    if partner:
        found["partner"] = partner
    res = task(bench, PY, "removed_by_source", f"{name}-by-source", sources=sources, **found)
    res.pop("measured")
    return res


def _warm_up(bench, files: dict) -> None:
    """nearsim's warm-up (byte-compiled, numba's kernels loaded once) on the crawl's first
    rows; and datatrove's on the same rows in two shards, so neither pays a first load."""
    small = bench.work / "warm-up.jsonl"
    if not small.exists():
        with open(files["peer"]["hot"]) as fh, open(small, "w") as out:
            for _, line in zip(range(WARM_DOCS), fh, strict=False):
                out.write(line)
    bench.warm_up()
    if Path(bench.args.datatrove_python).exists():
        shards = bench.work / "warm-up-shards"
        shards.mkdir(exist_ok=True)
        lines = small.read_text().splitlines(keepends=True)
        for s, part in enumerate((lines[: len(lines) // 2], lines[len(lines) // 2 :])):
            (shards / f"part-{s}.jsonl").write_text("".join(part))
        try:
            _datatrove_task(bench, str(shards), "datatrove-warm-up")
        except RuntimeError as exc:
            print(f"datatrove's warm-up failed: {str(exc).splitlines()[0]}", flush=True)


def _datatrove_task(bench, shards: str, name: str) -> dict:
    py = bench.args.datatrove_python
    if not Path(py).exists():
        raise RuntimeError(
            f"not run: no datatrove virtualenv at {py} (python -m venv /tmp/datatrove-venv && "
            "/tmp/datatrove-venv/bin/pip install datatrove==0.10.1 spacy orjson tokenizers "
            "'xxhash<4')"
        )
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TQDM_DISABLE="1")
    return task(
        bench, py, "datatrove", name, env=env, shards=shards, work=str(bench.work / name),
        workers=DT_WORKERS, n_grams=DT_NGRAMS, bands=DT_BANDING[0], rows=DT_BANDING[1],
        removed_out=str(bench.work / f"{name}.removed.npy"),
    )  # fmt: skip


def _datatrove(bench, files: dict, n: int) -> dict:
    name = f"hot-datatrove-{n}"
    res = _datatrove_task(bench, files["peer"]["shards"], name)
    res.update(res.pop("measured"))
    removed = str(bench.work / f"{name}.removed.npy")
    res["by_source"] = _by_source(
        bench, name, files["peer"]["sources"], files["peer"]["partner"], removed_rows=removed
    )
    return res


def _text_dedup(bench, files: dict, n: int) -> dict:
    name = f"hot-text-dedup-{n}"
    res, labels = bench.text_dedup(Path(files["peer"]["hot"]), n, name)
    res["documents"] = n
    res["by_source"] = _by_source(
        bench, name, files["peer"]["sources"], files["peer"]["partner"], labels_npy=str(labels)
    )
    return res


# -- the section -----------------------------------------------------------------------------
def _f(x, digits: int = 1) -> str:
    return "" if x is None else f"{x:,.{digits}f}"


def _i(x) -> str:
    return "" if x is None else f"{int(x):,}"


def _peak(r: dict) -> float:
    """The largest single process's peak (VmHWM), else the waited-for ``ru_maxrss``."""
    peaks = [p["peak_mb"] for p in r.get("processes", [])]
    return max(peaks) if peaks else r.get("maxrss_mb", 0.0)


def _cpu(r: dict) -> float:
    """CPU seconds of every process of the run (datatrove's pool workers are never waited
    for by the process measured, so its ``cpu`` alone would leave them out)."""
    return max(r["cpu"], r.get("cpu_processes", 0.0))


def _removed_cells(r: dict) -> str:
    by = r.get("by_source", {}).get("by_source", {})
    cells = []
    for s in ("boilerplate", "dated", "chain", "news"):
        d = by.get(s)
        cells.append("–" if not d or not d["documents"] else f"{d['removed']:,}/{d['documents']:,}")
    return " · ".join(cells)


def _row(job: str, r: dict | None) -> dict:
    if not r:
        return {"job": job, "wall s": "not run yet"}
    if "error" in r:
        return {"job": job, "documents": _i(r.get("documents")), "wall s": "failed",
                "removed": r["error"].splitlines()[0][:160]}  # fmt: skip
    s = r.get("summary", {})
    procs = r.get("processes", [])
    return {
        "job": job,
        "documents": _i(r.get("documents", s.get("documents"))),
        "wall s": _f(r["wall"], 1),
        "CPU s": _f(_cpu(r), 1),
        "peak MB": _f(_peak(r), 0),
        "all processes MB": f"{_f(r.get('tree_rss_peak_mb'), 0)} ({len(procs)})",
        "candidates": _i(s.get("candidates")) or "–",
        "exact duplicates": _i(s.get("exact_duplicates")) or "–",
        "pairs": _i(s.get("pairs", r.get("pairs"))) or "–",
        "clusters": _i(s.get("clusters", r.get("clusters"))) or "–",
        "removed": _i(r.get("by_source", {}).get("removed", s.get("removed"))),
        "removed of boilerplate · dated · chain · news": _removed_cells(r),
        "runs (wall s)": ", ".join(
            _f(w, 1) if w is not None else "failed" for w in r.get("walls", [r["wall"]])
        ),
        "news removed with no news item at J ≥ 0.8": _i(
            r.get("by_source", {}).get("news_removed_without_partner")
        ),
    }


def _ratio(a: dict | None, b: dict | None) -> dict:
    if not a or not b or "error" in a or "error" in b:
        return {"job": "hot / without", "wall s": "–"}
    sa, sb = a["summary"], b["summary"]

    def q(x, y, digits=2):
        return f"{x / y:.{digits}f}×" if y else "–"

    return {
        "job": "**hot / without**",
        "documents": q(sa["documents"], sb["documents"]),
        "wall s": q(a["wall"], b["wall"]),
        "CPU s": q(_cpu(a), _cpu(b)),
        "peak MB": q(_peak(a), _peak(b)),
        "all processes MB": q(a["tree_rss_peak_mb"], b["tree_rss_peak_mb"]),
        "candidates": q(sa["candidates"], sb["candidates"]),
        "exact duplicates": q(sa["exact_duplicates"], sb["exact_duplicates"]),
        "pairs": q(sa["pairs"], sb["pairs"]),
        "clusters": q(sa["clusters"], sb["clusters"]),
        "removed": q(sa["removed"], sb["removed"]),
    }


def _stages(r: dict | None) -> str:
    if not r or "error" in r:
        return ""
    st = r.get("summary", {}).get("seconds") or r.get("stage_seconds") or r.get("stages") or {}
    return ", ".join(f"{k} {v:.1f}" for k, v in st.items() if k != "Total")


def report_hot(data: dict, work: Path) -> None:
    part = data.get("hot/part")
    if not part:
        write_section("corpus-hot", "## A crawl with boilerplate (`bench_corpus --parts hot`)"
                      "\n\nNot run yet (`--parts hot`).")  # fmt: skip
        return
    big, small = data["hot/corpora"]["sizes"]
    corp = data["hot/corpora"]
    r = {k[4:]: v for k, v in data.items() if k.startswith("hot/")}
    hot, plain = r.get(f"nearsim hot {big}"), r.get(f"nearsim without {big}")
    check, ns_small = r.get(f"nearsim hot cluster-check {big}"), r.get(f"nearsim hot {small}")
    dt, td = r.get(f"datatrove {small}"), r.get(f"text-dedup {small}")
    rows = [
        _row(f"nearsim, crawl with boilerplate, {big:,}", hot),
        _row("nearsim, the same crawl without boilerplate", plain),
        _ratio(hot, plain),
        _row(f"nearsim `--cluster-check true`, crawl with boilerplate, {big:,}", check),
        _row(f"nearsim, crawl with boilerplate, {small:,}", ns_small),
        _row(f"datatrove 0.10.1 MinHash (4 steps), {small:,}", dt),
        _row(f"text-dedup 0.4.0 MinHash, {small:,}", td),
    ]
    cols = ["job", "documents", "wall s", "CPU s", "peak MB", "all processes MB",
            "candidates", "exact duplicates", "pairs", "clusters", "removed",
            "removed of boilerplate · dated · chain · news",
            "news removed with no news item at J ≥ 0.8", "runs (wall s)"]  # fmt: skip
    minutes = part["seconds"] / 60
    body = [
        "## A crawl with boilerplate: `nearsim dedup` beside datatrove and text-dedup "
        "(`benchmarks/bench_corpus.py --parts hot`)",
        "",
        f"{part['machine']}. Run {part['started']} – {part['finished'][11:]}: "
        f"{minutes:.0f} min for the whole part ({corp['seconds'] / 60:.1f} min of it "
        "generating the corpora, when they were not already in the working folder); load "
        f"average {part['load_before']} before, {part['load_after']} after (the machine "
        "was shared; compare within this run). " + data.get("compiled", {}).get("sentence", ""),
        "",
        _corpus_line(corp, big, small, work),
        "",
        markdown_table(rows, cols),
        "",
        "Peak MB is the largest process's own peak (VmHWM, polled ten times a second); all "
        "processes MB is the largest sum of the resident memory of the run's processes "
        "(their number in brackets: datatrove runs a manager, a forkserver and pool "
        "workers). nearsim's pairs are the accepted pairs, including each exact copy's link "
        "to its first occurrence; datatrove's the pairs its buckets step wrote (a band "
        "match between neighbours in sorted order; it has no estimate filter); text-dedup "
        "reports clusters only. Removed of a source: documents of it removed / documents "
        "of it.",
        "",
        "Stage seconds: "
        + "; ".join(
            f"{name}: {_stages(x)}"
            for name, x in (
                (f"nearsim hot {big:,}", hot),
                (f"without {big:,}", plain),
                (f"`--cluster-check` {big:,}", check),
                (f"nearsim {small:,}", ns_small),
                ("datatrove", dt),
                ("text-dedup (its timer)", td),
            )
            if _stages(x)
        )
        + ".",
        "",
        _datatrove_line(dt),
        "",
        _text_dedup_line(td, data),
        "",
        *_findings(hot, plain, check, ns_small, dt, td, data.get("hot/news truth")),
    ]
    write_section("corpus-hot", "\n".join(body))


def _corpus_line(corp: dict, big: int, small: int, work: Path) -> str:
    h, p, s = corp[f"hot/{big}"], corp[f"plain/{big}"], corp[f"hot/{small}"]

    def mix(d):
        b = d["by_source"]
        return (f"{b.get('news', 0):,} news items, {b.get('boilerplate', 0):,} boilerplate "
                f"copies, {b.get('dated', 0):,} dated banners, {b.get('chain', 0)} chain rows; "
                f"{d['distinct_texts']:,} distinct texts")  # fmt: skip

    return (
        f"Corpus: `benchmarks.corpora.hot_bucket_corpus({big:,}, seed={SEED})` as JSON lines "
        f"in {work} (not committed), {h['bytes'] / 1e6:,.0f} MB: {mix(h)}. Without "
        f"boilerplate (`without_boilerplate`): {p['documents']:,} rows, "
        f"{p['bytes'] / 1e6:,.0f} MB. At {small:,}: {mix(s)}; datatrove reads the same rows "
        "cut in two shards (one per worker). Every tool runs with `--id-field id` or its "
        "equivalent on the text field; nearsim with default settings (char 5-grams, k = "
        "128, t = 0.8, 9 bands × 13 rows, the estimate filter)."
    )


def _datatrove_line(dt: dict | None) -> str:
    if not dt:
        return "datatrove: not run yet."
    if "error" in dt:
        return f"datatrove did not finish: {dt['error'].splitlines()[0]}"
    return (
        f"datatrove configuration: `MinhashConfig(n_grams={DT_NGRAMS}, num_buckets="
        f"{DT_BANDING[0]}, hashes_per_bucket={DT_BANDING[1]})` (`{dt['config']}`), its "
        f"default `TextNormConfig` and English word tokenizer ({dt['tokenizer']}); "
        f"signatures and filter as {dt['tasks']} tasks, buckets as {DT_BANDING[0]} tasks, "
        f"{dt['workers']} workers, clusters as 1 task. What differs from nearsim's run: "
        "shingles are word 5-grams of datatrove's normalised text (lower case, punctuation "
        "removed, every number written as 0, diacritics removed), not character 5-grams of "
        "the lower-cased text; 117 hash functions (9 × 13; nearsim signs with 128 and bands "
        "117 of them); xxhash64 and universal hashing modulo 2⁶¹ − 1; no threshold: every "
        "pair equal on a whole band is a duplicate (nearsim accepts a candidate when its "
        "estimate over 128 hashes reaches 0.8); no exact-copy step: its buckets step "
        "writes only neighbours in each bucket's sorted order, so a bucket of m documents "
        "gives m − 1 pairs whatever m is; a document with fewer than 5 words gets no "
        "signature; and its filter step writes the kept documents out again as JSON lines "
        "(nearsim writes clusters and pairs)."
    )


def _text_dedup_line(td: dict | None, data: dict) -> str:
    if not td:
        return "text-dedup: not run yet."
    if "error" in td:
        return f"text-dedup was not run: {td['error'].splitlines()[0]}"
    return (
        "text-dedup 0.4.0 (its own virtualenv, offline, on the same JSONL): `python -m "
        "text_dedup.minhash --num_perm 128 --threshold 0.8 --b 9 --r 13 --hash_func xxh3 "
        "--num_proc 2`, its own word 5-gram shingling and tokeniser; removals read from its "
        "union-find (`--debug`)."
    )


def _findings(hot, plain, check, ns_small, dt, td, truth) -> list[str]:
    """The plain sentences of the section, from the numbers."""

    def ok(r):
        return bool(r) and "error" not in r

    def src(r, name):
        return r["by_source"]["by_source"][name]

    out = []
    if ok(hot) and ok(plain):
        sh, sp = hot["summary"], plain["summary"]
        docs = sh["documents"] / sp["documents"]
        wall, peak = hot["wall"] / plain["wall"], _peak(hot) / _peak(plain)
        sig_h, sig_p = (r["summary"]["seconds"].get("signatures", 0.0) for r in (hot, plain))
        out.append(
            f"nearsim finishes the crawl with boilerplate: {sh['documents']:,} documents in "
            f"{hot['wall']:.1f} s and {_peak(hot):,.0f} MB, {wall:.2f}× the wall time and "
            f"{peak:.2f}× the peak memory of the same crawl without it "
            f"({sp['documents']:,} documents: the boilerplate adds {docs - 1:.0%} more rows); "
            + (
                "most of the difference is signing "
                if sig_h - sig_p >= 0.5 * (hot["wall"] - plain["wall"])
                else "signing takes "
            )
            + f"({sig_h:.1f} s against {sig_p:.1f} s): the boilerplate rows are longer than "
            "a news item, and every copy is shingled and signed before the exact-copy step "
            "finds it."
        )
        nh, npl = src(hot, "news")["removed"], src(plain, "news")["removed"]
        bp, dated = src(hot, "boilerplate"), src(hot, "dated")
        out.append(
            f"The {sh['exact_duplicates']:,} exact copies are linked to their first "
            "occurrence before banding and a band bucket of more than 100 distinct documents "
            "(the dated banners') gives only 2m − 3 pairs, so the candidates grow "
            f"{sh['candidates'] / sp['candidates']:.1f}× ({sh['candidates']:,} against "
            f"{sp['candidates']:,}), far below the 20,000,000 that used to stop a run; "
            + (
                f"the rest of the crawl is untouched (the same {nh:,} news items removed with "
                "and without the boilerplate), "
                if nh == npl
                else f"{nh:,} news items are removed with the boilerplate, {npl:,} without, "
            )
            + (
                "every boilerplate copy but the first of each page "
                if bp["removed"] == bp["documents"] - 3
                else f"{bp['removed']:,} of {bp['documents']:,} boilerplate copies "
            )
            + (
                "and every dated banner go, "
                if dated["removed"] == dated["documents"]
                else f"and {dated['removed']:,} of {dated['documents']:,} dated banners go, "
            )
            + (
                "and the chain of 100 edits becomes one cluster (99 removed) although its "
                "ends are far below 0.8."
                if src(hot, "chain")["removed"] == 99
                else f"and the chain of 100 edits loses {src(hot, 'chain')['removed']} rows."
            )
        )
    if ok(check) and ok(hot):
        sc = check["summary"]
        out.append(
            f"`--cluster-check true` takes {check['wall']:.1f} s on the same "
            f"{sc['documents']:,} documents ({hot['wall']:.1f} s without it) and splits off "
            f"{sc['split_off']:,} members below 0.8 of their kept document: the chain keeps "
            f"{100 - src(check, 'chain')['removed']} of its rows instead of "
            f"{100 - src(hot, 'chain')['removed']}, and "
            f"{src(hot, 'news')['removed'] - src(check, 'news')['removed']:,} fewer news "
            "items are removed."
        )
    if ok(ns_small) and ok(dt):
        n = ns_small["summary"]["documents"]
        ttd = (
            f", text-dedup {td['wall']:.1f} s ({td['wall'] / ns_small['wall']:.0f}×, "
            f"{td['tree_rss_peak_mb']:,.0f} MB in all)"
            if ok(td)
            else ""
        )
        same = all(
            src(x, k)["removed"] == src(ns_small, k)["removed"]
            for x in (dt, td)
            if ok(x)
            for k in ("boilerplate", "dated", "chain")
        )
        out.append(
            f"At {n:,} documents datatrove finishes too (its buckets step writes only "
            "neighbours in sorted order, so a crowded bucket never multiplies pairs), in "
            f"{dt['wall']:.1f} s against nearsim's {ns_small['wall']:.1f} s "
            f"({dt['wall'] / ns_small['wall']:.0f}×; {dt['stage_seconds']['signatures']:.0f} s "
            "of it its signature step: reading, spaCy tokenising, hashing) and with "
            f"{dt['tree_rss_peak_mb']:,.0f} MB across its processes{ttd}; "
            + (
                "all three remove the same boilerplate, dated and chain rows."
                if same
                else "they differ on the boilerplate, dated or chain rows (see the table)."
            )
        )
        if truth:
            tools = [("nearsim", ns_small), ("datatrove", dt)] + ([("text-dedup", td)] if ok(td)
                                                                    else [])  # fmt: skip
            listed = ", ".join(
                f"{name} {src(r, 'news')['removed']:,} "
                f"({r['by_source'].get('news_removed_without_partner', 0):,} of them with no "
                "news item at J ≥ 0.8)"
                for name, r in tools
            )
            out.append(
                "They differ on the news items: a clustering exact at J ≥ 0.8 (character "
                f"5-grams) removes {truth['ideal_removed']:,} of the {truth['news']:,}; "
                f"{listed}: datatrove and text-dedup shingle word 5-grams, which an edit "
                "changes more of than character 5-grams, so fewer edited copies share a "
                "band: a difference of shingling and threshold, not of the hot buckets."
            )
    return out
