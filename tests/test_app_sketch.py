"""The explorer with SuperMinHash: the Banding page draws the sketch's own S-curve beside
the formula and ranks under it, and the MinHash page's "Two sketches" tab measures both
sketches on the loaded documents."""

from __future__ import annotations

import numpy as np
import pytest
from nearsim_app.explorer import charts
from test_app import app, metrics, no_errors

import nearsim as ns


def test_the_s_curve_draws_the_formula_beside_superminhash_s_own():
    spec = charts.s_curve_spec(16, 8, 0.8, None, "superminhash", 128)
    own, formula = spec["datasets"]["line"], spec["datasets"]["formula"]
    expected = ns.candidate_probability(own["s"].to_numpy(), 16, 8, sketch="superminhash",
                                        num_perm=128)  # fmt: skip
    np.testing.assert_allclose(own["p"], expected)
    np.testing.assert_allclose(formula["p"], ns.candidate_probability(formula["s"], 16, 8))
    assert np.abs(own["p"] - formula["p"]).max() > 0.005  # they differ: both are worth drawing
    assert "formula" not in charts.s_curve_spec(16, 8, 0.8)["datasets"]


@pytest.fixture(scope="module")
def smh_app():
    at = app({"n_docs": "600", "sketch": "superminhash", "threshold": "0.7"})
    at.run()
    no_errors(at)
    return at


def test_the_banding_page_uses_the_sketch_s_curve(smh_app):
    at = smh_app
    at.switch_page("pages/views/banding.py").run()
    no_errors(at)
    settings = ns.Settings(sketch="superminhash", threshold=0.7)
    b, r = settings.bands, settings.rows
    assert metrics(at)["Bands × rows per band"] == f"{b} × {r}"
    p = ns.candidate_probability(0.7, b, r, sketch="superminhash", num_perm=128)
    assert metrics(at)["P(candidate) at t"] == f"{p:.3f}"
    assert any("SuperMinHash" in i.value for i in at.main.info)
    assert any("SuperMinHash's curve is simulated" in c.value for c in at.main.caption)


def test_the_two_sketches_tab_measures_both(smh_app):
    at = smh_app
    at.switch_page("pages/views/minhash.py").run()
    at.session_state["minhash_tab"] = "Two sketches"
    at.run()
    no_errors(at)
    m = metrics(at)
    for name in ("MinHash", "SuperMinHash"):
        assert m[f"{name}: signing"].endswith(" s")
        assert m[f"{name}: recall after the filter"].endswith("%")
    spread = at.main.dataframe[0].value
    ratio = spread.groupby("sketch")["spread ÷ √(J(1 − J)/k)"].mean()
    # 600 news items: unions of a few hundred shingles, where α(128, u) ≈ 0.65–0.7
    assert ratio["SuperMinHash"] < 0.9 < ratio["MinHash"]
