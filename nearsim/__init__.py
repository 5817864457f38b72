"""nearsim: choose and check near-duplicate detection settings.

Shingles, MinHash, LSH banding and its tuner, exact ground truth by a similarity join,
SimHash, clusters, document loading and one Settings object. The Streamlit app in
``app.py`` is a thin layer over this package; nothing here imports Streamlit.
"""

from . import pipeline  # the stage graph: nearsim.pipeline.run, Runner, STAGES
from .clusters import check_clusters, cluster_table, clusters
from .corpora import (
    CorpusInfo,
    CorpusReader,
    CorpusReport,
    inspect_corpus,
    iter_corpus,
    read_corpus,
    sample_corpus,
)
from .documents import (
    CsvInfo,
    csv_columns,
    guess_text_column,
    html_to_text,
    inspect_csv,
    parse_paste,
    read_csv_column,
    read_csv_column_rows,
    read_document_file,
)
from .evaluate import Evaluation, compare_simhash, evaluate, rate_by_band
from .exact import JoinFunnel, exact_pairs, join_funnel, pair_jaccard
from .example import example_corpus
from .export import (
    Carry,
    PeerConfig,
    data_juicer_config,
    datatrove_config,
    dedup_argv,
    dedup_command,
    nemo_curator_config,
    peer_configs,
    text_dedup_config,
)
from .hamming import hamming_pairs, replay
from .hash_health import broken_simhash, hash_health
from .labels import (
    LABELS,
    ThresholdChoice,
    best_threshold,
    check_labels,
    draw_label_pairs,
    label_curve,
    labels_to_csv,
    read_labels_csv,
)
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
from .predict import (
    Prediction,
    TunerComparison,
    compare_tuners,
    predict,
    prediction_table,
    similarity_weights,
    tune_for,
)
from .presets import PRESETS, Preset, preset
from .removal import removal_curve, removal_rates
from .sample import similarity_sample
from .settings import FIELD_SPECS, Settings
from .shingles import shingles
from .simhash import SimHasher, hamming_distance
from .sizing import Throughput, measure_throughput, sizing
from .tokens import TokenSets

__version__ = "0.1.0"

__all__ = [
    "FIELD_SPECS",
    "LABELS",
    "PRESETS",
    "Carry",
    "Choice",
    "CorpusInfo",
    "CorpusReader",
    "CorpusReport",
    "CsvInfo",
    "Evaluation",
    "JoinFunnel",
    "MinHasher",
    "PeerConfig",
    "Prediction",
    "Preset",
    "Settings",
    "SimHasher",
    "ThresholdChoice",
    "Throughput",
    "TokenSets",
    "TooManyPairsError",
    "TunerComparison",
    "best_threshold",
    "broken_simhash",
    "candidate_pairs",
    "candidate_probability",
    "check_clusters",
    "check_labels",
    "cluster_table",
    "clusters",
    "compare_simhash",
    "compare_tuners",
    "csv_columns",
    "data_juicer_config",
    "datatrove_config",
    "dedup_argv",
    "dedup_command",
    "draw_label_pairs",
    "effective_threshold",
    "estimate_jaccard",
    "estimate_pairs",
    "evaluate",
    "exact_pairs",
    "example_corpus",
    "false_negative_area",
    "false_positive_area",
    "guess_text_column",
    "hamming_distance",
    "hamming_pairs",
    "hash_health",
    "html_to_text",
    "inspect_corpus",
    "inspect_csv",
    "iter_corpus",
    "join_funnel",
    "label_curve",
    "labels_to_csv",
    "measure_throughput",
    "nemo_curator_config",
    "pair_jaccard",
    "parse_paste",
    "peer_configs",
    "pipeline",
    "predict",
    "prediction_table",
    "preset",
    "rate_by_band",
    "read_corpus",
    "read_csv_column",
    "read_csv_column_rows",
    "read_document_file",
    "read_labels_csv",
    "removal_curve",
    "removal_rates",
    "replay",
    "sample_corpus",
    "shingles",
    "similarity_sample",
    "similarity_weights",
    "sizing",
    "standard_error",
    "steepest_point",
    "text_dedup_config",
    "tune",
    "tune_for",
]
