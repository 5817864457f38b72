"""The peers' configurations for the current Settings: datatrove, NeMo Curator, text-dedup
and data-juicer, each with the peer's own parameter names, and value by value what carries
over exactly and what differs (tokeniser, normalisation, hash family, seed, the estimate
filter). Banding is always "b bands of r rows each". Re-exported by
:mod:`nearsim.explore.export`, beside the ``nearsim dedup`` command.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nearsim.explore.presets import _NEARSIM_HASH, PRESETS, banding_words
from nearsim.run.options import VERIFY as VERIFY_MODES
from nearsim.settings import FIELD_SPECS, Settings
from nearsim.utils.validation import check_choice, check_instance, check_str

__all__ = [
    "Carry",
    "PeerConfig",
    "data_juicer_config",
    "datatrove_config",
    "nemo_curator_config",
    "peer_configs",
    "text_dedup_config",
]


@dataclass(frozen=True)
class Carry:
    """One value of the export: a nearsim setting and the peer parameter that holds it.

    Attributes
    ----------
    setting : str
        The nearsim setting (a :data:`~nearsim.FIELD_SPECS` name, or several joined by
        ``", "``), or ``""`` for a peer step switched off to match nearsim or a behaviour
        that is not a setting.
    peer : str
        The peer's parameter name (or its behaviour, in words).
    value : str
        The value written in the peer's configuration (``""`` if none is written).
    note : str
        Why it carries over, or how it differs.
    """

    setting: str
    peer: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class PeerConfig:
    """A peer's configuration for the current settings.

    Attributes
    ----------
    tool : str
        ``"datatrove"``, ``"nemo_curator"``, ``"text_dedup"`` or ``"data_juicer"``.
    language : str
        ``"python"``, ``"toml"`` or ``"yaml"``: how :attr:`text` is written.
    text : str
        The configuration, ready to paste.
    exact : tuple of Carry
        What carries over exactly.
    differs : tuple of Carry
        What differs (or cannot be expressed in the peer).
    """

    tool: str
    language: str
    text: str
    exact: tuple[Carry, ...]
    differs: tuple[Carry, ...]


def _check_settings(settings: Any) -> Settings:
    return check_instance(settings, "settings", Settings, "a nearsim Settings")


# -- the peers ---------------------------------------------------------------------------


class _Export:
    """Collects what carries over and what differs, value by value."""

    def __init__(self, settings: Any, tool: str, verify: Any) -> None:
        self.s = _check_settings(settings)
        self.tool = tool
        self.verify = check_choice(verify, "verify", VERIFY_MODES)
        self.exact: list[Carry] = []
        self.differs: list[Carry] = []

    def carry(self, same: bool, setting: str, peer: str, value: Any, note: str = "") -> None:
        (self.exact if same else self.differs).append(Carry(setting, peer, str(value), note))

    def shingle_length(self, kind: str, param: str, note: str) -> None:
        """k carries over only when nearsim cuts the kind of shingle the peer cuts."""
        s = self.s
        unit = {"word": "words", "char": "characters"}
        if s.shingle_kind == kind:
            self.carry(True, "shingle_k", param, s.shingle_k, note)
        else:
            self.carry(
                False, "shingle_k", param, s.shingle_k,
                f"the peer has {unit[kind][:-1]} n-grams only: {param}={s.shingle_k} counts "
                f"{unit[kind]} there, nearsim's {s.shingle_k} counts {unit[s.shingle_kind]}",
            )  # fmt: skip

    def banding(self, bands: str, rows: str, total: str | None) -> None:
        """b and r carry over; num_perm only when the peer has its own or b·r fills it."""
        s = self.s
        words = banding_words(s.bands, s.rows)
        self.carry(True, "bands", bands, s.bands, f"{words}: band i is values i·r … i·r + r − 1")
        self.carry(True, "rows", rows, s.rows, "rows per band")
        if total is not None:
            self.carry(True, "num_perm", total, s.num_perm, "the signature length")
        elif s.bands * s.rows == s.num_perm:
            self.carry(True, "num_perm", f"{bands} × {rows}", s.num_perm, "b·r = num_perm")
        else:
            self.carry(
                False, "num_perm", f"{bands} × {rows}", s.bands * s.rows,
                f"the peer computes only b·r = {s.bands * s.rows} hash values; nearsim's "
                f"num_perm = {s.num_perm} also feeds the estimate filter",
            )  # fmt: skip

    def hash_family(self, seed_param: str | None) -> None:
        family = PRESETS[self.tool].hash_family
        note = f"different hash family: {family}; {_NEARSIM_HASH}"
        if seed_param is None:
            self.carry(False, "hash_seed", "(fixed seed)", "", note)
        else:
            self.carry(False, "hash_seed", seed_param, self.s.hash_seed, "same number, " + note)
        if self.s.sketch != "minhash":
            self.carry(
                False, "sketch", "(classic MinHash)", self.s.sketch,
                "the peer computes classic MinHash (k independent functions); its estimates "
                "spread more than SuperMinHash's, and its S-curve is 1 − (1 − s^r)^b",
            )  # fmt: skip

    def no_threshold(self) -> None:
        self.carry(
            False, "threshold", "(none)", "",
            f"the peer has no threshold: a pair sharing a band is a duplicate; nearsim's "
            f"t = {self.s.threshold:g} is not exported",
        )  # fmt: skip

    def no_filter(self) -> None:
        """For a peer that keeps every pair sharing a band."""
        verify = self.verify
        if verify == "none":
            self.carry(True, "", "(keeps every candidate)", "", "as nearsim dedup --verify none")
        else:
            self.carry(
                False, "", "(keeps every candidate)", "",
                f"nearsim dedup --verify {verify} keeps a candidate only if its "
                f"{'MinHash estimate' if verify == 'estimate' else 'exact Jaccard'} ≥ t; "
                "the peer keeps every pair that shares a band",
            )  # fmt: skip

    def no_minimum(self) -> None:
        if self.s.min_shingles > 0:
            self.carry(
                False, "min_shingles", "(none)", "",
                f"the peer has no minimum; nearsim gives documents with fewer than "
                f"{self.s.min_shingles} shingles no signature",
            )  # fmt: skip

    def band_match_only(self, seed_param: str) -> None:
        """For a peer with no threshold, no minimum and no filter: a shared band decides."""
        self.no_minimum()
        self.hash_family(seed_param)
        self.no_threshold()
        self.no_filter()

    def build(self, language: str, text: str) -> PeerConfig:
        return PeerConfig(self.tool, language, text, tuple(self.exact), tuple(self.differs))


def _plain(value: Any) -> str:
    """A value for TOML or YAML: JSON's text for strings and numbers, true/false, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return FIELD_SPECS["threshold"].format(value)
    return json.dumps(value, ensure_ascii=False)


def _kwargs(pairs: Sequence[tuple[str, str]], indent: str) -> str:
    return "".join(f"{indent}{key}={value},\n" for key, value in pairs)


def datatrove_config(settings: Settings, *, verify: str = "estimate") -> PeerConfig:
    """datatrove's ``MinhashConfig(...)`` for ``settings``, as a Python snippet.

    Parameters
    ----------
    settings : Settings
    verify : {"estimate", "exact", "none"}
        The ``nearsim dedup --verify`` mode compared with (datatrove keeps every pair
        that shares a band).

    Returns
    -------
    PeerConfig
        ``language="python"``; the snippet imports ``MinhashConfig`` and
        ``TextNormConfig`` and assigns ``minhash_config``.
    """
    e = _Export(settings, "datatrove", verify)
    s = e.s
    e.shingle_length("word", "n_grams", "word n-grams in both")
    e.carry(
        False, "shingle_kind", "(word tokeniser)", "",
        "datatrove splits words with spaCy's English tokenizer; nearsim splits on white space",
    )  # fmt: skip
    e.banding("num_buckets", "hashes_per_bucket", None)
    norm = {
        "lowercase": s.lowercase,
        "norm_whitespace": s.collapse_whitespace,
        "remove_punctuation": s.remove_punctuation,
        "norm_unicode_diacritics": False,
        "norm_numbers": False,
        "norm_weekdays": False,
        "norm_monthnames": False,
    }
    e.carry(True, "lowercase", "norm_config.lowercase", s.lowercase)
    e.carry(True, "collapse_whitespace", "norm_config.norm_whitespace", s.collapse_whitespace)
    e.carry(
        not s.remove_punctuation, "remove_punctuation", "norm_config.remove_punctuation",
        s.remove_punctuation,
        "off in both" if not s.remove_punctuation else "datatrove replaces the characters of "
        "its own list with a space; nearsim deletes every Unicode punctuation character",
    )  # fmt: skip
    for key in ("norm_unicode_diacritics", "norm_numbers", "norm_weekdays", "norm_monthnames"):
        e.carry(True, "", f"norm_config.{key}", False, "switched off: nearsim has no such step")
    e.carry(
        False, "", "(short documents)", "",
        f"a document with fewer than {s.shingle_k} words gets no signature in datatrove; "
        "nearsim gives a text shorter than k one shingle",
    )  # fmt: skip
    e.band_match_only("seed")
    args = [
        ("n_grams", repr(s.shingle_k)),
        ("num_buckets", repr(s.bands)),
        ("hashes_per_bucket", repr(s.rows)),
        ("seed", repr(s.hash_seed)),
    ]
    text = (
        "from datatrove.pipeline.dedup.minhash import MinhashConfig\n"
        "from datatrove.utils.text import TextNormConfig\n\n"
        f"# {banding_words(s.bands, s.rows)}; hash_config: datatrove's default "
        "(xxhash, 64-bit)\n"
        "minhash_config = MinhashConfig(\n"
        + _kwargs(args, "    ")
        + "    norm_config=TextNormConfig(\n"
        + _kwargs([(k, repr(v)) for k, v in norm.items()], "        ")
        + "    ),\n)\n"
    )
    return e.build("python", text)


def nemo_curator_config(
    settings: Settings, *, text_field: str = "text", verify: str = "estimate"
) -> PeerConfig:
    """NeMo Curator's ``FuzzyDeduplicationWorkflow(...)`` for ``settings``.

    The keyword names are also the keys of the workflow entry in NeMo Curator's
    ``fuzzy_deduplication_pipeline.yaml``.

    Parameters
    ----------
    settings : Settings
    text_field : str
        The field holding the text.
    verify : {"estimate", "exact", "none"}
        The ``nearsim dedup --verify`` mode compared with (NeMo Curator keeps every pair
        that shares a band).

    Returns
    -------
    PeerConfig
        ``language="python"``; paths are the placeholders ``INPUT``, ``CACHE_DIR``, ``DIR``.
    """
    e = _Export(settings, "nemo_curator", verify)
    s = e.s
    text_field = check_str(text_field, "text_field")
    e.shingle_length(
        "char", "char_ngrams", "character n-grams in both; a text shorter than k is one "
        "shingle in both" + ("; NeMo Curator warns below 20" if s.shingle_k < 20 else ""),
    )  # fmt: skip
    e.banding("num_bands", "minhashes_per_band", None)
    both = s.lowercase == s.collapse_whitespace
    e.carry(
        both, "lowercase, collapse_whitespace", "normalize_text", s.lowercase,
        "normalize_text lower-cases and collapses white space together"
        + ("" if both else "; nearsim has only one of them on"),
    )  # fmt: skip
    e.carry(
        not s.remove_punctuation, "remove_punctuation", "(none)", "",
        "off in both" if not s.remove_punctuation else "NeMo Curator cannot remove punctuation",
    )  # fmt: skip
    e.carry(
        False, "", "(empty documents)", "",
        "an empty text gets a signature of zeros in NeMo Curator, so empty documents match "
        "one another; nearsim gives it no signature",
    )  # fmt: skip
    e.band_match_only("seed")
    args = [
        ("input_path", repr("INPUT")),
        ("cache_path", repr("CACHE_DIR")),
        ("output_path", repr("DIR")),
        ("text_field", repr(text_field)),
        ("char_ngrams", repr(s.shingle_k)),
        ("num_bands", repr(s.bands)),
        ("minhashes_per_band", repr(s.rows)),
        ("seed", repr(s.hash_seed)),
        ("use_64_bit_hash", "False"),
        ("normalize_text", repr(s.lowercase)),
    ]
    text = (
        "from nemo_curator.stages.deduplication.fuzzy.workflow import "
        "FuzzyDeduplicationWorkflow\n\n"
        f"# {banding_words(s.bands, s.rows)}\n"
        "workflow = FuzzyDeduplicationWorkflow(\n" + _kwargs(args, "    ") + ")\n"
    )
    return e.build("python", text)


def text_dedup_config(
    settings: Settings, *, text_field: str = "text", verify: str = "estimate"
) -> PeerConfig:
    """text-dedup's ``[algorithm]`` table of ``config.toml`` for ``settings``.

    text-dedup reads ``config.toml`` from the working folder (``python -m
    text_dedup.minhash``); the ``[input]`` and ``[output]`` tables stay the user's.

    Parameters
    ----------
    settings : Settings
    text_field : str
        ``text_column``.
    verify : {"estimate", "exact", "none"}
        ``exact`` becomes ``check_false_positive = true``.

    Returns
    -------
    PeerConfig
        ``language="toml"``.
    """
    e = _Export(settings, "text_dedup", verify)
    s, verify = e.s, e.verify
    text_field = check_str(text_field, "text_field")
    e.shingle_length("word", "ngram_size", "word n-grams in both")
    e.carry(
        False, "remove_punctuation, collapse_whitespace", "(tokeniser)", "",
        "text-dedup splits the text at every single non-word character (regex \\W), so "
        "punctuation and white space are separators and two in a row give an empty token",
    )  # fmt: skip
    e.carry(
        s.lowercase, "lowercase", "(always)", "",
        "text-dedup always lower-cases" + ("" if s.lowercase else "; nearsim does not here"),
    )  # fmt: skip
    e.banding("bands", "rows", "num_perm")
    e.carry(
        True, "threshold", "threshold", _plain(s.threshold),
        "the Jaccard threshold t (text-dedup uses it in check_false_positive, and to choose "
        "bands and rows when they are not given)",
    )  # fmt: skip
    min_length = 0 if s.min_shingles <= 1 else s.min_shingles + s.shingle_k - 1
    e.carry(
        min_length == 0, "min_shingles", "min_length", min_length,
        "min_length = 0 keeps every document, as nearsim does (text-dedup's default 5 drops "
        "documents with fewer than 5 tokens from its output)" if min_length == 0 else
        "text-dedup counts tokens, not shingles, and drops shorter documents from its "
        "output; nearsim keeps them, alone in their cluster",
    )  # fmt: skip
    e.hash_family("seed")
    check = verify == "exact"
    e.carry(
        verify == "none", "", "check_false_positive", _plain(check),
        "both keep every candidate" if verify == "none" else
        "text-dedup checks exact Jaccard ≥ t between members of each cluster (not only "
        "candidate pairs)" if check else
        "text-dedup has no estimate filter; nearsim dedup --verify estimate keeps a "
        "candidate only if its MinHash estimate ≥ t",
    )  # fmt: skip
    rows = [
        ("algorithm_name", "minhash"),
        ("text_column", text_field),
        ("seed", s.hash_seed),
        ("num_perm", s.num_perm),
        ("threshold", s.threshold),
        ("bands", s.bands),
        ("rows", s.rows),
        ("ngram_size", s.shingle_k),
        ("min_length", min_length),
        ("check_false_positive", check),
    ]
    text = (
        "# config.toml for text-dedup (python -m text_dedup.minhash); keep your [input] and\n"
        f"# [output] tables. {banding_words(s.bands, s.rows)}.\n"
        "[algorithm]\n" + "".join(f"{key} = {_plain(value)}\n" for key, value in rows)
    )
    return e.build("toml", text)


def data_juicer_config(
    settings: Settings, *, text_field: str = "text", verify: str = "estimate"
) -> PeerConfig:
    """data-juicer's ``document_minhash_deduplicator`` op entry for ``settings``, as YAML.

    Parameters
    ----------
    settings : Settings
    text_field : str
        The op's ``text_key``.
    verify : {"estimate", "exact", "none"}
        The ``nearsim dedup --verify`` mode compared with (data-juicer keeps every pair
        that shares a band).

    Returns
    -------
    PeerConfig
        ``language="yaml"``: a ``process:`` list with the one op.
    """
    e = _Export(settings, "data_juicer", verify)
    s = e.s
    text_field = check_str(text_field, "text_field")
    char = s.shingle_kind == "char"
    tokenization = "character" if char else "space"
    e.carry(True, "shingle_k", "window_size", s.shingle_k, "shingle length in both")
    e.carry(
        char and not s.collapse_whitespace, "shingle_kind", "tokenization", tokenization,
        "data-juicer's 'space' splits on the space character only (a newline or tab stays "
        "inside a word)" if not char else "data-juicer does not collapse white space in "
        "'character' tokenization" if s.collapse_whitespace else "character windows in both",
    )  # fmt: skip
    e.carry(
        False, "", "(short documents)", "",
        f"a text with fewer than {s.shingle_k} {'characters' if char else 'words'} gets no "
        "shingles in data-juicer and a signature of all 2³² − 1, so such texts match one "
        "another; nearsim gives it one shingle",
    )  # fmt: skip
    e.carry(True, "lowercase", "lowercase", _plain(s.lowercase))
    pattern = "\\p{P}" if s.remove_punctuation else None
    e.carry(
        True, "remove_punctuation", "ignore_pattern", _plain(pattern),
        "\\p{P} deletes Unicode punctuation, as nearsim does" if pattern else "off in both",
    )  # fmt: skip
    e.banding("num_bands", "num_rows_per_band", "num_permutations")
    e.carry(
        True, "threshold", "jaccard_threshold", _plain(s.threshold),
        "data-juicer uses it only to choose bands and rows when they are not given",
    )  # fmt: skip
    e.no_minimum()
    e.hash_family(None)
    e.no_filter()
    rows = [
        ("text_key", text_field),
        ("tokenization", tokenization),
        ("window_size", s.shingle_k),
        ("lowercase", s.lowercase),
        ("ignore_pattern", pattern),
        ("num_permutations", s.num_perm),
        ("jaccard_threshold", s.threshold),
        ("num_bands", s.bands),
        ("num_rows_per_band", s.rows),
    ]
    text = (
        f"# data-juicer: {banding_words(s.bands, s.rows)}\n"
        "process:\n  - document_minhash_deduplicator:\n"
        + "".join(f"      {key}: {_plain(value)}\n" for key, value in rows)
    )
    return e.build("yaml", text)


def peer_configs(
    settings: Settings, *, text_field: str = "text", verify: str = "estimate"
) -> dict[str, PeerConfig]:
    """Every peer's configuration for ``settings``, by tool name.

    Parameters
    ----------
    settings : Settings
    text_field : str
        The field holding the text (not used by datatrove's ``MinhashConfig``).
    verify : {"estimate", "exact", "none"}
        The ``nearsim dedup --verify`` mode compared with.

    Returns
    -------
    dict of str to PeerConfig
        Keys ``datatrove``, ``nemo_curator``, ``text_dedup``, ``data_juicer``.
    """
    return {
        "datatrove": datatrove_config(settings, verify=verify),
        "nemo_curator": nemo_curator_config(settings, text_field=text_field, verify=verify),
        "text_dedup": text_dedup_config(settings, text_field=text_field, verify=verify),
        "data_juicer": data_juicer_config(settings, text_field=text_field, verify=verify),
    }
