"""The Dask engine's partitions and the functions its workers run on them.

Nothing here talks to a scheduler: :mod:`nearsim.dask_engine` plans on the client with
:func:`plan_partitions`, then hands these functions to Dask. Each takes and returns plain
NumPy arrays and pandas DataFrames, so the same code runs in a test on one process.

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
import pandas as pd
import pyarrow as pa

from ._arrays import unique_int
from ._corpus_formats import READERS, Sink, file_format, open_parquet, parquet_problem
from ._hashing import text_shingles
from .corpora import CorpusReport
from .lsh import TooManyPairsError, _band_keys, _emit_grouped
from .minhash import estimate_pairs
from .pipeline import ROW_STAGES, Runner
from .settings import Settings

_PLAIN_JSONL = (".jsonl", ".ndjson", ".json")
_COUNT_BLOCK = 1 << 22


class Reading(NamedTuple):
    """How the records are read (as for :func:`nearsim.iter_corpus`)."""

    text_field: str
    id_field: str | None
    on_error: str
    batch_size: int = 10_000


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
        The corpus's files in input order (:func:`nearsim.corpora._expand`).
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
        if piece.span is not None:
            chunks = READERS["jsonl"](*args, span=(*piece.span, piece.first_line))
        elif piece.row_groups is not None:
            chunks = READERS["parquet"](*args, row_groups=piece.row_groups)
        else:
            chunks = READERS[file_format(path)](*args)
        end = 0
        for chunk in chunks:
            yield offset, chunk
            end = chunk.end
        offset += end


@dataclass
class Part:
    """One partition after reading: the pipeline's row stages and what the client needs.

    Attributes
    ----------
    valid : ndarray of bool, shape (m,)
    signatures : ndarray of uint32, shape (m, num_perm)
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
    """

    valid: np.ndarray
    signatures: np.ndarray
    given_ids: list | None
    positions: np.ndarray
    records: int
    report: CorpusReport
    error: str | None = None
    seconds: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.valid.shape[0])


def _sign(texts: list[str], settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    run = Runner(texts, settings, digest="batch")
    return run.get(ROW_STAGES[1]), run.get(ROW_STAGES[2])


def read_partition(pieces: tuple[Piece, ...], settings: Settings, reading: Reading) -> Part:
    """Read a partition and run the pipeline's row stages (mask, signatures) on it, a batch
    of ``reading.batch_size`` documents at a time.

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
    valid, sigs = [], []
    records, any_given = 0, False
    clock = {"read": 0.0, "signatures": 0.0}
    started = time.process_time()
    try:
        for offset, chunk in _chunks(pieces, reading, sink):
            positions.append(np.asarray(chunk.positions, dtype=np.int64) + offset)
            texts.extend(chunk.texts)
            any_given |= chunk.ids is not None
            given.extend(chunk.ids if chunk.ids is not None else [None] * len(chunk.texts))
            records = offset + chunk.end
            if len(texts) >= reading.batch_size:
                clock["read"] += time.process_time() - started
                started = time.process_time()
                v, s = _sign(texts, settings)
                valid.append(v)
                sigs.append(s)
                report.records += len(texts)
                texts = []
                clock["signatures"] += time.process_time() - started
                started = time.process_time()
    except ValueError as exc:
        empty = np.zeros((0, settings.num_perm), np.uint32)
        return Part(np.zeros(0, bool), empty, None, np.zeros(0, np.int64), 0, report, str(exc))
    clock["read"] += time.process_time() - started
    started = time.process_time()
    if texts or not sigs:
        v, s = _sign(texts, settings)
        valid.append(v)
        sigs.append(s)
        report.records += len(texts)
    clock["signatures"] += time.process_time() - started
    return Part(
        np.concatenate(valid),
        np.concatenate(sigs),
        given if any_given else None,
        np.concatenate(positions) if positions else np.zeros(0, np.int64),
        records,
        report,
        None,
        clock,
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


# -- bands: records shuffled by key, buckets turned into pair codes -----------------------
BAND_META = pd.DataFrame(
    {
        "key": np.zeros(0, np.uint64),
        "band": np.zeros(0, np.uint16),
        "row": np.zeros(0, np.int64),
    }
)
CODE_META = pd.DataFrame({"code": np.zeros(0, np.int64)})


def band_frame(part: Part, settings: Settings, start: int) -> pd.DataFrame:
    """One record per band of every valid document: (band key, band, global row).

    The key is :func:`nearsim.lsh.candidate_pairs`'s 64-bit hash of the band's values.
    """
    rows = start + np.flatnonzero(part.valid).astype(np.int64)
    sub = np.ascontiguousarray(part.signatures[part.valid])
    r = settings.rows
    keys = [_band_keys(sub, b * r, b * r + r) for b in range(settings.bands)]
    return pd.DataFrame(
        {
            "key": np.concatenate(keys) if keys else np.zeros(0, np.uint64),
            "band": np.repeat(np.arange(settings.bands, dtype=np.uint16), rows.shape[0]),
            "row": np.tile(rows, settings.bands),
        }
    )


def bucket_codes(df: pd.DataFrame, n: int, max_pairs: int) -> pd.DataFrame:
    """Pair codes ``i * n + j`` (i < j) of the documents sharing a (band, key) bucket.

    Every bucket is whole in one shuffled partition. Codes repeat across partitions when a
    pair shares several bands; keys that collide are weeded out later, when the bands are
    compared value by value.

    Raises
    ------
    TooManyPairsError
        When the buckets of this partition would make more than ``max_pairs`` pairs.
    """
    key = df["key"].to_numpy()
    band = df["band"].to_numpy()
    row = df["row"].to_numpy()
    order = np.lexsort((row, band, key))
    key, band, row = key[order], band[order], row[order]
    change = (key[1:] != key[:-1]) | (band[1:] != band[:-1])
    bounds = np.concatenate([[0], np.flatnonzero(change) + 1, [key.shape[0]]]).astype(np.int64)
    sizes = np.diff(bounds)
    keep = sizes > 1
    count = int((sizes[keep] * (sizes[keep] - 1) // 2).sum())
    if count > max_pairs:
        raise TooManyPairsError(
            f"one partition of the band buckets would give {count:,} candidate pairs, more "
            f"than max_pairs={max_pairs:,} (its biggest bucket holds {int(sizes.max()):,} "
            "documents). Many documents are identical on a whole band: use more rows per "
            "band (a higher effective threshold), remove exact duplicates first, or raise "
            "max_pairs"
        )
    se = np.stack([bounds[:-1][keep], bounds[1:][keep]], axis=1).ravel()
    codes = np.empty(count, dtype=np.int64)
    _emit_grouped(row, se, n, codes, 0)
    return pd.DataFrame({"code": unique_int(codes)})


# -- the join: each candidate meets both documents' signatures ----------------------------
_BINARY = pd.ArrowDtype(pa.large_binary())


def rows_as_bytes(rows: np.ndarray) -> pd.Series:
    """Each row of a uint32 array as one binary value, without a copy per row.

    A shuffle moves one binary column several times faster than ``num_perm`` integer
    columns (Arrow converts and splits a frame column by column).
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    m, width = rows.shape[0], 4 * rows.shape[1]
    offsets = np.arange(0, (m + 1) * width, width, dtype=np.int64)
    array = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), m, [None, pa.py_buffer(offsets), pa.py_buffer(rows)]
    )
    return pd.Series(pd.arrays.ArrowExtensionArray(array))


def bytes_as_rows(values: pd.Series, k: int) -> np.ndarray:
    """The inverse of :func:`rows_as_bytes`: shape (m, k), uint32."""
    array = pa.array(values.array)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    m = len(array)
    if m == 0:
        return np.zeros((0, k), dtype=np.uint32)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + m + 1]
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    if data.shape[0] != 4 * k * m or not (np.diff(offsets) == 4 * k).all():
        raise ValueError(f"signature bytes of the wrong length; accepted: {4 * k} bytes a row")
    return data.view(np.uint32).reshape(m, k)


def attach_meta(exact: bool) -> pd.DataFrame:
    cols = {"b": np.zeros(0, np.int64), "code": np.zeros(0, np.int64)}
    cols["sig_a"] = pd.Series([], dtype=_BINARY)
    if exact:
        cols["text_a"] = pd.Series([], dtype=str)
    return pd.DataFrame(cols)


def attach_first(
    df: pd.DataFrame, part: Part, start: int, n: int, exact: tuple | None
) -> pd.DataFrame:
    """The distinct candidates whose first document is in this partition, each with that
    document's signature (and, for ``verify="exact"``, its text, read again).

    ``df`` is indexed by pair code and holds the codes with ``code // n`` in this
    partition, repeats side by side.
    """
    codes = unique_int(df.index.to_numpy(dtype=np.int64))
    a = codes // n
    local = a - start
    out = pd.DataFrame({"b": codes % n, "code": codes})
    out["sig_a"] = rows_as_bytes(part.signatures[local])
    if exact is not None:
        pieces, reading = exact
        wanted, inverse = np.unique(local, return_inverse=True)
        texts = np.asarray(partition_texts(pieces, reading, wanted), dtype=object)
        out["text_a"] = pd.Series(texts[inverse], dtype=str)
    return out


def _any_band_equal(x: np.ndarray, y: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Whether rows x[t] and y[t] are equal on at least one whole band, value by value."""
    used = bands * rows
    out = np.empty(x.shape[0], dtype=bool)
    step = 1 << 15
    for lo in range(0, x.shape[0], step):
        hi = min(lo + step, x.shape[0])
        eq = x[lo:hi, :used] == y[lo:hi, :used]
        out[lo:hi] = eq.reshape(hi - lo, bands, rows).all(axis=2).any(axis=1)
    return out


def accepted_meta(exact: bool) -> pd.DataFrame:
    cols = {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)}
    cols["estimate"] = np.zeros(0, np.float64)
    if exact:
        cols["jaccard"] = np.zeros(0, np.float64)
    return pd.DataFrame(cols)


def verify_second(
    df: pd.DataFrame,
    part: Part,
    start: int,
    n: int,
    settings: Settings,
    verify: str,
    exact: tuple | None,
) -> tuple[pd.DataFrame, int]:
    """Candidates whose second document is in this partition: the bands compared value by
    value (a key collision makes no candidate), the MinHash estimate, and the filter.

    Returns
    -------
    (pandas.DataFrame, int)
        The accepted pairs (a, b, estimate, and jaccard with ``verify="exact"``), sorted
        by (a, b); and how many candidates there are.
    """
    k = part.signatures.shape[1]
    b = df.index.to_numpy(dtype=np.int64)
    a = df["code"].to_numpy(dtype=np.int64) // n
    sig_a = bytes_as_rows(df["sig_a"], k)
    sig_b = part.signatures[b - start]
    same = _any_band_equal(sig_a, sig_b, settings.bands, settings.rows)
    a, b, sig_a, sig_b = a[same], b[same], sig_a[same], sig_b[same]
    m = a.shape[0]
    inside = np.arange(m, dtype=np.int64)
    est = estimate_pairs(np.concatenate([sig_a, sig_b]), np.stack([inside, inside + m], axis=1))
    out = pd.DataFrame({"a": a, "b": b, "estimate": est})
    if verify == "estimate":
        keep = est >= settings.threshold
    elif verify == "exact":
        texts_a = df["text_a"].to_numpy(dtype=object)[same]
        out["jaccard"] = _exact(texts_a, a, b, start, exact, settings)
        keep = out["jaccard"].to_numpy() >= settings.threshold
    else:
        keep = np.ones(m, dtype=bool)
    out = out[keep]
    order = np.lexsort((out["b"].to_numpy(), out["a"].to_numpy()))
    return out.iloc[order].reset_index(drop=True), m


def _exact(
    texts_a: np.ndarray, a: np.ndarray, b: np.ndarray, start: int, exact, settings: Settings
) -> np.ndarray:
    """Exact Jaccard of pairs (a, b) from their texts: a's shipped, b's read again here."""
    from .exact import pair_jaccard

    pieces, reading = exact
    ua, first, ia = np.unique(a, return_index=True, return_inverse=True)
    ub, ib = np.unique(b - start, return_inverse=True)
    texts = texts_a[first].tolist() + partition_texts(pieces, reading, ub)
    flat = text_shingles(texts, **settings.shingle_options())
    pairs = np.stack([ia, ua.shape[0] + ib], axis=1).astype(np.int64)
    return pair_jaccard(flat, pairs)


def accepted_frame(result: tuple[pd.DataFrame, int]) -> pd.DataFrame:
    return result[0]


def candidate_count(result: tuple[pd.DataFrame, int]) -> int:
    return result[1]


# -- clusters beyond the client: iterated min-label propagation ---------------------------
EDGE_META = pd.DataFrame({"node": np.zeros(0, np.int64), "other": np.zeros(0, np.int64)})
MESSAGE_META = pd.DataFrame({"to": np.zeros(0, np.int64), "label": np.zeros(0, np.int64)})


def edge_frame(result: tuple[pd.DataFrame, int], side: str) -> pd.DataFrame:
    """The accepted pairs as (node = ``side``'s document, other = the other document)."""
    pairs = result[0]
    other = "b" if side == "a" else "a"
    return pd.DataFrame(
        {"node": pairs[side].to_numpy(np.int64), "other": pairs[other].to_numpy(np.int64)}
    )


def first_labels(start: int, n: int) -> np.ndarray:
    """Every document its own label (its row)."""
    return np.arange(start, start + n, dtype=np.int64)


def label_messages(
    by_first: pd.DataFrame, by_second: pd.DataFrame, labels: np.ndarray, start: int
) -> pd.DataFrame:
    """Each node's label, sent to its neighbours along this partition's edges (both frames
    are indexed by a node of this partition)."""
    frames = [
        pd.DataFrame(
            {
                "to": e["other"].to_numpy(np.int64),
                "label": labels[e.index.to_numpy(np.int64) - start],
            }
        )
        for e in (by_first, by_second)
    ]
    return pd.concat(frames, ignore_index=True)


def lower_labels(labels: np.ndarray, messages: pd.DataFrame, start: int) -> tuple[np.ndarray, int]:
    """Each node's label lowered to the smallest label sent to it; and how many changed."""
    new = labels.copy()
    np.minimum.at(new, messages.index.to_numpy(np.int64) - start, messages["label"].to_numpy())
    return new, int((new != labels).sum())
