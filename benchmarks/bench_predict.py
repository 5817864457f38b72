"""Benchmark the corpus-aware prediction: ``nearsim.predict`` and ``nearsim.tune_for``.

Run from the repository root::

    python -m benchmarks.bench_predict            # writes the "predict" section
    python -m benchmarks.bench_predict --quick    # k up to 256 only

Inputs are generated here (seeded): a background of similarities from Beta(0.6, 8) with
weight 500 each (the sampled pairs) and a tail of 10 % from U(0.6, 1) with weight 1 (the
exact join), at several numbers of *distinct* similarities. Each timing is the best of
three after a warm-up call (numba's compiled code is cached on disk; the warm-up loads it).

For comparison, the direct method — the dynamic programme over bands run in
similarity space, vectorised over the distinct similarities with NumPy (state: agreements
so far × full band seen, the unused positions a binomial tail) — is timed for one
``predict`` and checked to give the same numbers. ``nearsim`` instead conditions on the
number of agreeing positions, which separates the corpus (one pass) from the banding (a
programme that does not depend on the similarities).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import binom

import nearsim as ns
from benchmarks._report import machine, markdown_table, write_section

T = 0.8


def corpus(distinct: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    tail = max(1, distinct // 10)
    s = np.concatenate([rng.beta(0.6, 8, distinct - tail), rng.uniform(0.6, 1.0, tail)])
    w = np.concatenate([np.full(distinct - tail, 500.0), np.ones(tail)])
    return s, w


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    out = fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def direct(s: np.ndarray, w: np.ndarray, t: float, b: int, r: int, k: int) -> tuple:
    """The similarity-space programme: (candidates, accepted), NumPy over the similarities."""
    band = binom.pmf(np.arange(r + 1)[None, :], r, s[:, None])  # (S, r + 1)
    none = np.zeros((s.shape[0], b * r + 1))  # no full band yet, by agreements so far
    some = np.zeros_like(none)  # a full band seen
    none[:, 0] = 1.0
    for i in range(b):
        n = i * r
        new_none = np.zeros_like(none)
        new_some = np.zeros_like(some)
        for x in range(r + 1):
            new_some[:, x : n + x + 1] += some[:, : n + 1] * band[:, x : x + 1]
            if x == r:
                new_some[:, x : n + x + 1] += none[:, : n + 1] * band[:, x : x + 1]
            else:
                new_none[:, x : n + x + 1] += none[:, : n + 1] * band[:, x : x + 1]
        none, some = new_none, new_some
    c = int(np.argmax(np.arange(k + 1) / k >= t))
    need = c - np.arange(b * r + 1)  # unused agreements needed to reach c
    tail = binom.sf(need[None, :] - 1, k - b * r, s[:, None])
    return float(w @ some.sum(axis=1)), float(w @ (some * tail).sum(axis=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    ks = [64, 128, 256] if args.quick else [64, 128, 256, 512, 1024]
    rows = []
    for distinct in (3_000, 300_000):
        s, w = corpus(distinct)
        for k in ks:
            if distinct > 3_000 and k > 128:
                continue
            t_pred, _ = best_of(lambda s=s, w=w, k=k: ns.predict(s, w, T, 9, k // 9, k))
            t_tune, ranked = best_of(lambda s=s, w=w, k=k: ns.tune_for(s, w, T, k), repeats=1)
            top = ranked[0]
            rows.append(
                {
                    "distinct similarities": f"{distinct:,}",
                    "num_perm": k,
                    "(b, r) tried": len(ranked),
                    "predict (9 bands)": f"{t_pred * 1e3:.1f} ms",
                    "tune_for": f"{t_tune * 1e3:.0f} ms",
                    "best for recall ≥ 0.95": f"{top.b} × {top.r}",
                }
            )
    s, w = corpus(3_000)
    t_direct, (cand, acc) = best_of(lambda: direct(s, w, T, 9, 13, 128), repeats=1)
    t_ours, p = best_of(lambda: ns.predict(s, w, T, 9, 13, 128))
    agree = max(abs(cand - p.candidates) / p.candidates, abs(acc - p.accepted) / p.accepted)
    body = (
        "## predict\n\n"
        f"{machine()}. `python -m benchmarks.bench_predict`. Threshold {T}; background "
        "Beta(0.6, 8) weight 500, tail U(0.6, 1) weight 1.\n\n"
        + markdown_table(rows, list(rows[0]))
        + "\n\nOne `predict` (9 × 13 of 128, 3,000 distinct similarities): nearsim "
        f"{t_ours * 1e3:.1f} ms; the similarity-space programme in NumPy {t_direct:.2f} s "
        f"({t_direct / t_ours:.0f}× slower; relative difference of the results {agree:.1e}). "
        "`tune_for` runs that programme's equivalent once per r for every b, so its cost "
        "does not grow with the number of distinct similarities beyond one pass."
    )
    write_section("predict", body)


if __name__ == "__main__":
    main()
