"""Small array helpers.

``np.unique`` on large int64 arrays is very slow in recent NumPy (seconds for a few
million values, against milliseconds for a sort), so the hot paths use these instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def popcount64(typingctx, x):
    """Population count of a uint64 in compiled code (LLVM ctpop)."""
    if x != types.uint64:
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True)
def grow(arr):
    """An int64 array twice as long starting with ``arr``'s values (for buffers that fill
    up in compiled code; an explicit loop compiles quickly)."""
    bigger = np.empty(arr.size * 2, np.int64)
    for k in range(arr.size):
        bigger[k] = arr[k]
    return bigger


def as_pairs(pairs, name: str = "pairs") -> np.ndarray:
    """Pairs of row numbers as an int64 array of shape (m, 2), or ``ValueError``.

    Parameters
    ----------
    pairs : array_like of int, shape (m, 2), or pandas.DataFrame with columns i, j
    name : str
        What to call the argument in messages.

    Returns
    -------
    ndarray of int64, shape (m, 2)
    """
    if isinstance(pairs, pd.DataFrame):
        if not {"i", "j"} <= set(pairs.columns):
            raise ValueError(f"{name} as a DataFrame needs columns i and j")
        arr = pairs[["i", "j"]].to_numpy()
    else:
        arr = np.asarray(pairs)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (m, 2), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer row numbers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


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
