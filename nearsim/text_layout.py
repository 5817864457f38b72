"""Raw texts laid out for the compiled shingle kernels (:func:`flatten_texts`).

Every document normalised the way :func:`nearsim.shingling.normalize` does — in compiled code
(:mod:`nearsim._ascii_text`) but for the few it cannot do — and stored back to back as
UTF-8 in one buffer, with the word layout the kernels of :mod:`nearsim.hashing` read.
``nearsim.hashing`` re-exports :class:`FlatTexts` and :func:`flatten_texts`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from nearsim._ascii_text import normalise as normalise_text
from nearsim.shingling import as_text_list, check_shingle_options, normalize


def _encode(joined: str, what: str) -> bytes:
    """UTF-8 of the joined strings; ``what`` names the argument they came from."""
    if joined.isascii():
        return joined.encode("ascii")
    try:
        return joined.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what} holds a lone surrogate code point ({exc.object[exc.start]!r}), which is "
            f"not accepted; accepted: str of valid Unicode text"
        ) from None


class FlatTexts:
    """Normalised documents as one UTF-8 buffer, ready for the shingle kernels.

    Attributes
    ----------
    buf : ndarray of uint8
        The normalised documents' UTF-8 bytes, back to back.
    doc_offsets : ndarray of int64, shape (n + 1,)
        Document d is ``buf[doc_offsets[d]:doc_offsets[d + 1]]``.
    whole : ndarray of bool, shape (n,)
        Word shingles only: the document has fewer than k words and is one shingle, its
        whole normalised text. (For char shingles the kernel decides by length.)
    kind : str
        ``"char"`` or ``"word"``. For word shingles each document is stored as its words
        joined by single spaces, so a word k-gram is a contiguous span of bytes.
    k : int
        Shingle length.
    """

    __slots__ = ("buf", "doc_offsets", "k", "kind", "whole")

    def __init__(self, buf, doc_offsets, whole, kind, k):
        self.buf = buf
        self.doc_offsets = doc_offsets
        self.whole = whole
        self.kind = kind
        self.k = k


def flatten_texts(
    texts: Iterable[str],
    *,
    kind: str = "char",
    k: int = 5,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> FlatTexts:
    """Normalise texts and lay them out for the compiled shingle kernels.

    Parameters
    ----------
    texts : iterable of str, length n
        Raw documents.
    kind, k, lowercase, remove_punctuation, collapse_whitespace
        As in :func:`nearsim.shingles`.

    Returns
    -------
    FlatTexts
    """
    opts = check_shingle_options(kind, k, lowercase, remove_punctuation, collapse_whitespace)
    kind, k = opts.pop("kind"), opts.pop("k")  # Python str and int: one compiled kernel
    texts = as_text_list(texts)
    word = kind == "word"
    whole = np.zeros(len(texts), dtype=np.bool_)
    buf, doc_offsets, is_ascii = _utf8_of(texts)
    if not (word or any(opts.values())):
        return FlatTexts(buf, doc_offsets, whole, kind, k)
    # compiled (nearsim._ascii_text); the few documents it cannot do, in Python
    buf, doc_offsets, python = normalise_text(buf, doc_offsets, is_ascii, whole, word=word,
                                              k=k, **opts)  # fmt: skip
    if python.any():
        buf, doc_offsets = _splice_python(texts, buf, doc_offsets, python, whole, word, k, opts)
    return FlatTexts(buf, doc_offsets, whole, kind, k)


def _utf8_of(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The texts' UTF-8 bytes back to back, each text's byte offsets, and which are ASCII.

    ASCII texts (``str.isascii`` is free: CPython records it) are joined and encoded at
    once. Otherwise each text is encoded by itself and the bytes joined: joining texts of
    different widths into one ``str`` first, then encoding it and finding the byte
    offsets, took four times as long on installed documents.
    """
    is_ascii = np.fromiter(map(str.isascii, texts), dtype=np.bool_, count=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    if is_ascii.all():
        np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)), out=offsets[1:])
        return np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8), offsets, is_ascii
    try:
        pieces = list(map(str.encode, texts))
    except UnicodeEncodeError:
        _encode("".join(texts), "texts")  # raises the error naming the code point
        raise
    np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(texts)), out=offsets[1:])
    return np.frombuffer(b"".join(pieces), dtype=np.uint8), offsets, is_ascii


def _splice_python(texts, buf, doc_offsets, python, whole, word, k, opts):
    """The laid-out buffer with the documents ``python`` marks (empty in ``buf``)
    normalised by :func:`nearsim.shingling.normalize` and put in their places."""
    docs = np.flatnonzero(python).tolist()
    pieces = []
    for d in docs:
        text, whole[d] = _lay_out(normalize(texts[d], **opts), word, k)
        pieces.append(_encode(text, "texts"))
    sizes = np.diff(doc_offsets)
    sizes[docs] = list(map(len, pieces))
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    chunks, done = [], 0  # the compiled documents between them, as they are
    for d, piece in zip(docs, pieces, strict=True):
        chunks += [buf[done : doc_offsets[d]], np.frombuffer(piece, dtype=np.uint8)]
        done = doc_offsets[d + 1]
    chunks.append(buf[done:])
    return np.concatenate(chunks), offsets


def _lay_out(text: str, word: bool, k: int) -> tuple[str, bool]:
    """A normalised document as the kernels read it, and whether it is one whole shingle:
    word shingles of a document of at least k words read its words joined by single
    spaces; a shorter one is its whole text (when not empty)."""
    if not word:
        return text, False
    words = text.split()
    if len(words) < k:
        return text, bool(text)
    return " ".join(words), False
