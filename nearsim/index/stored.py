"""The stored documents as a lookup reads them, and what a lookup finds — without numba.

:class:`Stored` (the mapped segments and where each begins) and :class:`BatchMatches` (a
batch's matches as arrays) are shared by the compiled matcher (:mod:`nearsim.index.matching`)
and the NumPy one that answers a few documents in a fresh process
(:mod:`nearsim.index.quick`), so opening an index and answering one query loads neither
numba nor pandas.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Stored:
    """The stored documents as the matcher reads them: mapped segments and positions.

    Attributes
    ----------
    segments : list of dict of ndarray
        Each segment's arrays (:mod:`nearsim.index.storage`), oldest first.
    starts : ndarray of int64, shape (S + 1,)
        Segment s holds positions ``starts[s] … starts[s + 1] − 1``.
    """

    segments: list
    starts: np.ndarray

    @property
    def count(self) -> int:
        return int(self.starts[-1])

    def locate(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each position's segment and row in it (int64 each)."""
        seg = np.searchsorted(self.starts, positions, side="right") - 1
        return seg, positions - self.starts[seg]

    def signatures(self, positions: np.ndarray, k: int) -> np.ndarray:
        """The stored signatures at ``positions`` (read from the mapped segments); uint32,
        shape (len(positions), k)."""
        out = np.empty((positions.shape[0], k), dtype=np.uint32)
        seg, row = self.locate(positions)
        for s in np.unique(seg).tolist():
            pick = seg == s
            out[pick] = self.segments[s]["sig"][row[pick]]
        return out


@dataclass
class BatchMatches:
    """What :func:`match_batch` found for a batch of n documents.

    Attributes
    ----------
    row : ndarray of int64, shape (m,)
        The new document of each match, ascending.
    position : ndarray of int64, shape (m,)
        The stored document matched (its position), or −1 for a match within the call.
    earlier : ndarray of int64, shape (m,)
        The call's row matched (within the call), or −1.
    count : ndarray of int64, shape (m,)
        Agreeing signature positions (estimate = count / k).
    stored : ndarray of bool, shape (n,)
        Rows that are stored (an add): all, or with ``skip_duplicates`` those without a match.
    banded : ndarray of bool, shape (n,)
        Stored rows that enter the band tables: valid first occurrences of their text.
    copy : ndarray of bool, shape (n,)
        Rows matched as an exact copy (their one match is their text's first occurrence).
    band_keys : ndarray of uint64, shape (b, n)
        Every row's band keys.
    """

    row: np.ndarray
    position: np.ndarray
    earlier: np.ndarray
    count: np.ndarray
    stored: np.ndarray
    banded: np.ndarray
    copy: np.ndarray
    band_keys: np.ndarray


__all__ = ["BatchMatches", "Stored"]
