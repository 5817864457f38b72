"""The similarity sample: complete above the floor, uniform below, weighted, threshold-free."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from support import jaccard

import nearsim as ns
from nearsim.join.exact import exact_pairs
from nearsim.join.sample import (
    BAND_WIDTH,
    MIN_BAND_ROWS,
    N_BANDS,
    listed_pairs,
    similarity_band,
    similarity_sample,
)
from nearsim.join.tokens import TokenSets


def family(rng: random.Random, n: int, alphabet: int, sizes) -> list[list[str]]:
    letters = [f"s{k}" for k in range(alphabet)]
    return [rng.sample(letters, min(rng.choice(sizes), alphabet)) for _ in range(n)]


def sets_for_sample(n: int, seed: int = 5) -> list[list[str]]:
    rng = random.Random(seed)
    sets = family(rng, n, 120, (4, 8, 16, 30))
    for k in range(1, n, 3):  # near copies so every band has pairs
        base = list(sets[rng.randrange(k)])
        for _ in range(rng.randint(0, 6)):
            base[rng.randrange(len(base))] = f"s{rng.randrange(120)}"
        sets[k] = list(dict.fromkeys(base))
    sets[2] = []
    return sets


def every_pair(sets) -> list[tuple[int, int, float]]:
    """Python: every pair sharing a shingle, with its Jaccard."""
    out = []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            a, b = set(sets[i]), set(sets[j])
            if a & b:
                out.append((i, j, jaccard(a, b)))
    return out


def rows(df: pd.DataFrame) -> list[tuple[int, int, float]]:
    return list(zip(df["i"].tolist(), df["j"].tolist(), df["jaccard"].tolist(), strict=True))


def check_frame(df: pd.DataFrame) -> None:
    assert list(df.columns) == ["i", "j", "jaccard", "sampled", "weight"]
    assert df["i"].dtype == np.int64 and df["j"].dtype == np.int64
    assert df["jaccard"].dtype == np.float64 and df["weight"].dtype == np.float64
    assert df["sampled"].dtype == bool
    assert isinstance(df.index, pd.RangeIndex)
    keys = list(zip(df["i"], df["j"], strict=True))
    assert keys == sorted(set(keys)) and all(i < j for i, j in keys)


def test_sample_lists_every_pair_below_the_limit():
    sets = sets_for_sample(150)
    df = similarity_sample(sets)
    check_frame(df)
    assert not df["sampled"].any() and (df["weight"] == 1.0).all()
    assert rows(df) == every_pair(sets)
    m = sum(1 for d in sets if d)
    assert df.attrs["mode"] == "all" and df.attrs["floor"] is None
    assert df.attrs["population"] == m * (m - 1) // 2
    assert df.attrs["zero_pairs"] == df.attrs["population"] - len(df)
    assert df.attrs["zero_weight"] == df.attrs["zero_pairs"]
    assert 2 not in set(df["i"]) | set(df["j"])


def test_sample_above_the_limit():
    sets = sets_for_sample(400)
    df = similarity_sample(sets, all_pairs_limit=100, sample_size=5000, seed=3, floor=0.55)
    check_frame(df)
    assert df.attrs["mode"] == "sampled" and df.attrs["floor"] == 0.55
    every = every_pair(sets)
    truth = {(i, j): jac for i, j, jac in every}
    for i, j, jac in rows(df):
        assert truth[(i, j)] == jac
    # every pair at or above the floor is listed, not sampled; below it only sampled rows
    listed = df[~df["sampled"]]
    assert rows(listed) == [r for r in every if r[2] >= 0.55]
    assert rows(listed) == rows(exact_pairs(sets, 0.55))
    samp = df[df["sampled"]]
    assert (samp["jaccard"] < 0.55).all() and (samp["jaccard"] > 0).all()
    bands = similarity_band(df["jaccard"].to_numpy())
    assert set(bands[df["sampled"].to_numpy()]).isdisjoint(set(bands[~df["sampled"].to_numpy()]))
    m = sum(1 for d in sets if d)
    population = m * (m - 1) // 2
    assert df.attrs["population"] == population
    assert df.attrs["sampled_pairs"] == 5000
    assert df.attrs["sample_fraction"] == 5000 / population
    assert (listed["weight"] == 1.0).all()
    assert (samp["weight"] == population / 5000).all()
    assert df.attrs["zero_weight"] == df.attrs["zero_pairs"] * population / 5000
    assert len(samp) + df.attrs["zero_pairs"] <= 5000
    assert 2 not in set(df["i"]) | set(df["j"])


def test_sample_does_not_depend_on_the_threshold():
    """Nothing about the threshold reaches the sample: it takes no threshold, and the
    pipeline's sample stage is keyed on the shingles and the mask only (issue 9: a
    threshold step recomputed it, 2.3–2.7 s at 20,000 documents)."""
    import inspect

    from nearsim.pipeline import key_fields

    assert "threshold" not in inspect.signature(similarity_sample).parameters
    assert "threshold" not in key_fields("sample")
    assert "threshold" not in key_fields("rates")


def test_sample_is_deterministic_for_a_seed_and_reuses_tokens():
    sets = sets_for_sample(300)
    kw = {"all_pairs_limit": 50, "sample_size": 3000}
    a = similarity_sample(sets, seed=1, **kw)
    b = similarity_sample(TokenSets.from_shingles(sets), seed=1, **kw)
    c = similarity_sample(sets, seed=2, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == b.attrs
    assert not a[a["sampled"]].reset_index(drop=True).equals(c[c["sampled"]].reset_index(drop=True))


def test_sample_is_uniform_over_pairs():
    """Each sampled band's weighted count estimates the band's count among all pairs.

    A band with K of the N pairs gets X ~ Hypergeometric(N, K, D) of D drawn pairs, with
    sd(X) <= sqrt(D·K/N); the weight is N/D, so the weighted count is within five sd of
    K (a false alarm about once in 1.7 million per band).
    """
    sets = sets_for_sample(300, seed=9)
    full = similarity_sample(sets)  # all pairs (300 <= limit)
    assert full.attrs["mode"] == "all"
    drawn = similarity_sample(sets, all_pairs_limit=10, sample_size=20000, floor=0.95, seed=4)
    d, n = drawn.attrs["sampled_pairs"], drawn.attrs["population"]
    counts_all = np.bincount(similarity_band(full["jaccard"].to_numpy()), minlength=20)
    samp = drawn[drawn["sampled"]]
    bands = similarity_band(samp["jaccard"].to_numpy())
    weighted = np.bincount(bands, weights=samp["weight"].to_numpy(), minlength=20)
    checked = 0
    for band in range(19):
        k = counts_all[band]
        if k * d / n > 50:
            assert abs(weighted[band] - k) < 5 * math.sqrt(d * k / n) * n / d, band
            checked += 1
    assert checked >= 5


def test_weights_add_up_to_the_population():
    """Exactly in mode "all"; in mode "sampled" the weights of the pairs below the floor
    (zero pairs included) estimate how many there are: with K of N pairs below, the X
    drawn below are hypergeometric, sd(X) <= sqrt(D·(K/N)·(1 − K/N)) (a finite-population
    factor <= 1 left out), so K̂ = X·N/D lies within five sd·N/D of K."""
    sets = sets_for_sample(200, seed=2)
    full = similarity_sample(sets)
    assert full["weight"].sum() + full.attrs["zero_weight"] == full.attrs["population"]
    df = similarity_sample(sets, all_pairs_limit=10, sample_size=4000, floor=0.3, seed=6)
    n, d = df.attrs["population"], df.attrs["sampled_pairs"]
    complete = int((~df["sampled"]).sum())
    k = n - complete
    estimate = df.loc[df["sampled"], "weight"].sum() + df.attrs["zero_weight"]
    sd = math.sqrt(d * (k / n) * (1 - k / n))
    assert abs(estimate - k) <= 5 * sd * n / d
    assert 0 < complete < n


def test_sample_takes_every_pair_when_asked_for_more():
    sets = sets_for_sample(60)
    df = similarity_sample(sets, all_pairs_limit=10, sample_size=10**6)
    full = similarity_sample(sets)
    assert df.attrs["sample_fraction"] == 1.0 and (df["weight"] == 1.0).all()
    pd.testing.assert_frame_equal(df[["i", "j", "jaccard"]], full[["i", "j", "jaccard"]])
    assert df.attrs["zero_pairs"] == full.attrs["zero_pairs"]


@pytest.mark.parametrize("limit", [10, 10_000])
def test_valid_mask_is_like_emptying_the_documents(limit):
    sets = sets_for_sample(250, seed=4)
    valid = np.array([k % 3 != 1 for k in range(len(sets))])
    emptied = [d if valid[k] else [] for k, d in enumerate(sets)]
    kw = {"all_pairs_limit": limit, "sample_size": 2000, "seed": 8}
    masked = similarity_sample(TokenSets.from_shingles(sets), valid=valid, **kw)
    want = similarity_sample(emptied, **kw)
    pd.testing.assert_frame_equal(masked, want)
    assert masked.attrs == want.attrs
    m = sum(1 for d in emptied if d)
    assert masked.attrs["population"] == m * (m - 1) // 2


def test_rate_by_band_reads_the_sample():
    """The frame's columns and attrs are what rate_by_band needs: in mode "all" the
    bands count every pair of the corpus, zero pairs in band 0."""
    sets = sets_for_sample(120, seed=3)
    df = similarity_sample(sets)
    cand = df.loc[df["jaccard"] >= 0.5, ["i", "j"]].to_numpy()
    rates = ns.rate_by_band(df, cand)
    assert int(rates["pairs"].sum()) == df.attrs["population"]
    assert rates.loc[rates["lo"] >= 0.5 - 1e-12, "rate"].dropna().eq(1.0).all()
    assert len(rates) == N_BANDS and rates["hi"].iloc[0] == BAND_WIDTH


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"seed": -1}, "seed=-1 is not accepted"),
        ({"seed": 1.5}, "seed=1.5 is not accepted"),
        ({"sample_size": 0}, "sample_size=0 is not accepted"),
        ({"all_pairs_limit": 2.5}, "all_pairs_limit=2.5 is not accepted"),
        ({"floor": 0.33}, "floor=0.33 is not accepted; accepted: a band edge"),
        ({"floor": 0}, r"floor=0 is not accepted; accepted: a number in \(0, 1\]"),
        ({"floor": 1e-9}, "floor=1e-09 is not accepted"),
        ({"floor": "0.5"}, "floor='0.5' is not accepted"),
        ({"valid": [True]}, r"valid=\[True\] is not accepted"),
    ],
)
def test_sample_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        similarity_sample([["a"], ["a", "b"]], **kwargs)


def test_sample_with_too_few_documents():
    sets = [[], ["a", "b"], [], []]
    df = similarity_sample(sets, all_pairs_limit=2)
    assert len(df) == 0 and df.attrs["population"] == 0
    assert list(df.columns) == ["i", "j", "jaccard", "sampled", "weight"]
    df = similarity_sample([[], []])
    assert len(df) == 0 and df.attrs["zero_pairs"] == 0


def test_similarity_band_edges():
    j = np.array([0.0, 0.049, 0.05, 7 / 20, 0.35, 0.3499, 0.5, 0.99, 1.0])
    assert similarity_band(j).tolist() == [0, 0, 1, 7, 7, 6, 10, 19, 19]


def templated(n_family: int, n_other: int, seed: int = 3) -> list[list[str]]:
    """A templated family (each member keeps a random 46 to 56 of one template's 60
    shingles and adds its own up to 60: pairs of members from J of about 0.4 to 0.9)
    among unrelated documents, as manual pages of one generator among other text."""
    rng = random.Random(seed)
    template = [f"t{k}" for k in range(60)]
    sets = []
    for d in range(n_family):
        keep = rng.randint(46, 56)
        sets.append(rng.sample(template, keep) + [f"own{d}-{k}" for k in range(60 - keep)])
    sets += [[f"x{d}-{k}" for k in range(20)] for d in range(n_other)]
    rng.shuffle(sets)
    return sets


def test_max_listed_raises_the_floor_over_dense_bands_and_loses_no_pair():
    """With every pair drawn (weights 1), a raised floor moves pairs from the listed part
    to the sampled part and changes nothing else; each band left to the sample holds at
    least MIN_BAND_ROWS drawn pairs, and the floor stops where the listed pairs fit."""
    sets = templated(160, 140)
    kw = {"all_pairs_limit": 10, "sample_size": 10**6}
    plain = similarity_sample(sets, **kw)
    raised = similarity_sample(sets, max_listed=1000, **kw)
    assert plain.attrs["floor"] == 0.5
    floor = raised.attrs["floor"]
    assert floor > 0.5
    pd.testing.assert_frame_equal(raised[["i", "j", "jaccard"]], plain[["i", "j", "jaccard"]])
    assert (raised["weight"] == 1.0).all()
    listed = raised.loc[~raised["sampled"], "jaccard"].to_numpy()
    sampled = raised.loc[raised["sampled"], "jaccard"].to_numpy()
    assert (listed >= floor).all() and (sampled < floor).all()
    per_band = np.bincount(similarity_band(sampled), minlength=N_BANDS)
    left = range(round(0.5 * N_BANDS), round(floor * N_BANDS))
    assert all(per_band[b] >= MIN_BAND_ROWS for b in left), per_band
    top = round(floor * N_BANDS)
    assert listed.size <= 1000 or per_band_all(plain)[top] < MIN_BAND_ROWS


def per_band_all(df: pd.DataFrame) -> np.ndarray:
    return np.bincount(similarity_band(df["jaccard"].to_numpy()), minlength=N_BANDS)


def test_max_listed_keeps_the_floor_where_pairs_are_few_or_bands_thin():
    sets = templated(160, 140)
    kw = {"all_pairs_limit": 10, "sample_size": 10**6}
    plain = similarity_sample(sets, **kw)
    roomy = similarity_sample(sets, max_listed=10**6, **kw)
    pd.testing.assert_frame_equal(roomy, plain)
    assert roomy.attrs == plain.attrs
    # drawing 2,000 of the 44,850 pairs, no band holds MIN_BAND_ROWS of them: floor stays
    thin = similarity_sample(sets, max_listed=0, all_pairs_limit=10, sample_size=2000)
    assert thin.attrs["floor"] == 0.5
    with pytest.raises(ValueError, match="max_listed=-1 is not accepted"):
        similarity_sample(sets, max_listed=-1, **kw)


@pytest.mark.parametrize("limit", [10, 10_000])
def test_listed_pairs_equal_the_exact_join_from_the_floor_up(limit):
    """In both modes, the sample's listed pairs at a threshold from its floor up are the
    exact join's rows at that threshold, frame for frame (the explorer reads them instead
    of joining again); below a raised floor there is no answer."""
    sets = templated(160, 140)
    valid = np.ones(len(sets), bool)
    valid[::7] = False
    sample = similarity_sample(sets, all_pairs_limit=limit, valid=valid, max_listed=1000,
                               sample_size=10**6)  # fmt: skip
    floor = sample.attrs["floor"] or 0.05
    assert limit > len(sets) or floor > 0.5  # the raised floor is exercised
    grid = [round(t, 2) for t in np.arange(0.05, 1.0001, 0.05)] + [0.73, 0.8000001, 1.0]
    answered = 0
    for t in grid:
        got = listed_pairs(sample, t)
        if t < floor:
            assert got is None
            continue
        answered += 1
        want = exact_pairs(sets, t, valid=valid)
        pd.testing.assert_frame_equal(got, want)
        assert got.attrs == want.attrs == {}
    assert answered >= 3
    with pytest.raises(ValueError, match="threshold=0 is not accepted"):
        listed_pairs(sample, 0)
    with pytest.raises(ValueError, match="accepted: a frame from similarity_sample"):
        listed_pairs(pd.DataFrame({"i": [], "j": []}), 0.5)
