"""Presets: each peer's published defaults as valid Settings, with sources and differences.

The expected values below are the ones read from each project's source (the table in
``nearsim/presets.py`` cites file, release or commit and lines); a change to a preset must
change this table too. Where datatrove is installed, its own ``MinhashConfig()`` is compared.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from datasketch.lsh import _optimal_param
from support import datatrove_values, nearsim_values

import nearsim as ns
from nearsim.explore.presets import (
    PRESET_FIELDS,
    PRESETS,
    Preset,
    Source,
    _threshold,
    banding_words,
)
from nearsim.lsh import tune
from nearsim.settings import FIELD_SPECS, Settings

# name: kind, k, lowercase, remove_punctuation, collapse_whitespace, num_perm, seed, b, r, t, verify
EXPECTED = {
    "datatrove": ("word", 5, True, True, True, 112, 1, 14, 8, 0.72, "none"),
    "nemo_curator": ("char", 24, False, False, False, 260, 42, 20, 13, 0.8, "none"),
    "text_dedup": ("word", 5, True, True, True, 112, 42, 12, 9, 0.7, "exact"),
    "data_juicer": ("word", 5, True, False, True, 256, 42, 25, 10, 0.7, "none"),
    "bigcode": ("word", 5, False, True, True, 256, 42, 25, 10, 0.7, "none"),
    "spark": ("char", 5, True, False, True, 8, 1, 1, 1, 0.4, "exact"),
}
FIELDS = (
    "shingle_kind", "shingle_k", "lowercase", "remove_punctuation", "collapse_whitespace",
    "num_perm", "hash_seed", "bands", "rows", "threshold",
)  # fmt: skip


def test_every_peer_has_a_preset():
    assert set(PRESETS) == set(EXPECTED)
    assert all(ns.preset(name) is PRESETS[name] for name in PRESETS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_values_are_the_published_defaults(name):
    p = ns.preset(name)
    *values, verify = EXPECTED[name]
    assert {f: getattr(p.settings, f) for f in FIELDS} == dict(zip(FIELDS, values, strict=True))
    assert p.settings.auto_tune is False
    assert p.verify == verify


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_is_valid_settings_and_round_trips_the_link(name):
    s = ns.preset(name).settings
    assert isinstance(s, Settings)
    assert Settings(**s.to_dict()) == s  # validates again, unchanged
    assert s.bands * s.rows <= s.num_perm
    query = s.to_query()
    assert query["auto_tune"] == "false"
    assert Settings.from_query(query) == s
    assert Settings.parse_query(query)[1] == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_banding_is_said_in_bands_and_rows(name):
    p = ns.preset(name)
    b, r = p.settings.bands, p.settings.rows
    assert p.banding == banding_words(b, r)
    assert re.fullmatch(rf"{b} bands? of {r} rows?( each)?", p.banding)
    # the peer's own names appear with the numbers they hold
    assert str(b) in p.peer_banding and str(r) in p.peer_banding


@pytest.mark.parametrize("name", ["text_dedup", "data_juicer", "bigcode"])
def test_tuned_peers_match_datasketch_rule(name):
    """These three choose b, r with datasketch's rule (their source copies it)."""
    s = ns.preset(name).settings
    assert _optimal_param(s.threshold, s.num_perm, 0.5, 0.5) == (s.bands, s.rows)
    best = tune(s.threshold, s.num_perm)[0]
    assert (best.b, best.r) == (s.bands, s.rows)


@pytest.mark.parametrize(
    ("name", "midpoint", "tolerance"),
    [("datatrove", (1 / 14) ** (1 / 8), 0.001), ("nemo_curator", (1 / 20) ** (1 / 13), 0.006)],
)
def test_untuned_peers_threshold_is_near_the_s_curve_midpoint(name, midpoint, tolerance):
    """datatrove and NeMo Curator have no threshold; the preset's is (1/b)^(1/r) rounded
    as their own documents round it (0.72, 0.8)."""
    s = ns.preset(name).settings
    assert abs(s.threshold - midpoint) <= tolerance
    assert "no threshold" in ns.preset(name).threshold_note


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sources_and_differences_are_stated(name):
    p = ns.preset(name)
    assert p.differences and all(len(d) > 20 for d in p.differences)
    assert any("Hash family" in d for d in p.differences)
    assert p.sources
    for src in p.sources:
        assert isinstance(src, Source)
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", src.repository)
        assert re.fullmatch(
            r"release \d+\.\d+\.\d+ \(PyPI wheel.*\)|commit [0-9a-f]{40}", src.version
        )
        assert src.path and src.lines and src.what


def test_spark_is_or_only():
    p = ns.preset("spark")
    assert p.settings.rows == 1
    assert p.banding == "1 band of 1 row"
    assert any("numHashTables" in d for d in p.differences)


def test_unknown_preset_names_what_is_accepted():
    with pytest.raises(ValueError, match=r"name='minhash' is not accepted; accepted: one of"):
        ns.preset("minhash")
    with pytest.raises(TypeError, match=r"name=3 is not accepted"):
        ns.preset(3)


def test_apply_keeps_the_explorer_documents():
    base = Settings(source="csv", n_docs=5000, example_seed=7, simhash_distance=5)
    applied = ns.preset("nemo_curator").apply(base)
    assert (applied.source, applied.n_docs, applied.example_seed) == ("csv", 5000, 7)
    assert applied.simhash_distance == 5
    for field in PRESET_FIELDS:
        assert getattr(applied, field) == getattr(ns.preset("nemo_curator").settings, field)
    with pytest.raises(TypeError, match=r"settings=.* is not accepted; accepted: a nearsim"):
        ns.preset("datatrove").apply({"num_perm": 128})


def test_threshold_outside_the_range_is_clipped_with_a_note():
    low, high = FIELD_SPECS["threshold"].low, FIELD_SPECS["threshold"].high
    assert _threshold(0.5) == (0.5, "")
    value, note = _threshold(1.0)
    assert value == high and "outside" in note and "0.99" in note
    value, note = _threshold(0.01)
    assert value == low and "0.05" in note


def test_banding_words_plurals():
    assert banding_words(9, 13) == "9 bands of 13 rows each"
    assert banding_words(5, 1) == "5 bands of 1 row each"
    assert banding_words(1, 4) == "1 band of 4 rows"


def test_preset_is_frozen():
    p = ns.preset("datatrove")
    assert isinstance(p, Preset)
    with pytest.raises(AttributeError, match="cannot assign"):
        p.name = "x"


def test_datatrove_preset_matches_datatrove_itself():
    """datatrove's own MinhashConfig() and TextNormConfig() defaults, if it is installed."""
    minhash = importlib.import_module("datatrove.pipeline.dedup.minhash")
    config = minhash.MinhashConfig()
    assert datatrove_values(config) == nearsim_values(ns.preset("datatrove").settings)
    norm = config.norm_config
    # the steps nearsim does not have are on in datatrove, and listed as differences
    assert norm.norm_numbers and norm.norm_unicode_diacritics
    text = " ".join(ns.preset("datatrove").differences)
    assert "Numbers" in text and "Diacritics" in text
    assert (config.hash_config.precision, config.hash_config.hash_fc) == (64, "xxhash")


def test_scoring_subset_keeps_whole_documents_within_the_budget():
    """Presets on long documents are scored on a seeded random set of whole documents of
    at most the budget's characters; short corpora are scored whole."""
    from nearsim.explore.presets import scoring_subset

    assert scoring_subset([100] * 50, 5_000).tolist() == list(range(50))
    lengths = np.random.default_rng(1).integers(1_000, 9_000, 12_000)
    rows = scoring_subset(lengths, 1_000_000)
    assert (np.diff(rows) > 0).all()  # ascending, no repeats
    assert lengths[rows].sum() <= 1_000_000 < lengths[rows].sum() + lengths.max()
    assert rows.tolist() == scoring_subset(lengths, 1_000_000).tolist()  # seeded
    assert scoring_subset([10**9, 10**9, 5], 10).size == 2  # pairs need two documents
    with pytest.raises(ValueError, match="max_characters"):
        scoring_subset([1, 2], 0)
