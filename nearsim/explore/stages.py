"""The explorer's stages, registered onto the core stage graph of :mod:`nearsim.pipeline`.

The core graph holds what the library and a corpus run compute (shingles, the mask,
signatures, candidates, the exact join and its sample, scoring, clusters, the corpus-aware
prediction); the stages here exist for the explorer's views: the measured candidate rates,
the exact Jaccard of every candidate, the join's funnel, the member check, the shingle
length profile, the SimHash comparison and the Threshold view's pairs. Importing
:mod:`nearsim.explore` registers them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nearsim.clustering import ClusterCheck, check_against_kept, clusters
from nearsim.explore.explain import shingle_length_profile
from nearsim.explore.giants import ClusterWarnings, cluster_warnings
from nearsim.explore.simhash_stages import (
    SIMHASH_SEED,
    broken_health_stage,
    broken_replay_stage,
    broken_stage,
    compare_stage,
    distance_pairs_stage,
    fingerprint_stage,
    health_stage,
    replay_stage,
)
from nearsim.explore.threshold_pairs import (
    label_draw_stage,
    label_pool_stage,
    low_pairs_stage,
    removal_low_stage,
    removal_stage,
)
from nearsim.join.exact import join_funnel, pair_jaccard
from nearsim.join.exact import warm_up as _warm_up_exact
from nearsim.join.tokens import TokenSets
from nearsim.minhash import MinHasher
from nearsim.pipeline import STAGES, Candidates, Runner, Stage, register
from nearsim.scoring import rate_by_band
from nearsim.settings import Settings
from nearsim.simhash import SimHasher


def candidate_jaccard_stage(settings: Settings, tokens: TokenSets, candidates: Candidates):
    """Exact Jaccard of every candidate pair (float64, shape (m,))."""
    return pair_jaccard(tokens, candidates.pairs)


def funnel_stage(settings: Settings, tokens: TokenSets, valid: np.ndarray):
    """How many pairs each filter of the exact join removed before verification."""
    return join_funnel(tokens, settings.threshold, valid=valid)


def rate_stage(settings: Settings, sample: pd.DataFrame, candidates: Candidates) -> pd.DataFrame:
    """Measured candidate rate per 0.05 bin of similarity, with the S-curve's expectation."""
    return rate_by_band(sample, candidates.pairs, settings.bands, settings.rows,
                        sketch=settings.sketch, num_perm=settings.num_perm)  # fmt: skip


def check_stage(settings: Settings, accepted: np.ndarray, valid: np.ndarray, tokens: TokenSets):
    """Every cluster member checked against its cluster's kept document (its first), by
    exact Jaccard, with ``nearsim dedup --cluster-check``'s rule: members below t leave
    and are grouped again among themselves (:func:`nearsim.check_against_kept`).

    Returns
    -------
    ClusterCheck
        ``table``: one row per member of a cluster of two or more before the check: doc,
        cluster (the label before), jaccard_to_kept (exact Jaccard with the document kept
        in its place after the check; 1.0 for a kept one), kept (still in the cluster it
        was joined to); ``labels``: the labels after the check.
    """
    n = valid.shape[0]

    def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pair_jaccard(tokens, np.stack([a, b], axis=1))

    check = check_against_kept(n, accepted, similarity, settings.threshold)
    before = clusters(n, accepted)
    members = np.flatnonzero(np.bincount(before, minlength=1)[before] >= 2)
    table = pd.DataFrame(
        {
            "doc": members.astype(np.int64),
            "cluster": before[members],
            "jaccard_to_kept": check.similarity[members],
            "kept": ~check.split_off[members],
        }
    )
    return ClusterCheck(table, check.labels)


def giants_stage(
    settings: Settings, accepted: np.ndarray, valid: np.ndarray, tokens: TokenSets
) -> ClusterWarnings:
    """Chained and giant clusters of the accepted pairs, by exact Jaccard with each
    cluster's first document (:func:`nearsim.explore.giants.cluster_warnings`)."""

    def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pair_jaccard(tokens, np.stack([a, b], axis=1))

    return cluster_warnings(valid.shape[0], accepted, similarity, settings.threshold)


def k_profile_stage(settings: Settings, texts: Sequence[str]) -> pd.DataFrame:
    """How the shingle length changes what is rare, on a sample of the documents."""
    return shingle_length_profile(
        texts,
        kind=settings.shingle_kind,
        lowercase=settings.lowercase,
        remove_punctuation=settings.remove_punctuation,
        collapse_whitespace=settings.collapse_whitespace,
    )


def sketches_stage(settings: Settings, texts, shingles, sample, exact, valid):
    """Classic MinHash and SuperMinHash on these documents (:mod:`nearsim.explore.sketches`)."""
    from nearsim.explore.sketches import compare_sketches

    return compare_sketches(texts, shingles.flat, sample, exact, valid, settings)


# fmt: off
register(
        Stage("rates", rate_stage, ("sample", "candidates"), (),
              "Measuring candidate rates by similarity"),
        Stage("candidate_jaccard", candidate_jaccard_stage, ("tokens", "candidates"), (),
              "Exact Jaccard of the candidates"),
        Stage("funnel", funnel_stage, ("tokens", "valid"), ("threshold",),
              "Counting what each filter of the exact join removes", True),
        Stage("check", check_stage, ("accepted", "valid", "tokens"), ("threshold",),
              "Checking every member against its cluster's kept document", True),
        Stage("giants", giants_stage, ("accepted", "valid", "tokens"), ("threshold",),
              "Looking for chained and giant clusters"),
        Stage("sketches", sketches_stage, ("texts", "shingles", "sample", "exact", "valid"),
              ("num_perm", "hash_seed", "bands", "rows"),
              "Signing with both sketches and scoring them", True),
        Stage("k_profile", k_profile_stage, ("texts",),
              ("shingle_kind", "lowercase", "remove_punctuation", "collapse_whitespace"),
              "Measuring every shingle length", True),
        Stage("fingerprints", fingerprint_stage, ("shingles",), (),
              "Computing SimHash fingerprints", True),
        Stage("broken", broken_stage, ("texts",), (), "A job board's broken hash", True),
        Stage("compare", compare_stage, ("fingerprints", "exact", "candidates", "valid"), (),
              "SimHash against exact Jaccard at every distance", True),
        Stage("distance_pairs", distance_pairs_stage, ("fingerprints", "sample"), (),
              "SimHash distances of sampled pairs"),
        Stage("health", health_stage, ("fingerprints", "valid"), (), "Hash health"),
        Stage("broken_health", broken_health_stage, ("broken", "valid"), (),
              "Hash health of the broken hash"),
        Stage("replay", replay_stage, ("fingerprints", "valid"), ("simhash_distance",),
              "Replaying documents one by one"),
        Stage("broken_replay", broken_replay_stage, ("broken", "valid"), (),
              "Replaying with the broken hash"),
        Stage("low_pairs", low_pairs_stage, ("tokens", "valid", "sample"), (),
              "Exact pairs with J ≥ 0.5", True),
        Stage("removal", removal_stage, ("sample", "valid"), (),
              "Clusters at every threshold", True),
        Stage("removal_low", removal_low_stage, ("low_pairs", "valid"), (),
              "Clusters at every threshold from 0.5", True),
        Stage("label_pool", label_pool_stage, ("tokens", "valid", "sample"),
              ("threshold",),
              "Exact pairs near t to label", True),
        Stage("label_draw", label_draw_stage, ("label_pool",), ("threshold",),
              "Drawing pairs to label"),
)
# fmt: on


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
        runner = Runner(texts, Settings(shingle_kind=kind, shingle_k=k, threshold=0.5))
        for stage in STAGES:
            runner.get(stage)
        MinHasher(16).text_signatures(texts, kind=kind, k=k, one_byte=True)
        SimHasher(SIMHASH_SEED).text_fingerprints(texts, kind=kind, k=k)
    # The peers' presets (Export scores each on the loaded documents) sign with their own
    # hash families and shingle settings: without these, a first Export visit after
    # installing compiled for about 13 CPU seconds.
    from nearsim.explore.presets import PRESETS

    for preset in PRESETS.values():
        Runner(texts, preset.apply(Settings(threshold=0.5))).get("evaluation")
    _warm_up_exact()
    from nearsim.hashing import text_shingles
    from nearsim.join.overlap import overlaps_with

    overlaps_with(text_shingles(texts), text_shingles(texts[:1]))  # the Query page's paste
    # Paths a dozen texts never take: SimHash fingerprints in parallel (from 200,000
    # shingles), replay tables (from 64 fingerprints), the distance histogram in parallel
    # (from 4 million pairs); and the recall tuner's kernel, which is not a stage. Without
    # these the explorer's first Banding and Compare pages compiled for seconds.
    from nearsim.io.example import example_corpus
    from nearsim.prediction import compare_tuners

    runner = Runner(example_corpus(3000, seed=0)["text"].tolist())
    for stage in ("compare", "replay", "prediction"):
        runner.get(stage)
    compare_tuners(*runner.get("similarities"), 0.8, 128, 0.5)
