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
