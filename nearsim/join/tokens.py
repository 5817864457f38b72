"""Prepared tokens: every document's distinct shingles as integer ids, made once.

The exact join, the similarity sample and :func:`nearsim.join.exact.pair_jaccard` do not read
strings: they read each document's distinct shingles as integer ids, numbered by how
often the shingle occurs in the whole corpus (rarest = 0, which is what the prefix filter
wants), sorted within each document. Making those ids (interning) is the costly part for
a corpus of short documents, so a caller that asks several questions of the same
documents — pairs at several thresholds, the sample, the Jaccard of a few pairs — builds
one :class:`TokenSets` and passes it everywhere a ``sets`` argument is taken::

    tokens = TokenSets.from_shingles(shingled.flat)     # once per set of shingles
    exact_pairs(tokens, 0.8, valid=mask)                # each threshold, each mask
    similarity_sample(tokens, valid=mask)

Documents outside a validity mask are left out by the functions that take ``valid=``, so
a minimum-size rule changes the mask, never the tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nearsim.hashing import FlatShingles
from nearsim.join._intern import intern_lists, intern_spans
from nearsim.join._kernels import MAX_VERIFY_BITS, verification_index
from nearsim.utils.validation import ArgumentTypeError, check_int, check_optional_int
from nearsim.utils.validation_arrays import check_shingle_sets

__all__ = ["TokenSets", "as_token_sets"]

ACCEPTED = "a list of shingle lists (one list of str per document), FlatShingles or TokenSets"


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class TokenSets:
    """Each document's distinct shingles as sorted integer ids, ranked by frequency.

    Build it with :meth:`from_shingles`; every array is read-only. Equality is identity.

    Attributes
    ----------
    offsets : ndarray of int64, shape (n + 1,)
        Document d's ids are ``tokens[offsets[d]:offsets[d + 1]]``.
    tokens : ndarray of int32, shape (total,)
        Ids, strictly increasing within each document, numbered by the number of
        documents holding the shingle: id 0 is the corpus' rarest shingle, ``vocab - 1``
        its most frequent (ties in a fixed order).
    lengths : ndarray of int64, shape (n,)
        Distinct shingles per document (repeats in the input count once).
    vocab : int
        Distinct shingles in the corpus.

    Examples
    --------
    >>> ts = TokenSets.from_shingles([["a", "b"], ["b", "c", "b"], []])
    >>> ts.n, ts.lengths.tolist(), ts.vocab
    (3, [2, 2, 0], 3)
    """

    offsets: np.ndarray
    tokens: np.ndarray
    lengths: np.ndarray
    vocab: int
    _indexes: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_shingles(cls, sets) -> TokenSets:
        """Intern every document's shingles.

        Parameters
        ----------
        sets : sequence of sequences of str, length n, or FlatShingles
            One entry per document: its shingles (as :func:`nearsim.shingles` gives them;
            a list, tuple, set or array of str each), or the same as
            ``nearsim.hashing.FlatShingles`` spans (what the pipeline's shingle stage
            holds). Repeats within a document count once.

        Returns
        -------
        TokenSets

        Raises
        ------
        ValueError
            ``ArgumentTypeError`` (also a ``TypeError``) if ``sets`` is not one of these, or
            a shingle is not a str; ``ValueError`` for FlatShingles whose spans do not fit
            their buffer.
        """
        return as_token_sets(sets)

    @property
    def n(self) -> int:
        """Number of documents."""
        return int(self.lengths.shape[0])

    def __len__(self) -> int:
        return self.n

    def document(self, d: int) -> np.ndarray:
        """Document ``d``'s ids (int32, strictly increasing; a read-only view).

        ``d`` is an integer from 0 to n − 1.
        """
        d = check_int(d, "d", low=0, high=self.n - 1)
        return self.tokens[self.offsets[d] : self.offsets[d + 1]]

    def verification(self, fbits: int | None = None, hbits: int | None = None):
        """The join's verification bitsets for these tokens, made once per layout.

        Private to the join (:func:`nearsim.join._kernels.verification_index`); kept here so
        that joins at several thresholds share them. ``fbits`` (exact bits for the most
        frequent ids) and ``hbits`` (hashed bits for the others) are None (the join's
        default) or integers from 0 to ``MAX_VERIFY_BITS``.
        """
        fbits = check_optional_int(fbits, "fbits", low=0, high=MAX_VERIFY_BITS)
        hbits = check_optional_int(hbits, "hbits", low=0, high=MAX_VERIFY_BITS)
        key = (fbits, hbits)
        found = self._indexes.get(key)
        if found is None:
            found = verification_index(self, fbits, hbits)
            self._indexes[key] = found
        return found


def as_token_sets(sets, name: str = "sets") -> TokenSets:
    """``sets`` as :class:`TokenSets`: itself if it is one, else interned now.

    Parameters
    ----------
    sets : TokenSets, FlatShingles, or sequence of sequences of str
    name : str
        The argument's name, for messages.

    Returns
    -------
    TokenSets
    """
    if isinstance(sets, TokenSets):
        return sets
    if isinstance(sets, FlatShingles):
        parts = intern_spans(*_flat_arrays(sets, name))
    else:
        docs = check_shingle_sets(sets, name, accepted=ACCEPTED)
        try:
            parts = intern_lists(docs)
        except TypeError:  # a shingle is not a str: say which
            check_shingle_sets(docs, name, accepted=ACCEPTED, strings=True)
            raise  # pragma: no cover - the check above always raises here
    return _made(*parts)


def _made(offsets, tokens, lengths, vocab) -> TokenSets:
    return TokenSets(_frozen(offsets), _frozen(tokens), _frozen(lengths), int(vocab))


def checked_sets(sets, name: str = "sets"):
    """``sets`` checked but not interned: a TokenSets as given, a FlatShingles with its
    checked arrays (contiguous, the kernels' dtypes), anything else as a validated list of
    documents (so a generator is read once)."""
    if isinstance(sets, TokenSets):
        return sets
    if isinstance(sets, FlatShingles):
        return FlatShingles(*_flat_arrays(sets, name))
    return check_shingle_sets(sets, name, accepted=ACCEPTED)


def n_documents(sets) -> int:
    """How many documents checked ``sets`` (:func:`checked_sets`) hold."""
    if isinstance(sets, TokenSets):
        return sets.n
    if isinstance(sets, FlatShingles):
        return sets.doc_offsets.shape[0] - 1
    return len(sets)


def _flat_arrays(flat: FlatShingles, name: str):
    """The arrays of a FlatShingles, after making sure every span lies in the buffer
    (compiled code does not check bounds)."""
    accepted = "FlatShingles with numeric arrays, spans inside the buffer"
    try:
        buf = np.ascontiguousarray(flat.buf, dtype=np.uint8).reshape(-1)
        starts = np.ascontiguousarray(flat.starts, dtype=np.int64).reshape(-1)
        ends = np.ascontiguousarray(flat.ends, dtype=np.int64).reshape(-1)
        offsets = np.ascontiguousarray(flat.doc_offsets, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise ArgumentTypeError(
            f"{name}=FlatShingles(...) is not accepted; accepted: {accepted}"
        ) from None
    if starts.size != ends.size:
        raise ValueError(
            f"{name}=FlatShingles with {starts.size} span starts but {ends.size} ends is not "
            f"accepted; accepted: {accepted}, as many starts as ends"
        )
    if (
        offsets.size == 0
        or offsets[0] != 0
        or offsets[-1] != starts.size
        or np.any(np.diff(offsets) < 0)
    ):
        raise ValueError(
            f"{name}=FlatShingles with doc_offsets {offsets[:3].tolist()}…{offsets[-2:].tolist()} "
            f"is not accepted; accepted: doc_offsets rising from 0 to the number of shingles "
            f"({starts.size})"
        )
    if starts.size and (starts.min() < 0 or ends.max() > buf.size or np.any(ends < starts)):
        raise ValueError(
            f"{name}=FlatShingles with a span outside its buffer of {buf.size} bytes is not "
            "accepted; accepted: each span 0 <= start <= end <= len(buf)"
        )
    return buf, starts, ends, offsets
