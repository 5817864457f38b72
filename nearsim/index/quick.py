"""A few documents signed and looked up with NumPy alone: a query in a fresh process.

A process that opens an index to check one document spent nearly all its time loading
numba and its compiled kernels (numba's import pulls in SciPy's BLAS bindings; each cached
kernel is then unpickled and linked), not reading the index. For a handful of documents the
same arithmetic in NumPy costs less than that loading, so :meth:`nearsim.Index.query`
answers up to :data:`QUICK_MAX` texts here, and loads numba only for larger batches.

Every step gives, bit for bit, what the compiled path gives (tested against
:func:`nearsim.run.signing.sign_batch` and :func:`nearsim.index.matching.match_batch`):

- **Shingles**: :func:`nearsim.shingles` (distinct, in order; the compiled kernel keeps
  distinct base hashes, which gives the same minima).
- **Base hashes**: MurmurHash3 x86_32, seed 0, of each shingle's UTF-8 bytes, vectorised
  over the shingles (4-byte blocks while a shingle has them, then its tail).
- **Signature**: position i is min over the shingles of ((a_i·(x mod p) + b_i) mod p),
  p = 2³¹ − 1, with a and b drawn as :class:`nearsim.MinHasher` draws them; a text with no
  shingle gets 2³² − 1 everywhere and is not valid.
- **Copy key**: MurmurHash3 x64_128, seed 0, of the normalised text as the kernels lay it
  out (word shingles of at least k words: the words joined by single spaces).
- **Band keys**: :func:`nearsim.banding.band_keys`' hash of each band's values.
- **Lookup**: each text alone (as a query takes it) against the mapped segments: its exact
  copy's first occurrence, else every stored member of each bucket it falls in — or, in a
  bucket of more than the bucket limit, the first and the latest member — kept when a whole
  band agrees and the estimate reaches the threshold.

Only the classic sketch with ``min_shingles`` ≤ 1 (the default) is done here; anything
else goes the compiled way (:func:`supported`).
"""

from __future__ import annotations

import numpy as np

from nearsim.index.stored import BatchMatches, Stored
from nearsim.settings import RunSettings
from nearsim.shingling import normalize, shingles

QUICK_MAX = 16
"""Queries of up to this many texts are answered with NumPy alone (one text: 1–2 ms warm,
as the compiled path; larger batches are faster compiled) …"""

QUICK_CHARS = 200_000
"""… and of at most this many characters together (a text's shingles are Python strings
here: a long one is signed faster by the compiled kernels, even counting their loading)."""
CHUNK = 4096
"""Distinct shingles whose k hash values are taken at once (4096 × 128 × 8 bytes = 4 MB)."""

MERSENNE_P = (1 << 31) - 1
EMPTY = np.uint32(0xFFFFFFFF)
_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def supported(run: RunSettings) -> bool:
    """Whether :func:`sign` gives the run's signatures (classic MinHash, min_shingles ≤ 1)."""
    return run.sketch == "minhash" and run.min_shingles <= 1


def worth_it(texts: list[str], run: RunSettings) -> bool:
    """Whether a query of ``texts`` goes this way: :func:`supported` settings, at most
    :data:`QUICK_MAX` texts of at most :data:`QUICK_CHARS` characters together."""
    return len(texts) <= QUICK_MAX and supported(run) and sum(map(len, texts)) <= QUICK_CHARS


# -- MurmurHash3 x86_32 of many byte strings at once -------------------------------------
def _rotl32(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix_k(k: np.ndarray) -> np.ndarray:
    k = k * np.uint32(0xCC9E2D51)
    k = _rotl32(k, 15)
    return k * np.uint32(0x1B873593)


def murmur3_32_many(items: list[bytes]) -> np.ndarray:
    """MurmurHash3 x86_32 (seed 0, unsigned) of each byte string; uint32, shape (m,).

    Equal to ``mmh3.hash(item, 0, signed=False)`` and to :func:`nearsim.hashing.murmur3_32`.
    """
    m = len(items)
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=m)
    if m == 0:
        return np.zeros(0, dtype=np.uint32)
    width = int(-(-int(lengths.max()) // 4) * 4) or 4
    data = np.frombuffer(b"".join(items), dtype=np.uint8)
    starts = np.zeros(m, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    cols = np.arange(width, dtype=np.int64)
    inside = cols[None, :] < lengths[:, None]
    padded = np.zeros((m, width), dtype=np.uint8)
    padded[inside] = data[(starts[:, None] + cols[None, :])[inside]]
    words = padded.reshape(m, width // 4, 4).astype(np.uint32)
    words = words[..., 0] | (words[..., 1] << 8) | (words[..., 2] << 16) | (words[..., 3] << 24)
    blocks = lengths // 4
    h = np.zeros(m, dtype=np.uint32)
    for j in range(int(blocks.max())):
        on = blocks > j
        x = h[on] ^ _mix_k(words[on, j])
        x = _rotl32(x, 13)
        h[on] = x * np.uint32(5) + np.uint32(0xE6546B64)
    tail = (lengths % 4) > 0
    if tail.any():  # the tail's bytes are the (zero-padded) word after the last block
        h[tail] ^= _mix_k(words[tail, blocks[tail]])
    h ^= lengths.astype(np.uint32)
    h ^= h >> np.uint32(16)
    h = h * np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h = h * np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


# -- MurmurHash3 x64_128 of one byte string (Python integers) -----------------------------
def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _fmix64(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _M64
    return k ^ (k >> 33)


_C1, _C2 = 0x87C37B91114253D5, 0x4CF5AD432745937F


def murmur3_x64_128(data: bytes) -> tuple[int, int]:
    """MurmurHash3 x64_128, seed 0, as (h1, h2): :func:`nearsim.copies.murmur3_x64_128`."""
    n = len(data)
    h1 = h2 = 0
    nblocks = n // 16
    for b in range(nblocks):
        k1 = int.from_bytes(data[16 * b : 16 * b + 8], "little")
        k2 = int.from_bytes(data[16 * b + 8 : 16 * b + 16], "little")
        h1 ^= (_rotl64((k1 * _C1) & _M64, 31) * _C2) & _M64
        h1 = (_rotl64(h1, 27) + h2) & _M64
        h1 = (h1 * 5 + 0x52DCE729) & _M64
        h2 ^= (_rotl64((k2 * _C2) & _M64, 33) * _C1) & _M64
        h2 = (_rotl64(h2, 31) + h1) & _M64
        h2 = (h2 * 5 + 0x38495AB5) & _M64
    tail = data[16 * nblocks :]
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        h2 ^= (_rotl64((k2 * _C2) & _M64, 33) * _C1) & _M64
    if tail:
        k1 = int.from_bytes(tail[:8], "little")
        h1 ^= (_rotl64((k1 * _C1) & _M64, 31) * _C2) & _M64
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    h1, h2 = _fmix64(h1), _fmix64(h2)
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    return h1, h2


def laid_out(text: str, run: RunSettings) -> str:
    """The normalised text as the compiled kernels lay it out (what the copy key hashes)."""
    opts = run.shingle_options()
    norm = normalize(text, **{k: opts[k] for k in ("lowercase", "remove_punctuation",
                                                    "collapse_whitespace")})  # fmt: skip
    if opts["kind"] != "word":
        return norm
    words = norm.split()
    return norm if len(words) < opts["k"] else " ".join(words)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # the compiled path's message (nearsim.hashing)
        raise ValueError(
            f"texts holds a lone surrogate code point ({exc.object[exc.start]!r}), which is "
            f"not accepted; accepted: str of valid Unicode text"
        ) from None


def sign(texts: list[str], run: RunSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`nearsim.run.signing.sign_batch` for a few texts, with NumPy alone.

    Parameters
    ----------
    texts : list of str, length n
    run : RunSettings
        :func:`supported` must hold.

    Returns
    -------
    valid : ndarray of bool, shape (n,)
    signatures : ndarray of uint32, shape (n, num_perm)
    keys : ndarray of uint64, shape (n, 2)
    """
    k = run.num_perm
    rng = np.random.default_rng(run.hash_seed)  # as MinHasher draws them
    a = rng.integers(1, MERSENNE_P, size=k, dtype=np.uint64)
    b = rng.integers(0, MERSENNE_P, size=k, dtype=np.uint64)
    opts = run.shingle_options()
    sig = np.full((len(texts), k), EMPTY, dtype=np.uint32)
    keys = np.empty((len(texts), 2), dtype=np.uint64)
    for d, text in enumerate(texts):
        keys[d] = murmur3_x64_128(_utf8(laid_out(text, run)))
        items = [s.encode("utf-8") for s in shingles(text, **opts)]
        if not items:
            continue
        x = np.unique(murmur3_32_many(items)).astype(np.uint64) % np.uint64(MERSENNE_P)
        mins = np.full(k, MERSENNE_P, dtype=np.uint64)
        for lo in range(0, x.shape[0], CHUNK):  # (CHUNK, k) values at a time: bounded memory
            values = (a[None, :] * x[lo : lo + CHUNK, None] + b[None, :]) % np.uint64(MERSENNE_P)
            np.minimum(mins, values.min(axis=0), out=mins)
        sig[d] = mins.astype(np.uint32)
    return sig[:, 0] != EMPTY, sig, keys


def band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Every row's band keys, as :func:`nearsim.banding.band_keys`: uint64, shape (b, n)."""
    n = sig.shape[0]
    values = sig[:, : bands * rows].reshape(n, bands, rows).astype(np.uint64)
    h = np.full((n, bands), 0x9E3779B97F4A7C15, dtype=np.uint64)
    mul = np.uint64(0xBF58476D1CE4E5B9)
    for c in range(rows):
        h = (h ^ values[:, :, c]) * mul
        h ^= h >> np.uint64(29)
    return np.ascontiguousarray(h.T)


def stored_copies(stored: Stored, keys: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The stored first occurrence of each masked row's text (its position), or −1: as
    :func:`nearsim.index.matching.stored_copies`, by binary searches in NumPy."""
    out = np.full(keys.shape[0], -1, dtype=np.int64)
    for s, seg in enumerate(stored.segments):
        k0, k1 = seg["copy_key0"], seg["copy_key1"]
        for d in np.flatnonzero(mask & (out < 0)).tolist():
            lo, hi = (
                np.searchsorted(k0, keys[d, 0], "left"),
                np.searchsorted(k0, keys[d, 0], "right"),
            )
            if hi > lo:  # sorted by (key0, key1): key1 ascends within equal key0
                at = lo + int(np.searchsorted(k1[lo:hi], keys[d, 1], "left"))
                if at < hi and k1[at] == keys[d, 1]:
                    out[d] = int(stored.starts[s]) + int(seg["copy_row"][at])
    return out


def candidates(stored: Stored, keys_b: np.ndarray, rows: np.ndarray, limit: int):
    """The stored documents each row is compared with, as (row, position) pairs.

    A row's bucket in a band holds the stored documents with that band's key; when it
    holds more than ``limit`` − 1 of them (the row makes it more than ``limit``), only its
    first and its latest member count, else all.

    Parameters
    ----------
    stored : Stored
    keys_b : ndarray of uint64, shape (b, n)
        Every row's band keys (:func:`band_keys`).
    rows : ndarray of int64, shape (r,)
        The rows to look up (valid, not exact copies of a stored text).
    limit : int
        The index's bucket limit.

    Returns
    -------
    (ndarray of int64, ndarray of int64), shape (m,) each
        The distinct (row, stored position) pairs, sorted by row, then position.
    """
    b = keys_b.shape[0]
    pairs_row, pairs_pos = [], []
    for band in range(b):
        q = keys_b[band, rows]
        total = np.zeros(rows.shape[0], dtype=np.int64)
        first = np.full(rows.shape[0], -1, dtype=np.int64)
        last = np.full(rows.shape[0], -1, dtype=np.int64)
        found = []
        for s, seg in enumerate(stored.segments):
            table = seg["band_keys"]
            if table.shape[1] == 0:
                continue
            lo = np.searchsorted(table[band], q, "left")
            hi = np.searchsorted(table[band], q, "right")
            got = hi > lo
            if not got.any():
                continue
            start = int(stored.starts[s])
            members = seg["band_rows"][band]
            new = got & (first < 0)
            first[new] = start + members[lo[new]].astype(np.int64)
            last[got] = start + members[hi[got] - 1].astype(np.int64)
            total += hi - lo
            found.append((s, lo, hi))
        hot = (total + 1 > limit) & (total > 0)
        for t in np.flatnonzero(hot).tolist():
            pairs_row += [rows[t], rows[t]]
            pairs_pos += [first[t], last[t]]
        for s, lo, hi in found:
            members = stored.segments[s]["band_rows"][band]
            start = int(stored.starts[s])
            for t in np.flatnonzero(~hot & (hi > lo)).tolist():
                got = start + members[lo[t] : hi[t]].astype(np.int64)
                pairs_row.append(np.full(got.shape[0], rows[t], dtype=np.int64))
                pairs_pos.append(got)
    parts_r = [np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in pairs_row]
    parts_p = [np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in pairs_pos]
    if not parts_r:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = np.unique(np.stack([np.concatenate(parts_r), np.concatenate(parts_p)], 1), axis=0)
    return pairs[:, 0], pairs[:, 1]


def match_solo(
    stored: Stored,
    sig: np.ndarray,
    valid: np.ndarray,
    keys: np.ndarray,
    *,
    bands: int,
    rows: int,
    threshold: float,
    bucket_limit: int,
) -> BatchMatches:
    """Each row alone against the stored documents: ``match_batch(..., solo=True)``.

    Parameters
    ----------
    stored : Stored
    sig : ndarray of uint32, shape (n, k)
    valid : ndarray of bool, shape (n,)
    keys : ndarray of uint64, shape (n, 2)
    bands, rows : int
    threshold : float
    bucket_limit : int

    Returns
    -------
    BatchMatches
        Ordered by row, then position; nothing is stored.
    """
    n, k = sig.shape
    copy_pos = stored_copies(stored, keys, valid) if stored.count else np.full(n, -1, np.int64)
    keys_b = band_keys(sig, bands, rows)
    bandable = np.flatnonzero(valid & (copy_pos < 0))
    row, pos = candidates(stored, keys_b, bandable, bucket_limit)
    other = stored.signatures(pos, k)
    equal = other == sig[row]
    same = equal.sum(axis=1).astype(np.int64)
    whole = equal[:, : bands * rows].reshape(-1, bands, rows).all(axis=2).any(axis=1)
    reach = np.arange(k + 1, dtype=np.float64) / k >= threshold
    keep = whole & reach[same]
    copies = np.flatnonzero(copy_pos >= 0)
    copy_same = (stored.signatures(copy_pos[copies], k) == sig[copies]).sum(axis=1)
    row = np.concatenate([row[keep], copies])
    position = np.concatenate([pos[keep], copy_pos[copies]])
    count = np.concatenate([same[keep], copy_same.astype(np.int64)])
    order = np.lexsort((position, row))
    copy = np.zeros(n, dtype=bool)
    copy[copies] = True
    return BatchMatches(
        row=row[order],
        position=position[order],
        earlier=np.full(row.shape[0], -1, dtype=np.int64),
        count=count[order],
        stored=np.zeros(n, dtype=bool),
        banded=np.zeros(n, dtype=bool),
        copy=copy,
        band_keys=keys_b,
    )


__all__ = [
    "QUICK_CHARS", "QUICK_MAX", "band_keys", "match_solo", "murmur3_32_many", "sign",
    "supported", "worth_it",
]  # fmt: skip
