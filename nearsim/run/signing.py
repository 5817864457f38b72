"""The row stages of a batch of documents, as both engines run them: validity,
MinHash signatures and copy keys, laid out once (:func:`sign_batch`)."""

from __future__ import annotations

import numpy as np

from nearsim.banding import candidate_pairs
from nearsim.clustering import clusters
from nearsim.copies import copy_pairs, flat_text_keys
from nearsim.hashing import flatten_texts
from nearsim.minhash import EMPTY, MinHasher, estimate_pairs
from nearsim.settings import RunSettings


def sign_batch(texts: list[str], settings: RunSettings) -> tuple[np.ndarray, ...]:
    """The row stages of one batch of documents: validity, signatures and copy keys.

    Equal to the pipeline's ``valid`` and ``signatures`` stages (:data:`ROW_STAGES`) on
    the same texts, and to :func:`nearsim.copies.copy_keys`. When ``min_shingles`` is at
    most 1, a document is valid when it has any shingle, which its signature tells by
    itself (every value of a document with a shingle is below p = 2³¹ − 1; one without
    gets 2³² − 1 everywhere), so the signatures come straight from the texts, laid out
    once for the signatures and the keys, without the ``shingles`` stage's lists of
    distinct shingles, which cost about as much as the signatures themselves. Both
    sketches (``settings.sketch``) keep that convention, so this holds for either. A larger
    ``min_shingles`` needs the distinct counts: the pipeline's stages.

    Parameters
    ----------
    texts : list of str, length n
    settings : RunSettings

    Returns
    -------
    valid : ndarray of bool, shape (n,)
    signatures : ndarray of uint32, shape (n, num_perm)
    keys : ndarray of uint64, shape (n, 2)
    """
    flat = flatten_texts(texts, **settings.shingle_options())
    keys = flat_text_keys(flat)
    if settings.min_shingles <= 1:
        hasher = MinHasher(settings.num_perm, settings.hash_seed, sketch=settings.sketch)
        sig = hasher.flat_text_signatures(flat)
        return sig[:, 0] != EMPTY, sig, keys
    from nearsim.pipeline import ROW_STAGES, Runner  # the whole stage graph: only for this case

    run = Runner(texts, settings, digest="batch")
    return run.get(ROW_STAGES[1]), run.get(ROW_STAGES[2]), keys


def load_kernels(settings: RunSettings) -> None:
    """Load the run's compiled kernels from numba's cache (0.3–0.5 s in a new process)
    before the first batch is signed, so that the stage times in ``summary.json`` say what
    the stages cost and the loading counts as start-up. Done beside the reader, in a
    thread, it gained nothing (seven interleaved runs at 100,000 documents: median 2.45 s
    against 2.39 s): the loading is mostly numba importing its own modules, which holds
    the interpreter. Only fills caches the run fills anyway; if it fails, the run loads
    them itself."""
    try:
        valid, sig, keys = sign_batch(["kernels"] * 2, settings)
        pairs = candidate_pairs(sig, settings.bands, settings.rows, valid=valid, bucket_limit=2)
        copy_pairs(keys, valid)
        estimate_pairs(sig, pairs)
        clusters(2, pairs)
    except Exception:  # the run itself reports every problem
        pass
