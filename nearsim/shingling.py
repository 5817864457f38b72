"""Shingles: the sets that MinHash, the exact join and SimHash compare.

A document becomes the set of its character k-grams or word k-grams after optional
normalisation. The order of normalisation is fixed (lower-case, then punctuation removal,
then white-space collapsing) because the steps do not commute: removing punctuation can
create new runs of white space.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from nearsim.utils.validation import ArgumentTypeError, check_bool, check_choice, check_int
from nearsim.utils.validation_arrays import check_texts

KINDS = ("char", "word")
MAX_K = 1000


PUNCTUATION_PLANES = 0x20000
"""Code points below this are searched for punctuation: the Basic and Supplementary
Multilingual Planes. The planes above hold ideographs, tags, private use and nothing of a
"P" category (the last punctuation is U+1E95F); a test checks this against the whole range
for the Unicode version in use. Searching 1.1 million code points took 0.8 s of a first
page; 131,072 take a tenth of that."""


@functools.cache
def _punctuation_table() -> dict[int, None]:
    """``str.translate`` table deleting every code point whose category starts with "P"."""
    return {
        cp: None
        for cp in range(PUNCTUATION_PLANES)
        if unicodedata.category(chr(cp)).startswith("P")
    }


def check_shingle_options(
    kind: str,
    k: int,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> dict:
    """The shingle options, normalised, or raise unless they are accepted.

    Parameters
    ----------
    kind : str
        ``"char"`` or ``"word"``.
    k : int
        Shingle length, 1 to 1000 (characters or words).
    lowercase, remove_punctuation, collapse_whitespace : bool
        Real booleans (the string ``"false"`` is not a flag).

    Returns
    -------
    dict
        ``kind`` (str), ``k`` (int), ``lowercase``, ``remove_punctuation``,
        ``collapse_whitespace`` (bool): Python values (a NumPy integer or bool becomes one).

    Raises
    ------
    ValueError
        ``ArgumentTypeError`` (also a ``TypeError``) for a value of the wrong type.
    """
    return {
        "kind": check_choice(kind, "kind", KINDS),
        "k": check_int(k, "k", low=1, high=MAX_K),
        "lowercase": check_bool(lowercase, "lowercase"),
        "remove_punctuation": check_bool(remove_punctuation, "remove_punctuation"),
        "collapse_whitespace": check_bool(collapse_whitespace, "collapse_whitespace"),
    }


def normalize(
    text: str,
    *,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> str:
    """Normalise a text the way :func:`shingles` does before cutting it.

    Parameters
    ----------
    text : str
        The document.
    lowercase : bool
        Apply ``str.lower``.
    remove_punctuation : bool
        Delete every character whose Unicode category starts with ``"P"``
        (``"Don't stop!"`` becomes ``"Dont stop"``).
    collapse_whitespace : bool
        Replace every run of white space by one space and trim both ends.

    Returns
    -------
    str
        The normalised text.
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(
            f"text={type(text).__name__} is not accepted; accepted: a str (one document)"
        )
    if lowercase:
        text = text.lower()
    if remove_punctuation:
        text = text.translate(_punctuation_table())
    if collapse_whitespace:
        text = " ".join(text.split())
    return text


def shingles(
    text: str,
    *,
    kind: str = "char",
    k: int = 5,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> list[str]:
    """Distinct shingles of a text, in order of first appearance.

    Parameters
    ----------
    text : str
        The document.
    kind : {"char", "word"}
        Character k-grams, or k consecutive words (the normalised text split on white
        space) joined by one space.
    k : int
        Shingle length in characters or words, 1 to 1000.
    lowercase, remove_punctuation, collapse_whitespace : bool
        Normalisation, applied in this order; see :func:`normalize`.

    Returns
    -------
    list of str
        The distinct shingles. A text shorter than ``k`` (characters or words) gives one
        shingle, the whole normalised text; a text that is empty after normalisation
        gives ``[]``.

    Examples
    --------
    >>> shingles("Hello  World", k=4)
    ['hell', 'ello', 'llo ', 'lo w', 'o wo', ' wor', 'worl', 'orld']
    >>> shingles("to be or not to be", kind="word", k=2)
    ['to be', 'be or', 'or not', 'not to']
    """
    opts = check_shingle_options(kind, k, lowercase, remove_punctuation, collapse_whitespace)
    kind, k = opts.pop("kind"), opts.pop("k")
    norm = normalize(text, **opts)
    if not norm:
        return []
    if kind == "char":
        if len(norm) <= k:
            return [norm]
        grams = (norm[i : i + k] for i in range(len(norm) - k + 1))
    else:
        words = norm.split()
        if len(words) < k:
            return [norm]
        grams = (" ".join(words[i : i + k]) for i in range(len(words) - k + 1))
    return list(dict.fromkeys(grams))


def as_text_list(texts: Iterable[str]) -> list[str]:
    """The documents as a list of str (see ``nearsim.utils.validation_arrays.check_texts``)."""
    return check_texts(texts, "texts")
