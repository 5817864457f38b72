"""Small array helpers.

``np.unique`` on large int64 arrays is very slow in recent NumPy (seconds for a few
million values, against milliseconds for a sort), so the hot paths use these instead.
"""

from __future__ import annotations

import numpy as np


def unique_int(values: np.ndarray, *, presorted_runs: bool = False) -> np.ndarray:
    """Sorted distinct values of a 1-D integer array.

    Parameters
    ----------
    values : ndarray of int, shape (m,)
    presorted_runs : bool
        The array is a concatenation of a few sorted runs; a stable sort (a merge of the
        runs) is then much faster.

    Returns
    -------
    ndarray, shape (u,)
        Sorted, without repeats; same dtype as ``values``.
    """
    s = np.sort(values, kind="stable" if presorted_runs else None)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
