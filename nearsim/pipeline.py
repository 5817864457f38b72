"""The pipeline as plain functions of (documents, Settings).

documents → shingles → signatures → band candidates → exact pairs → evaluation → clusters,
plus the similarity sample for the measured-rate chart and SimHash for the comparison.
Each stage takes the previous stage's output and only the settings it uses
(:data:`STAGE_FIELDS` names them), so a caller can cache every stage on its own, keyed on
a digest of the documents plus those settings: moving bands or rows never recomputes the
signatures or the join. The app wraps each stage in a cache; :func:`run` runs them all.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._hashing import FlatShingles, decode, text_shingles
from .clusters import clusters
from .evaluate import Evaluation, evaluate, rate_by_band
from .exact import exact_pairs
from .exact import warm_up as _warm_up_exact
from .lsh import candidate_pairs
from .minhash import EMPTY, MinHasher, estimate_pairs
from .sample import similarity_sample
from .settings import Settings
from .simhash import SimHasher, broken_simhash, compare_simhash, hash_health, replay

SHINGLE_FIELDS = (
    "shingle_kind",
    "shingle_k",
    "lowercase",
    "remove_punctuation",
    "collapse_whitespace",
    "min_shingles",
)
STAGE_FIELDS: dict[str, tuple[str, ...]] = {
    "shingles": SHINGLE_FIELDS,
    "signatures": (*SHINGLE_FIELDS, "num_perm", "hash_seed"),
    "candidates": (*SHINGLE_FIELDS, "num_perm", "hash_seed", "bands", "rows"),
    "exact": (*SHINGLE_FIELDS, "threshold"),
    "sample": (*SHINGLE_FIELDS, "threshold"),
    "evaluation": (*SHINGLE_FIELDS, "num_perm", "hash_seed", "bands", "rows", "threshold"),
    "simhash": SHINGLE_FIELDS,
}
"""The settings each stage depends on (its cache key, with the documents' digest)."""

SIMHASH_SEED = 1


def digest(texts: Sequence[str]) -> str:
    """A short SHA-256 digest identifying a list of documents (order matters).

    Parameters
    ----------
    texts : sequence of str

    Returns
    -------
    str
        16 hexadecimal characters.
    """
    h = hashlib.sha256()
    h.update(str(len(texts)).encode())
    for t in texts:
        b = t.encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:16]


def stage_key(settings: Settings, stage: str) -> tuple:
    """The values of the settings a stage uses, in a fixed order (hashable)."""
    return tuple(getattr(settings, f) for f in STAGE_FIELDS[stage])


@dataclass(frozen=True)
class Shingled:
    """Every document's distinct shingles, and which documents are used.

    Attributes
    ----------
    flat : FlatShingles
        Shingles as spans of one UTF-8 buffer (no Python object per shingle).
    counts : ndarray of int64, shape (n,)
        Distinct shingles per document.
    valid : ndarray of bool, shape (n,)
        Documents with at least ``max(min_shingles, 1)`` shingles: they get a signature;
        the others are left out of every pair (and reported).
    """

    flat: FlatShingles
    counts: np.ndarray
    valid: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.shape[0])

    def shingles_of(self, doc: int) -> list[str]:
        """One document's shingles as Python strings."""
        if not 0 <= doc < self.n:
            raise ValueError(f"document {doc} does not exist; there are {self.n} documents")
        return decode(self.flat, doc)

    def sets(self) -> list[list[str]]:
        """Python shingle lists of the valid documents ([] for the others)."""
        return [decode(self.flat, d) if self.valid[d] else [] for d in range(self.n)]

    def used(self) -> FlatShingles:
        """The shingles with the documents below the minimum emptied."""
        if self.valid.all():
            return self.flat
        f = self.flat
        keep = np.repeat(self.valid, self.counts)
        counts = np.where(self.valid, self.counts, 0)
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return FlatShingles(f.buf, f.starts[keep], f.ends[keep], offsets)


def shingle_stage(texts: Sequence[str], settings: Settings) -> Shingled:
    """Cut every document's distinct shingles (compiled code).

    Parameters
    ----------
    texts : sequence of str, length n
    settings : Settings
        Uses the fields in ``STAGE_FIELDS["shingles"]``.

    Returns
    -------
    Shingled
    """
    flat = text_shingles(texts, **settings.shingle_options())
    counts = np.diff(flat.doc_offsets)
    valid = counts >= max(settings.min_shingles, 1)
    return Shingled(flat, counts, valid)


def signature_stage(shingled: Shingled, settings: Settings) -> np.ndarray:
    """MinHash signatures; documents below the minimum get a row of ``2**32 - 1``.

    Returns
    -------
    ndarray of uint32, shape (n, num_perm)
    """
    sig = MinHasher(settings.num_perm, settings.hash_seed).signatures(shingled.flat)
    sig[~shingled.valid] = EMPTY
    return sig


@dataclass(frozen=True)
class Candidates:
    """Band candidates and their MinHash estimates.

    Attributes
    ----------
    pairs : ndarray of int64, shape (m, 2)
        Candidate pairs, i < j, sorted.
    estimates : ndarray of float64, shape (m,)
        Share of equal signature positions of each pair.
    """

    pairs: np.ndarray
    estimates: np.ndarray


def candidate_stage(signatures: np.ndarray, shingled: Shingled, settings: Settings) -> Candidates:
    """Pairs equal on at least one whole band, with their estimates.

    Raises
    ------
    ValueError
        ``TooManyPairsError`` when the banding would make more pairs than memory allows.
    """
    pairs = candidate_pairs(signatures, settings.bands, settings.rows, valid=shingled.valid)
    return Candidates(pairs, estimate_pairs(signatures, pairs))


def exact_stage(shingled: Shingled, settings: Settings) -> pd.DataFrame:
    """Every pair of used documents with exact Jaccard >= threshold (the ground truth).

    Returns
    -------
    pandas.DataFrame
        Columns i, j, jaccard, as :func:`nearsim.exact_pairs`.
    """
    return exact_pairs(shingled.used(), settings.threshold)


def sample_stage(shingled: Shingled, settings: Settings, seed: int = 0) -> pd.DataFrame:
    """Pairs across the whole similarity range for the measured-rate chart.

    Returns
    -------
    pandas.DataFrame
        As :func:`nearsim.exact.similarity_sample`.
    """
    return similarity_sample(shingled.used(), threshold=settings.threshold, seed=seed)


def evaluation_stage(exact: pd.DataFrame, candidates: Candidates, settings: Settings) -> Evaluation:
    """Recall and precision of the candidates, before and after the estimate filter."""
    return evaluate(exact, candidates.pairs, candidates.estimates, settings.threshold)


def rate_stage(sample: pd.DataFrame, candidates: Candidates, settings: Settings) -> pd.DataFrame:
    """Measured candidate rate per 0.05 band of similarity, with the S-curve's expectation."""
    return rate_by_band(sample, candidates.pairs, settings.bands, settings.rows)


def cluster_stage(n: int, evaluation: Evaluation) -> np.ndarray:
    """Clusters of the accepted candidates (estimate >= threshold).

    Returns
    -------
    ndarray of int64, shape (n,)
        A label per document.
    """
    table = evaluation.candidate_table
    accepted = table.loc[table["accepted"], ["i", "j"]].to_numpy(np.int64)
    return clusters(n, accepted)


def simhash_stage(shingled: Shingled) -> np.ndarray:
    """64-bit SimHash fingerprints of the used documents (0 for the others).

    Returns
    -------
    ndarray of uint64, shape (n,)
    """
    return SimHasher(SIMHASH_SEED).fingerprints(shingled.used())


@dataclass(frozen=True)
class Result:
    """Everything :func:`run` computes."""

    settings: Settings
    shingled: Shingled
    signatures: np.ndarray
    candidates: Candidates
    exact: pd.DataFrame
    evaluation: Evaluation
    labels: np.ndarray


def run(texts: Sequence[str], settings: Settings | None = None) -> Result:
    """Apply settings to a corpus: every stage from shingles to clusters.

    Parameters
    ----------
    texts : sequence of str, length n
    settings : Settings, optional
        Defaults to ``Settings()``.

    Returns
    -------
    Result
    """
    settings = settings or Settings()
    shingled = shingle_stage(texts, settings)
    sig = signature_stage(shingled, settings)
    cand = candidate_stage(sig, shingled, settings)
    exact = exact_stage(shingled, settings)
    ev = evaluation_stage(exact, cand, settings)
    labels = cluster_stage(shingled.n, ev)
    return Result(settings, shingled, sig, cand, exact, ev, labels)


def warm_up() -> None:
    """Compile, or load from numba's on-disk cache, every compiled kernel.

    The first call after installing compiles them (tens of seconds on a small machine);
    the machine code is cached next to the modules, so later processes load it in a
    fraction of a second. The set-up scripts call this once, so the explorer's first
    page does not pay for compiling.
    """
    texts = [
        "The council approved the new budget on Monday.",
        "The council approved the new budget on Monday!",
        "A storm closed the harbour for two days, café owners said.",
        "",
    ] * 3
    for kind, k in (("char", 5), ("word", 2)):
        settings = Settings(shingle_kind=kind, shingle_k=k, threshold=0.5)
        result = run(texts, settings)
        MinHasher(16).text_signatures(texts, kind=kind, k=k, one_byte=True)
        SimHasher(SIMHASH_SEED).text_fingerprints(texts, kind=kind, k=k)
        sample_stage(result.shingled, settings)
        fps = simhash_stage(result.shingled)
        compare_simhash(fps, result.exact, 0.5, result.candidates.pairs, max_distance=24)
        hash_health(fps)
        replay(fps, 3)
        replay(fps, 12)
    broken_simhash(texts)
    _warm_up_exact()
