"""``nearsim.Index``: a persistent, incremental index that new documents are checked against.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "posts"
>>> idx = Index.create(folder)
>>> first = idx.add(["The council approved the new budget on Monday evening."], ["a"])
>>> found = idx.add(["The council approved the new budget on Monday evening!",
...                  "A storm closed the harbour for two days."], ["b", "c"])
>>> found[["row", "id", "match_id", "estimate", "stored"]].values.tolist()
[[0, 'b', 'a', 0.9609375, True], [1, 'c', '', nan, True]]
>>> len(idx), len(Index.open(folder))
(3, 3)

Storage: :mod:`nearsim.index.storage` (segment files, the manifest, the writer lock); the
matching rule: :mod:`nearsim.index.matching`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nearsim.index import quick, storage
from nearsim.index import segments as segment_rules
from nearsim.index.batch import (
    Signed,
    check_ids,
    few_threads,
    settings_differences,
    stored_settings,
)
from nearsim.index.segments import (
    VALID,
    decode_strings,
    encode_strings,
    merge_segments,
    new_segment,
    tail_to_merge,
)
from nearsim.index.stored import BatchMatches, Stored
from nearsim.settings import RunSettings, Settings
from nearsim.utils.validation import (
    check_bool,
    check_float,
    check_instance,
    fail,
    is_int,
)
from nearsim.utils.validation_arrays import check_texts

if TYPE_CHECKING:
    import pandas as pd

BUCKET_LIMIT = 100
"""A bucket of more distinct documents is *hot*: a new document is compared with its first
member and the one stored just before it (``nearsim dedup``'s ``BUCKET_LIMIT``)."""


class Index:
    """A folder of MinHash signatures and band tables that documents are added to and
    checked against, with the settings fixed when it was created.

    Use :meth:`create` for a new index and :meth:`open` for an existing one. Any number of
    processes may read an index while one adds to it; an add is atomic (a process killed
    during it leaves the index as before or as after the call). Opening maps the segment
    files; nothing is read until a query needs it.
    """

    def __init__(self, folder: Path, _token: object = None) -> None:
        if _token is not _PRIVATE:
            raise TypeError("use Index.create(path, settings) or Index.open(path)")
        self.path = folder
        self._cache: dict = {}
        self._stamp = None
        self._reload()

    # -- making and opening -------------------------------------------------------------
    @classmethod
    def create(
        cls, path, settings: RunSettings | None = None, *, keep_texts: bool = False
    ) -> Index:
        """A new, empty index in folder ``path``.

        Parameters
        ----------
        path : str or os.PathLike
            A folder that does not exist or is empty.
        settings : RunSettings or Settings, optional
            Shingling, MinHash, banding and threshold (default ``RunSettings()``); only the
            run's fields are kept, and they never change.
        keep_texts : bool
            Also store each document's text (UTF-8, as given), so that a match can be
            explained shingle by shingle and with its exact Jaccard.

        Raises
        ------
        ValueError
            ``path`` is a file, or a folder that is not empty (an index already, or not).
        """
        folder = _folder(path)
        if settings is None:
            settings = RunSettings()
        settings = check_instance(settings, "settings", RunSettings, "a nearsim RunSettings")
        manifest = storage.Manifest(
            settings=settings.run_settings().to_dict(),
            bucket_limit=BUCKET_LIMIT,
            keep_texts=check_bool(keep_texts, "keep_texts"),
            generation=0,
            segments=(),
        )
        storage.create_folder(folder, manifest)
        return cls(folder, _PRIVATE)

    @classmethod
    def open(cls, path, settings: RunSettings | None = None) -> Index:
        """An existing index.

        Parameters
        ----------
        path : str or os.PathLike
        settings : RunSettings or Settings, optional
            The settings the caller means to use: when given, any run setting that differs
            from the index's is refused (never silently compared).

        Raises
        ------
        ValueError
            The folder is missing, not a nearsim index, damaged, or built with other
            settings than ``settings``.
        """
        idx = cls(_folder(path), _PRIVATE)
        if settings is not None:
            given = check_instance(settings, "settings", RunSettings, "a nearsim RunSettings")
            diff = settings_differences(idx._run, given.run_settings())
            if diff:
                raise storage.IndexFolderError(
                    f"the index {str(idx.path)!r} was built with other settings than given: "
                    + "; ".join(diff)
                    + "; accepted: the index's own settings (they are fixed when it is built)"
                )
        return idx

    def _reload(self) -> None:
        self._use(*storage.load(self.path, self._cache))

    def _use(self, manifest: storage.Manifest, segments: list, stamp) -> None:
        try:
            run = stored_settings(manifest.settings)
        except (TypeError, ValueError) as exc:
            raise storage.IndexFolderError(
                f"the index {str(self.path)!r} holds settings this nearsim cannot read ({exc}); "
                "accepted: an index made by this version of nearsim"
            ) from None
        self._manifest, self._segments, self._stamp, self._run = manifest, segments, stamp, run
        starts = [s.start for s in manifest.segments] + [manifest.documents]
        self._stored = Stored(segments, np.asarray(starts, dtype=np.int64))

    def _install(self, manifest: storage.Manifest) -> None:
        """Commit a new state (lock held): the manifest replaced, then mapped."""
        storage.write_manifest(self.path, manifest)
        segments = storage.map_segments(self.path, manifest.segments, self._cache)
        self._use(manifest, segments, storage.manifest_stamp(self.path))

    def _refresh(self) -> None:
        """Read the manifest again if a writer has replaced it."""
        try:
            stamp = storage.manifest_stamp(self.path)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            self._reload()

    # -- what it holds -------------------------------------------------------------------
    def __len__(self) -> int:
        self._refresh()
        return self._manifest.documents

    def __repr__(self) -> str:
        return f"Index({str(self.path)!r}, documents={len(self):,})"

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the mapped segments (they are also let go when the object is)."""
        self._cache.clear()
        self._segments = []
        self._stored = Stored([], np.zeros(1, dtype=np.int64))
        self._stamp = None

    @property
    def settings(self) -> Settings:
        """The settings the index was built with (a ``Settings``: its run fields are the
        index's; the explorer's own fields, which change no run, are the defaults)."""
        return Settings(**self._run.to_dict())

    @property
    def keep_texts(self) -> bool:
        """Whether the index stores each document's text."""
        return self._manifest.keep_texts

    @property
    def bucket_limit(self) -> int:
        return self._manifest.bucket_limit

    @property
    def segment_count(self) -> int:
        self._refresh()
        return len(self._manifest.segments)

    def disk_bytes(self) -> int:
        """Bytes of the index's files on disk (segments, manifest, lock)."""
        return sum(p.stat().st_size for p in self.path.iterdir() if p.is_file())

    def ids(self, positions) -> list[str]:
        """The ids of the documents at ``positions`` (ints from 0 to len − 1)."""
        positions = self._positions(positions)
        return self._strings(positions, "id")

    def texts(self, positions) -> list[str]:
        """The texts at ``positions``; only for an index that keeps texts."""
        if not self.keep_texts:
            raise ValueError(
                f"the index {str(self.path)!r} does not keep texts; accepted: an index built "
                "with keep_texts=True (`nearsim index build --keep-texts`)"
            )
        return self._strings(self._positions(positions), "text")

    def signatures(self, positions) -> np.ndarray:
        """The stored signatures at ``positions``: uint32, shape (m, num_perm)."""
        return self._stored.signatures(self._positions(positions), self._run.num_perm)

    def valid(self, positions) -> np.ndarray:
        """Whether each document at ``positions`` has a signature (bool, shape (m,))."""
        positions = self._positions(positions)
        seg, row = self._stored.locate(positions)
        out = np.zeros(positions.shape[0], dtype=bool)
        for s in np.unique(seg).tolist():
            pick = seg == s
            out[pick] = (self._segments[s]["flags"][row[pick]] & VALID) != 0
        return out

    def positions_of(self, doc_id: str) -> np.ndarray:
        """Every position holding id ``doc_id`` (a scan of the ids: for explanations)."""
        doc_id = str(doc_id) if is_int(doc_id) else doc_id
        if not isinstance(doc_id, str):
            raise fail("doc_id", doc_id, "an id (str)", wrong_type=True)
        self._refresh()
        wanted = np.frombuffer(doc_id.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        found = []
        for s, seg in enumerate(self._segments):
            off, data = seg["id_offsets"], seg["id_bytes"]
            same_len = np.flatnonzero(np.diff(off) == wanted.shape[0])
            for row in same_len.tolist():
                if np.array_equal(data[off[row] : off[row + 1]], wanted):
                    found.append(int(self._stored.starts[s]) + row)
        return np.asarray(found, dtype=np.int64)

    def _positions(self, positions) -> np.ndarray:
        self._refresh()
        arr = np.asarray(positions)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        n = self._manifest.documents
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise fail("positions", positions, f"integers from 0 to {n - 1}", wrong_type=True)
        arr = arr.astype(np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise fail("positions", positions, f"integers from 0 to {n - 1} (len of the index)")
        return arr

    def _strings(self, positions: np.ndarray, what: str) -> list[str]:
        seg, row = self._stored.locate(positions)
        out: list[str] = [""] * positions.shape[0]
        for s in np.unique(seg).tolist():
            pick = np.flatnonzero(seg == s)
            arrays = self._segments[s]
            values = decode_strings(arrays[f"{what}_offsets"], arrays[f"{what}_bytes"], row[pick])
            for p, v in zip(pick.tolist(), values, strict=True):
                out[p] = v
        return out

    # -- checking and adding -------------------------------------------------------------
    def sign(self, texts: list[str], ids: list[str] | None = None) -> Signed:
        """Sign documents with the index's settings (as ``nearsim dedup`` does)."""
        from nearsim.run.signing import sign_batch

        with few_threads(len(texts)):
            valid, sig, keys = sign_batch(texts, self._run)
        return Signed(valid, sig, keys, ids, texts if self.keep_texts else None)

    def _match(self, signed: Signed, *, skip: bool, solo: bool) -> BatchMatches:
        from nearsim.index.matching import match_batch

        run = self._run
        with few_threads(signed.n):
            return match_batch(
                self._stored, signed.sig, signed.valid, signed.keys, bands=run.bands,
                rows=run.rows, threshold=run.threshold, bucket_limit=self.bucket_limit,
                skip=skip, solo=solo,
            )  # fmt: skip

    def query(self, texts, ids=None) -> pd.DataFrame:
        """The stored documents each text matches; nothing is stored.

        Each text is taken alone, as :meth:`add` would take it as the only document of a
        call (a bucket is hot when its stored members and the text exceed the limit).

        Parameters
        ----------
        texts : list of str, length n
        ids : list of str, optional
            Names for the texts in the result (default: the row, as str).

        Returns
        -------
        pandas.DataFrame
            Columns row (int64, position in ``texts``), id (str), match_id (str: the stored
            document's id), estimate (float64: the MinHash estimate); one line per
            (row, match) in order of row then position in the index, and one line with
            match_id "" and estimate NaN for a row without a match.
        """
        texts = check_texts(texts)
        ids = check_ids(ids, len(texts))
        self._refresh()
        found = self._found(texts)
        names = ids if ids is not None else [str(i) for i in range(len(texts))]
        return self._frame(found, names, stored=None)

    def _found(self, texts: list[str]) -> BatchMatches:
        """Each text alone against the stored documents (checked texts, manifest read)."""
        if quick.worth_it(texts, self._run):
            return self._quick(texts)  # NumPy alone: no numba to load in a fresh process
        return self._match(self.sign(texts), skip=False, solo=True)

    def _quick(self, texts: list[str]) -> BatchMatches:
        """:meth:`query`'s matches for a few texts, signed and looked up with NumPy alone
        (:mod:`nearsim.index.quick`; the same answer as the compiled path, tested)."""
        run = self._run
        valid, sig, keys = quick.sign(texts, run)
        return quick.match_solo(
            self._stored, sig, valid, keys, bands=run.bands, rows=run.rows,
            threshold=run.threshold, bucket_limit=self.bucket_limit,
        )  # fmt: skip

    def query_signed(self, signed: Signed) -> BatchMatches:
        """:meth:`query` on a signed batch, as arrays (positions, not ids)."""
        self._refresh()
        return self._match(signed, skip=False, solo=True)

    def match_among(self, signed: Signed) -> BatchMatches:
        """The matches of a batch against the index and its own earlier documents, as if it
        were added without ``skip_duplicates``, but nothing is stored (``dedup --against``)."""
        self._refresh()
        return self._match(signed, skip=False, solo=False)

    def add(self, texts, ids=None, *, skip_duplicates: bool = False, wait: float = 0.0):
        """Store documents and return their matches, in one atomic step.

        Documents are taken in order, each checked against everything stored before it: the
        index's documents and this call's earlier ones that are stored.

        Parameters
        ----------
        texts : list of str, length n
        ids : list of str, optional
            Each document's id (an int is written in decimal); default: its position in the
            index, as str.
        skip_duplicates : bool
            Store only the documents with no match (a job board's filter in front of a
            database: of two copies in one call, the second is not stored).
        wait : float
            Seconds to wait when another process is adding to the index; 0: fail at once.

        Returns
        -------
        pandas.DataFrame
            Columns row (int64), id (str), match_id (str: a stored document, or an earlier
            document of this call that is stored), estimate (float64), stored (bool: whether
            the row was stored) — one line per (row, match), ordered by row then the match's
            position, plus one line with match_id "" and estimate NaN for every row without
            a match. A match: a document sharing a whole band whose MinHash estimate
            reaches the threshold (exact copies: the first occurrence only).

        Raises
        ------
        ValueError
            Bad texts or ids; another process is adding (``IndexBusyError``) after ``wait``.
        """
        texts = check_texts(texts)
        ids = check_ids(ids, len(texts))
        skip = check_bool(skip_duplicates, "skip_duplicates")
        wait = check_float(wait, "wait", low=0.0)
        found, names = self.add_signed(self.sign(texts, ids), skip=skip, wait=wait)
        return self._frame(found, names, stored=found.stored)

    def add_signed(self, signed: Signed, *, skip: bool = False, wait: float = 0.0, matches=True):
        """:meth:`add` on a signed batch.

        Returns
        -------
        (BatchMatches or None, list of str)
            The matches (positions, not ids; None with ``matches=False`` on an empty index,
            where none can exist) and every row's id.
        """
        with storage.writer_lock(self.path, wait):
            self._refresh()
            storage.remove_unreferenced(self.path, self._manifest)
            start = self._manifest.documents
            found = None
            if matches or start:
                found = self._match(signed, skip=skip, solo=False)
                stored, banded, band_keys = found.stored, found.banded, found.band_keys
            else:
                stored, banded, band_keys = _first_occurrences(signed, self._run)
            rows = np.flatnonzero(stored)
            position = np.full(signed.n, -1, dtype=np.int64)
            position[rows] = start + np.arange(rows.shape[0])
            names = signed.ids if signed.ids is not None else [str(p) for p in position.tolist()]
            if found is not None:
                found.position = np.where(
                    found.earlier >= 0, position[np.maximum(found.earlier, 0)], found.position
                )
            if rows.shape[0]:
                self._append(signed, rows, banded, band_keys, names, start)
        return found, names

    def _append(self, signed, rows, banded, band_keys, names, start) -> None:
        """Write the stored rows as a segment — merged with the newest segments when
        :func:`tail_to_merge` says so — and commit it (lock held)."""
        texts = None
        if self.keep_texts:
            if signed.texts is None:
                raise ValueError("an index that keeps texts needs the texts of what is added")
            texts = encode_strings([signed.texts[i] for i in rows.tolist()])
        arrays = new_segment(
            signed.sig[rows], signed.valid[rows], banded[rows], signed.keys[rows],
            band_keys[:, rows], encode_strings([names[i] for i in rows.tolist()]), texts,
        )  # fmt: skip
        entries = list(self._manifest.segments)
        counts = [e.count for e in entries] + [int(rows.shape[0])]
        first = min(tail_to_merge(counts, segment_rules.MERGE_LIMIT), len(entries))
        if first < len(entries):
            arrays = merge_segments([*self._segments[first:], arrays])
            start = entries[first].start
        name = storage.new_segment_name(self._manifest.generation + 1)
        size = storage.write_segment(self.path / name, arrays)
        entry = storage.SegmentEntry(name, start, sum(counts[first:]), size)
        self._install(self._manifest.with_segments([*entries[:first], entry]))
        for old in entries[first:]:  # readers that mapped them keep their mapping
            (self.path / old.file).unlink(missing_ok=True)

    def _columns(self, found: BatchMatches, names: list[str], stored) -> dict:
        """The result's columns (NumPy arrays and lists of str), in :meth:`add`'s order:
        one line per (row, match), ordered by row then the match, one line per row without
        a match (match_id "", estimate NaN); ``stored`` only when given."""
        n = len(names)
        k = self._run.num_perm
        matched = np.zeros(n, dtype=bool)
        matched[found.row] = True
        alone = np.flatnonzero(~matched)
        rows = np.concatenate([found.row, alone])
        within = found.earlier >= 0
        match_names = np.empty(found.row.shape[0], dtype=object)
        if (~within).any():
            match_names[~within] = self._strings(found.position[~within], "id")
        match_names[within] = [names[i] for i in found.earlier[within].tolist()]
        match_id = np.concatenate([match_names, np.full(alone.shape[0], "", dtype=object)])
        estimate = np.concatenate([found.count / np.float64(k), np.full(alone.shape[0], np.nan)])
        order = np.argsort(rows, kind="stable")
        out = {
            "row": rows[order].astype(np.int64),
            "id": [names[i] for i in rows[order].tolist()],
            "match_id": match_id[order].tolist(),
            "estimate": estimate[order],
        }
        if stored is not None:
            out["stored"] = stored[rows[order]]
        return out

    def _frame(self, found: BatchMatches, names: list[str], stored) -> pd.DataFrame:
        import pandas as pd

        out = self._columns(found, names, stored)
        out["id"] = pd.Series(out["id"], dtype=str)
        out["match_id"] = pd.Series(out["match_id"], dtype=str)
        return pd.DataFrame(out)

    def matches(self, texts) -> list[list[tuple[str, float]]]:
        """:meth:`query`'s answer without pandas: each text's matches as (id, estimate).

        For a process that checks a few documents and exits (a job board's filter): with up
        to :data:`nearsim.index.quick.QUICK_MAX` texts it loads neither numba nor pandas.

        Parameters
        ----------
        texts : list of str, length n

        Returns
        -------
        list of n lists of (str, float)
            Text i's matches: the stored document's id and the MinHash estimate, in order
            of position in the index (an empty list: no match).
        """
        texts = check_texts(texts)
        self._refresh()
        found = self._found(texts)
        out: list[list[tuple[str, float]]] = [[] for _ in texts]
        names = self._strings(found.position, "id")
        k = self._run.num_perm
        for row, name, count in zip(found.row.tolist(), names, found.count.tolist(), strict=True):
            out[row].append((name, count / k))
        return out

    def compact(self, *, wait: float = 0.0) -> int:
        """Merge the index's sealed segments into one, while other processes go on adding.

        An add merges at most ``MERGE_LIMIT`` (16,384) documents, so segments of about
        that size pile up, one every few dozen adds of 340; each makes later adds and
        queries a little slower. Run this once in a while (``nearsim index compact``): the
        merge happens outside the writer lock, which is held only to install the result.

        Parameters
        ----------
        wait : float
            Seconds to wait for another compaction; 0: fail at once. (Installing the
            result waits for an add in progress up to ``max(wait, 60)`` seconds.)

        Returns
        -------
        int
            Documents rewritten (0: nothing to merge).
        """
        from nearsim.index.compact import compact

        return compact(self, check_float(wait, "wait", low=0.0))

    # -- why a match ---------------------------------------------------------------------
    def explain(self, text: str, match):
        """Why a text matches (or does not match) a stored document, band by band.

        Parameters
        ----------
        text : str
            The new document.
        match : int or str
            The stored document: its position, or its id (the first position holding it).

        Returns
        -------
        MatchExplanation
        """
        from nearsim.index.explain import explain_match

        return explain_match(self, text, match)


_PRIVATE = object()  # Index() itself is not the way in: create or open


def _folder(path) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise fail("path", path, "a folder path (str or os.PathLike)", wrong_type=True)
    if isinstance(path, str) and not path:
        raise fail("path", path, "a folder path (a non-empty str)")
    return Path(path)


def _first_occurrences(signed: Signed, run: RunSettings):
    """Into an empty index without matches (``nearsim index build``): every row stored, the
    valid first occurrences of their text in the band tables."""
    from nearsim.copies import copy_pairs
    from nearsim.index.matching import all_band_keys

    links = copy_pairs(signed.keys, signed.valid)
    banded = signed.valid.copy()
    banded[links[:, 1]] = False
    stored = np.ones(signed.n, dtype=bool)
    return stored, banded, all_band_keys(signed.sig, run.bands, run.rows)


__all__ = ["BUCKET_LIMIT", "Index", "Signed", "check_ids"]
