"""Does a CSV file start with a header row? Evidence from the first row against the rows below.

A header names the columns, so its cells differ in kind from the cells under them: ``id``
above numbers, ``posted`` above dates, ``description`` (one word) above paragraphs. A file
without a header starts with data, so its first row looks like the rows below it: a number
at the top of a column of numbers, a date above dates, a paragraph above paragraphs, a value
of a column of few distinct values (``yes``, ``Leeds``) that recurs below. Each column
votes; the first row is data when more columns say data than say header. A file whose
first row recurs below as a whole (CSV files joined end to end) has a header.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from nearsim.io.documents.decoding import short

__all__ = ["detect_header"]

_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,\s]\d+)*|[.,]\d+)(?:[eE][-+]?\d+)?\s*%?")
_DATE = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}"  # 2024-03-01, 01/03/2024, 1.3.24
    r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[-+]\d{2}:?\d{2})?)?"  # a time of day
)
_PROSE_WORDS = 8
"""Cells of at least this many words (at the median) make a column of prose."""
_LABEL_WORDS = 3
"""A header cell of at most this many words above prose is a label."""
_TYPED_SHARE = 0.9
"""Share of a column's cells that must be of one kind for the column to be of that kind."""
_SHOWN_REASONS = 2


def _kind(cell: str) -> str:
    if not cell:
        return "empty"
    if _NUMBER.fullmatch(cell):
        return "number"
    if _DATE.fullmatch(cell):
        return "date"
    return "text"


def _words(cell: str) -> int:
    return sum(1 for word in cell.split() if any(ch.isalpha() for ch in word))


def _column_kind(cells: list[str]) -> str:
    kinds = [_kind(c) for c in cells]
    for kind in ("number", "date"):
        if kinds.count(kind) >= _TYPED_SHARE * len(kinds):
            return kind
    return "text"


def _vote(name: str, cell: str, below: list[str]) -> tuple[int, str]:
    """+1 (header), -1 (data) or 0, and the reason, for one column."""
    if not cell or not below:
        return 0, ""
    kind, column = _kind(cell), _column_kind(below)
    plural = {"number": "numbers", "date": "dates"}
    if column in plural:
        if kind == column:
            return -1, f"{name} starts with {short(cell, 30)}, a {kind} like the cells below it"
        if kind == "text":
            return 1, f"{short(cell, 30)} is text above a column of {plural[column]}"
        return 0, ""
    if kind != "text":
        return 0, ""
    words = np.array([_words(c) for c in below])
    median = float(np.median(words))
    if median >= _PROSE_WORDS:
        if _words(cell) >= max(_PROSE_WORDS, 0.5 * median):
            return -1, f"{name} starts with prose like the cells below it ({short(cell, 30)})"
        if _words(cell) <= _LABEL_WORDS:
            return 1, f"{short(cell, 30)} is a short label above a column of prose"
        return 0, ""
    distinct = set(below)
    if cell in distinct and len(distinct) <= 0.5 * len(below):
        return -1, f"{name} starts with {short(cell, 30)}, a value that recurs below it"
    return 0, ""


def detect_header(first: Sequence[str], below: Sequence[Sequence[str]]) -> tuple[bool, str]:
    """Whether ``first`` is a header row, judged against the records ``below`` it.

    Parameters
    ----------
    first : sequence of str
        The first record's fields.
    below : sequence of sequence of str
        Some of the records that follow (the first couple of hundred).

    Returns
    -------
    (bool, str)
        True for a header, and the evidence in words (``""`` if there was none).

    Examples
    --------
    >>> detect_header(["id", "text"], [["1", "a"], ["2", "b"]])[0]
    True
    >>> detect_header(["7", "a"], [["8", "b"], ["9", "c"]])
    (False, "column 1 starts with '7', a number like the cells below it")
    """
    first = [" ".join(cell.split()) for cell in first]
    stripped = [[cell.strip() for cell in row] for row in below]
    if any(row == first for row in stripped):
        return True, "the first row recurs further down, as a header does in joined files"
    votes: dict[int, list[str]] = {1: [], -1: []}
    for position, cell in enumerate(first):
        column = [row[position] for row in stripped if position < len(row) and row[position]]
        vote, reason = _vote(f"column {position + 1}", cell, column)
        if vote:
            votes[vote].append(reason)
    has_header = len(votes[-1]) <= len(votes[1])
    return has_header, "; ".join(votes[1 if has_header else -1][:_SHOWN_REASONS])
