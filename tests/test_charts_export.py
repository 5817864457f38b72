"""The Presets & export page's sizing charts as Vega-Lite specifications: log axes with
titles, one legend below naming every series, the typed N marked, no zero on a log axis."""

from __future__ import annotations

import numpy as np
import pytest
from nearsim_app.explorer import charts_export

from nearsim.explore.sizing import Throughput, sizing

S = np.array([0.0, 0.1, 0.3, 0.6, 0.9, 1.0])
W = np.array([1e6, 4e5, 2e4, 30.0, 20.0, 5.0])
SPEEDS = Throughput(5e4, 1e7, 1e7)


def table(marked: int, throughput=SPEEDS):
    grid = charts_export.size_grid(marked)
    return sizing(
        grid, S, W, corpus_docs=2000, num_perm=128, b=9, r=13, threshold=0.8,
        throughput=throughput,
    )  # fmt: skip


def layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def dataset(spec: dict, layer: dict) -> list[dict]:
    return spec["datasets"][layer["data"]["name"]]


def test_size_grid_is_powers_of_ten_and_the_typed_n():
    grid = charts_export.size_grid(123_456_789)
    assert grid[0] == 10**3 and grid[-1] == 10**10
    assert 123_456_789 in grid and grid.dtype == np.int64
    assert (np.diff(grid) > 0).all()  # sorted, no repeats
    assert len(charts_export.size_grid(10**8)) == len(charts_export.size_grid())  # on the grid


@pytest.mark.parametrize(
    ("make", "series"),
    [
        (charts_export.memory_chart, charts_export.MEMORY_SERIES),
        (charts_export.time_chart, charts_export.TIME_SERIES),
    ],
)
def test_log_axes_titles_and_one_legend_below(make, series):
    marked = 3 * 10**8
    spec = make(table(marked), marked).to_dict()
    lines, points, rule = layers(spec)
    x, y = lines["encoding"]["x"], lines["encoding"]["y"]
    assert x["scale"]["type"] == "log" and y["scale"]["type"] == "log"
    assert x["title"] == "documents in the corpus, N" and y["title"]
    assert x["scale"]["domain"] == [1e3, 1e10]
    assert spec["config"]["legend"]["orient"] == "bottom"
    assert spec["height"] >= 400  # the five-line legend below leaves the plot its room
    domain = lines["encoding"]["color"]["scale"]["domain"]
    assert domain == [*series.values(), charts_export.MARK]
    # every layer shares the one colour scale: one legend
    assert all(layer["encoding"]["color"]["scale"]["domain"] == domain for layer in layers(spec))
    # the typed N: one dashed rule at it, and a point on each series there
    assert dataset(spec, rule) == [{"documents": marked, "series": charts_export.MARK}]
    assert rule["mark"]["strokeDash"]
    at_n = dataset(spec, points)
    assert {p["documents"] for p in at_n} == {marked}
    assert {p["series"] for p in at_n} == set(series.values())


def test_values_are_the_sizing_table_and_never_zero():
    marked = 10**9
    t = table(marked)
    spec = charts_export.memory_chart(t, marked).to_dict()
    rows = dataset(spec, layers(spec)[0])
    name = charts_export.MEMORY_SERIES["signature_bytes"]
    signature = {r["documents"]: r["bytes"] for r in rows if r["series"] == name}
    assert signature == dict(zip(t["documents"], t["signature_bytes"].astype(float), strict=True))
    assert all(r["bytes"] > 0 for r in rows)


def test_time_chart_without_throughput_draws_no_line():
    """Without measured speeds sizing's time columns are NaN: nothing to draw, no error."""
    marked = 10**7
    spec = charts_export.time_chart(table(marked, throughput=None), marked).to_dict()
    lines, points, _ = layers(spec)
    assert dataset(spec, lines) == [] and dataset(spec, points) == []


def test_background_without_candidates_is_left_out_of_the_log_axis():
    """A pair-free corpus expects 0 candidates: a log axis cannot show 0, so no point."""
    grid = charts_export.size_grid(10**6)
    t = sizing(grid, [0.0], [1e6], corpus_docs=2000, num_perm=128, b=9, r=13, threshold=0.8)
    spec = charts_export.memory_chart(t, 10**6).to_dict()
    series = {r["series"] for r in dataset(spec, layers(spec)[0])}
    assert charts_export.MEMORY_SERIES["candidate_bytes"] not in series
    assert charts_export.MEMORY_SERIES["signature_bytes"] in series
