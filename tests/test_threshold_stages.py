"""The Threshold view's pipeline stages against direct computation: every pair from 0.5 up,
the removal curve, the pool of pairs near t (complete or sampled by band), the draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nearsim as ns
from nearsim import pipeline
from nearsim.explore import threshold_pairs as tp
from nearsim.explore.labels import draw_label_rounds, label_window
from nearsim.join.sample import similarity_band, similarity_sample


@pytest.fixture(scope="module")
def corpus():
    return ns.example_corpus(500, seed=4)["text"].tolist()


def runner(texts, **settings) -> pipeline.Runner:
    return pipeline.Runner(texts, ns.Settings(**settings))


def pairs_of(frame: pd.DataFrame) -> set:
    return set(zip(frame["i"].tolist(), frame["j"].tolist(), strict=True))


def test_low_pairs_are_the_exact_join_at_one_half(corpus):
    for min_shingles in (0, 150):  # with and without documents masked out
        run = runner(corpus, min_shingles=min_shingles)
        got = run.get("low_pairs")
        want = ns.exact_pairs(run.get("tokens"), 0.5, valid=run.get("valid"))
        pd.testing.assert_frame_equal(got, want)


def test_low_pairs_from_a_sampled_sample_are_its_complete_part(corpus):
    """Above the all-pairs limit the sample lists every pair from its floor (0.5) and a
    random share below: low_pairs keeps exactly the complete part."""
    run = runner(corpus)
    tokens, valid = run.get("tokens"), run.get("valid")
    sample = similarity_sample(tokens, valid=valid, all_pairs_limit=0, sample_size=5_000)
    assert sample.attrs["mode"] == "sampled" and sample["sampled"].any()
    got = tp.low_pairs_stage(run.settings, tokens, valid, sample)
    pd.testing.assert_frame_equal(got, ns.exact_pairs(tokens, 0.5, valid=valid))
    higher = sample.copy()
    higher.attrs = {**sample.attrs, "floor": 0.6}  # a floor above 0.5: the join runs
    got = tp.low_pairs_stage(run.settings, tokens, valid, higher)
    pd.testing.assert_frame_equal(got, ns.exact_pairs(tokens, 0.5, valid=valid))


def test_removal_stage_is_removal_rates(corpus):
    run = runner(corpus)
    got = run.get("removal")
    want = ns.removal_rates(run.get("tokens"))
    pd.testing.assert_frame_equal(got, want)
    assert got["threshold"].iloc[0] == 0.5 and got["threshold"].iloc[-1] == 0.99


@pytest.mark.parametrize("t", [0.8, 0.6, 0.45, 0.2])
def test_label_pool_holds_every_pair_of_the_window(corpus, t):
    """Few documents: the sample lists every pair, so the pool is every pair with J in the
    window (exact join at the window's low end, cut at its high end)."""
    run = runner(corpus, threshold=t)
    pool = run.get("label_pool")
    low, high = label_window(t, tp.LABEL_SIDE)
    exact = ns.exact_pairs(run.get("tokens"), max(low, 1e-9), valid=run.get("valid"))
    band = similarity_band(exact["jaccard"])
    inside = exact[(band >= round(low * 20)) & (band < round(high * 20))]
    assert pairs_of(pool) == pairs_of(inside)
    assert not pool.duplicated(["i", "j"]).any()
    assert pool.attrs["low"] == low and pool.attrs["high"] == high
    assert pool.attrs["complete_from"] == low


@pytest.mark.parametrize(("t", "floor"), [(0.8, 0.5), (0.8, 0.7), (0.6, 0.5), (0.4, 0.5)])
def test_label_pool_above_the_all_pairs_limit(corpus, t, floor):
    """Many documents (a sampled sample): bands from max(low, 0.3) up are complete — from
    a join at the window's low end when it is 0.5 or above — and the bands
    below are the sample's rows there."""
    run = runner(corpus, threshold=t)
    tokens, valid = run.get("tokens"), run.get("valid")
    sample = similarity_sample(
        tokens, valid=valid, all_pairs_limit=0, sample_size=20_000, floor=floor
    )  # a floor of 0.7 (raised over dense bands) lists less than t = 0.8's window
    pool = tp.label_pool_stage(run.settings, tokens, valid, sample)
    low, high = label_window(t, tp.LABEL_SIDE)
    join_low = max(low, tp.LABEL_JOIN_FLOOR)
    exact = ns.exact_pairs(tokens, join_low, valid=valid)
    band = similarity_band(exact["jaccard"])
    complete = exact[band < round(high * 20)]
    sband = similarity_band(sample["jaccard"])
    below = sample[(sband >= round(low * 20)) & (sample["jaccard"] < join_low)]
    assert pairs_of(pool) == pairs_of(complete) | pairs_of(below)
    assert pool.attrs["complete_from"] == pytest.approx(join_low)
    assert pool.attrs["sample_fraction"] == sample.attrs["sample_fraction"] < 1
    assert (t < 0.5) == (len(below) > 0)  # only a window reaching below 0.3 uses the sample


def test_label_draw_is_the_rounds_of_the_pool(corpus):
    run = runner(corpus, threshold=0.7)
    drawn = run.get("label_draw")
    want = draw_label_rounds(
        run.get("label_pool"),
        0.7,
        per_band=tp.LABEL_PER_ROUND,
        rounds=tp.LABEL_ROUNDS,
        bands_each_side=tp.LABEL_SIDE,
        seed=0,
    )
    pd.testing.assert_frame_equal(drawn, want)
    assert drawn["band"].between(10, 18).all()  # 0.50 … 0.95 at t = 0.7


def test_threshold_stages_keys():
    """Bands and rows never touch them; the removal curve and low_pairs do not depend on
    the threshold either (a threshold step costs only the pool and the draw)."""
    for stage in ("low_pairs", "removal", "label_pool", "label_draw"):
        fields = pipeline.key_fields(stage)
        assert "bands" not in fields and "rows" not in fields, stage
        assert ("threshold" in fields) == stage.startswith("label_"), stage


def test_removal_share_counts_every_document(corpus):
    """Documents without a signature are kept (alone): the share is over all of them."""
    run = runner(corpus, min_shingles=150)
    curve = run.get("removal")
    valid = run.get("valid")
    assert not valid.all()
    assert np.allclose(curve["removed_share"], curve["removed"] / len(corpus))


def test_removal_starts_at_a_raised_floor_without_a_join_and_removal_low_at_one_half(
    corpus, monkeypatch
):
    """With the sample's floor raised above 0.5 the removal curve starts at that floor,
    read from the pairs the sample lists (no join), equal to the full curve's rows there;
    removal_low still starts at 0.5."""
    run = runner(corpus)
    tokens, valid = run.get("tokens"), run.get("valid")
    sample = similarity_sample(tokens, valid=valid, all_pairs_limit=0, sample_size=5_000)
    full = tp.removal_low_stage(run.settings, run.get("low_pairs"), valid)
    raised = sample[~sample["sampled"] & (sample["jaccard"] >= 0.65)].reset_index(drop=True)
    raised.attrs = {**sample.attrs, "floor": 0.65}
    monkeypatch.setattr(tp, "exact_pairs", lambda *a, **k: pytest.fail("a join ran"))
    got = tp.removal_stage(run.settings, raised, valid)
    assert got["threshold"].iloc[0] == 0.65 and got["threshold"].iloc[-1] == 0.99
    want = full[full["threshold"] >= 0.65 - 1e-9].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    assert full["threshold"].iloc[0] == 0.5
    pd.testing.assert_frame_equal(tp.removal_stage(run.settings, sample, valid), full)


def test_label_pool_reads_bands_a_raised_floor_left_thick_from_the_sample(corpus, monkeypatch):
    """When every band between the window's low end and the sample's floor holds enough
    drawn pairs (as a floor raised over dense bands leaves them), the pool takes those
    bands from the sample and the rest from the listed pairs: no join runs."""
    from nearsim.join import sample as sample_module

    run = runner(corpus, threshold=0.8)
    tokens, valid = run.get("tokens"), run.get("valid")
    sample = similarity_sample(tokens, valid=valid, all_pairs_limit=0, sample_size=20_000,
                               floor=0.7)  # fmt: skip
    low, high = label_window(0.8, tp.LABEL_SIDE)
    sband = similarity_band(sample["jaccard"])
    drawn = sample["sampled"].to_numpy(bool)
    thinnest = min(np.count_nonzero(drawn & (sband == b)) for b in (12, 13))
    assert thinnest > 0
    monkeypatch.setattr(sample_module, "MIN_BAND_ROWS", thinnest)
    monkeypatch.setattr(tp, "exact_pairs", lambda *a, **k: pytest.fail("a join ran"))
    pool = tp.label_pool_stage(run.settings, tokens, valid, sample)
    listed = sample[~drawn & (sband >= 14) & (sband < round(high * 20))]
    below = sample[drawn & (sband >= round(low * 20)) & (sband < 14)]
    assert pairs_of(pool) == pairs_of(listed) | pairs_of(below)
    assert pool.attrs["complete_from"] == 0.7 and len(below) > 0
    monkeypatch.setattr(sample_module, "MIN_BAND_ROWS", thinnest + 1)  # one band too thin
    with pytest.raises(pytest.fail.Exception, match="a join ran"):
        tp.label_pool_stage(run.settings, tokens, valid, sample)
