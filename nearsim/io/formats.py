"""The corpus readers' formats: JSON lines (plain, gzip, zstd), Parquet, CSV/TSV, files.

Each reader is a generator of :class:`Chunk` objects for one file, sending every bad record
to a :class:`Sink` (which raises it or counts it); :mod:`nearsim.io.corpora` turns the chunks
into batches. The rules are stated in :mod:`nearsim.io.corpora`'s text.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np
import zstandard

from nearsim.io.documents.csv_reader import column_index, open_csv
from nearsim.io.documents.decoding import short
from nearsim.io.documents.files import DOCUMENT_EXTENSIONS, read_document_file
from nearsim.io.fields import arrow_field_texts, field_text
from nearsim.io.jsonl_fast import blocks, line_count, parse_block
from nearsim.utils.validation import lone_surrogate

_JSON_EXTENSIONS = (".jsonl", ".ndjson", ".json")
_COMPRESSIONS = (".gz", ".zst")
CORPUS_EXTENSIONS = (
    *_JSON_EXTENSIONS,
    *(e + c for e in _JSON_EXTENSIONS for c in _COMPRESSIONS),
    ".parquet",
    ".csv",
    ".tsv",
    *DOCUMENT_EXTENSIONS,
)
"""File types the corpus readers accept (a compressed JSON lines file: ``.jsonl.gz`` …)."""
_CHUNK = 4096


def file_format(path: Path) -> str | None:
    """``"jsonl"``, ``"parquet"``, ``"csv"``, ``"document"``, or None if not supported."""
    name = path.name.lower()
    for compression in ("", *_COMPRESSIONS):
        if any(name.endswith(e + compression) for e in _JSON_EXTENSIONS):
            return "jsonl"
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in DOCUMENT_EXTENSIONS:
        return "document"
    return None


class _Report(Protocol):
    def _bad(self, path: Path, message: str, count: int = 1) -> None: ...


@dataclass
class Chunk:
    """Good records of one file: positions (0-based, within the file), texts, ids (or None).

    ``end`` is the number of the file's records (good and bad) read up to this chunk;
    ``extra`` the values of the requested further fields (one list per field, each value
    as :func:`nearsim.io.fields.field_text` writes it), or None when none was asked for.
    """

    positions: list[int]
    texts: list[str]
    ids: list[str] | None
    end: int
    extra: list[list[str]] | None = None


class Sink:
    """Where a reader sends a bad record: raised at once, or counted in the report."""

    def __init__(self, on_error: str, report: _Report) -> None:
        self.fail = on_error == "fail"
        self.report = report

    def bad(self, path: Path, message: str, count: int = 1) -> None:
        if self.fail:
            raise ValueError(message)
        self.report._bad(path, message, count)


def _label(path: Path) -> str:
    return f"file {str(path)!r}"  # whole: a cut path would hide the file's name


# --------------------------------------------------------------------------------------
# JSON lines
# --------------------------------------------------------------------------------------


class _ZstdReader(io.RawIOBase):
    """A zstandard-compressed file as a binary stream; a frame cut short raises EOFError.

    (zstandard's own ``stream_reader`` ends quietly on a truncated frame.) Frames written
    one after another are read one after another.
    """

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._new = zstandard.ZstdDecompressor().decompressobj
        self._frame = self._new()
        self._started = False
        self._out = b""
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self._at == len(self._out):
            data = self._raw.read(1 << 20)
            if not data:
                if self._started and not self._frame.eof:
                    raise EOFError("the last zstandard frame is cut short")
                return 0
            pieces = []
            while data:
                if self._frame.eof:
                    self._frame = self._new()
                self._started = True
                pieces.append(self._frame.decompress(data))
                data = self._frame.unused_data if self._frame.eof else b""
            self._out, self._at = b"".join(pieces), 0
        size = min(len(buffer), len(self._out) - self._at)
        buffer[:size] = self._out[self._at : self._at + size]
        self._at += size
        return size

    def close(self) -> None:
        self._raw.close()
        super().close()


def _open_binary(path: Path) -> BinaryIO:
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        return io.BufferedReader(_ZstdReader(open(path, "rb")), buffer_size=1 << 16)
    return open(path, "rb")


def _json_kind(value: object) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), "a value")


def _field(obj: dict, name: str, role: str) -> tuple[Any, str | None]:
    if name in obj:
        return obj[name], None
    fields = ", ".join(short(k, 30) for k in list(obj)[:20]) or "none"
    return None, f"the record has no field {name!r} ({role}); its fields are: {fields}"


_SCAN = json.JSONDecoder().scan_once
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _parse(line: str) -> tuple[Any, str | None]:
    """One JSON value and None, or None and what is wrong with the line.

    The decoder's scanner is called directly (what ``json.loads`` does after its checks,
    without its two Python-level calls); any failure goes through ``json.loads`` for its
    message.
    """
    try:
        obj, end = _SCAN(line, 0)
        if end == len(line):
            return obj, None
    except (StopIteration, json.JSONDecodeError, RecursionError):
        pass
    try:
        return json.loads(line), None
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")
        return None, (
            f"it is not JSON ({what} at column {exc.colno}): {short(line, 50)}; "
            "accepted: one JSON object per line"
        )
    except RecursionError:
        return None, "it is JSON nested too deeply to read"


def _json_record(
    raw: bytes, text_field: str, id_field: str | None, fields: tuple[str, ...] = ()
) -> tuple[str, str | None, str | None, tuple[str, ...]]:
    """(text, id, None, values of ``fields``) for a good line, or ("", None, what is wrong
    with it, ())."""
    text, ident, problem, obj = _json_values(raw, text_field, id_field)
    if problem is not None:
        return text, ident, problem, ()
    return text, ident, None, tuple(field_text(obj.get(name)) for name in fields)


def _json_values(
    raw: bytes, text_field: str, id_field: str | None
) -> tuple[str, str | None, str | None, dict | None]:
    """(text, id, None, the object) for a good line, or ("", None, what is wrong, None)."""
    if b"\x00" in raw:
        return "", None, "it holds NUL bytes, which JSON text never does", None
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (
            "",
            None,
            (
                f"it is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte "
                f"{exc.start + 1}); accepted: JSON lines in UTF-8"
            ),
            None,
        )
    line = line.strip(" \t\r\n")  # JSON's white space
    obj, problem = _parse(line)
    if problem:
        return "", None, problem, None
    if not isinstance(obj, dict):
        return (
            "",
            None,
            (
                f"it is {_json_kind(obj)} ({short(line.strip(), 40)}), not an object; "
                f'accepted: one JSON object per line, like {{"{text_field}": "…"}}'
            ),
            None,
        )
    text, problem = _field(obj, text_field, "the text field")
    if problem:
        return "", None, problem, None
    if not isinstance(text, str):
        return "", None, f"field {text_field!r} is {_json_kind(text)}, not a string", None
    escapes = _SURROGATE_ESCAPE.search(raw) is not None  # else no surrogate can be in it
    if escapes and lone_surrogate(text) is not None:
        problem = f"field {text_field!r} holds an escaped lone surrogate, not Unicode text"
        return "", None, problem, None
    if id_field is None:
        return text, None, None, obj
    ident, problem = _field(obj, id_field, "the id field")
    if problem:
        return "", None, problem, None
    if isinstance(ident, bool) or not isinstance(ident, str | int):
        return (
            "",
            None,
            (
                f"field {id_field!r} (the id) is {_json_kind(ident)}; accepted: a "
                "string or an integer"
            ),
            None,
        )
    if escapes and isinstance(ident, str) and lone_surrogate(ident) is not None:
        problem = f"field {id_field!r} holds an escaped lone surrogate, not Unicode text"
        return "", None, problem, None
    return text, str(ident), None, obj


def _read_jsonl(
    path: Path,
    text_field: str,
    id_field: str | None,
    sink: Sink,
    span: tuple[int, int, int] | None = None,
    fields: tuple[str, ...] = (),
) -> Iterator[Chunk]:
    """``span=(start, stop, first_line)``: only the lines in bytes ``start .. stop - 1`` of a
    plain (uncompressed) file, the first of them line ``first_line`` of the file; positions
    then count from the span's first record (the Dask engine's partitions). ``fields``:
    further fields whose values each chunk carries in ``extra``.

    The file is read in blocks of whole lines; pyarrow parses a block where it holds
    nothing unusual (:mod:`nearsim.io.jsonl_fast`), else its lines are read one by one.
    """
    label = _label(path)
    position = 0
    start, stop, first_line = span if span is not None else (0, None, 1)
    line_number = first_line - 1
    try:
        with _open_binary(path) as stream:
            for block in blocks(stream, start, stop):
                if line_number == 0 and block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
                parsed = parse_block(block, text_field, id_field, fields)
                if parsed is not None:
                    count = line_count(block)
                    texts, ids, *extra = parsed
                    yield Chunk(list(range(position, position + count)), texts, ids,
                                position + count, extra if fields else None)  # fmt: skip
                    position += count
                    line_number += count
                    continue
                for chunk in _json_lines(block, line_number, position, label, path, text_field,
                                         id_field, sink, fields):  # fmt: skip
                    position = chunk.end
                    yield chunk
                line_number += line_count(block)
    except _DAMAGED as exc:
        if span is None:  # a block is lost whole: count the lines readable before the damage
            line_number = _readable_lines(path)
        raise ValueError(_unreadable(label, line_number, exc)) from None
    yield Chunk([], [], [] if id_field is not None else None, position, _no_values(fields))


def _no_values(fields: tuple[str, ...]) -> list[list[str]] | None:
    """An empty ``extra`` for the fields (None when none was asked for)."""
    return [[] for _ in fields] if fields else None


_DAMAGED = (OSError, EOFError, zlib.error, zstandard.ZstdError)
"""What reading a damaged, truncated or mislabelled (not compressed) file raises."""


def _readable_lines(path: Path) -> int:
    """How many lines of a damaged file can be read before the damage."""
    count = 0
    try:
        with _open_binary(path) as stream:
            for _ in stream:
                count += 1
    except _DAMAGED:
        pass
    return count


def _json_lines(
    block: bytes,
    before: int,
    position: int,
    label: str,
    path: Path,
    text_field: str,
    id_field: str | None,
    sink: Sink,
    fields: tuple[str, ...] = (),
) -> Iterator[Chunk]:
    """A block's records read a line at a time (``before`` lines of the file precede it)."""

    def empty() -> Chunk:
        return Chunk([], [], [] if id_field is not None else None, position, _no_values(fields))

    chunk = empty()
    lines = block.split(b"\n")
    if block.endswith(b"\n"):
        lines.pop()
    for line_number, raw in enumerate(lines, start=before + 1):
        if not raw.strip():
            continue  # a blank line is not a record
        text, ident, problem, values = _json_record(raw, text_field, id_field, fields)
        if problem is not None:
            sink.bad(path, f"{label}, line {line_number}: {problem}")
        else:
            chunk.positions.append(position)
            chunk.texts.append(text)
            if chunk.ids is not None:
                chunk.ids.append(ident)
            for column, value in zip(chunk.extra or (), values, strict=True):
                column.append(value)
        position += 1
        if len(chunk.positions) >= _CHUNK:
            chunk.end = position
            yield chunk
            chunk = empty()
    chunk.end = position
    yield chunk


def _unreadable(label: str, line_number: int, exc: BaseException) -> str:
    where = f"after line {line_number}" if line_number else "at its start"
    return f"{label} cannot be read {where}: {exc} (is the file cut short, or not compressed?)"


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


def open_parquet(path: Path):
    """A ``pyarrow.parquet.ParquetFile``, or ValueError naming the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{_label(path)} is not a readable Parquet file: {exc}") from None


def parquet_problem(parquet, path: Path, text_field: str, id_field: str | None) -> str | None:
    """What makes a Parquet file's columns unusable (missing, wrong type), or None."""
    import pyarrow as pa

    label = _label(path)
    schema = parquet.schema_arrow
    problem = None
    for name, role in ((text_field, "the text field"), (id_field, "the id field")):
        if name is None or problem:
            continue
        if name not in schema.names:
            columns = ", ".join(short(c, 30) for c in schema.names[:20])
            problem = f"{label} has no column {name!r} ({role}); its columns are: {columns}"
            continue
        kind = schema.field(name).type
        plain = kind.value_type if pa.types.is_dictionary(kind) else kind
        is_id = name != text_field
        if not (_is_text_type(plain) or (is_id and pa.types.is_integer(plain))):
            accepted = "strings or integers" if is_id else "strings"
            problem = (
                f"column {name!r} ({role}) of {label} holds {plain} values; accepted: {accepted}"
            )
    return problem


def _read_parquet(
    path: Path,
    text_field: str,
    id_field: str | None,
    sink: Sink,
    row_groups: tuple[int, ...] | None = None,
    fields: tuple[str, ...] = (),
) -> Iterator[Chunk]:
    """``row_groups``: only these consecutive row groups (the Dask engine's partitions);
    positions then count from their first row, while messages keep the file's row index.
    ``fields``: further columns whose values each chunk carries in ``extra`` (a column the
    file does not have: every value empty, as a missing JSON field)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    label = _label(path)
    parquet = open_parquet(path)
    rows = parquet.metadata.num_rows
    problem = parquet_problem(parquet, path, text_field, id_field)
    if problem:
        sink.bad(path, problem + f" (all {rows:,} rows)", count=rows)
        yield Chunk([], [], None, rows, _no_values(fields))
        return
    columns = [text_field] if id_field in (None, text_field) else [text_field, id_field]
    names = parquet.schema_arrow.names
    columns += [f for f in fields if f in names and f not in columns]
    start = first = 0
    if row_groups is not None:
        first = sum(parquet.metadata.row_group(g).num_rows for g in range(row_groups[0]))
        start = first
    for batch in parquet.iter_batches(
        batch_size=_CHUNK * 4, columns=columns, row_groups=row_groups
    ):
        text = pc.cast(batch.column(text_field), pa.large_string())
        valid = text.is_valid()
        ident = None
        if id_field is not None:
            ident = pc.cast(batch.column(id_field), pa.large_string())
            valid = pc.and_(valid, ident.is_valid())
        # not valid.to_numpy(), which imports pandas (0.25 s) to convert the bits
        if pc.all(valid).as_py():  # the usual case: no null text or id in the batch
            keep = np.ones(batch.num_rows, dtype=bool)
        else:
            keep = np.fromiter(valid.to_pylist(), dtype=bool, count=len(valid))
        for row in np.flatnonzero(~keep).tolist():
            what = "text" if not text[row].is_valid else "id"
            sink.bad(
                path, f"{label}, row index {start + row}: the {what} is null; accepted: a string"
            )
        positions = (start - first + np.flatnonzero(keep)).tolist()
        texts = text.filter(valid).to_pylist()
        ids = ident.filter(valid).to_pylist() if ident is not None else None
        extra = None
        if fields:
            extra = [
                arrow_field_texts(batch.column(f).filter(valid))
                if f in names
                else [""] * len(texts)
                for f in fields
            ]
        start += batch.num_rows
        yield Chunk(positions, texts, ids, start - first, extra)
    yield Chunk([], [], None, start - first, _no_values(fields))


def _is_text_type(kind: Any) -> bool:
    import pyarrow as pa

    view = getattr(pa.types, "is_string_view", lambda _: False)
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or view(kind)


# --------------------------------------------------------------------------------------
# CSV / TSV and one-document files
# --------------------------------------------------------------------------------------


def _read_csv(
    path: Path, text_field: str, id_field: str | None, sink: Sink, fields: tuple[str, ...] = ()
) -> Iterator[Chunk]:
    """``fields``: further columns (a column the file does not have: every value empty)."""
    label = _label(path)
    with open(path, "rb") as stream:
        head = stream.read(4096)
        if len(head) < 4096 and not head.strip(b" \t\r\n\xef\xbb\xbf"):  # no records
            yield Chunk([], [], None, 0, _no_values(fields))
            return
        stream.seek(0)
        delimiter = "\t" if path.suffix.lower() == ".tsv" else None
        table = open_csv(stream, delimiter=delimiter, label=label)
        try:
            at = column_index(table.columns, text_field, label)
            at_id = None if id_field is None else column_index(table.columns, id_field, label)
        except ValueError as exc:
            message = str(exc) if table.has_header else f"{exc}. {table.why}"
            count = sum(1 for _ in table.records)
            sink.bad(path, message + f" (all {count:,} rows)", count=count)
            yield Chunk([], [], None, count, _no_values(fields))
            return
        at_extra = [_csv_column(table.columns, f) for f in fields]

        def empty(position: int) -> Chunk:
            return Chunk([], [], [] if at_id is not None else None, position, _no_values(fields))

        position = 0
        chunk = empty(0)
        for _number, cells, problem in table.records:
            if problem is not None:
                sink.bad(path, problem)
            else:
                chunk.positions.append(position)
                chunk.texts.append(cells[at])
                if chunk.ids is not None:
                    chunk.ids.append(cells[at_id])
                for column, where in zip(chunk.extra or (), at_extra, strict=True):
                    column.append("" if where is None else cells[where])
            position += 1
            if len(chunk.positions) >= _CHUNK:
                chunk.end = position
                yield chunk
                chunk = empty(position)
        chunk.end = position
        yield chunk


def _csv_column(names: list[str], name: str) -> int | None:
    """Where a further field's column is (None: the file does not have it)."""
    try:
        return column_index(names, name)
    except ValueError:
        return None


def _read_document(
    path: Path, text_field: str, id_field: str | None, sink: Sink, fields: tuple[str, ...] = ()
) -> Iterator[Chunk]:
    """A text or HTML file: one document, its path as id; it has no further fields (the
    corpus reader refuses ``fields`` for these files before reading)."""
    try:
        text = read_document_file(path.name, path.read_bytes(), max_bytes=None)
    except ValueError as exc:
        sink.bad(path, f"{exc} (at {short(str(path), 80)})")
        yield Chunk([], [], None, 1)
        return
    yield Chunk([0], [text], [str(path)], 1)


READERS = {
    "jsonl": _read_jsonl,
    "parquet": _read_parquet,
    "csv": _read_csv,
    "document": _read_document,
}
