"""Normalising documents in compiled code, the way :func:`nearsim.shingling.normalize` does.

Most documents of most corpora are pure ASCII, and for them Python's ``str.lower``, the
deletion of Unicode punctuation and ``" ".join(text.split())`` are byte operations: A-Z
to a-z; the ASCII characters whose category starts with "P"; the ASCII characters
``str.split`` splits on (tab, newline, vertical tab, form feed, carriage return, the
four separators 0x1C-0x1F, and space). Most of the others are ASCII with a few other
characters (quotes, dashes, accented letters): for the Basic Multilingual Plane, a table
built once from Python's own ``str.lower``, ``str.isspace`` and ``unicodedata.category``
(:func:`unicode_tables`) says what each code point becomes, so they are normalised here
too, reading and writing UTF-8. A document is left to Python (``normalize``) when it
holds a code point the table cannot answer for: from U+20000 on, one of plane 1 that
``normalize`` changes (:func:`astral_specials`; the plane's others, emoji and
mathematical letters among them, are copied as they are), or, when lower-casing, one
whose lower case depends on its neighbours (Σ: σ or final ς), is two code points (İ) or
needs more bytes than it had (Ⱥ, Ⱦ) — :func:`normalise` reports those.

The layout is that of :func:`nearsim.hashing.flatten_texts`: a document of at least k
words (word shingles) is stored as its words joined by single spaces, a shorter one as
its normalised text, marked whole when it is not empty.
"""

from __future__ import annotations

import functools
import unicodedata

import numpy as np
from numba import njit, prange

from nearsim.utils.arrays import load_le64, pack_segments

PUNCTUATION = np.array(
    [unicodedata.category(chr(c)).startswith("P") for c in range(128)], dtype=np.bool_
)
"""ASCII code points whose Unicode category starts with "P" (what ``remove_punctuation``
deletes)."""
WHITESPACE = np.array([chr(c).isspace() for c in range(128)], dtype=np.bool_)
"""ASCII code points ``str.split`` splits on."""

SPACE = 1
"""Flag of :func:`unicode_tables`: ``str.isspace``."""
PUNCT = 2
"""Flag: the category starts with "P"."""
COMPLEX = 4
"""Flag: ``str.lower`` cannot be done from the table (see the module text)."""


@functools.cache
def unicode_tables() -> tuple[np.ndarray, np.ndarray]:
    """What each code point of the Basic Multilingual Plane is, for the kernel.

    Built on first use (about 0.06 s) from the running Python's Unicode data, so the
    kernel and :func:`nearsim.shingling.normalize` agree on every version.

    Returns
    -------
    flags : ndarray of uint8, shape (65536,)
        :data:`SPACE`, :data:`PUNCT` and :data:`COMPLEX` bits.
    lower : ndarray of uint16, shape (65536,)
        The lower case of each code point (itself where it has none).
    """
    flags = np.zeros(65536, dtype=np.uint8)
    lower = np.arange(65536, dtype=np.uint16)
    for c in range(65536):
        ch = chr(c)
        f = SPACE * ch.isspace() | PUNCT * unicodedata.category(ch).startswith("P")
        low = ch.lower()
        if len(low) != 1 or c == 0x03A3 or 0xD800 <= c < 0xE000:
            f |= COMPLEX
        elif low != ch:
            if ord(low) > 0xFFFF or _utf8_len(ord(low)) > _utf8_len(c):
                f |= COMPLEX
            else:
                lower[c] = ord(low)
        flags[c] = f
    return flags, lower


@functools.cache
def astral_specials() -> np.ndarray:
    """The code points of plane 1 (U+10000-U+1FFFF: emoji, mathematical letters, historic
    scripts) that ``normalize`` changes or deletes: those with a lower case of their own,
    white space or punctuation; sorted, uint32. The kernel copies the plane's other code
    points as they are and leaves a document with one of these (or a code point from
    U+20000 on) to Python. Built on first use (about 0.05 s), from the running Python's
    Unicode data."""
    out = [
        c for c in range(0x10000, 0x20000)
        if (ch := chr(c)).lower() != ch or ch.isspace() or unicodedata.category(ch)[0] == "P"
    ]  # fmt: skip
    return np.array(out, dtype=np.uint32)


def _utf8_len(c: int) -> int:
    return 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4


_HI = np.uint64(0x8080808080808080)
_LO7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_SPACES = np.uint64(0x2020202020202020)


def _bytes(c: int) -> np.uint64:
    return np.uint64(c * 0x0101010101010101)


_ADD_LT_20, _ADD_GE_09, _ADD_GE_0E = _bytes(0x60), _bytes(0x77), _bytes(0x72)
_ADD_GE_1C = _bytes(0x64)
_ADD_GE_41, _ADD_GE_5B = _bytes(0x3F), _bytes(0x25)


@njit(cache=True, inline="always")
def _store8(out, m, w):
    for i in range(8):
        out[m + i] = np.uint8((w >> np.uint64(8 * i)) & np.uint64(0xFF))


@njit(cache=True, inline="always")
def _ascii_block(w, lower, collapse):
    """Eight ASCII bytes (``w``, every high bit clear) normalised at once, SWAR: returns
    the bytes (white space made spaces when ``collapse``, A-Z made a-z when ``lower``),
    a high bit on each space, and False when a byte is a control character that is not
    white space (left to the byte-by-byte code). For a byte b < 0x80, b + c sets its
    high bit exactly when b ≥ 0x80 − c, and no sum carries into the next byte."""
    if collapse:
        ctrl = ~(w + _ADD_LT_20) & _HI  # bytes below 0x20
        if ctrl:
            # white space among them: 0x09-0x0D and 0x1C-0x1F (what str.split splits on)
            ws = ctrl & (((w + _ADD_GE_09) & ~(w + _ADD_GE_0E)) | (w + _ADD_GE_1C))
            if ws != ctrl:
                return w, np.uint64(0), False
            fill = (ws >> np.uint64(7)) * np.uint64(0xFF)
            w = (w & ~fill) | (_SPACES & fill)
    if lower:
        w |= ((w + _ADD_GE_41) & ~(w + _ADD_GE_5B) & _HI) >> np.uint64(2)
    t = w ^ _SPACES
    return w, ~(((t & _LO7) + _LO7) | t | _LO7), True


@njit(cache=True)
def _one_pass(buf, lo, hi, out, lower, punct, collapse, spaces, drop, flags, lowers, astral):
    """Lower-case, delete punctuation and (``collapse``) join the words by single spaces,
    from UTF-8 ``buf[lo:hi]`` into ``out`` from ``lo``, in one pass; returns the end, or
    −1 when the document must be normalised in Python.

    Without ``punct``, eight ASCII bytes at a time (:func:`_ascii_block`): stored whole
    unless two spaces meet (then byte by byte, each space after a space not counted);
    on long installed documents about three blocks in four are stored whole, and the
    pass went from 3.4 to about 1 ns a byte. Otherwise one character at a time: ASCII
    bytes without a branch on their kind (white space comes every few bytes, at random
    for the branch predictor): each is written as itself or a space, and the end moves on
    unless it was deleted or is a space after a space; a space left at the end is taken
    back. Other code points go through the tables of :func:`unicode_tables`.
    """
    m = lo
    after_space = True  # so that leading white space writes nothing
    x = lo
    block_from = lo if not punct else hi  # where eight bytes at a time may be tried again
    while x < hi:
        if x >= block_from and x + 8 <= hi:
            w = load_le64(buf, x)
            ok = (w & _HI) == 0
            if ok:
                w, sp, ok = _ascii_block(w, lower, collapse)
            if ok:
                x += 8
                if not collapse:
                    _store8(out, m, w)
                    m += 8
                    continue
                first = sp & np.uint64(0x80)
                if (sp & (sp << np.uint64(8))) == 0 and not (after_space and first):
                    _store8(out, m, w)
                    m += 8
                    after_space = (sp >> np.uint64(63)) != 0
                    continue
                for i in range(8):
                    c = np.uint8((w >> np.uint64(8 * i)) & np.uint64(0xFF))
                    out[m] = c
                    is_space = c == 32
                    m += np.int64(not (is_space and after_space))
                    after_space = is_space
                continue
            block_from = x + 8  # a character at a time for a while
        c = buf[x]
        if c < 0x80:
            x += 1
            gone = punct and drop[c]
            c += np.uint8(32) * np.uint8(lower and 65 <= c <= 90)
            sp = collapse and spaces[c]
            out[m] = 32 if sp else c
            m += np.int64(not gone and not (sp and after_space))
            after_space = after_space if gone else sp
            continue
        if c >= 0xF0:  # beyond U+FFFF: plane 1 but for astral_specials, copied as it is
            cp = ((np.int64(c) & 0x07) << 18) | ((np.int64(buf[x + 1]) & 0x3F) << 12) \
                | ((np.int64(buf[x + 2]) & 0x3F) << 6) | (np.int64(buf[x + 3]) & 0x3F)  # fmt: skip
            i = np.searchsorted(astral, cp)
            if cp >= 0x20000 or (i < astral.shape[0] and astral[i] == cp):
                return -1
            for t in range(4):
                out[m + t] = buf[x + t]
            m += 4
            x += 4
            after_space = False
            continue
        if c >= 0xE0:
            cp = ((np.int64(c) & 0x0F) << 12) | ((np.int64(buf[x + 1]) & 0x3F) << 6) \
                | (np.int64(buf[x + 2]) & 0x3F)  # fmt: skip
            x += 3
        else:
            cp = ((np.int64(c) & 0x1F) << 6) | (np.int64(buf[x + 1]) & 0x3F)
            x += 2
        f = flags[cp]
        if lower:
            if f & COMPLEX:
                return -1
            cp = np.int64(lowers[cp])
            f = flags[cp]
        if punct and f & PUNCT:
            continue
        if collapse and f & SPACE:
            out[m] = 32
            m += np.int64(not after_space)
            after_space = True
            continue
        after_space = False
        if cp < 0x80:  # K (Kelvin) lower-cases to k
            out[m] = cp
            m += 1
        elif cp < 0x800:
            out[m] = 0xC0 | (cp >> 6)
            out[m + 1] = 0x80 | (cp & 0x3F)
            m += 2
        else:
            out[m] = 0xE0 | (cp >> 12)
            out[m + 1] = 0x80 | ((cp >> 6) & 0x3F)
            out[m + 2] = 0x80 | (cp & 0x3F)
            m += 3
    if collapse and after_space and m > lo:  # a space at the end
        m -= 1
    return m


@njit(cache=True, parallel=True)
def _normalise(buf, offsets, lower, punct, collapse, word, k, spaces, drop, flags,
               lowers, astral, out, sizes, whole, python):  # fmt: skip
    for d in prange(offsets.shape[0] - 1):
        lo = offsets[d]
        hi = offsets[d + 1]
        n = _one_pass(buf, lo, hi, out, lower, punct, collapse or word, spaces, drop, flags,
                      lowers, astral)  # fmt: skip
        if n < 0:
            python[d] = True
            sizes[d] = 0
            continue
        if word:
            words = 0
            for x in range(lo, n):  # words joined by single spaces: one more than spaces
                words += out[x] == 32
            words += n > lo
            if words < k:
                if not collapse:  # a short document keeps its own white space
                    n = _one_pass(buf, lo, hi, out, lower, punct, False, spaces, drop, flags,
                                  lowers, astral)  # fmt: skip
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
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalise the documents of ``buf`` (document d: ``buf[offsets[d]:offsets[d+1]]``).

    Parameters
    ----------
    buf : ndarray of uint8
        The raw documents' UTF-8 bytes, back to back.
    offsets : ndarray of int64, shape (n + 1,)
    is_ascii : ndarray of bool, shape (n,)
        Which documents are ASCII (when all are, the tables are not built).
    whole : ndarray of bool, shape (n,)
        Word layout: set here (see the module text).
    lowercase, remove_punctuation, collapse_whitespace, word, k
        As in :func:`nearsim.hashing.flatten_texts`.

    Returns
    -------
    buf : ndarray of uint8
    offsets : ndarray of int64, shape (n + 1,)
    python : ndarray of bool, shape (n,)
        The documents left to Python: empty in ``buf``, their ``whole`` not set.
    """
    n = offsets.shape[0] - 1
    out = np.empty_like(buf)
    sizes = np.empty(n, dtype=np.int64)
    python = np.zeros(n, dtype=np.bool_)
    if is_ascii.all():  # the tables are not needed: no first-use cost
        flags, lowers = np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.uint16)
        astral = np.zeros(0, dtype=np.uint32)
    else:
        flags, lowers = unicode_tables()
        astral = astral_specials()
    _normalise(buf, offsets, lowercase, remove_punctuation, collapse_whitespace, word, k,
               WHITESPACE, PUNCTUATION, flags, lowers, astral, out, sizes, whole,
               python)  # fmt: skip
    new_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=new_offsets[1:])
    return pack_segments(out, offsets[:-1], new_offsets), new_offsets, python
