"""Settings: defaults, validation, the Share link round trip and tampered links."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
import types
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nearsim.settings import FIELD_SPECS, FieldSpec, Settings, tuned_bands_rows
from nearsim.utils.validation import MAX_SEED

API_DEFAULTS = {
    "source": "example",
    "n_docs": 2000,
    "example_seed": 0,
    "shingle_kind": "char",
    "shingle_k": 5,
    "lowercase": True,
    "remove_punctuation": False,
    "collapse_whitespace": True,
    "min_shingles": 0,
    "num_perm": 128,
    "hash_seed": 1,
    "sketch": "minhash",
    "threshold": 0.8,
    "auto_tune": True,
    "fp_weight": 0.5,
    "bands": 9,
    "rows": 13,
    "simhash_distance": 3,
}


def fake_tune(threshold, num_perm, fp_weight=0.5, fn_weight=0.5, *, sketch="minhash"):
    """A cheap stand-in for nearsim.lsh.tune: any valid banding that depends on the inputs."""
    bands = max(1, min(num_perm, round(num_perm * fp_weight * threshold) // 4 or 1))
    return [types.SimpleNamespace(b=bands, r=num_perm // bands, fp=0.0, fn=0.0, error=0.0)]


@contextlib.contextmanager
def tuner(function) -> Iterator[list]:
    """Make ``nearsim.lsh.tune`` be ``function`` (recording its calls) for a while."""
    calls: list = []

    def recording(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    module = types.ModuleType("nearsim.lsh")
    module.tune = recording
    saved = sys.modules.get("nearsim.lsh")
    sys.modules["nearsim.lsh"] = module
    tuned_bands_rows.cache_clear()
    try:
        yield calls
    finally:
        if saved is None:
            del sys.modules["nearsim.lsh"]
        else:
            sys.modules["nearsim.lsh"] = saved
        tuned_bands_rows.cache_clear()


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------


def test_defaults_are_the_api_table():
    s = Settings()
    assert s.to_dict() == API_DEFAULTS
    assert set(FIELD_SPECS) == {f.name for f in dataclasses.fields(Settings)}
    assert {name: spec.default for name, spec in FIELD_SPECS.items()} == API_DEFAULTS
    for name, spec in FIELD_SPECS.items():
        assert isinstance(spec, FieldSpec)
        assert spec.label and spec.help and spec.accepted()
        assert spec.option == "--" + name.replace("_", "-")


def test_default_tuning_is_the_tuners_choice():
    from datasketch.lsh import _optimal_param

    assert _optimal_param(0.8, 128, 0.5, 0.5) == (9, 13)
    with tuner(fake_tune) as calls:
        assert (Settings().bands, Settings().rows) == (9, 13)
        assert calls == []  # the defaults' answer needs no tuner


@pytest.mark.parametrize(
    ("spec", "accepted"),
    [
        ("source", "one of example, paste, csv, files, corpus"),
        ("n_docs", "an integer from 300 to 20000"),
        ("example_seed", "an integer from 0 to 2**64 − 1"),
        ("threshold", "a number from 0.05 to 0.99"),
        ("fp_weight", "a number from 0 to 1"),
        ("lowercase", "true or false"),
        ("bands", "an integer from 1 to 1024, at most num_perm, and bands × rows ≤ num_perm"),
    ],
)
def test_accepted_wording(spec, accepted):
    assert FIELD_SPECS[spec].accepted() == accepted


def test_settings_are_frozen_and_normalised():
    s = Settings(num_perm=np.int64(128), threshold=np.float64(0.8), lowercase=np.bool_(True))
    assert type(s.num_perm) is int and type(s.threshold) is float and type(s.lowercase) is bool
    assert s == Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.num_perm = 64  # type: ignore[misc]
    assert Settings(auto_tune=False, fp_weight=0).fp_weight == 0.0  # an int for a float
    assert type(Settings(auto_tune=False, fp_weight=1).fp_weight) is float
    assert str(Settings(auto_tune=False, fp_weight=-0.0).fp_weight) == "0.0"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"source": "web"}, r"source='web' is not accepted; accepted: one of example, paste"),
        ({"source": "<b>x</b>"}, r"source='<b>x</b>' is not accepted"),
        ({"n_docs": 299}, r"n_docs=299 .*an integer from 300 to 20000"),
        ({"n_docs": 2000.0}, r"n_docs=2000.0 is not accepted"),
        ({"n_docs": "2000"}, r"n_docs='2000' is not accepted"),
        ({"example_seed": -1}, r"example_seed=-1 .*from 0 to 2\*\*64 − 1"),
        ({"shingle_kind": "Char"}, r"shingle_kind='Char' .*one of char, word"),
        ({"shingle_k": 0}, r"shingle_k=0 .*from 1 to 50"),
        ({"shingle_k": 51}, r"shingle_k=51"),
        ({"lowercase": 1}, r"lowercase=1 .*true or false"),
        ({"lowercase": "true"}, r"lowercase='true'"),
        ({"min_shingles": 10_001}, r"min_shingles=10001 .*0 to 10000"),
        ({"num_perm": True}, r"num_perm=True .*an integer from 8 to 1024"),
        ({"num_perm": 7}, r"num_perm=7"),
        ({"num_perm": 1025}, r"num_perm=1025"),
        ({"hash_seed": -3}, r"hash_seed=-3"),
        ({"threshold": 0.04}, r"threshold=0.04 .*0.05 to 0.99"),
        ({"threshold": 1.0}, r"threshold=1.0"),
        ({"threshold": float("nan")}, r"threshold=nan"),
        ({"threshold": float("inf")}, r"threshold=inf"),
        ({"threshold": "0.8"}, r"threshold='0.8'"),
        ({"fp_weight": 1.5}, r"fp_weight=1.5 .*0 to 1"),
        ({"fp_weight": True}, r"fp_weight=True"),
        ({"simhash_distance": 33}, r"simhash_distance=33 .*0 to 32"),
        ({"auto_tune": False, "bands": 0}, r"bands=0 .*from 1 to 1024"),
        ({"auto_tune": False, "rows": 2.0}, r"rows=2.0"),
        ({"auto_tune": False, "num_perm": 64, "bands": 65, "rows": 1}, r"bands=65 is more than "
                                                                        r"num_perm=64"),
        ({"auto_tune": False, "bands": 20, "rows": 7}, r"bands × rows = 20 × 7 = 140 is more "
                                                       r"than num_perm=128"),
    ],
)  # fmt: skip
def test_constructor_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Settings(**kwargs)


def test_auto_tune_overrides_bands_and_rows():
    with tuner(fake_tune) as calls:
        s = Settings(threshold=0.5, num_perm=64, fp_weight=0.25, bands=1000, rows=1000)
        assert calls == [(0.5, 64, 0.25, 0.75)]
        expected = fake_tune(0.5, 64, 0.25)[0]
        assert (s.bands, s.rows) == (expected.b, expected.r)
        # settings where 9 × 13 would not fit are fine: the tuner replaces them
        small = Settings(num_perm=8)
        assert small.bands * small.rows <= 8
        # replace re-runs the tuner
        changed = s.replace(num_perm=256)
        assert (changed.bands, changed.rows) == (
            fake_tune(0.5, 256, 0.25)[0].b,
            fake_tune(0.5, 256, 0.25)[0].r,
        )
        # turning the tuner off keeps its last choice
        manual = s.replace(auto_tune=False)
        assert (manual.bands, manual.rows) == (s.bands, s.rows)


@pytest.mark.parametrize(
    ("threshold", "num_perm", "fp_weight"),
    [(0.5, 128, 0.5), (0.9, 64, 0.3), (0.3, 32, 0.8), (0.7, 200, 0.5), (0.85, 128, 0.0)],
)
def test_auto_tune_matches_datasketch(threshold, num_perm, fp_weight):
    from datasketch.lsh import _optimal_param

    s = Settings(threshold=threshold, num_perm=num_perm, fp_weight=fp_weight)
    assert (s.bands, s.rows) == _optimal_param(threshold, num_perm, fp_weight, 1 - fp_weight)


def test_replace_and_to_dict():
    s = Settings().replace(source="csv", shingle_kind="word", shingle_k=3)
    assert s.to_dict()["source"] == "csv" and s.shingle_k == 3
    assert s.shingle_options() == {
        "kind": "word",
        "k": 3,
        "lowercase": True,
        "remove_punctuation": False,
        "collapse_whitespace": True,
    }
    with pytest.raises(ValueError, match=r"unknown setting\(s\) 'colour'; the settings are source"):
        s.replace(colour="red")
    with pytest.raises(ValueError, match=r"shingle_k=0"):
        s.replace(shingle_k=0)


# --------------------------------------------------------------------------------------
# The Share link
# --------------------------------------------------------------------------------------


def test_to_query_writes_only_changes():
    assert Settings().to_query() == {}
    s = Settings(
        source="paste",
        lowercase=False,
        threshold=0.1 + 0.2,
        fp_weight=1,
        auto_tune=False,
        bands=4,
        rows=13,
    )
    assert s.to_query() == {
        "source": "paste",
        "lowercase": "false",
        "threshold": "0.30000000000000004",
        "auto_tune": "false",
        "fp_weight": "1",
        "bands": "4",
    }
    assert Settings.from_query(s.to_query()) == s


def test_to_query_leaves_out_tuned_bands_and_rows():
    with tuner(fake_tune):
        s = Settings(threshold=0.6)
        assert s.to_query() == {"threshold": "0.6"}
        assert Settings.from_query(s.to_query()) == s


@st.composite
def valid_settings(draw) -> Settings:
    num_perm = draw(st.integers(8, 1024))
    auto_tune = draw(st.booleans())
    bands = draw(st.integers(1, num_perm))
    rows = draw(st.integers(1, num_perm // bands))
    return Settings(
        source=draw(st.sampled_from(FIELD_SPECS["source"].choices)),
        n_docs=draw(st.integers(300, 20_000)),
        example_seed=draw(st.integers(0, MAX_SEED)),
        shingle_kind=draw(st.sampled_from(["char", "word"])),
        shingle_k=draw(st.integers(1, 50)),
        lowercase=draw(st.booleans()),
        remove_punctuation=draw(st.booleans()),
        collapse_whitespace=draw(st.booleans()),
        min_shingles=draw(st.integers(0, 10_000)),
        num_perm=num_perm,
        hash_seed=draw(st.integers(0, MAX_SEED)),
        threshold=draw(st.floats(0.05, 0.99)),
        auto_tune=auto_tune,
        fp_weight=draw(st.floats(0.0, 1.0)),
        bands=bands,
        rows=rows,
        simhash_distance=draw(st.integers(0, 32)),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_query_round_trip(data):
    with tuner(fake_tune):
        s = data.draw(valid_settings())
        query = s.to_query()
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in query.items())
        again, problems = Settings.parse_query(query)
        assert problems == []
        assert again == s
        # a query as a browser hands it over: lists of strings
        assert Settings.from_query({k: [v] for k, v in query.items()}) == s


@pytest.mark.parametrize(
    ("params", "changed", "problems"),
    [
        ({"num_perm": "-5"}, {}, [r'^num_perm="-5" is not accepted \(an integer from 8 to 1024\); '
                                  r"using the default 128$"]),
        ({"bands": "abc", "auto_tune": "false"}, {"auto_tune": False},
         [r'^bands="abc" is not accepted \(an integer from 1 to 1024.*using the default 9$']),
        ({"threshold": "2"}, {}, [r'^threshold="2" is not accepted \(a number from 0.05 to 0.99\); '
                                  r"using the default 0.8$"]),
        ({"threshold": "nan"}, {}, [r'threshold="nan"']),
        ({"threshold": "inf"}, {}, [r'threshold="inf"']),
        ({"threshold": "0x1p-1"}, {}, [r'threshold="0x1p-1"']),
        ({"threshold": " 0.5 "}, {"threshold": 0.5}, []),
        ({"n_docs": "1e3"}, {}, [r'n_docs="1e3" is not accepted \(an integer from 300 to 20000\)']),
        ({"n_docs": "1_000"}, {}, [r'n_docs="1_000"']),
        ({"n_docs": "٣٠٠٠"}, {}, [r'n_docs="\\u0663\\u0660\\u0660\\u0660"']),
        ({"n_docs": "true"}, {}, [r'n_docs="true"']),
        ({"n_docs": "+500"}, {"n_docs": 500}, []),
        ({"example_seed": "9" * 101}, {}, [r'example_seed="9{40}"… is not accepted']),
        ({"example_seed": "12345678901234567890"}, {"example_seed": 12345678901234567890}, []),
        ({"lowercase": "maybe"}, {}, [r'lowercase="maybe" is not accepted \(true or false\); '
                                      r"using the default true$"]),
        ({"lowercase": "FALSE", "remove_punctuation": "1"},
         {"lowercase": False, "remove_punctuation": True}, []),
        ({"shingle_kind": "word", "shingle_k": "3"}, {"shingle_kind": "word", "shingle_k": 3}, []),
        ({"source": "Example"}, {}, [r'source="Example" is not accepted \(one of example, paste']),
        ({"num_perm": ["64", "256"]}, {"num_perm": 256}, []),  # the last value counts
        ({"num_perm": []}, {}, []),
        ({"num_perm": 64, "lowercase": False, "threshold": 0.5},
         {"num_perm": 64, "lowercase": False, "threshold": 0.5}, []),
        ({"num_perm": {"a": 1}}, {}, [r"num_perm: a value of type dict is not accepted"]),
        ({"colour": "red", "utm_source": "x"}, {}, []),  # unknown keys are ignored
        ({"auto_tune": "false", "bands": "20", "rows": "10"},
         {"auto_tune": False, "bands": 20, "rows": 6},
         [r"^bands × rows = 20 × 10 = 200 is more than num_perm = 128 \(accepted: bands × rows "
          r"≤ num_perm\); using bands = 20 and rows = 6$"]),
        ({"auto_tune": "false", "num_perm": "64", "bands": "200", "rows": "3"},
         {"auto_tune": False, "num_perm": 64, "bands": 64, "rows": 1},
         [r"200 × 3 = 600 is more than num_perm = 64 .*using bands = 64 and rows = 1$"]),
        ({"auto_tune": "false", "num_perm": "64"},  # the default 9 × 13 does not fit in 64
         {"auto_tune": False, "num_perm": 64, "bands": 9, "rows": 7},
         [r"9 × 13 = 117 is more than num_perm = 64"]),
        ({"auto_tune": "false", "bands": "16", "rows": "8"},
         {"auto_tune": False, "bands": 16, "rows": 8}, []),
        ({"bands": "9", "rows": "13"}, {}, []),  # the tuner's choice anyway: nothing to say
        ({"bands": "16", "rows": "8"}, {},
         [r'^bands="16" is ignored because auto_tune is on \(the tuner picks bands = 9 and rows '
          r"= 13\); add auto_tune=false to choose them$", r'^rows="8" is ignored']),
    ],
)  # fmt: skip
def test_parse_query_tampered(params, changed, problems):
    s, found = Settings.parse_query(params)
    assert s == Settings(**{**API_DEFAULTS, **changed}), found
    assert len(found) == len(problems), found
    for pattern, message in zip(problems, found, strict=True):
        assert re.search(pattern, message), (pattern, message)
    assert Settings.from_query(params) == s


@pytest.mark.parametrize(
    "value",
    [
        "<script>alert(1)</script>",
        '"><img src=x onerror=alert(1)>',
        "![pixel](https://tracker.example/p.png)",
        "[click](javascript:alert(1))",
        "`code` **bold** <b>",
        "x" * 500 + "<script>",
        "line\nbreak\r\n<i>",
    ],
)
@pytest.mark.parametrize("key", ["source", "shingle_kind", "num_perm", "threshold", "lowercase"])
def test_markup_in_a_query_is_reported_safely(key, value):
    s, problems = Settings.parse_query({key: value})
    assert s == Settings()
    assert len(problems) == 1
    message = problems[0]
    assert message.startswith(f'{key}="')
    for dangerous in ("<", ">", "](", "![", "`", "**", "\n", "\r", "javascript:", "https:"):
        assert dangerous not in message
    assert len(message) < 200


def test_parse_query_rejects_a_non_mapping():
    with pytest.raises(ValueError, match=r"params='num_perm=64' is not accepted; accepted: a map"):
        Settings.parse_query("num_perm=64")
    with pytest.raises(TypeError, match=r"params=\[\('num_perm', '64'\)\] is not accepted"):
        Settings.from_query([("num_perm", "64")])


def test_parse_query_accepts_mapping_like_objects():
    class QueryParams:
        """Like Streamlit's st.query_params: items() gives the last value of each key."""

        def items(self):
            return [("num_perm", "64"), ("source", "csv")]

    s, problems = Settings.parse_query(QueryParams())
    assert problems == [] and s.num_perm == 64 and s.source == "csv"


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_a_seed_is_at_most_64_bits_so_the_link_reads_it_back():
    """Was: accepted 10**400, whose 401 digits the link reader then refused."""
    s = Settings(example_seed=MAX_SEED, hash_seed=MAX_SEED)
    assert Settings.from_query(s.to_query()) == s
    for name in ("example_seed", "hash_seed"):
        with pytest.raises(ValueError, match=rf"{name}=1000.* accepted: an integer from 0 to 2"):
            Settings(**{name: 10**400})


def test_auto_tune_is_checked_before_it_is_read():
    """Was: "The truth value of an empty array is ambiguous" from NumPy."""
    with pytest.raises(ValueError, match=r"auto_tune=array\(\[\].* is not accepted; accepted"):
        Settings(auto_tune=np.array([]))


def test_parse_query_names_params():
    with pytest.raises(TypeError, match=r"params=None is not accepted; accepted: a mapping"):
        Settings.from_query(None)
