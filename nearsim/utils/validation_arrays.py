"""Array arguments checked at the public edge: similarities, masks, signature matrices,
pair arrays and tables, weights, estimates, fingerprints, labels, texts and shingle lists.

The scalar checks, the message wording and the ranges live in :mod:`nearsim.utils.validation`;
this module holds the checks whose subject is an array or a list of documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from nearsim.utils.validation import (
    MAX_DOCS,
    ArgumentTypeError,
    check_int,
    fail,
    is_int,
    pandas_types,
    shown,
)


def _real_array(value: Any, name: str, accepted: str) -> np.ndarray:
    """``value`` as a float64 array if it is a number or an array of real numbers."""
    if isinstance(value, bool | np.bool_ | str | bytes) or value is None:
        raise fail(name, value, accepted, wrong_type=True)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise fail(name, value, accepted, wrong_type=True) from None
    if arr.dtype.kind not in "iuf":
        raise fail(name, value, accepted, wrong_type=True)
    return arr.astype(np.float64, copy=False)


def check_similarity(value: Any, name: str = "s") -> np.ndarray:
    """Similarities: a real number or an array of real numbers, each from 0 to 1.

    Returns
    -------
    ndarray of float64
        Same shape as ``value`` (0-d for a scalar).
    """
    accepted = "a number or an array of numbers, each from 0 to 1"
    arr = _real_array(value, name, accepted)
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0.0 or arr.max() > 1.0):
        raise fail(name, value, accepted)
    return arr


def check_mask(value: Any, n: int, name: str = "valid") -> np.ndarray:
    """A boolean array of shape ``(n,)`` (one flag per document).

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    accepted = f"a boolean array of shape ({n},), one flag per document"
    arr = None
    if isinstance(value, (np.ndarray, list, tuple, *pandas_types("Series"))):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):  # ragged lists
            arr = None
    if arr is None or arr.dtype != np.bool_:
        raise fail(name, value, accepted, wrong_type=True)
    if arr.shape != (n,):
        raise fail(name, value, accepted)
    return arr


def check_signatures(value: Any, name: str = "signatures") -> np.ndarray:
    """A signature matrix: a 2-D integer array (uint32, or uint8 for 1-byte), k ≥ 1.

    Returns
    -------
    ndarray, shape (n, k)
        The array itself (no copy).
    """
    accepted = "a 2-D integer array (n documents × num_perm values, uint32 or uint8)"
    if not isinstance(value, np.ndarray):
        raise fail(name, value, accepted, wrong_type=True)
    if value.dtype.kind not in "iu":
        raise fail(name, value, accepted, wrong_type=True)
    if value.ndim != 2 or value.shape[1] == 0:
        raise fail(name, value, accepted)
    return value


def check_pairs(
    value: Any,
    name: str = "pairs",
    *,
    n: int | None = None,
    ordered: bool = True,
    unique: bool = True,
    distinct: bool = True,
) -> np.ndarray:
    """Pairs of document rows: integers, shape ``(m, 2)``, ``0 ≤ i < j < n``, no repeats.

    Parameters
    ----------
    value : array_like of int, shape (m, 2), or pandas.DataFrame with columns i, j
    name : str
    n : int, optional
        Number of documents; rows must be below it.
    ordered : bool
        Require ``i < j`` in every row (else any two rows, in either order, even equal).
    unique : bool
        Require no pair to appear twice.
    distinct : bool
        With ``ordered=False``: require ``i != j`` (``False`` also accepts a document
        paired with itself).

    Returns
    -------
    ndarray of int64, shape (m, 2)
    """
    bound = f"0 ≤ i < j < {n}" if n is not None else "0 ≤ i < j"
    if not ordered:
        bound = bound.replace("i < j", "i ≠ j" if distinct else "i, j")
    accepted = f"an integer array of shape (m, 2) with {bound}" + (", no repeats" if unique else "")
    if isinstance(value, pandas_types("DataFrame")):
        if not {"i", "j"} <= set(value.columns):
            raise fail(name, value, "a DataFrame with integer columns i and j", wrong_type=True)
        arr = value[["i", "j"]].to_numpy()
    elif isinstance(value, np.ndarray | list | tuple):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):  # ragged lists
            raise fail(name, value, accepted, wrong_type=True) from None
    else:
        raise fail(name, value, accepted, wrong_type=True)
    if arr.size == 0 and (arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] in (0, 2))):
        return np.empty((0, 2), dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise fail(name, value, accepted, wrong_type=True)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise fail(name, value, accepted)
    if arr.dtype.kind == "u" and int(arr.max()) > MAX_DOCS:
        raise fail(name, value, accepted)
    arr = arr.astype(np.int64, copy=False)
    i, j = arr[:, 0], arr[:, 1]
    high = MAX_DOCS if n is None else n - 1
    if int(arr.min()) < 0 or int(arr.max()) > high:
        raise fail(name, value, accepted)
    bad = (i >= j) if ordered else (i == j) & distinct
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} row {row} is ({int(i[row])}, {int(j[row])}), which is not accepted; "
            f"accepted: {accepted}"
        )
    if unique and arr.shape[0] > 1:
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        codes = np.sort(lo * np.int64(max(int(hi.max()) + 1, 1)) + hi)
        if np.any(codes[1:] == codes[:-1]):
            raise ValueError(
                f"{name} holds a pair twice, which is not accepted; accepted: {accepted}"
            )
    return arr


def check_pair_frame(
    value: Any, name: str, *, columns: Sequence[str] = ("i", "j"), n: int | None = None
) -> pd.DataFrame:
    """A DataFrame of pairs with (at least) the given columns; i, j as :func:`check_pairs`.

    Returns
    -------
    pandas.DataFrame
        The frame itself.
    """
    wanted = ", ".join(columns)
    if not isinstance(value, pandas_types("DataFrame")) or not set(columns) <= set(value.columns):
        raise fail(name, value, f"a pandas DataFrame with columns {wanted}", wrong_type=True)
    check_pairs(value, name, n=n, unique=False)
    for c in columns:
        if c in ("i", "j"):
            continue
        if value[c].dtype.kind not in "iuf":
            raise fail(name, value, f"numeric column {c!r}", wrong_type=True)
    return value


def check_texts(value: Any, name: str = "texts") -> list[str]:
    """Documents: an iterable of ``str`` (a list, a Series, a generator), as a list."""
    accepted = "a list of str, one per document"
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise fail(name, value, accepted, wrong_type=True)
    try:
        out = list(value)
    except TypeError:  # iterable in name only (a 0-d array)
        raise fail(name, value, accepted, wrong_type=True) from None
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise ArgumentTypeError(
                f"{name}[{i}] is a {type(t).__name__}, which is not accepted; accepted: {accepted}"
            )
    return out


def check_pair_weights(value: Any, n: int, name: str = "weight") -> np.ndarray:
    """Weights of ``n`` items (how many pairs each stands for): finite reals ≥ 0, shape (n,).

    ``None`` means 1 for every item.

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    accepted = f"None or an array of {n} finite numbers ≥ 0 (one per pair)"
    if value is None:
        return np.ones(n, dtype=np.float64)
    arr = _real_array(value, name, accepted)
    if arr.shape != (n,):
        raise fail(name, value, accepted)
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0.0):
        raise fail(name, value, accepted)
    return arr


def check_thresholds(value: Any, name: str = "thresholds") -> np.ndarray:
    """A grid of thresholds: a non-empty, strictly increasing 1-D array of numbers in (0, 1].

    Returns
    -------
    ndarray of float64, shape (g,)
    """
    accepted = "a non-empty, strictly increasing 1-D array of numbers in (0, 1]"
    arr = _real_array(value, name, accepted)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise fail(name, value, accepted)
    if arr.min() <= 0.0 or arr.max() > 1.0 or np.any(np.diff(arr) <= 0):
        raise fail(name, value, accepted)
    return arr


def check_pair_similarity(value: Any, name: str = "similarity") -> np.ndarray:
    """Similarities of m pairs: a 1-D array of numbers from 0 to 1.

    Returns
    -------
    ndarray of float64, shape (m,)
    """
    arr = check_similarity(value, name)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} has shape {arr.shape}, which is not accepted; accepted: a 1-D array of "
            "numbers from 0 to 1 (one per pair)"
        )
    return arr


def check_estimates(value: Any, m: int, name: str = "estimates") -> np.ndarray:
    """Similarity estimates of ``m`` pairs: a 1-D array of ``m`` finite numbers from 0 to 1.

    Returns
    -------
    ndarray of float64, shape (m,)
    """
    accepted = f"an array of {m:,} numbers from 0 to 1, one per pair"
    try:
        arr = check_similarity(value, name)
    except ArgumentTypeError:
        raise fail(name, value, accepted, wrong_type=True) from None
    except ValueError:
        raise fail(name, value, accepted) from None
    if arr.shape != (m,):
        raise fail(name, value, accepted)
    return arr


FINGERPRINT_MAX = (1 << 64) - 1
"""Largest 64-bit fingerprint."""


def check_fingerprint(value: Any, name: str) -> int:
    """One 64-bit fingerprint: an integer from 0 to 2**64 − 1 (not a bool), as an ``int``."""
    return check_int(value, name, low=0, high=FINGERPRINT_MAX)


def check_fingerprints(value: Any, name: str = "fingerprints") -> np.ndarray:
    """64-bit fingerprints, one per document, as a 1-D uint64 array.

    Accepted: a 1-D array, Series or Index of unsigned integers of any width (converted to
    uint64; a uint64 array is returned as it is); of signed integers when none is negative;
    a sequence of Python or NumPy integers from 0 to 2**64 − 1. Fingerprints stored as int64
    (databases, Parquet) can be negative: ``values.view(np.uint64)`` reinterprets their bits.

    Returns
    -------
    ndarray of uint64, shape (n,)
    """
    accepted = "a 1-D array of integers from 0 to 2**64 - 1 (uint64), one per document"
    x = value
    if isinstance(x, pandas_types("Series", "Index")):
        x = x.to_numpy()
    if not isinstance(x, np.ndarray):
        if isinstance(x, str | bytes | Mapping | set | frozenset) or not isinstance(x, Iterable):
            raise fail(name, value, accepted, wrong_type=True)  # a set has no order
        seq = list(x)
        if set(map(type, seq)) <= {int}:  # Python ints: converted, and range-checked, in C
            try:
                x = np.array(seq, dtype=np.uint64).reshape(len(seq))
            except OverflowError:  # below 0 or above 2**64 - 1
                raise fail(name, value, accepted) from None
        elif all(is_int(v) for v in seq):
            if not all(0 <= v <= FINGERPRINT_MAX for v in seq):
                raise fail(name, value, accepted)
            x = np.array([int(v) for v in seq], dtype=np.uint64).reshape(len(seq))
        else:
            try:
                x = np.asarray(seq)
            except (TypeError, ValueError):  # ragged sequences
                raise fail(name, value, accepted, wrong_type=True) from None
    if x.dtype.kind not in "iu":
        raise fail(name, value, accepted, wrong_type=True)
    if x.ndim != 1:
        raise fail(name, value, accepted)
    if x.dtype.kind == "i":
        if x.size and x.min() < 0:
            raise fail(
                name,
                value,
                accepted + "; 64-bit fingerprints stored as int64 have negative values: "
                "pass values.view(np.uint64)",
            )
        return x.astype(np.uint64)
    return x.astype(np.uint64, copy=False)


def check_labels(value: Any, name: str = "labels", n: int | None = None) -> np.ndarray:
    """A label per document: a 1-D array of integers ≥ 0 (of length ``n`` if given).

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    size = "" if n is None else f" of length {n}"
    accepted = f"a 1-D array of integers ≥ 0{size}, one label per document"
    if not isinstance(value, (np.ndarray, list, tuple, *pandas_types("Series"))):
        raise fail(name, value, accepted, wrong_type=True)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged lists
        raise fail(name, value, accepted, wrong_type=True) from None
    if arr.size == 0 and arr.ndim == 1:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise fail(name, value, accepted, wrong_type=True)
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        raise fail(name, value, accepted)
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > MAX_DOCS):
        raise fail(name, value, accepted)
    return arr.astype(np.int64, copy=False)


def _is_document(doc: Any) -> bool:
    """A sized collection of shingles: not a str, bytes or mapping; arrays 1-D."""
    if type(doc) is list:
        return True
    if isinstance(doc, (str, bytes, bytearray, Mapping, *pandas_types("DataFrame"))) or not hasattr(
        doc, "__iter__"
    ):
        return False  # a DataFrame iterates over its column names, not its rows
    if isinstance(doc, np.ndarray):
        return doc.ndim == 1
    return hasattr(doc, "__len__")


def check_shingle_sets(
    value: Any,
    name: str = "sets",
    *,
    accepted: str = "a list of shingle lists, one list of str per document",
    strings: bool = False,
) -> list:
    """Documents given as their shingles: a sequence of collections of ``str``.

    Parameters
    ----------
    value : object
        A list, tuple, Series or 1-D array (or another iterable) with one entry per
        document; each entry a list, tuple, set, frozenset or 1-D array of str.
    name : str
    accepted : str
        What to call the accepted values in messages (callers that also take other
        forms, such as prepared tokens, say so).
    strings : bool
        Also check every shingle is a ``str`` (one pass over all of them: callers do it
        only to name the bad one after a faster path failed).

    Returns
    -------
    list
        The documents (the input itself when it is a list).
    """
    if (
        isinstance(value, (str, bytes, bytearray, Mapping, *pandas_types("DataFrame")))
        or not hasattr(value, "__iter__")
        or (isinstance(value, np.ndarray) and value.ndim != 1)
    ):
        raise fail(name, value, accepted, wrong_type=True)
    docs = value if isinstance(value, list) else list(value)
    for k, doc in enumerate(docs):
        if not _is_document(doc):
            raise ArgumentTypeError(
                f"{name}[{k}]={shown(doc)} is not accepted; accepted: {accepted} "
                "(each document a list, tuple, set or array of str, e.g. from nearsim.shingling)"
            )
    if strings:
        for k, doc in enumerate(docs):
            for s in doc:
                if not isinstance(s, str):
                    raise ArgumentTypeError(
                        f"{name}[{k}] holds {shown(s)} of type {type(s).__name__}, which is "
                        f"not accepted; accepted: {accepted} (every shingle a str)"
                    )
    return docs


def check_shingle_list(value: Any, name: str = "shingles") -> list[str]:
    """One document's shingles: a list, tuple, set or 1-D array of ``str``, as a list.

    A ``str`` is not accepted (it is a text, not its shingles), nor a mapping or a
    DataFrame.

    Returns
    -------
    list of str
    """
    accepted = "a list of str (one document's shingles, e.g. from nearsim.shingling)"
    if not _is_document(value):
        raise fail(name, value, accepted, wrong_type=True)
    out = list(value)
    for s in out:
        if not isinstance(s, str):
            raise ArgumentTypeError(
                f"{name} holds {shown(s)} of type {type(s).__name__}, which is not accepted; "
                f"accepted: {accepted}"
            )
    return out
