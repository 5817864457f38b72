"""A run's further fields: removals per group (``--group-field``) and pairs kept apart
(``--keep-apart``).

A job board's lesson, "log fetched against stored per source", is ``removed_by_group``: for
each value of the group field, how many documents the run read and how many it would
remove. A crawler's rule, "two pages that declare each other as translations are never put
in the same group", is ``keep_apart``: a candidate pair whose two documents have the same
non-empty value of that field is never accepted, whatever its similarity. Clusters stay
transitive: two documents that share a value can still end in one cluster through a third
document similar to both (``nearsim audit`` names such clusters).

Values are the strings :func:`nearsim.io.fields.field_text` makes; a missing field or a
null is the empty value, which is a group of its own and keeps nothing apart.
"""

from __future__ import annotations

import numpy as np

from nearsim.io.fields import EMPTY
from nearsim.utils.arrays import GrowingRows
from nearsim.utils.validation import check_unicode

__all__ = ["FieldCodes", "apart_pairs", "removed_by_group"]


class FieldCodes:
    """Each document's value of one field, as an int64 code per document.

    Parameters
    ----------
    field : str
        The field's name.
    empty_code : bool
        Whether the empty value gets a code of its own (groups) or -1 (keep-apart).

    Attributes
    ----------
    field : str
    values : list of str
        The value of each code, in order of first appearance.
    """

    def __init__(self, field: str, *, empty_code: bool) -> None:
        self.field = field
        self.values: list[str] = []
        self._code: dict[str, int] = {} if empty_code else {EMPTY: -1}
        self._codes = GrowingRows((), np.int64)

    @classmethod
    def of(cls, field, name: str) -> FieldCodes | None:
        """Codes for ``field`` (None for None): groups when ``name`` is "group_field",
        the empty value as -1 otherwise.

        Raises
        ------
        ValueError
            An empty field name (``ArgumentTypeError`` for one that is not a str).
        """
        if field is None:
            return None
        field = check_unicode(field, name, what="a field name (str), or None")
        if not field:
            raise ValueError(f"{name}='' is not accepted; accepted: a field name, or None")
        return cls(field, empty_code=name == "group_field")

    def extend(self, values: list[str]) -> None:
        """Add the next documents' values (a list of str)."""
        code = self._code
        shift = 1 if EMPTY in code and code[EMPTY] < 0 else 0  # the -1 entry is not counted
        before = len(code)
        out = np.fromiter(
            (code.setdefault(v, len(code) - shift) for v in values),
            dtype=np.int64,
            count=len(values),
        )
        if len(code) > before:
            self.values.extend(list(code)[before:])  # new values, in the order met
        self._codes.append(out)

    def array(self) -> np.ndarray:
        """The code of every document so far; int64, shape (n,) (-1: empty, keep-apart)."""
        return self._codes.array()


def apart_pairs(codes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Which pairs (a[t], b[t]) share a non-empty keep-apart value; bool, shape (m,)."""
    left = codes[a]
    return (left >= 0) & (left == codes[b])


def removed_by_group(
    groups: FieldCodes, labels: np.ndarray, removed: np.ndarray | None = None
) -> dict[str, dict[str, int]]:
    """Documents and removals per value of the group field.

    Parameters
    ----------
    groups : FieldCodes
        Every document's group.
    labels : ndarray of int64, shape (n,)
        Cluster labels; each cluster keeps its smallest row, the rest are removed.
    removed : ndarray of bool, shape (n,), optional
        Which documents are removed, when not that (``dedup --against``: a new document
        that duplicates the index is removed even when it is its cluster's first new row).

    Returns
    -------
    dict of str to {"documents": int, "removed": int}
        One entry per value, most documents first (then by value).
    """
    codes = groups.array()
    n = labels.shape[0]
    rows = np.arange(n, dtype=np.int64)
    if removed is None:
        first = np.full(int(labels.max(initial=-1)) + 1, n, dtype=np.int64)
        np.minimum.at(first, labels, rows)
        removed = first[labels] != rows
    size = len(groups.values)
    documents = np.bincount(codes, minlength=size)
    gone = np.bincount(codes[removed], minlength=size)
    order = sorted(range(size), key=lambda g: (-int(documents[g]), groups.values[g]))
    return {
        groups.values[g]: {"documents": int(documents[g]), "removed": int(gone[g])} for g in order
    }
