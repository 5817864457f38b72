"""Merging an index's sealed segments into one while adds go on (``nearsim index compact``).

An add merges only small segments (at most :data:`nearsim.index.segments.MERGE_LIMIT`
documents together), so its time stays bounded; the segments that grow past half of that
are sealed and pile up, one every few dozen adds of 340. Each costs every later add and
query a few binary searches, so once in a while (nightly, or when
:attr:`nearsim.Index.segment_count` passes a few dozen) they are merged here:

1. Under the *compaction* lock (one compaction at a time), the sealed segments — the oldest
   ones, up to and with the last of more than ``MERGE_LIMIT / 2`` documents, which no add
   merges — are merged and written to a ``.part`` file, flushed and ``fsync``-ed. Adds go
   on meanwhile: they only append segments and merge newer, smaller ones.
2. Under the *writer* lock, briefly: the ``.part`` file is renamed to a segment and a new
   manifest names it in place of the sealed segments (atomic, as an add's), which are then
   deleted (readers that mapped them keep their mapping).

A compaction killed at any moment leaves the index as before (its ``.part`` file, or an
unnamed segment, is deleted by the next add) or as after.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from nearsim.index import segments, storage

if TYPE_CHECKING:
    from nearsim.index.core import Index


INSTALL_WAIT = 60.0
"""Seconds a compaction waits at least for an add in progress before installing its result
(an add takes tens of milliseconds; giving up would throw the merge away)."""


def compact(index: Index, wait: float = 0.0) -> int:
    """Merge the sealed segments of ``index`` into one; return the documents rewritten
    (0: fewer than two sealed segments, nothing to do).

    Raises
    ------
    IndexBusyError
        Another compaction holds the lock after ``wait`` seconds, or an add still holds the
        writer lock after ``max(wait, INSTALL_WAIT)`` seconds when the merged segment is
        installed (the work is then dropped; the index is as before).
    """
    folder = index.path
    with storage.compact_lock(folder, wait):
        index._refresh()
        entries = list(index._manifest.segments)
        j = segments.sealed_prefix([e.count for e in entries], segments.MERGE_LIMIT)
        if j < 2:
            return 0
        arrays = segments.merge_segments(index._segments[:j])
        part = folder / f"compact-{os.getpid()}{storage.SEGMENT_SUFFIX}{storage.PART_SUFFIX}"
        try:
            size = storage.write_segment(part, arrays)
            del arrays
            with storage.writer_lock(folder, max(wait, INSTALL_WAIT)):
                index._refresh()
                now = list(index._manifest.segments)
                if [e.file for e in now[:j]] != [e.file for e in entries[:j]]:
                    return 0  # not by these rules: another version's writer merged them
                name = storage.new_segment_name(index._manifest.generation + 1)
                os.replace(part, folder / name)
                count = sum(e.count for e in entries[:j])
                merged = storage.SegmentEntry(name, entries[0].start, count, size)
                index._install(index._manifest.with_segments([merged, *now[j:]]))
                for old in entries[:j]:
                    (folder / old.file).unlink(missing_ok=True)
        finally:
            part.unlink(missing_ok=True)
    return count


__all__ = ["INSTALL_WAIT", "compact"]
