"""Why a new document matches a stored one: the band-by-band account the explorer's pair
explainer gives, from the index's stored signature (and, when the index keeps texts, from
both documents' shingles)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nearsim.utils.validation import check_unicode, fail, is_int


@dataclass(frozen=True)
class MatchExplanation:
    """Why a text matches a stored document, or how close it came.

    Attributes
    ----------
    position : int
        The stored document's position in the index.
    id : str
        Its id.
    agree : ndarray of bool, shape (num_perm,)
        Signature positions where the two are equal.
    band_rows : ndarray of bool, shape (b, r)
        ``agree`` as b bands of r rows (band i is positions i·r … i·r + r − 1).
    full_bands : ndarray of int64
        Bands whose r rows all agree (0-based): any one puts the two in one bucket.
    best_band : int
        A band with the most agreeing rows (the first such).
    estimate : float
        The MinHash estimate: agreeing positions / num_perm.
    threshold : float
    copy : bool
        The two texts are the same after the shingling's normalisation (an exact copy: a
        match with estimate 1.0 whatever the bands).
    valid : bool
        Both have a signature (enough shingles); a document without one never matches.
    pair : nearsim.explore.explain.PairExplanation or None
        The shingle-level account (shared shingles, exact Jaccard), when the index keeps
        texts.
    """

    position: int
    id: str
    agree: np.ndarray
    band_rows: np.ndarray
    full_bands: np.ndarray
    best_band: int
    estimate: float
    threshold: float
    copy: bool
    valid: bool
    pair: object = None

    @property
    def candidate(self) -> bool:
        """Whether some whole band agrees (or the texts are copies)."""
        return self.valid and (self.copy or bool(self.full_bands.shape[0]))

    @property
    def reaches(self) -> bool:
        """Whether the estimate reaches the threshold."""
        return self.valid and self.estimate >= self.threshold

    @property
    def matches(self) -> bool:
        """A candidate whose estimate reaches the threshold: the rule of a match (in a hot
        bucket the index compares only with the bucket's first and latest member; see
        :mod:`nearsim.index.matching`)."""
        return self.candidate and self.reaches

    @property
    def best_rows(self) -> int:
        """How many rows of the best band agree (r means a whole band)."""
        return int(self.band_rows[self.best_band].sum()) if self.band_rows.size else 0

    def summary(self) -> str:
        """The account in one or two plain sentences."""
        b, r = self.band_rows.shape
        k = self.agree.shape[0]
        if not self.valid:
            return "At least one of the two has too few shingles for a signature: no match."
        said = (
            f"The signatures agree at {int(self.agree.sum())} of {k} positions: estimate "
            f"{self.estimate:.3f} against the threshold {self.threshold:g}. "
        )
        if self.copy:
            return said + "The texts are the same after normalisation: an exact copy."
        if self.full_bands.shape[0]:
            bands = ", ".join(str(x + 1) for x in self.full_bands[:10].tolist())
            many = self.full_bands.shape[0] > 1
            said += f"Band{'s' if many else ''} {bands} of {b} agree{'' if many else 's'} in all "
            said += f"{r} rows, so they share a bucket"
            return said + (", and the estimate reaches t: a match." if self.reaches
                           else ", but the estimate is below t: no match.")  # fmt: skip
        return said + (
            f"No band agrees in all {r} rows (the closest, band {self.best_band + 1}, in "
            f"{self.best_rows}): not a candidate, so no match."
        )


def explain_match(index, text, match) -> MatchExplanation:
    """:meth:`nearsim.Index.explain`."""
    from nearsim.copies import copy_keys

    text = check_unicode(text, "text", what="a str (the new document)")
    n = len(index)
    if is_int(match):
        position = int(match)
        if not 0 <= position < n:
            raise fail("match", match, f"a position from 0 to {n - 1}, or a stored id")
    elif isinstance(match, str):
        found = index.positions_of(match)
        if not found.shape[0]:
            raise ValueError(
                f"match={match!r} is not the id of a stored document; accepted: a stored id "
                f"or a position from 0 to {n - 1}"
            )
        position = int(found[0])
    else:
        raise fail("match", match, "a position (int) or a stored id (str)", wrong_type=True)
    settings = index.settings
    signed = index.sign([text])
    mine = signed.sig[0]
    theirs = index.signatures([position])[0]
    valid = bool(signed.valid[0]) and bool(index.valid([position])[0])
    b, r, k = settings.bands, settings.rows, settings.num_perm
    agree = mine == theirs
    rows = agree[: b * r].reshape(b, r)
    pair = None
    copy = False
    if index.keep_texts:
        from nearsim.explore.explain import explain_pair
        from nearsim.shingling import shingles

        other = index.texts([position])[0]
        options = settings.shingle_options()
        keys = copy_keys([text, other], **options)
        copy = valid and bool((keys[0] == keys[1]).all())
        pair = explain_pair(
            shingles(text, **options), shingles(other, **options), mine, theirs, b, r
        )
    else:
        copy = valid and bool(agree.all()) and _same_key(index, signed.keys[0], position)
    return MatchExplanation(
        position=position,
        id=index.ids([position])[0],
        agree=agree,
        band_rows=rows,
        full_bands=np.flatnonzero(rows.all(axis=1)).astype(np.int64),
        best_band=int(np.argmax(rows.sum(axis=1))) if b else 0,
        estimate=float(agree.sum()) / k,
        threshold=settings.threshold,
        copy=copy,
        valid=valid,
        pair=pair,
    )


def _same_key(index, key: np.ndarray, position: int) -> bool:
    """Whether the stored document's text is the first occurrence of ``key``'s text."""
    from nearsim.index.matching import stored_copies

    found = stored_copies(index._stored, key.reshape(1, 2), np.ones(1, dtype=bool))
    return int(found[0]) == position
