"""What the Dask engine's workers do after reading: band records into pair codes, the join
that brings each candidate both documents' signatures, the filter, and min-label
propagation for clusters too large for the client.

Every function takes and returns NumPy arrays and pandas DataFrames (the partitions of
the shuffles :mod:`nearsim.run.dask_engine` sets up), so each can be run and tested alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from nearsim.banding import TooManyPairsError, band_keys, bucket_pair_count, emit_buckets
from nearsim.copies import copy_pairs
from nearsim.hashing import text_shingles
from nearsim.io.fields import EMPTY
from nearsim.run.dask_read import Part, partition_texts
from nearsim.settings import RunSettings
from nearsim.utils.arrays import unique_int

# -- bands: records shuffled by key, buckets turned into pair codes -----------------------
BAND_META = pd.DataFrame(
    {
        "key": np.zeros(0, np.uint64),
        "band": np.zeros(0, np.uint16),
        "row": np.zeros(0, np.int64),
    }
)
CODE_META = pd.DataFrame({"code": np.zeros(0, np.int64)})
KEY_META = pd.DataFrame(
    {"k1": np.zeros(0, np.uint64), "k2": np.zeros(0, np.uint64), "row": np.zeros(0, np.int64)}
)
LINK_META = pd.DataFrame({"first": np.zeros(0, np.int64), "copy": np.zeros(0, np.int64)})


# -- exact copies: keys shuffled, each copy linked to its first occurrence ------------------
def key_frame(part: Part, start: int, apart: str | None = None) -> pd.DataFrame:
    """The copy key and global row of every valid document of a partition; with a
    keep-apart field, only of those whose value is empty (a document with a value is
    banded, never linked as a copy, so that the rule sees its pairs)."""
    linkable = part.valid
    if apart is not None:
        linkable = linkable & (part.values(apart) == EMPTY)
    local = np.flatnonzero(linkable)
    return pd.DataFrame(
        {"k1": part.keys[local, 0], "k2": part.keys[local, 1], "row": start + local}
    )


def copy_links(df: pd.DataFrame) -> pd.DataFrame:
    """(first, copy) for every document of this shuffled partition of keys whose key an
    earlier row has (every key's documents are whole in one partition): the rows of
    :func:`nearsim.copies.copy_pairs`."""
    df = df.sort_values("row")
    rows = df["row"].to_numpy(np.int64)
    keys = np.stack([df["k1"].to_numpy(np.uint64), df["k2"].to_numpy(np.uint64)], axis=1)
    links = copy_pairs(keys)
    return pd.DataFrame({"first": rows[links[:, 0]], "copy": rows[links[:, 1]]})


def link_codes(df: pd.DataFrame, n: int) -> pd.DataFrame:
    """The links as pair codes ``first * n + copy``."""
    return pd.DataFrame({"code": df["first"].to_numpy(np.int64) * n + df["copy"].to_numpy()})


def band_frame(part: Part, settings: RunSettings, start: int, copies=None) -> pd.DataFrame:
    """One record per band of every valid document that is not a later exact copy:
    (band key, band, global row).

    The key is :func:`nearsim.banding.candidate_pairs`'s 64-bit hash of the band's values.
    ``copies`` is indexed by the global rows of this partition's later copies.
    """
    keep = part.valid.copy()
    if copies is not None and len(copies):
        keep[copies.index.to_numpy(np.int64) - start] = False
    rows = start + np.flatnonzero(keep).astype(np.int64)
    r, m = settings.rows, rows.shape[0]
    key = np.empty(m * settings.bands, dtype=np.uint64)
    for b in range(settings.bands):  # every row's keys, then the kept rows': the
        # signatures are not copied (they are 512 bytes a document, the keys 8)
        key[b * m : (b + 1) * m] = band_keys(part.signatures, b * r, b * r + r)[keep]
    frame = {
        "key": key,
        "band": np.repeat(np.arange(settings.bands, dtype=np.uint16), m),
        "row": np.tile(rows, settings.bands),
    }
    return pd.DataFrame(frame, copy=False)


def bucket_codes(df: pd.DataFrame, n: int, max_pairs: int, limit: int) -> pd.DataFrame:
    """Pair codes ``i * n + j`` (i < j) of the documents sharing a (band, key) bucket,
    under :func:`nearsim.banding.candidate_pairs`'s rule for buckets of more than ``limit``.

    Every bucket is whole in one shuffled partition. Codes repeat across partitions when a
    pair shares several bands; keys that collide are weeded out later, when the bands are
    compared value by value.

    Raises
    ------
    TooManyPairsError
        When the buckets of this partition would make more than ``max_pairs`` pairs.
    """
    key = df["key"].to_numpy()
    band = df["band"].to_numpy()
    row = df["row"].to_numpy()
    order = np.lexsort((row, band, key))
    key, band, row = key[order], band[order], row[order]
    change = (key[1:] != key[:-1]) | (band[1:] != band[:-1])
    bounds = np.concatenate([[0], np.flatnonzero(change) + 1, [key.shape[0]]]).astype(np.int64)
    sizes = np.diff(bounds)
    keep = sizes > 1
    count = bucket_pair_count(sizes[keep], limit)
    if count > max_pairs:
        raise TooManyPairsError(
            f"one partition of the band buckets would give {count:,} candidate pairs, more "
            f"than max_pairs={max_pairs:,} (its biggest bucket holds {int(sizes.max()):,} "
            "documents); raise the limit with --max-candidates"
        )
    se = np.stack([bounds[:-1][keep], bounds[1:][keep]], axis=1).ravel()
    codes = np.empty(count, dtype=np.int64)
    emit_buckets(row, se, n, codes, 0, limit)
    return pd.DataFrame({"code": unique_int(codes)})


# -- the join: each candidate meets both documents' signatures ----------------------------
_BINARY = pd.ArrowDtype(pa.large_binary())


def rows_as_bytes(rows: np.ndarray, *, at: np.ndarray | None = None, m: int | None = None):
    """Each row of a uint32 array as one binary value, without a copy per row.

    A shuffle moves one binary column several times faster than ``num_perm`` integer
    columns (Arrow converts and splits a frame column by column). With ``at`` (increasing
    positions) and ``m``, a column of ``m`` values holding ``rows[i]`` at ``at[i]`` and an
    empty value everywhere else.
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    width = 4 * rows.shape[1]
    if at is None:
        m = rows.shape[0]
        offsets = np.arange(0, (m + 1) * width, width, dtype=np.int64)
    else:
        held = np.zeros(m + 1, dtype=np.int64)
        held[np.asarray(at, dtype=np.int64) + 1] = width
        offsets = np.cumsum(held)
    array = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), m, [None, pa.py_buffer(offsets), pa.py_buffer(rows)]
    )
    return pd.Series(pd.arrays.ArrowExtensionArray(array))


def _binary_parts(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The byte width of each value of a binary column, and their bytes back to back."""
    array = pa.array(values.array)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    m = len(array)
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + m + 1]
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return np.diff(offsets), data


def _check_widths(widths: np.ndarray, k: int, empty: bool) -> None:
    wrong = (widths != 4 * k) & ~((widths == 0) & empty)
    if wrong.any():
        raise ValueError(
            f"a signature row of {int(widths[wrong][0])} bytes is not accepted; accepted: rows "
            f"of {4 * k} bytes (num_perm = {k})"
        )


def bytes_as_rows(values: pd.Series, k: int) -> np.ndarray:
    """The inverse of :func:`rows_as_bytes`: shape (m, k), uint32."""
    widths, data = _binary_parts(values)
    _check_widths(widths, k, empty=False)
    return data.view(np.uint32).reshape(widths.shape[0], k)


def attach_meta(exact: bool, apart: bool = False) -> pd.DataFrame:
    cols = {"b": np.zeros(0, np.int64), "code": np.zeros(0, np.int64)}
    cols["sig_a"] = pd.Series([], dtype=_BINARY)
    if exact:
        cols["text_a"] = pd.Series([], dtype=str)
    if apart:
        cols["apart_a"] = pd.Series([], dtype=str)
    return pd.DataFrame(cols)


def attach_first(
    df: pd.DataFrame,
    part: Part,
    start: int,
    n: int,
    exact: tuple | None,
    apart: str | None = None,
    bounds: tuple = (),
) -> pd.DataFrame:
    """The distinct candidates whose first document is in this partition, and that
    document's signature (for ``verify="exact"``, its text, read again; with a keep-apart
    field, its value) once for each row partition its candidates go to.

    ``df`` is indexed by pair code and holds the codes with ``code // n`` in this
    partition, repeats side by side. ``bounds`` are the first rows of the row partitions
    (where the candidates are shuffled to, by their second document). Only the first
    candidate of each (first document, destination) carries the signature; the others carry
    an empty value. A hot bucket's candidates share their first document (the bucket
    limit's rule pairs every member with the bucket's first ones): 250,000 dated copies of
    a banner made millions of candidates with one first document, and a copy of its
    signature on each (512 bytes) killed the workers of a 10⁶-document run at 3 GiB each.
    """
    codes = unique_int(df.index.to_numpy(dtype=np.int64))
    a = codes // n
    b = codes % n
    local = a - start
    bounds = np.asarray(bounds, dtype=np.int64)
    destination = np.searchsorted(bounds, b, side="right")
    _, owner = np.unique(a * (bounds.size + 1) + destination, return_index=True)
    out = pd.DataFrame({"b": b, "code": codes})
    out["sig_a"] = rows_as_bytes(part.signatures[local[owner]], at=owner, m=codes.shape[0])
    if exact is not None:
        pieces, reading = exact
        wanted, inverse = np.unique(local[owner], return_inverse=True)
        texts = np.full(codes.shape[0], "", dtype=object)
        texts[owner] = np.asarray(partition_texts(pieces, reading, wanted), dtype=object)[inverse]
        out["text_a"] = pd.Series(texts, dtype=str)
    if apart is not None:
        values = np.full(codes.shape[0], EMPTY, dtype=object)
        values[owner] = np.asarray(part.values(apart, local[owner]), dtype=object)
        out["apart_a"] = pd.Series(values, dtype=str)
    return out


def _owners(df: pd.DataFrame, a: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each candidate's first document arrived with its signature
    (:func:`attach_first` sends it once per first document and destination).

    Returns
    -------
    rows : ndarray, shape (u, k), uint32
        The signatures that arrived, one per first document.
    at : ndarray, shape (m,), int64
        For each candidate, the row of ``rows`` holding its first document's signature.
    own : ndarray, shape (u,), int64
        The candidates that carried them (their texts and keep-apart values too).
    """
    widths, data = _binary_parts(df["sig_a"])
    _check_widths(widths, k, empty=True)
    own = np.flatnonzero(widths)  # the empty values hold no bytes: the rest are back to back
    rows = data.view(np.uint32).reshape(own.shape[0], k)
    order = np.argsort(a[own], kind="stable")
    at = order[np.searchsorted(a[own], a, sorter=order)]
    return rows, at, own


def _compare(x, at, signatures: np.ndarray, rows: np.ndarray, bands: int, r: int):
    """For each t, rows x[at[t]] and signatures[rows[t]]: whether they are equal on at
    least one whole band, value by value, and how many positions agree. A block of rows at
    a time, so neither side is copied whole (4·k bytes a candidate each).

    Returns
    -------
    (ndarray of bool, ndarray of int64), shape (m,) each
    """
    m, used = at.shape[0], bands * r
    same = np.empty(m, dtype=bool)
    agree = np.empty(m, dtype=np.int64)
    step = 1 << 14
    for lo in range(0, m, step):
        hi = min(lo + step, m)
        eq = x[at[lo:hi]] == signatures[rows[lo:hi]]
        agree[lo:hi] = np.count_nonzero(eq, axis=1)
        same[lo:hi] = eq[:, :used].reshape(hi - lo, bands, r).all(axis=2).any(axis=1)
    return same, agree


def accepted_meta(exact: bool) -> pd.DataFrame:
    cols = {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)}
    cols["estimate"] = np.zeros(0, np.float64)
    if exact:
        cols["jaccard"] = np.zeros(0, np.float64)
    return pd.DataFrame(cols)


def verify_second(
    df: pd.DataFrame,
    part: Part,
    start: int,
    n: int,
    settings: RunSettings,
    verify: str,
    exact: tuple | None,
    links: bool = True,
    apart: str | None = None,
) -> tuple[pd.DataFrame, int, int]:
    """Candidates whose second document is in this partition: the bands compared value by
    value (a key collision makes no candidate; an exact copy's link, whose two signatures
    are equal, always passes), the MinHash estimate, and the filter; with a keep-apart
    field, a pair whose two documents share a non-empty value is never accepted.

    With ``links=False`` the pairs are not candidates but pairs to measure (a member and
    its cluster's kept document): no band is compared and nothing is filtered.

    Returns
    -------
    (pandas.DataFrame, int, int)
        The accepted pairs (a, b, estimate, and jaccard with ``verify="exact"``), sorted
        by (a, b); how many candidates there are; how many the filter accepted that the
        keep-apart field kept apart.
    """
    k = part.signatures.shape[1]
    b = df.index.to_numpy(dtype=np.int64)
    a = df["code"].to_numpy(dtype=np.int64) // n
    sig_a, at, own = _owners(df, a, k)
    same, agree = _compare(sig_a, at, part.signatures, b - start, settings.bands, settings.rows)
    del sig_a
    carried = own[at]  # the candidate that carried each one's first document's values
    if not links:
        same[:] = True
    a, b = a[same], b[same]
    m = a.shape[0]
    est = agree[same] / np.float64(k)  # = estimate_pairs, exactly (agreement_counts says)
    out = pd.DataFrame({"a": a, "b": b, "estimate": est})
    if not links:
        if verify == "exact":
            texts_a = df["text_a"].to_numpy(dtype=object)[carried]
            out["jaccard"] = _exact(texts_a, a, b, start, exact, settings)
        keep = np.ones(m, dtype=bool)
    elif verify == "estimate":
        keep = est >= settings.threshold
    elif verify == "exact":
        texts_a = df["text_a"].to_numpy(dtype=object)[carried[same]]
        out["jaccard"] = _exact(texts_a, a, b, start, exact, settings)
        keep = out["jaccard"].to_numpy() >= settings.threshold
    else:
        keep = np.ones(m, dtype=bool)
    kept_apart = 0
    if links and apart is not None:
        value = df["apart_a"].to_numpy(dtype=object)[carried[same]]
        together = (value != EMPTY) & (value == part.values(apart, b - start))
        kept_apart = int(np.count_nonzero(keep & together))
        keep &= ~together
    out = out[keep]
    order = np.lexsort((out["b"].to_numpy(), out["a"].to_numpy()))
    return out.iloc[order].reset_index(drop=True), m, kept_apart


def _exact(
    texts_a: np.ndarray, a: np.ndarray, b: np.ndarray, start: int, exact, settings: RunSettings
) -> np.ndarray:
    """Exact Jaccard of pairs (a, b) from their texts: a's shipped, b's read again here."""
    from nearsim.join.exact import pair_jaccard

    pieces, reading = exact
    ua, first, ia = np.unique(a, return_index=True, return_inverse=True)
    ub, ib = np.unique(b - start, return_inverse=True)
    texts = texts_a[first].tolist() + partition_texts(pieces, reading, ub)
    flat = text_shingles(texts, **settings.shingle_options())
    pairs = np.stack([ia, ua.shape[0] + ib], axis=1).astype(np.int64)
    return pair_jaccard(flat, pairs)


def accepted_frame(result: tuple[pd.DataFrame, int]) -> pd.DataFrame:
    return result[0]


def candidate_count(result: tuple[pd.DataFrame, int, int]) -> int:
    return result[1]


def apart_count(result: tuple[pd.DataFrame, int, int]) -> int:
    return result[2]


# -- clusters beyond the client: iterated min-label propagation ---------------------------
EDGE_META = pd.DataFrame({"node": np.zeros(0, np.int64), "other": np.zeros(0, np.int64)})
MESSAGE_META = pd.DataFrame({"to": np.zeros(0, np.int64), "label": np.zeros(0, np.int64)})


def edge_frame(result: tuple[pd.DataFrame, int], side: str) -> pd.DataFrame:
    """The accepted pairs as (node = ``side``'s document, other = the other document)."""
    pairs = result[0]
    other = "b" if side == "a" else "a"
    return pd.DataFrame(
        {"node": pairs[side].to_numpy(np.int64), "other": pairs[other].to_numpy(np.int64)}
    )


def first_labels(start: int, n: int) -> np.ndarray:
    """Every document its own label (its row)."""
    return np.arange(start, start + n, dtype=np.int64)


def label_messages(
    by_first: pd.DataFrame, by_second: pd.DataFrame, labels: np.ndarray, start: int
) -> pd.DataFrame:
    """Each node's label, sent to its neighbours along this partition's edges (both frames
    are indexed by a node of this partition)."""
    frames = [
        pd.DataFrame(
            {
                "to": e["other"].to_numpy(np.int64),
                "label": labels[e.index.to_numpy(np.int64) - start],
            }
        )
        for e in (by_first, by_second)
    ]
    return pd.concat(frames, ignore_index=True)


def lower_labels(labels: np.ndarray, messages: pd.DataFrame, start: int) -> tuple[np.ndarray, int]:
    """Each node's label lowered to the smallest label sent to it; and how many changed."""
    new = labels.copy()
    np.minimum.at(new, messages.index.to_numpy(np.int64) - start, messages["label"].to_numpy())
    return new, int((new != labels).sum())
