"""What a segment holds, made from newly stored documents or merged from older segments.

A segment of n documents, d of them in the band tables (valid first occurrences of their
text), b bands, k signature positions:

| array | dtype, shape | bytes a document (k = 128, b = 9) |
|---|---|---|
| ``sig`` | uint32 (n, k) | 4·k = 512 |
| ``flags`` | uint8 (n,): bit 0 valid, bit 1 in the band tables | 1 |
| ``id_offsets``, ``id_bytes`` | int64 (n + 1,), uint8: UTF-8 ids | 8 + the id |
| ``copy_key0``, ``copy_key1``, ``copy_row`` | uint64, uint64, uint32 (d,), sorted by key | 20 |
| ``band_keys``, ``band_rows`` | uint64, uint32 (b, d); a band sorted by (key, row) | 12·b = 108 |
| ``text_offsets``, ``text_bytes`` | only with ``keep_texts``: the UTF-8 texts | 8 + the text |

A bucket's members in one segment are a run of equal keys, in row order: its size, first
and last member are two binary searches away, whatever its size.
"""

from __future__ import annotations

import numpy as np

VALID = np.uint8(1)
BANDED = np.uint8(2)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


def encode_strings(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as offsets (int64, n + 1) into their UTF-8 bytes (uint8); a lone surrogate
    is kept (``surrogatepass``), so every str comes back as it was."""
    encoded = [v.encode("utf-8", "surrogatepass") for v in values]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    return _offsets(lengths), np.frombuffer(b"".join(encoded), dtype=np.uint8)


def decode_strings(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray) -> list[str]:
    """The strings at ``rows`` of an (offsets, bytes) pair."""
    lo, hi = offsets[rows].tolist(), offsets[rows + 1].tolist()
    return [bytes(data[a:b]).decode("utf-8", "surrogatepass") for a, b in zip(lo, hi, strict=True)]


def new_segment(
    sig: np.ndarray,
    valid: np.ndarray,
    banded: np.ndarray,
    copy_keys: np.ndarray,
    band_keys: np.ndarray,
    ids: tuple[np.ndarray, np.ndarray],
    texts: tuple[np.ndarray, np.ndarray] | None,
) -> dict[str, np.ndarray]:
    """The arrays of a segment of newly stored documents, in position order.

    Parameters
    ----------
    sig : ndarray of uint32, shape (n, k)
    valid, banded : ndarray of bool, shape (n,)
    copy_keys : ndarray of uint64, shape (n, 2)
    band_keys : ndarray of uint64, shape (b, n)
    ids, texts : (offsets, bytes)
        As :func:`encode_strings` gives them; ``texts`` None unless the index keeps texts.

    Returns
    -------
    dict of str to ndarray
    """
    rows = np.flatnonzero(banded).astype(np.uint32)
    flags = valid.astype(np.uint8) | (banded.astype(np.uint8) * BANDED)
    by_key = np.lexsort((copy_keys[rows, 1], copy_keys[rows, 0]))
    b = band_keys.shape[0]
    keys = np.empty((b, rows.shape[0]), dtype=np.uint64)
    band_rows = np.empty((b, rows.shape[0]), dtype=np.uint32)
    for band in range(b):
        kb = band_keys[band, rows]
        order = np.argsort(kb, kind="stable")  # rows ascend within a key
        keys[band] = kb[order]
        band_rows[band] = rows[order]
    out = {
        "sig": sig,
        "flags": flags,
        "id_offsets": ids[0],
        "id_bytes": ids[1],
        "copy_key0": copy_keys[rows[by_key], 0],
        "copy_key1": copy_keys[rows[by_key], 1],
        "copy_row": rows[by_key],
        "band_keys": keys,
        "band_rows": band_rows,
    }
    if texts is not None:
        out["text_offsets"], out["text_bytes"] = texts
    return out


def _join_strings(parts: list[dict], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    lengths = [np.diff(p[f"{prefix}_offsets"]) for p in parts]
    data = np.concatenate([p[f"{prefix}_bytes"][: p[f"{prefix}_offsets"][-1]] for p in parts])
    return _offsets(np.concatenate(lengths)), data


def merge_segments(parts: list[dict]) -> dict[str, np.ndarray]:
    """One segment holding consecutive segments' documents (oldest first), in order.

    Each band's table is the stable sort by key of the tables laid end to end (rows
    shifted by the documents before them), so rows still ascend within a key.
    """
    shift = np.cumsum([0] + [p["flags"].shape[0] for p in parts[:-1]]).astype(np.uint32)
    copy_row = np.concatenate([p["copy_row"] + s for p, s in zip(parts, shift, strict=True)])
    k0 = np.concatenate([p["copy_key0"] for p in parts])
    k1 = np.concatenate([p["copy_key1"] for p in parts])
    by_key = np.lexsort((k1, k0))
    b = parts[0]["band_keys"].shape[0]
    d = copy_row.shape[0]
    keys = np.empty((b, d), dtype=np.uint64)
    band_rows = np.empty((b, d), dtype=np.uint32)
    for band in range(b):
        kb = np.concatenate([p["band_keys"][band] for p in parts])
        rb = np.concatenate([p["band_rows"][band] + s for p, s in zip(parts, shift, strict=True)])
        order = np.argsort(kb, kind="stable")
        keys[band] = kb[order]
        band_rows[band] = rb[order]
    out = {
        "sig": np.concatenate([p["sig"] for p in parts]),
        "flags": np.concatenate([p["flags"] for p in parts]),
        "copy_key0": k0[by_key],
        "copy_key1": k1[by_key],
        "copy_row": copy_row[by_key],
        "band_keys": keys,
        "band_rows": band_rows,
    }
    out["id_offsets"], out["id_bytes"] = _join_strings(parts, "id")
    if "text_offsets" in parts[0]:
        out["text_offsets"], out["text_bytes"] = _join_strings(parts, "text")
    return out


MERGE_LIMIT = 16_384
"""The most documents an add rewrites when it merges segments (about 10 MB at default
settings: 20–40 ms of CPU and one write). Segments that grow past half of it are
*sealed*: no add merges them again; :func:`nearsim.Index.compact` does, outside the adds."""


def tail_to_merge(counts: list[int], limit: int = MERGE_LIMIT) -> int:
    """Where the segments an add merges begin (``len(counts)``: none), by the binary-counter
    rule capped at ``limit`` documents: the newest segments are merged while the one before
    them holds no more documents than they do together and the merge would hold at most
    ``limit``.

    Segment sizes then at least double going back in time up to ``limit``, so adds of B
    documents keep at most log₂(limit / B) + 1 unsealed segments, each document is
    rewritten at most log₂(limit / B) times by adds, and no add rewrites more than
    ``limit`` documents. A segment of more than ``limit / 2`` documents is never merged by
    an add (it could only join a merge of at least as many newer documents, more than
    ``limit`` together): those sealed segments, and everything before the last of them,
    are left to :func:`nearsim.Index.compact`.
    """
    i = len(counts) - 1
    if i < 1:
        return len(counts)
    total = counts[i]
    while i > 0 and counts[i - 1] <= total and total + counts[i - 1] <= limit:
        total += counts[i - 1]
        i -= 1
    return i if i < len(counts) - 1 else len(counts)


def sealed_prefix(counts: list[int], limit: int = MERGE_LIMIT) -> int:
    """How many of the oldest segments no add will merge: up to and with the last one of
    more than ``limit / 2`` documents (see :func:`tail_to_merge`)."""
    big = [i for i, c in enumerate(counts) if 2 * c > limit]
    return big[-1] + 1 if big else 0
