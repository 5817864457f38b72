"""The "sketch-goals" section of RESULTS.md (``python -m benchmarks.bench_signatures
--parts goals``): just the figures the second sketch's goals are stated in, quickly
(about a minute on a quiet machine).

* SuperMinHash from raw text on long installed documents, MB of text per CPU-second
  (goal: at least 100, and 5× the classic text path before its rework);
* SuperMinHash's time on short news items over classic MinHash's (goal: at most 1.5);
* classic MinHash now against the code before the text-path rework (goal: at least
  1.5× faster on long documents), bit for bit the same signatures;
* SuperMinHash now against its kernel before it went level by level (``--smh-baseline``,
  8d55d6e, Algorithm 1's order): bit for bit the same signatures, and the time saved.

One numba thread; CPU seconds (``time.process_time``), best of ``--repeats`` rounds,
the tools interleaved in every round, so that a busy machine slows them alike. The code
before the rework (``--baseline``, a commit; ``none`` to skip it) is exported with ``git
archive`` into a temporary folder and timed in a subprocess in each round, on the same
texts (a pickle), its signatures compared with today's.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

import nearsim as ns
from benchmarks._report import machine, markdown_table, write_section
from benchmarks.corpora import real_documents
from nearsim.io.documents import example_corpus

K = 128
SEED = 1
BASELINE = "f1721c8"
"""The commit before the text path's rework (3e0d4f6, "a faster text path for both
sketches")."""

_CHILD = r"""
import pickle, sys, time
import numba
numba.set_num_threads(1)
import numpy as np
import nearsim as ns
texts, out = pickle.load(open(sys.argv[1], "rb")), sys.argv[2]
# f1721c8's MinHasher has no sketch argument
mh = ns.MinHasher(128, 1, **({} if sys.argv[3] == "minhash" else {"sketch": sys.argv[3]}))
mh.text_signatures(texts[:50])
print(__import__("os").path.dirname(ns.__file__))
t0 = time.process_time()
sig = mh.text_signatures(texts)
print(time.process_time() - t0)
np.save(out, sig)
"""


def _export(commit: str, folder: str) -> str:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    archive = subprocess.run(["git", "-C", root, "archive", commit, "nearsim"], check=True,
                             capture_output=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def _baseline_run(folder: str, texts_path: str, sig_path: str, sketch: str = "minhash") -> float:
    """The old code's CPU seconds, in a child started in ``folder``: ``python -c`` puts
    its working folder first on sys.path, before PYTHONPATH, so a child started from the
    repository imported today's nearsim instead (until 2026-12-03 13:10 UTC this check
    timed today's code against itself)."""
    env = {**os.environ, "PYTHONPATH": folder, "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", _CHILD, texts_path, sig_path, sketch], env=env,
                          cwd=folder, check=True, capture_output=True, text=True)  # fmt: skip
    first, seconds = done.stdout.split()[-2:]
    if os.path.realpath(first) != os.path.realpath(os.path.join(folder, "nearsim")):
        raise RuntimeError(f"the old code's child imported {first}, not {folder}")
    return float(seconds)


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def goals_part(args) -> None:
    numba.set_num_threads(1)
    load = [os.getloadavg()[0]]
    corpora = {
        "news": example_corpus(args.docs, seed=0)["text"].tolist(),
        "long": [d["text"] for d in real_documents(args.long_docs, seed=0)],
    }
    classic = ns.MinHasher(K, SEED)
    smh = ns.MinHasher(K, SEED, sketch="superminhash")
    for texts in corpora.values():
        classic.text_signatures(texts[:50])
        smh.text_signatures(texts[:50])
    best: dict[tuple[str, str], float] = {}
    same, same_smh = {}, {}
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp2:
        base = None if args.baseline == "none" else _export(args.baseline, tmp)
        smh_base = None if args.smh_baseline == "none" else _export(args.smh_baseline, tmp2)
        paths = {}
        for name, texts in corpora.items():
            paths[name] = os.path.join(tmp, f"{name}.pkl")
            with open(paths[name], "wb") as f:
                pickle.dump(texts, f)
        for _ in range(args.repeats):
            for name, texts in corpora.items():
                runs = {
                    "classic": lambda t=texts: classic.text_signatures(t),
                    "superminhash": lambda t=texts: smh.text_signatures(t),
                }
                for tool, fn in runs.items():
                    t = _cpu(fn)
                    best[name, tool] = min(best.get((name, tool), np.inf), t)
                if base is not None:
                    sig_path = os.path.join(tmp, f"{name}-sig.npy")
                    t = _baseline_run(base, paths[name], sig_path)
                    best[name, "before"] = min(best.get((name, "before"), np.inf), t)
                    same[name] = bool((np.load(sig_path) == classic.text_signatures(texts)).all())
                if smh_base is not None:
                    sig_path = os.path.join(tmp, f"{name}-smh-sig.npy")
                    t = _baseline_run(smh_base, paths[name], sig_path, "superminhash")
                    best[name, "smh-before"] = min(best.get((name, "smh-before"), np.inf), t)
                    same_smh[name] = bool((np.load(sig_path) == smh.text_signatures(texts)).all())
            load.append(os.getloadavg()[0])
    mb = {n: sum(len(t.encode("utf-8", "surrogatepass")) for t in ts) / 1e6
          for n, ts in corpora.items()}  # fmt: skip
    rows = []
    for name in corpora:
        for tool in ("before", "classic", "smh-before", "superminhash"):
            if (name, tool) not in best:
                continue
            t = best[name, tool]
            rows.append({
                "corpus": name,
                "code": {"before": f"classic, before the rework ({args.baseline})",
                         "classic": "classic MinHash",
                         "smh-before": f"SuperMinHash, Algorithm 1's order ({args.smh_baseline})",
                         "superminhash": "SuperMinHash"}[tool],
                "CPU s": f"{t:.3f}",
                "MB / CPU-s": f"{mb[name] / t:.1f}",
                "time ÷ classic's": f"{t / best[name, 'classic']:.2f}",
            })  # fmt: skip
    goals = [
        ("SuperMinHash on long documents ≥ 100 MB / CPU-s",
         f"{mb['long'] / best['long', 'superminhash']:.1f}"),
        ("SuperMinHash ÷ classic on news items ≤ 1.5",
         f"{best['news', 'superminhash'] / best['news', 'classic']:.2f}"),
    ]  # fmt: skip
    if base is not None:
        goals += [
            ("classic: speed now over before the rework, long documents ≥ 1.5×",
             f"{best['long', 'before'] / best['long', 'classic']:.2f}×"),
            ("classic: speed now over before the rework, news items",
             f"{best['news', 'before'] / best['news', 'classic']:.2f}×"),
            ("SuperMinHash: speed over classic before the rework, long documents ≥ 5×",
             f"{best['long', 'before'] / best['long', 'superminhash']:.2f}×"),
            ("classic signatures the same as before, bit for bit", str(all(same.values()))),
        ]  # fmt: skip
    if smh_base is not None:
        goals += [
            ("SuperMinHash: speed over Algorithm 1's order, news items",
             f"{best['news', 'smh-before'] / best['news', 'superminhash']:.2f}×"),
            ("SuperMinHash: speed over Algorithm 1's order, long documents",
             f"{best['long', 'smh-before'] / best['long', 'superminhash']:.2f}×"),
            ("SuperMinHash signatures the same as Algorithm 1's order, bit for bit",
             str(all(same_smh.values()))),
        ]  # fmt: skip
    for goal, value in goals:
        print(f"{goal}: {value}")
    print(markdown_table(rows, list(rows[0])))
    body = "\n\n".join([
        "## The second sketch's goals (`benchmarks/bench_signatures.py --parts goals`)",
        f"{machine()}; load average {', '.join(f'{x:.1f}' for x in load)} (before the "
        "run and after each round; the machine is shared by several engineers, so compare "
        "figures within this table: the tools ran interleaved, one numba thread each, "
        f"best of {args.repeats} rounds by CPU time). k = 128, char 5-grams, from raw "
        f"text. news: {len(corpora['news']):,} items, {mb['news']:.1f} MB; long: "
        f"{len(corpora['long']):,} installed documents, {mb['long']:.1f} MB.",
        markdown_table(rows, list(rows[0])),
        markdown_table([{"goal": g, "measured": v} for g, v in goals], ["goal", "measured"]),
        "The old code runs in a child process started in its own exported folder, which "
        "checks where it imported nearsim from (before 2026-12-03 13:10 UTC the child, "
        "started from the repository, imported today's code, and the check compared it with "
        "itself).",
    ])  # fmt: skip
    write_section("sketch-goals", body)
