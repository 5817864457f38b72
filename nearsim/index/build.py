"""Whole corpora into an index: read and sign in batches (as ``nearsim dedup`` does), then
one atomic step — a new index (:func:`build_index`) or an add to an existing one."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from nearsim.index import storage
from nearsim.index.core import Index, Signed
from nearsim.io.corpora import iter_corpus
from nearsim.run.options import check_paths
from nearsim.run.progress import Clock
from nearsim.run.signing import load_kernels, sign_batch
from nearsim.utils.arrays import GrowingRows


def read_signed(
    paths,
    settings,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    group_field: str | None = None,
    keep_texts: bool = False,
    on_error: str = "fail",
    batch_size: int = 10_000,
    clock: Clock | None = None,
) -> tuple[Signed, list[str] | None, str]:
    """Read a corpus and sign it with ``settings``, keeping signatures, copy keys and ids
    (and the texts only when ``keep_texts``): 4·k + 17 bytes a document and its id.

    Returns
    -------
    signed : Signed
        ``ids`` None when ``id_field`` is None (the index numbers the documents).
    groups : list of str or None
        Each document's value of ``group_field``.
    report : str
        What the reader read and skipped, in one line.
    """
    clock = clock or Clock(False)
    paths = check_paths(paths)
    read = dict(text_field=text_field, on_error=on_error, batch_size=batch_size)
    reader = iter_corpus(paths, id_field=id_field, **read)
    # the group values: the same records read again with the group field as their id (the
    # readers return ids as str, from a string or an integer field)
    grouped = iter_corpus(paths, id_field=group_field, **read).lists() if group_field else None
    sig = GrowingRows((settings.num_perm,), np.uint32)
    valid = GrowingRows((), np.bool_)
    keys = GrowingRows((2,), np.uint64)
    ids: list[str] = []
    groups: list[str] = []
    texts: list[str] = []
    load_kernels(settings)
    with clock.bar("documents read and signed", "docs") as bar:
        for batch_ids, batch_texts in reader.lists():
            with clock.stage("signatures"):
                v, s, k = sign_batch(batch_texts, settings)
                valid.append(v)
                sig.append(s)
                keys.append(k)
            ids.extend(batch_ids)
            if keep_texts:
                texts.extend(batch_texts)
            if grouped is not None:
                values, _ = next(grouped, ([], []))
                if len(values) != len(batch_ids):
                    raise ValueError(
                        f"--group-field {group_field!r}: the records with and without it do not "
                        "line up (a record without the field?); accepted: a field every record "
                        "has"
                    )
                groups.extend(values)
            bar.update(len(batch_texts))
    signed = Signed(
        valid.array(),
        sig.array(),
        keys.array(),
        ids if id_field is not None else None,
        texts if keep_texts else None,
    )
    return signed, (groups if group_field else None), reader.report.summary()


def build_index(
    paths,
    folder,
    settings,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    keep_texts: bool = False,
    on_error: str = "fail",
    progress: bool = False,
) -> tuple[Index, str]:
    """A new index of a whole corpus, made beside ``folder`` and renamed into place when
    complete (a killed build leaves no index).

    Returns
    -------
    (Index, str)
        The index and the reader's one-line report.
    """
    folder = Path(folder)
    storage.check_new_folder(folder)  # before the corpus is read
    clock = Clock(progress)
    signed, _, report = read_signed(
        paths, settings, text_field=text_field, id_field=id_field, keep_texts=keep_texts,
        on_error=on_error, clock=clock,
    )  # fmt: skip
    work = folder.parent / f".{folder.name}.building-{os.getpid()}"
    try:
        index = Index.create(work, settings, keep_texts=keep_texts)
        with clock.stage("index", f"writing the index: {signed.n:,} documents"):
            index.add_signed(signed, matches=False)
        index.close()
        try:
            os.rename(work, folder)
        except OSError as exc:
            raise storage.IndexFolderError(
                f"{str(folder)!r} could not take the new index ({exc.strerror}); accepted: a "
                "new or empty folder"
            ) from None
    finally:
        if work.exists():
            for p in work.iterdir():
                p.unlink()
            work.rmdir()
    return Index.open(folder), report
