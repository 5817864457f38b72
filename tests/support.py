"""Helpers shared by several test modules."""

import numpy as np


def known_pair(rng: np.random.Generator, tag: int, union: int, j: float):
    """Two shingle sets whose Jaccard similarity is exactly round(j * union) / union."""
    inter = round(j * union)
    only = union - inter
    a_only = only // 2
    tokens = [f"p{tag}-{x}-{rng.integers(1 << 30)}" for x in range(union)]
    a = tokens[:inter] + tokens[inter : inter + a_only]
    b = tokens[:inter] + tokens[inter + a_only :]
    return a, b, inter / union


def datatrove_values(config) -> tuple:
    """A datatrove MinhashConfig's values in nearsim's order: k, bands, rows, seed,
    lowercase, collapse white space, remove punctuation."""
    norm = config.norm_config
    return (
        config.n_grams, config.num_buckets, config.hashes_per_bucket, config.seed,
        norm.lowercase, norm.norm_whitespace, norm.remove_punctuation,
    )  # fmt: skip


def nearsim_values(settings) -> tuple:
    """The same values of a nearsim Settings (see :func:`datatrove_values`)."""
    s = settings
    return (
        s.shingle_k, s.bands, s.rows, s.hash_seed,
        s.lowercase, s.collapse_whitespace, s.remove_punctuation,
    )  # fmt: skip
