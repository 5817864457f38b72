"""Normalising ASCII documents in compiled code, the way :func:`nearsim.shingling.normalize` does.

Most documents of most corpora are pure ASCII, and for them Python's ``str.lower``, the
deletion of Unicode punctuation and ``" ".join(text.split())`` are byte operations: A-Z
to a-z; the ASCII characters whose category starts with "P"; the ASCII characters
``str.split`` splits on (tab, newline, vertical tab, form feed, carriage return, the
four separators 0x1C-0x1F, and space). :func:`normalise` applies them to the ASCII
documents of a laid-out buffer (others arrive already normalised in Python and are
copied), with the word layout of :func:`nearsim.hashing.flatten_texts`: a document of
at least k words is stored as its words joined by single spaces, a shorter one as its
normalised text, marked whole when it is not empty.
"""

from __future__ import annotations

import unicodedata

import numpy as np
from numba import njit, prange

from nearsim.utils.arrays import pack_segments

PUNCTUATION = np.array(
    [unicodedata.category(chr(c)).startswith("P") for c in range(128)], dtype=np.bool_
)
"""ASCII code points whose Unicode category starts with "P" (what ``remove_punctuation``
deletes)."""
WHITESPACE = np.array([chr(c).isspace() for c in range(128)], dtype=np.bool_)
"""ASCII code points ``str.split`` splits on."""


@njit(cache=True, inline="always")
def _one_pass(buf, lo, hi, out, lower, punct, collapse, spaces, drop):
    """Lower-case, delete punctuation and (``collapse``) join the words by single spaces,
    from ``buf[lo:hi]`` into ``out`` from ``lo``, in one pass; returns the end."""
    m = lo
    gap = False
    for x in range(lo, hi):
        c = buf[x]
        if punct and drop[c]:
            continue
        if lower and 65 <= c <= 90:
            c += 32
        if collapse and spaces[c]:
            gap = m > lo
            continue
        if gap:
            out[m] = 32
            m += 1
            gap = False
        out[m] = c
        m += 1
    return m


@njit(cache=True, parallel=True)
def _normalise(buf, offsets, is_ascii, lower, punct, collapse, word, k, spaces, drop, out,
               sizes, whole):  # fmt: skip
    for d in prange(offsets.shape[0] - 1):
        lo = offsets[d]
        hi = offsets[d + 1]
        if not is_ascii[d]:
            out[lo:hi] = buf[lo:hi]
            sizes[d] = hi - lo
            continue
        n = _one_pass(buf, lo, hi, out, lower, punct, collapse or word, spaces, drop)
        if word:
            words = 0
            for x in range(lo, n):  # words joined by single spaces: one more than spaces
                words += out[x] == 32
            words += n > lo
            if words < k:
                if not collapse:  # a short document keeps its own white space
                    n = _one_pass(buf, lo, hi, out, lower, punct, False, spaces, drop)
                whole[d] = n > lo
        sizes[d] = n - lo


def normalise(
    buf: np.ndarray,
    offsets: np.ndarray,
    is_ascii: np.ndarray,
    whole: np.ndarray,
    *,
    lowercase: bool,
    remove_punctuation: bool,
    collapse_whitespace: bool,
    word: bool,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Normalise the ASCII documents of ``buf`` (document d: ``buf[offsets[d]:offsets[d+1]]``).

    Parameters
    ----------
    buf : ndarray of uint8
        Documents back to back; the ASCII ones raw, the others already normalised.
    offsets : ndarray of int64, shape (n + 1,)
    is_ascii : ndarray of bool, shape (n,)
        Which documents to normalise here.
    whole : ndarray of bool, shape (n,)
        Word layout: set here for the ASCII documents (see the module text).
    lowercase, remove_punctuation, collapse_whitespace, word, k
        As in :func:`nearsim.hashing.flatten_texts`.

    Returns
    -------
    buf : ndarray of uint8
    offsets : ndarray of int64, shape (n + 1,)
    """
    n = offsets.shape[0] - 1
    out = np.empty_like(buf)
    sizes = np.empty(n, dtype=np.int64)
    _normalise(buf, offsets, is_ascii, lowercase, remove_punctuation, collapse_whitespace, word,
               k, WHITESPACE, PUNCTUATION, out, sizes, whole)  # fmt: skip
    new_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=new_offsets[1:])
    return pack_segments(out, offsets[:-1], new_offsets), new_offsets
