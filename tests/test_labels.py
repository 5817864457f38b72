"""Hand labels: drawing pairs per band, precision and recall against labels, the suggested
threshold and its interval, CSV in and out."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

import nearsim.explore.labels as nl
from nearsim.join.sample import similarity_band


def frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    i = np.arange(n, dtype=np.int64)
    return pd.DataFrame({"i": i, "j": i + 1, "jaccard": rng.uniform(0, 1, n)})


def labelled(jac, dup, unsure=()):
    jac = np.asarray(jac, dtype=np.float64)
    label = np.where(np.asarray(dup, dtype=bool), "duplicate", "not a duplicate").astype(object)
    for q in unsure:
        label[q] = "unsure"
    n = jac.shape[0]
    return pd.DataFrame({"i": np.arange(n), "j": np.arange(n) + 1, "jaccard": jac, "label": label})


# -- drawing -------------------------------------------------------------------------------
def test_draw_per_band_around_threshold():
    pairs = frame()
    drawn = nl.draw_label_pairs(pairs, 0.8, per_band=5, bands_each_side=3, seed=4)
    assert list(drawn.columns) == ["i", "j", "jaccard", "band"]
    counts = drawn["band"].value_counts().sort_index()
    assert counts.index.tolist() == [13, 14, 15, 16, 17, 18, 19]  # 0.65 … 1.0
    assert (counts == 5).all()
    assert (similarity_band(drawn["jaccard"]) == drawn["band"]).all()
    assert drawn.merge(pairs, on=["i", "j", "jaccard"]).shape[0] == len(drawn)  # real rows
    assert not drawn["jaccard"].is_monotonic_increasing  # not in order of similarity
    again = nl.draw_label_pairs(pairs, 0.8, per_band=5, bands_each_side=3, seed=4)
    pd.testing.assert_frame_equal(drawn, again)
    other = nl.draw_label_pairs(pairs, 0.8, per_band=5, bands_each_side=3, seed=5)
    assert set(other["i"]) != set(drawn["i"])


def test_draw_is_uniform_within_a_band():
    """Each of a band's pairs is drawn with the same chance per_band / band size: over 400
    seeds the draws of each pair are Binomial(400, p); all within 5 standard deviations."""
    pairs = frame(400, seed=1)
    band = similarity_band(pairs["jaccard"])
    hits = np.zeros(len(pairs))
    for seed in range(400):
        drawn = nl.draw_label_pairs(pairs, 0.5, per_band=3, bands_each_side=0, seed=seed)
        hits[drawn["i"].to_numpy()] += 1
    inside = band == 10
    p = 3 / inside.sum()
    assert hits[~inside].sum() == 0
    sd = np.sqrt(400 * p * (1 - p))
    assert np.all(np.abs(hits[inside] - 400 * p) <= 5 * sd)


def test_draw_small_bands_exclude_and_repeats():
    pairs = pd.DataFrame(
        {"i": [0, 0, 1, 0, 5], "j": [1, 2, 2, 1, 6], "jaccard": [0.81, 0.82, 0.7, 0.81, 0.99]}
    )
    drawn = nl.draw_label_pairs(pairs, 0.8, per_band=10, bands_each_side=1)
    assert sorted(zip(drawn["i"], drawn["j"], strict=True)) == [(0, 1), (0, 2)]  # once each
    rest = nl.draw_label_pairs(pairs, 0.8, per_band=10, bands_each_side=4, exclude=[[0, 1]])
    assert sorted(zip(rest["i"], rest["j"], strict=True)) == [(0, 2), (1, 2), (5, 6)]
    empty = nl.draw_label_pairs(pairs.iloc[:0], 0.8)
    assert len(empty) == 0 and list(empty.columns) == ["i", "j", "jaccard", "band"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pairs": pd.DataFrame({"i": [0]})}, "pairs="),
        ({"pairs": pd.DataFrame({"i": [0], "j": [1], "jaccard": [1.5]})}, r"pairs\['jaccard'\]"),
        ({"threshold": 0}, "threshold=0"),
        ({"per_band": 0}, "per_band=0"),
        ({"bands_each_side": -1}, "bands_each_side=-1"),
        ({"seed": -1}, "seed=-1"),
        ({"exclude": [[1, 0]]}, "exclude"),
    ],
)
def test_draw_bad_input(kwargs, match):
    args = {"pairs": frame(10), "threshold": 0.8} | kwargs
    with pytest.raises(ValueError, match=match):
        nl.draw_label_pairs(**args)


# -- the curve -----------------------------------------------------------------------------
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.5, 0.7, 0.75, 0.8, 1.0]) | st.floats(0, 1), st.booleans()
        ),
        min_size=1,
        max_size=30,
    )
)
def test_curve_equals_counting(rows):
    jac = [r[0] for r in rows]
    dup = [r[1] for r in rows]
    grid = np.array([0.05, 0.5, 0.7, 0.75, 0.8, 0.99, 1.0])
    curve = nl.label_curve(labelled(jac, dup), grid)
    for q, t in enumerate(grid):
        tp = sum(j >= t and d for j, d in zip(jac, dup, strict=True))
        fp = sum(j >= t and not d for j, d in zip(jac, dup, strict=True))
        fn = sum(j < t and d for j, d in zip(jac, dup, strict=True))
        row = curve.iloc[q]
        assert (row.duplicates_above, row.not_above, row.duplicates_below) == (tp, fp, fn)
        if tp + fp:
            assert row.precision == pytest.approx(tp / (tp + fp))
            assert row.precision_low <= row.precision <= row.precision_high
        else:
            assert np.isnan(row.precision)
        if tp + fn:
            assert row.recall == pytest.approx(tp / (tp + fn))
            assert row.recall_low <= row.recall <= row.recall_high


def test_curve_intervals_are_clopper_pearson():
    rng = np.random.default_rng(5)
    jac = rng.uniform(0.5, 1, 40)
    labels = labelled(jac, (jac > 0.7) ^ (rng.uniform(size=40) < 0.2))
    curve = nl.label_curve(labels, [0.55, 0.7, 0.8, 0.9, 0.99], level=0.9)
    for row in curve.itertuples():
        for hits, n, low, high in [
            (
                row.duplicates_above,
                row.duplicates_above + row.not_above,
                row.precision_low,
                row.precision_high,
            ),
            (
                row.duplicates_above,
                row.duplicates_above + row.duplicates_below,
                row.recall_low,
                row.recall_high,
            ),
        ]:
            if n == 0:
                assert np.isnan(low) and np.isnan(high)
                continue
            want = binomtest(int(hits), int(n)).proportion_ci(0.9, method="exact")
            assert (low, high) == pytest.approx((want.low, want.high), abs=1e-12)


def test_curve_leaves_unsure_out():
    with_unsure = labelled([0.9, 0.7, 0.6, 0.85], [1, 0, 0, 0], unsure=[3])
    without = labelled([0.9, 0.7, 0.6], [1, 0, 0])
    a = nl.label_curve(with_unsure)
    b = nl.label_curve(without)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 95 and a["threshold"].iloc[0] == 0.05 and a["threshold"].iloc[-1] == 0.99


# -- the suggested threshold ---------------------------------------------------------------
def test_best_threshold_separable():
    labels = labelled([0.95, 0.9, 0.82, 0.7, 0.6, 0.3], [1, 1, 1, 0, 0, 0])
    choice = nl.best_threshold(labels, seed=1)
    assert 0.7 < choice.threshold <= 0.82 and choice.score == 1.0
    assert choice.threshold == 0.76  # the middle of the gap 0.71 … 0.82
    assert choice.low <= choice.threshold <= choice.high
    assert (choice.duplicates, choice.not_duplicates, choice.unsure) == (3, 3, 0)
    assert 0 < choice.resamples <= 2000
    f1 = nl.best_threshold(labels, criterion="f1", resamples=0)
    assert f1.threshold == 0.76 and np.isnan(f1.low) and f1.resamples == 0


def test_best_threshold_like_seed_002():
    """Translations at 0.96 are not duplicates, slugs at 0.72–0.85 are, templates at 0.62
    are not: Youden puts the cut between 0.62 and 0.72, F1 too (0.96 costs the same
    everywhere below it)."""
    jac = [0.96, 0.85, 0.8, 0.77, 0.72, 0.62, 0.62, 0.25]
    dup = [0, 1, 1, 1, 1, 0, 0, 0]
    for criterion in ("youden", "f1"):
        choice = nl.best_threshold(labelled(jac, dup), criterion=criterion, resamples=0)
        assert 0.62 < choice.threshold <= 0.72, criterion


def test_interval_narrows_with_more_labels():
    """Labels from a cut at 0.75 with 15 % of them flipped: 400 labels pin the threshold
    down far better than 20 (the interval comes from the number of labels)."""

    def noisy(n, seed):
        rng = np.random.default_rng(seed)
        jac = rng.uniform(0.55, 0.95, n)
        dup = (jac >= 0.75) ^ (rng.uniform(size=n) < 0.15)
        return labelled(jac, dup)

    few = nl.best_threshold(noisy(20, 1), seed=2)
    many = nl.best_threshold(noisy(400, 1), seed=2)
    assert many.high - many.low < 0.5 * (few.high - few.low)
    assert many.low <= 0.75 <= many.high
    assert abs(many.threshold - 0.75) <= 0.04


@pytest.mark.parametrize(
    ("labels", "kwargs", "match"),
    [
        (labelled([0.9, 0.8], [1, 1]), {}, "2 'duplicate' and 0 'not a duplicate'"),
        (labelled([0.9, 0.8], [1, 0], unsure=[1]), {}, "1 'duplicate' and 0"),
        (labelled([0.9, 0.8], [1, 0]), {"criterion": "mcc"}, "criterion='mcc'"),
        (labelled([0.9, 0.8], [1, 0]), {"resamples": -1}, "resamples=-1"),
        (labelled([0.9, 0.8], [1, 0]), {"level": 1.0}, "level=1.0"),
        (labelled([0.9, 0.8], [1, 0]), {"thresholds": [0.5, 0.4]}, "thresholds="),
        (labelled([0.9, 0.8], [1, 0]), {"thresholds": [0.0, 0.4]}, "thresholds="),
    ],
)
def test_best_threshold_bad_input(labels, kwargs, match):
    with pytest.raises(ValueError, match=match):
        nl.best_threshold(labels, **kwargs)


# -- checking and CSV ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"label": ["duplicate", "dup"]}, "labels row 1: label='dup'"),
        ({"label": ["duplicate", None]}, "labels row 1: label=(None|nan)"),
        ({"i": [0.0, 1.0]}, "labels row 0: i=0.0"),
        ({"j": [1, -2]}, "labels row 1: j=-2"),
        ({"j": [1, True]}, "labels row 1: j=True"),
        ({"i": [0, 2], "j": [1, 2]}, r"labels row 1: \(i, j\)=\(2, 2\).*i < j"),
        ({"i": [0, 0], "j": [1, 1]}, r"labels row 1: \(i, j\)=\(0, 1\).*labelled once"),
        ({"jaccard": [0.5, np.nan]}, "labels row 1: jaccard=nan"),
        ({"jaccard": [0.5, "0.4"]}, "labels row 1: jaccard='0.4'"),
    ],
)
def test_check_labels_names_the_row(change, match):
    table = pd.DataFrame(
        {"i": [0, 1], "j": [1, 2], "jaccard": [0.9, 0.8], "label": ["duplicate", "unsure"]} | change
    )
    with pytest.raises(ValueError, match=match):
        nl.check_labels(table)


def test_check_labels_columns():
    with pytest.raises(ValueError, match="labels has no column label"):
        nl.check_labels(pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.5]}))
    with pytest.raises(ValueError, match="labels=list"):
        nl.check_labels([])


label_rows = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(nl.LABELS)), min_size=0, max_size=20
)


@given(label_rows)
def test_csv_round_trip(rows):
    table = pd.DataFrame(
        {
            "i": np.arange(len(rows), dtype=np.int64) * 3,
            "j": np.arange(len(rows), dtype=np.int64) * 3 + 7,
            "jaccard": np.array([r[0] for r in rows], dtype=np.float64),
            "label": pd.Series([r[1] for r in rows], dtype=object),
        }
    )
    back = nl.read_labels_csv(nl.labels_to_csv(table))
    pd.testing.assert_frame_equal(back, nl.check_labels(table))
    assert back["jaccard"].tolist() == table["jaccard"].tolist()  # exactly


def test_csv_extra_columns_and_bom():
    data = "\ufefftext_i,i,j,jaccard,label,note\nhello,4,9,0.5,not a duplicate,x\n"
    back = nl.read_labels_csv(data.encode("utf-8"))
    assert back.to_dict("records") == [{"i": 4, "j": 9, "jaccard": 0.5, "label": "not a duplicate"}]


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("0,1,0.5,duplicate\n0,2,0.5,maybe\n", r"row 2 \(line 3\): label='maybe'"),
        ("0,1,0.5,duplicate\n1.5,2,0.5,unsure\n", r"row 2 \(line 3\): i='1.5'"),
        ("-1,1,0.5,duplicate\n", r"row 1 \(line 2\): i='-1'"),
        (",1,0.5,duplicate\n", r"row 1 \(line 2\): i=''"),
        ("0,1,abc,duplicate\n", r"row 1 \(line 2\): jaccard='abc'"),
        ("0,1,1.5,duplicate\n", r"row 1 \(line 2\): jaccard='1.5'"),
        ("0,1,nan,duplicate\n", r"row 1 \(line 2\): jaccard='nan'"),
        ("3,1,0.5,duplicate\n", r"row 1 \(line 2\): \(i, j\)=\(3, 1\)"),
        ("0,1,0.5,duplicate\n0,1,0.6,unsure\n", r"row 2 \(line 3\).*labelled once"),
        ("0,99999999999999999999,0.5,duplicate\n", r"row 1 \(line 2\): j="),
    ],
)
def test_csv_bad_rows(body, match):
    with pytest.raises(ValueError, match=match):
        nl.read_labels_csv(("i,j,jaccard,label\n" + body).encode())


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"i,j,label\n0,1,duplicate\n", "no column jaccard"),
        (b"", "could not be read"),
        (b"i,j,jaccard,label\n0,1,0.5,\xff\n", "not UTF-8"),
        ("i,j,jaccard,label\n", "data=str"),
    ],
)
def test_csv_bad_files(data, match):
    with pytest.raises(ValueError, match=match):
        nl.read_labels_csv(data)


# -- the window and rounds -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("t", "side", "want"),
    [(0.8, 4, (0.6, 1.0)), (0.5, 4, (0.3, 0.75)), (0.05, 4, (0.0, 0.3)), (0.99, 0, (0.95, 1.0))],
)
def test_label_window(t, side, want):
    assert nl.label_window(t, side) == pytest.approx(want)


def test_label_window_bad_input():
    with pytest.raises(ValueError, match="threshold=0"):
        nl.label_window(0)
    with pytest.raises(ValueError, match="bands_each_side=21"):
        nl.label_window(0.5, 21)


def test_draw_rounds_are_even_new_and_seeded():
    """Round k holds up to per_band pairs of each band, none drawn before, and each round is
    the draw_label_pairs draw with seed + k excluding the earlier rounds."""
    pairs = frame(3000, seed=2)
    drawn = nl.draw_label_rounds(pairs, 0.8, per_band=5, rounds=3, bands_each_side=4, seed=7)
    assert list(drawn.columns) == ["i", "j", "jaccard", "band", "round"]
    assert drawn["round"].tolist() == sorted(drawn["round"])  # rounds one after the other
    per = drawn.groupby(["round", "band"]).size()
    assert (per == 5).all() and len(per) == 3 * 8  # bands 12 … 19, three rounds
    assert not drawn.duplicated(["i", "j"]).any()
    done = np.empty((0, 2), dtype=np.int64)
    for k in range(3):
        one = nl.draw_label_pairs(pairs, 0.8, per_band=5, bands_each_side=4, seed=7 + k,
                                  exclude=done)  # fmt: skip
        got = drawn[drawn["round"] == k].drop(columns="round").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, one)
        done = np.concatenate([done, one[["i", "j"]].to_numpy()])


def test_draw_rounds_stop_when_the_pairs_run_out():
    pairs = pd.DataFrame({"i": [0, 0, 1], "j": [1, 2, 2], "jaccard": [0.81, 0.82, 0.5]})
    drawn = nl.draw_label_rounds(pairs, 0.8, per_band=1, rounds=5, bands_each_side=0)
    assert drawn["round"].tolist() == [0, 1]
    empty = nl.draw_label_rounds(pairs.iloc[:0], 0.8)
    assert len(empty) == 0 and list(empty.columns) == ["i", "j", "jaccard", "band", "round"]
    with pytest.raises(ValueError, match="rounds=0"):
        nl.draw_label_rounds(pairs, 0.8, rounds=0)


def test_ids_checked_against_the_number_of_documents():
    table = pd.DataFrame({"i": [0, 2], "j": [1, 5], "jaccard": [0.9, 0.8], "label": ["unsure"] * 2})
    assert len(nl.check_labels(table, n=6)) == 2
    with pytest.raises(ValueError, match=r"row 1: j=5 .*from 0 to 4 \(there are 5 documents\)"):
        nl.check_labels(table, n=5)
    data = nl.labels_to_csv(table)
    assert len(nl.read_labels_csv(data, n=6)) == 2
    with pytest.raises(ValueError, match=r"row 2 \(line 3\): j='5' .*there are 5 documents"):
        nl.read_labels_csv(data, n=5)
    with pytest.raises(ValueError, match="no id"):
        nl.read_labels_csv(data, n=0)
    with pytest.raises(ValueError, match="n=-1"):
        nl.read_labels_csv(data, n=-1)
