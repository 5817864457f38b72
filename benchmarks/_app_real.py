"""``bench_app --parts real``: the explorer on real documents, page by page, in AppTest.

The Example's short news items (about 180 shingles a document) are not what users bring.
This part writes ``benchmarks.corpora.real_documents(n)`` (manual pages, package docs and
Python sources installed on this machine, with ``id`` and ``source`` fields) as a JSON
lines file and loads it as ``nearsim app corpus.jsonl --id-field id`` does, in a fresh
process (numba's kernels loaded from their on-disk cache, warmed first in their own
process), then:

* **first visits**: every page of the navigation once, in its order, each timed from the
  switch to the end of its run (wall and CPU seconds of the whole process, the load
  average beside it, and the stages that took the CPU); then the Shingles & MinHash page's
  slower tabs ("Choosing the shingle length", "Two sketches"), each on its own row;
* **single changes**: on Banding, the tuner turned off, then bands down by one and the
  threshold up by one step, three times each; on Results, the threshold down by one step
  three times (every value new, so no cache answers).

Goals (issue 23): every first visit under 15 s and all of them under 45 s together; a
single change on Banding or Results under 1.5 s. The machine may be shared: CPU seconds
(all threads of the process) are the fairer figure then; wall seconds are what a user
waits. Chromium's drawing is not in these figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_PAGE = 15.0
GOAL_ALL = 45.0
GOAL_CHANGE = 1.5
SLOW_TABS = ("Choosing the shingle length", "Two sketches")


def write_corpus(n: int, path: Path) -> dict:
    """``real_documents(n)`` as JSON lines at ``path``; what it holds."""
    from benchmarks.corpora import real_documents

    records = real_documents(n)
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    sources: dict[str, int] = {}
    for r in records:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    chars = sum(len(r["text"]) for r in records)
    return {"n": len(records), "sources": sources, "mean_chars": chars / max(len(records), 1)}


def child(corpus: str) -> dict:
    """In a fresh process: every page's first visit, the slow tabs, single changes."""
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    sys.argv = ["app.py", "--corpus", corpus, "--id-field", "id"]  # as `nearsim app` does
    from streamlit.testing.v1 import AppTest

    from benchmarks.bench_app import StageClock, _apptest_action, _pages, _script

    clock = StageClock()
    clock.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=1800)
    at.query_params["source"] = "corpus"
    out: dict = {"pages": [], "changes": []}

    def timed(label: str, runnable) -> dict:
        clock.times, clock.cpu = {}, {}
        load0 = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        runnable.run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        problems = [e.value for e in at.exception] + [e.value for e in at.error]
        if problems:
            raise RuntimeError(f"{label}: the app showed {problems}")
        top = sorted(clock.cpu.items(), key=lambda kv: -kv[1])[:3]
        row = {"label": label, "seconds": wall, "cpu": cpu, "load": (load0, os.getloadavg()[0]),
               "stages": [(k, v) for k, v in top if v >= 0.3]}  # fmt: skip
        print(f"{label}: {wall:.1f} s, {cpu:.1f} CPU s", file=sys.stderr, flush=True)
        return row

    for k, (_, _, nav) in enumerate(_pages()):
        page = at if k == 0 else at.switch_page(_script(nav))
        out["pages"].append(timed(nav, page))
    at.switch_page(_script("MinHash")).run()
    for tab in SLOW_TABS:
        opened = _apptest_action(at, ("tab", "minhash_tab", tab))
        out["pages"].append(timed(f"MinHash: {tab}", opened))
    at.switch_page(_script("Banding")).run()
    banding = [
        ("flip", "auto_tune"),
        *[("step", "bands", -1)] * 3,
        *[("slide", "threshold", 1)] * 3,
    ]
    for action in banding:
        out["changes"].append(timed(f"Banding: {action[1]}", _apptest_action(at, action)))
    at.switch_page(_script("Results")).run()
    for action in [("slide", "threshold", -1)] * 3:
        out["changes"].append(timed(f"Results: {action[1]}", _apptest_action(at, action)))
    return out


def run(n: int) -> dict:
    """Write the corpus, warm numba's cache, and run :func:`child` in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="nearsim-bench-real-") as tmp:
        corpus = Path(tmp) / "installed.jsonl"
        data = {"corpus": write_corpus(n, corpus)}
        code = "from nearsim.explore import warm_up; warm_up()"
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        out_file = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "benchmarks.bench_app", "--child", "real", str(corpus),
               str(out_file)]  # fmt: skip
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"the benchmark process failed:\n{proc.stdout}\n{proc.stderr}")
        data.update(json.loads(out_file.read_text()))
    return data


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def walk_summary(data: dict) -> tuple[str, list[dict], list[dict], float, float]:
    """The corpus's sources in words, the page rows, the tab rows, and the pages' total
    wall and CPU seconds."""
    sources = ", ".join(f"{v:,} {k}" for k, v in sorted(data["corpus"]["sources"].items()))
    pages = [r for r in data["pages"] if not r["label"].startswith("MinHash: ")]
    tabs = [r for r in data["pages"] if r["label"].startswith("MinHash: ")]
    return (sources, pages, tabs, sum(r["seconds"] for r in pages),
            sum(r["cpu"] for r in pages))  # fmt: skip


def report(data: dict, machine: str) -> str:
    """The RESULTS.md section of a run of :func:`run`."""
    c = data["corpus"]
    sources, pages, tabs, total, total_cpu = walk_summary(data)
    lines = [
        f"## Explorer on {c['n']:,} installed documents (`benchmarks/bench_app.py --parts real`)",
        "",
        f"{machine}; {time.strftime('%H:%M UTC', time.gmtime())}. "
        f"`benchmarks.corpora.real_documents({c['n']:,})`: {sources} "
        f"({c['mean_chars']:,.0f} characters a document on average), written as JSON lines "
        "and loaded as `nearsim app corpus.jsonl --id-field id` loads it, in AppTest, in one "
        "fresh process after `nearsim.explore.warm_up()`. Wall and CPU seconds of the whole "
        "process (all threads); the load average (1 minute) before and after each run. "
        "**The machine was shared** with other work: wall seconds are then longer than on "
        "a quiet machine; CPU seconds are the fairer figure. Chromium's drawing is not "
        "included.",
        "",
        "| first visit | wall s | CPU s | load | under 15 s | where the CPU went |",
        "|---|---|---|---|---|---|",
    ]
    for r in pages + tabs:
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["stages"]) or "the page itself"
        load = f"{r['load'][0]:.1f}–{r['load'][1]:.1f}"
        lines.append(f"| {r['label']} | {r['seconds']:.2f} | {r['cpu']:.2f} | {load} | "
                     f"{_met(r['seconds'] < GOAL_PAGE)} | {stages} |")  # fmt: skip
    lines += [
        f"| **every page once** (tabs apart) | {total:.1f} | {total_cpu:.1f} | | "
        f"under 45 s: {_met(total < GOAL_ALL)} | |",
        "",
        "| single change | wall s (each) | CPU s (each) | under 1.5 s |",
        "|---|---|---|---|",
    ]
    lines += change_rows(data["changes"])
    return "\n".join(lines) + "\n"


def change_rows(changes: list[dict]) -> list[str]:
    """The single changes' table rows: each change's runs side by side, against the goal."""
    groups: dict[str, list[dict]] = {}
    for r in changes:
        groups.setdefault(r["label"], []).append(r)
    lines = []
    for label, rs in groups.items():
        walls = " / ".join(f"{r['seconds']:.2f}" for r in rs)
        cpus = " / ".join(f"{r['cpu']:.2f}" for r in rs)
        met = _met(max(r["seconds"] for r in rs) < GOAL_CHANGE)
        lines.append(f"| {label} | {walls} | {cpus} | {met} |")
    return lines
