"""nearsim: choose and check near-duplicate detection settings.

Shingles, MinHash, LSH banding and its tuner, exact ground truth by a similarity join,
SimHash, clusters, document loading and one Settings object. The Streamlit app in
``app.py`` is a thin layer over this package; nothing here imports Streamlit.
"""

from .evaluate import Evaluation, evaluate, rate_by_band
from .lsh import (
    Choice,
    TooManyPairsError,
    candidate_pairs,
    candidate_probability,
    effective_threshold,
    false_negative_area,
    false_positive_area,
    steepest_point,
    tune,
)
from .minhash import MinHasher, estimate_jaccard, estimate_pairs, standard_error
from .shingles import shingles

__version__ = "0.1.0"

__all__ = [
    "Choice",
    "Evaluation",
    "MinHasher",
    "TooManyPairsError",
    "candidate_pairs",
    "candidate_probability",
    "effective_threshold",
    "estimate_jaccard",
    "estimate_pairs",
    "evaluate",
    "false_negative_area",
    "false_positive_area",
    "rate_by_band",
    "shingles",
    "standard_error",
    "steepest_point",
    "tune",
]
