"""Each sketch's own S-curve: the simulated SuperMinHash curve against candidate rates
measured on real signatures, and its use by the tuners, the predictor and the settings."""

import math

import numpy as np
import pytest
from support import known_pair

import nearsim as ns
from nearsim import sketch_law

SMH = "superminhash"


def measured_rate(j: float, pairs: int, b: int, r: int, k: int = 128, union: int = 200,
                  seed: int = 0) -> float:  # fmt: skip
    """Share of ``pairs`` pairs of similarity j (union ``union``) that share a whole band
    of SuperMinHash signatures, each pair with its own shingles and one hash seed."""
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(pairs):
        a, b_, _ = known_pair(rng, i, union, j)
        docs += [a, b_]
    sig = ns.MinHasher(k, 1000 + seed, sketch=SMH).signatures(docs)
    same = (sig[0::2, : b * r] == sig[1::2, : b * r]).reshape(pairs, b, r).all(axis=2)
    return float(same.any(axis=1).mean())


@pytest.mark.parametrize("j,b,r,pairs", [(0.8, 16, 8, 20_000), (0.7, 16, 8, 6_000),
                                         (0.9, 9, 13, 6_000), (0.8, 9, 13, 6_000)])  # fmt: skip
def test_simulated_curve_predicts_measured_candidate_rates(j, b, r, pairs):
    """The measured share is a binomial proportion: sd sqrt(P(1 − P)/pairs); the curve
    has its own Monte-Carlo error e; the bound is 4·sqrt(sd² + e²). At J = 0.8, 16 × 8,
    the formula 1 − (1 − s^r)^b (0.947) lies about 8 of those sd below the measured
    rate (0.958): the test can tell the two curves apart, and does."""
    p, err = ns.candidate_probability(j, b, r, sketch=SMH, num_perm=128, union_size=200,
                                      with_error=True)  # fmt: skip
    rate = measured_rate(j, pairs, b, r)
    sd = math.sqrt(p * (1 - p) / pairs + err**2)
    assert abs(rate - p) <= 4 * sd
    if (j, b, r) == (0.8, 16, 8):
        formula = ns.candidate_probability(j, b, r)
        assert abs(rate - formula) > 4 * sd


def test_minhash_curve_is_the_formula_with_no_error():
    s = np.linspace(0, 1, 11)
    p, err = ns.candidate_probability(s, 9, 13, sketch="minhash", num_perm=128, with_error=True)
    assert np.allclose(p, 1 - (1 - s**13) ** 9)
    assert (err == 0).all()


def test_superminhash_curve_is_monotone_bounded_and_near_the_formula():
    s = np.linspace(0, 1, 101)
    p, err = ns.candidate_probability(s, 16, 8, sketch=SMH, num_perm=128, with_error=True)
    assert p[0] == 0 and p[-1] == pytest.approx(1.0)
    assert (np.diff(p) >= -1e-12).all()
    assert np.max(np.abs(p - ns.candidate_probability(s, 16, 8))) < 0.03
    assert (err < 0.005).all()


def test_large_unions_approach_the_formula():
    """α(128, u) → 1: at u ≈ 16,000 the curve is within a few Monte-Carlo errors of the
    formula everywhere."""
    s = np.linspace(0.5, 1, 11)
    p, err = ns.candidate_probability(s, 16, 8, sketch=SMH, num_perm=128, union_size=16_384,
                                      with_error=True)  # fmt: skip
    assert np.all(np.abs(p - ns.candidate_probability(s, 16, 8)) <= 4 * err + 0.002)


def test_predict_reads_the_sketchs_curve():
    """One pair of similarity s: the expected candidates are the curve's P(s)."""
    for s in (0.6, 0.75, 0.85):
        pred = ns.predict([s], [1.0], 0.8, 16, 8, 128, sketch=SMH)
        assert pred.candidates == pytest.approx(
            ns.candidate_probability(s, 16, 8, sketch=SMH, num_perm=128), abs=1e-9
        )
        assert pred.recall_filtered <= pred.recall or math.isnan(pred.recall)
    best = ns.tune_for([0.9, 0.85, 0.5, 0.1], [1, 1, 10, 1000], 0.8, 128, sketch=SMH)[0]
    again = ns.predict([0.9, 0.85, 0.5, 0.1], [1, 1, 10, 1000], 0.8, best.b, best.r, 128,
                       sketch=SMH)  # fmt: skip
    assert again == best


def test_tune_integrates_the_sketchs_curve():
    """The tuner's areas are the integrals of candidate_probability(..., sketch=...): a
    fine trapezoid of the curve agrees to 1e-4."""
    choices = ns.tune(0.8, 64, sketch=SMH)
    for c in choices[:3]:
        s = np.linspace(0, 0.8, 4001)
        p = ns.candidate_probability(s, c.b, c.r, sketch=SMH, num_perm=64)
        assert c.fp == pytest.approx(np.trapezoid(p, s), abs=1e-4)
        s = np.linspace(0.8, 1, 1001)
        p = ns.candidate_probability(s, c.b, c.r, sketch=SMH, num_perm=64)
        assert c.fn == pytest.approx(np.trapezoid(1 - p, s), abs=1e-4)
    assert [c.error for c in choices] == sorted(c.error for c in choices)


def test_settings_tune_for_the_sketch_and_travel_in_the_link():
    s = ns.Settings(sketch=SMH, threshold=0.7)
    best = ns.tune(0.7, 128, 0.5, 0.5, sketch=SMH)[0]
    assert (s.bands, s.rows) == (best.b, best.r)
    assert s.to_query() == {"sketch": SMH, "threshold": "0.7"}
    assert ns.Settings.from_query(s.to_query()) == s
    assert ns.Settings().sketch == "minhash" and "sketch" not in ns.Settings().to_query()
    again, problems = ns.Settings.parse_query({"sketch": "bottomk"})
    assert again.sketch == "minhash"
    assert problems and "sketch" in problems[0] and "superminhash" in problems[0]
    with pytest.raises(ValueError, match="sketch='x' is not accepted"):
        ns.Settings(sketch="x")


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="sketch"):
        ns.candidate_probability(0.5, 2, 2, sketch="nope")
    with pytest.raises(ValueError, match="union_size=1"):
        ns.candidate_probability(0.5, 2, 2, sketch=SMH, union_size=1)
    with pytest.raises(ValueError, match="b × r"):
        ns.candidate_probability(0.5, 20, 8, sketch=SMH, num_perm=128)
    with pytest.raises(ValueError, match="sketch"):
        ns.tune(0.8, 128, sketch="")
    with pytest.raises(ValueError, match="sketch"):
        ns.predict([0.5], None, 0.8, 9, 13, 128, sketch=3)


def test_the_law_is_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    sketch_law.simulated_law.cache_clear()
    try:
        s1, law1 = sketch_law.simulated_law(16, 8)
        files = list((tmp_path / "nearsim" / "sketch-laws").glob("*.npz"))
        assert len(files) == 1
        sketch_law.simulated_law.cache_clear()
        s2, law2 = sketch_law.simulated_law(16, 8)
        assert (s1 == s2).all() and (law1 == law2).all()
        assert np.allclose(law1.sum(axis=1), 1.0)
        # mean agreement k·s at every simulated similarity (the sketch is unbiased)
        mean = law1 @ np.arange(17)
        assert np.allclose(mean, 16 * s1, atol=4 * math.sqrt(16 * 0.25 / 20_000))
    finally:
        sketch_law.simulated_law.cache_clear()


def test_union_grid():
    assert sketch_law.union_grid(200) == 181
    assert sketch_law.union_grid(2) == 2 and sketch_law.union_grid(10**9) == 16_384
    assert sketch_law.union_grid(256) == 256


def test_the_shipped_law_is_the_simulation():
    """The law shipped for k = 128 at the default union size is what the simulation gives
    (it is deterministic), and it is what the curve reads."""
    u = sketch_law.union_grid(sketch_law.DEFAULT_UNION)
    path = sketch_law.shipped_law_path(128, u)
    with np.load(path) as saved:
        cs, counts = saved["cs"], saved["counts"]
    fresh_cs, fresh = sketch_law.simulate_counts(128, u)
    assert (cs == fresh_cs).all() and (counts == fresh).all()
    s, law = sketch_law.simulated_law(128, u)
    assert (s == cs / u).all() and (law == counts / sketch_law.TRIALS).all()
