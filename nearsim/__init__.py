"""nearsim: choose and check near-duplicate detection settings.

Shingles, MinHash, LSH banding and its tuner, exact ground truth by a similarity join,
SimHash, clusters, document loading and one Settings object. The Streamlit app in
``app.py`` is a thin layer over this package; nothing here imports Streamlit.

``import nearsim`` loads nothing but this file: each public name is imported from its
module the first time it is used (PEP 562), so ``nearsim --help`` and a command-line error
answer without loading pandas, SciPy or numba, ``nearsim tune`` without pandas, and
``nearsim dedup`` loads only what its stages use (no pandas).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_PUBLIC: dict[str, tuple[str, ...]] = {
    "clustering": (
        "KeptCheck",
        "check_against_kept",
        "check_clusters",
        "cluster_table",
        "clusters",
    ),
    "copies": ("copy_keys", "copy_pairs"),
    "io.corpora": (
        "CorpusInfo",
        "CorpusReader",
        "CorpusReport",
        "inspect_corpus",
        "iter_corpus",
        "read_corpus",
        "sample_corpus",
    ),
    "io.documents": (
        "CsvInfo",
        "csv_columns",
        "guess_text_column",
        "html_to_text",
        "inspect_csv",
        "parse_paste",
        "read_csv_column",
        "read_csv_column_rows",
        "read_document_file",
    ),
    "scoring": ("Evaluation", "compare_simhash", "evaluate", "rate_by_band"),
    "join.exact": ("JoinFunnel", "exact_pairs", "join_funnel", "pair_jaccard"),
    "io.example": ("example_corpus",),
    "explore.export": (
        "Carry",
        "PeerConfig",
        "data_juicer_config",
        "datatrove_config",
        "dedup_argv",
        "dedup_command",
        "nemo_curator_config",
        "peer_configs",
        "text_dedup_config",
    ),
    "hamming": ("hamming_pairs", "replay"),
    "index.core": ("Index",),
    "explore.hash_health": ("broken_simhash", "hash_health"),
    "explore.labels": (
        "LABELS",
        "ThresholdChoice",
        "best_threshold",
        "check_labels",
        "draw_label_pairs",
        "label_curve",
        "labels_to_csv",
        "read_labels_csv",
    ),
    "banding": ("TooManyPairsError", "candidate_pairs"),
    "lsh": (
        "Choice",
        "candidate_probability",
        "effective_threshold",
        "false_negative_area",
        "false_positive_area",
        "steepest_point",
        "tune",
    ),
    "minhash": ("MinHasher", "estimate_jaccard", "estimate_pairs", "standard_error"),
    "prediction": (
        "Prediction",
        "TunerComparison",
        "compare_tuners",
        "predict",
        "prediction_table",
        "similarity_weights",
        "tune_for",
    ),
    "explore.presets": ("PRESETS", "Preset", "preset"),
    "explore.removal": ("removal_curve", "removal_rates"),
    "join.sample": ("similarity_sample",),
    "settings": ("FIELD_SPECS", "RunSettings", "Settings"),
    "shingling": ("shingles",),
    "simhash": ("SimHasher", "hamming_distance"),
    "explore.sizing": ("Throughput", "measure_throughput", "sizing"),
    "join.tokens": ("TokenSets",),
}
"""Each public name, by the module that defines it."""
_HOME = {name: module for module, names in _PUBLIC.items() for name in names}

__all__ = sorted([*_HOME, "pipeline"])


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        if name == "pipeline":  # the stage graph: nearsim.pipeline.run, Runner, STAGES
            return importlib.import_module(".pipeline", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
