"""The Dask engine's partitions: planned on the client, read and signed in the workers.

Nothing here talks to a scheduler: :mod:`nearsim.run.dask_engine` plans on the client with
:func:`plan_partitions` and hands :func:`read_partition` (and the small accessors after
it) to Dask; :mod:`nearsim.run.dask_pairs` holds what the workers do next.

**Partitions.** A corpus is cut into pieces, then consecutive pieces are grouped into
partitions of about ``blocksize`` bytes, in input order:

- a plain JSON lines file larger than ``blocksize``: byte ranges cut just after a newline
  (every line lies whole in one range). Its line numbers, for the messages about bad
  records, come from a first pass that counts the newlines of each range
  (:func:`count_newlines`, at memory speed) before the ranges are read;
- a Parquet file: runs of consecutive row groups (one or more per partition), unless its
  columns cannot be used (then the whole file, so that it is reported once);
- any other file (CSV, compressed JSON lines, text and HTML files): whole.

**Row numbers and ids.** A partition's documents are numbered 0, 1, … among its good
records, and its records (good and bad) 0, 1, … as well; once every partition has been
read, the client adds the counts of the partitions before it. That gives exactly the
local engine's numbering: ``row`` is the position among the good records of the whole
input, and an id without ``id_field`` is the record's position among all records, bad ones
included (as :func:`nearsim.iter_corpus` numbers them).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from nearsim.io.corpora import CorpusReport
from nearsim.io.formats import READERS, Sink, file_format, open_parquet, parquet_problem
from nearsim.run.fields import FieldCodes
from nearsim.run.signing import sign_batch
from nearsim.settings import RunSettings

_PLAIN_JSONL = (".jsonl", ".ndjson", ".json")
_COUNT_BLOCK = 1 << 22


class Reading(NamedTuple):
    """How the records are read (as for :func:`nearsim.iter_corpus`)."""

    text_field: str
    id_field: str | None
    on_error: str
    batch_size: int = 10_000
    fields: tuple[str, ...] = ()
    """Further fields whose values each document keeps (``--group-field``, ``--keep-apart``)."""


@dataclass(frozen=True)
class Piece:
    """A file, or a part of one, that a partition reads.

    Attributes
    ----------
    path : str
    size : int
        Bytes it holds (what partitions are balanced on).
    span : (int, int) or None
        Bytes ``start .. stop - 1`` of a plain JSON lines file (whole lines).
    first_line : int
        The file's line number of the span's first line.
    row_groups : tuple of int, or None
        Consecutive row groups of a Parquet file.
    """

    path: str
    size: int
    span: tuple[int, int] | None = None
    first_line: int = 1
    row_groups: tuple[int, ...] | None = None


# -- planning (on the client) -------------------------------------------------------------
def _line_cuts(path: Path, size: int, blocksize: int) -> list[int]:
    """Byte offsets that start a line, about ``blocksize`` apart, from 0 to ``size``."""
    cuts = [0]
    with open(path, "rb") as stream:
        for target in range(blocksize, size, blocksize):
            if target <= cuts[-1]:
                continue
            stream.seek(target - 1)
            at = target - 1
            while True:
                block = stream.read(1 << 16)
                if not block:
                    at = size
                    break
                found = block.find(b"\n")
                if found >= 0:
                    at += found + 1
                    break
                at += len(block)
            if at >= size:
                break
            cuts.append(at)
    cuts.append(size)
    return cuts


def _pieces(path: Path, blocksize: int, text_field: str, id_field: str | None) -> list[Piece]:
    size = path.stat().st_size
    name = str(path)
    if size > blocksize and path.name.lower().endswith(_PLAIN_JSONL):
        cuts = _line_cuts(path, size, blocksize)
        return [Piece(name, b - a, span=(a, b)) for a, b in itertools.pairwise(cuts)]
    if file_format(path) != "parquet":
        return [Piece(name, size)]
    try:
        parquet = open_parquet(path)
    except ValueError:
        return [Piece(name, size)]  # read whole: the worker reports it where the local run would
    meta = parquet.metadata
    if meta.num_row_groups < 2 or parquet_problem(parquet, path, text_field, id_field):
        return [Piece(name, size)]
    wanted = {text_field, id_field} - {None}
    pieces, groups, held = [], [], 0
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        groups.append(g)
        held += sum(
            rg.column(c).total_uncompressed_size
            for c in range(rg.num_columns)
            if rg.column(c).path_in_schema in wanted
        )
        if held >= blocksize or g == meta.num_row_groups - 1:
            pieces.append(Piece(name, held, row_groups=tuple(groups)))
            groups, held = [], 0
    return pieces


def plan_partitions(
    files: list[Path], blocksize: int, text_field: str, id_field: str | None
) -> list[tuple[Piece, ...]]:
    """Cut the files into pieces and group consecutive pieces into partitions.

    Parameters
    ----------
    files : list of Path
        The corpus's files in input order (:func:`nearsim.io.corpora._expand`).
    blocksize : int
        Bytes per partition at most, unless one piece is larger (a whole file that cannot
        be cut, a Parquet row group).
    text_field, id_field : str, str or None

    Returns
    -------
    list of tuple of Piece
        Partitions in input order; their pieces, read in order, are the files in order.
    """
    partitions, current, held = [], [], 0
    for path in files:
        for piece in _pieces(path, blocksize, text_field, id_field):
            if current and held + piece.size > blocksize:
                partitions.append(tuple(current))
                current, held = [], 0
            current.append(piece)
            held += piece.size
    if current:
        partitions.append(tuple(current))
    return partitions


def count_newlines(path: str, start: int, stop: int) -> int:
    """Newlines in bytes ``start .. stop - 1`` of a file."""
    count = 0
    with open(path, "rb") as stream:
        stream.seek(start)
        left = stop - start
        while left > 0:
            block = stream.read(min(_COUNT_BLOCK, left))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def spans(partitions: list[tuple[Piece, ...]]) -> list[Piece]:
    """The JSON lines spans of every partition, in order (what :func:`count_newlines` counts)."""
    return [p for part in partitions for p in part if p.span is not None]


def with_first_lines(
    partitions: list[tuple[Piece, ...]], newlines: list[int]
) -> list[tuple[Piece, ...]]:
    """The partitions with each span's first line number, from the newlines of each span."""
    before: dict[str, int] = {}
    counts = iter(newlines)
    out = []
    for part in partitions:
        pieces = []
        for piece in part:
            if piece.span is not None:
                seen = before.get(piece.path, 0)
                piece = replace(piece, first_line=seen + 1)
                before[piece.path] = seen + next(counts)
            pieces.append(piece)
        out.append(tuple(pieces))
    return out


# -- reading and signing (in the workers) -------------------------------------------------
def _chunks(pieces: tuple[Piece, ...], reading: Reading, sink: Sink):
    """``(offset, chunk)`` of every piece: offset is the partition's records before it."""
    offset = 0
    for piece in pieces:
        path = Path(piece.path)
        args = (path, reading.text_field, reading.id_field, sink)
        options = {"fields": reading.fields} if reading.fields else {}
        if piece.span is not None:
            chunks = READERS["jsonl"](*args, span=(*piece.span, piece.first_line), **options)
        elif piece.row_groups is not None:
            chunks = READERS["parquet"](*args, row_groups=piece.row_groups, **options)
        else:
            chunks = READERS[file_format(path)](*args, **options)
        end = 0
        for chunk in chunks:
            yield offset, chunk
            end = chunk.end
        offset += end


@dataclass
class FieldColumn:
    """One further field of a partition's documents: its distinct values and a code per
    document.

    Attributes
    ----------
    values : list of str
        The distinct values, in order of first appearance ("" for missing or null).
    codes : ndarray of int64, shape (m,)
        Each document's value, as an index into ``values``.
    """

    values: list
    codes: np.ndarray

    def array(self) -> np.ndarray:
        """The codes (as :meth:`nearsim.run.fields.FieldCodes.array` gives them)."""
        return self.codes


@dataclass
class Part:
    """One partition after reading: the pipeline's row stages and what the client needs.

    Attributes
    ----------
    valid : ndarray of bool, shape (m,)
    signatures : ndarray of uint32, shape (m, num_perm)
    keys : ndarray of uint64, shape (m, 2)
        Copy keys (:func:`nearsim.copies.copy_keys`).
    given_ids : list of (str or None), length m, or None
        Ids the reader gave (``id_field``, a file's path); None where the id is a position.
    positions : ndarray of int64, shape (m,)
        Each good record's position among the partition's records (bad ones included).
    records : int
        The partition's records, good and bad.
    report : CorpusReport
    error : str or None
        The message of the bad record or file that stops the run (then nothing else).
    seconds : dict of str to float
        CPU seconds of the worker process (its one task thread and numba's threads)
        spent reading and signing.
    fields : dict of str to FieldColumn
        Each of ``Reading.fields``: every document's value, as codes into the partition's
        distinct values.
    """

    valid: np.ndarray
    signatures: np.ndarray
    keys: np.ndarray
    given_ids: list | None
    positions: np.ndarray
    records: int
    report: CorpusReport
    error: str | None = None
    seconds: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.valid.shape[0])

    def values(self, name: str, local: np.ndarray | None = None) -> np.ndarray:
        """The values of field ``name`` of the documents at ``local`` (all of them by
        default); object array of str, ``""`` where the field is missing or null."""
        codes = self.fields[name]
        table = np.empty(len(codes.values), dtype=object)
        table[:] = codes.values
        at = codes.array()
        return table[at if local is None else at[local]]


def read_partition(pieces: tuple[Piece, ...], settings: RunSettings, reading: Reading) -> Part:
    """Read a partition and run the row stages (mask, signatures, copy keys: the local
    engine's :func:`nearsim.run.local.sign_batch`) on it, a batch of ``reading.batch_size``
    documents at a time.

    Returns
    -------
    Part
        With ``error`` set (and no documents) when a bad record (``on_error="fail"``) or
        an unreadable file stops the reading.
    """
    report = CorpusReport()
    sink = Sink(reading.on_error, report)
    texts: list[str] = []
    given: list[str | None] = []
    positions: list[np.ndarray] = []

    valid, sigs, keys = [], [], []
    records, any_given = 0, False
    fields = {name: FieldCodes(name, empty_code=True) for name in reading.fields}
    clock = {"read": 0.0, "signatures": 0.0}
    started = time.process_time()
    try:
        for offset, chunk in _chunks(pieces, reading, sink):
            positions.append(np.asarray(chunk.positions, dtype=np.int64) + offset)
            texts.extend(chunk.texts)
            any_given |= chunk.ids is not None
            given.extend(chunk.ids if chunk.ids is not None else [None] * len(chunk.texts))
            records = offset + chunk.end
            if fields:
                for codes, values in zip(fields.values(), chunk.extra, strict=True):
                    codes.extend(values)
            if len(texts) >= reading.batch_size:
                clock["read"] += time.process_time() - started
                started = time.process_time()
                v, s, key = sign_batch(texts, settings)
                valid.append(v)
                sigs.append(s)
                keys.append(key)
                report.records += len(texts)
                texts = []
                clock["signatures"] += time.process_time() - started
                started = time.process_time()
    except (ValueError, OSError) as exc:
        message = str(exc)
        if isinstance(exc, OSError):  # a file the reader does not turn into ValueError
            message = (
                f"a Dask worker cannot read the input: {exc}; accepted: input every worker "
                "sees at the same path (shared storage)"
            )
        empty = np.zeros((0, settings.num_perm), np.uint32)
        no_keys = np.zeros((0, 2), np.uint64)
        return Part(
            np.zeros(0, bool), empty, no_keys, None, np.zeros(0, np.int64), 0, report, message
        )
    clock["read"] += time.process_time() - started
    started = time.process_time()
    if texts or not sigs:
        v, s, key = sign_batch(texts, settings)
        valid.append(v)
        sigs.append(s)
        keys.append(key)
        report.records += len(texts)
    clock["signatures"] += time.process_time() - started
    return Part(
        np.concatenate(valid),
        np.concatenate(sigs),
        np.concatenate(keys),
        given if any_given else None,
        np.concatenate(positions) if positions else np.zeros(0, np.int64),
        records,
        report,
        None,
        clock,
        {name: FieldColumn(c.values, c.array()) for name, c in fields.items()},
    )


def part_meta(part: Part) -> dict:
    """What the client needs of every partition first (small): counts, report, error."""
    return {
        "n": part.n,
        "records": part.records,
        "report": part.report,
        "error": part.error,
        "seconds": part.seconds,
    }


def part_ids(part: Part, first_record: int) -> np.ndarray:
    """The partition's ids: the reader's, else the record's position in the whole input.

    Returns
    -------
    ndarray of object (str), shape (m,)
        An array, not a list: Dask serialises a list element by element (a minute for
        200,000 strings), an array in one piece.
    """
    numbers = (part.positions + first_record).astype(str).astype(object)
    if part.given_ids is not None:
        given = np.asarray(part.given_ids, dtype=object)
        numbers = np.where(np.equal(given, None), numbers, given)
    return numbers


def part_valid(part: Part) -> np.ndarray:
    return part.valid


def partition_texts(pieces: tuple[Piece, ...], reading: Reading, wanted: np.ndarray) -> list:
    """Texts of some of a partition's documents (sorted local rows), read again."""
    sink = Sink(reading.on_error, CorpusReport())
    out: list[str] = []
    row = 0
    for _, chunk in _chunks(pieces, reading, sink):
        lo, hi = np.searchsorted(wanted, [row, row + len(chunk.texts)])
        out.extend(chunk.texts[i - row] for i in wanted[lo:hi].tolist())
        row += len(chunk.texts)
    return out


def merge_reports(reports: list[CorpusReport], files: int) -> CorpusReport:
    """The partitions' reports as one, in input order (as one reader would have made it).

    Parameters
    ----------
    reports : list of CorpusReport
        One per partition, in input order.
    files : int
        The corpus's files.

    Returns
    -------
    CorpusReport
        Counts summed, skipped records per file in file order, the first ten problems.
    """
    out = CorpusReport(files=files)
    for r in reports:
        out.records += r.records
        out.skipped += r.skipped
        for path, count in r.skipped_by_file.items():
            out.skipped_by_file[path] = out.skipped_by_file.get(path, 0) + count
        out.problems.extend(r.problems[: max(0, 10 - len(out.problems))])
    return out
