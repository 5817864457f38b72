"""Export: the nearsim dedup command parses back to the same settings; each peer's snippet
holds the right values under the peer's own names, and says what carries over and what not.
"""

from __future__ import annotations

import ast
import importlib
import shlex
import sys
import tomllib
import unicodedata
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import datatrove_values, nearsim_values

import nearsim as ns
from nearsim.explore.export import EXPLORER_FIELDS, VERIFY_MODES
from nearsim.settings import FIELD_SPECS, Settings

OPTION_TO_FIELD = {spec.option: name for name, spec in FIELD_SPECS.items()}
COMMAND_OPTIONS = {"--out", "--settings", "--text-field", "--verify"}


def parse_dedup(command: str) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Read a ``nearsim dedup`` command back: inputs, its other options, the settings query.

    Options are the FIELD_SPECS names with ``-`` for ``_`` (``FieldSpec.option``); a
    ``--settings`` query is read as a Share link's query and options beside it override it.
    """
    argv = shlex.split(command)
    assert argv[:2] == ["nearsim", "dedup"]
    rest = argv[2:]
    inputs = []
    while rest and not rest[0].startswith("--"):
        inputs.append(rest.pop(0))
    assert len(rest) % 2 == 0, rest
    other, query, from_link = {}, {}, {}
    for option, value in zip(rest[::2], rest[1::2], strict=True):
        if option == "--settings":
            from_link = dict(parse_qsl(value, keep_blank_values=True, strict_parsing=True))
        elif option in COMMAND_OPTIONS:
            other[option] = value
        else:
            query[OPTION_TO_FIELD[option]] = value  # a KeyError here: an unknown option
    return inputs, other, {**from_link, **query}


def for_dedup(settings: Settings) -> Settings:
    """The settings a dedup run gets: the explorer's document fields are not in the command."""
    return settings.replace(**{name: FIELD_SPECS[name].default for name in EXPLORER_FIELDS})


def settings_strategy():
    """Any valid Settings, drawn field by field (bands × rows kept ≤ num_perm)."""

    @st.composite
    def build(draw):
        values = {}
        for name, spec in FIELD_SPECS.items():
            if spec.kind == "choice":
                values[name] = draw(st.sampled_from(spec.choices))
            elif spec.kind == "bool":
                values[name] = draw(st.booleans())
            elif spec.kind == "int":
                high = spec.high if spec.high is not None else 10**6
                values[name] = draw(st.integers(int(spec.low), int(high)))
            else:
                values[name] = draw(
                    st.floats(spec.low, spec.high, allow_nan=False).map(lambda x: round(x, 3))
                )
        values["auto_tune"] = False  # the tuner is exercised by test_settings
        values["num_perm"] = draw(st.integers(8, 1024))
        values["bands"] = draw(st.integers(1, values["num_perm"]))
        values["rows"] = draw(st.integers(1, values["num_perm"] // values["bands"]))
        return Settings(**values)

    return build()


PRESET_SETTINGS = [ns.preset(name).settings for name in sorted(ns.PRESETS)]
EXAMPLES = [Settings(), Settings(num_perm=256, threshold=0.7), *PRESET_SETTINGS]


# -- nearsim dedup -----------------------------------------------------------------------


@pytest.mark.parametrize("use_settings", [False, True])
@pytest.mark.parametrize("settings", EXAMPLES)
def test_command_parses_back_to_the_same_settings(settings, use_settings):
    command = ns.dedup_command(settings, "corpus.jsonl", "out", use_settings=use_settings)
    inputs, other, query = parse_dedup(command)
    assert inputs == ["corpus.jsonl"] and other == {"--out": "out"}
    assert Settings.from_query(query) == for_dedup(settings)
    assert Settings.parse_query(query)[1] == []


@given(settings_strategy(), st.booleans())
def test_any_settings_parse_back(settings, use_settings):
    command = ns.dedup_command(settings, use_settings=use_settings)
    assert Settings.from_query(parse_dedup(command)[2]) == for_dedup(settings)


def test_one_option_per_setting_that_differs_from_its_default():
    s = Settings(source="csv", n_docs=500, shingle_kind="word", shingle_k=3, threshold=0.65)
    argv = ns.dedup_argv(s, "c.jsonl", "out")
    assert argv == [
        "nearsim", "dedup", "c.jsonl", "--out", "out",
        "--shingle-kind", "word", "--shingle-k", "3", "--threshold", "0.65",
    ]  # fmt: skip
    assert ns.dedup_command(Settings()) == "nearsim dedup INPUT --out DIR"
    assert ns.dedup_command(Settings(), use_settings=True) == "nearsim dedup INPUT --out DIR"


def test_tuned_bands_and_rows_are_left_to_the_tuner():
    s = Settings(threshold=0.6)
    assert (s.bands, s.rows) != (9, 13)
    argv = ns.dedup_argv(s)
    assert "--bands" not in argv and "--rows" not in argv
    fixed = ns.dedup_argv(s.replace(auto_tune=False))
    assert fixed[fixed.index("--bands") + 1] == str(s.bands)
    assert fixed[fixed.index("--rows") + 1] == str(s.rows)


def test_paths_and_fields_are_shell_quoted():
    awkward = ["my corpus/part 1.jsonl", "it's $HOME;rm -rf x", 'quote"d']
    command = ns.dedup_command(
        Settings(num_perm=64), awkward, "out dir", text_field="body text", verify="exact"
    )
    inputs, other, query = parse_dedup(command)
    assert inputs == awkward
    assert other == {"--out": "out dir", "--text-field": "body text", "--verify": "exact"}
    assert query == {"num_perm": "64"}
    assert shlex.split(command) == ns.dedup_argv(
        Settings(num_perm=64), awkward, "out dir", text_field="body text", verify="exact"
    )


def test_settings_form_is_one_quoted_query():
    s = ns.preset("datatrove").settings
    argv = ns.dedup_argv(s, use_settings=True)
    assert argv[:5] == ["nearsim", "dedup", "INPUT", "--out", "DIR"]
    assert argv[5] == "--settings" and len(argv) == 7
    assert dict(parse_qsl(argv[6])) == s.to_query()
    assert "'" in ns.dedup_command(s, use_settings=True)  # the & is quoted for the shell


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"settings": {"num_perm": 128}}, TypeError, r"settings=.* accepted: a nearsim Settings"),
        ({"inputs": []}, TypeError, r"inputs=\[\] is not accepted"),
        ({"inputs": ["a", 3]}, TypeError, r"inputs=3 is not accepted; accepted: a non-empty str"),
        ({"inputs": "-x.jsonl"}, ValueError, r"inputs='-x.jsonl' .* write \./-x\.jsonl"),
        ({"out": ""}, ValueError, r"out='' is not accepted; accepted: a non-empty str"),
        ({"verify": "jaccard"}, ValueError, r"verify='jaccard' is not accepted; accepted: one of"),
        ({"text_field": 5}, TypeError, r"text_field=5 is not accepted"),
        ({"use_settings": "yes"}, TypeError, r"use_settings='yes' is not accepted"),
    ],
)
def test_bad_arguments_say_what_is_accepted(kwargs, error, match):
    args = {"settings": Settings(), **kwargs}
    with pytest.raises(error, match=match):
        ns.dedup_command(**args)


# -- the peers ---------------------------------------------------------------------------


def call_keywords(source: str, name: str) -> dict:
    """The keyword arguments of the call to ``name`` in a Python snippet, as values."""
    tree = ast.parse(source)
    calls = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == name
    ]
    assert len(calls) == 1, name
    out = {}
    for kw in calls[0].keywords:
        out[kw.arg] = kw.value if isinstance(kw.value, ast.Call) else ast.literal_eval(kw.value)
    return out


def carried(config, setting):
    """Whether ``setting`` is in the exact list (True), the differences (False), or absent."""
    exact = {c.setting for c in config.exact}
    differs = {c.setting for c in config.differs}
    assert not (setting in exact and setting in differs), setting
    return True if setting in exact else False if setting in differs else None


@pytest.mark.parametrize("settings", EXAMPLES)
def test_datatrove_snippet_values(settings):
    config = ns.datatrove_config(settings)
    assert config.tool == "datatrove" and config.language == "python"
    kw = call_keywords(config.text, "MinhashConfig")
    assert (kw["n_grams"], kw["num_buckets"], kw["hashes_per_bucket"], kw["seed"]) == (
        settings.shingle_k, settings.bands, settings.rows, settings.hash_seed,
    )  # fmt: skip
    norm = call_keywords(config.text, "TextNormConfig")
    assert norm["lowercase"] is settings.lowercase
    assert norm["norm_whitespace"] is settings.collapse_whitespace
    assert norm["remove_punctuation"] is settings.remove_punctuation
    assert not norm["norm_numbers"] and not norm["norm_unicode_diacritics"]
    assert carried(config, "bands") and carried(config, "rows")
    assert carried(config, "shingle_k") is (settings.shingle_kind == "word")
    assert carried(config, "num_perm") is (settings.bands * settings.rows == settings.num_perm)
    assert carried(config, "hash_seed") is False and carried(config, "threshold") is False


@pytest.mark.parametrize("settings", EXAMPLES)
def test_nemo_curator_snippet_values(settings):
    config = ns.nemo_curator_config(settings, text_field="body")
    kw = call_keywords(config.text, "FuzzyDeduplicationWorkflow")
    assert kw["char_ngrams"] == settings.shingle_k
    assert (kw["num_bands"], kw["minhashes_per_band"]) == (settings.bands, settings.rows)
    assert kw["seed"] == settings.hash_seed and kw["text_field"] == "body"
    assert kw["normalize_text"] is settings.lowercase
    assert carried(config, "shingle_k") is (settings.shingle_kind == "char")
    together = settings.lowercase == settings.collapse_whitespace
    assert carried(config, "lowercase, collapse_whitespace") is together
    assert carried(config, "threshold") is False


@pytest.mark.parametrize("verify", VERIFY_MODES)
@pytest.mark.parametrize("settings", EXAMPLES)
def test_text_dedup_config_values(settings, verify):
    config = ns.text_dedup_config(settings, text_field="body", verify=verify)
    assert config.language == "toml"
    table = tomllib.loads(config.text)["algorithm"]
    assert table["algorithm_name"] == "minhash" and table["text_column"] == "body"
    assert (table["ngram_size"], table["num_perm"], table["threshold"]) == (
        settings.shingle_k, settings.num_perm, settings.threshold,
    )  # fmt: skip
    assert (table["bands"], table["rows"], table["seed"]) == (
        settings.bands, settings.rows, settings.hash_seed,
    )  # fmt: skip
    assert table["check_false_positive"] is (verify == "exact")
    assert carried(config, "num_perm") and carried(config, "threshold")
    assert carried(config, "shingle_k") is (settings.shingle_kind == "word")


@pytest.mark.parametrize("settings", EXAMPLES)
def test_data_juicer_yaml_values(settings):
    yaml = importlib.import_module("yaml")
    config = ns.data_juicer_config(settings, text_field="body")
    (entry,) = yaml.safe_load(config.text)["process"]
    op = entry["document_minhash_deduplicator"]
    assert op["tokenization"] == ("character" if settings.shingle_kind == "char" else "space")
    assert (op["window_size"], op["num_permutations"], op["jaccard_threshold"]) == (
        settings.shingle_k, settings.num_perm, settings.threshold,
    )  # fmt: skip
    assert (op["num_bands"], op["num_rows_per_band"]) == (settings.bands, settings.rows)
    assert op["lowercase"] is settings.lowercase and op["text_key"] == "body"
    assert op["ignore_pattern"] == ("\\p{P}" if settings.remove_punctuation else None)
    assert carried(config, "remove_punctuation") and carried(config, "hash_seed") is False


def test_each_preset_exports_its_own_published_defaults():
    """A peer's preset, exported back to that peer, gives the peer's default values."""
    dt = call_keywords(ns.datatrove_config(ns.preset("datatrove").settings).text, "MinhashConfig")
    assert {k: dt[k] for k in ("n_grams", "num_buckets", "hashes_per_bucket", "seed")} == {
        "n_grams": 5, "num_buckets": 14, "hashes_per_bucket": 8, "seed": 1,
    }  # fmt: skip
    nemo = call_keywords(
        ns.nemo_curator_config(ns.preset("nemo_curator").settings).text,
        "FuzzyDeduplicationWorkflow",
    )
    assert {k: nemo[k] for k in ("char_ngrams", "num_bands", "minhashes_per_band", "seed")} == {
        "char_ngrams": 24, "num_bands": 20, "minhashes_per_band": 13, "seed": 42,
    }  # fmt: skip
    assert nemo["normalize_text"] is False
    td = tomllib.loads(ns.text_dedup_config(ns.preset("text_dedup").settings).text)["algorithm"]
    assert (td["ngram_size"], td["num_perm"], td["threshold"], td["seed"]) == (5, 112, 0.7, 42)
    text = ns.data_juicer_config(ns.preset("data_juicer").settings).text
    for line in ("tokenization: \"space\"", "window_size: 5", "num_permutations: 256",
                 "jaccard_threshold: 0.7", "lowercase: true", "ignore_pattern: null"):  # fmt: skip
        assert f"      {line}\n" in text


@pytest.mark.parametrize("verify", VERIFY_MODES)
def test_peers_without_a_filter_say_so(verify):
    for config in ns.peer_configs(Settings(), verify=verify).values():
        filters = [c for c in (*config.exact, *config.differs) if "candidate" in c.peer + c.note]
        assert filters, config.tool
    dt = ns.datatrove_config(Settings(), verify=verify)
    keeps = [c for c in dt.exact if c.peer == "(keeps every candidate)"]
    assert bool(keeps) is (verify == "none")


def test_peer_configs_has_every_tool_and_bands_rows_words():
    configs = ns.peer_configs(Settings(num_perm=200, auto_tune=False, bands=20, rows=10))
    assert set(configs) == {"datatrove", "nemo_curator", "text_dedup", "data_juicer"}
    for config in configs.values():
        assert isinstance(config, ns.PeerConfig)
        assert "20 bands of 10 rows each" in config.text
        assert all(isinstance(c, ns.Carry) for c in (*config.exact, *config.differs))
        assert carried(config, "hash_seed") is False


def test_peer_arguments_are_checked():
    with pytest.raises(TypeError, match=r"settings=.* accepted: a nearsim Settings"):
        ns.datatrove_config(None)
    with pytest.raises(ValueError, match=r"verify='fast' is not accepted"):
        ns.nemo_curator_config(Settings(), verify="fast")
    with pytest.raises(ValueError, match=r"text_field='' is not accepted"):
        ns.data_juicer_config(Settings(), text_field="")


def test_data_juicer_punctuation_pattern_is_nearsim_punctuation():
    r"""data-juicer's ignore_pattern \p{P} (module regex) deletes exactly the characters
    nearsim deletes (Unicode category P), over every code point Python's Unicode knows."""
    regex = importlib.import_module("regex")
    pattern = regex.compile(r"\p{P}")
    disagree = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if (category := unicodedata.category(chr(code))) != "Cn"
        and category.startswith("P") != bool(pattern.fullmatch(chr(code)))
    ]
    assert disagree == []


def test_datatrove_builds_the_exported_config():
    """datatrove itself builds MinhashConfig from the exported snippet (when installed)."""
    minhash = importlib.import_module("datatrove.pipeline.dedup.minhash")
    for settings in EXAMPLES:
        namespace: dict = {}
        exec(ns.datatrove_config(settings).text, namespace)
        config = namespace["minhash_config"]
        assert isinstance(config, minhash.MinhashConfig)
        assert datatrove_values(config) == nearsim_values(settings)
        norm = config.norm_config
        assert not (norm.norm_numbers or norm.norm_unicode_diacritics or norm.norm_weekdays)
        # datatrove computes num_buckets × hashes_per_bucket hash functions
        assert config.num_buckets * config.hashes_per_bucket == settings.bands * settings.rows
