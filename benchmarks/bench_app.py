"""The explorer's speed on the Example's 20,000 documents against issue 9's goals, in
Streamlit's AppTest and in Debian's chromium; and the README screenshots.

Run from the repository root::

    python -m benchmarks.bench_app                    # the "app" section of RESULTS.md
    python -m benchmarks.bench_app --busy 1           # the same, one core kept busy
    python -m benchmarks.bench_app --docs 3000 --no-write --no-browser   # a smoke test
    python -m benchmarks.bench_app --screenshots docs/screenshots       # one PNG per page
    python -m benchmarks.bench_app --parts real       # 12,000 installed documents, page by page
    python -m benchmarks.bench_app --parts real-browser   # the same walk in chromium
    python -m benchmarks.bench_app --parts real --real-docs 3000 --no-write  # a quick look

Goals (issue 9, item 9): the first page of a fresh process under 4 s; a threshold step
under 0.5 s; every other single change under 0.5 s in the browser. What is measured:

* **cold**: the first run of a page (Documents, and Results) in a fresh process: the app's
  own imports, loading numba's compiled kernels from its on-disk cache (the set-up scripts
  compile them once; this script runs ``nearsim.explore.warm_up()`` first, timed, for the same
  reason), generating the Example and every stage the page reads. In AppTest each process
  is a subprocess of this script and importing Streamlit and AppTest is timed apart; in
  the browser each is a fresh server started as ``scripts/app`` starts it
  (``python -m nearsim_app.explorer.serve``: the library's imports, then ``streamlit run``), whose
  start-up (until /_stcore/health answers) is timed apart. Best, median and worst of
  ``--processes``.
* **single changes**, one process (AppTest) or one browser tab, in this order: threshold
  steps on Results, min_shingles, the Results tabs, auto-tune off, bands, Banding's first
  visit, rows, auto-tune on, threshold steps on Banding, fp_weight, the recall target,
  every other page's first visit, simhash_distance on Compare, the cluster check, the
  Shingles & MinHash tabs, page switches. Each change goes to a value not seen before
  (a stage computed for it is not in any cache), five times; going back to values seen
  before is timed too ("back to earlier settings"). Then, in AppTest only, the changes
  that recompute signatures or shingles by design (num_perm, hash_seed, shingle_k,
  lower-casing): reported apart, not against the goal.
* **in the browser**: from the interaction reaching the page (the pointer-down of a
  toggle's, a step button's, a tab's or a navigation link's click; the key-down of a
  slider's arrow key) to the app being idle again: the server has answered, no element is
  still loading and that has lasted 400 ms since the server's last message; the time is
  taken where the idle spell began (polled every 25 ms). Charts are drawn by the browser
  after that. Playwright's own work before the interaction is timed apart.
* ``--busy N``: N processes spinning in a loop beside it all, as on a busy machine.

Per-stage times are exclusive (a stage's own function, without the stages it reads,
which the pipeline's Runner fetches before calling it), measured by wrapping every
``nearsim.pipeline.STAGES[name].compute`` in the benchmark process; "rest" is everything
else in the run: the page's own code and tables, the sidebar and tuner, cache look-ups,
Streamlit and AppTest.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._report import byte_compile, machine, markdown_table, write_section

ROOT = Path(__file__).resolve().parent.parent
GOAL_COLD = 4.0
GOAL_CHANGE = 0.5
QUIET_MS = 400
RESULTS_TABS = ["Missed pairs", "False candidates", "Estimate against exact",
                "How the truth is computed"]  # fmt: skip
MINHASH_TABS = ["Shingles", "Hash functions", "A pair", "Worked example",
                "Choosing the shingle length"]  # fmt: skip
PAGE_WIDGETS = {  # the pages' own widgets: (label, step)
    "recall_target": ("Recall target R (of the candidates)", 0.005),
    "cluster_check": ("Check every member against its cluster's first document", None),
}


def _pages() -> list[tuple[str, str, str]]:
    """(url path, title, navigation label) of every page, as the browser tests list them."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e2e_server import PAGES

    return PAGES


def _script(label: str) -> str:
    path = next(p for p, _, nav in _pages() if nav == label)
    return f"pages/views/{path.strip('/') or 'documents'}.py"


# -- the plan: every timed interaction, the same in AppTest and in the browser ----------
def plan(*, slow: bool) -> list[tuple[str, tuple]]:
    """(group, action) of every interaction after the cold Results page, in order.

    Actions: ("slide", key, ±steps), ("step", key, ±1), ("flip", key), ("tab", key, label),
    ("nav", page label).
    """
    p: list[tuple[str, tuple]] = []

    def rep(group, action, n=5):
        p.extend([(group, action)] * n)

    rep("rerun", ("rerun",), 3)
    rep("threshold_results", ("slide", "threshold", 1))
    rep("cached", ("slide", "threshold", -1))
    rep("min_shingles", ("step", "min_shingles", 1))
    rep("cached", ("step", "min_shingles", -1))
    p += [("tab_results", ("tab", "results_tab", t)) for t in RESULTS_TABS[1:]]
    p += [("tab_results_again", ("tab", "results_tab", t)) for t in [*RESULTS_TABS, "Missed pairs"]]
    rep("auto_tune", ("flip", "auto_tune"))  # ends off, at the tuned 9 × 13
    rep("bands", ("step", "bands", -1))
    p.append(("page_first", ("nav", "Banding")))
    rep("rows", ("step", "rows", -1))
    p.append(("cached", ("flip", "auto_tune")))  # on again: the tuned b × r, cached
    rep("threshold_banding", ("slide", "threshold", -1))
    rep("cached", ("slide", "threshold", 1))
    rep("fp_weight", ("slide", "fp_weight", -1))
    rep("cached", ("slide", "fp_weight", 1))
    rep("recall", ("slide", "recall_target", 1))
    done = {"Results", "Banding"}
    p += [("page_first", ("nav", nav)) for _, _, nav in _pages() if nav not in done]
    p.append(("page_again", ("nav", "Compare")))
    rep("simhash", ("step", "simhash_distance", 1))
    p.append(("page_again", ("nav", "Clusters")))
    rep("check", ("flip", "cluster_check"))
    p.append(("page_again", ("nav", "MinHash")))
    p += [("tab_minhash", ("tab", "minhash_tab", t)) for t in MINHASH_TABS[1:]]
    p += [("tab_minhash_again", ("tab", "minhash_tab", t)) for t in MINHASH_TABS]
    for nav in ("Documents", "Banding", "Results", "Clusters", "Compare"):
        p.append(("page_again", ("nav", nav)))
    if slow:  # by design these recompute signatures or shingles: AppTest only
        p.append(("page_again", ("nav", "Results")))
        for key in ("num_perm", "hash_seed", "shingle_k"):
            p += [(f"slow_{key}", ("step", key, 1)), ("cached", ("step", key, -1))]
        p += [("slow_lowercase", ("flip", "lowercase")), ("cached", ("flip", "lowercase"))]
    return p


# -- AppTest, in a child process ------------------------------------------------------
class StageClock:
    """Exclusive seconds of every stage, and of a few library calls that pages cache
    themselves, in one script run."""

    EXTRA = (
        ("nearsim_app.explorer.state", "example_corpus", "example"),
        ("nearsim", "compare_tuners", "recall tuner"),
        ("nearsim.explore.explain", "estimate_spread", "spread of 200 seeds"),
    )

    def __init__(self):
        self.times: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def _timed(self, name, fn):
        def timed(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.times[name] = self.times.get(name, 0.0) + time.perf_counter() - wall
                self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

        return timed

    def install(self) -> None:
        import nearsim.explore  # noqa: F401 - registers the explorer's stages: timed too
        from nearsim import pipeline

        for name, stage in list(pipeline.STAGES.items()):
            timed = self._timed(name, stage.compute)
            pipeline.STAGES[name] = dataclasses.replace(stage, compute=timed)
        for module, attr, label in self.EXTRA:
            mod = importlib.import_module(module)
            setattr(mod, attr, self._timed(label, getattr(mod, attr)))


def _apptest_action(at, action):
    """Apply one plan action to an AppTest; the object to ``.run()``."""
    from nearsim_app.explorer.settings_ui import STEPS

    kind, *args = action
    if kind == "rerun":
        return at
    if kind == "nav":
        return at.switch_page(_script(args[0]))
    if kind == "tab":
        at.session_state[args[0]] = args[1]
        return at
    key = args[0]
    if kind == "flip":
        widget = at.toggle(key=key)
        return widget.set_value(not widget.value)
    step = PAGE_WIDGETS[key][1] if key in PAGE_WIDGETS else STEPS.get(key, 1)
    widget = at.slider(key=key) if kind == "slide" else at.number_input(key=key)
    return widget.set_value(round(widget.value + args[1] * step, 6))


def _timed_run(at, clock: StageClock, runnable, label: str) -> dict:
    clock.times, clock.cpu = {}, {}
    wall, cpu = time.perf_counter(), time.process_time()
    runnable.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    if problems:
        raise RuntimeError(f"{label}: the app showed {problems}")
    stages = dict(clock.times)
    stages["rest"] = max(0.0, wall - sum(stages.values()))
    stage_cpu = dict(clock.cpu)
    stage_cpu["rest"] = max(0.0, cpu - sum(stage_cpu.values()))
    ss = at.session_state
    return {"label": label, "seconds": wall, "cpu": cpu, "stages": stages, "stage_cpu": stage_cpu,
            "b_r": [ss["bands"], ss["rows"]], "t": ss["threshold"]}  # fmt: skip


def child(mode: str, n_docs: int) -> dict:
    """Runs in a fresh process: the cold first page, and (mode "session") the plan."""
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    from streamlit.testing.v1 import AppTest

    out: dict = {"import_seconds": time.perf_counter() - started, "n_docs": n_docs}
    clock = StageClock()
    clock.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.query_params["n_docs"] = str(n_docs)
    first = "Documents" if mode == "documents" else "Results"
    if first != "Documents":
        at.switch_page(_script(first))
    out["cold"] = _timed_run(at, clock, at, f"cold {first}")
    out["cold"]["page"] = first
    if [t.value for t in at.title] != [first]:
        raise RuntimeError(f"expected the {first} page, got {[t.value for t in at.title]}")
    out["metrics"] = {m.label: m.value for m in at.metric}
    if mode == "session":
        out["runs"] = []
        for group, action in plan(slow=True):
            label = " ".join(str(a) for a in action)
            run = _timed_run(at, clock, _apptest_action(at, action), label)
            out["runs"].append({"group": group, **run})
    return out


def _fresh_process(mode: str, n_docs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="nearsim-bench-app-") as tmp:
        out_file = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "benchmarks.bench_app", "--child", mode, str(n_docs),
               str(out_file)]  # fmt: skip
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"the benchmark process failed:\n{proc.stdout}\n{proc.stderr}")
        return json.loads(out_file.read_text())


# -- the browser ----------------------------------------------------------------------
# Before an interaction: note the time. A run happened when the server sent a message
# after that moment: every run sends its page's elements, and the server sends nothing
# unasked. The script-state attribute cannot say it alone: when a run is quick (a cached
# page, a value set back), the frontend applies "running" and "notRunning" in one render
# and the attribute never changes (seen as 60 s stops after a page switch, and after a
# number set back on a busy machine). Done: a run happened, nothing is running or
# loading, and that has lasted `quiet` ms since both the idle spell began and the last
# message arrived. Returns the time from the user's input (the first pointer-down or
# key-down the page saw; for a cold page, the start of navigation) to that moment, and
# the time from the mark to the input: Playwright's own work before a click (finding the
# element, waiting for it to stand still, scrolling; a median of 20 ms, up to 140 ms, here),
# which no user waits for.
_MARK_JS = """() => {
    window.__benchRan = false;
    window.__benchIdle = null;
    window.__benchLast = null;
    window.__benchInput = null;
    window.__benchT0 = performance.now();
}"""
_DONE_JS = """([quiet]) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const storage = document.querySelector('[data-testid^="stBidiComponent"]') !== null;
    const idle = app !== null && window.__benchRan === true
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && document.querySelector('[data-testid="stStatusWidget"]') === null
        && document.querySelector('[data-testid="stSkeleton"]') === null
        && (!storage || window.__nearsimStorageRead === true);
    const now = performance.now();
    if (!idle) { window.__benchIdle = null; return false; }
    if (window.__benchIdle == null) { window.__benchIdle = now; }
    const since = Math.max(window.__benchIdle, window.__benchLast ?? 0);
    if (now - since < quiet) { return false; }
    const input = window.__benchInput ?? window.__benchT0;
    return [since - input, input - window.__benchT0];
}"""
# Before the page's own scripts: count the server's messages (a wrapper around the
# WebSocket class that listens to each socket the frontend opens), and for the cold page
# count from the start of navigation.
_COLD_INIT = """
window.__benchRan = true; window.__benchT0 = 0; window.__benchLast = null;
window.__benchInput = null;
for (const type of ['pointerdown', 'keydown']) {  // the user's input reaches the page
    window.addEventListener(type, () => {
        if (window.__benchInput == null) { window.__benchInput = performance.now(); }
    }, true);
}
(() => {
    const Native = window.WebSocket;
    function Counted(...args) {
        const socket = new Native(...args);
        socket.addEventListener('message', () => {
            window.__benchRan = true;
            window.__benchLast = performance.now();
        });
        return socket;
    }
    Counted.prototype = Native.prototype;
    for (const name of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
        Object.defineProperty(Counted, name, {value: Native[name]});
    }
    window.WebSocket = Counted;
})();
"""
TIMEOUT_MS = 600_000


_PAGE_ERRORS: list[str] = []  # errors thrown in the page (a chart that fails to draw)


def _settle(page, what: str) -> tuple[float, float]:
    """Seconds from the user's input to the app being idle again, and from the marked
    moment to the input (Playwright's part); an error shown on the page or thrown in it (a
    chart that could not be drawn is drawn faster) stops the run."""
    try:
        page.wait_for_function("() => window.__benchRan === true", polling=25, timeout=60_000)
    except Exception as exc:  # playwright's TimeoutError
        raise RuntimeError(f"{what}: the server sent nothing within 60 s") from exc
    handle = page.wait_for_function(_DONE_JS, arg=[QUIET_MS], polling=25, timeout=TIMEOUT_MS)
    seconds, before = (ms / 1000 for ms in handle.json_value())
    bad = page.get_by_test_id("stException").all_inner_texts()
    bad += page.get_by_test_id("stAlertContentError").all_inner_texts()
    if bad:
        raise RuntimeError(f"{what}: the app showed {bad}")
    if _PAGE_ERRORS:
        raise RuntimeError(f"{what}: the page threw {_PAGE_ERRORS}")
    return seconds, before


def _browser_action(page, action) -> None:
    from nearsim.settings import FIELD_SPECS

    kind, *args = action
    if kind == "rerun":  # Streamlit's keyboard shortcut, with nothing focused
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("r")
        return
    if kind == "nav":
        nav = page.get_by_test_id("stTopNav").get_by_test_id("stTopNavLink")
        nav.filter(has_text=args[0]).first.click()
        return
    if kind == "tab":
        page.get_by_role("tab", name=args[1], exact=True).click()
        return
    key = args[0]
    side = key in FIELD_SPECS
    box = page.get_by_test_id("stSidebar" if side else "stMain")
    label = FIELD_SPECS[key].label if side else PAGE_WIDGETS[key][0]
    if kind == "flip":
        box.get_by_role("switch", name=label, exact=True).locator(
            "xpath=ancestor::label[1]"
        ).click()
    elif kind == "slide":
        box.locator(f'input[type="range"][aria-label="{label}"]').focus()
        page.keyboard.press("ArrowRight" if args[1] > 0 else "ArrowLeft")
    else:
        field = box.get_by_test_id("stNumberInput").filter(
            has=page.get_by_role("spinbutton", name=label, exact=True)
        )
        field.get_by_test_id(f"stNumberInputStep{'Up' if args[1] > 0 else 'Down'}").click()


def _cold_page(server, browser, path: str, n_docs: int):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    page.on("pageerror", lambda exc: _PAGE_ERRORS.append(str(exc)))
    page.add_init_script(_COLD_INIT)
    page.goto(f"{server.base}{path}?n_docs={n_docs}")
    return ctx, page, _settle(page, f"opening {path}")


def browser_runs(n_docs: int, processes: int) -> dict:
    """Cold pages on fresh servers, then the plan in one tab; seconds per interaction."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e2e_server import CHROMIUM, AppServer, launch_chromium
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"the browser timings need Debian's chromium at {CHROMIUM}")
    out: dict = {"cold": [], "server_start": [], "runs": []}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for i in range(processes):
                for path, name in (("/", "Documents"), ("/results", "Results")):
                    started = time.perf_counter()
                    with AppServer() as server:
                        out["server_start"].append(time.perf_counter() - started)
                        ctx, page, (cold, _) = _cold_page(server, browser, path, n_docs)
                        out["cold"].append({"page": name, "seconds": cold})
                        print(f"browser cold {name}: {cold:.2f} s", file=sys.stderr)
                        if name == "Results" and i == processes - 1:
                            for group, action in plan(slow=False):
                                label = " ".join(str(a) for a in action)
                                page.evaluate(_MARK_JS)
                                _browser_action(page, action)
                                seconds, before = _settle(page, label)
                                print(
                                    f"browser {label}: {seconds:.2f} s (Playwright "
                                    f"{before:.2f} s before)",
                                    file=sys.stderr,
                                )
                                out["runs"].append({"group": group, "label": label,
                                                    "seconds": seconds,
                                                    "playwright": before})  # fmt: skip
                        ctx.close()
        finally:
            browser.close()
    return out


# -- the report -----------------------------------------------------------------------
ROWS = [  # group, what changes, page
    ("threshold_banding", "threshold t one step down (auto-tuned b × r follows)", "Banding"),
    ("threshold_results", "threshold t one step up (auto-tuned b × r follows)", "Results"),
    ("bands", "bands b one down (manual banding)", "Results"),
    ("rows", "rows per band r one down (manual banding)", "Banding"),
    ("fp_weight", "false-positive weight one step (re-tunes b × r)", "Banding"),
    ("recall", "recall target one step (the page's slider)", "Banding"),
    ("min_shingles", "minimum shingles one up (the validity mask)", "Results"),
    ("simhash", "SimHash distance one up", "Compare"),
    ("auto_tune", "“Pick bands and rows for me” toggled", "Results"),
    ("check", "cluster check toggled (the first computes the check)", "Clusters"),
    ("tab_results", "tab switch, first visit", "Results"),
    ("tab_results_again", "tab switch, visited before", "Results"),
    ("tab_minhash", "tab switch, first visit", "Shingles & MinHash"),
    ("tab_minhash_again", "tab switch, visited before", "Shingles & MinHash"),
    ("page_again", "page switch, page visited before", "any"),
    ("cached", "back to earlier settings (every stage cached; no goal)", "any"),
    ("rerun", "rerun, nothing changed (no goal)", "Results"),
]
SLOW = [
    ("slow_num_perm", "num_perm + 8 (signatures, re-tuned b × r, and all after)"),
    ("slow_hash_seed", "hash seed + 1 (signatures and all after)"),
    ("slow_shingle_k", "shingle length + 1 (shingles, tokens, signatures, join, all after)"),
    ("slow_lowercase", "lower-casing off (the same)"),
]


def _s(x: float) -> str:
    return f"{x:.2f} s" if x >= 0.995 else f"{x * 1000:.0f} ms"


def _spread(values: list[float]) -> str:
    if len(values) < 2:
        return "".join(_s(v) for v in values)
    return f"{_s(statistics.median(values))} ({_s(min(values))}–{_s(max(values))})"


def _stages(runs: list[dict]) -> str:
    """The stages these runs computed (median wall and CPU time), largest first; "rest"
    last, stages under 5 ms left out."""
    parts = []
    for name in {n for r in runs for n in r["stages"]}:
        had = [r for r in runs if name in r["stages"]]
        wall = statistics.median(r["stages"][name] for r in had)
        if wall < 0.005 and name != "rest":
            continue
        cpu = statistics.median(r["stage_cpu"][name] for r in had)
        part = f"{name} {_s(wall)} ({_s(cpu)} CPU)"
        part += f" in {len(had)} of {len(runs)}" if len(had) < len(runs) else ""
        parts.append((wall if name != "rest" else -1.0, part))
    return ", ".join(p for _, p in sorted(parts, reverse=True))


def _met(values: list[float], goal: float) -> str:
    if not values:
        return ""
    if max(values) < goal:
        return "yes"
    return "median only" if statistics.median(values) < goal else "**no**"


def report(data: dict) -> str:
    n, web = data["n_docs"], data.get("browser") or {"cold": [], "runs": [], "server_start": []}
    cold = [p["cold"] for p in data["apptest"]]
    session = next(p for p in data["apptest"] if "runs" in p)
    runs = session["runs"]

    def times(rs, key, value, group=None):
        return [r["seconds"] for r in rs if r[key] == value and group in (None, r.get("group"))]

    rows = []
    for page in ("Documents", "Results"):
        a, w = times(cold, "page", page), times(web["cold"], "page", page)
        rows.append(["cold: first page of a fresh process", page, a, w, GOAL_COLD])
    for group, what, page in ROWS:
        goal = None if group in ("cached", "rerun") else GOAL_CHANGE
        rows.append(
            [what, page, times(runs, "group", group), times(web["runs"], "group", group), goal]
        )
    table = markdown_table(
        [{"change": c, "page": p, "AppTest": _spread(a), "browser": _spread(w),
          "goal": f"< {g:g} s" if g else "", "met": _met(w or a, g) if g else ""}
         for c, p, a, w, g in rows],
        ["change", "page", "AppTest", "browser", "goal", "met"],
    )  # fmt: skip

    def first(r):
        what = r["label"].split(" ", 1 if r["label"].startswith("nav") else 2)[-1]
        w = times(web["runs"], "label", r["label"], r["group"])
        return {"first visit": what, "AppTest": _s(r["seconds"]), "browser": _spread(w),
                "computes (AppTest)": _stages([r])}  # fmt: skip

    first_table = markdown_table(
        [first(r) for r in runs if r["group"] in ("page_first", "tab_results", "tab_minhash")],
        ["first visit", "AppTest", "browser", "computes (AppTest)"],
    )
    slow = markdown_table(
        [{"change (Results, AppTest)": what, "time": _spread(times(runs, "group", g)),
          "stages recomputed": _stages([r for r in runs if r["group"] == g])} for g, what in SLOW],
        ["change (Results, AppTest)", "time", "stages recomputed"],
    )  # fmt: skip
    best = [min((c for c in cold if c["page"] == p), key=lambda c: c["seconds"])
            for p in ("Documents", "Results")]  # fmt: skip
    where = [(f"cold {c['page']}, fastest fresh process", [c]) for c in best]
    where += [(f"{what} ({page})", [r for r in runs if r["group"] == g]) for g, what, page in ROWS]
    stages = markdown_table(
        [{"run": label, "total": _spread([r["seconds"] for r in rs]),
          "CPU": _s(statistics.median(r["cpu"] for r in rs)), "stages (exclusive)": _stages(rs)}
         for label, rs in where if rs],
        ["run", "total", "CPU", "stages (exclusive)"],
    )  # fmt: skip
    load = data["load"]
    m = session["metrics"]
    browser = (
        f"Browser: Debian's chromium through Playwright, 1400 × 1000, load average before / "
        f"after {load['browser'][0]:.1f} / {load['browser'][1]:.1f}; the server's start-up "
        "(`python -m nearsim_app.explorer.serve`: the library's imports, then `streamlit run`, "
        "until "
        f"/_stcore/health answers; not in the cold figure) {_spread(web['server_start'])}. "
        "A change is timed from the user's input reaching the page (its pointer-down or "
        "key-down) to the app standing idle, every element drawn, after the server's last "
        "message; Playwright's own work before the input (finding the element, waiting for "
        "it to stand still) is not in it: "
        f"{_spread([r['playwright'] for r in web['runs'] if 'playwright' in r])}."
        if "browser" in load
        else "Browser: not run (`--no-browser`)."
    )
    busy = data.get("busy", 0)
    cores = {1: "one core", 2: "two cores"}.get(busy, f"{busy} cores")
    title = f"Explorer at {n:,} documents" + (f", {cores} kept busy" if busy > 0 else "")
    busy_words = (
        f"{busy} process{'es' if busy > 1 else ''} spinning in a loop (`--busy {busy}`) "
        "ran beside the server and the browser throughout, as on the busy two-core machine "
        "issue 9 was measured on; the machine-speed figures are taken without it.\n"
        if busy > 0
        else ""
    )
    return f"""## {title} (`benchmarks/bench_app.py{" --busy " + str(busy) if busy > 0 else ""}`)

{busy_words}{machine()}; load average (1 min) before / after the AppTest runs
{load["apptest"][0]:.1f} / {load["apptest"][1]:.1f}. The machine has 2 cores: above a load
of about 1 every wall time is inflated, so compare the rows of one run, not two runs; CPU
times suffer less. Example of {n:,} documents, every other setting at its default (char
5-grams, k = 128, t = 0.8, tuned {session["cold"]["b_r"][0]} × {session["cold"]["b_r"][1]}).
Kernels: {data["warm_up"]}.
AppTest: {len(cold) // 2} fresh processes per cold page; importing Streamlit and AppTest
(not in the cold figure) {_spread([p["import_seconds"] for p in data["apptest"]])}.
{_speed_words(data.get("speed"))}
{browser} Single changes: median (best–worst) of five, each to a value not seen before;
"met" judges the browser's median where there is one (issue 9: "in the browser"), else
AppTest's; "median only": the worst of the five missed it.

{table}

First visits: a page or tab opened for the first time computes the stages only it reads,
once per set of documents and settings; later visits are cached.

{first_table}

By design these recompute the signatures or the shingles and everything after them: not
the single changes the goal is about.

{slow}

Where the time goes (AppTest): each stage's own function, exclusive of the stages it reads,
median wall (and CPU) time over the runs; stages under 5 ms left out; "rest" is the page's
own code and charts, the sidebar and tuner, cache look-ups, Streamlit and AppTest.

{stages}

At the default settings: {m.get("Candidate pairs")} candidate pairs,
{m.get("True pairs (exact J ≥ t)")} true pairs, recall {m.get("Recall of the candidates")},
precision {m.get("Precision of the candidates")}; after the estimate filter recall
{m.get("Recall after the filter")}, precision {m.get("Precision after the filter")}.
"""


# -- screenshots ----------------------------------------------------------------------
def _scroll_to(page, locator, block: str, offset: int = 0) -> None:
    """Scroll an element into view (then ``offset`` px further down the page)."""
    locator.evaluate(
        """(el, [block, offset]) => {
            el.scrollIntoView({block});
            let box = el.parentElement;  // the first ancestor that scrolls (Streamlit's main)
            while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) {
                box = box.parentElement;
            }
            if (box) { box.scrollBy(0, offset); }
        }""",
        [block, offset],
    )
    page.wait_for_timeout(600)  # charts draw after the run


def screenshots(folder: Path) -> list[Path]:
    """One 1400×1000 PNG per page (the Example and settings a new user sees), two of
    Shingles & MinHash (a pair with its band grid; the worked example), and Banding at
    390 px wide (``narrow-banding.png``)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e2e_server import CHROMIUM, VIEWPORT, AppServer, launch_chromium, open_app, wait_idle
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"screenshots need Debian's chromium at {CHROMIUM}")
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def shot(page, name):
        page.mouse.move(0, page.viewport_size["height"] - 1)  # no hover effects
        out = folder / f"{name}.png"
        page.screenshot(path=str(out), animations="disabled")
        written.append(out)
        print(f"{out}: {out.stat().st_size / 1024:.0f} KiB")

    with AppServer() as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for viewport, pages in ((VIEWPORT, _pages()), ({"width": 390, "height": 844}, None)):
                ctx = browser.new_context(viewport=viewport, is_mobile=pages is None)
                ctx.set_default_timeout(180_000)
                for path, _title, _nav in pages or [("/banding", "", "narrow-banding")]:
                    page = ctx.new_page()
                    open_app(page, server.base + path)
                    page.wait_for_timeout(600)
                    name = "narrow-banding" if pages is None else path.strip("/") or "documents"
                    charts = page.get_by_test_id("stMain").get_by_test_id("stVegaLiteChart")
                    if name == "narrow-banding":  # the S-curve, which a legend used to squeeze
                        _scroll_to(page, charts.first, "start", -90)
                    if name == "minhash":
                        page.get_by_role("tab", name="A pair", exact=True).click()
                        wait_idle(page)
                        _scroll_to(page, charts.first, "center")  # the band grid
                        shot(page, "minhash")
                        page.get_by_role("tab", name="Worked example", exact=True).click()
                        wait_idle(page)
                        _scroll_to(page, page.get_by_role("tablist").first, "start", -70)
                        name = "minhash-worked"
                    shot(page, name)
                    page.close()
                ctx.close()
        finally:
            browser.close()
    return written


# -- main -----------------------------------------------------------------------------
def _speed_words(speed: list | None) -> str:
    if not speed:
        return ""
    (py0, nb0), (py1, nb1) = speed
    return (
        "This machine's speed, fixed work timed before / after the runs (fastest of three, "
        f"a fresh process): the Example generator at 20,000 documents (Python) {_s(py0)} / "
        f"{_s(py1)}, cutting its shingles (compiled, two threads) {_s(nb0)} / {_s(nb1)}."
    )


def _warm_up() -> str:
    compiled = byte_compile("nearsim", "pages")  # Streamlit compiles the pages itself
    cached = len(list((ROOT / "nearsim").rglob("*.nbi")))
    started = time.perf_counter()
    code = "from nearsim.explore import warm_up; warm_up()"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    took = time.perf_counter() - started
    state = "empty: compiled" if cached == 0 else f"{cached} kernel index files: loaded"
    took = f"{_s(took)} (numba's cache {state})"
    return f"`nearsim.explore.warm_up()` in its own process first, {took}. {compiled[:-1]}"


_SPEED_CODE = """
import json, time
from nearsim.hashing import text_shingles
from nearsim.io.example import example_corpus
texts = example_corpus(20000, 0)["text"].tolist()
text_shingles(texts[:10])  # load the kernels
python, compiled = [], []
for _ in range(3):
    t = time.perf_counter(); example_corpus(20000, 0); python.append(time.perf_counter() - t)
    t = time.perf_counter(); text_shingles(texts); compiled.append(time.perf_counter() - t)
print(json.dumps([min(python), min(compiled)]))
"""


def _machine_speed() -> list[float]:
    """Seconds (fastest of three, a fresh process) of two fixed pieces of work: generating
    the 20,000-document Example (Python) and cutting its shingles (compiled, two threads).
    Timed before and after the runs, they say how fast this shared machine was, so two
    runs of this benchmark can be compared."""
    out = subprocess.run(
        [sys.executable, "-c", _SPEED_CODE], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20_000, help="Example size (default 20,000)")
    ap.add_argument("--processes", type=int, default=3, help="fresh processes per cold page")
    ap.add_argument("--no-browser", action="store_true", help="AppTest only")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    ap.add_argument(
        "--busy",
        type=int,
        default=0,
        metavar="N",
        help="keep N cores busy (a process spinning in a loop each) while timing; written "
        "to its own section of RESULTS.md",
    )
    ap.add_argument("--json", type=Path, help="also save every measurement here")
    ap.add_argument("--screenshots", type=Path, metavar="DIR", help="only write screenshots")
    ap.add_argument(
        "--parts",
        choices=["example", "real", "real-browser"],
        default="example",
        help="example: the Example's 20,000 news items (default); real: installed documents "
        "in AppTest (benchmarks/_app_real.py); real-browser: the same in chromium "
        "(benchmarks/_app_browser_real.py); each its own section of RESULTS.md",
    )
    ap.add_argument("--real-docs", type=int, default=12_000, help="documents for --parts real")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.busy < 0:
        ap.error(f"--busy {args.busy}: accepted: 0 or more cores to keep busy")
    if args.child and args.child[0] == "real":
        from benchmarks._app_real import child as real_child

        Path(args.child[2]).write_text(json.dumps(real_child(args.child[1])))
        return
    if args.child:
        result = child(args.child[0], int(args.child[1]))
        Path(args.child[2]).write_text(json.dumps(result))
        return
    if args.screenshots:
        screenshots(args.screenshots)
        return
    if args.parts == "real":
        from benchmarks import _app_real

        byte_compile("nearsim", "pages")
        body = _app_real.report(_app_real.run(args.real_docs), machine())
        print(body) if args.no_write else write_section("app_real", body)
        return
    if args.parts == "real-browser":
        from benchmarks import _app_browser_real

        byte_compile("nearsim", "pages")
        body = _app_browser_real.report(_app_browser_real.run(args.real_docs), machine())
        print(body) if args.no_write else write_section("app_real_browser", body)
        return
    started = time.perf_counter()
    data: dict = {"n_docs": args.docs, "warm_up": _warm_up(), "apptest": [], "load": {}}
    data["speed"] = [_machine_speed()]
    data["busy"] = args.busy
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)
    ]
    try:
        load = os.getloadavg()[0]
        modes = ["documents", "results"] * (args.processes - 1) + ["documents", "session"]
        for mode in modes:
            data["apptest"].append(_fresh_process(mode, args.docs))
            print(f"AppTest cold ({mode}): {data['apptest'][-1]['cold']['seconds']:.2f} s",
                  file=sys.stderr)  # fmt: skip
        data["load"]["apptest"] = (load, os.getloadavg()[0])
        if not args.no_browser:
            load = os.getloadavg()[0]
            data["browser"] = browser_runs(args.docs, args.processes)
            data["load"]["browser"] = (load, os.getloadavg()[0])
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    data["speed"].append(_machine_speed())
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))
    body = report(data)
    print(f"took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.no_write:
        print(body)
    else:
        write_section("app_busy" if args.busy > 0 else "app", body)


if __name__ == "__main__":
    main()
