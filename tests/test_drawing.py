"""Charts drawn from a cache keyed on every byte of their inputs (pages/explorer/drawing.py), and
the server's warm-up (pages/explorer/serve.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from nearsim_app.explorer import charts, drawing

import nearsim as ns

ROOT = Path(__file__).resolve().parents[1]


def key(*args, builder=charts.s_curve, **kwargs):
    return drawing.digest(builder, args, kwargs)


def test_the_key_is_stable_and_names_the_builder():
    rates = pd.DataFrame({"lo": [0.0, 0.5], "rate": [0.1, np.nan]})
    assert key(9, 13, 0.8, rates) == key(9, 13, 0.8, rates.copy())
    assert key(9, 13, 0.8, rates) != key(9, 13, 0.8, rates, builder=charts.tuner_scatter)
    assert key(9, 13, 0.8) != key(9, 13, 0.8, None)  # positional shape counts
    assert key(9, 13, 0.8) != key(9, 13, threshold=0.8)


def test_one_changed_element_of_a_large_array_changes_the_key():
    """Streamlit's own hashing reads a sample of an array this large; the key reads it all."""
    found = np.zeros(3_000_000, dtype=bool)
    before = key(found)
    found[1_234_567] = True
    assert key(found) != before
    assert key(found.astype(np.int8)) != key(found)  # the dtype counts, not only the bytes


def test_a_changed_cell_column_name_or_dtype_changes_the_key():
    table = pd.DataFrame({"b": np.arange(2000), "fp": np.linspace(0, 1, 2000)})
    base = key(table, (9, 13))
    changed = table.copy()
    changed.loc[1500, "fp"] += 1e-12
    assert key(changed, (9, 13)) != base
    assert key(table.rename(columns={"fp": "fn"}), (9, 13)) != base
    assert key(table.astype({"b": np.int32}), (9, 13)) != base
    assert key(table, (9, 14)) != base
    objects = np.array(["a", "b"], dtype=object)
    assert key(objects) != key(np.array(["a", "c"], dtype=object))


def test_arguments_it_cannot_read_exactly_are_not_cached():
    assert key(pd.DataFrame({"cell": [[1, 2], [3]]})) is None
    assert key(object()) is None


def test_the_cached_specification_carries_the_chart_s_rows_as_arrow():
    rates = pd.DataFrame(
        {"lo": [0.8], "hi": [0.85], "rate": [0.5], "sampled": [False], "pairs": [10],
         "candidates": [5], "expected": [0.45], "expected_se": [0.05]}
    )  # fmt: skip
    built = charts.s_curve(9, 13, 0.8, rates)
    records = built.to_dict()["datasets"]
    spec = drawing._to_spec(built)
    assert list(spec["datasets"]) == [f"nearsim_{i}" for i in range(len(records))]
    for data, want in zip(spec["datasets"].values(), records.values(), strict=True):
        assert pa.ipc.open_stream(data).read_all().to_pylist() == want


def without_rows(spec: dict) -> str:
    """The specification's text apart from its datasets: what the browser compares to
    decide between swapping the rows in and building the chart again."""
    return json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True)


def test_new_rows_leave_an_altair_chart_s_specification_as_it_was():
    """Altair names each dataset by a digest of its rows; drawing names them by place."""
    rng = np.random.default_rng(5)
    one, two = (pd.DataFrame({"jaccard": rng.random(50)}) for _ in range(2))
    found = rng.random(50) < 0.5
    a = drawing._to_spec(charts.found_by_similarity(one, found))
    b = drawing._to_spec(charts.found_by_similarity(two, found))
    assert a["datasets"] != b["datasets"]
    assert without_rows(a) == without_rows(b)
    assert list(a["datasets"]) == ["nearsim_0"]
    assert '"nearsim_0"' in without_rows(a)  # the layer refers to the renamed dataset


@pytest.mark.parametrize("variant", ["rates", None])
def test_a_new_banding_or_threshold_changes_only_the_s_curve_s_rows(rates, variant):
    """The Banding page's steps: a new b, r or t must not make the browser build the
    S-curve again (the numbers are in the page's metrics and the tooltips)."""
    table = rates if variant else None
    a, b = charts.s_curve_spec(9, 13, 0.8, table), charts.s_curve_spec(8, 12, 0.65, table)
    assert without_rows(drawing._to_spec(a)) == without_rows(drawing._to_spec(b))
    assert not a["datasets"]["marks"].equals(b["datasets"]["marks"])


def test_the_server_warm_up_runs_to_the_end():
    """serve.main swallows a failing warm-up (the page then does the work); here it must not
    fail, and it must have loaded what the first page needs."""
    code = (
        "import sys; from nearsim_app.explorer import serve; serve.warm(); "
        "import inspect; mods = ('altair', 'pyarrow', 'nearsim.pipeline', 'streamlit.emojis'); "
        "print(all(m in sys.modules for m in mods), "
        "all(m in inspect._filesbymodname for m in mods))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]


def test_the_launcher_is_streamlit_run():
    out = subprocess.run([sys.executable, "-m", "nearsim_app.explorer.serve", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Usage: streamlit run" in out.stdout


def resolved(spec: dict) -> dict:
    """A specification with every named dataset replaced by its rows."""
    spec = drawing._to_spec(spec)
    stored = spec.pop("datasets")
    data = {k: pa.ipc.open_stream(v).read_all().to_pylist() for k, v in stored.items()}

    def walk(node):
        if isinstance(node, dict):
            if set(node) == {"name"} and node["name"] in data:
                return data[node["name"]]
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(spec)


@pytest.fixture(scope="module")
def rates():
    texts = ns.example_corpus(600, seed=2)["text"].tolist()
    return ns.pipeline.Runner(texts, ns.Settings(threshold=0.6)).get("rates")


@pytest.mark.parametrize(
    ("b", "r", "t", "variant"),
    [(9, 13, 0.6, "rates"), (20, 5, 0.5, None), (9, 13, 0.83, "sampled"), (1, 64, 0.99, "no se"),
     (64, 1, 0.05, "rates")],
)  # fmt: skip
def test_the_s_curve_from_its_template_is_the_altair_chart(rates, b, r, t, variant):
    """Same marks, encodings, legend names and rows of data."""
    table = {"rates": rates, None: None, "sampled": rates.assign(sampled=True),
             "no se": rates.drop(columns="expected_se")}[variant]  # fmt: skip
    assert resolved(charts.s_curve_spec(b, r, t, table)) == resolved(charts.s_curve(b, r, t, table))


@pytest.mark.parametrize("current", [(9, 13), (1, 1), (500, 2)])
def test_the_tuner_scatter_from_its_template_is_the_altair_chart(current):
    choices = pd.DataFrame(ns.tune(0.6, 128), columns=["b", "r", "fp", "fn", "error"])
    choices.insert(0, "rank", range(1, len(choices) + 1))
    got = resolved(charts.tuner_scatter_spec(choices, current))
    assert got == resolved(charts.tuner_scatter(choices, current))
