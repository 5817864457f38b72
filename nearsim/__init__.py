"""nearsim: choose and check near-duplicate detection settings.

Shingles, MinHash, LSH banding and its tuner, exact ground truth by a similarity join,
SimHash, clusters, document loading and one Settings object. The Streamlit app in
``app.py`` is a thin layer over this package; nothing here imports Streamlit.
"""

from .clusters import check_clusters, cluster_table, clusters
from .documents import (
    csv_columns,
    example_corpus,
    html_to_text,
    parse_paste,
    read_csv_column,
    read_csv_column_rows,
    read_document_file,
)
from .evaluate import Evaluation, evaluate, rate_by_band
from .exact import JoinFunnel, exact_pairs, join_funnel, pair_jaccard
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
from .sample import similarity_sample
from .settings import FIELD_SPECS, Settings
from .shingles import shingles
from .simhash import (
    SimHasher,
    broken_simhash,
    compare_simhash,
    hamming_distance,
    hamming_pairs,
    hash_health,
    replay,
)
from .tokens import TokenSets

__version__ = "0.1.0"

__all__ = [
    "FIELD_SPECS",
    "Choice",
    "Evaluation",
    "JoinFunnel",
    "MinHasher",
    "Settings",
    "SimHasher",
    "TokenSets",
    "TooManyPairsError",
    "broken_simhash",
    "candidate_pairs",
    "candidate_probability",
    "check_clusters",
    "cluster_table",
    "clusters",
    "compare_simhash",
    "csv_columns",
    "effective_threshold",
    "estimate_jaccard",
    "estimate_pairs",
    "evaluate",
    "exact_pairs",
    "example_corpus",
    "false_negative_area",
    "false_positive_area",
    "hamming_distance",
    "hamming_pairs",
    "hash_health",
    "html_to_text",
    "join_funnel",
    "pair_jaccard",
    "parse_paste",
    "rate_by_band",
    "read_csv_column",
    "read_csv_column_rows",
    "read_document_file",
    "replay",
    "shingles",
    "similarity_sample",
    "standard_error",
    "steepest_point",
    "tune",
]
