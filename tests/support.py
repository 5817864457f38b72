"""Helpers shared by several test modules."""

from contextlib import contextmanager

import numpy as np


def known_pair(rng: np.random.Generator, tag: int, union: int, j: float):
    """Two shingle sets whose Jaccard similarity is exactly round(j * union) / union."""
    inter = round(j * union)
    only = union - inter
    a_only = only // 2
    # one draw of `union` numbers: the same values, and the same generator state after,
    # as `union` draws of one (numpy's Generator.integers), at a fraction of the time
    suffix = rng.integers(1 << 30, size=union).tolist()
    tokens = [f"p{tag}-{x}-{s}" for x, s in enumerate(suffix)]
    a = tokens[:inter] + tokens[inter : inter + a_only]
    b = tokens[:inter] + tokens[inter + a_only :]
    return a, b, inter / union


@contextmanager
def one_numba_thread():
    """Run numba's parallel kernels on the calling thread only, for loops of thousands of
    calls on two documents each: with two threads every call's parallel region waits for
    the other thread, which on a busy machine cost 2 ms a call (3,000 calls: 6.1 s
    against 0.3 s on one thread). The answers are the same."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def mse_ratio_sd(j, k: int) -> float:
    """Standard deviation of ``R = Σ (Ĵ_i − J_i)² / Σ J_i(1 − J_i)/k`` over independent
    MinHash estimates ``Ĵ_i = X_i / k`` of pairs of similarity ``J_i`` (E[R] = 1).

    Each of the k hash functions is drawn independently and makes the two minima equal
    with probability J, so X ~ Binomial(k, J): Var((Ĵ − J)²) = μ₄/k⁴ − (J(1 − J)/k)², with
    μ₄ = kJ(1 − J)(1 + 3(k − 2)J(1 − J)) the binomial's fourth central moment. For m
    estimates this is about sqrt(2/m), a variance estimate's relative standard error; a
    pair at J = 0 or 1 adds nothing to either sum (its estimate is exact).
    """
    j = np.asarray(j, dtype=np.float64)
    pq = j * (1 - j)
    fourth = k * pq * (1 + 3 * (k - 2) * pq) / k**4
    return float(np.sqrt(np.sum(fourth - (pq / k) ** 2)) / np.sum(pq / k))


MIXED = "日本語のテキスト 😀 emoji שלום עולם مرحبا"
"""Text in several scripts, emoji and right-to-left runs, for the document readers."""


def char_shingles(text: str, k: int = 5) -> set[str]:
    """Lower-case character k-grams of white-space-collapsed text (a brute-force reference)."""
    text = " ".join(text.lower().split())
    return {text[i : i + k] for i in range(max(1, len(text) - k + 1))}


def jaccard(a, b) -> float:
    """Exact Jaccard similarity ``|A ∩ B| / |A ∪ B|`` of two documents' shingles, taken as
    sets (repeats ignored): the tests' one reference.

    Two empty documents give 0.0, the library's rule: ``nearsim.join.overlap.jaccard``
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
