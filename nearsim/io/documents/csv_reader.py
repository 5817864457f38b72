"""CSV: one streaming record reader for uploads (bytes) and for whole corpora (files).

The rules, the same for both:

* encoding: a byte-order mark, else UTF-8, else Windows-1252, else Latin-1 (judged on the
  whole upload; on the first megabyte of a file read as a stream);
* delimiter ``,`` ``;`` tab or ``|``: named by an Excel ``sep=`` first line, else sniffed
  from the first 64 KB (the candidate that splits every record into the same number of
  fields, two or more; see :func:`_sniff_delimiter`);
* quoting: ``"`` quotes a field, which may then hold delimiters, line breaks and doubled
  quotes. Quoting is strict: a quote that is never closed, or a closing quote followed
  by anything but a delimiter or a line end, raises a ``ValueError`` naming the row — it
  never swallows the rest of the file into one cell;
* rows are numbered as a spreadsheet numbers them (from 1; a blank line is a row of its
  own, and is skipped); a header row is detected (:mod:`.csv_header`) unless stated;
* every row has as many fields as the first (trailing empty fields are tolerated).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from nearsim.io.documents.csv_header import detect_header
from nearsim.io.documents.decoding import binary_kind, choose_encoding, count, short
from nearsim.utils.validation import ArgumentTypeError, is_int, shown

__all__ = ["CSV_DELIMITERS", "CsvStream", "column_index", "names_list", "open_csv"]

CSV_DELIMITERS = (",", ";", "\t", "|")
HEADER_MAX_CHARS = 200
"""A header cell longer than this is not a column name."""
_HEAD_BYTES = 1 << 20
_SAMPLE_CHARS = 65_536
_HEADER_SAMPLE_ROWS = 200
_EXCEL_SEP = re.compile(r"sep=([,;\t|])[^\S\n]*(?:\n|$)")
_FIELD_LIMIT = (1 << 31) - 1
_FIELD_LOCK = threading.Lock()
_END_OF_DATA = "unexpected end of data"
_ESCAPED = re.compile("[\udc80-\udcff]")


def _allow_long_fields() -> None:
    """Let the csv module read fields of any length (its default stops at 131,072 characters)."""
    with _FIELD_LOCK:
        if csv.field_size_limit() < _FIELD_LIMIT:
            csv.field_size_limit(_FIELD_LIMIT)


def _rows_before_error(text: str, delimiter: str) -> tuple[list[list[str]], bool]:
    """Records of a sample (blank ones dropped) and whether it ended in a quoting error.

    A quote still open at the end of the sample is not an error: the sample may cut a
    quoted field.
    """
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    rows = []
    try:
        for fields in reader:
            if len(fields) > 1 or (fields and fields[0].strip()):
                rows.append(fields)
    except csv.Error as exc:
        return rows, not str(exc).startswith(_END_OF_DATA)
    return rows, False


def _sample_score(text: str, delimiter: str) -> tuple[float, int]:
    """(share of sample records with as many fields as the first, fields in the first)."""
    rows, failed = _rows_before_error(text, delimiter)
    if not rows:
        return (0.0, 0)
    width = len(rows[0])
    same = sum(1 for fields in rows if len(fields) == width)
    return (same / (len(rows) + failed), width)


def _sniff_delimiter(sample: str) -> str:
    """Pick the delimiter among ``, ; tab |``.

    ``csv.Sniffer`` proposes one; the proposal is kept if it splits the sample into
    records of equal width (two columns or more). Otherwise the candidate giving records
    of equal width with the most columns wins. A header that no candidate splits means a
    one-column file (then any candidate that leaves every record whole will do). Failing
    all that, the candidate with the most consistent records is returned and the full
    parse reports the ragged rows.
    """
    try:
        head = sample[:8192]  # the Sniffer's regular expressions slow down on long samples
        proposed = csv.Sniffer().sniff(head, delimiters="".join(CSV_DELIMITERS)).delimiter
    except csv.Error:
        proposed = None
    scores = {d: _sample_score(sample, d) for d in CSV_DELIMITERS}
    consistent = [d for d in CSV_DELIMITERS if scores[d][0] == 1.0 and scores[d][1] >= 2]
    if proposed in consistent:
        return proposed
    if consistent:
        return max(consistent, key=lambda d: scores[d][1])
    if all(width <= 1 for _, width in scores.values()):
        whole = [d for d in CSV_DELIMITERS if scores[d][0] == 1.0]
        if whole:
            return whole[0]
    return max(CSV_DELIMITERS, key=lambda d: (scores[d][1] >= 2, scores[d]))


def column_names(header: list[str]) -> list[str]:
    """Header cells with white space collapsed, blanks named and repeats numbered."""
    names: list[str] = []
    taken: set[str] = set()
    for position, cell in enumerate(header, start=1):
        name = " ".join(cell.split()) or f"column {position}"
        if name in taken:
            number = 2
            while f"{name} ({number})" in taken:
                number += 1
            name = f"{name} ({number})"
        taken.add(name)
        names.append(name)
    return names


def names_list(names: list[str], limit: int = 30) -> str:
    """Column names for a message: ``'id', 'text', … (40 columns in all)``."""
    shown = ", ".join(short(n, 40) for n in names[:limit])
    if len(names) > limit:
        shown += f", … ({len(names)} columns in all)"
    return shown


def column_index(names: list[str], column: object, label: str = "the CSV file") -> int:
    """Position of ``column`` (a name, white space in it may differ, or a 0-based position)."""
    if not isinstance(column, str) and not is_int(column):
        raise ArgumentTypeError(
            f"column={shown(column)} is not accepted; accepted: a column name "
            f"(str) or a 0-based position (int); the columns of {label} are {names_list(names)}"
        )
    if isinstance(column, str):
        for wanted in (column, " ".join(column.split())):
            if wanted in names:
                return names.index(wanted)
        raise ValueError(
            f"column {short(column, 40)} is not in {label}; its columns are {names_list(names)}"
        )
    position = int(column)
    if not 0 <= position < len(names):
        raise ValueError(
            f"column position {shown(column)} is out of range; {label} has "
            f"{len(names)} columns (0 to {len(names) - 1}): {names_list(names)}"
        )
    return position


@dataclass
class CsvStream:
    """An open CSV file: what its first rows told, and its data records still to read.

    Attributes
    ----------
    columns : list of str
        Column names (``column 1``, ``column 2``, … without a header row).
    has_header : bool
    why : str
        Why the first row is, or is not, read as the header, in words.
    delimiter, encoding : str
    header_row : int or None
        Spreadsheet row number of the header (None without one).
    records : iterator of (int, list of str, str or None)
        Every data record: its row number, its fields (exactly ``len(columns)`` when it is
        good) and ``None``, or a description of what is wrong with it ("row 9 has 3
        fields but …"). Malformed quoting raises ``ValueError`` from the iterator.
    """

    columns: list[str]
    has_header: bool
    why: str
    delimiter: str
    encoding: str
    header_row: int | None
    records: Iterator[tuple[int, list[str], str | None]]


def _records(
    lines: Iterator[str], delimiter: str, label: str, first_number: int
) -> Iterator[tuple[int, list[str]]]:
    """``(row number, fields)`` for every non-blank record; malformed quoting raises."""
    reader = csv.reader(lines, delimiter=delimiter, quotechar='"', strict=True)
    number = first_number - 1
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            number += 1
            if str(exc).startswith(_END_OF_DATA):
                raise ValueError(
                    f"row {number} of {label} starts a quoted field that never ends: it runs "
                    f"from line {start} to the end of the file (line {reader.line_num}) and "
                    "would swallow every row after it; is a quote left open? accepted: a "
                    'quoted field ends with a quote (a quote inside it is doubled: "")'
                ) from None
            raise ValueError(
                f"row {number} of {label} (line {reader.line_num}) is malformed: {exc}; "
                "accepted: a closing quote followed by the delimiter or the end of the line, "
                'and quotes inside a quoted field doubled ("")'
            ) from None
        number += 1
        start = reader.line_num + 1
        if len(fields) > 1 or (fields and fields[0].strip()):
            yield number, fields


def _checked(
    records: Iterator[tuple[int, list[str]]],
    width: int,
    names: list[str],
    header_row: int | None,
    label: str,
    encoding: str,
    found: str,
) -> Iterator[tuple[int, list[str], str | None]]:
    """Attach to each record what is wrong with it: its width, undecodable bytes."""
    against = f"the header (row {header_row})" if header_row else "the first row"
    for number, fields in records:
        if len(fields) > width and not any(fields[width:]):
            del fields[width:]
        problem = None
        if len(fields) != width:
            hint = "check the delimiter and that fields containing it are quoted"
            if any("\n" in field for field in fields):
                hint = "a field in it runs over several lines: is a quote left open?"
            problem = (
                f"row {number} of {label} has {count(len(fields), 'field')} but {against} "
                f"has {width} ({names_list(names, 8)}) {found}; {hint}"
            )
        elif any(_ESCAPED.search(field) for field in fields):
            problem = (
                f"row {number} of {label} holds bytes that are not {encoding} text, the "
                "encoding of the start of the file; accepted: one encoding for the whole file"
            )
        elif any("\x00" in field for field in fields):
            problem = f"row {number} of {label} holds NUL bytes; accepted: text"
        yield number, fields, problem


def open_csv(
    stream: BinaryIO,
    *,
    header: bool | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    label: str = "the CSV file",
) -> CsvStream:
    """Open a CSV file for reading record by record, in bounded memory.

    Parameters
    ----------
    stream : binary file object
        Seekable (a file opened ``"rb"``, or ``io.BytesIO``); read from its start.
    header : bool or None
        Whether the first row names the columns; None detects it.
    encoding : str, optional
        The codec; by default chosen from the first megabyte.
    delimiter : str, optional
        The delimiter; by default named by a ``sep=`` line or sniffed.
    label : str
        How messages name the file (``"the CSV file"``, ``"file 'a.csv'"``).

    Returns
    -------
    CsvStream

    Raises
    ------
    ValueError
        Binary data, no rows, a first row that cannot be a header, malformed quoting
        among the first rows.
    """
    head = stream.read(_HEAD_BYTES)
    complete = len(head) < _HEAD_BYTES
    kind = binary_kind(head)
    if kind is not None:
        raise ValueError(f"{label} looks like {kind}, not text; accepted: a CSV text file")
    if encoding is None:
        encoding = choose_encoding(head, complete=complete)
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=complete)
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    excel_sep = _EXCEL_SEP.match(text)
    if excel_sep:  # Excel's "sep=;" first line names the delimiter; Excel hides the line
        text = text[excel_sep.end() :]
    if delimiter is None:
        sample = text[:_SAMPLE_CHARS]
        if (not complete or len(text) > len(sample)) and "\n" in sample:
            sample = sample[: sample.rindex("\n")]
        delimiter = excel_sep.group(1) if excel_sep else _sniff_delimiter(sample)
    found = f"(read as {encoding}, delimiter {delimiter!r})"

    stream.seek(0)
    lines = io.TextIOWrapper(stream, encoding=encoding, errors="surrogateescape", newline=None)
    if excel_sep:
        next(lines, None)
    _allow_long_fields()
    records = _records(lines, delimiter, label, first_number=1)
    first = next(records, None)
    if first is None:
        raise ValueError(f"{label} is empty; it needs a header row and at least one data row")
    peek = list(itertools.islice(records, _HEADER_SAMPLE_ROWS))
    if header is None:
        has_header, evidence = detect_header(first[1], [fields for _, fields in peek])
    else:
        has_header, evidence = header, "as asked"
    if has_header:
        header_row, names = first[0], column_names(first[1])
        long_names = [c for c in first[1] if len(c) > HEADER_MAX_CHARS]
        if long_names:
            raise ValueError(
                f"the first row of {label} does not look like a header: a cell has "
                f"{len(long_names[0]):,} characters ({short(long_names[0])}); accepted: a first "
                f"row naming the columns, each name at most {HEADER_MAX_CHARS} characters "
                f"{found}"
            )
        data = itertools.chain(peek, records)
        evidence = evidence or "nothing in it looks like data"
        why = f"The first row is read as the header ({evidence})."
    else:
        header_row, names = None, [f"column {i}" for i in range(1, len(first[1]) + 1)]
        data = itertools.chain([first], peek, records)
        why = (
            f"This file seems to have no header row ({evidence}). Its first row is read as "
            "data and the columns are named column 1, column 2 …"
        )
        if header is False:
            why = (
                "The first row is read as data, as asked; the columns are named column 1, "
                "column 2 …"
            )
    checked = _checked(data, len(names), names, header_row, label, encoding, found)
    return CsvStream(names, has_header, why, delimiter, encoding, header_row, checked)
