"""The Threshold page's charts as Vega-Lite specifications: axis titles, one legend below
the plot naming every mark, the current and suggested t marked, small data."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from nearsim_app.explorer import charts_threshold as ct

import nearsim as ns


def _layers(spec: dict) -> list[dict]:
    out = []
    for layer in spec.get("layer", [spec]):
        out.extend(_layers(layer) if "layer" in layer else [layer])
    return out


def _titles(spec: dict, channel: str) -> list[str]:
    return [
        layer["encoding"][channel]["title"]
        for layer in _layers(spec)
        if channel in layer.get("encoding", {}) and layer["encoding"][channel].get("title")
    ]


def _color_domains(spec: dict) -> list[list[str]]:
    return [
        layer["encoding"]["color"]["scale"]["domain"]
        for layer in _layers(spec)
        if "scale" in layer.get("encoding", {}).get("color", {})
    ]


def _rows(spec: dict) -> int:
    return sum(len(v) for v in spec.get("datasets", {}).values())


def _labels(n=60, seed=0):
    rng = np.random.default_rng(seed)
    jac = rng.uniform(0.6, 1.0, n)
    label = np.where(jac >= 0.75, "duplicate", "not a duplicate").astype(object)
    label[:3] = "unsure"
    return pd.DataFrame({"i": np.arange(n), "j": np.arange(n) + 1, "jaccard": jac, "label": label})


@pytest.fixture(scope="module")
def removal():
    sets = [ns.shingles(t) for t in ns.example_corpus(400, seed=1)["text"]]
    return ns.removal_rates(sets)


def _check_frame(spec: dict, height: int) -> None:
    assert _titles(spec, "x") and _titles(spec, "y")
    legend = spec["config"]["legend"]
    assert legend["orient"] == "bottom" and legend["columns"] == 1
    assert spec["height"] == height


def test_label_curve_chart_marks_current_and_suggested_t():
    labels = _labels()
    curve = ns.label_curve(labels)
    choice = ns.best_threshold(labels, seed=0)
    spec = ct.label_curve_chart(curve, 0.8, choice, labels["jaccard"]).to_dict()
    _check_frame(spec, 480)
    domains = _color_domains(spec)
    assert all(d == domains[0] for d in domains)  # one shared scale: one legend
    names = " | ".join(domains[0])
    assert "precision of J ≥ t" in names and "recall of J ≥ t" in names
    assert "current t = 0.8" in names
    assert f"suggested t = {choice.threshold:g}" in names and "interval" in names
    # the x axis spans the labelled similarities ± 0.05 (not 0.05 … 0.99)
    x_scales = [
        layer["encoding"]["x"]["scale"]["domain"]
        for layer in _layers(spec)
        if "scale" in layer["encoding"].get("x", {})
    ]
    lo, hi = labels["jaccard"].min() - 0.05, min(1.0, labels["jaccard"].max() + 0.05)
    assert all(d == pytest.approx([lo, hi]) for d in x_scales)
    assert _rows(spec) <= 2 * 95 + 3  # two measures per grid t, the marks and the span
    marks = [r for v in spec["datasets"].values() for r in v if "at" in r]
    assert sorted(m["at"] for m in marks) == sorted([0.8, choice.threshold])


def test_label_curve_chart_without_a_suggestion():
    labels = _labels(4)
    curve = ns.label_curve(labels)
    spec = ct.label_curve_chart(curve, 0.7, None, labels["jaccard"]).to_dict()
    _check_frame(spec, 480)
    names = _color_domains(spec)[0]
    assert not any("suggested" in n for n in names)
    assert "current t = 0.7" in names


def test_labels_strip_has_one_line_per_label():
    labels = _labels()
    spec = ct.labels_strip(labels, 0.8).to_dict()
    _check_frame(spec, 330)
    ticks = _layers(spec)[0]
    assert ticks["mark"]["type"] == "tick"
    assert ticks["encoding"]["y"]["sort"] == list(ns.LABELS)
    assert ticks["encoding"]["color"]["scale"]["domain"] == list(ns.LABELS)
    assert _rows(spec) == len(labels) + 1  # one tick per labelled pair, and the t rule


def test_removal_chart_two_axes_and_current_t(removal):
    spec = ct.removal_chart(removal, 0.8).to_dict()
    _check_frame(spec, 400)
    assert spec["resolve"]["scale"]["y"] == "independent"
    y_titles = _titles(spec, "y")
    assert "share of documents removed" in y_titles and "clusters" in y_titles
    names = _color_domains(spec)[0]
    assert names[:2] == [
        "documents removed (all but one per cluster), share",
        "clusters of two or more documents",
    ]
    assert names[2] == "current t = 0.8"
    assert _rows(spec) == 2 * len(removal) + 1
    text = json.dumps(spec)
    assert '"format": "%"' in text  # the share axis in per cent
    assert '"format": ",d"' in text and '"tickMinStep": 1' in text  # whole clusters


def test_removal_chart_leaves_out_a_t_below_the_grid(removal):
    spec = ct.removal_chart(removal, 0.3).to_dict()
    names = _color_domains(spec)[0]
    assert not any(n.startswith("current t") for n in names)
    assert len(_layers(spec)) == 2


def test_cluster_sizes_is_log_log_with_titles():
    spec = ct.cluster_sizes(np.array([2, 2, 2, 3, 3, 40, 1327])).to_dict()
    enc = spec["encoding"]
    assert enc["x"]["scale"]["type"] == "log" and enc["y"]["scale"]["type"] == "log"
    assert "Cluster size" in enc["x"]["title"] and "Clusters" in enc["y"]["title"]
    rows = spec["datasets"][spec["data"]["name"]]
    assert {(r["size"], r["clusters"]) for r in rows} == {(2, 3), (3, 2), (40, 1), (1327, 1)}
