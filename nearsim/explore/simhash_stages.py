"""The Compare view's stages: SimHash fingerprints beside MinHash LSH, and a job board's lesson.

Registered in :data:`nearsim.pipeline.STAGES` like every other stage (each a function of
the settings and the stages it reads): our SimHash's fingerprints, recall and precision at
every Hamming distance against the exact pairs, distances of sampled pairs, hash health,
and the one-by-one replay, each also for the broken 31-bit hash of field report 000.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from nearsim.explore.hash_health import broken_simhash, hash_health
from nearsim.hamming import distance_vs_jaccard, replay
from nearsim.scoring import compare_simhash
from nearsim.settings import Settings
from nearsim.simhash import SimHasher

if TYPE_CHECKING:
    from collections.abc import Sequence

    from nearsim.pipeline import Candidates, Shingled

SIMHASH_SEED = 1
"""SimHash fingerprints use one fixed seed: the Compare view is about the method."""
COMPARE_MAX_DISTANCE = 24
BROKEN_DISTANCE = 12
"""The distance a job board's filter used with its broken hash."""


def fingerprint_stage(settings: Settings, shingles: Shingled) -> np.ndarray:
    """64-bit SimHash fingerprints (uint64, shape (n,))."""
    return SimHasher(SIMHASH_SEED).fingerprints(shingles.flat)


def broken_stage(settings: Settings, texts: Sequence[str]) -> np.ndarray:
    """A job board's broken 31-bit hash of every text, for the hash-health lesson."""
    return broken_simhash(texts)


def compare_stage(
    settings: Settings,
    fingerprints: np.ndarray,
    exact: pd.DataFrame,
    candidates: Candidates,
    valid: np.ndarray,
):
    """SimHash recall and precision at every distance, next to MinHash LSH."""
    return compare_simhash(
        fingerprints,
        exact,
        settings.threshold,
        candidates.pairs,
        max_distance=COMPARE_MAX_DISTANCE,
        valid=valid,
    )


def distance_pairs_stage(
    settings: Settings, fingerprints: np.ndarray, sample: pd.DataFrame
) -> pd.DataFrame:
    """SimHash distance against exact Jaccard for a seeded draw of the sample's pairs: up
    to 1,200 with J ≥ 0.2 and 800 below (a scatter plot's worth; 5,000 points took the
    browser 0.3 s more to draw on every visit to the page)."""
    similar = sample[sample["jaccard"] >= 0.2]
    rest = sample[sample["jaccard"] < 0.2]
    drawn = pd.concat(
        [
            similar.sample(min(len(similar), 1200), random_state=0),
            rest.sample(min(len(rest), 800), random_state=0),
        ]
    ).sort_values(["i", "j"])
    return distance_vs_jaccard(fingerprints, drawn)


def health_stage(settings: Settings, fingerprints: np.ndarray, valid: np.ndarray):
    """Hash health of our SimHash: mean distance of unrelated documents, stuck bits."""
    return hash_health(fingerprints[valid])


def broken_health_stage(settings: Settings, broken: np.ndarray, valid: np.ndarray):
    """Hash health of the job board's hash on the same documents."""
    return hash_health(broken[valid])


def replay_stage(settings: Settings, fingerprints: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Documents a one-by-one SimHash filter at ``simhash_distance`` would keep."""
    return replay(fingerprints[valid], settings.simhash_distance)


def broken_replay_stage(settings: Settings, broken: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Documents the job board's filter (broken hash, distance 12) would keep."""
    return replay(broken[valid], BROKEN_DISTANCE)
