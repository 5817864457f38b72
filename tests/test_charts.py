"""The explorer's charts as Vega-Lite specifications: axis titles, one legend below the
plot, room for the plot, and the data they carry."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from nearsim_app.explorer import charts

import nearsim as ns


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def _titles(spec: dict, channel: str) -> list[str]:
    return [
        enc[channel]["title"]
        for layer in _layers(spec)
        for enc in [layer.get("encoding", {})]
        if channel in enc and enc[channel].get("title")
    ]


def _rows(spec: dict) -> int:
    return sum(len(v) for v in spec.get("datasets", {}).values())


@pytest.fixture(scope="module")
def result():
    texts = ns.example_corpus(600, seed=2)["text"].tolist()
    run = ns.pipeline.Runner(texts, ns.Settings(threshold=0.6))
    return run


def all_charts(run) -> dict:
    ev = run.get("evaluation")
    table = ev.candidate_table.assign(
        jaccard=ns.pair_jaccard(run.get("tokens"), ev.candidate_table[["i", "j"]].to_numpy()),
        verdict="true pair, accepted",
    )
    comparison = run.get("compare")
    choices = pd.DataFrame(ns.tune(0.6, 128), columns=["b", "r", "fp", "fn", "error"])
    choices.insert(0, "rank", range(1, len(choices) + 1))
    dist = ns.hamming.distance_vs_jaccard(run.get("fingerprints"), run.get("sample").head(500))
    return {
        "shingle_histogram": charts.shingle_histogram(run.get("shingles").counts, 10),
        "s_curve": charts.s_curve(9, 13, 0.6, run.get("rates")),
        "tuner_scatter": charts.tuner_scatter(choices, (9, 13)),
        "found_by_similarity": charts.found_by_similarity(
            ev.true_table, ev.true_table["found"].to_numpy()
        ),
        "estimate_vs_exact": charts.estimate_vs_exact(table, 0.6),
        "compare_curves": charts.compare_curves(comparison.table, comparison.lsh),
        "bit_shares": charts.bit_shares(run.get("health").bit_share),
        "distance_scatter": charts.distance_scatter(dist, 0.6),
    }


def test_every_chart_has_axis_titles_and_its_legend_below(result):
    for name, chart in all_charts(result).items():
        spec = chart.to_dict()
        assert _titles(spec, "x") and _titles(spec, "y"), name
        legend = spec["config"]["legend"]
        assert legend["orient"] == "bottom" and legend["columns"] == 1, name
        # a fitted chart counts axes and legend in its height: leave the plot room
        assert spec["height"] >= 300, name


def test_charts_carry_binned_data_not_one_row_per_pair(result):
    specs = {k: v.to_dict() for k, v in all_charts(result).items()}
    assert _rows(specs["shingle_histogram"]) <= 80  # two statuses × at most 40 bins
    assert _rows(specs["found_by_similarity"]) <= 200  # two outcomes × 100 bins
    assert _rows(specs["bit_shares"]) == 64 + 1  # 64 bits and the 0.5 rule


def test_s_curve_has_one_legend_naming_every_mark(result):
    spec = charts.s_curve(9, 13, 0.8, result.get("rates")).to_dict()
    domains = [
        layer["encoding"]["color"]["scale"]["domain"]
        for layer in spec["layer"]
        if "scale" in layer["encoding"].get("color", {})
    ]
    assert all(d == domains[0] for d in domains)  # one shared scale: one legend
    names = " | ".join(domains[0])
    for word in ("false-positive area", "false-negative area", "S-curve", "threshold t",
                 "steepest point", "rule of thumb", "measured share"):  # fmt: skip
        assert word in names


def test_s_curve_without_rates_draws_no_measured_points():
    spec = charts.s_curve(20, 5, 0.5).to_dict()
    names = spec["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert not any("measured" in n for n in names)
    assert len(spec["layer"]) == 3


def test_bit_shares_marks_bits_that_never_move():
    shares = np.full(64, 0.5)
    shares[40:] = 0.0
    spec = charts.bit_shares(shares).to_dict()
    rows = next(iter(spec["datasets"].values()))
    stuck = [r["bit"] for r in rows if r.get("health") == "never moves"]
    assert stuck == list(range(40, 64))


def test_s_curve_tooltips_are_explicit_and_formatted(result):
    """Every layer names its tooltip; no number is shown raw ("hi 0.635987983491")."""
    spec = charts.s_curve(9, 13, 0.8, result.get("rates")).to_dict()
    for layer in spec["layer"]:
        tips = layer["encoding"].get("tooltip")
        assert tips, layer["mark"]
        for tip in tips:
            assert tip["field"] not in ("lo", "hi") or tip.get("title"), tip
            if tip.get("type") == "quantitative":
                assert "format" in tip, tip


def test_join_funnel_has_powers_of_ten_and_counts_on_the_bars(result):
    from nearsim_app.explorer import charts_teach

    frame = result.get("funnel").frame()
    spec = charts_teach.join_funnel(frame).to_dict()
    bars, text = spec["layer"]
    axis = bars["encoding"]["x"]
    assert axis["scale"]["type"] == "log"
    assert all(np.log10(v) == int(np.log10(v)) for v in axis["axis"]["values"])
    assert text["mark"]["type"] == "text" and text["encoding"]["text"]["field"] == "label"
    rows = spec["datasets"][text.get("data", spec.get("data"))["name"]]
    assert [r["label"] for r in rows] == [f"{int(v):,}" for v in frame["pairs"]]


def test_s_curve_legend_entries_have_distinct_colours(result):
    """t, the steepest point, the rule of thumb and the curve were four near-identical
    greys in the legend."""
    spec = charts.s_curve(9, 13, 0.8, result.get("rates")).to_dict()
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    colours = [c.lower() for c in scale["range"]]
    assert len(set(colours)) == len(colours), dict(zip(scale["domain"], colours, strict=True))
