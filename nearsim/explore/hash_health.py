"""Is the hash healthy? A check of fingerprints, and a job board's broken hash to compare.

The job board's lesson: test the hash, not only the dedupe. :func:`hash_health` samples
documents and measures what a real 64-bit SimHash must show on unrelated text — a mean
pairwise distance near 32 of 64, no bit that never moves, no bit that copies another — and
says in plain words what is wrong. :func:`broken_simhash` reproduces, exactly, the
JavaScript hash of a job board's filter (31 real bits, many of them stuck), so the Compare
view can show what such a hash does to the same documents.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from nearsim.simhash import as_fingerprints, popcount_array
from nearsim.utils.validation import check_int
from nearsim.utils.validation_arrays import check_mask, check_texts


# =========================================================================== health report
@dataclass
class HashHealth:
    """How much information a set of fingerprints carries.

    Attributes
    ----------
    documents : int
        Fingerprints in the sample.
    mean_distance : float
        Mean Hamming distance over all pairs of the sample (NaN with fewer than 2). For
        unrelated documents and a good 64-bit hash it is near 32.
    median_distance : float
        The median; less moved than the mean by a few near-duplicates in the sample.
    bit_share : ndarray of float64, shape (64,)
        Share of sampled fingerprints with each bit set (bit 0 is the lowest).
    stuck_bits : list of int
        Bits that are the same in every sampled fingerprint (reported only when the sample
        has at least ``MIN_DOCS_FOR_BITS`` documents; a fair bit stays put over 20
        documents with probability 2**−19).
    copied_bits : list of tuple of int
        Pairs (a, b), a < b, of moving bits that are equal in every sampled fingerprint:
        b copies a (the job board's ``i % 31``). Same minimum sample as ``stuck_bits``.
    informative_bits : int
        Moving bits left after removing copies (64 for a healthy hash; the job board's had 20).
    status : str
        ``"ok"``, ``"suspect"`` or ``"broken"``.
    verdict : str
        One or two plain sentences.
    """

    documents: int
    mean_distance: float
    median_distance: float
    bit_share: np.ndarray = field(repr=False)
    stuck_bits: list
    copied_bits: list
    informative_bits: int
    status: str
    verdict: str


MIN_DOCS_FOR_BITS = 20


def _bits_matrix(fp: np.ndarray) -> np.ndarray:
    """(k, 64) uint8 matrix, column b = bit b."""
    return ((fp[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def hash_health(fingerprints, sample: int = 100, seed: int = 0, *, valid=None) -> HashHealth:
    """Check that fingerprints use 64 real bits, on a random sample of documents.

    The job board's lesson: test the hash, not only the dedupe. For unrelated documents each
    bit of a good SimHash is a fair coin independent of the others, so the distance between
    two documents is Binomial(64, 1/2): mean 32, standard deviation 4.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    sample : int
        Number of documents sampled (>= 2); all of them when n <= sample.
    seed : int
        Seed of the sample.
    valid : ndarray of bool, shape (n,), optional
        Sample only these documents (e.g. leave out those with no shingles, whose
        fingerprint is 0).

    Returns
    -------
    HashHealth

    Notes
    -----
    Status: "ok" when the mean distance is 28 to 36 and no bit is stuck or a copy;
    "broken" when 8 or more bits are stuck or copies (the job board's hash has 44); "suspect"
    otherwise. A low mean with every bit moving and no copies points at the
    documents rather than the hash: templated text, near-duplicates or very short documents
    (a tie in the vote gives 0) bring documents closer; the verdict says so. Stuck and
    copied bits are only judged with at least ``MIN_DOCS_FOR_BITS`` documents.
    """
    fp = as_fingerprints(fingerprints)
    sample = check_int(sample, "sample", low=2)
    seed = check_int(seed, "seed", low=0)
    v = None if valid is None else check_mask(valid, fp.shape[0])
    if v is not None:
        fp = fp[v]
    n = fp.shape[0]
    if n > sample:
        rng = np.random.default_rng(seed)
        idx = np.sort(rng.choice(n, size=sample, replace=False))
        fp = fp[idx]
    k = fp.shape[0]
    bits = _bits_matrix(fp)
    share = bits.mean(axis=0) if k else np.full(64, np.nan)
    if k >= 2:
        dists = np.concatenate(
            [popcount_array(np.ascontiguousarray(fp[a + 1 :] ^ fp[a])) for a in range(k - 1)]
        )
        mean = float(dists.mean())
        median = float(np.median(dists))
    else:
        mean = median = float("nan")
    stuck: list[int] = []
    copied: list[tuple[int, int]] = []
    informative = 64
    if k >= MIN_DOCS_FOR_BITS:
        stuck = [int(b) for b in np.flatnonzero((share == 0) | (share == 1))]
        moving = [b for b in range(64) if b not in set(stuck)]
        first_of: dict[bytes, int] = {}
        for b in moving:
            col = bits[:, b].tobytes()
            if col in first_of:
                copied.append((first_of[col], b))
            else:
                first_of[col] = b
        informative = len(first_of)
    status, verdict = _verdict(k, mean, stuck, copied, informative)
    return HashHealth(k, mean, median, share, stuck, copied, informative, status, verdict)


def _verdict(k, mean, stuck, copied, informative) -> tuple[str, str]:
    if k < 2:
        return "suspect", "Too few documents to judge the hash: at least 2 are needed."
    bits_checked = k >= MIN_DOCS_FOR_BITS
    defects = len(stuck) + len(copied)
    apart = f"documents are {mean:.1f} bits apart on average (about 32 of 64 expected)"
    note = (
        ""
        if bits_checked
        else f" With {k} documents the bits themselves can't be judged; use 20 or more."
    )
    if defects == 0 and 28 <= mean <= 36:
        moving = " and all 64 bits move" if bits_checked else ""
        return "ok", f"Healthy: {apart}{moving}.{note}"
    if defects == 0:
        if mean > 36:
            return "suspect", (
                f"Suspect: {apart}; more than 32 means the bits are not independent.{note}"
            )
        why = (
            "the sampled documents share much of their text (templates, boilerplate, "
            "near-duplicates) or are very short"
        )
        if bits_checked:
            why = "All 64 bits move and none copies another, so the hash looks sound: " + why
        else:
            why = why[0].upper() + why[1:]
        return "suspect", (
            f"Close documents: {apart}. {why}. Check the hash on unrelated documents.{note}"
        )
    problems = []
    if stuck:
        problems.append(
            "1 bit never changes" if len(stuck) == 1 else f"{len(stuck)} bits never change"
        )
    if copied:
        problems.append(
            "1 bit is a copy of another"
            if len(copied) == 1
            else f"{len(copied)} bits are copies of other bits"
        )
    what = "; ".join(problems)
    if defects >= 8:
        return "broken", (
            f"Broken hash: {what}, so only {informative} of 64 bits carry information, and "
            f"{apart}. Unrelated documents will look like near-duplicates."
        )
    return "suspect", (
        f"Suspect: {what}, and {apart}. Either the hash is weak or the sampled documents "
        "share most of their text; check the hash on unrelated documents."
    )


# =========================================================================== broken hash
@njit(cache=True, inline="always")
def _js_space(c):
    """ECMAScript WhiteSpace or LineTerminator (what ``/\\s/`` matches), a UTF-16 unit."""
    return (
        (c >= 9 and c <= 13)
        or c == 32
        or c == 0xA0
        or c == 0x1680
        or (c >= 0x2000 and c <= 0x200A)
        or c == 0x2028
        or c == 0x2029
        or c == 0x202F
        or c == 0x205F
        or c == 0x3000
        or c == 0xFEFF
    )


@njit(cache=True, inline="always")
def _broken_vote(v, h):
    for i in range(64):
        if (h >> (i % 31)) & 1:
            v[i] += 1
        else:
            v[i] -= 1


@njit(cache=True)
def _broken_kernel(units, offsets, out):
    for d in range(offsets.shape[0] - 1):
        lo = offsets[d]
        hi = offsets[d + 1]
        v = np.zeros(64, dtype=np.int64)
        h = np.int64(0)
        pos = lo
        while True:
            if pos == hi:  # the last token (possibly "")
                _broken_vote(v, h)
                break
            c = np.int64(units[pos])
            if _js_space(c):
                _broken_vote(v, h)
                h = np.int64(0)
                while pos < hi and _js_space(np.int64(units[pos])):
                    pos += 1
                continue
            h = (h * 31 + c) & 0xFFFFFFFF
            pos += 1
        fp = np.uint64(0)
        for i in range(64):
            if v[i] >= 0:
                fp |= np.uint64(1) << np.uint64(i)
        out[d] = fp


def broken_simhash(texts: Iterable[str]) -> np.ndarray:
    """A job board's broken SimHash, reproduced exactly — to show what a bad hash does.

    A port of its JavaScript::

        tokens = text.toLowerCase().split(/\\s+/)
        h = 0; for each UTF-16 code unit c: h = (h * 31 + c) >>> 0
        v[i] += (h & (1 << (i % 31))) ? 1 : -1      for i = 0..63
        bit i = v[i] >= 0

    Only 31 distinct bits (bit 31 + i copies bit i), many of which never move on English
    text. Lower-casing is ``str.lower`` (the same Unicode mapping as ``toLowerCase``);
    splitting follows JavaScript: leading or trailing white space gives an empty token,
    which votes like any other (h = 0), and an empty text is one empty token.

    Parameters
    ----------
    texts : iterable of str, length n

    Returns
    -------
    ndarray of uint64, shape (n,)
        Character i of the JavaScript's '0'/'1' string is bit i (bit 0 is the lowest).
    """
    encoded = [t.lower().encode("utf-16-le", "surrogatepass") for t in check_texts(texts)]
    lengths = np.fromiter((len(e) // 2 for e in encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    units = np.frombuffer(b"".join(encoded), dtype="<u2")
    out = np.empty(len(encoded), dtype=np.uint64)
    _broken_kernel(units, offsets, out)
    return out
