"""``nearsim audit`` against the run it audits: time, memory and the intervals' widths.

    python -m benchmarks.bench_audit --work /tmp/bench-audit [--n 1000000] [--crawl 100000]
    python -m benchmarks.bench_audit --quick      # the goal only: the news part at 10⁶

Two corpora, each deduplicated by ``nearsim dedup`` and then audited by ``nearsim audit``
(a fresh process each, measured the way ``bench_corpus`` measures: wall, CPU, peak
resident memory, the load average before and after):

* ``--n`` short news items with planted edited copies (``nearsim.io.example._generate``,
  the corpus of ``bench_corpus``), default settings: the goal is an audit under a third of
  the run's time at 10⁶ documents; the widths of the 95% intervals at the default sample
  (2,000 removed documents; a recall sample of about √(2,000·n) documents compared with
  each other); and the same audit with ``--sample 10``: what starting the process,
  reading the run's table and counting the corpus's lines cost whatever the sample (the
  audit parses only the lines its samples need: :func:`nearsim.io.wanted.read_rows`);
* ``--crawl`` documents of the crawl with boilerplate copies, dated banners and a chain
  (``benchmarks.corpora.hot_bucket_corpus``), audited with ``--group-field source``: what
  the alarms say.

The machine is shared: the load average is written beside every timing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchmarks._report import byte_compile, machine, markdown_table, write_section
from benchmarks.bench_corpus import measure

PY = sys.executable


def _news(work: Path, n: int) -> Path:
    path = work / f"news-{n}.jsonl"
    if not path.exists():
        from nearsim.io.example import _generate

        df = _generate(n, 0)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for i, text in enumerate(df["text"].tolist()):
                fh.write(json.dumps({"id": f"doc-{i:08d}", "text": text}) + "\n")
        os.replace(tmp, path)
    return path


def _crawl(work: Path, n: int) -> Path:
    path = work / f"crawl-{n}.jsonl"
    if not path.exists():
        from benchmarks.corpora import hot_bucket_corpus

        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in hot_bucket_corpus(n, seed=0):
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    return path


def _audit(work: Path, name: str, corpus: Path, extra: list[str]) -> dict:
    out_audit = work / f"audit-{name}"
    audit = measure([PY, "-m", "nearsim", "audit", "--corpus", str(corpus), "--id-field", "id",
                     "--run", str(work / f"run-{name.split('-')[0]}"), "--out", str(out_audit),
                     "--quiet", *extra], work / f"audit-{name}.log")  # fmt: skip
    if audit["exit"]:
        raise SystemExit(f"audit failed: see {audit['log']}")
    return audit


def _pair(work: Path, name: str, corpus: Path, extra: list[str]) -> dict:
    out_run, out_audit = work / f"run-{name}", work / f"audit-{name}"
    run = measure([PY, "-m", "nearsim", "dedup", str(corpus), "--id-field", "id", "--out",
                   str(out_run), "--quiet", *extra], work / f"run-{name}.log")  # fmt: skip
    if run["exit"]:
        raise SystemExit(f"dedup failed: see {run['log']}")
    audit = measure([PY, "-m", "nearsim", "audit", "--corpus", str(corpus), "--id-field", "id",
                     "--run", str(out_run), "--out", str(out_audit), "--quiet", *extra],
                    work / f"audit-{name}.log")  # fmt: skip
    if audit["exit"]:
        raise SystemExit(f"audit failed: see {audit['log']}")
    result = json.loads((out_audit / "audit.json").read_text())
    return {"run": run, "audit": audit, "result": result}


def _row(name: str, job: str, m: dict) -> dict:
    return {
        "corpus": name,
        "job": job,
        "wall s": f"{m['wall']:.1f}",
        "CPU s": f"{m['cpu']:.1f}",
        "peak MB": f"{m['maxrss_mb']:,.0f}",
        "load before / after": f"{m['load_before']:.1f} / {m['load_after']:.1f}",
    }


def _iv(iv: dict) -> str:
    if iv["estimate"] is None:
        return "—"
    return (f"{iv['estimate']:.3f} [{iv['low']:.3f}, {iv['high']:.3f}] "
            f"(width {iv['high'] - iv['low']:.3f})")  # fmt: skip


def _stages(res: dict, run_cpu: float) -> str:
    """The audit's CPU seconds by stage of its pass, and reading + normalising against the
    run's whole CPU time."""
    cpu = res.get("cpu_seconds")
    if not cpu:
        return ""
    parts = ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
    floor = cpu["read"] + cpu["normalise"]
    return (
        f"\n  - the audit's CPU seconds by stage: {parts}; reading and normalising alone: "
        f"{floor:.1f} s = {floor / run_cpu:.2f} of the run's CPU time"
    )


def _repeated(repeats: int, one) -> dict:
    """``one()`` (a run and its audit) ``repeats`` times; the pair of median wall ratio,
    with every pair's ratios beside it."""
    pairs = [one() for _ in range(repeats)]
    ratios = [(p["audit"]["wall"] / p["run"]["wall"], p["audit"]["cpu"] / p["run"]["cpu"])
              for p in pairs]  # fmt: skip
    median = sorted(range(repeats), key=lambda i: ratios[i][0])[(repeats - 1) // 2]
    return pairs[median] | {"ratios": ratios}


def _spread(job: dict) -> str:
    ratios = job.get("ratios", [])
    if len(ratios) < 2:
        return ""
    wall, cpu = sorted(r[0] for r in ratios), sorted(r[1] for r in ratios)
    return (
        f"\n  - over {len(ratios)} runs and audits, alternating (the table shows the one of "
        f"median wall ratio): audit / run {wall[0]:.2f}–{wall[-1]:.2f} by wall time (median "
        f"{wall[(len(wall) - 1) // 2]:.2f}), {cpu[0]:.2f}–{cpu[-1]:.2f} by CPU (median "
        f"{cpu[(len(cpu) - 1) // 2]:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="/tmp/bench-audit")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--crawl", type=int, default=100_000)
    parser.add_argument(
        "--parts", default="news,crawl", help="comma-separated parts to run: news (the goal), crawl"
    )
    parser.add_argument("--quick", action="store_true", help="the same as --parts news")
    parser.add_argument(
        "--repeats", type=int, default=1,
        help="run and audit this many times each, alternating (the machine's timings move "
        "by 10-15%% between runs minutes apart); the table shows the run of median wall ratio",
    )  # fmt: skip
    args = parser.parse_args()
    parts = {"news"} if args.quick else {p.strip() for p in args.parts.split(",") if p.strip()}
    if not parts or parts - {"news", "crawl"}:
        parser.error(f"--parts {args.parts!r}: accepted: news, crawl, or both")
    if args.repeats < 1:
        parser.error(f"--repeats {args.repeats}: accepted: an integer of at least 1")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    compiled = byte_compile("nearsim")
    # a warm-up pair compiles and caches the numba kernels outside the timings
    _pair(work, "warm", _news(work, 3000), [])
    jobs = {}
    if "news" in parts:
        jobs[f"{args.n:,} news items"] = _repeated(
            args.repeats, lambda: _pair(work, "news", _news(work, args.n), [])
        )
        # the same audit with the smallest sample: starting and counting, whatever the sample
        floor = _audit(work, "news-floor", _news(work, args.n), ["--sample", "10"])
        jobs[f"{args.n:,} news items"]["floor"] = floor
    if "crawl" in parts:
        jobs[f"{args.crawl:,}-document crawl"] = _repeated(
            args.repeats,
            lambda: _pair(work, "crawl", _crawl(work, args.crawl), ["--group-field", "source"]),
        )
    rows, lines = [], []
    for name, job in jobs.items():
        rows += [_row(name, "nearsim dedup", job["run"]), _row(name, "nearsim audit", job["audit"])]
        res = job["result"]
        ratio = job["audit"]["wall"] / job["run"]["wall"]
        lines.append(
            f"- **{name}**: audit / run = {ratio:.2f} by wall time "
            f"({job['audit']['cpu'] / job['run']['cpu']:.2f} by CPU, "
            f"{job['audit']['maxrss_mb'] / job['run']['maxrss_mb']:.2f} by peak memory). "
            f"Precision {_iv(res['precision'])} from {res['precision']['checked']:,} removed "
            f"documents; recall {_iv(res['recall'])} from {res['recall']['true_pairs']:,} true "
            f"pairs among {res['recall']['anchors']:,} sampled documents; "
            f"{res['sample']['pairs']:,} "
            f"pairs verified; {res['sample'].get('hashed', 0):,} documents given sorted hash "
            f"sets ({res['sample'].get('hashed', 0) / res['removed']['documents']:.1%}). "
            f"Alarms: {len(res['alarms'])}"
            + "".join(f"\n  - {a}" for a in res["alarms"][:6])
            + _spread(job)
            + _stages(res, job["run"]["cpu"])
            + (
                f"\n  - the same audit with `--sample 10` (starting, reading the run's table "
                f"and counting the corpus's lines, whatever the sample): "
                f"{job['floor']['cpu']:.1f} CPU s = "
                f"{job['floor']['cpu'] / job['run']['cpu']:.2f} of the run's CPU time "
                f"({job['floor']['wall']:.1f} s wall, load {job['floor']['load_before']:.1f})"
                if "floor" in job
                else ""
            )
        )
    body = (
        "## nearsim audit against the run it audits (bench_audit)\n\n"
        f"{machine()}; {compiled} Compare the audit with the run beside it (see the load "
        "averages), not across runs. Default settings (t = 0.8), default sample (2,000 "
        "removed documents; for recall about √(2,000·n) documents compared with each "
        "other), a fresh process each. "
        "Parts run: "
        + ", ".join(sorted(parts))
        + ".\n\n"
        + markdown_table(
            rows, ["corpus", "job", "wall s", "CPU s", "peak MB", "load before / after"]
        )
        + "\n\n"
        + "\n".join(lines)
    )
    write_section("audit", body)
    print(body)


if __name__ == "__main__":
    main()
