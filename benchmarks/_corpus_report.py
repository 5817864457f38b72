"""The "corpus" section of benchmarks/RESULTS.md, from the runs ``bench_corpus`` stored."""

from __future__ import annotations

import math
from pathlib import Path

from benchmarks._report import machine, markdown_table, write_section

GOAL_SECONDS = 60.0
GOAL_BYTES = 3e9
K = 128
CAND_BYTES = 40  # nearsim.run.local: pair codes, estimates and pairs, per candidate pair
MAX_PAIRS = 20_000_000  # nearsim.banding.DEFAULT_MAX_PAIRS (this module stays free of nearsim)


def _f(x, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    return f"{x:,.{digits}f}"


def _i(x) -> str:
    return "" if x is None else f"{int(x):,}"


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.2f}%"


def _loads(r: dict) -> str:
    return f"{r.get('load_before')} / {r.get('load_after')}"


def _peak_mb(r: dict) -> float:
    main = [p["peak_mb"] for p in r.get("processes", []) if p["role"] == "main"]
    return max(main) if main else r.get("maxrss_mb", 0.0)


def _stages(r: dict) -> tuple[dict, dict]:
    """Wall and CPU seconds per stage of a nearsim run, plus what is left of the process
    (interpreter start, imports, loading numba's cached kernels, exit)."""
    s = r["summary"]
    wall = dict(s.get("seconds", {}))
    cpu = dict(s.get("cpu_seconds", {}))
    for key in [k for k in wall if k.endswith("_cpu")]:  # the Dask workers' CPU clocks
        cpu[f"{key[:-4]} (workers' CPU)"] = wall.pop(key)
    wall["start-up and exit (rest)"] = r["wall"] - sum(wall.values())
    if cpu:
        cpu["start-up and exit (rest)"] = r["cpu"] - sum(cpu.values())
    return wall, cpu


# -- nearsim -----------------------------------------------------------------------------
def nearsim_section(data: dict) -> list[str]:
    runs = sorted((int(k.split("/")[1]), v) for k, v in data.items() if k.startswith("nearsim/"))
    if not runs:
        return ["### nearsim dedup end to end", "", "Not run yet (`--parts nearsim`)."]
    rows = []
    for n, r in runs:
        s, sc = r["summary"], r.get("score", {})
        rows.append(
            {
                "documents": _i(n),
                "wall s": _f(r["wall"], 2),
                "CPU s": _f(r["cpu"], 2),
                "peak MB": _f(r["maxrss_mb"], 0),
                "peak MB (VmHWM)": _f(_peak_mb(r), 0),
                "documents / s": _i(n / r["wall"]),
                "candidates": _i(s["candidates"]),
                "pairs": _i(s["pairs"]),
                "clusters": _i(s["clusters"]),
                "removed": _i(s["removed"]),
                "recall": _pct(sc.get("recall")),
                "precision": _pct(sc.get("precision")),
                "runs (wall s)": ", ".join(_f(w, 1) for w in r.get("walls", [r["wall"]])),
                "load before / after": _loads(r),
            }
        )
    cols = list(rows[0])
    out = [
        "### nearsim dedup end to end",
        "",
        "`python -m nearsim dedup news.jsonl --out DIR --id-field id --quiet`, default "
        "settings (char 5-grams, k = 128, t = 0.8, 9 bands × 13 rows, `--verify estimate`); "
        "read → signatures → bands → estimate filter → clusters → clusters.parquet, "
        "pairs.parquet, summary.json written. Wall and CPU (user + system, all threads) of "
        "the whole process; peak MB: its `ru_maxrss`; VmHWM: the same read from /proc "
        "while it ran. Recall and precision: of the accepted pairs with the exact copies "
        "put back (the pairs file links each copy to its first occurrence only), against "
        "the exact pairs at J ≥ 0.8 (only where the exact join was run).",
        "",
        markdown_table(rows, cols),
    ]
    big = dict(runs).get(1_000_000)
    if big:
        ok_t, ok_m = big["wall"] < GOAL_SECONDS, big["maxrss_mb"] * 2**20 < GOAL_BYTES
        cpu_ok = big["cpu"] < GOAL_SECONDS
        out += [
            "",
            f"Goal at 1,000,000 documents: under {GOAL_SECONDS:.0f} s — "
            f"{_f(big['wall'], 1)} s wall ({'met' if ok_t else 'NOT met'} in this run, load "
            f"{_loads(big)} on 2 cores); its CPU time, all threads together, was "
            f"{_f(big['cpu'], 1)} s, so the run "
            + (
                "finishes under the goal whenever it has one core to itself. "
                if cpu_ok
                else "needs more than one core's minute even on a quiet machine. "
            )
            + f"Peak memory under 3 GB — {_f(big['maxrss_mb'] / 1024, 2)} GB "
            f"({'met' if ok_m else 'NOT met'}).",
        ]
    stage_rows = []
    per = {n: _stages(r) for n, r in runs}
    names = list(dict.fromkeys(s for w, _ in per.values() for s in w))
    for st in names:
        row = {"stage": st}
        for n, (wall, cpu) in per.items():
            row[f"{n:,} wall s"] = _f(wall.get(st), 2)
            row[f"{n:,} CPU s"] = _f(cpu.get(st), 2)
        stage_rows.append(row)
    out += [
        "",
        "Stages (from summary.json; `read` is parsing the JSON lines, `signatures` "
        "shingling + MinHash batch by batch, `bands` the band keys, sort and candidate "
        "codes, `write` building and writing the two tables):",
        "",
        markdown_table(stage_rows, list(stage_rows[0])),
    ]
    return out


# -- peers -------------------------------------------------------------------------------
_PEER_ORDER = (
    "nearsim 9x13",
    "nearsim-exact 9x13",
    "datasketch 9x13",
    "text-dedup 9x13",
    "nearsim 16x8",
    "nearsim-exact 16x8",
    "rensa 16x8",
    "datasketch 16x8",
)
_TOOL = {"nearsim-exact": "nearsim `--verify exact`"}


def _label(name: str) -> tuple[str, str]:
    """("tool", "b × r") of a stored peer run's name."""
    tool, band = name.split(" ")
    return _TOOL.get(tool, tool), band.replace("x", " × ")


def peers_section(data: dict) -> list[str]:
    peers = {k[len("peers/") :]: v for k, v in data.items() if k.startswith("peers/")}
    peers.pop("rensa signatures", None)
    spread = peers.pop("spread", None)
    if not peers:
        return ["### The same job with datasketch, rensa and text-dedup", "", "Not run yet."]
    size = peers.pop("size", {}).get("documents", 100_000)
    truth = data.get(f"truth/{size}", {})
    rows, notes = [], []
    for name in _PEER_ORDER:
        r = peers.get(name)
        if r is None:
            continue
        if "error" in r:
            notes.append(f"{name}: {r['error']}")
            continue
        sc = r.get("score", {})
        tool, band = name.split(" ")
        ref = peers.get(f"nearsim {band}")
        ratio = ""
        if ref and "error" not in ref and not tool.startswith("nearsim"):
            ratio = f"{r['wall'] / ref['wall']:.1f}× / {r['cpu'] / ref['cpu']:.1f}×"
        s = r.get("summary", r)
        rows.append(
            {
                "tool": _label(name)[0],
                "bands × rows": _label(name)[1],
                "wall s": _f(r["wall"], 2),
                "CPU s": _f(r["cpu"], 2),
                "peak MB": _f(_tool_peak(r), 0),
                "nearsim speed ÷ tool (wall / CPU)": ratio,
                "candidates": _i(s.get("candidates")),
                "pairs": _i(s.get("pairs")),
                "clusters": _i(sc.get("clusters")),
                "removed": _i(sc.get("removed")),
                "recall": _pct(sc.get("recall")),
                "precision": _pct(sc.get("precision")),
                "recall (clusters)": _pct(sc.get("cluster_recall")),
                "precision (clusters)": _pct(sc.get("cluster_precision")),
                "runs (wall s)": ", ".join(_f(w, 1) for w in r.get("walls", [])),
                "load before / after": _loads(r),
            }
        )
    out = [
        f"### The same job with datasketch, rensa and text-dedup ({size:,} documents)",
        "",
        "Each tool in a fresh process, read → pairs and clusters written (Parquet), best "
        "wall time of the runs listed (run round robin). datasketch: `MinHash.bulk` over "
        "UTF-8 bytes, `MinHashLSH` (an insertion session, a `query` per document), "
        "`MinHash.jaccard` ≥ 0.8. rensa: `RMinHash.from_token_sets` (bulk, in Rust), "
        "`RMinHashLSH` `insert_many` + `query_all`, `RMinHash.jaccard` ≥ 0.8; its LSH takes "
        "a number of bands dividing k, so it runs at 16 × 8, and nearsim with "
        "`--auto-tune false --bands 16 --rows 8` beside it. Both read the JSONL with `json` "
        "and cut the same shingles as nearsim (a Python set comprehension, checked equal "
        "to `nearsim.shingles`), then `scipy.sparse.csgraph.connected_components`. "
        "text-dedup 0.4.0 (`python -m text_dedup.minhash`, its own virtualenv, offline, "
        "`--path json --data_files news.jsonl`, 9 × 13, xxh3, 2 processes): its MinHash "
        "shingles are word 5-grams (`\\W`-split, lower-cased; it has no character "
        "n-grams), it keeps every candidate without an estimate check and writes the "
        "documents it keeps; its clusters are read from its union-find (`--debug`), so it "
        "has no pair columns. Recall and precision: of the accepted pairs (nearsim's with "
        "its exact copies put back, as every peer lists them) against the "
        f"{_i(truth.get('pairs'))} exact pairs at J ≥ 0.8 (char 5-grams, "
        "`nearsim.exact_pairs`, computed once, not timed); (clusters): of the pairs that "
        "the clusters imply (two documents in one cluster). nearsim speed ÷ tool: the "
        "tool's time over nearsim's at the same bands × rows.",
        "",
        markdown_table(rows, list(rows[0])) if rows else "",
    ]
    out += ["", *_goal_lines(peers, truth)]
    if spread:
        out += ["", *_spread_lines(spread)]
    if notes:
        out += ["", *[f"- {x}" for x in notes]]
    out += ["", *_peer_stage_table(peers, data.get("peers/rensa signatures"))]
    return out


def _tool_peak(r: dict) -> float:
    procs = r.get("processes") or []
    return max([p["peak_mb"] for p in procs] + [0.0]) if procs else r.get("maxrss_mb", 0.0)


def _goal_lines(peers: dict, truth: dict) -> list[str]:
    lines = []

    def ok(name):
        r = peers.get(name)
        return r if r and "error" not in r else None

    ns9, ds9, ns16, rs16 = (
        ok(x) for x in ("nearsim 9x13", "datasketch 9x13", "nearsim 16x8", "rensa 16x8")
    )
    if ns9 and ds9:
        w, c = ds9["wall"] / ns9["wall"], ds9["cpu"] / ns9["cpu"]
        lines.append(
            f"- Goal: at least 20× datasketch's speed — {w:.1f}× by wall time, {c:.1f}× by "
            f"CPU time ({'met' if min(w, c) >= 20 else 'NOT met'})."
        )
    if ns16 and rs16:
        w, c = rs16["wall"] / ns16["wall"], rs16["cpu"] / ns16["cpu"]
        lines.append(
            f"- Goal: at least rensa's speed — {w:.2f}× by wall time, {c:.2f}× by CPU "
            f"time ({'met' if min(w, c) >= 1 else 'NOT met'})."
        )
    for band in ("9x13", "16x8"):
        ex, est = ok(f"nearsim-exact {band}"), ok(f"nearsim {band}")
        if ex and est:
            lines.append(
                f"- nearsim `--verify exact` at {band.replace('x', ' × ')}: recall "
                f"{_pct(ex['score']['recall'])}, precision {_pct(ex['score']['precision'])}, "
                f"{_f(ex['cpu'], 2)} s CPU (the estimate filter: {_pct(est['score']['recall'])}"
                f", {_pct(est['score']['precision'])}, {_f(est['cpu'], 2)} s)."
            )
    t = truth.get("pairs") or 0
    for ns, peer, label in ((ns9, ds9, "datasketch"), (ns16, rs16, "rensa")):
        if ns and peer and t:
            a, b = ns["score"]["recall"], peer["score"]["recall"]
            se = math.sqrt(max(a * (1 - a), 1e-12) / t)
            verdict = "met" if a >= b else ("within noise" if b - a < 2 * se else "NOT met")
            lines.append(
                f"- Goal: recall no lower than {label}'s at the same banding — nearsim "
                f"{_pct(a)}, {label} {_pct(b)} ({verdict}; one standard error of a recall "
                f"over {t:,} pairs is {_pct(se)}: different hash functions miss different "
                "pairs)."
            )
    beside = (("9x13", ds9, "datasketch", 20), ("16x8", rs16, "rensa", 1))
    for band, peer, label, speed_goal in beside:
        ex = ok(f"nearsim-exact {band}")
        if ex and peer:
            w, c = peer["wall"] / ex["wall"], peer["cpu"] / ex["cpu"]
            a, b = ex["score"]["recall"], peer["score"]["recall"]
            both = min(w, c) >= speed_goal and a >= b
            lines.append(
                f"- `--verify exact` beside {label} at the same banding: {w:.2f}× its speed by "
                f"wall time, {c:.2f}× by CPU time, recall {_pct(a)} against {_pct(b)} (speed "
                f"goal {speed_goal}× and recall goal together: {'met' if both else 'NOT met'})."
            )
    return lines


def _spread_lines(sp: dict) -> list[str]:
    rows = [
        {
            "exact Jaccard": rng,
            "pairs": _i(v["pairs"]),
            "theory √(J(1−J)/k)": f"{v['theory']:.4f}",
            **{f"{t} spread": f"{v[t]:.4f}" for t in ("nearsim", "datasketch", "rensa")},
        }
        for rng, v in sp["ranges"].items()
    ]
    kept = ", ".join(f"{t} {_pct(v)}" for t, v in sp["kept"].items())
    return [
        "Why recall differs at the same banding: the estimate filter. The spread of each "
        "tool's estimate around the exact Jaccard, on the "
        f"{sp['pairs']:,} pairs with J ≥ 0.5 among the first {sp['documents']:,} "
        "documents (not timed):",
        "",
        markdown_table(rows, list(rows[0])),
        "",
        f"Share of the true pairs (J ≥ 0.8) whose estimate reaches 0.8: {kept}. nearsim "
        "and datasketch are classical MinHash (k independent hash functions), with the "
        "spread theory gives; rensa's R-MinHash is a different sketch (each shingle "
        "fills buckets, like one-permutation hashing), whose estimate is tighter on "
        "short documents, so fewer true pairs just above 0.8 fall below it. nearsim's "
        "answer is exact verification: `--verify exact` accepts a candidate by its "
        "exact Jaccard (the corpus is read a second time), which keeps every true pair "
        "the bands find and no false one (the rows above).",
    ]


def _peer_stage_table(peers: dict, rensa_sig: dict | None) -> list[str]:
    rows = []
    for name in _PEER_ORDER:
        r = peers.get(name)
        if not r or "error" in r:
            continue
        if "summary" in r:
            wall, cpu = _stages(r)
        elif "stages" in r:  # text-dedup: its own timer, wall only
            wall = {k: v for k, v in r["stages"].items() if k != "Total"}
            wall["start-up and exit (rest)"] = r["wall"] - r["stages"].get("Total", 0.0)
            cpu = {}
        else:
            wall, cpu = dict(r.get("stage_seconds", {})), dict(r.get("stage_cpu", {}))
            wall["start-up and exit (rest)"] = r["wall"] - sum(wall.values())
            cpu["start-up and exit (rest)"] = r["cpu"] - sum(cpu.values())
        text = "; ".join(
            f"{st} {_f(w, 2)}" + (f" / {_f(cpu[st], 2)}" if st in cpu else "")
            for st, w in wall.items()
        )
        rows.append({"tool": " ".join(_label(name)), "stages: wall s / CPU s": text})
    out = [
        "Where each tool's time goes:",
        "",
        markdown_table(rows, ["tool", "stages: wall s / CPU s"]),
    ]
    if rensa_sig:
        s, c = rensa_sig["stage_seconds"], rensa_sig["stage_cpu"]
        out += [
            "",
            "rensa's fastest bulk call, `digest_matrix_from_token_sets`, alone: "
            + "; ".join(f"{k} {_f(s[k], 2)} s wall / {_f(c[k], 2)} s CPU" for k in s)
            + " (its LSH cannot be queried with the matrix, hence the objects above).",
        ]
    return out


# -- dask --------------------------------------------------------------------------------
def dask_section(data: dict) -> list[str]:
    keys = [k for k in data if k.startswith("dask/")]
    head = ["### Local engine and `--engine dask --workers 2`", ""]
    if not keys:
        return [*head, "Not run yet (`--parts dask`)."]
    errors = [data[k]["error"] for k in keys if "error" in data[k]]
    runs = {k.rsplit("/", 1)[1]: data[k] for k in keys if "error" not in data[k]}
    if not runs:
        return [*head, f"{errors[0]}. Run `--parts dask` once it is."]
    rows, proc_rows, stage_rows = [], [], []
    for engine, r in runs.items():
        s = r["summary"]
        rows.append(
            {
                "engine": engine,
                "documents": _i(s["documents"]),
                "wall s": _f(r["wall"], 1),
                "CPU s (all processes)": _f(r["cpu"], 1),
                "peak MB, largest process": _f(_tool_peak(r), 0),
                "peak MB, all processes at once": _f(r["tree_rss_peak_mb"], 0),
                "pairs": _i(s["pairs"]),
                "clusters": _i(s["clusters"]),
                "load before / after": _loads(r),
            }
        )
        for p in r.get("processes", []):
            role = p["role"]
            if engine == "dask" and role == "main":
                role = "client + scheduler (LocalCluster runs it in the client)"
            proc_rows.append({"engine": engine, "process": role, "peak MB": _f(p["peak_mb"], 0)})
        wall, _cpu = _stages(r)
        stage_rows.append(
            {
                "engine": engine,
                "stages, wall s": "; ".join(f"{k} {_f(v, 2)}" for k, v in wall.items()),
            }
        )
    same = ""
    if {"local", "dask"} <= set(runs):
        a, b = runs["local"]["summary"], runs["dask"]["summary"]
        same = "Same counts from both engines: " + (
            "yes." if all(a[k] == b[k] for k in ("pairs", "clusters", "removed")) else "NO."
        )
    return [
        *head,
        "The same corpus and command, `--engine local` and `--engine dask --workers 2` "
        "(a LocalCluster of two worker processes on this two-core machine). Each "
        "process's peak is its VmHWM read from /proc while it ran; CPU is the whole "
        "tree's (the workers are the client's children).",
        "",
        markdown_table(rows, list(rows[0])),
        "",
        markdown_table(proc_rows, ["engine", "process", "peak MB"]),
        "",
        markdown_table(stage_rows, ["engine", "stages, wall s"]),
        "",
        same,
    ]


# -- projection --------------------------------------------------------------------------
def projection_section(data: dict) -> list[str]:
    a, b = data.get("nearsim/100000"), data.get("nearsim/1000000")
    head = ["### Projection to 10⁷ and 10⁸ documents (local engine)", ""]
    if not (a and b):
        return [*head, "Needs the nearsim runs at 100,000 and 1,000,000."]
    n0, n1 = 1e5, 1e6
    c0, c1 = a["summary"]["candidates"], b["summary"]["candidates"]
    # candidates = alpha n + beta n^2: the planted copies grow with n, chance pairs with n^2
    beta = max((c1 / n1 - c0 / n0) / (n1 - n0), 0.0)
    alpha = c0 / n0 - beta * n0

    def cand(n):
        return alpha * n + beta * n * n

    m0, m1 = a["maxrss_mb"] * 2**20, b["maxrss_mb"] * 2**20
    per_doc = ((m1 - CAND_BYTES * c1) - (m0 - CAND_BYTES * c0)) / (n1 - n0)
    base = m0 - CAND_BYTES * c0 - per_doc * n0
    (w0, u0), (w1, u1) = _stages(a), _stages(b)

    def stage_time(st, t0, t1, n):
        x0, x1 = t0.get(st, 0.0), t1.get(st, 0.0)
        if st == "bands":  # sorting n keys per band: n log n, and the candidate pairs
            return x1 * (n * math.log(n)) / (n1 * math.log(n1))
        if st.startswith("start-up"):
            return x1
        return x0 + (x1 - x0) * (n - n0) / (n1 - n0)

    rows, over = [], []
    for n in (1e7, 1e8):
        if cand(n) > MAX_PAIRS:
            over.append(f"{n:,.0f}")
        wall = sum(stage_time(st, w0, w1, n) for st in w1)
        cpu = sum(stage_time(st, u0, u1, n) for st in u1) if u1 else None
        mem = base + per_doc * n + CAND_BYTES * cand(n)
        rows.append(
            {
                "documents": f"{n:,.0f}",
                "candidate pairs": _i(cand(n)),
                "time, wall s (this run's pace)": _f(wall, 0),
                "CPU s": _f(cpu, 0),
                "peak GB": _f(mem / 1e9, 1),
                "signatures alone GB": _f(4 * K * n / 1e9, 1),
            }
        )
    return [
        *head,
        f"Model, fitted to the two measured sizes: peak memory = {base / 2**20:,.0f} MB "
        f"(interpreter, numpy, numba, SciPy, pyarrow: `nearsim dedup` loads no pandas) + "
        f"{per_doc:,.0f} bytes a document + "
        f"{CAND_BYTES} bytes a candidate pair. The per-document part is linear: the "
        f"signatures, {4 * K} bytes (4·k), held once (one array grown batch by batch; "
        "`candidate_pairs` reads the valid rows in place), the band keys and sort order "
        "of one band at a time, each id as a Python str, and the tables written at the "
        "end. "
        "Candidates = α·n + β·n² fitted to the two sizes (planted copies grow with n, "
        f"chance collisions with n²): α = {alpha:.4f}, β = {beta:.3g}. Time: reading, "
        "signatures, verification, clusters and writing are linear in n (fitted through "
        "both sizes); banding sorts n keys per band (n log n, scaled from 10⁶); start-up "
        "is fixed.",
        "",
        markdown_table(rows, list(rows[0])),
        "",
        "At 10⁸ the signatures alone (51 GB) exceed this machine's 23 GB: that size needs "
        "the Dask engine over several machines (signatures split across the workers), or "
        "signatures kept on disk; at 10⁷ the local engine fits in about the table's "
        "figure. Times are this machine's pace during the run (shared: see the load); "
        "CPU seconds are the steadier guide (on two free cores, wall time is between half "
        "of them and all of them: shingling and MinHash run on both cores, reading and "
        "banding on one).",
    ] + (
        [
            "",
            f"At {' and '.join(over)} documents this corpus's projected candidates pass "
            f"`nearsim dedup`'s limit of {MAX_PAIRS:,} candidate pairs: the run would stop "
            "before banding with the count and the advice (more rows per band, exact "
            "duplicates removed first). The n² part comes from this generator: its originals "
            "share sentence templates and word lists, so chance look-alikes grow with the "
            "square of the corpus; on a real corpus measure the growth on a sample first "
            "(the explorer's sizing view does).",
        ]
        if over
        else []
    )


def report(data: dict, work: Path) -> None:
    corpus = {int(k.split("/")[1]): v for k, v in data.items() if k.startswith("corpus/")}
    size = data.get("peers/size", {}).get("documents", 100_000)
    truth = data.get(f"truth/{size}")
    lines = [f"{_corpus_line(n, c)}" for n, c in sorted(corpus.items())]
    parts = "; ".join(
        f"{k.split('/')[1]} {v['load_before']} / {v['load_after']} ({v['when'][:16]})"
        for k, v in sorted(data.items())
        if k.startswith("part/")
    )
    body = [
        "## Whole corpora: `nearsim dedup` beside datasketch, rensa, text-dedup "
        "(`benchmarks/bench_corpus.py`)",
        "",
        f"{machine()}. Load average before / after each part: {parts or 'n/a'} (the "
        "machine was shared: above about 2, wall times are inflated; CPU times much less). "
        + data.get("compiled", {}).get("sentence", ""),
        "",
        "Corpus: short news-like documents with planted edited copies "
        '(`nearsim.io.example._generate`, seed 0), JSON lines `{"id", "text"}` in '
        f"{work} (not committed): " + "; ".join(lines) + ".",
    ]
    if truth:
        body[-1] += (
            f" Exact pairs at J ≥ 0.8 on the {size:,}: {truth['pairs']:,} "
            f"(`nearsim.exact_pairs`, {truth['seconds']:.1f} s, not part of any timing)."
        )
    for section in (nearsim_section, peers_section, dask_section, projection_section):
        body += ["", *section(data)]
    write_section("corpus", "\n".join(body))


def _corpus_line(n: int, c: dict) -> str:
    return (
        f"{n:,} documents, {c['bytes'] / 1e6:,.0f} MB, {c['copies'] / n:.0%} of them "
        f"copies, {c['mean_chars']:.0f} characters on average"
    )
