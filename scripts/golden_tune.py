"""Regenerate tests/data/datasketch_tune.json: datasketch's (b, r) for the tuner sweep.

The sweep asks datasketch's own tuner (``datasketch.lsh._optimal_param``, what
``MinHashLSH(threshold, num_perm, weights)`` calls) for every threshold, signature length
and pair of weights in the grid below; ``tests/test_lsh.py`` checks ``nearsim.tune``
against the stored answers in milliseconds, and ``pytest -m live`` runs the same sweep
against datasketch itself (about 40 s). Run from the repository root:

    .venv/bin/python scripts/golden_tune.py
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import datasketch
from datasketch.lsh import _optimal_param

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "datasketch_tune.json"
THRESHOLDS = [0.001, 0.05, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.55, 0.6, 0.7, 0.75, 0.8, 0.85]
THRESHOLDS += [0.9, 0.95, 0.97, 0.99, 0.999, 1.0]
WEIGHTS = [(0.5, 0.5), (0.1, 0.9), (0.9, 0.1), (0.0, 1.0), (1.0, 0.0), (0.3, 0.7), (0.75, 0.25)]
NUM_PERM = [1, 2, 5, 16, 64, 128, 200, 256]


def sweep() -> list[dict]:
    """Every case of the grid with datasketch's answer."""
    return [
        {"threshold": t, "num_perm": k, "fp_weight": wfp, "fn_weight": wfn,
         "b": b, "r": r}
        for k, t, (wfp, wfn) in itertools.product(NUM_PERM, THRESHOLDS, WEIGHTS)
        for b, r in [_optimal_param(t, k, wfp, wfn)]
    ]  # fmt: skip


def main() -> None:
    cases = sweep()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps({"datasketch": datasketch.__version__, "cases": cases}, indent=0) + "\n"
    )
    print(f"wrote {len(cases)} cases from datasketch {datasketch.__version__} to {OUT}")


if __name__ == "__main__":
    main()
