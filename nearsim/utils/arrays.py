"""Small array helpers: popcount and little-endian 8-byte loads in compiled code, packed
segments, distinct values, pair codes, and NumPy arrays as Arrow arrays.

``np.unique`` on large int64 arrays is very slow in recent NumPy (seconds for a few
million values, against milliseconds for a sort), so the hot paths use these instead.

Pairs of documents (i, j) with i < j < n are coded as one int64, ``i * n + j``: codes sort
the way the pairs do (by i, then j), so a sorted array of distinct codes is a set of pairs
in which membership is one ``searchsorted``. These helpers take validated pairs
(:func:`nearsim.utils.validation_arrays.check_pairs`); they do no checking of their own.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
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


def pack_segments(values: np.ndarray, starts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Segments of ``values`` back to back: segment d is ``values[starts[d]:starts[d] +
    offsets[d + 1] - offsets[d]]`` and lands at ``out[offsets[d]:offsets[d + 1]]`` (each
    document's part of a buffer with room to spare, packed).

    Parameters
    ----------
    values : ndarray, shape (m,)
    starts : ndarray of int64, shape (n,)
    offsets : ndarray of int64, shape (n + 1,)
        Non-decreasing, from 0.

    Returns
    -------
    ndarray, shape (offsets[-1],), the dtype of ``values``
    """
    out = np.empty(int(offsets[-1]), dtype=values.dtype)
    _pack(values, starts, offsets, out)
    return out


@njit(cache=True, parallel=True)
def _pack(values, starts, offsets, out):
    for d in prange(offsets.shape[0] - 1):
        lo = offsets[d]
        out[lo : offsets[d + 1]] = values[starts[d] : starts[d] + offsets[d + 1] - lo]


def arrow_array(values: np.ndarray):
    """A NumPy array as an Arrow array over its buffer (bool as Arrow's packed bits).

    ``pyarrow.array(ndarray)`` imports pandas (0.25–0.3 s) to ask whether it was handed a
    pandas object; the command line's runs and audits never load pandas.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Booleans or numbers.

    Returns
    -------
    pyarrow.Array of length n, the matching Arrow type
    """
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), values.size, [None, bits])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, values.size, [None, pa.py_buffer(values)])


@njit(cache=True, inline="always")
def load_le64(buf, at):
    """The 8 bytes ``buf[at:at + 8]`` (uint8) as a little-endian uint64 (one load once
    compiled)."""
    w = np.uint64(0)
    for i in range(8):
        w |= np.uint64(buf[at + i]) << np.uint64(8 * i)
    return w


@njit(cache=True, nogil=True)
def grow(arr):
    """An int64 array twice as long starting with ``arr``'s values (for buffers that fill
    up in compiled code; an explicit loop compiles quickly)."""
    bigger = np.empty(arr.size * 2, np.int64)
    for k in range(arr.size):
        bigger[k] = arr[k]
    return bigger


#: Packed sort keys hold a 32-bit key prefix above a 32-bit row number (banding's buckets,
#: exact copies): sorting them groups the rows that may share a key.
HIGH32 = np.uint64(0xFFFFFFFF00000000)
LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, nogil=True)
def run_end(packed, s):
    """The end of the run of equal top 32 bits that starts at ``packed[s]`` in sorted packed
    keys (``packed[s:run_end(packed, s)]`` share their key prefix)."""
    top = packed[s] & HIGH32
    e = s + 1
    while e < packed.shape[0] and (packed[e] & HIGH32) == top:
        e += 1
    return e


def unique_int(
    values: np.ndarray, *, presorted_runs: bool = False, presorted: bool = False
) -> np.ndarray:
    """Sorted distinct values of a 1-D integer array.

    Parameters
    ----------
    values : ndarray of int, shape (m,)
    presorted_runs : bool
        The array is a concatenation of a few sorted runs; a stable sort (a merge of the
        runs) is then much faster.
    presorted : bool
        The array is sorted already (it is not sorted again, nor copied for it).

    Returns
    -------
    ndarray, shape (u,)
        Sorted, without repeats; same dtype as ``values``.
    """
    if presorted:
        s = values
    else:
        s = np.sort(values, kind="stable" if presorted_runs else None)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def pair_codes(pairs: np.ndarray, n: int) -> np.ndarray:
    """Code each pair (i, j) as ``i * n + j``.

    Parameters
    ----------
    pairs : ndarray of int64, shape (m, 2)
        Validated pairs, ``0 <= i, j < n``.
    n : int
        Number of documents (at most 2**31 − 1, so that codes fit in int64).

    Returns
    -------
    ndarray of int64, shape (m,)
        In the order of ``pairs``.

    Examples
    --------
    >>> pair_codes(np.array([[0, 1], [2, 3]]), 4).tolist()
    [1, 11]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return pairs[:, 0] * np.int64(n) + pairs[:, 1]


def sorted_codes(pairs: np.ndarray, n: int) -> np.ndarray:
    """Sorted distinct codes of ``pairs`` (see :func:`pair_codes`).

    Parameters
    ----------
    pairs : ndarray of int64, shape (m, 2)
    n : int

    Returns
    -------
    ndarray of int64, shape (u,)
        Sorted, without repeats.
    """
    return unique_int(pair_codes(pairs, n))


def code_rows(codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``(i, j)`` of pair codes: the inverse of :func:`pair_codes`.

    Parameters
    ----------
    codes : ndarray of int64, shape (m,)
    n : int

    Returns
    -------
    (ndarray of int64, ndarray of int64), each of shape (m,)
    """
    n = np.int64(max(n, 1))
    return codes // n, codes % n


def is_member(codes: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Which of ``codes`` occur in ``sorted_set`` (sorted int64 codes).

    Parameters
    ----------
    codes : ndarray of int64, shape (m,)
    sorted_set : ndarray of int64, shape (u,)
        Sorted ascending.

    Returns
    -------
    ndarray of bool, shape (m,)

    Examples
    --------
    >>> is_member(np.array([3, 5, 9]), np.array([1, 3, 9])).tolist()
    [True, False, True]
    """
    if sorted_set.shape[0] == 0:
        return np.zeros(codes.shape[0], dtype=bool)
    pos = np.searchsorted(sorted_set, codes)
    pos[pos == sorted_set.shape[0]] = 0
    return sorted_set[pos] == codes


class GrowingRows:
    """Rows appended batch by batch to one array that grows in place.

    ``ndarray.resize`` reallocates the array (glibc moves a large block's pages with
    ``mremap``, without copying them), so the signatures are never held twice: joining
    the batches with ``np.concatenate`` did, at the peak of a run (512 MB more at a
    million documents, k = 128). It grows by each batch exactly: ``resize`` zero-fills
    what it adds, so room kept ahead would be memory in use.
    """

    def __init__(self, tail: tuple[int, ...], dtype):
        self._rows = np.zeros((0, *tail), dtype=dtype)

    def append(self, part: np.ndarray) -> None:
        n = self._rows.shape[0]
        self._rows.resize((n + part.shape[0], *self._rows.shape[1:]), refcheck=False)
        self._rows[n:] = part

    def array(self) -> np.ndarray:
        """Every row appended so far (the array itself: appending again would move it)."""
        return self._rows


@njit(cache=True, nogil=True)
def sorted_overlap(x, y):
    """|x ∩ y| of two ascending arrays of distinct values, by merging them.

    Without branches on the comparison, which is a coin toss for two sets of hashes: a
    quarter faster than an if/elif merge on 100,000 pairs of news items' shingle sets."""
    i = j = common = 0
    nx, ny = x.shape[0], y.shape[0]
    while i < nx and j < ny:
        a, b = x[i], y[j]
        common += a == b
        i += a <= b
        j += b <= a
    return common
