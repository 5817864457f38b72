"""Presets: the published MinHash defaults of the pipelines people run, as nearsim Settings.

Each :class:`Preset` holds what one project ships as its default — shingling, signature
length, bands and rows per band, threshold, normalisation, hash family and seed — read from
that project's own source (repository, file, release or commit, line numbers in
:attr:`Preset.sources`). Its :attr:`Preset.settings` is the nearest :class:`~nearsim.Settings`
(``auto_tune=False`` with the peer's bands and rows), so the explorer can show on a user's
own documents what that default would do. What nearsim cannot express (a tokeniser it does
not have, another hash family, a filter it does not run) is listed in
:attr:`Preset.differences`, never silently approximated.

Peers name the two banding numbers differently (and their own documents have had them
backwards), so every preset says it in one set of words: *b bands of r rows each* — the
signature is cut into b bands of r consecutive values, and two documents become a candidate
pair when all r values of at least one band are equal.

>>> p = preset("datatrove")
>>> p.banding
'14 bands of 8 rows each'
>>> p.settings.shingle_kind, p.settings.shingle_k, p.settings.num_perm
('word', 5, 112)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nearsim.settings import FIELD_SPECS, Settings
from nearsim.utils.validation import check_choice, check_instance, check_int

__all__ = ["PRESETS", "Preset", "Source", "banding_words", "preset"]


@dataclass(frozen=True)
class Source:
    """Where a preset's value was read.

    Attributes
    ----------
    repository : str
        GitHub ``owner/name``.
    path : str
        File path inside the repository.
    version : str
        The release (PyPI wheel) or commit read.
    lines : str
        Line numbers in that version, e.g. ``"51-57"``.
    what : str
        What those lines hold.
    """

    repository: str
    path: str
    version: str
    lines: str
    what: str


@dataclass(frozen=True)
class Preset:
    """One peer's published defaults and the nearest nearsim Settings.

    Attributes
    ----------
    name : str
        Key in :data:`PRESETS`.
    title : str
        The peer and the configuration, for a menu.
    settings : Settings
        The nearest nearsim settings (``auto_tune=False``; the peer's bands and rows).
    banding : str
        "b bands of r rows each", in nearsim's words.
    peer_banding : str
        How the peer itself names those two numbers.
    peer_values : tuple of (str, str)
        The peer's own parameter names and default values.
    shingling, normalisation, hash_family, threshold_note : str
        The peer's choices, in plain words.
    verify : str
        The ``nearsim dedup --verify`` mode nearest to what the peer does with a candidate
        pair: ``"none"`` (keeps every candidate), ``"exact"`` (checks exact Jaccard) or
        ``"estimate"``.
    differences : tuple of str
        What does not carry over to nearsim.
    sources : tuple of Source
        Where each value was read.
    """

    name: str
    title: str
    settings: Settings
    banding: str
    peer_banding: str
    peer_values: tuple[tuple[str, str], ...]
    shingling: str
    normalisation: str
    hash_family: str
    threshold_note: str
    verify: str
    differences: tuple[str, ...]
    sources: tuple[Source, ...]

    def apply(self, settings: Settings) -> Settings:
        """``settings`` with this preset's shingling, MinHash and banding fields.

        The fields that say where the explorer's documents come from (``source``,
        ``n_docs``, ``example_seed``) and ``simhash_distance`` are kept from ``settings``.

        Parameters
        ----------
        settings : Settings

        Returns
        -------
        Settings
        """
        check_instance(settings, "settings", Settings, "a nearsim Settings")
        return settings.replace(**{name: getattr(self.settings, name) for name in PRESET_FIELDS})


PRESET_FIELDS = (
    "shingle_kind", "shingle_k", "lowercase", "remove_punctuation", "collapse_whitespace",
    "min_shingles", "num_perm", "hash_seed", "sketch", "threshold", "auto_tune", "fp_weight",
    "bands", "rows",
)  # fmt: skip
"""The Settings fields a preset sets (the rest describe the explorer's documents); every
peer computes classic MinHash, so a preset sets ``sketch`` to it."""


def banding_words(b: int, r: int) -> str:
    """``"b bands of r rows each"`` with the right plurals.

    >>> banding_words(20, 13)
    '20 bands of 13 rows each'
    >>> banding_words(1, 1)
    '1 band of 1 row'
    """
    bands = f"{b} band{'' if b == 1 else 's'}"
    rows = f"{r} row{'' if r == 1 else 's'}"
    return f"{bands} of {rows}" + ("" if b == 1 else " each")


def _threshold(value: float) -> tuple[float, str]:
    """The peer's threshold clipped into the range nearsim accepts, and a note if clipped."""
    spec = FIELD_SPECS["threshold"]
    clipped = min(max(value, spec.low), spec.high)
    if clipped == value:
        return value, ""
    return clipped, (
        f"The peer's threshold {value:g} is outside nearsim's accepted range "
        f"{spec.low:g} … {spec.high:g}; the preset uses {clipped:g}."
    )


def _make(
    *, settings: dict[str, Any], threshold: float, threshold_note: str, **fields: Any
) -> Preset:
    value, clip_note = _threshold(threshold)
    built = Settings(auto_tune=False, threshold=value, **settings)
    note = f"{threshold_note} {clip_note}".strip()
    return Preset(
        settings=built,
        banding=banding_words(built.bands, built.rows),
        threshold_note=note,
        **fields,
    )


_MERSENNE61 = "(a·x + b) mod (2⁶¹ − 1)"
_NEARSIM_HASH = (
    "nearsim: MurmurHash3 (32-bit, seed 0) of each shingle, then (a·x + b) mod (2³¹ − 1)"
)
_SHA1_FAMILY = (
    "the first 4 bytes of SHA-1 (little-endian) of each n-gram, then "
    "((a·x + b) mod (2⁶¹ − 1)) & 0xFFFFFFFF"
)
_SHORT_DROPPED = (
    "A document with fewer than {k} tokens gets {what}; nearsim gives a text shorter than "
    "k one shingle (the whole text), so it can still pair with an identical short text."
)

_DATATROVE = "huggingface/datatrove"
_DATATROVE_V = "release 0.10.1 (PyPI wheel)"
_NEMO = "NVIDIA-NeMo/Curator"
_NEMO_V = "release 1.4.0 (PyPI wheel nemo-curator)"
_TEXT_DEDUP = "ChenghaoMou/text-dedup"
_DJ = "modelscope/data-juicer"
_DJ_V = "release 1.6.1 (PyPI wheel py-data-juicer)"
_BIGCODE = "bigcode-project/bigcode-dataset"
_BIGCODE_V = "commit 5b774bf7ac012fd7abc4472c80e71cb638846fac"
_SPARK = "apache/spark"

# fmt: off
_ALL = (
    _make(
        name="datatrove",
        title="datatrove — MinhashConfig() defaults (MinHash dedup pipeline)",
        settings=dict(
            shingle_kind="word", shingle_k=5, lowercase=True, remove_punctuation=True,
            collapse_whitespace=True, num_perm=112, hash_seed=1, bands=14, rows=8,
        ),
        threshold=0.72,
        threshold_note=(
            "datatrove has no threshold: any band match makes a duplicate. Its source says "
            "'threshold is (1/14)^(1/8)~0.72' (the S-curve's midpoint, 0.7190); the preset "
            "uses 0.72."
        ),
        peer_banding="num_buckets=14 (bands), hashes_per_bucket=8 (rows per band); "
        "num_buckets × hashes_per_bucket = 112 hash functions",
        peer_values=(
            ("n_grams", "5"), ("num_buckets", "14"), ("hashes_per_bucket", "8"), ("seed", "1"),
            ("norm_config", "TextNormConfig()"),
            ("hash_config", "HashConfig(precision=64, hash_fc='xxhash')"),
            ("language", "'eng' (MinhashDedupSignature)"),
        ),
        shingling="word 5-grams: the normalised text split by datatrove's English word "
        "tokeniser (spaCy's blank 'en' tokenizer), 5 consecutive tokens joined by a space",
        normalisation="simplify_text with TextNormConfig(): lower-case, numbers → '0', "
        "punctuation (a fixed character list) → space, white space collapsed, diacritics "
        "removed (NFD, marks dropped)",
        hash_family="xxhash64 of each n-gram, then " + _MERSENNE61 + ", 64-bit values; "
        "a, b from numpy RandomState(seed)",
        verify="none",
        differences=(
            "Tokeniser: datatrove splits words with spaCy's English tokenizer (punctuation "
            "split off as tokens before it is removed, contractions split); nearsim splits "
            "the normalised text on white space.",
            "Punctuation: datatrove replaces each character of its own list (ASCII "
            "punctuation and symbols such as $ + < = > ^ ` | ~, some CJK marks, control "
            "characters) with a space; nearsim deletes every character of Unicode category "
            "P ('don't' is 'don t' there, 'dont' here).",
            "Numbers: datatrove writes every number as '0'; nearsim keeps the digits.",
            "Diacritics: datatrove removes them (é → e); nearsim keeps them.",
            _SHORT_DROPPED.format(k=5, what="no signature and is never a duplicate"),
            "Hash family: datatrove uses xxhash64 and " + _MERSENNE61 + " with 64-bit "
            "values; " + _NEARSIM_HASH + ". Seed 1 in both draws different functions.",
            "No estimate filter: datatrove keeps every pair that shares a band (use "
            "--verify none); nearsim dedup keeps a candidate only if its estimate ≥ t by "
            "default.",
        ),
        sources=(
            Source(_DATATROVE, "src/datatrove/pipeline/dedup/minhash.py", _DATATROVE_V,
                   "30-35", "comment: threshold is (1/14)^(1/8)~0.72"),
            Source(_DATATROVE, "src/datatrove/pipeline/dedup/minhash.py", _DATATROVE_V,
                   "40-57", "MinhashConfig: n_grams=5, num_buckets=14, hashes_per_bucket=8, "
                   "seed=1, norm_config, hash_config"),
            Source(_DATATROVE, "src/datatrove/pipeline/dedup/minhash.py", _DATATROVE_V,
                   "137-152", "MinhashDedupSignature: language=english, "
                   "num_hashes = num_buckets × hashes_per_bucket"),
            Source(_DATATROVE, "src/datatrove/pipeline/dedup/minhash.py", _DATATROVE_V,
                   "154-210", "RandomState(seed) a, b in [1, 2⁶¹−1); signature split into "
                   "num_buckets consecutive parts; shingles = hashed word n-grams"),
            Source(_DATATROVE, "src/datatrove/utils/text.py", _DATATROVE_V, "185-257",
                   "TextNormConfig defaults and simplify_text"),
            Source(_DATATROVE, "src/datatrove/utils/hashing.py", _DATATROVE_V, "11-14",
                   "HashConfig: precision=64, hash_fc='xxhash'"),
            Source(_DATATROVE, "src/datatrove/assets/tokenizer_assignment.csv", _DATATROVE_V,
                   "485", "eng → SpaCyTokenizer('en')"),
        ),
    ),
    _make(
        name="nemo_curator",
        title="NeMo Curator — FuzzyDeduplicationWorkflow defaults",
        settings=dict(
            shingle_kind="char", shingle_k=24, lowercase=False, remove_punctuation=False,
            collapse_whitespace=False, num_perm=260, hash_seed=42, bands=20, rows=13,
        ),
        threshold=0.8,
        threshold_note=(
            "NeMo Curator has no threshold parameter: any band match makes a duplicate. Its "
            "defaults were chosen for pairs with Jaccard similarity about 0.8 (PR #498); "
            "the S-curve's midpoint (1/20)^(1/13) is 0.794. The preset uses 0.8."
        ),
        peer_banding="num_bands=20 (bands), minhashes_per_band=13 (rows per band); "
        "num_hashes = 260",
        peer_values=(
            ("char_ngrams", "24"), ("num_bands", "20"), ("minhashes_per_band", "13"),
            ("seed", "42"), ("use_64_bit_hash", "False"), ("normalize_text", "False"),
        ),
        shingling="character 24-grams of the raw text (a text shorter than 24 characters is "
        "hashed whole)",
        normalisation="none by default (normalize_text=False; when on: lower-case and "
        "white space collapsed and trimmed)",
        hash_family="MurmurHash3_x86_32 of each substring (hash seed = the first a), then "
        "((h·a + b) mod (2⁶¹ − 1)) & 0xFFFFFFFF; a, b from numpy RandomState(seed) below "
        "2³¹ − 1 (libcudf nvtext minhash, on a GPU)",
        verify="none",
        differences=(
            "Hash family: NeMo Curator seeds MurmurHash3 with the first a value and reduces "
            "modulo 2⁶¹ − 1 to 32 bits; " + _NEARSIM_HASH + ". Seed 42 in both draws "
            "different functions.",
            "An empty text gets a signature of zeros in NeMo Curator (libcudf), so all empty "
            "documents match one another; nearsim gives an empty text no signature.",
            "No estimate filter: NeMo Curator 1.4 keeps every pair that shares a band (use "
            "--verify none); nearsim dedup keeps a candidate only if its estimate ≥ t by "
            "default.",
        ),
        sources=(
            Source(_NEMO, "nemo_curator/stages/deduplication/fuzzy/workflow.py", _NEMO_V,
                   "76-83", "seed=42, char_ngrams=24, num_bands=20, minhashes_per_band=13, "
                   "use_64_bit_hash=False, normalize_text=False"),
            Source(_NEMO, "nemo_curator/stages/deduplication/fuzzy/minhash.py", _NEMO_V,
                   "108-147", "generate_seeds: RandomState(seed), a, b below 2³¹−1; "
                   "minhash32: cudf str.minhash(a, b, seed=seeds[0][0], width=char_ngrams)"),
            Source(_NEMO, "nemo_curator/stages/deduplication/fuzzy/lsh/lsh.py", _NEMO_V,
                   "131-138", "band i = minhash columns i·r … i·r + r − 1"),
            Source(_NEMO, "nemo_curator/stages/text/utils/text.py", _NEMO_V, "18-55",
                   "normalize_text: lower-case, normalize_spaces"),
            Source(_NEMO, "nemo_curator/config/text/fuzzy_deduplication_pipeline.yaml",
                   _NEMO_V, "55-62", "the shipped YAML's Minhash + LSH keys"),
            Source("rapidsai/cudf", "cpp/src/text/minhash.cu",
                   "commit 01500dd55bfaf0b9687517cb7d8040cf7fd179cf", "minhash_kernel",
                   "a string shorter than width is hashed whole; an empty string gives 0"),
        ),
    ),
    _make(
        name="text_dedup",
        title="text-dedup — minhash with the shipped config.toml",
        settings=dict(
            shingle_kind="word", shingle_k=5, lowercase=True, remove_punctuation=True,
            collapse_whitespace=True, num_perm=112, hash_seed=42, bands=12, rows=9,
        ),
        threshold=0.7,
        threshold_note="threshold = 0.7 in the shipped config.toml; with bands and rows "
        "unset text-dedup picks them with datasketch's rule: 12 bands of 9 rows for "
        "(0.7, 112).",
        peer_banding="bands=12, rows=9 (rows per band), both None in config.toml and "
        "chosen by optimal_param(threshold=0.7, num_perm=112)",
        peer_values=(
            ("ngram_size", "5"), ("num_perm", "112"), ("threshold", "0.7"), ("seed", "42"),
            ("hash_func_name", "'sha1'"), ("hash_bits", "64"), ("min_length", "5"),
            ("check_false_positive", "true"), ("bands", "None → 12"), ("rows", "None → 9"),
        ),
        shingling="word 5-grams: the lower-cased text split at every non-word character "
        "(regex \\W), 5 consecutive tokens joined by a space",
        normalisation="lower-case; punctuation and white space act as separators",
        hash_family=_SHA1_FAMILY + "; a, b from numpy RandomState(seed)",
        verify="exact",
        differences=(
            "Tokeniser: text-dedup splits at every single non-word character, so two "
            "separators in a row (', ' or a double space) give an empty token that is part "
            "of the n-grams; nearsim deletes punctuation and splits on runs of white space.",
            "Short documents: text-dedup drops documents with fewer than min_length = 5 "
            "tokens from its output altogether; nearsim keeps every document.",
            "Hash family: text-dedup hashes with SHA-1 (32 bits) and reduces modulo "
            "2⁶¹ − 1 to 32 bits; " + _NEARSIM_HASH + ". Seed 42 in both draws different "
            "functions.",
            "Verification: check_false_positive = true keeps, in each cluster, the documents "
            "with exact Jaccard ≥ t to some other member (all pairs of the cluster, not only "
            "candidate pairs); nearsim dedup --verify exact checks each candidate pair.",
        ),
        sources=(
            Source(_TEXT_DEDUP, "config.toml",
                   "commit 00b6d70b1673bd631bd3f90141a6c38141e13927", "10-21",
                   "[algorithm]: seed=42, num_perm=112, threshold=0.7, ngram_size=5, "
                   "hash_bits=64, check_false_positive=true"),
            Source(_TEXT_DEDUP, "src/text_dedup/config/algorithms/minhash.py",
                   "commit 1bd3f5c7d63bdd3bb5bfdc3b2381e23c552942cc", "18-91",
                   "optimal_param (datasketch's rule); MinHashAlgorithmConfig: "
                   "hash_func_name='sha1', bands/rows None, min_length=5 (the tokeniser, "
                   "_get_tokenize_func below: \\W split of content.lower())"),
            Source(_TEXT_DEDUP, "src/text_dedup/config/algorithms/base.py",
                   "commit 59295bfd69b99558adea64b30ad5397c39287d4f", "18, 25-28",
                   "seed=42; RandomState(seed)"),
            Source(_TEXT_DEDUP, "src/text_dedup/minhash.py",
                   "commit 00b6d70b1673bd631bd3f90141a6c38141e13927", "check_false_positives",
                   "exact Jaccard check inside each cluster"),
        ),
    ),
    _make(
        name="data_juicer",
        title="data-juicer — document_minhash_deduplicator defaults",
        settings=dict(
            shingle_kind="word", shingle_k=5, lowercase=True, remove_punctuation=False,
            collapse_whitespace=True, num_perm=256, hash_seed=42, bands=25, rows=10,
        ),
        threshold=0.7,
        threshold_note="jaccard_threshold = 0.7; with num_bands and num_rows_per_band "
        "unset data-juicer picks them with datasketch's rule: 25 bands of 10 rows for "
        "(0.7, 256).",
        peer_banding="num_bands=25 (bands), num_rows_per_band=10 (rows per band), both None "
        "by default and chosen by optimal_param(0.7, 256)",
        peer_values=(
            ("tokenization", "'space'"), ("window_size", "5"), ("lowercase", "True"),
            ("ignore_pattern", "None"), ("num_permutations", "256"),
            ("jaccard_threshold", "0.7"), ("num_bands", "None → 25"),
            ("num_rows_per_band", "None → 10"),
        ),
        shingling="word 5-grams: the text split on the space character only (empty pieces "
        "dropped), 5 consecutive words joined by a space",
        normalisation="lower-case; nothing else by default (ignore_pattern=None)",
        hash_family=_SHA1_FAMILY + "; a, b from numpy RandomState(42) (fixed)",
        verify="none",
        differences=(
            "Tokeniser: data-juicer's 'space' tokenization splits on the space character "
            "only, so a newline or tab stays inside a word; nearsim splits on any white "
            "space.",
            _SHORT_DROPPED.format(
                k=5, what="no shingles and a signature of all 2³² − 1, so all such short "
                "documents match one another in every band"
            ),
            "Hash family: data-juicer hashes with SHA-1 (32 bits) and reduces modulo "
            "2⁶¹ − 1 to 32 bits; " + _NEARSIM_HASH + ". data-juicer's seed is fixed at 42; "
            "nearsim's hash seed 42 draws different functions.",
            "No estimate filter: data-juicer keeps every pair that shares a band (use "
            "--verify none); nearsim dedup keeps a candidate only if its estimate ≥ t by "
            "default.",
        ),
        sources=(
            Source(_DJ, "data_juicer/ops/deduplicator/document_minhash_deduplicator.py", _DJ_V,
                   "117-127", "tokenization='space', window_size=5, lowercase=True, "
                   "ignore_pattern=None, num_permutations=256, jaccard_threshold=0.7, "
                   "num_bands=None, num_rows_per_band=None"),
            Source(_DJ, "data_juicer/ops/deduplicator/document_minhash_deduplicator.py", _DJ_V,
                   "48-97, 195-218", "optimal_param (datasketch's rule); bands of "
                   "consecutive rows; RandomState(seed=42) a, b below 2⁶¹−1"),
            Source(_DJ, "data_juicer/ops/deduplicator/document_minhash_deduplicator.py", _DJ_V,
                   "28-45, 220-282", "sha1_hash32; tokens per tokenization; empty token set "
                   "→ all MAX_HASH"),
            Source(_DJ, "data_juicer/ops/common/helper_func.py", _DJ_V, "55-68",
                   "split_on_whitespace: split on ' ' only, empty pieces dropped"),
        ),
    ),
    _make(
        name="bigcode",
        title="BigCode near_deduplication — minhash_deduplication.py defaults",
        settings=dict(
            shingle_kind="word", shingle_k=5, lowercase=False, remove_punctuation=True,
            collapse_whitespace=True, num_perm=256, hash_seed=42, bands=25, rows=10,
        ),
        threshold=0.7,
        threshold_note="threshold = 0.7 (command-line default); bands and rows come from "
        "datasketch's rule: 25 bands of 10 rows for (0.7, 256).",
        peer_banding="B=25 (bands), R=10 (rows per band), from optimal_param(threshold, "
        "num_perm)",
        peer_values=(
            ("--ngram-size", "5"), ("--num-perm", "256"), ("--threshold", "0.7"),
            ("--min-ngram-size", "5"), ("--column", "content"), ("SEED", "42"),
        ),
        shingling="word 5-grams: the text split at every character outside [A-Za-z_0-9], "
        "5 consecutive tokens joined by a space",
        normalisation="none (no lower-casing); every non-ASCII-alphanumeric character is a "
        "separator",
        hash_family=_SHA1_FAMILY + "; a, b from numpy RandomState(SEED = 42) (fixed)",
        verify="none",
        differences=(
            "Tokeniser: BigCode splits at every single character outside [A-Za-z_0-9] (so "
            "accented and non-Latin letters are separators, and two separators in a row "
            "give an empty token); nearsim deletes Unicode punctuation and splits on runs "
            "of white space.",
            _SHORT_DROPPED.format(
                k="min_ngram_size = 5", what="no shingles and a signature of all 2³² − 1, so "
                "all such short documents match one another in every band"
            ),
            "Hash family: BigCode hashes with SHA-1 (32 bits) and reduces modulo 2⁶¹ − 1 "
            "to 32 bits; " + _NEARSIM_HASH + ". Seed 42 in both draws different functions.",
            "No estimate filter: this script keeps every pair that shares a band (use "
            "--verify none); nearsim dedup keeps a candidate only if its estimate ≥ t by "
            "default.",
        ),
        sources=(
            Source(_BIGCODE, "near_deduplication/minhash_deduplication.py", _BIGCODE_V,
                   "34-38", "SEED=42, NON_ALPHA=[^A-Za-z_0-9], MAX_HASH, MERSENNE_PRIME"),
            Source(_BIGCODE, "near_deduplication/minhash_deduplication.py", _BIGCODE_V,
                   "44-128", "ngrams (none below min_ngram_size), sha1_hash32, embed_func"),
            Source(_BIGCODE, "near_deduplication/minhash_deduplication.py", _BIGCODE_V,
                   "131-188, 219-222, 254", "optimal_param; --ngram-size 5, --num-perm 256, "
                   "--threshold 0.7, --min-ngram-size 5; B, R = optimal_param(...)"),
        ),
    ),
    _make(
        name="spark",
        title="Spark MLlib — MinHashLSH defaults (OR-amplification only)",
        settings=dict(num_perm=8, bands=1, rows=1),
        threshold=0.4,
        threshold_note="MinHashLSH has no default threshold: approxSimilarityJoin takes a "
        "Jaccard distance and keeps pairs with distance < it. The documentation's example "
        "uses 0.6, i.e. Jaccard similarity > 0.4; the preset uses 0.4.",
        peer_banding="numHashTables=1: each hash table is one band of one row "
        "(OR-amplification only, no AND within a table)",
        peer_values=(("numHashTables", "1"), ("seed", "class-name hash (HasSeed)")),
        shingling="none: MinHashLSH takes a vector whose non-zero indices are the set "
        "(shingles come from the user's own Tokenizer/NGram/HashingTF stages)",
        normalisation="none (whatever the user's feature stages do)",
        hash_family="((1 + i)·a + b) mod 2038074743 for each non-zero index i; a, b from "
        "scala.util.Random(seed)",
        verify="exact",
        differences=(
            "Signature length: Spark computes numHashTables = 1 value per document; nearsim "
            "needs at least 8, so the preset has num_perm = 8 and bands from only the first "
            "b·r = 1 of them (the estimate filter would use all 8).",
            "Shingling: Spark has none of its own; the preset keeps nearsim's default "
            "character 5-grams.",
            "The documentation's example uses numHashTables = 5 (5 bands of 1 row).",
            "Hash family: Spark hashes vector indices with ((1 + i)·a + b) mod 2038074743; "
            + _NEARSIM_HASH + ".",
            "Verification: approxSimilarityJoin computes each candidate's exact Jaccard "
            "distance and keeps distance < threshold (similarity strictly above 1 − "
            "threshold); nearsim dedup --verify exact keeps J ≥ t.",
        ),
        sources=(
            Source(_SPARK, "mllib/src/main/scala/org/apache/spark/ml/feature/LSH.scala",
                   "commit 033ae5db1092ab2cd426f974c3e8de594461ca20", "34-49",
                   "numHashTables (OR-amplification), setDefault(numHashTables -> 1)"),
            Source(_SPARK, "mllib/src/main/scala/org/apache/spark/ml/feature/LSH.scala",
                   "commit 033ae5db1092ab2cd426f974c3e8de594461ca20", "approxSimilarityJoin",
                   "exact keyDistance of joined pairs, filter distCol < threshold"),
            Source(_SPARK, "mllib/src/main/scala/org/apache/spark/ml/feature/MinHashLSH.scala",
                   "commit 01b315cdebdabc0ff5ed1de246617013aff663db", "63-72",
                   "hashFunction: ((1L + i) * a + b) % HASH_PRIME (2038074743)"),
            Source(_SPARK, "examples/src/main/python/ml/min_hash_lsh_example.py",
                   "commit 22bd2a11bd5a6809976a8449db7c43e8ef4867d5", "example",
                   "numHashTables=5, approxSimilarityJoin(dfA, dfB, 0.6)"),
        ),
    ),
)
# fmt: on

PRESETS: dict[str, Preset] = {p.name: p for p in _ALL}
"""Every preset by name: datatrove, nemo_curator, text_dedup, data_juicer, bigcode, spark."""


def preset(name: str) -> Preset:
    """The preset called ``name``.

    Parameters
    ----------
    name : str
        One of ``PRESETS``: ``"datatrove"``, ``"nemo_curator"``, ``"text_dedup"``,
        ``"data_juicer"``, ``"bigcode"``, ``"spark"``.

    Returns
    -------
    Preset

    Raises
    ------
    ValueError
        An unknown name (the message lists the accepted ones).

    >>> preset("spark").banding
    '1 band of 1 row'
    """
    return PRESETS[check_choice(name, "name", tuple(PRESETS))]


PRESET_CHARACTERS = 4_000_000
"""Presets are scored on at most this many characters of whole documents (the Example's
20,000 short items are about this much): each preset with its own shingling signs and
joins the documents again, which on 12,000 manual pages and source files took minutes."""


def scoring_subset(lengths, max_characters: int = PRESET_CHARACTERS, seed: int = 0) -> np.ndarray:
    """Which documents to score the presets on: all of them when their characters fit in
    ``max_characters``, else a seeded random set of whole documents that does.

    Parameters
    ----------
    lengths : array_like of int, shape (n,)
        Each document's length in characters.
    max_characters : int
        The budget (≥ 1).
    seed : int
        Seed of ``numpy.random.default_rng`` (≥ 0).

    Returns
    -------
    ndarray of int64, shape (m,)
        Rows, ascending; m ≥ 2 when n ≥ 2 (the two first drawn even when they pass the
        budget: pairs need two documents).
    """
    size = np.asarray(lengths)
    if size.ndim != 1 or (size.size and not np.issubdtype(size.dtype, np.integer)):
        raise ValueError(
            f"lengths of shape {size.shape} and dtype {size.dtype} is not accepted; "
            "accepted: a 1-d array of integers"
        )
    budget = check_int(max_characters, "max_characters", low=1)
    seed = check_int(seed, "seed", low=0)
    if int(size.sum()) <= budget:
        return np.arange(size.size, dtype=np.int64)
    order = np.random.default_rng(seed).permutation(size.size)
    take = max(min(2, size.size), int(np.searchsorted(np.cumsum(size[order]), budget, "right")))
    return np.sort(order[:take]).astype(np.int64)
