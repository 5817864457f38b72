"""The persistent index's two speed goals, measured apart (``bench_index.py --quick``).

1. **A batch of 340 added and answered in under 50 ms at 10⁶ stored**: ``--batches`` adds of
   340 into an index of ``--n``; each add's wall and CPU time (this process, all threads),
   the wall time spent in ``fsync`` (three an add: the new segment, the manifest before its
   rename, the folder after it), and the documents its merge rewrote (at most
   ``MERGE_LIMIT``). Then ``Index.compact`` of the sealed segments, timed.
2. **A fresh process opens the index and answers one query in under 0.5 s at 10⁶**: three
   ways, each five times, each a new Python process: the library's answer as a DataFrame
   (``Index.open(d).query([text])``, what API.md gives), as plain lists
   (``Index.open(d).matches([text])``, no pandas), and ``nearsim index query DIR one.jsonl
   --out q.jsonl``. For each: the whole process's wall and CPU time (from the parent:
   interpreter start-up to exit) and, inside it, the import of NumPy and of pandas.

The matches of every add are compared with the batch library's answer on all documents.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

BATCH = 340

COLD = """
import json, sys, time
w0, c0 = time.perf_counter(), time.process_time()
import numpy
w1 = time.perf_counter()
import nearsim as ns
idx = ns.Index.open(sys.argv[1])
w2 = time.perf_counter()
if sys.argv[3] == "frame":
    import pandas
    w3 = time.perf_counter()
    hits = int((idx.query([sys.argv[2]])["match_id"] != "").sum())
else:
    w3 = time.perf_counter()
    hits = len(idx.matches([sys.argv[2]])[0])
w4 = time.perf_counter()
print(json.dumps({"numpy": w1 - w0, "open": w2 - w1, "pandas": w3 - w2, "query": w4 - w3,
                  "hits": hits, "numba": "numba" in sys.modules}))
"""


def load() -> float:
    return os.getloadavg()[0]


def child(cmd: list[str]) -> tuple[float, float, str]:
    """Run a process; its wall time, CPU time (user + system) and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def cold_queries(folder: Path, text: str, work: Path, runs: int = 5) -> dict:
    """Each way of a one-text query in a fresh process, ``runs`` times, interleaved."""
    one = work / "one.jsonl"
    one.write_text(json.dumps({"text": text}) + "\n")
    ways = {
        "Index.open(d).query([text]) → DataFrame": [sys.executable, "-c", COLD, str(folder),
                                                     text, "frame"],
        "Index.open(d).matches([text]) → lists": [sys.executable, "-c", COLD, str(folder),
                                                   text, "lists"],
        "nearsim index query DIR one.jsonl": [sys.executable, "-m", "nearsim", "index", "query",
                                              str(folder), str(one), "--out",
                                              str(work / "q.jsonl"), "--quiet"],
    }  # fmt: skip
    out: dict = {name: [] for name in ways}
    for _ in range(runs):
        for name, cmd in ways.items():
            wall, cpu, stdout = child(cmd)
            inner = json.loads(stdout) if stdout.strip() else {}
            out[name].append({"wall": wall, "cpu": cpu, "load": load(), **inner})
    return out


def timed_adds(idx, texts: list[str], first: int, batches: int) -> dict:
    """``batches`` adds of 340 (texts[first:] onwards): per add wall, CPU, fsync wall and
    documents rewritten by its merge; and the pairs found (earlier position, position)."""
    real, spent = os.fsync, [0.0]

    def fsync(fd):
        t = time.perf_counter()
        real(fd)
        spent[0] += time.perf_counter() - t

    rows: dict = {"wall": [], "cpu": [], "fsync": [], "rewritten": [], "load": []}
    found = set()
    os.fsync = fsync
    try:
        for k in range(batches):
            lo = first + k * BATCH
            chunk = texts[lo : lo + BATCH]
            before = {e.file for e in idx._manifest.segments}
            spent[0] = 0.0
            w, c = time.perf_counter(), time.process_time()
            got = idx.add(chunk, [str(lo + i) for i in range(len(chunk))])
            rows["wall"].append(time.perf_counter() - w)
            rows["cpu"].append(time.process_time() - c)
            rows["fsync"].append(spent[0])
            rows["load"].append(load())
            new = [e for e in idx._manifest.segments if e.file not in before]
            rows["rewritten"].append(sum(e.count for e in new) - len(chunk))
            hit = got[got.match_id != ""]
            found |= {(int(m), lo + int(r)) for r, m in zip(hit.row, hit.match_id, strict=True)}
    finally:
        os.fsync = real
    rows["segments"] = idx.segment_count
    return {"adds": rows, "found": found}


def ms(x: float) -> str:
    return f"{1000 * x:,.1f}"


def spread(values, scale=1000.0, digits=1) -> str:
    a = np.asarray(values) * scale
    return " / ".join(f"{v:,.{digits}f}" for v in (np.median(a), np.quantile(a, 0.95), a.max()))


def goals_report(n: int, batches: int, adds: dict, cold: dict, compaction: dict,
                 identical: str, started: str, header: str) -> str:  # fmt: skip
    """The goals' section of RESULTS.md."""
    from nearsim.index.segments import MERGE_LIMIT

    a = adds
    wall, cpu, fs = (np.asarray(a[k]) for k in ("wall", "cpu", "fsync"))
    rewritten = np.asarray(a["rewritten"])
    lines = [
        "## The persistent index: the two speed goals (`bench_index.py --quick`)\n",
        f"{header} Run {started}. The machine is shared with other engineers' work (two "
        "cores): wall times include waiting for a core; CPU time (all threads of the "
        "process) and the load average are given beside them.\n",
        f"**Adds of {BATCH} into an index of {n:,}** ({batches} adds, load "
        f"{min(a['load']):.1f}–{max(a['load']):.1f}): median / p95 / max in ms.\n",
        "| | median / p95 / max |",
        "|---|---|",
        f"| wall | {spread(wall)} |",
        f"| CPU | {spread(cpu)} |",
        f"| in fsync (3 an add) | {spread(fs)} |",
        f"| wall − CPU − fsync (waiting for a core) | {spread(np.maximum(wall - cpu - fs, 0))} |",
        f"| documents rewritten by the add's merge | {spread(rewritten, 1.0, 0)} |",
        "",
        f"{int((rewritten > 0).sum())} of the adds merged segments (at most {MERGE_LIMIT:,} "
        f"documents an add); {a['segments']} segments after them. The adds' matches are "
        f"{identical}. `Index.compact()` then merged the sealed segments: "
        f"{compaction['rewritten']:,} documents rewritten in {compaction['wall']:.2f} s wall, "
        f"{compaction['cpu']:.2f} s CPU (load {compaction['load']:.1f}), "
        f"{compaction['before']} segments → {compaction['after']}.\n",
        f"**A fresh process answers one query** (index of {n:,}; five runs each, "
        "interleaved; the index's files in the page cache). Whole process from the parent, "
        "best and median; inside it, NumPy's and pandas' imports (median):\n",
        "| | process wall: best / median (s) | process CPU: best / median (s) | import "
        "numpy (s) | import pandas (s) | open + answer (s) | numba loaded | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in cold.items():
        w = np.asarray([r["wall"] for r in runs])
        c = np.asarray([r["cpu"] for r in runs])

        def med(key, runs=runs):
            vals = [r[key] for r in runs if key in r]
            return f"{np.median(vals):.3f}" if vals else "—"

        answer = "—"
        if "open" in runs[0]:
            answer = f"{np.median([r['open'] + r['query'] for r in runs]):.3f}"
        numba = "no" if not any(r.get("numba") for r in runs) else "yes"
        if "numba" not in runs[0]:
            numba = "—"
        loads = [r["load"] for r in runs]
        lines.append(
            f"| `{name}` | {w.min():.2f} / {np.median(w):.2f} | {c.min():.2f} / "
            f"{np.median(c):.2f} | {med('numpy')} | {med('pandas')} | {answer} | {numba} | "
            f"{min(loads):.1f}–{max(loads):.1f} |"
        )
    return "\n".join(lines)


def run_goals(work: Path, texts, n: int, batches: int, signed_all, s) -> tuple[set, dict]:
    """Build, adds, warm and cold queries, compaction: the goals' measurements.

    Returns
    -------
    (set, dict)
        The pairs the adds found (earlier position, added position), and the figures:
        build, adds, warm, cold, compaction.
    """
    import nearsim as ns
    from nearsim.index.core import Signed

    valid, sig, keys = signed_all
    folder = work / "goals-index"
    idx = ns.Index.create(folder, s)
    t = time.perf_counter()
    idx.add_signed(Signed(valid[:n], sig[:n], keys[:n], [str(i) for i in range(n)], None),
                   matches=False)  # fmt: skip
    build = {"wall": time.perf_counter() - t, "load": load(), "bytes": idx.disk_bytes()}
    idx.query(texts[:20])  # the compiled kernels loaded, as in a running filter
    got = timed_adds(idx, texts, n, batches)
    warm = []
    for i in range(200):
        w, c = time.perf_counter(), time.process_time()
        idx.query([texts[(i * 7919) % n]])
        warm.append((time.perf_counter() - w, time.process_time() - c))
    cold = cold_queries(folder, texts[n + 5].replace("the", "a", 1), work)
    before = idx.segment_count
    w, c = time.perf_counter(), time.process_time()
    rewritten = idx.compact()
    compaction = {"wall": time.perf_counter() - w, "cpu": time.process_time() - c,
                  "load": load(), "rewritten": rewritten, "before": before,
                  "after": idx.segment_count}  # fmt: skip
    return got["found"], {"build": build, "adds": got["adds"], "warm": warm, "cold": cold,
                          "compaction": compaction}  # fmt: skip


__all__ = ["cold_queries", "goals_report", "run_goals", "timed_adds"]
