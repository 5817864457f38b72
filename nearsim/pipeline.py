"""The pipeline's stages, declared once, and a runner that computes any of them.

documents → shingles → signatures → band candidates → exact pairs → evaluation → clusters,
plus the validity mask (``min_shingles``), the interned tokens of the exact join, the
similarity sample, SimHash and the Compare view's figures, and the Threshold view's pairs
(every pair with J ≥ 0.5, read from the sample, for the removal rate at every threshold;
the pairs near t to label).

Each :class:`Stage` names its function, the stages it reads and the settings it uses
directly. A stage's cache key is the documents' digest plus :func:`key_fields` — its own
settings and, transitively, those of every stage it reads — so moving bands or rows never
recomputes the signatures or the join, a threshold step never re-cuts a shingle, and a
change of ``min_shingles`` only recomputes the mask and what reads it.

Who runs the stages:

- :class:`Runner` (and :func:`run`) on one list of texts, memoising in a dict, or in any
  cache it is handed through ``fetch`` (the explorer wraps every stage in its own
  Streamlit cache this way);
- the command line, on a whole corpus, runs the row-wise stages (:data:`ROW_STAGES`) batch
  by batch and the rest over the concatenated signatures;
- the Dask engine runs the row-wise stages in its workers, partition by partition.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nearsim.banding import candidate_pairs
from nearsim.clustering import cluster_table, clusters
from nearsim.hashing import FlatShingles, decode, text_shingles
from nearsim.join.exact import exact_pairs
from nearsim.join.sample import similarity_sample
from nearsim.join.tokens import TokenSets
from nearsim.minhash import MinHasher, estimate_pairs
from nearsim.prediction import Prediction, predict, similarity_weights
from nearsim.scoring import Evaluation, evaluate
from nearsim.settings import FIELD_SPECS, RunSettings, Settings
from nearsim.utils.validation import (
    check_callable,
    check_choice,
    check_instance,
    check_optional_str,
)
from nearsim.utils.validation_arrays import check_texts


# -- what flows between stages ------------------------------------------------------------
@dataclass(frozen=True)
class Shingled:
    """Every document's distinct shingles.

    Attributes
    ----------
    flat : FlatShingles
        Shingles as spans of one UTF-8 buffer (no Python object per shingle).
    counts : ndarray of int64, shape (n,)
        Distinct shingles per document.
    """

    flat: FlatShingles
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.shape[0])

    def shingles_of(self, doc: int) -> list[str]:
        """One document's shingles as Python strings."""
        if not 0 <= doc < self.n:
            raise ValueError(f"doc={doc} is not accepted; accepted: 0 to {self.n - 1}")
        return decode(self.flat, doc)


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


# -- the stage functions: (settings, inputs...) -> value ----------------------------------
def shingle_stage(settings: Settings, texts: Sequence[str]) -> Shingled:
    """Cut every document's distinct shingles (compiled code)."""
    flat = text_shingles(texts, **settings.shingle_options())
    return Shingled(flat, np.diff(flat.doc_offsets))


def valid_stage(settings: Settings, shingles: Shingled) -> np.ndarray:
    """Documents with at least ``max(min_shingles, 1)`` shingles get a signature; the
    others are in no pair (and are reported).

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    return shingles.counts >= max(settings.min_shingles, 1)


def tokens_stage(settings: Settings, shingles: Shingled) -> TokenSets:
    """The exact join's input, interned once: every document's shingles as integer ids
    ranked by how many documents hold them (``min_shingles`` only masks documents)."""
    return TokenSets.from_shingles(shingles.flat)


def signature_stage(settings: Settings, shingles: Shingled) -> np.ndarray:
    """MinHash signatures of every document (a document without shingles: all 2³² − 1).

    Returns
    -------
    ndarray of uint32, shape (n, num_perm)
    """
    hasher = MinHasher(settings.num_perm, settings.hash_seed, sketch=settings.sketch)
    return hasher.signatures(shingles.flat)


def candidate_stage(settings: Settings, signatures: np.ndarray, valid: np.ndarray) -> Candidates:
    """Pairs of used documents equal on at least one whole band, with their estimates.

    Raises
    ------
    ValueError
        ``TooManyPairsError`` when the banding would make more pairs than memory allows.
    """
    pairs = candidate_pairs(signatures, settings.bands, settings.rows, valid=valid)
    return Candidates(pairs, estimate_pairs(signatures, pairs))


def accepted_stage(settings: Settings, candidates: Candidates) -> np.ndarray:
    """The second step: candidates whose MinHash estimate reaches the threshold.

    Returns
    -------
    ndarray of int64, shape (a, 2)
    """
    return candidates.pairs[candidates.estimates >= settings.threshold]


def cluster_stage(settings: Settings, accepted: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Clusters (connected components) of the accepted pairs: a label per document."""
    return clusters(valid.shape[0], accepted)


def cluster_table_stage(settings: Settings, clusters: np.ndarray) -> pd.DataFrame:
    """The clusters of two or more documents, largest first (``nearsim.cluster_table``)."""
    return cluster_table(clusters)


FLOOR_STEP = 0.05
"""The grid the exact join runs on: at ``threshold_floor(t)``, the largest multiple of 0.05
not above t, so the thresholds between two grid points share one join."""


def threshold_floor(threshold: float) -> float:
    """The largest multiple of :data:`FLOOR_STEP` that is ≤ ``threshold`` (and > 0).

    Examples
    --------
    >>> threshold_floor(0.8), threshold_floor(0.79), threshold_floor(0.05)
    (0.8, 0.75, 0.05)
    """
    floor = round(math.floor(threshold / FLOOR_STEP + 1e-9) * FLOOR_STEP, 10)
    if floor > threshold:  # the 1e-9 let a value a hair below a grid point round up
        floor = round(floor - FLOOR_STEP, 10)
    return floor if floor > 0 else threshold


def exact_floor_stage(settings: Settings, tokens: TokenSets, valid: np.ndarray) -> pd.DataFrame:
    """Every pair of used documents with exact Jaccard ≥ ``threshold_floor(threshold)``."""
    return exact_pairs(tokens, threshold_floor(settings.threshold), valid=valid)


def exact_stage(settings: Settings, exact_floor: pd.DataFrame) -> pd.DataFrame:
    """Every pair of used documents with exact Jaccard ≥ threshold (the ground truth).

    The floor join's pairs with ``jaccard >= threshold``: the same rows, in the same order,
    as ``exact_pairs`` at the threshold (its threshold rule), so a threshold step between
    two grid points costs a filter, not a join."""
    keep = exact_floor["jaccard"].to_numpy() >= settings.threshold
    return exact_floor[keep].reset_index(drop=True)


SAMPLE_MAX_LISTED = 200_000
"""The similarity sample lists at most about this many pairs in full (its floor rises from
0.5 when more pairs than this are that similar; see ``similarity_sample``'s
``max_listed``): listing 1.3 million pairs of long documents took 13 CPU seconds."""


def sample_stage(settings: Settings, tokens: TokenSets, valid: np.ndarray) -> pd.DataFrame:
    """Exact similarities across the whole range, each row with the corpus pairs it stands
    for (the measured-rate chart's pairs and the corpus-aware tuner's input). It does not
    depend on the threshold."""
    return similarity_sample(tokens, valid=valid, seed=0, max_listed=SAMPLE_MAX_LISTED)


def similarities_stage(settings: Settings, sample: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The sample's distinct similarities, each with the corpus pairs it stands for in all:
    what the corpus-aware predictions read. The same predictions as from the sample's rows
    (``predict`` sums the weights of equal similarities itself), for a fraction of the work
    on every threshold step: about 20,000 distinct values for 300,000 rows at 20,000
    documents.

    Returns
    -------
    (ndarray of float64, ndarray of float64), each of shape (d,)
        Ascending distinct similarities and their summed weights.
    """
    s, w = similarity_weights(sample)
    values, inverse = np.unique(s, return_inverse=True)
    return values, np.bincount(inverse.reshape(-1), weights=w, minlength=values.shape[0])


def prediction_stage(settings: Settings, similarities: tuple) -> Prediction:
    """What banding b × r is expected to do on this corpus (candidates, recall and
    precision before and after the estimate filter), from its pair similarities."""
    s, w = similarities
    return predict(s, w, settings.threshold, settings.bands, settings.rows, settings.num_perm,
                   sketch=settings.sketch)  # fmt: skip


def evaluation_stage(settings: Settings, exact: pd.DataFrame, candidates: Candidates) -> Evaluation:
    """Recall and precision of the candidates, before and after the estimate filter."""
    return evaluate(exact, candidates.pairs, candidates.estimates, settings.threshold)


# -- the graph ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage:
    """One stage of the pipeline.

    Attributes
    ----------
    name : str
    compute : callable
        ``compute(settings, **inputs)``; ``inputs`` maps each name in :attr:`inputs` to
        that stage's value (``"texts"`` is the documents themselves).
    inputs : tuple of str
        The stages it reads.
    fields : tuple of str
        The Settings fields it uses directly.
    label : str
        What it is doing, for a progress line.
    slow : bool
        Can take more than a second on 20,000 documents.
    coarse : mapping of str to callable
        Fields of :attr:`fields` the stage reads only through a function (``threshold``
        through :func:`threshold_floor`): its key holds the function's value, so settings
        that agree on it share the stage's value. None of its inputs may depend on them.
    """

    name: str
    compute: Callable[..., Any]
    inputs: tuple[str, ...]
    fields: tuple[str, ...]
    label: str
    slow: bool = False
    coarse: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)


SHINGLE_FIELDS = (
    "shingle_kind",
    "shingle_k",
    "lowercase",
    "remove_punctuation",
    "collapse_whitespace",
)

STAGES: dict[str, Stage] = {
    s.name: s
    for s in (
        Stage("shingles", shingle_stage, ("texts",), SHINGLE_FIELDS, "Cutting shingles", True),
        Stage("valid", valid_stage, ("shingles",), ("min_shingles",), "Applying the minimum"),
        Stage("tokens", tokens_stage, ("shingles",), (), "Preparing the exact join", True),
        Stage("signatures", signature_stage, ("shingles",), ("num_perm", "hash_seed", "sketch"),
              "Computing MinHash signatures", True),
        Stage("candidates", candidate_stage, ("signatures", "valid"), ("bands", "rows"),
              "Banding"),
        Stage("accepted", accepted_stage, ("candidates",), ("threshold",),
              "Keeping candidates whose estimate reaches t"),
        Stage("clusters", cluster_stage, ("accepted", "valid"), (), "Grouping clusters"),
        Stage("cluster_table", cluster_table_stage, ("clusters",), (), "Listing clusters"),
        Stage("exact_floor", exact_floor_stage, ("tokens", "valid"), ("threshold",),
              "Exact ground truth (similarity join)", True,
              coarse={"threshold": threshold_floor}),
        Stage("exact", exact_stage, ("exact_floor",), ("threshold",),
              "Keeping the pairs at or above t"),
        Stage("sample", sample_stage, ("tokens", "valid"), (),
              "Exact similarities across the whole range", True),
        Stage("evaluation", evaluation_stage, ("exact", "candidates"), ("threshold",),
              "Scoring the candidates"),
        Stage("similarities", similarities_stage, ("sample",), (),
              "Collapsing the sample to its distinct similarities"),
        Stage("prediction", prediction_stage, ("similarities",),
              ("threshold", "bands", "rows", "num_perm", "sketch"),
              "Predicting from the corpus's pairs"),
    )
}  # fmt: skip
"""Every stage, each after the stages it reads: the core stages here, the explorer's
registered by :mod:`nearsim.explore.stages` (:func:`register`)."""

ROW_STAGES = ("shingles", "valid", "signatures")
"""Stages computed row by row: a corpus can run them batch by batch (or partition by
partition) and concatenate the results."""

_ORDER = {name: i for i, name in enumerate(FIELD_SPECS)}


def key_fields(stage: str) -> tuple[str, ...]:
    """Every Settings field a stage's value depends on, directly or through its inputs.

    Parameters
    ----------
    stage : str
        A name in :data:`STAGES`.

    Returns
    -------
    tuple of str
        In Settings field order.

    Examples
    --------
    >>> key_fields("candidates")
    ('shingle_kind', 'shingle_k', 'lowercase', 'remove_punctuation', 'collapse_whitespace', \
'min_shingles', 'num_perm', 'hash_seed', 'sketch', 'bands', 'rows')
    """
    check_choice(stage, "stage", tuple(STAGES))
    fields: set[str] = set()
    todo = [stage]
    while todo:
        s = STAGES[todo.pop()]
        fields.update(s.fields)
        todo.extend(i for i in s.inputs if i in STAGES)
    return tuple(sorted(fields, key=_ORDER.__getitem__))


def stage_key(settings: Settings, stage: str) -> tuple:
    """The values of the settings a stage depends on, in a fixed order (hashable); a field
    the stage reads through a coarse function (:attr:`Stage.coarse`) by that value."""
    fields = key_fields(stage)  # validates the name
    coarse = STAGES[stage].coarse
    return tuple(coarse[f](getattr(settings, f)) if f in coarse else getattr(settings, f)
                 for f in fields)  # fmt: skip


def _check_coarse() -> None:
    for s in STAGES.values():
        for name in s.coarse:
            inputs = [i for i in s.inputs if i in STAGES]
            if name not in s.fields or any(name in key_fields(i) for i in inputs):
                raise RuntimeError(f"stage {s.name!r}: coarse field {name!r} reaches it otherwise")


_check_coarse()


def register(*stages: Stage) -> None:
    """Add stages to the graph (each after the stages it reads; a name already there is
    replaced by an equal stage only, so registering twice is harmless).

    Raises
    ------
    ValueError
        A stage reading a stage that is not in the graph, or a different stage under a
        name already taken.
    """
    for stage in stages:
        unknown = [i for i in stage.inputs if i != "texts" and i not in STAGES]
        if unknown:
            raise ValueError(f"stage {stage.name!r} reads {unknown}, which are not stages yet")
        if stage.name in STAGES and STAGES[stage.name] != stage:
            raise ValueError(f"a different stage is already called {stage.name!r}")
        STAGES[stage.name] = stage
    _check_coarse()


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


Fetch = Callable[[str, "Runner"], Any]


class Runner:
    """Computes stages for one list of texts and one Settings, each stage once.

    Parameters
    ----------
    texts : sequence of str
        The documents.
    settings : Settings, optional
        Defaults to ``Settings()``.
    fetch : callable, optional
        ``fetch(stage, runner)`` returns the stage's value, e.g. from a cache keyed on
        ``(stage, runner.digest, stage_key(runner.settings, stage))``, calling
        ``runner.compute(stage)`` on a miss. Without it, values are kept in a dict for the
        life of the runner.
    digest : str, optional
        :func:`digest` of the texts, when already known.

    Examples
    --------
    >>> texts = ["the cat sat on the mat", "the cat sat on the mat!", "a dog barked"]
    >>> Runner(texts, Settings(threshold=0.5)).get("exact")[["i", "j"]].values.tolist()
    [[0, 1]]
    """

    def __init__(
        self,
        texts: Sequence[str],
        settings: Settings | None = None,
        *,
        fetch: Fetch | None = None,
        digest: str | None = None,
    ):
        self.texts = check_texts(texts)
        if settings is not None:  # a RunSettings runs the stages that read only its fields
            check_instance(settings, "settings", RunSettings, "a nearsim Settings, or None")
        self.settings = settings or Settings()
        self._fetch = check_callable(
            fetch, "fetch", "a callable fetch(stage, runner)", optional=True
        )
        self._digest = check_optional_str(digest, "digest", none="None (computed here)")
        self._memo: dict[str, Any] = {}

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = digest(self.texts)
        return self._digest

    @property
    def n(self) -> int:
        return len(self.texts)

    def key(self, stage: str) -> tuple:
        """``(digest, stage_key(settings, stage))``: what identifies the stage's value."""
        return (self.digest, stage_key(self.settings, stage))

    def get(self, stage: str) -> Any:
        """The value of a stage (computed once, or fetched)."""
        if stage == "texts":
            return self.texts
        check_choice(stage, "stage", tuple(STAGES))
        if self._fetch is not None:
            return self._fetch(stage, self)
        if stage not in self._memo:
            self._memo[stage] = self.compute(stage)
        return self._memo[stage]

    def compute(self, stage: str) -> Any:
        """Compute a stage from its inputs (each got with :meth:`get`)."""
        s = STAGES[stage]
        return s.compute(self.settings, **{name: self.get(name) for name in s.inputs})


@dataclass(frozen=True)
class Result:
    """The main stages' values, as :func:`run` computes them."""

    settings: Settings
    shingles: Shingled
    valid: np.ndarray
    signatures: np.ndarray
    candidates: Candidates
    exact: pd.DataFrame
    evaluation: Evaluation
    labels: np.ndarray


def run(texts: Sequence[str], settings: Settings | None = None) -> Result:
    """Apply settings to a list of documents: every stage from shingles to clusters.

    Parameters
    ----------
    texts : sequence of str, length n
    settings : Settings, optional
        Defaults to ``Settings()``.

    Returns
    -------
    Result
    """
    r = Runner(texts, settings)
    return Result(
        r.settings,
        r.get("shingles"),
        r.get("valid"),
        r.get("signatures"),
        r.get("candidates"),
        r.get("exact"),
        r.get("evaluation"),
        r.get("clusters"),
    )
