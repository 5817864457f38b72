"""An uploaded CSV file (its bytes): what it holds, its columns, one column's texts.

The rules are those of :mod:`.csv_reader` (the same reader serves whole corpora); here the
whole upload is checked before anything is returned, so a file whose columns are listed
can also be read.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nearsim.io.documents.csv_reader import CsvStream, column_index, names_list, open_csv
from nearsim.io.documents.decoding import (
    MAX_CSV_BYTES,
    binary_kind,
    check_max_bytes,
    check_size,
    choose_encoding,
)
from nearsim.utils.validation import check_bytes, check_optional_bool

if TYPE_CHECKING:  # imported where the frame is built
    import pandas as pd

__all__ = [
    "CsvInfo",
    "csv_columns",
    "guess_text_column",
    "inspect_csv",
    "read_csv_column",
    "read_csv_column_rows",
]


@dataclass(frozen=True)
class CsvInfo:
    """What an uploaded CSV file holds, for the app to show.

    Attributes
    ----------
    columns : tuple of str
        The column names (``column 1``, ``column 2``, … when the file has no header row).
    has_header : bool
        Whether the first row is read as the header.
    why : str
        Why, in a sentence the app can show as it is ("This file seems to have no header
        row (…). Its first row is read as data and the columns are named column 1, …").
    delimiter : str
        ``","``, ``";"``, ``"\\t"`` or ``"|"``.
    encoding : str
        The Python codec the file was read with (``"utf-8"``, ``"cp1252"``, …).
    rows : int
        Number of data rows (blank lines and the header not counted).
    """

    columns: tuple[str, ...]
    has_header: bool
    why: str
    delimiter: str
    encoding: str
    rows: int


def _parse(data: object, header: object, max_bytes: object) -> tuple[CsvStream, list]:
    """Check, decode and parse CSV bytes; return the opened file and its data records."""
    header = check_optional_bool(header, "header", none="None (detect it)")
    limit = check_max_bytes(max_bytes)
    data = check_bytes(data, "data", what="bytes (the raw contents of the CSV file)")
    check_size(data, limit, "the CSV file")
    kind = binary_kind(data)  # the whole upload, not only its first megabyte
    if kind is not None:
        raise ValueError(f"the CSV file looks like {kind}, not text; upload a .csv text file")
    table = open_csv(io.BytesIO(data), header=header, encoding=choose_encoding(data))
    records = []
    for number, fields, problem in table.records:
        if problem is not None:
            raise ValueError(problem)
        records.append((number, fields))
    if not records:
        raise ValueError(
            f"the CSV file has a single row ({names_list(table.columns)}) and no data rows; it "
            "needs a header row naming the columns and then one row per document (read as "
            f"{table.encoding}, delimiter {table.delimiter!r})"
        )
    return table, records


_DATA_DOC = """data : bytes
        The raw file (``bytes``, ``bytearray`` or ``memoryview``). UTF-8 (BOM or not), else
        Windows-1252, else Latin-1 (UTF-16 with a BOM too); delimiter ``,`` ``;`` tab or
        ``|``, detected (or named by an Excel ``sep=`` first line); quoted fields may hold
        delimiters, quotes (doubled) and line breaks. Blank lines are skipped."""
_HEADER_DOC = """header : bool or None
        Whether the first row names the columns: True, False (it is data; the columns are
        named ``column 1``, ``column 2``, …) or None (default) to detect it from how the
        first row compares with the rows below (see :func:`inspect_csv`)."""
_LIMIT_DOC = """max_bytes : int or None
        Largest accepted file size in bytes (default 50,000,000); None for no limit."""
_RAISES_DOC = """ValueError
        Not bytes, over the size limit, binary data, empty, a single row, ragged rows,
        malformed quoting (a quote left open, a closing quote not followed by the
        delimiter or a line end: the message names the row), or a header row with a cell
        of more than 200 characters."""


def inspect_csv(
    data: bytes, *, header: bool | None = None, max_bytes: int | None = MAX_CSV_BYTES
) -> CsvInfo:
    """What a CSV file holds: its columns, whether it has a header row and why, its rows.

    Header detection, when ``header`` is None: each column compares the first row's cell
    with the cells below it (the first 200 rows). A number above numbers, a date above
    dates, prose above prose, or a value that recurs in a column of few distinct values
    says the first row is data; text above numbers or dates, or a short label above prose,
    says header. The first row is data when more columns say so than say header; with no
    evidence either way it is the header. A file whose first row recurs whole further
    down (files joined end to end) has a header.

    Parameters
    ----------
    {data}
    {header}
    {limit}

    Returns
    -------
    CsvInfo

    Raises
    ------
    {raises}

    Examples
    --------
    >>> info = inspect_csv(b"1,the ferry left at dawn\\n2,the ferry left at noon\\n")
    >>> info.has_header, info.columns, info.rows
    (False, ('column 1', 'column 2'), 2)
    >>> inspect_csv(b"id,text\\n1,hello\\n").has_header
    True
    """
    table, records = _parse(data, header, max_bytes)
    return CsvInfo(
        tuple(table.columns),
        table.has_header,
        table.why,
        table.delimiter,
        table.encoding,
        len(records),
    )


def csv_columns(
    data: bytes, *, header: bool | None = None, max_bytes: int | None = MAX_CSV_BYTES
) -> list[str]:
    """List the columns of a CSV file, for the column picker.

    The whole file is parsed and checked, so a file whose columns are listed can also be
    read with :func:`read_csv_column`.

    Parameters
    ----------
    {data}
    {header}
    {limit}

    Returns
    -------
    list of str
        The column names from the header row, white space collapsed; a blank name
        becomes ``"column N"`` (N counted from 1) and a repeated name gets ``" (2)"``,
        ``" (3)"``, … appended. Without a header row: ``"column 1"``, ``"column 2"``, ….

    Raises
    ------
    {raises}
    """
    return list(_parse(data, header, max_bytes)[0].columns)


def _text_score(cells: list[str]) -> tuple[float, float]:
    """How much a column's cells look like prose: (median words, median characters)."""
    filled = [c for c in cells if c.strip()]
    if not filled:
        return (0.0, 0.0)
    words = [sum(1 for w in c.split() if any(ch.isalpha() for ch in w)) for c in filled]
    chars = [len(c) for c in filled]
    return (float(np.median(words)), float(np.median(chars)))


def guess_text_column(
    data: bytes, *, header: bool | None = None, max_bytes: int | None = MAX_CSV_BYTES
) -> str:
    """The column of a CSV file that most looks like the documents' text.

    The column whose non-empty cells have the most words (runs holding a letter) at the
    median, ties broken by the median length in characters and then by position: on a
    file with columns ``id, title, description`` it is ``description``, not ``id``.

    Parameters
    ----------
    {data}
    {header}
    {limit}

    Returns
    -------
    str
        One of the names :func:`csv_columns` returns.

    Raises
    ------
    {raises}
    """
    table, records = _parse(data, header, max_bytes)
    names = table.columns
    scores = [_text_score([fields[i] for _, fields in records]) for i in range(len(names))]
    best = max(range(len(names)), key=lambda i: (scores[i], -i))
    return names[best]


def read_csv_column_rows(
    data: bytes,
    column: str | int,
    *,
    header: bool | None = None,
    max_bytes: int | None = MAX_CSV_BYTES,
) -> pd.DataFrame:
    """The non-empty cells of one CSV column, with the spreadsheet row each came from.

    Parameters
    ----------
    {data}
    column : str or int
        A name as returned by :func:`csv_columns` (white space in it may differ), or a
        0-based column position.
    {header}
    {limit}

    Returns
    -------
    pandas.DataFrame
        Columns ``row`` (int64: the row number a spreadsheet shows, the first row being
        row 1, a blank line counting as a row) and ``text`` (the cell, stripped), one row
        per cell that is not empty or only white space, in file order; a default
        RangeIndex, so document ``i`` of the app is ``row`` ``i`` of the file.

    Raises
    ------
    {raises}
        Also an unknown column (the message lists the columns found), or a column whose
        cells are all empty.
    """
    table, records = _parse(data, header, max_bytes)
    names = table.columns
    index = column_index(names, column)
    rows: list[int] = []
    texts: list[str] = []
    for number, fields in records:
        cell = fields[index].strip()
        if cell:
            rows.append(number)
            texts.append(cell)
    if not texts:
        raise ValueError(
            f"column {names[index]!r} of the CSV file has no text: all {len(records)} of its "
            f"cells are empty; the file's columns are {names_list(names)}"
        )
    import pandas as pd

    return pd.DataFrame({"row": np.asarray(rows, dtype=np.int64), "text": texts})


def read_csv_column(
    data: bytes,
    column: str | int,
    *,
    header: bool | None = None,
    max_bytes: int | None = MAX_CSV_BYTES,
) -> list[str]:
    """The texts of one CSV column, one document per non-empty cell.

    Cells that are empty or only white space are dropped (they are not documents);
    every other cell is stripped. Use :func:`read_csv_column_rows` to know which row of
    the file each document came from.

    Parameters
    ----------
    {data}
    column : str or int
        A name as returned by :func:`csv_columns`, or a 0-based column position.
    {header}
    {limit}

    Returns
    -------
    list of str
        The texts, in file order.

    Raises
    ------
    ValueError
        See :func:`read_csv_column_rows`.

    Examples
    --------
    >>> read_csv_column(b'id,text\\n1,"Hello, world"\\n2,\\n3,bye\\n', "text")
    ['Hello, world', 'bye']
    """
    return read_csv_column_rows(data, column, header=header, max_bytes=max_bytes)["text"].tolist()


for _function in (inspect_csv, csv_columns, guess_text_column, read_csv_column_rows,
                  read_csv_column):  # fmt: skip
    _function.__doc__ = (
        _function.__doc__.replace("{data}", _DATA_DOC)
        .replace("{header}", _HEADER_DOC)
        .replace("{limit}", _LIMIT_DOC)
        .replace("{raises}", _RAISES_DOC)
    )
del _function
