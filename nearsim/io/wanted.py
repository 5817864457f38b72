"""A corpus read for a few of its rows: the texts of the wanted rows, every row counted.

``nearsim audit`` knows before it reads which documents its samples need (a few percent
of the corpus): :func:`read_rows` returns their texts (and ids) in row order, counts every
row, and returns for every row only the fields asked for (``every_id``, ``fields``: a group
field, the ids of a corpus matched to another tool's table by id).

JSON lines (plain or compressed) are read in blocks of whole lines
(:func:`nearsim.io.jsonl_fast.blocks`); in each block the line ends are found by NumPy
over the bytes (blank lines, which are not records, among the few that begin with white
space), and only the wanted lines are parsed, those of consecutive blocks together, by
pyarrow where they hold nothing unusual (:func:`nearsim.io.jsonl_fast.parse_block`), else
one at a time with the corpus reader's messages and line numbers. Fields needed on every
line are parsed by pyarrow without the text (:func:`nearsim.io.jsonl_fast.parse_columns`),
or, in a block pyarrow refuses, by the line-by-line reader.

What is not checked: a line that is neither wanted nor needed for an ``every`` field is
only counted. It is not parsed, so a line there that is not JSON, not an object, lacks the
text field, or holds invalid UTF-8 or NUL bytes is not reported (the corpus reader
reports it), and its id is not read (only wanted rows' ids are). A blank line is still
not a record. Parquet files: Arrow reads the text (and id) column of every row and checks
it for nulls, and only the wanted rows' values become Python strings. A corpus with CSV,
text or HTML files is read whole by the corpus reader
(:func:`nearsim.io.corpora.iter_corpus`) and the wanted rows picked from its batches.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nearsim.io.corpora import CorpusReport, _check_fields, _expand, iter_corpus
from nearsim.io.fields import arrow_field_texts, check_fields
from nearsim.io.formats import (
    _CHUNK,
    _DAMAGED,
    Sink,
    _json_lines,
    _json_record,
    _label,
    _open_binary,
    _readable_lines,
    _unreadable,
    file_format,
    open_parquet,
    parquet_problem,
)
from nearsim.io.jsonl_fast import blocks, parse_block, parse_columns
from nearsim.utils.arrays import arrow_array

__all__ = ["Rows", "read_rows"]

_SPACE = np.zeros(256, dtype=np.bool_)
_SPACE[list(b" \t\r\x0b\x0c")] = True
"""The bytes a blank line may begin with (``bytes.strip`` removes them and newlines)."""
PARSE_BYTES = 1 << 22
PARSE_ROWS = 100_000
"""Wanted lines are gathered from consecutive blocks and parsed by pyarrow at once when
they reach ``PARSE_BYTES`` or the blocks ``PARSE_ROWS`` rows (so that a small sample
still reports its progress every 100,000 rows)."""


@dataclass
class Rows:
    """One stretch of the corpus: rows ``start .. start + count - 1``.

    ``rows`` (int64, ascending) are the wanted rows among them, with their ``ids`` and
    ``texts`` (lists of str, one per wanted row); ``every`` holds, for each field asked
    for on every row, its ``count`` values (str; the key ``"id"`` for the ids when asked).
    """

    start: int
    count: int
    rows: np.ndarray
    ids: list[str]
    texts: list[str]
    every: dict[str, list[str]] = field(default_factory=dict)


def read_rows(
    paths,
    wanted: np.ndarray,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    every_id: bool = False,
    fields: tuple[str, ...] = (),
) -> Iterator[Rows]:
    """The wanted rows of a corpus, and the fields needed on every row.

    Parameters
    ----------
    paths : str or os.PathLike, or a list of them
        The corpus, as for :func:`nearsim.io.corpora.iter_corpus`.
    wanted : ndarray of bool, shape (m,)
        ``wanted[r]``: row r's text is returned. Rows at or past m are not wanted (and
        still counted).
    text_field, id_field : str
        As for :func:`~nearsim.io.corpora.iter_corpus`; without ``id_field`` a row's id is
        its position.
    every_id : bool
        Return every row's id (``every["id"]``).
    fields : tuple of str
        Further fields returned for every row (``every[name]``), as
        :func:`nearsim.io.fields.field_text` writes them.

    Yields
    ------
    Rows
        Consecutive stretches covering the corpus in order (see the module text for what
        is checked on rows that are not wanted).

    Raises
    ------
    ValueError
        Bad arguments; a bad wanted line or a bad line in a block read line by line
        (named by file and line, as the corpus reader names it); a damaged file.
    """
    files = _expand(paths)
    text_field, id_field = _check_fields(text_field, id_field)
    fields = check_fields(fields)
    if not isinstance(every_id, bool | np.bool_):
        raise TypeError(f"every_id={every_id!r}; accepted: True or False")
    wanted = np.asarray(wanted)
    if wanted.dtype != np.bool_ or wanted.ndim != 1:
        raise TypeError(f"wanted is {wanted.dtype} of shape {wanted.shape}; accepted: 1-d bool")
    if every_id and id_field is None:
        raise ValueError("every_id=True needs an id_field (without one, ids are positions)")
    kinds = [file_format(p) for p in files]
    if any(k not in ("jsonl", "parquet") for k in kinds):
        yield from _picked(files, wanted, text_field, id_field, every_id, fields)
        return
    start = 0
    for path, kind in zip(files, kinds, strict=True):
        read = _jsonl_rows if kind == "jsonl" else _parquet_rows
        for part in read(path, start, wanted, text_field, id_field, every_id, fields):
            start = part.start + part.count
            yield part


def _picked(files, wanted, text_field, id_field, every_id, fields) -> Iterator[Rows]:
    """The corpus reader's batches, the wanted rows picked out."""
    reader = iter_corpus(files, text_field=text_field, id_field=id_field, fields=fields)
    start = 0
    for ids, texts, extra in reader.records():
        count = len(texts)
        local = _wanted_in(wanted, start, count)
        every = dict(extra)
        if every_id:
            every["id"] = ids
        yield Rows(start, count, local + start, [ids[i] for i in local.tolist()],
                   [texts[i] for i in local.tolist()], every)  # fmt: skip
        start += count


def _parquet_rows(path, first_row, wanted, text_field, id_field, every_id, fields):
    """A Parquet file's batches: nulls in the text and id columns found by Arrow on every
    row (the corpus reader's message for the first), only the wanted rows' values turned
    into Python strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    label = _label(path)
    parquet = open_parquet(path)
    problem = parquet_problem(parquet, path, text_field, id_field)
    if problem:
        raise ValueError(problem + f" (all {parquet.metadata.num_rows:,} rows)")
    names = parquet.schema_arrow.names
    columns = [text_field] if id_field in (None, text_field) else [text_field, id_field]
    columns += [f for f in fields if f in names and f not in columns]
    row = first_row
    for batch in parquet.iter_batches(batch_size=_CHUNK * 4, columns=columns):
        count = batch.num_rows
        text = batch.column(text_field)
        ident = batch.column(id_field) if id_field is not None else None
        if text.null_count or (ident is not None and ident.null_count):
            valid = text.is_valid()
            if ident is not None:
                valid = pc.and_(valid, ident.is_valid())
            at = int(pc.index(valid, False).as_py())
            what = "text" if not text[at].is_valid else "id"
            where = f"{label}, row index {row - first_row + at}"
            raise ValueError(f"{where}: the {what} is null; accepted: a string")
        local = _wanted_in(wanted, row, count)
        pick = arrow_array(local)
        texts = pc.cast(text.take(pick), pa.large_string()).to_pylist()
        if ident is None:
            ids = [str(r) for r in (local + row).tolist()]
        else:
            ids = pc.cast(ident.take(pick), pa.large_string()).to_pylist()
        every = {
            f: arrow_field_texts(batch.column(f)) if f in names else [""] * count for f in fields
        }
        if every_id:
            every["id"] = pc.cast(ident, pa.large_string()).to_pylist()
        yield Rows(row, count, local + row, ids, texts, every)
        row += count


def _wanted_in(wanted: np.ndarray, start: int, count: int) -> np.ndarray:
    """Positions (0 .. count - 1) of the wanted rows among rows start .. start + count - 1."""
    if start >= wanted.shape[0]:
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(wanted[start : start + count]).astype(np.int64)


def _records(block: bytes, arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The lines of a block that are records: those ``bytes.strip`` does not empty.

    A blank line is empty or begins with white space, so only such lines (rare in JSON
    lines, whose records begin with ``{``) are looked at one by one."""
    lines = np.arange(ends.shape[0], dtype=np.int64)
    if arr.shape[0] == 0:
        return lines[:0]
    doubt = np.flatnonzero((ends == starts) | _SPACE[arr[np.minimum(starts, arr.shape[0] - 1)]])
    blank = [i for i in doubt.tolist() if not block[starts[i] : ends[i]].strip()]
    return np.delete(lines, blank) if blank else lines


def _jsonl_rows(path: Path, first_row, wanted, text_field, id_field, every_id, fields):
    """A JSON lines file's rows: the line ends of each block found by NumPy, the wanted
    lines of consecutive blocks parsed together (pyarrow's fixed cost per call is paid once
    per :data:`PARSE_BYTES` of wanted lines or :data:`PARSE_ROWS` rows, not per block)."""
    label = _label(path)
    sink = Sink("fail", CorpusReport())
    before = 0  # lines of the file before the block
    row = first_row
    pending = _Pending(row)
    try:
        with _open_binary(path) as stream:
            for block in blocks(stream):
                if before == 0 and block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
                arr = np.frombuffer(block, dtype=np.uint8)
                ends = np.flatnonzero(arr == 10)
                if not block.endswith(b"\n"):
                    ends = np.append(ends, len(block))
                starts = np.empty_like(ends)
                starts[:1] = 0
                starts[1:] = ends[:-1] + 1
                lines = _records(block, arr, starts, ends)  # records' line in the block
                count = lines.shape[0]
                local = _wanted_in(wanted, row, count)
                every = {}
                if every_id or fields:
                    lines_if_no_blank = count if count == ends.shape[0] else None
                    every = _every(block, lines_if_no_blank, before, row, label, path,
                                   text_field, id_field, every_id, fields, sink)  # fmt: skip
                picked = lines[local]
                raws = [block[a:b] for a, b in zip(starts[picked].tolist(),
                                                   ends[picked].tolist(), strict=True)]  # fmt: skip
                pending.add(count, local + row, every, raws, before + 1 + picked)
                row += count
                before += ends.shape[0]
                if pending.size >= PARSE_BYTES or pending.count >= PARSE_ROWS:
                    yield pending.take(path, text_field, id_field, sink)
                    pending = _Pending(row)
            if pending.count:
                yield pending.take(path, text_field, id_field, sink)
    except _DAMAGED as exc:
        raise ValueError(_unreadable(label, _readable_lines(path), exc)) from None


class _Pending:
    """Rows of consecutive blocks whose wanted lines are not parsed yet."""

    def __init__(self, start: int):
        self.start, self.count, self.size = start, 0, 0
        self.rows: list[np.ndarray] = []
        self.raws: list[bytes] = []
        self.numbers: list[np.ndarray] = []
        self.every: dict[str, list[str]] = {}

    def add(self, count: int, rows, every: dict, raws: list[bytes], numbers) -> None:
        """A block's ``count`` rows: its wanted ``rows`` (in the corpus), their lines
        (``raws``) and line numbers in the file, the fields read on every row."""
        self.count += count
        self.rows.append(rows)
        self.raws += raws
        self.size += sum(map(len, raws))
        self.numbers.append(numbers)
        for name, values in every.items():
            self.every.setdefault(name, []).extend(values)

    def take(self, path, text_field, id_field, sink) -> Rows:
        """The blocks' rows, the wanted lines parsed."""
        rows = np.concatenate(self.rows) if self.rows else np.empty(0, dtype=np.int64)
        numbers = np.concatenate(self.numbers) if self.numbers else rows
        ids, texts = _texts(self.raws, numbers, path, text_field, id_field, sink)
        if id_field is None:
            ids = [str(r) for r in rows.tolist()]
        return Rows(self.start, self.count, rows, ids, texts, self.every)


def _texts(raws, line_numbers, path, text_field, id_field, sink):
    """Texts and ids (id_field's, as str; [] without one) of the wanted lines."""
    if not raws:
        return [], []
    parsed = parse_block(b"\n".join(raws) + b"\n", text_field, id_field)
    if parsed is not None:
        texts, ids = parsed[0], parsed[1]
        return (ids if ids is not None else []), texts
    texts, ids = [], []
    for raw, number in zip(raws, line_numbers.tolist(), strict=True):
        text, ident, problem, _ = _json_record(raw, text_field, id_field)
        if problem is not None:
            sink.bad(path, f"{_label(path)}, line {number}: {problem}")
        texts.append(text)
        ids.append(ident)
    return (ids if id_field is not None else []), texts


def _every(block, lines, before, row, label, path, text_field, id_field, every_id, fields, sink):
    """The fields needed on every line of the block (``lines`` of them, None when one is
    blank): pyarrow without the text, else (a blank line, anything pyarrow refuses) the
    line-by-line reader, which checks each line whole."""
    parsed = None
    if lines is not None:
        parsed = parse_columns(block, id_field if every_id else None, fields,
                               no_blank_line=True, lines=lines)  # fmt: skip
    if parsed is not None:
        ids, *values = parsed
    else:
        ids, values = [], [[] for _ in fields]
        for chunk in _json_lines(block, before, row, label, path, text_field, id_field, sink,
                                 fields):  # fmt: skip
            ids += chunk.ids or []
            for column, part in zip(values, chunk.extra or (), strict=True):
                column += part
    every = dict(zip(fields, values, strict=True))
    if every_id:
        every["id"] = ids
    return every
