"""One walk over a laid-out document's shingles, for both sketches (:func:`shingle_values`).

A document laid out by :func:`nearsim.hashing.flatten_texts` is cut into its shingles,
repeats included, in order, and each shingle becomes one number as it is cut, without
storing its span:

* classic MinHash (``sketch_values=False``): MurmurHash3 x86_32 (seed 0) of the
  shingle's UTF-8 bytes, the base hash that MinHash's family h_i(x) = (a_i·x + b_i) mod p
  is applied to (uint32);
* SuperMinHash (``sketch_values=True``): the shingle's own 64-bit value
  (:func:`sketch_value`; see :mod:`nearsim.superminhash`).

The walk is the same for both; only the value of a shingle differs. Character shingles
go by runs: where the next k characters are k ASCII bytes, the shingles that start there
are the low k bytes of a word that moves one byte a shingle, up to the next non-ASCII
byte (found by a scan; a document known to be ASCII is one run), so that no shingle's
start or end waits on loading the byte before it. Elsewhere the shingle's first and last
characters move on a character at a time, and a shingle of at most 8 bytes (7 for
SuperMinHash, whose short values are the bytes themselves) is read from that word. On
3,000 installed documents (1.4% non-ASCII bytes in the half that are not pure ASCII) this
took SuperMinHash's walk from 5.8 to 2.6 ns a byte on those documents (one thread, load 3).

One function with a flag rather than one per sketch: the flag is the same for every
shingle of a call, and the inner loop of a run is written out for each value, so that the
flag is tested once a run, not once a shingle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nearsim.hashing import _one_byte_chars, _utf8_step, murmur3_32, murmur3_word

_U64 = np.uint64
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's output function (Stafford's variant 13), a bijection of uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def sketch_value(buf, s, e):
    """SuperMinHash's 64-bit value x of the shingle ``buf[s:e]``: its n ≤ 7 bytes
    little-endian plus n·2⁵⁶, or for a longer one h = n, then h ← mix64(h ⊕ c) for each
    of its 8-byte little-endian chunks c (the last one padded with zeros)."""
    n = e - s
    if n <= 7:
        w = _U64(0)
        for i in range(n):
            w |= _U64(buf[s + i]) << _U64(8 * i)
        return w | (_U64(n) << _U64(56))
    h = _U64(n)
    t = s
    while t < e:
        w = _U64(0)
        for i in range(min(8, e - t)):
            w |= _U64(buf[t + i]) << _U64(8 * i)
        h = mix64(h ^ w)
        t += 8
    return h


@njit(cache=True, inline="always")
def _span(buf, s, e, sketch_values):
    if sketch_values:
        return sketch_value(buf, s, e)
    return _U64(murmur3_32(buf, s, e, np.uint32(0)))


@njit(cache=True, inline="always")
def _word(w, n, sketch_values):
    """The value of the shingle whose n bytes are the low bytes of ``w`` (n ≤ 7 for
    SuperMinHash, ≤ 8 for MinHash)."""
    if sketch_values:
        return (w & ((_U64(1) << _U64(8 * n)) - _U64(1))) | (_U64(n) << _U64(56))
    return _U64(murmur3_word(w, n))


@njit(cache=True)
def shingle_values(buf, lo, hi, word, whole, k, xs, sketch_values):
    """The value of every shingle of the laid-out document ``buf[lo:hi]``, repeats
    included, in order, into ``xs``; returns the count.

    Parameters
    ----------
    buf : ndarray of uint8
        Laid-out texts (:class:`nearsim.hashing.FlatTexts`).
    lo, hi : int
        The document's bytes.
    word, whole : bool
        Word shingles (words joined by single spaces); the document is one shingle.
    k : int
        Shingle length in characters (or words).
    xs : ndarray of uint32 (MinHash) or uint64 (SuperMinHash), length ≥ hi − lo + 1
    sketch_values : bool
        SuperMinHash's values (:func:`sketch_value`) instead of MurmurHash3.

    Returns
    -------
    int
        The number of shingles: 0 for an empty document; a document of fewer than k
        characters is one shingle, its whole text.
    """
    if lo == hi:
        return 0
    if whole:
        xs[0] = _span(buf, lo, hi, sketch_values)
        return 1
    wmax = 7 if sketch_values else 8
    count = 0
    if word:
        units = 0
        first = lo  # the shingle's first byte: a word on, once there are k
        pos = lo
        while pos < hi:  # words are separated by exactly one space (0x20)
            units += 1
            while pos < hi and buf[pos] != 0x20:
                pos += 1
            if units > k:
                while buf[first] != 0x20:
                    first += 1
                first += 1
            if units >= k:
                xs[count] = _span(buf, first, pos, sketch_values)
                count += 1
            pos += 1
        return count
    ascii_doc = _one_byte_chars(buf, lo, hi)
    if k > wmax and ascii_doc:  # long ASCII k-grams: each from its own bytes
        if hi - lo <= k:
            xs[0] = _span(buf, lo, hi, sketch_values)
            return 1
        for s in range(lo, hi - k + 1):
            xs[count] = _span(buf, s, s + k, sketch_values)
            count += 1
        return count
    end = min(lo + k, hi) if ascii_doc else lo  # the first shingle's end
    units = end - lo
    while units < k and end < hi:
        end += _utf8_step(buf[end])
        units += 1
    if units < k:
        xs[0] = _span(buf, lo, hi, sketch_values)
        return 1
    w = _U64(0)  # the 8 bytes from `first` (zeros past the end)
    for i in range(min(8, hi - lo)):
        w |= _U64(buf[lo + i]) << _U64(8 * i)
    first = lo
    low = (_U64(1) << _U64(8 * k)) - _U64(1) if k < 8 else _U64(0xFFFFFFFFFFFFFFFF)
    tag = _U64(k) << _U64(56)
    while True:
        if end - first == k and k <= wmax:  # k ASCII bytes: a run up to a non-ASCII one
            stop = hi if ascii_doc else end
            while stop < hi and buf[stop] < 0x80:
                stop += 1
            if sketch_values:
                for s in range(first, stop - k + 1):
                    xs[count] = (w & low) | tag
                    count += 1
                    w >>= _U64(8)
                    if s + 8 < hi:
                        w |= _U64(buf[s + 8]) << _U64(56)
            else:
                for s in range(first, stop - k + 1):
                    xs[count] = murmur3_word(w, k)
                    count += 1
                    w >>= _U64(8)
                    if s + 8 < hi:
                        w |= _U64(buf[s + 8]) << _U64(56)
            if stop >= hi:
                break
            first = stop - k + 1  # w holds the 8 bytes from here
            end = stop + _utf8_step(buf[stop])
            continue
        n = end - first
        xs[count] = _word(w, n, sketch_values) if n <= wmax else _span(buf, first, end,
                                                                      sketch_values)
        count += 1
        if end >= hi:
            break
        step = _utf8_step(buf[first])
        first += step
        w >>= _U64(8 * step)
        for i in range(8 - step, min(8, hi - first)):
            w |= _U64(buf[first + i]) << _U64(8 * i)
        end += _utf8_step(buf[end])
    return count
