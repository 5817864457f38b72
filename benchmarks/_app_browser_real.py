"""``bench_app --parts real-browser``: the explorer on real documents, in Debian's chromium.

The AppTest part (``--parts real``, :mod:`benchmarks._app_real`) times the server's work;
a user also waits for the browser: the messages, Vega drawing its charts, the frontend's
rendering of long tables. This part starts ``nearsim app corpus.jsonl --id-field id`` on
``benchmarks.corpora.real_documents(n)`` as a user does (numba's kernels warmed in their
own process first, as ``scripts/app`` does), opens it in chromium and:

* **first visits**: every page of the navigation once, in its order, each timed from the
  user's click to the page being idle and drawn (the same measure as ``bench_app``'s
  browser part: a run happened, nothing runs or loads, and that lasted 400 ms, which is
  not counted), the server's CPU seconds beside it (``psutil``, the server process and
  its children); then the Shingles & MinHash page's slower tabs;
* **single changes**: on Banding the threshold one step up and the bands one down, three
  times each (manual banding after the tuner is turned off); on Results the threshold one
  step down three times.

Goals: every first visit under 15 s and all of them under 45 s together; a single change
on Banding or Results under 1.5 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _server_cpu(root) -> float:
    """CPU seconds of the server (a ``psutil.Process``) and its children, so far."""
    import psutil

    total = 0.0
    for p in [root, *root.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


def _walk(page, server, out: dict) -> None:
    """Every page, the slow tabs and the single changes, timed into ``out``."""
    from e2e_server import PAGES, click_nav

    from benchmarks._app_real import SLOW_TABS
    from benchmarks.bench_app import _MARK_JS, _browser_action, _settle

    def timed(label: str, act, key: str) -> None:
        load0, cpu0 = os.getloadavg()[0], _server_cpu(server)
        page.evaluate(_MARK_JS)
        act()
        seconds, _ = _settle(page, label)
        row = {"label": label, "seconds": seconds, "cpu": _server_cpu(server) - cpu0,
               "load": (load0, os.getloadavg()[0])}  # fmt: skip
        out[key].append(row)
        print(f"chromium {label}: {seconds:.2f} s, server {row['cpu']:.1f} CPU s",
              file=sys.stderr, flush=True)  # fmt: skip

    for _, _, nav in PAGES[1:]:
        timed(nav, lambda nav=nav: click_nav(page, nav), "pages")
    timed("MinHash (again)", lambda: click_nav(page, "MinHash"), "again")
    for tab in SLOW_TABS:
        timed(f"MinHash: {tab}", lambda tab=tab: _browser_action(page, ("tab", "", tab)), "pages")
    timed("Banding (again)", lambda: click_nav(page, "Banding"), "again")
    changes = [("flip", "auto_tune"), *[("slide", "threshold", 1)] * 3,
               *[("step", "bands", -1)] * 3]  # fmt: skip
    for action in changes:
        timed(f"Banding: {action[1]}", lambda a=action: _browser_action(page, a), "changes")
    timed("Results (again)", lambda: click_nav(page, "Results"), "again")
    for action in [("slide", "threshold", -1)] * 3:
        timed(f"Results: {action[1]}", lambda a=action: _browser_action(page, a), "changes")


def run(n: int) -> dict:
    """Write the corpus, start the app on it, walk it in chromium; the timings."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e2e_server import CHROMIUM, launch_chromium, nearsim_app
    from playwright.sync_api import sync_playwright

    from benchmarks import bench_app
    from benchmarks._app_real import write_corpus

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"the browser timings need Debian's chromium at {CHROMIUM}")
    out: dict = {"pages": [], "again": [], "changes": []}
    with tempfile.TemporaryDirectory(prefix="nearsim-bench-browser-") as tmp:
        corpus = Path(tmp) / "installed.jsonl"
        out["corpus"] = write_corpus(n, corpus)
        code = "from nearsim.explore import warm_up; warm_up()"
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        started = time.perf_counter()
        with nearsim_app(str(corpus), "--id-field", "id", timeout=300) as port:
            out["server_start"] = time.perf_counter() - started
            server = _listener(port)
            with sync_playwright() as pw:
                browser = launch_chromium(pw)
                try:
                    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                    ctx.set_default_timeout(bench_app.TIMEOUT_MS)
                    page = ctx.new_page()
                    page.on("pageerror", lambda exc: bench_app._PAGE_ERRORS.append(str(exc)))
                    page.add_init_script(bench_app._COLD_INIT)
                    load0, cpu0 = os.getloadavg()[0], _server_cpu(server)
                    page.goto(f"http://127.0.0.1:{port}/")
                    seconds, _ = bench_app._settle(page, "opening Documents")
                    out["pages"].append({"label": "Documents", "seconds": seconds,
                                         "cpu": _server_cpu(server) - cpu0,
                                         "load": (load0, os.getloadavg()[0])})  # fmt: skip
                    print(f"chromium Documents: {seconds:.2f} s", file=sys.stderr, flush=True)
                    _walk(page, server, out)
                    ctx.close()
                finally:
                    browser.close()
    return out


def _listener(port: int):
    """The process listening on ``port`` on 127.0.0.1 (the app's server)."""
    import psutil

    for c in psutil.net_connections(kind="tcp"):
        if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid is not None:
            return psutil.Process(c.pid)
    raise RuntimeError(f"no process listens on port {port}")


def report(data: dict, machine: str) -> str:
    """The RESULTS.md section of a run of :func:`run`."""
    from benchmarks._app_real import GOAL_ALL, GOAL_PAGE, _met, change_rows, walk_summary

    c = data["corpus"]
    sources, pages, tabs, total, total_cpu = walk_summary(data)
    lines = [
        f"## Explorer on {c['n']:,} installed documents, in chromium "
        "(`benchmarks/bench_app.py --parts real-browser`)",
        "",
        f"{machine}; {time.strftime('%H:%M UTC', time.gmtime())}. "
        f"`benchmarks.corpora.real_documents({c['n']:,})`: {sources} "
        f"({c['mean_chars']:,.0f} characters a document on average), opened with `nearsim "
        "app corpus.jsonl --id-field id` (numba's kernels warmed first, as `scripts/app` "
        f"does; the server answered in {data['server_start']:.1f} s) in Debian's chromium, "
        "1400 × 1000. Each row: from the user's click to the page idle and drawn (400 ms of "
        "quiet not counted), and the server's CPU seconds in that time; the load average "
        "(1 minute) before and after.",
        "",
        "| first visit | wall s | server CPU s | load | under 15 s |",
        "|---|---|---|---|---|",
    ]
    for r in pages + tabs:
        load = f"{r['load'][0]:.1f}–{r['load'][1]:.1f}"
        lines.append(f"| {r['label']} | {r['seconds']:.2f} | {r['cpu']:.2f} | {load} | "
                     f"{_met(r['seconds'] < GOAL_PAGE)} |")  # fmt: skip
    lines += [
        f"| **every page once** (tabs apart) | {total:.1f} | {total_cpu:.1f} | | "
        f"under {GOAL_ALL:.0f} s: {_met(total < GOAL_ALL)} |",
        "",
        "| single change | wall s (each) | server CPU s (each) | under 1.5 s |",
        "|---|---|---|---|",
    ]
    lines += change_rows(data["changes"])
    again = ", ".join(f"{r['label'].split(' ')[0]} {r['seconds']:.2f} s" for r in data["again"])
    lines += ["", f"Pages visited before (cached): {again}."]
    return "\n".join(lines) + "\n"
