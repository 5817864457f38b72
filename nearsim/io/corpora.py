"""Streaming readers for whole corpora: JSON lines, Parquet, CSV/TSV, text and HTML files.

A corpus is read in batches of ``batch_size`` records (pandas DataFrames with columns ``id``
and ``text``, both str), so a corpus of any size is read in memory bounded by the batch.

Formats, by extension (any case):

* ``.jsonl``, ``.ndjson``, ``.json``: one JSON object per line (JSON Lines), UTF-8, read
  with the standard library's :mod:`json`; also compressed, as ``.jsonl.gz`` (gzip) or
  ``.jsonl.zst`` (zstandard). Blank lines are not records; CRLF line ends are fine.
* ``.parquet``: pyarrow reads only the text (and id) column, a row group at a time.
* ``.csv``, ``.tsv``: the CSV rules of :mod:`nearsim.io.documents.csv_reader` (delimiter
  sniffed, tab for ``.tsv``; header row detected; strict quoting), streamed. ``text_field``
  names the column. Cells are kept as they are (an empty cell is an empty document).
* ``.txt``, ``.md``, ``.html``, ``.htm``: each file one document (HTML: its visible text,
  see :func:`nearsim.io.documents.read_document_file`); its id is the file's path.

A folder stands for the supported files under it (sub-folders too, as a partitioned Parquet
dataset has), sorted by their path; names starting with ``.`` or ``_`` are left out.

Ids: the ``id_field`` value as str (a string or an integer); without ``id_field``, the
record's 0-based position across all inputs, counting bad records too, so an id always
points at the same record whether bad ones are skipped or not.

Bad records — a line that is not JSON, a JSON value that is not an object, a missing field
(the message lists the fields found), a text that is not a string, NUL bytes or invalid
UTF-8 in a line, a null in a Parquet column, a CSV row of the wrong width, a file without
text — raise ``ValueError`` naming the file and the line (JSON lines), row index (Parquet)
or row (CSV) with ``on_error="fail"``. With ``on_error="skip"`` they are left out and
counted in the reader's :class:`CorpusReport` (``reader.report``; ``df.attrs`` of
:func:`read_corpus`), whose :meth:`~CorpusReport.summary` is a line the command line can
print. A file that cannot be read at all (not decompressible, not Parquet, malformed CSV
quoting, which would put the rows after it in doubt) raises in both modes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nearsim.io.documents.decoding import short
from nearsim.io.fields import check_fields, peek
from nearsim.io.formats import CORPUS_EXTENSIONS, READERS, Sink, file_format
from nearsim.utils.validation import (
    ArgumentTypeError,
    check_choice,
    check_int,
    check_unicode,
    shown,
)

if TYPE_CHECKING:  # pandas is imported where a frame is built: nearsim dedup never loads it
    import pandas as pd

__all__ = [
    "CORPUS_EXTENSIONS",
    "CorpusInfo",
    "CorpusReader",
    "CorpusReport",
    "inspect_corpus",
    "iter_corpus",
    "read_corpus",
    "sample_corpus",
]

MAX_BATCH = 10_000_000
_KEPT_PROBLEMS = 10
_SAMPLE_BATCH = 10_000
_ACCEPTED_TYPES = ", ".join(CORPUS_EXTENSIONS)


# --------------------------------------------------------------------------------------
# Where the records are: paths and formats
# --------------------------------------------------------------------------------------


def _expand(paths: object, name: str = "paths") -> list[Path]:
    """The files to read, in order; folders expanded; every error a ValueError."""
    accepted = "a path (str or os.PathLike) or a non-empty list of paths"
    items = [paths] if isinstance(paths, str | os.PathLike) else paths
    if not isinstance(items, list | tuple) or not items:
        raise ArgumentTypeError(f"{name}={shown(paths)} is not accepted; accepted: {accepted}")
    files: list[Path] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise ArgumentTypeError(
                f"{name} holds {shown(item)}, which is not accepted; accepted: {accepted}"
            )
        if isinstance(item, str) and not item:  # Path("") is the working folder
            raise ValueError(f"{name} holds '', which is not accepted; accepted: {accepted}")
        path = Path(check_unicode(os.fspath(item), "path") if isinstance(item, str) else item)
        if path.is_dir():
            found = sorted(
                (
                    p
                    for p in path.rglob("*")
                    if p.is_file()
                    and file_format(p) is not None
                    and not any(part.startswith((".", "_")) for part in p.relative_to(path).parts)
                ),
                key=lambda p: p.relative_to(path).as_posix(),
            )
            if not found:
                raise ValueError(
                    f"folder {short(str(path), 80)} holds no supported files; "
                    f"accepted file types: {_ACCEPTED_TYPES}"
                )
            files.extend(found)
        elif path.is_file():
            if file_format(path) is None:
                raise ValueError(
                    f"file {short(str(path), 80)} is not of a supported type; "
                    f"accepted file types: {_ACCEPTED_TYPES}"
                )
            files.append(path)
        else:
            raise ValueError(
                f"path {short(str(path), 80)} does not exist; accepted: an existing file or folder"
            )
    return files


# --------------------------------------------------------------------------------------
# Reports of bad records
# --------------------------------------------------------------------------------------


@dataclass
class CorpusReport:
    """What a corpus reader read and what it left out, filled in as it reads.

    Attributes
    ----------
    records : int
        Records read and kept so far.
    skipped : int
        Bad records left out (always 0 with ``on_error="fail"``).
    skipped_by_file : dict of str to int
        Bad records per file (the path as str), for the files that had any.
    problems : list of str
        The messages of the first ten bad records.
    files : int
        Files opened so far.
    """

    records: int = 0
    skipped: int = 0
    skipped_by_file: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    files: int = 0

    def summary(self) -> str:
        """One line for a person: what was read and what was skipped, and the first problem.

        Examples
        --------
        >>> CorpusReport(records=3, files=1).summary()
        'read 3 records from 1 file; no bad records'
        """
        read = f"read {self.records:,} record{'s' * (self.records != 1)} from {self.files:,} "
        read += f"file{'s' * (self.files != 1)}"
        if not self.skipped:
            return read + "; no bad records"
        where = ", ".join(f"{n:,} in {p!r}" for p, n in self.skipped_by_file.items())
        noun = "record" if self.skipped == 1 else "records"
        return f"{read}; skipped {self.skipped:,} bad {noun} ({where}); first: {self.problems[0]}"

    def _bad(self, path: Path, message: str, count: int = 1) -> None:
        key = str(path)
        self.skipped += count
        self.skipped_by_file[key] = self.skipped_by_file.get(key, 0) + count
        if len(self.problems) < _KEPT_PROBLEMS:
            self.problems.append(message)


# --------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------


def _frame(ids: list[str], texts: list[str], extra: dict[str, list[str]] | None = None):
    import pandas as pd

    columns = {"id": pd.Series(ids, dtype=str), "text": pd.Series(texts, dtype=str)}
    for name, values in (extra or {}).items():
        columns[name] = pd.Series(values, dtype=str)
    return pd.DataFrame(columns)


class CorpusReader(Iterator["pd.DataFrame"]):
    """The batches of a corpus (an iterator of DataFrames) and the report of what was read.

    Returned by :func:`iter_corpus`, which documents the arguments (``files`` is its
    ``paths``: files and folders, a folder expanded to its supported files). Iterate over
    it for the batches; ``report`` (a :class:`CorpusReport`) fills in as it goes and is
    complete when the iteration ends.
    """

    def __init__(
        self,
        files: list[Path],
        text_field: str,
        id_field: str | None,
        batch_size: int,
        on_error: str,
        fields: tuple[str, ...] = (),
    ) -> None:
        files = _expand(files, "files")
        text_field, id_field = _check_fields(text_field, id_field)
        batch_size = check_int(batch_size, "batch_size", low=1, high=MAX_BATCH)
        on_error = check_choice(on_error, "on_error", ("fail", "skip"))
        fields = check_fields(fields)
        for name in fields:
            if name in ("id", "text"):
                raise ValueError(
                    f"fields holds {name!r}, the name of a column the reader makes; accepted: "
                    "other field names (the id field is id_field)"
                )
        documents = [p for p in files if file_format(p) == "document"]
        if fields and documents:
            raise ValueError(
                f"file {short(str(documents[0]), 80)} is a text or HTML file, which has no "
                f"field {fields[0]!r}; accepted: JSON lines, Parquet or CSV files for fields"
            )
        self.files = files
        self.fields = fields
        self.report = CorpusReport()
        self._records = self._run(
            text_field, id_field, batch_size, Sink(on_error, self.report), fields
        )
        self._batches = (batch[:2] for batch in self._records)

    @property
    def skipped(self) -> int:
        """Bad records left out so far (``report.skipped``)."""
        return self.report.skipped

    def __iter__(self) -> CorpusReader:
        return self

    def __next__(self) -> pd.DataFrame:
        ids, texts, extra = next(self._records)
        return _frame(ids, texts, extra)

    def lists(self) -> Iterator[tuple[list[str], list[str]]]:
        """The remaining batches as ``(ids, texts)`` lists of str, without DataFrames.

        What ``nearsim dedup`` reads: it never loads pandas. ``report`` fills in the same.
        """
        return self._batches

    def records(self) -> Iterator[tuple[list[str], list[str], dict[str, list[str]]]]:
        """The remaining batches as ``(ids, texts, extra)``: lists of str, and the values of
        each of ``fields`` (a dict of field name to list of str, in the field order;
        empty without fields), without DataFrames. Use either this or :meth:`lists` or
        the iteration, not two of them."""
        return self._records

    def _run(
        self,
        text_field: str,
        id_field: str | None,
        batch_size: int,
        sink: Sink,
        fields: tuple[str, ...],
    ) -> Iterator[tuple[list[str], list[str], dict[str, list[str]]]]:
        ids: list[str] = []
        texts: list[str] = []
        extra: dict[str, list[str]] = {name: [] for name in fields}
        columns = list(extra.values())
        offset = 0
        options = {"fields": fields} if fields else {}
        for path in self.files:
            self.report.files += 1
            end = 0
            for chunk in READERS[file_format(path)](path, text_field, id_field, sink, **options):
                if chunk.ids is None:
                    chunk.ids = (
                        (np.asarray(chunk.positions, dtype=np.int64) + offset).astype(str).tolist()
                    )
                ids.extend(chunk.ids)
                texts.extend(chunk.texts)
                for column, values in zip(columns, chunk.extra or [[]] * len(columns), strict=True):
                    column.extend(values)
                end = chunk.end
                while len(texts) >= batch_size:
                    batch = ids[:batch_size], texts[:batch_size]
                    parts = {name: values[:batch_size] for name, values in extra.items()}
                    del ids[:batch_size], texts[:batch_size]
                    for values in columns:
                        del values[:batch_size]
                    self.report.records += batch_size
                    yield *batch, parts
            offset += end
        if texts:
            self.report.records += len(texts)
            yield ids, texts, extra


def _check_fields(text_field: object, id_field: object) -> tuple[str, str | None]:
    text_field = check_unicode(text_field, "text_field", what="a field name (str)")
    if not text_field:
        raise ValueError("text_field='' is not accepted; accepted: a non-empty field name")
    if id_field is not None:
        id_field = check_unicode(id_field, "id_field", what="a field name (str), or None")
        if not id_field:
            raise ValueError(
                "id_field='' is not accepted; accepted: a non-empty field name, "
                "or None (ids are record numbers)"
            )
    return text_field, id_field


def iter_corpus(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    batch_size: int = 10_000,
    on_error: str = "fail",
    fields=None,
) -> CorpusReader:
    """Read a corpus batch by batch, in bounded memory.

    Parameters
    ----------
    paths : str or os.PathLike, or a list of them
        Files and folders, read in the order given (a folder: its supported files, sorted
        by path). Formats by extension: see :data:`CORPUS_EXTENSIONS` and the module text.
    text_field : str
        The field (JSON), column (Parquet, CSV) holding each document's text.
    id_field : str or None
        The field holding each document's id (a string or an integer, returned as str);
        None: the record's 0-based position across all inputs (bad records count too).
        Text and HTML files always have their path as id.
    batch_size : int
        Records per batch, 1 to 10,000,000; every batch but the last has exactly this many.
    on_error : {"fail", "skip"}
        ``"fail"``: the first bad record raises ``ValueError`` naming the file and the line
        or row. ``"skip"``: bad records are left out and counted in ``report``.
    fields : sequence of str, optional
        Further fields (JSON keys, Parquet or CSV columns) to read beside the text, each
        value as :func:`nearsim.io.fields.field_text` writes it: a string as it is, a
        number or boolean as JSON, a missing field or null as ``""``. Not for text and
        HTML files, which have no fields; not ``"id"`` or ``"text"``.

    Returns
    -------
    CorpusReader
        An iterator of pandas DataFrames with columns ``id`` and ``text`` (str each), then
        one str column per field of ``fields``, in input order, a default RangeIndex each;
        ``.report`` says what was read and skipped.

    Raises
    ------
    ValueError
        Bad arguments, a path that does not exist, an unsupported file type, a folder
        without supported files (at once); bad records (``on_error="fail"``) and files
        that cannot be read (while iterating).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.jsonl").write_text('{"text": "one"}\\n{"text": "two"}\\n["bad"]\\n')
    >>> reader = iter_corpus(folder / "a.jsonl", batch_size=1, on_error="skip")
    >>> [batch["text"].tolist() for batch in reader]
    [['one'], ['two']]
    >>> reader.report.skipped
    1
    """
    return CorpusReader(_expand(paths), text_field, id_field, batch_size, on_error, fields)


def _with_report(df: pd.DataFrame, report: CorpusReport) -> pd.DataFrame:
    df.attrs["skipped"] = report.skipped
    df.attrs["skipped_by_file"] = dict(report.skipped_by_file)
    df.attrs["problems"] = list(report.problems)
    return df


def read_corpus(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    batch_size: int = 10_000,
    on_error: str = "fail",
    fields=None,
) -> pd.DataFrame:
    """Read a whole corpus into one DataFrame (the batches of :func:`iter_corpus`, joined).

    Parameters
    ----------
    paths, text_field, id_field, batch_size, on_error, fields
        As for :func:`iter_corpus`.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` and ``text`` (str), and one per field of ``fields``, one row per good
        record in input order, a default RangeIndex. ``attrs["skipped"]`` (int),
        ``attrs["skipped_by_file"]`` (dict of path to count) and ``attrs["problems"]`` (the
        first ten messages) report the bad records.

    Raises
    ------
    ValueError
        As :func:`iter_corpus`.
    """
    reader = iter_corpus(
        paths,
        text_field=text_field,
        id_field=id_field,
        batch_size=batch_size,
        on_error=on_error,
        fields=fields,
    )
    ids: list[str] = []
    texts: list[str] = []
    extra: dict[str, list[str]] = {name: [] for name in reader.fields}
    for batch_ids, batch_texts, batch_extra in reader.records():
        ids += batch_ids
        texts += batch_texts
        for name, values in batch_extra.items():
            extra[name] += values
    return _with_report(_frame(ids, texts, extra), reader.report)


# --------------------------------------------------------------------------------------
# A uniform random sample, in one pass and bounded memory
# --------------------------------------------------------------------------------------


class _Reservoir:
    """Algorithm R (Vitter 1985), a batch at a time: a uniform sample of ``n`` items.

    Item t (0-based) of the stream enters with probability n / (t + 1), replacing a slot
    drawn uniformly; within a batch the draws are vectorised and, where two items draw the
    same slot, the later one wins, exactly as one at a time. One uniform float is drawn
    per item past the first n, so the sample does not depend on how the stream is cut into
    batches.
    """

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.seen = 0
        self.where = np.full(n, -1, dtype=np.int64)  # stream position held in each slot

    def offer(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Take in the next ``m`` items; return (items of the batch kept, their slots)."""
        t = self.seen + np.arange(m, dtype=np.int64)
        fill = np.flatnonzero(t < self.n)
        later = np.flatnonzero(t >= self.n)
        slot = np.floor(self.rng.random(later.size) * (t[later] + 1)).astype(np.int64)
        hit = slot < self.n
        later, slot = later[hit], slot[hit]
        last = later.size - 1 - np.unique(slot[::-1], return_index=True)[1]
        items = np.concatenate([fill, later[last]])
        slots = np.concatenate([t[fill], slot[last]])
        self.where[slots] = t[items]
        self.seen += m
        return items, slots


def sample_corpus(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    n: int = 20_000,
    *,
    seed: int = 0,
    text_field: str = "text",
    id_field: str | None = None,
    on_error: str = "fail",
) -> tuple[pd.DataFrame, int]:
    """A seeded uniform random sample of ``n`` records of a corpus, in one streaming pass.

    Every set of ``n`` good records is equally likely (reservoir sampling); memory holds
    the sample and one batch. The same files, ``n`` and ``seed`` give the same sample.

    Parameters
    ----------
    paths, text_field, id_field, on_error
        As for :func:`iter_corpus`.
    n : int
        Sample size, 1 to 10,000,000; a corpus of at most ``n`` good records is returned
        whole.
    seed : int
        Seed (≥ 0) of ``numpy.random.default_rng``.

    Returns
    -------
    (pandas.DataFrame, int)
        The sample (columns ``id`` and ``text``, str, in input order, ids as
        :func:`read_corpus` gives them; ``attrs`` as :func:`read_corpus`'s) and the number of
        good records in the corpus.

    Raises
    ------
    ValueError
        As :func:`iter_corpus`.
    """
    n = check_int(n, "n", low=1, high=MAX_BATCH)
    seed = check_int(seed, "seed", low=0)
    reader = iter_corpus(
        paths, text_field=text_field, id_field=id_field, batch_size=_SAMPLE_BATCH, on_error=on_error
    )
    reservoir = _Reservoir(n, seed)
    ids: list[str | None] = [None] * n
    texts: list[str | None] = [None] * n
    for batch in reader:
        items, slots = reservoir.offer(len(batch))
        batch_ids, batch_texts = batch["id"].tolist(), batch["text"].tolist()
        for item, slot in zip(items.tolist(), slots.tolist(), strict=True):
            ids[slot], texts[slot] = batch_ids[item], batch_texts[item]
    taken = min(n, reservoir.seen)
    order = np.argsort(reservoir.where[:taken], kind="stable").tolist()
    df = _frame([ids[i] for i in order], [texts[i] for i in order])
    return _with_report(df, reader.report), reservoir.seen


@dataclass(frozen=True)
class CorpusInfo:
    """What a corpus offers, for a field picker.

    Attributes
    ----------
    fields : tuple of str
        The fields (JSON keys, Parquet or CSV columns) of the first file's first records,
        in order of first appearance; ``("text",)`` for text and HTML files.
    text_field : str
        The field that looks most like the documents' text: most words per value (at the
        median), ties to the longer values, then to the first field.
    files : int
        How many files the paths stand for.
    """

    fields: tuple[str, ...]
    text_field: str
    files: int


def inspect_corpus(paths, *, records: int = 200) -> CorpusInfo:
    """The fields of a corpus and the one that looks like its text, from its first records.

    Parameters
    ----------
    paths : path or list of paths
        As for :func:`iter_corpus`.
    records : int
        How many records of the first file to look at, 1 to 100,000.

    Returns
    -------
    CorpusInfo

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> line = '{"id": 7, "title": "Ferry", "body": "The ferry left at dawn with forty people."}'
    >>> _ = (folder / "a.jsonl").write_text(line + "\\n")
    >>> info = inspect_corpus(folder / "a.jsonl")
    >>> info.fields, info.text_field
    (('id', 'title', 'body'), 'body')
    """
    files = _expand(paths)
    records = check_int(records, "records", low=1, high=100_000)
    names, values = peek(files[0], records)
    if not names:
        raise ValueError(
            f"file {short(str(files[0]), 80)} has no records to read fields from; "
            "accepted: a corpus with at least one good record"
        )

    def score(name: str) -> tuple:
        cells = [v for v in values.get(name, []) if v.strip()]
        if not cells:
            return (0.0, 0.0)
        words = [sum(1 for w in v.split() if any(c.isalpha() for c in w)) for v in cells]
        return (float(np.median(words)), float(np.median([len(v) for v in cells])))

    best = max(range(len(names)), key=lambda i: (score(names[i]), -i))
    return CorpusInfo(tuple(names), names[best], len(files))
