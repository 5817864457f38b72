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


MIXED = "日本語のテキスト 😀 emoji שלום עולם مرحبا"
"""Text in several scripts, emoji and right-to-left runs, for the document readers."""


def char_shingles(text: str, k: int = 5) -> set[str]:
    """Lower-case character k-grams of white-space-collapsed text (a brute-force reference)."""
    text = " ".join(text.lower().split())
    return {text[i : i + k] for i in range(max(1, len(text) - k + 1))}


def jaccard(a, b) -> float:
    """Exact Jaccard similarity ``|A ∩ B| / |A ∪ B|`` of two documents' shingles, taken as
    sets (repeats ignored): the tests' one reference.

    Two empty documents give 0.0, the library's rule: ``nearsim._pair_overlap.jaccard``
    divides by ``max(|A ∪ B|, 1)``, ``pair_jaccard`` gives 0.0 when both documents have no
    shingles, and ``exact_pairs`` never pairs a document with no shingles (its threshold is
    above 0). One empty and one not: 0 / |B| = 0.0 as well.
    """
    a, b = set(a), set(b)
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def zip_bytes() -> bytes:
    """A small ZIP archive (what an .xlsx or .docx file is)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("sheet.xml", "<x/>")
    return buffer.getvalue()


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
