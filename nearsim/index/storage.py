"""An index on disk: immutable segment files, a manifest replaced atomically, a writer lock.

Layout of an index folder::

    index.json        the manifest: format, settings, bucket limit, generation, segments
    write.lock        flock(2) by the one process adding (created with the index)
    compact.lock      flock(2) by the one process compacting (created when first needed)
    seg-000007.seg    a segment: the documents at positions start … start + count − 1

A **segment** is one file: 8 magic bytes, the length of a JSON header, the header (each
array's dtype, shape and byte offset), then the arrays, each 64-byte aligned. It is written
once, flushed and ``fsync``-ed before the manifest names it, and never changed; a reader
maps it (``mmap``) and reads the arrays in place with ``numpy.frombuffer``, so opening an
index reads the manifest and a few headers, not the signatures.

The **manifest** is the index's state. A change — an add, a compaction — writes new
segment files first, then a new manifest under a temporary name, ``fsync``, and
``os.replace`` onto ``index.json`` (atomic on POSIX), then ``fsync`` of the folder. A
process killed at any moment leaves the old manifest or the new one; a segment file that
no manifest names is left-over work, which the next writer deletes.

One writer at a time: ``fcntl.flock`` on ``write.lock`` (released by the kernel when the
process dies, so a killed writer never leaves the index locked). Readers take no lock:
each reads the manifest and maps the segments it names; when a compaction has deleted a
segment between the two, the reader reads the manifest again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import mmap
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = "nearsim-index"
"""The manifest's ``format`` value: a folder whose manifest says otherwise is foreign."""
VERSION = 1
MANIFEST = "index.json"
LOCK = "write.lock"
COMPACT_LOCK = "compact.lock"
PART_SUFFIX = ".part"
"""A compaction's segment while it is written (renamed to ``.seg`` under the writer lock)."""
SEGMENT_SUFFIX = ".seg"
_MAGIC = b"NSIXSEG1"
_ALIGN = 64
_OPEN_RETRIES = 20


class IndexFolderError(ValueError):
    """An index folder that cannot be used: missing, foreign, damaged, or of other settings."""


class IndexBusyError(IndexFolderError):
    """Another process is adding to the index (its writer lock is held)."""


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _align(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


# -- segment files -----------------------------------------------------------------------
def write_segment(path: Path, arrays: dict[str, np.ndarray]) -> int:
    """Write arrays as one segment file, flushed to disk; return its size in bytes.

    Parameters
    ----------
    path : Path
        A new file (an existing one is replaced: only a left-over of a killed writer can
        have the name).
    arrays : dict of str to ndarray
        Any numeric arrays; each is stored C-contiguous with its dtype and shape.
    """
    entries, offset = {}, 0
    contiguous = {}
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        contiguous[name] = arr
        entries[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape), "offset": offset}
        offset = _align(offset + arr.nbytes)
    header = json.dumps({"arrays": entries}, separators=(",", ":")).encode("ascii")
    start = _align(len(_MAGIC) + 8 + len(header))
    with open(path, "wb") as f:
        f.write(_MAGIC + len(header).to_bytes(8, "little") + header)
        for name, arr in contiguous.items():
            f.seek(start + entries[name]["offset"])
            f.write(memoryview(arr).cast("B") if arr.nbytes else b"")
        size = start + offset
        f.truncate(max(size, f.tell()))
        f.flush()
        os.fsync(f.fileno())
    return os.path.getsize(path)


def read_segment(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a segment file, mapped read-only (nothing is read until used).

    Raises
    ------
    FileNotFoundError
        The file is gone (a compaction deleted it after the manifest was read).
    IndexFolderError
        The file is not a segment, or shorter than its header says.
    """
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < len(_MAGIC) + 8:
            raise IndexFolderError(f"{path} is not a nearsim index segment (too short); the index "
                              "is damaged")  # fmt: skip
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if mm[: len(_MAGIC)] != _MAGIC:
        raise IndexFolderError(f"{path} is not a nearsim index segment; the index is damaged")
    length = int.from_bytes(mm[len(_MAGIC) : len(_MAGIC) + 8], "little")
    try:
        header = json.loads(mm[len(_MAGIC) + 8 : len(_MAGIC) + 8 + length])
        start = _align(len(_MAGIC) + 8 + length)
        out = {}
        for name, e in header["arrays"].items():
            dtype, shape = np.dtype(e["dtype"]), tuple(e["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            if start + e["offset"] + count * dtype.itemsize > size:
                raise ValueError("truncated")
            arr = np.frombuffer(mm, dtype=dtype, count=count, offset=start + e["offset"])
            out[name] = arr.reshape(shape)
    except (ValueError, KeyError, TypeError) as exc:
        raise IndexFolderError(f"{path} is damaged ({exc}); the index cannot be read") from None
    return out


# -- the manifest ------------------------------------------------------------------------
@dataclass(frozen=True)
class SegmentEntry:
    """One segment as the manifest names it: its file, first position, documents, bytes."""

    file: str
    start: int
    count: int
    bytes: int


@dataclass(frozen=True)
class Manifest:
    """The state of an index: what ``index.json`` holds."""

    settings: dict
    bucket_limit: int
    keep_texts: bool
    generation: int
    segments: tuple[SegmentEntry, ...]

    @property
    def documents(self) -> int:
        return sum(s.count for s in self.segments)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "settings": self.settings,
                "signatures": signature_version(self.settings),
                "bucket_limit": self.bucket_limit,
                "keep_texts": self.keep_texts,
                "generation": self.generation,
                "documents": self.documents,
                "segments": [vars(s) for s in self.segments],
            },
            indent=1,
        )

    def with_segments(self, segments) -> Manifest:
        return Manifest(
            self.settings, self.bucket_limit, self.keep_texts, self.generation + 1, tuple(segments)
        )


SIGNATURE_VERSIONS = {"minhash": 1, "superminhash": 2}
"""Which signatures each sketch makes for the same settings. Raise a sketch's number
whenever :mod:`nearsim.minhash` or :mod:`nearsim.superminhash` change what they make
(classic MinHash never has: its family is the explorer's teaching); an index records the
number it was built with and refuses another, so new documents are never compared with
signatures made another way. SuperMinHash's became 2 when it started hashing a shingle's
own bytes. ``tests/test_index_signatures.py`` pins each version's signatures."""


def signature_version(settings: dict) -> int:
    """The version of the signatures an index with these settings holds
    (:data:`SIGNATURE_VERSIONS`)."""
    return SIGNATURE_VERSIONS.get(settings.get("sketch", "minhash"), 0)


def _check_signatures(folder: Path, data: dict) -> None:
    """Refuse an index whose signatures this nearsim would make differently. Indexes
    written before the number was recorded hold version 1 of their sketch."""
    settings = data.get("settings")
    if not isinstance(settings, dict):
        return  # reported as a damaged manifest
    sketch = settings.get("sketch", "minhash")
    stored, current = data.get("signatures", 1), signature_version(settings)
    if stored != current:
        raise IndexFolderError(
            f"{str(folder)!r} holds {sketch} signatures of version {stored!r}, made by "
            f"another nearsim; this one makes version {current}, and comparing the two "
            "would miss matches; accepted: an index built by this nearsim (build it again "
            "from the corpus with `nearsim index build`)"
        )


def _not_index(folder: Path, why: str) -> IndexFolderError:
    return IndexFolderError(
        f"{str(folder)!r} {why}; accepted: a folder made by `nearsim index build` or "
        "nearsim.Index.create"
    )


def read_manifest(folder: Path) -> Manifest:
    """The manifest of an index folder.

    Raises
    ------
    IndexFolderError
        The folder is missing, holds no manifest (a foreign folder), or a manifest of
        another format or version.
    """
    if not folder.exists():
        raise _not_index(folder, "does not exist")
    if not folder.is_dir():
        raise _not_index(folder, "is not a folder")
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _not_index(folder, f"is not a nearsim index (it has no {MANIFEST})") from None
    except (ValueError, UnicodeDecodeError):
        raise _not_index(folder, f"has an {MANIFEST} that is not a nearsim index's") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _not_index(folder, f"has an {MANIFEST} that is not a nearsim index's")
    if data.get("version") != VERSION:
        raise IndexFolderError(
            f"{str(folder)!r} is a nearsim index of format version {data.get('version')!r}; "
            f"accepted: version {VERSION} (this nearsim's)"
        )
    _check_signatures(folder, data)
    try:
        segments = tuple(SegmentEntry(**s) for s in data["segments"])
        return Manifest(
            dict(data["settings"]),
            int(data["bucket_limit"]),
            bool(data["keep_texts"]),
            int(data["generation"]),
            segments,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise IndexFolderError(f"{str(folder)!r}: its {MANIFEST} is damaged ({exc})") from None


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically (temporary file, fsync, rename, fsync of the folder)."""
    tmp = folder / f".{MANIFEST}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(manifest.to_json())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / MANIFEST)
    _fsync_dir(folder)


def manifest_stamp(folder: Path) -> tuple:
    """What changes whenever the manifest is replaced (its inode, size and time)."""
    st = os.stat(folder / MANIFEST)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def check_new_folder(folder: Path) -> None:
    """Raise :class:`IndexFolderError` unless ``folder`` is missing or an empty folder."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise IndexFolderError(
            f"{str(folder)!r} is a file; accepted: a new or empty folder for the index"
        )
    if any(folder.iterdir()):
        what = "holds a nearsim index" if (folder / MANIFEST).exists() else "is not empty"
        raise IndexFolderError(
            f"{str(folder)!r} {what}; accepted: a new or empty folder for the index "
            "(add to an existing index with nearsim.Index.open or `nearsim index add`)"
        )


def create_folder(folder: Path, manifest: Manifest) -> None:
    """Make a new index folder atomically: built beside it, then renamed into place.

    Raises
    ------
    IndexFolderError
        ``folder`` exists and is not an empty folder.
    """
    check_new_folder(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{folder.name}.creating-{os.getpid()}"
    tmp.mkdir()
    try:
        (tmp / LOCK).touch()
        write_manifest(tmp, manifest)
        try:
            os.rename(tmp, folder)  # onto a missing or empty folder: atomic
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise IndexFolderError(
                    f"{str(folder)!r} was filled while the index was being made; accepted: "
                    "a new or empty folder"
                ) from None
            raise
        _fsync_dir(folder.parent)
    finally:
        if tmp.exists():
            for p in tmp.iterdir():
                p.unlink()
            tmp.rmdir()


def new_segment_name(generation: int) -> str:
    return f"seg-{generation:06d}-{os.getpid()}{SEGMENT_SUFFIX}"


def remove_unreferenced(folder: Path, manifest: Manifest) -> None:
    """Delete segment and temporary files the manifest does not name, and a killed
    compaction's part file (writer only)."""
    named = {s.file for s in manifest.segments}
    parts = []
    for p in folder.iterdir():
        stale = p.suffix == SEGMENT_SUFFIX and p.name not in named
        if stale or p.name.startswith(f".{MANIFEST}.tmp-"):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        elif p.name.endswith(PART_SUFFIX):
            parts.append(p)
    if parts:  # a killed compaction's, unless one is running
        with contextlib.suppress(IndexBusyError), compact_lock(folder):
            for p in parts:
                p.unlink(missing_ok=True)


# -- the writer lock ---------------------------------------------------------------------
@contextlib.contextmanager
def _flock(folder: Path, name: str, wait: float, busy: str):
    """Hold ``flock`` on ``folder / name`` for the block, waiting up to ``wait`` seconds."""
    path = folder / name
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                    who = f" (process {holder})" if holder.isdigit() else ""
                    raise IndexBusyError(
                        f"the index {str(folder)!r} is being {busy} by another process"
                        f"{who}; accepted: one at a time — wait for it to finish, or let this "
                        "one wait (wait=SECONDS, --wait SECONDS)"
                    ) from None
                time.sleep(0.02)
        os.pwrite(fd, f"{os.getpid():<20}".encode("ascii"), 0)  # who holds it, for a message
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def writer_lock(folder: Path, wait: float = 0.0):
    """Hold the index's writer lock for the block (``with writer_lock(folder):``).

    Parameters
    ----------
    folder : Path
    wait : float
        Seconds to wait for another writer to finish; 0: fail at once.

    Raises
    ------
    IndexBusyError
        The lock is still held after ``wait`` seconds.
    """
    return _flock(folder, LOCK, wait, "added to")


def compact_lock(folder: Path, wait: float = 0.0):
    """Hold the index's compaction lock (one compaction at a time; adds do not take it)."""
    return _flock(folder, COMPACT_LOCK, wait, "compacted")


def map_segments(folder: Path, entries, cache: dict) -> list[dict]:
    """The arrays of each segment named, reusing those mapped already (``cache``: file →
    arrays, updated in place to hold exactly the segments named)."""
    mapped = [cache.get(e.file) or read_segment(folder / e.file) for e in entries]
    cache.clear()
    cache.update({e.file: m for e, m in zip(entries, mapped, strict=True)})
    return mapped


def load(folder: Path, cache: dict) -> tuple[Manifest, list[dict], tuple]:
    """Read the manifest and map its segments, again if a compaction removed one meanwhile.

    Returns
    -------
    (Manifest, list of dict of arrays, stamp)
    """
    for _ in range(_OPEN_RETRIES):
        try:
            stamp = manifest_stamp(folder)
        except (FileNotFoundError, NotADirectoryError):
            read_manifest(folder)  # raises: says what the folder is
            raise
        manifest = read_manifest(folder)
        try:
            return manifest, map_segments(folder, manifest.segments, cache), stamp
        except FileNotFoundError:
            time.sleep(0.01)  # replaced by a compaction: read the new manifest
    raise IndexFolderError(
        f"{str(folder)!r}: a segment named in {MANIFEST} is missing; the index is damaged"
    )
