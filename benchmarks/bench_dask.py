"""Benchmark ``nearsim dedup --engine dask``: the client's memory per document, the local
engine beside it, and one model of candidates, bytes shuffled and time fitted to runs at
10⁵ – 10⁷ documents, with its table for 10⁸ and 10⁹ documents on N workers.

Run from the repository root (``nice``: the machine is shared)::

    nice -n 10 python -m benchmarks.bench_dask                       # 10^5, 4·10^5, 10^6
    nice -n 10 python -m benchmarks.bench_dask --sizes 100000,400000,1000000,10000000 --compare

The corpus is a crawl's shape, written block by block as one JSON lines file: each block of
20,000 rows is :func:`benchmarks.corpora.hot_bucket_corpus` (seed = the block's number): news
items with edited copies, 15% boilerplate copied across the whole corpus (exact copies of
three pages: 1.5 million copies of the cookie banner at 10⁷), 2.5% dated variants of the
banner (distinct documents sharing one band bucket: the bucket limit's case), and a chain of
100 one-word edits per block. Each run is a fresh process (after a warm-up run on 2,000
documents, which loads the compiled kernels from numba's disk cache): the Dask runs start a
LocalCluster of 2 single-threaded worker processes in that process (as ``--workers 2`` does,
so the scheduler's memory counts as the client's) and the workers write the output; the
local runs write theirs as the command line does. ``--compare`` also runs the local engine
at the largest size and checks that both engines wrote the same tables.

The model (written to RESULTS.md with the runs it was fitted to and how far each run is from
it): candidates(n) = a₀ + a·n (copies, near copies, the bucket limit's 2m − 3 pairs per hot
bucket and each block's chain all grow with n; a term in n² — chance look-alikes between
unrelated documents — would come from a corpus whose documents share one vocabulary, as the
untagged generator's do, and three runs cannot tell it from noise: fitted, it came out
driven by the smallest run's extra candidates and predicted 10¹¹ candidates at 10⁹); bytes
shuffled counted from the documents and candidates (below); worker CPU = c₀ + c·n +
d·candidates; wall time on this machine = e + f·n + g·candidates. For N workers the CPU
divides by N.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._report import machine, markdown_table, write_section

BLOCK = 20_000
BANDWIDTH = 1e9  # bytes per second per worker over the network, assumed (10 GbE ≈ 1.25e9)
SEEDS = 50  # blocks 50, 100, ... reuse block 0's generated rows under their own tag
K, BANDS = 128, 9  # the default settings: num_perm, and the tuner's bands for t = 0.8


def _tag(block: int) -> str:
    """Two letters naming a block (676 blocks: 13,520,000 documents)."""
    return chr(97 + block // 26 % 26) + chr(97 + block % 26)


def write_corpus(path: Path, docs: int) -> None:
    """``docs`` rows of the crawl (blocks of :func:`hot_bucket_corpus`), one JSON lines file.

    The Example generator draws every original from the same sentence templates and word
    lists, so two originals of *different* blocks resemble each other by chance as often as
    two of one block: such look-alikes grow with n², a property of the generator (a crawl's
    sites do not share one vocabulary). Each block's news and chain words carry the block's
    two-letter tag ("market" → "marketab"), so chance look-alikes stay within a block, as
    on a crawl of many sites; the boilerplate and dated pages are the same in every block
    (their buckets span the whole corpus). Beyond 10⁶ documents the generator's rows repeat
    every 50 blocks (to keep writing 10⁷ rows short), each block under its own tag: no
    word of a block's news or chain is in another block, and a repeated block's dated
    banners end in its tag (untagged, the 25,000 of the first 50 blocks came back as exact
    copies: the hot bucket stopped growing and candidates a document fell by half at 10⁷).
    """
    from benchmarks.corpora import hot_bucket_corpus

    made: dict[int, list] = {}
    with open(path, "w") as out:
        for block, start in enumerate(range(0, docs, BLOCK)):
            seed = block % SEEDS
            if seed not in made:
                made[seed] = hot_bucket_corpus(BLOCK, seed=seed)
            rows = made[seed][: docs - start]
            tag = _tag(block)
            texts = [
                " ".join(w + tag for w in r["text"].split(" "))
                if r["source"] in ("news", "chain")
                else r["text"] + tag if r["source"] == "dated" and block >= SEEDS
                else r["text"]
                for r in rows
            ]  # fmt: skip
            out.writelines(json.dumps({"text": t}) + "\n" for t in texts)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def busy_seconds() -> float:
    """CPU seconds every process of this machine has used since boot (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        ticks = [int(v) for v in stat.readline().split()[1:]]
    user, nice, system, _, _, irq, softirq, steal = ticks[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def own_seconds() -> float:
    """CPU seconds of this process, its threads included."""
    t = os.times()
    return t.user + t.system


# -- one engine run, in a child process ---------------------------------------------------
def child(engine: str, path: str, out: str, workers: int) -> dict:
    from nearsim.run.result import peak_memory_bytes
    from nearsim.settings import Settings

    settings = Settings()
    warm = Path(tempfile.mkdtemp()) / "warm.jsonl"
    write_corpus(warm, 2000)
    row: dict = {"load_before": load()}
    machine_before = own_before = 0.0  # set just before the timed run
    if engine == "local":
        from nearsim.run.local import dedup
        from nearsim.run.outputs import write_outputs

        dedup(warm, settings)
        machine_before, own_before = busy_seconds(), own_seconds()
        started = time.perf_counter()
        result = dedup(path, settings)
        write_outputs(result, out)
    else:
        from distributed import Client

        from nearsim.run.dask_engine import dedup_dask, local_cluster

        cluster = local_cluster(workers, memory_limit=os.environ.get("BENCH_MEMORY_LIMIT", "auto"))
        options = {"scheduler": cluster.scheduler_address}
        dedup_dask(warm, settings, out=Path(out) / "warm", **options)
        shutil.rmtree(Path(out) / "warm")
        watcher = Client(cluster.scheduler_address)
        before = sum(t.user + t.system for t in watcher.run(os.times).values())
        machine_before, own_before = busy_seconds(), own_seconds()
        started = time.perf_counter()
        dedup_dask(path, settings, out=out, **options)
        after = sum(t.user + t.system for t in watcher.run(os.times).values())
        row["workers_cpu"] = after - before
        row["worker_peaks"] = sorted(watcher.run(peak_memory_bytes).values())
        watcher.close()
        cluster.close()
    row["total"] = time.perf_counter() - started
    ours = own_seconds() - own_before + row.get("workers_cpu", 0.0)
    # cores that other processes kept busy during the run (not the run's own, which the
    # 1-minute load average counts too: a quiet machine read as loaded)
    row["others"] = max(0.0, busy_seconds() - machine_before - ours) / row["total"]
    row["load_after"] = load()
    summary = json.loads((Path(out) / "summary.json").read_text())
    row |= {k: summary[k] for k in ("documents", "candidates", "pairs", "exact_duplicates")}
    row["rounds"] = summary.get("component_rounds", 0)
    row["seconds"] = summary["seconds"]
    row["peak"] = peak_memory_bytes()
    return row


def memory_child(
    path: str, out: str, workers: int, blocksize: int | None = None, limit: str = "auto"
) -> dict:
    """One Dask run with every worker's resident memory sampled twice a second, each
    sample tagged with the engine's stage (``Clock.stage``): the peak by stage."""
    import threading
    from contextlib import contextmanager

    import psutil
    from distributed import Client

    from nearsim.run import progress
    from nearsim.run.dask_engine import dedup_dask, local_cluster
    from nearsim.settings import Settings

    def rss() -> int:
        return psutil.Process().memory_info().rss

    current = ["start"]
    plain = progress.Clock.stage

    @contextmanager
    def tagged(self, name, what=None):
        current[0] = name
        with plain(self, name, what):
            yield

    progress.Clock.stage = tagged
    cluster = local_cluster(workers, memory_limit=limit)
    watcher = Client(cluster.scheduler_address)
    base = watcher.run(rss)
    peaks: dict[str, list[int]] = {}
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            try:
                now = watcher.run(rss)
            except Exception:  # a worker restarting: skip the sample
                now = {}
            stage = current[0]
            held = peaks.setdefault(stage, [0, 0])
            held[0] = max(held[0], sum(now.values()))
            held[1] = max(held[1], max(now.values(), default=0))
            stop.wait(0.5)

    thread = threading.Thread(target=poll, daemon=True)
    started_cpu = sum(t.user + t.system for t in watcher.run(os.times).values())
    thread.start()
    started = time.perf_counter()
    dedup_dask(path, Settings(), scheduler=cluster.scheduler_address, out=out,
               blocksize=blocksize)  # fmt: skip
    stop.set()
    thread.join()
    from nearsim.run.result import peak_memory_bytes

    summary = json.loads((Path(out) / "summary.json").read_text())
    row = {
        "documents": summary["documents"],
        "partitions": len(list((Path(out) / "clusters.parquet").glob("part-*"))),
        "total": time.perf_counter() - started,
        "workers_cpu": sum(t.user + t.system for t in watcher.run(os.times).values())
        - started_cpu,
        "base": sum(base.values()),
        "by_stage": peaks,
        "worker_peaks": sorted(watcher.run(peak_memory_bytes).values()),
        "load": load(),
    }
    watcher.close()
    cluster.close()
    return row


def memory_part(
    folder: Path, sizes: list[int], workers: int, blocksize: int | None = None,
    limit: str = "auto",
) -> list[str]:  # fmt: skip
    """Worker memory by stage at each size, and bytes a document between the sizes."""
    rows, runs = [], []
    for n in sizes:
        path = folder / f"crawl-{n}.jsonl"
        if not path.exists():
            write_corpus(path, n)
        out = folder / f"memory-{n}"
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "benchmarks.bench_dask", "--memory-child", str(path),
               str(out), "--workers", str(workers)]  # fmt: skip
        if blocksize is not None:
            cmd += ["--blocksize", str(blocksize)]
        cmd += ["--memory-limit", limit]
        before = load()
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(done.stderr[-3000:])
        r = json.loads(done.stdout.strip().splitlines()[-1])
        r["load_before"] = before
        runs.append(r)
        print(n, {k: round(v[0] / 1e6) for k, v in r["by_stage"].items()},
              f"peaks {[round(p / 1e6) for p in r['worker_peaks']]} MB, load {before}/{r['load']}",
              flush=True)  # fmt: skip
    stages = list(dict.fromkeys(k for r in runs for k in r["by_stage"]))
    for r in runs:
        row = {"documents": f"{r['documents']:,}", "partitions": str(r.get("partitions", "")),
               "idle MB": f"{r['base'] / 1e6:.0f}"}  # fmt: skip
        row |= {k: f"{r['by_stage'][k][0] / 1e6:.0f}" if k in r["by_stage"] else "" for k in stages}
        row["peak RSS MB"] = " / ".join(f"{p / 1e6:.0f}" for p in r["worker_peaks"])
        row["wall s"] = f"{r['total']:.0f}"
        row["worker CPU s"] = f"{r['workers_cpu']:.0f}"
        row["load"] = f"{r['load_before']} / {r['load']}"
        rows.append(row)
    lines = [markdown_table(rows, list(rows[0])), ""]
    if len(runs) >= 2:
        a, b = runs[0], runs[-1]
        dn = b["documents"] - a["documents"]
        per = {k: (b["by_stage"][k][0] - a["by_stage"][k][0]) / dn
               for k in stages if k in a["by_stage"] and k in b["by_stage"]}  # fmt: skip
        peak = (sum(b["worker_peaks"]) - sum(a["worker_peaks"])) / dn
        worst = max(per, key=per.get)
        lines.append(
            "Growth between the two sizes, both workers together, bytes a document: "
            + ", ".join(f"{k} {v:,.0f}" for k, v in per.items())
            + f"; peak RSS {peak:,.0f} (largest stage: {worst}). Projected at 10⁷ documents: "
            f"{(sum(b['worker_peaks']) + peak * (1e7 - b['documents'])) / 1e9:.1f} GB for both "
            "workers."
        )
        print(lines[-1])
    return lines


def run_child(engine: str, path: Path, out: Path, workers: int = 2) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_dask", "--child", engine, str(path), str(out)]
    cmd += ["--workers", str(workers)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    row = json.loads(done.stdout.strip().splitlines()[-1])
    print(engine, row["documents"], f"{row['total']:.1f} s", f"{row['peak'] / 1e6:.0f} MB",
          f"load {row['load_before']}/{row['load_after']}", f"others {row['others']:.2f}",
          flush=True)  # fmt: skip
    return row


def same_tables(a: Path, b: Path) -> bool:
    """Whether two output folders hold equal clusters and pairs tables (a file or parts)."""
    import pyarrow.parquet as pq

    for name in ("clusters.parquet", "pairs.parquet"):
        if not pq.read_table(a / name).equals(pq.read_table(b / name)):
            return False
    return True


# -- the model ------------------------------------------------------------------------------
def shuffled_bytes(docs: float, candidates: float) -> float:
    """Bytes the Dask engine moves between workers for a run (every shuffle counted once):
    copy keys (24 B a document), band records (18 B × bands a document), pair codes by
    their first document (8 B a candidate and band it shares: 2 on average, counted 16),
    each candidate with its first document's signature (16 + 4·k B), the accepted pairs
    and the member codes (about 40 B a candidate, an upper bound: most are not accepted)."""
    return docs * (24 + 18 * BANDS) + candidates * (16 + 16 + 4 * K + 40)


def _nnls(columns: list[np.ndarray], y: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient ≥ 0, each run weighted by 1/y (relative error:
    the small runs count as much as the large ones)."""
    from scipy.optimize import nnls

    a = np.stack(columns, 1) / y[:, None]
    return nnls(a, np.ones_like(y))[0]


def fit(runs: list[dict]) -> dict:
    n = np.array([r["documents"] for r in runs], float)
    one = np.ones_like(n)
    cand = np.array([r["candidates"] for r in runs], float)
    a0, a = _nnls([one, n], cand)
    cpu = np.array([r["workers_cpu"] for r in runs], float)
    c0, c, d = _nnls([one, n, cand], cpu)
    # wall time: T = slowdown(load) · (e + worker CPU / workers); e, the latency of the
    # stages' barriers and shuffles on a quiet machine, fitted to the runs (relative errors)
    wall = np.array([r["total"] for r in runs], float)
    slow = np.array([slowdown(r) for r in runs], float)
    per = np.array([r.get("workers", 2) for r in runs], float)
    rel = slow / wall  # least squares of the relative errors s·(e + cpu / N) / wall − 1
    e = float(max(0.0, np.sum(rel * (1 - rel * cpu / per)) / np.sum(rel**2)))
    client = np.array([r["peak"] for r in runs], float)
    h, i = _nnls([one, n], client)
    workers = np.array([sum(r["worker_peaks"]) for r in runs], float)
    j, k = _nnls([one, n], workers)
    return dict(a0=a0, a=a, c0=c0, c=c, d=d, e=e, client0=h, client_per_doc=i,
                workers0=j, workers_per_doc=k)  # fmt: skip


def slowdown(run: dict) -> float:
    """How much slower than on a quiet machine a run's wall time was: other processes kept
    ``others`` of the machine's cores busy during it (``/proc/stat`` less the run's own CPU
    seconds), ``cores / (cores − others)``. Runs recorded before that was measured: the
    1-minute load average before and after, ``max(1, load / cores)`` (it counts the run's
    own processes too, so it overstates the slowdown on a quiet machine)."""
    cores = os.cpu_count() or 1
    if "others" in run:
        return cores / max(cores - float(run["others"]), 0.25)
    mean = (float(run["load_before"]) + float(run["load_after"])) / 2
    return max(1.0, mean / cores)


def wall_time(m: dict, cpu: float, workers: int, shuffled: float = 0.0) -> float:
    """Seconds on a quiet machine or cluster: e + worker CPU / N + bytes / (N · bandwidth)
    (each worker a core of its own; the local runs share one machine's memory, so their
    shuffled bytes cost no network: 0)."""
    return m["e"] + cpu / workers + shuffled / (workers * BANDWIDTH)


def predict(m: dict, n: float) -> dict:
    cand = m["a0"] + m["a"] * n
    return {
        "candidates": cand,
        "cpu": m["c0"] + m["c"] * n + m["d"] * cand,
        "bytes": shuffled_bytes(n, cand),
    }


def _worst(p: dict, r: dict, *names: str) -> float:
    keys = {"candidates": "candidates", "cpu": "workers_cpu", "wall": "total"}
    return max(max(p[k] / r[keys[k]], r[keys[k]] / p[k]) for k in names)


def model_section(runs: list[dict], m: dict) -> list[str]:
    rows = []
    for r in runs:
        p = predict(m, r["documents"])
        quiet = wall_time(m, p["cpu"], r.get("workers", 2))
        p["wall"] = slowdown(r) * quiet
        rows.append({
            "documents": f"{r['documents']:,}",
            "candidates: measured": f"{r['candidates']:,}",
            "model": f"{p['candidates']:,.0f}",
            "worker CPU s: measured": f"{r['workers_cpu']:.0f}",
            "model ": f"{p['cpu']:.0f}",
            "wall s: measured": f"{r['total']:.0f}",
            "model  ": f"{p['wall']:.0f}",
            "quiet machine": f"{quiet:.0f}",
            "worst ratio: candidates, CPU": f"{_worst(p, r, 'candidates', 'cpu'):.2f}",
            "wall": f"{_worst(p, r, 'wall'):.2f}",
            "load": f"{r['load_before']} / {r['load_after']}",
            "others": f"{r['others']:.2f}" if "others" in r else "",
        })  # fmt: skip
    lines = [
        "Fitted (least squares on the Dask runs above, relative errors, coefficients ≥ 0): "
        f"candidates = {m['a0']:,.0f} + {m['a']:.3f}·n; worker CPU s = "
        f"{m['c0']:.1f} + {m['c'] * 1e6:.1f} µs·n + {m['d'] * 1e6:.1f} µs·candidates; "
        f"bytes shuffled = n·{24 + 18 * BANDS} + candidates·{16 + 16 + 4 * K + 40}; wall s on "
        f"N workers of a quiet machine = {m['e']:.1f} + worker CPU / N (the {m['e']:.1f} s: "
        "the stages' barriers and shuffles, fitted to the runs), and on this shared "
        "machine that times cores / (cores − others), where others is how many cores other "
        "processes kept busy during the run (from /proc/stat, less the run's own CPU "
        "seconds; the column \"others\"). Worst ratio: model / measured or its inverse; the "
        "wall model is given the others' share, nothing else of the run.",
        "",
        markdown_table(rows, list(rows[0])),
        "",
        "Model for N workers (each a core of its own, 1 GB/s of network each, assumed): T(N) ="
        " e + worker CPU / N + bytes shuffled / (N · 1 GB/s). Client memory: "
        f"{m['client0'] / 1e6:.0f} MB + {m['client_per_doc']:.1f} B·n (it holds futures and "
        "counts, nothing per document); workers together "
        f"{m['workers_per_doc']:.0f} B·n (signatures, {4 * K} B, band records and shuffle "
        "buffers), divided among them.",
        "",
    ]
    table = []
    for n in (1e8, 1e9):
        p = predict(m, n)
        for workers in (8, 32, 128, 512):
            hours = wall_time(m, p["cpu"], workers, p["bytes"]) / 3600
            table.append({
                "documents": f"{n:.0e}".replace("e+0", "e"),
                "workers N": workers,
                "candidates": f"{p['candidates']:.3g}",
                "shuffled GB": f"{p['bytes'] / 1e9:,.0f}",
                "hours": f"{hours:.2g}",
                "per worker GB": f"{m['workers_per_doc'] * n / workers / 1e9:,.1f}",
                "client GB": f"{(m['client0'] + m['client_per_doc'] * n) / 1e9:.1f}",
            })  # fmt: skip
    lines.append(markdown_table(table, list(table[0])))
    return lines


def stage_rows(runs: list[dict]) -> list[dict]:
    names = ["connect", "plan", "signatures", "copies", "bands", "verify", "clusters", "write"]
    out = []
    for r in runs:
        s = r["seconds"]
        row = {"run": r["label"], "documents": f"{r['documents']:,}"}
        row["total s"] = f"{r['total']:.1f}"
        row |= {k: f"{s[k]:.1f}" if k in s else "" for k in names}
        row["candidates"] = f"{r['candidates']:,}"
        row["rounds"] = str(r["rounds"]) if r.get("worker_peaks") else ""
        row["worker CPU s"] = f"{r['workers_cpu']:.0f}" if "workers_cpu" in r else ""
        row["peak MB: client"] = f"{r['peak'] / 1e6:.0f}"
        peaks = r.get("worker_peaks")
        row["workers"] = " / ".join(f"{p / 1e6:.0f}" for p in peaks) if peaks else ""
        row["load"] = f"{r['load_before']} / {r['load_after']}"
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,400000,1000000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--folder", help="where the corpora and outputs go (default: a temp)")
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "PATH", "OUT"))
    parser.add_argument("--memory-child", nargs=2, metavar=("PATH", "OUT"))
    parser.add_argument("--blocksize", type=int, help="bytes per partition (--parts memory)")
    parser.add_argument(
        "--memory-limit", default="auto", help="each worker's limit, as LocalCluster takes it"
    )
    parser.add_argument(
        "--parts",
        default="model",
        help="model (the runs, the fit and the table) or memory (worker memory by stage "
        "at --sizes, default 100000,1000000)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="write the section from --folder's runs.json"
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, args.workers)))
        return
    if args.memory_child:
        print(json.dumps(memory_child(*args.memory_child, args.workers, args.blocksize,
                                      args.memory_limit)))  # fmt: skip
        return
    folder = Path(args.folder or tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    if args.parts == "memory":
        sizes = args.sizes if args.sizes != parser.get_default("sizes") else "100000,1000000"
        lines = memory_part(folder, [int(s) for s in sizes.split(",")], args.workers,
                            args.blocksize, args.memory_limit)  # fmt: skip
        write_section("dask-memory", "\n".join(["## Dask engine: worker memory by stage "
                      "(`benchmarks/bench_dask.py --parts memory`)", "", f"{machine()}. Shared "
                      "machine (load in the table). Resident memory of both workers together, "
                      "the largest sample in each stage (sampled twice a second), in MB.", "",
                      *lines]))  # fmt: skip
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    kept = folder / "runs.json"  # every run as it ends: the report can be written again
    if args.report_only:
        runs, local, equal = json.loads(kept.read_text())
        sizes = [r["documents"] for r in runs]
    else:
        runs, local, equal = [], [], None
        for n in sizes:
            path = folder / f"crawl-{n}.jsonl"
            if not path.exists():
                write_corpus(path, n)
            row = run_child("dask", path, folder / f"dask-{n}", args.workers)
            runs.append(row | {"label": f"dask, {args.workers} workers", "workers": args.workers})
            if n <= 1_000_000 or (args.compare and n == sizes[-1]):
                row = run_child("local", path, folder / f"local-{n}")
                local.append(row | {"label": "local"})
            kept.write_text(json.dumps([runs, local, equal]))
        if args.compare:
            equal = same_tables(folder / f"dask-{sizes[-1]}", folder / f"local-{sizes[-1]}")
            print("same tables:", equal)
            kept.write_text(json.dumps([runs, local, equal]))
    small, big = runs[0], next(r for r in runs if r["documents"] == 400_000) if any(
        r["documents"] == 400_000 for r in runs) else runs[1]  # fmt: skip
    growth = (big["peak"] - small["peak"]) / (big["documents"] - small["documents"])
    print(f"client memory growth: {growth:.1f} bytes a document")
    m = fit(runs)
    body = [
        "## Dask engine (`benchmarks/bench_dask.py`)",
        "",
        f"{machine()}. The machine was shared with other engineers' work while this ran: "
        "the load average (1 min) before / after each run is in the table; wall times are "
        "inflated by it, CPU seconds much less so. A crawl's shape (blocks of 20,000 rows "
        "of `benchmarks.corpora.hot_bucket_corpus`: news with edited copies, 15% "
        "boilerplate copied across the corpus, 2.5% dated variants in one bucket, a "
        "100-document chain per block), one JSON lines file; default settings "
        "(t = 0.8, 9 × 13). Each run a fresh process; Dask: a LocalCluster of "
        f"{args.workers} single-threaded workers in that process (as `--workers` starts), "
        "the workers writing the output as parts.",
        "",
        markdown_table(stage_rows(runs + local), list(stage_rows(runs + local)[0])),
        "",
        f"**Client memory growth**: {growth:.1f} bytes a document between the Dask runs at "
        f"{small['documents']:,} and {big['documents']:,} documents (peak resident memory "
        "of the process that ran the engine, scheduler included; goal ≤ 40); between each "
        "run and the next: "
        + ", ".join(
            f"{(q['peak'] - p['peak']) / (q['documents'] - p['documents']):.1f}"
            for p, q in itertools.pairwise(runs)
        )
        + ".",
    ]
    if equal is not None:
        body += ["", f"At {sizes[-1]:,} documents the two engines' tables are "
                 f"{'equal' if equal else 'NOT equal'} (pyarrow `Table.equals`)."]  # fmt: skip
    body += ["", "### One model of candidates, bytes shuffled and time", "",
             *model_section(runs, m)]  # fmt: skip
    write_section("dask", "\n".join(body))


if __name__ == "__main__":
    main()
