"""The explorer's script run times, driven by Streamlit's AppTest; and the README screenshots.

Run from the repository root::

    python -m benchmarks.bench_app                  # writes the "app" section of RESULTS.md
    python -m benchmarks.bench_app --docs 5000      # a smaller Example (smoke test)
    python -m benchmarks.bench_app --screenshots docs/screenshots   # one PNG per page

What is timed (``AppTest.from_file("app.py")``, the Example at 20,000 documents, every
other setting at its default):

* **cold**: the first run of the Results page in a fresh Python process, so it includes
  loading numba's compiled kernels from its on-disk cache, generating the Example, and
  every stage Results needs (shingles, exact join, signatures, candidates, evaluation).
  Importing Streamlit and AppTest is timed apart. Each fresh process is a subprocess of
  this script; the best and the worst of ``--processes`` are shown.
* **cold, warm process**: the same after emptying the app's stage store
  (``explorer.state._store``) and ``st.cache_data`` in a process that has run it once:
  the stages' own cost, without loading kernels.
* **a bands/rows change**: "Pick bands and rows for me" off, then bands (on Results) or
  rows per band (on Banding) moved to a value not seen before, one step at a time; only
  candidates and what depends on them (evaluation; measured rates) are recomputed.
  Median and worst of five changes.

Per-stage times are exclusive (a stage's time without the stages it called), measured by
wrapping ``explorer.state._cached`` in the benchmark process; "other" is the rest of the
run: the tuner, the page's tables and charts, Streamlit itself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks._report import machine, markdown_table, write_section

ROOT = Path(__file__).resolve().parent.parent
GOAL_COLD = 5.0
GOAL_CHANGE = 0.5
RESULTS_PAGE = "pages/results.py"
BANDING_PAGE = "pages/banding.py"


# --------------------------------------------------------------------------- the child
class _StageClock:
    """Exclusive time of every stage computed during one script run."""

    def __init__(self):
        self.stack: list[list[float]] = []
        self.times: dict[str, float] = {}

    def install(self) -> None:
        import explorer.state as state_mod

        original_cached = state_mod._cached
        original_example = state_mod._example

        def cached(stage, key, label, compute):
            ran = []

            def counted():
                ran.append(True)
                return compute()

            started = time.perf_counter()
            self.stack.append([0.0])
            try:
                return original_cached(stage, key, label, counted)
            finally:
                children = self.stack.pop()[0]
                total = time.perf_counter() - started
                if self.stack:
                    self.stack[-1][0] += total
                if ran:
                    self.times[stage] = self.times.get(stage, 0.0) + total - children

        def example(n, seed):
            started = time.perf_counter()
            out = original_example(n, seed)
            took = time.perf_counter() - started
            if took > 0.1:  # generating; a cache hit only copies the cached lists
                self.times["example"] = self.times.get("example", 0.0) + took
            return out

        state_mod._cached = cached
        state_mod._example = example

        # Sleeps in the script's thread (st.status sleeps 0.05 s when it opens and when it
        # closes); AppTest's own polling sleeps in the main thread and is not counted.
        original_sleep = time.sleep
        main = threading.main_thread()

        def sleep(seconds):
            if threading.current_thread() is not main:
                self.times["sleep"] = self.times.get("sleep", 0.0) + seconds
            original_sleep(seconds)

        time.sleep = sleep

    def reset(self) -> None:
        self.times = {}


def _run(at, clock: _StageClock, change=None) -> dict:
    """One timed script run (after ``change(at)`` sets a widget); the stage times."""
    clock.reset()
    at.session_state["_timings"] = {}
    started = time.perf_counter()
    if change is None:
        at.run()
    else:
        change(at).run()
    seconds = time.perf_counter() - started
    if at.exception:
        raise RuntimeError(f"the app raised: {[e.value for e in at.exception]}")
    errors = [e.value for e in at.error]
    if errors:
        raise RuntimeError(f"the app showed errors: {errors}")
    stages = dict(clock.times)
    # a stage's time includes the status line around it, so its sleeps are inside the stages
    stages["other"] = max(0.0, seconds - sum(v for k, v in stages.items() if k != "sleep"))
    return {"seconds": seconds, "stages": stages, "app_timings": dict(at.session_state["_timings"])}


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def child(n_docs: int) -> dict:
    """Runs in a fresh process: every measurement of one process, as a dict."""
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    import explorer.state as state_mod

    imported = time.perf_counter() - started
    clock = _StageClock()
    clock.install()
    out: dict = {"import_seconds": imported, "n_docs": n_docs}

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.query_params["n_docs"] = str(n_docs)
    at.switch_page(RESULTS_PAGE)
    out["cold"] = _run(at, clock)
    titles = [t.value for t in at.title]
    if titles != ["Results"]:
        raise RuntimeError(f"expected the Results page, got titles {titles}")
    out["results_metrics"] = _metrics(at)
    out["rerun"] = [_run(at, clock)["seconds"] for _ in range(3)]

    state_mod._store.clear()
    st.cache_data.clear()
    out["cold_warm_process"] = _run(at, clock)

    out["auto_tune_off"] = _run(at, clock, lambda a: a.toggle(key="auto_tune").set_value(False))
    start_b, start_r = at.session_state["bands"], at.session_state["rows"]
    out["start_banding"] = [start_b, start_r]
    out["results_changes"] = []
    for b in range(start_b - 1, start_b - 6, -1):
        run = _run(at, clock, lambda a, b=b: a.number_input(key="bands").set_value(b))
        run["banding"] = [at.session_state["bands"], at.session_state["rows"]]
        run["candidates"] = _metrics(at).get("Candidate pairs")
        out["results_changes"].append(run)

    at.switch_page(BANDING_PAGE)
    out["banding_first"] = _run(at, clock)
    if [t.value for t in at.title] != ["Banding"]:
        raise RuntimeError("expected the Banding page")
    out["banding_rerun"] = [_run(at, clock)["seconds"] for _ in range(3)]
    out["banding_changes"] = []
    b = at.session_state["bands"]
    r0 = at.session_state["rows"]
    for r in range(r0 - 1, r0 - 6, -1):
        run = _run(at, clock, lambda a, r=r: a.number_input(key="rows").set_value(r))
        run["banding"] = [at.session_state["bands"], at.session_state["rows"]]
        out["banding_changes"].append(run)
    assert at.session_state["bands"] == b
    return out


# --------------------------------------------------------------------------- the parent
def _fresh_process(n_docs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="nearsim-bench-app-") as tmp:
        out_file = Path(tmp) / "out.json"
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_app", "--child", str(n_docs), str(out_file)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"the benchmark process failed:\n{proc.stdout}\n{proc.stderr}")
        return json.loads(out_file.read_text())


def _s(x: float) -> str:
    return f"{x:.2f} s" if x >= 0.995 else f"{x * 1000:.0f} ms"


def _numba_cache() -> str:
    found = list((ROOT / "nearsim").rglob("*.nbi"))
    return (
        f"numba's on-disk cache held {len(found)} kernel index files"
        if found
        else "numba's on-disk cache was empty (the cold run compiled every kernel)"
    )


def _stage_row(label: str, runs: list[dict], columns: list[str]) -> dict:
    row = {"run": label}
    for c in columns:
        vals = [r["stages"].get(c) for r in runs if r["stages"].get(c) is not None]
        row[c] = _s(statistics.median(vals)) if vals else ""
    return row


def report(runs: list[dict], load_before: float, load_after: float) -> str:
    n = runs[0]["n_docs"]
    cold = [r["cold"]["seconds"] for r in runs]
    cold_warm = [r["cold_warm_process"]["seconds"] for r in runs]
    imports = [r["import_seconds"] for r in runs]
    res_changes = [c["seconds"] for r in runs for c in r["results_changes"]]
    band_changes = [c["seconds"] for r in runs for c in r["banding_changes"]]
    reruns = [x for r in runs for x in r["rerun"]]
    banding_first = [r["banding_first"]["seconds"] for r in runs]
    banding_reruns = [x for r in runs for x in r["banding_rerun"]]
    off = [r["auto_tune_off"]["seconds"] for r in runs]

    def ok(values, goal):
        return "yes" if max(values) < goal else ("best only" if min(values) < goal else "no")

    rows = [
        {
            "measure": f"cold: first run in a fresh process, {n:,} documents",
            "page": "Results",
            "best": _s(min(cold)),
            "median / worst": f"{_s(statistics.median(cold))} / {_s(max(cold))}",
            "goal": f"< {GOAL_COLD:g} s",
            "met": ok(cold, GOAL_COLD),
        },
        {
            "measure": "import streamlit + AppTest (before the run, not in it)",
            "page": "",
            "best": _s(min(imports)),
            "median / worst": f"{_s(statistics.median(imports))} / {_s(max(imports))}",
        },
        {
            "measure": "cold, warm process (stage store and st.cache_data emptied)",
            "page": "Results",
            "best": _s(min(cold_warm)),
            "median / worst": f"{_s(statistics.median(cold_warm))} / {_s(max(cold_warm))}",
        },
        {
            "measure": "rerun, nothing changed",
            "page": "Results",
            "best": _s(min(reruns)),
            "median / worst": f"{_s(statistics.median(reruns))} / {_s(max(reruns))}",
        },
        {
            "measure": "turn auto-tune off (same bands × rows: cached)",
            "page": "Results",
            "best": _s(min(off)),
            "median / worst": f"{_s(statistics.median(off))} / {_s(max(off))}",
        },
        {
            "measure": "bands changed (new b × r)",
            "page": "Results",
            "best": _s(min(res_changes)),
            "median / worst": f"{_s(statistics.median(res_changes))} / {_s(max(res_changes))}",
            "goal": f"< {GOAL_CHANGE:g} s",
            "met": ok(res_changes, GOAL_CHANGE),
        },
        {
            "measure": "first visit to Banding (similarity sample, measured rates)",
            "page": "Banding",
            "best": _s(min(banding_first)),
            "median / worst": f"{_s(statistics.median(banding_first))} / {_s(max(banding_first))}",
        },
        {
            "measure": "rerun, nothing changed",
            "page": "Banding",
            "best": _s(min(banding_reruns)),
            "median / worst": f"{_s(statistics.median(banding_reruns))} / "
            f"{_s(max(banding_reruns))}",
        },
        {
            "measure": "rows per band changed (new b × r)",
            "page": "Banding",
            "best": _s(min(band_changes)),
            "median / worst": f"{_s(statistics.median(band_changes))} / {_s(max(band_changes))}",
            "goal": f"< {GOAL_CHANGE:g} s",
            "met": ok(band_changes, GOAL_CHANGE),
        },
    ]
    table = markdown_table(rows, ["measure", "page", "best", "median / worst", "goal", "met"])

    stage_cols = [
        "example",
        "shingles",
        "exact",
        "signatures",
        "candidates",
        "evaluation",
        "sample",
        "rates",
        "other",
        "sleep",
    ]
    stage_rows = [
        _stage_row("cold, fresh process (Results)", [r["cold"] for r in runs], stage_cols),
        _stage_row(
            "cold, warm process (Results)", [r["cold_warm_process"] for r in runs], stage_cols
        ),
        _stage_row(
            "bands changed (Results)", [c for r in runs for c in r["results_changes"]], stage_cols
        ),
        _stage_row("first visit (Banding)", [r["banding_first"] for r in runs], stage_cols),
        _stage_row(
            "rows changed (Banding)", [c for r in runs for c in r["banding_changes"]], stage_cols
        ),
    ]
    stages = markdown_table(stage_rows, ["run", *stage_cols]).replace(
        "| other | sleep |", "| other | of all these: st.status sleeps |", 1
    )
    b0, r0 = runs[0]["start_banding"]
    m = runs[0]["results_metrics"]
    return f"""## Explorer script runs (`benchmarks/bench_app.py`)

{machine()}; load average before/after {load_before:.1f} / {load_after:.1f} (the machine is
shared: above about 1, times are inflated). `AppTest.from_file("app.py")`, Example of
{n:,} documents, other settings at their defaults (char 5-grams, k = 128, t = 0.8, tuned
{b0} bands × {r0} rows). Fresh processes: {len(runs)}; changes: five per page and process,
each to a bands × rows not seen before. {_numba_cache()}.

{table}

Per stage (median, exclusive of the stages each one called; empty: cached, not computed).
"other" is the rest of the run: the sidebar and tuner, the page's tables and charts,
Streamlit; in a fresh process also importing the app's own modules on the first run
(nearsim with numba, altair, scipy: about 1 s). The last column is the part of all this
spent sleeping in Streamlit's `st.status` (0.05 s when a status line opens and 0.05 s when
it closes; the app opens one around every stage it computes):

{stages}

Results at these settings: {m.get("Candidate pairs")} candidate pairs,
{m.get("True pairs (exact J ≥ t)")} true pairs, recall {m.get("Recall of the candidates")},
precision {m.get("Precision of the candidates")}; after the estimate filter recall
{m.get("Recall after the filter")}, precision {m.get("Precision after the filter")}.
"""


# --------------------------------------------------------------------------- screenshots
SHOT_NAMES = {
    "/": "documents",
    "/minhash": "minhash",
    "/banding": "banding",
    "/results": "results",
    "/clusters": "clusters",
    "/compare": "compare",
}


def screenshots(folder: Path) -> list[Path]:
    """One 1400×1000 PNG per page of the explorer (Example, default settings)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e2e_server import CHROMIUM, PAGES, VIEWPORT, AppServer, launch_chromium, open_app
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"screenshots need Debian's chromium at {CHROMIUM}")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with AppServer() as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            ctx = browser.new_context(viewport=VIEWPORT)
            ctx.set_default_timeout(90_000)
            for path, _title, _label in PAGES:
                page = ctx.new_page()
                open_app(page, server.base + path)
                page.mouse.move(0, VIEWPORT["height"] - 1)  # no hover effects in the picture
                out = folder / f"{SHOT_NAMES.get(path, path.strip('/'))}.png"
                page.screenshot(path=str(out), full_page=False, animations="disabled")
                page.close()
                written.append(out)
                print(f"{out}: {out.stat().st_size / 1024:.0f} KiB")
            ctx.close()
        finally:
            browser.close()
    return written


# --------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20_000, help="Example size (default 20,000)")
    ap.add_argument("--processes", type=int, default=2, help="fresh processes (default 2)")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    ap.add_argument("--screenshots", type=Path, metavar="DIR", help="only write screenshots")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        result = child(int(args.child[0]))
        Path(args.child[1]).write_text(json.dumps(result))
        return
    if args.screenshots:
        screenshots(args.screenshots)
        return

    load_before = os.getloadavg()[0]
    runs = []
    for i in range(args.processes):
        runs.append(_fresh_process(args.docs))
        print(f"process {i + 1}: cold {runs[-1]['cold']['seconds']:.2f} s", file=sys.stderr)
    body = report(runs, load_before, os.getloadavg()[0])
    if args.no_write:
        print(body)
    else:
        write_section("app", body)


if __name__ == "__main__":
    main()
