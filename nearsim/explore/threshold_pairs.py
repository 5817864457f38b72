"""The Threshold view's stages: every pair from J ≥ 0.5 up, the removal rate at every
threshold, and the pairs near t to label (registered in :data:`nearsim.pipeline.STAGES`).

``low_pairs`` reads the similarity sample's complete part (every pair from its floor of
0.5 up; a join at 0.5 when the sample's floor rose over dense bands); ``removal`` is
:func:`nearsim.explore.removal.removal_curve` on the sample's complete part for every
threshold from its floor (0.5 unless it rose) to 0.99, ``removal_low`` the same curve
from 0.5 on ``low_pairs``; neither depends on a threshold; ``label_pool`` holds the pairs
with J in t ± 0.2 (complete bands, and on many documents the sample's uniform share below
:data:`LABEL_JOIN_FLOOR`); ``label_draw`` draws from it in rounds
(:func:`nearsim.explore.labels.draw_label_rounds`). Each is ``f(settings, **inputs)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nearsim.explore.label_draw import draw_label_rounds, label_window
from nearsim.explore.removal import DEFAULT_GRID as REMOVAL_GRID
from nearsim.explore.removal import removal_curve
from nearsim.join import sample as _sample
from nearsim.join.exact import exact_pairs
from nearsim.join.sample import N_BANDS, listed_pairs, similarity_band
from nearsim.join.tokens import TokenSets
from nearsim.settings import Settings

LOW_JOIN = float(REMOVAL_GRID[0])
"""The ``low_pairs`` stage lists every pair with J ≥ this (0.5, the similarity sample's
default floor): ``removal_low``'s lowest threshold (``removal`` starts at the sample's
floor, this or higher)."""
LABEL_SIDE = 4
"""Bands of 0.05 drawn from on each side of t's band: labels come from t ± 0.2."""
LABEL_JOIN_FLOOR = 0.3
"""Lowest similarity the label pool joins at above 2,500 documents (on 20,000 news-like
texts the join takes about 2 s at 0.3 and 7 s at 0.2); lower bands are drawn from the
similarity sample."""
LABEL_PER_ROUND = 5
LABEL_ROUNDS = 4
"""Pairs drawn to label: rounds of up to 5 per band (40 pairs at t = 0.8), 4 rounds."""


def low_pairs_stage(
    settings: Settings, tokens: TokenSets, valid: np.ndarray, sample: pd.DataFrame
) -> pd.DataFrame:
    """Every pair of used documents with exact Jaccard ≥ :data:`LOW_JOIN`, read from the
    similarity sample (which lists every pair from its floor of 0.5 up), so no join runs
    again; every threshold from 0.5 up reads it.

    Returns
    -------
    pandas.DataFrame
        Columns i, j (int64), jaccard (float64), sorted by (i, j), as ``exact_pairs``.
    """
    floor = sample.attrs.get("floor")
    if sample.attrs.get("mode") != "all" and (floor is None or floor > LOW_JOIN):
        return exact_pairs(tokens, LOW_JOIN, valid=valid)
    keep = sample["jaccard"].to_numpy() >= LOW_JOIN
    if "sampled" in sample:
        keep &= ~sample["sampled"].to_numpy(bool)
    return sample.loc[keep, ["i", "j", "jaccard"]].reset_index(drop=True)


def removal_stage(settings: Settings, sample: pd.DataFrame, valid: np.ndarray) -> pd.DataFrame:
    """Share of documents removed and clusters at every threshold of the grid from the
    similarity sample's floor up (0.50 to 0.99 unless its floor rose over dense bands),
    from the pairs the sample lists in full: no join runs
    (:func:`nearsim.explore.removal.removal_curve`; :func:`removal_low_stage` starts at 0.5
    whatever the floor, at the price of a join)."""
    start = max(LOW_JOIN, sample.attrs.get("floor") or LOW_JOIN)
    grid = REMOVAL_GRID[REMOVAL_GRID >= start - 1e-9]
    pairs = listed_pairs(sample, float(grid[0]))
    return removal_curve(valid.shape[0], pairs, grid, join_threshold=float(grid[0]))


def removal_low_stage(
    settings: Settings, low_pairs: pd.DataFrame, valid: np.ndarray
) -> pd.DataFrame:
    """Share of documents removed and clusters at every threshold from 0.50 to 0.99, from
    every pair with J ≥ 0.5 (an exact join when the sample's floor rose above 0.5: on
    12,000 installed documents 1.3 million pairs, about 13 CPU seconds)."""
    return removal_curve(valid.shape[0], low_pairs, REMOVAL_GRID, join_threshold=LOW_JOIN)


def _in_window(frame: pd.DataFrame, low: float, high: float) -> pd.DataFrame:
    jac = frame["jaccard"].to_numpy()
    keep = similarity_band(jac) >= round(low * N_BANDS)
    keep &= similarity_band(jac) < round(high * N_BANDS)
    return frame.loc[keep, ["i", "j", "jaccard"]]


def _thick(sample: pd.DataFrame, low: float, floor: float) -> bool:
    """Every 0.05 band from ``low`` to the sample's ``floor`` holds at least
    ``nearsim.join.sample.MIN_BAND_ROWS`` drawn pairs (as a floor raised by ``max_listed``
    leaves them)."""
    drawn = sample["sampled"].to_numpy(bool)
    per_band = np.bincount(similarity_band(sample["jaccard"].to_numpy()[drawn]),
                           minlength=N_BANDS)  # fmt: skip
    bands = per_band[round(low * N_BANDS) : round(floor * N_BANDS)]
    return bool((bands >= _sample.MIN_BAND_ROWS).all())


def label_pool_stage(
    settings: Settings, tokens: TokenSets, valid: np.ndarray, sample: pd.DataFrame
) -> pd.DataFrame:
    """The pairs to draw labels from: those with J in t ± 0.2 (:func:`label_window`).

    Every pair of the window when the documents are few (the sample lists every pair),
    when the sample lists every pair of the window (its floor at or below the window's
    low end) or t ≥ 0.7 (an exact join at the window's low end: on long documents the
    join at 0.5 that ``low_pairs`` holds costs twice the join at 0.6, and the Threshold
    view's first tab needs only this pool) — except when the sample's floor rose above
    0.5 over dense bands: then the bands below it come from the sample (each holds at
    least ``MIN_BAND_ROWS`` drawn pairs) and those from it up are listed; otherwise an
    exact join at the window's lowest similarity, but not below :data:`LABEL_JOIN_FLOOR`,
    with the similarity sample's pairs below that. Each 0.05 band is then either
    complete or a uniform sample of its pairs, so a draw within a band is uniform either
    way.

    Returns
    -------
    pandas.DataFrame
        Columns i, j (int64), jaccard (float64), each pair once. ``attrs``: ``low`` and
        ``high`` (the window), ``complete_from`` (every pair with J ≥ this is listed;
        below it the rows are a sample), ``sample_fraction`` (pairs drawn / pairs, for the
        sampled bands).
    """
    low, high = label_window(settings.threshold, LABEL_SIDE)
    mode, floor = sample.attrs.get("mode"), sample.attrs.get("floor")
    if mode == "all":
        parts, complete = [_in_window(sample, low, high)], 0.0
    elif floor is not None and low >= floor:
        listed = sample[~sample["sampled"].to_numpy(bool)]
        parts, complete = [_in_window(listed, low, high)], low
    elif floor is not None and low >= LOW_JOIN and _thick(sample, low, floor):
        # the floor rose over dense bands, each left with at least MIN_BAND_ROWS drawn
        # pairs: those bands from the sample, the rest listed (no join; a join at 0.6 on
        # 12,000 installed documents lists 436,000 pairs, 5 CPU s)
        drawn = sample["sampled"].to_numpy(bool)
        parts = [_in_window(sample[~drawn], floor, high), _in_window(sample[drawn], low, floor)]
        complete = float(floor)
    elif low >= LOW_JOIN:
        parts, complete = [_in_window(exact_pairs(tokens, low, valid=valid), low, high)], low
    else:
        join_low = max(low, LABEL_JOIN_FLOOR)
        joined = _in_window(exact_pairs(tokens, join_low, valid=valid), low, high)
        below = _in_window(sample, low, join_low)
        complete = join_low if floor is None else min(join_low, float(floor))
        parts = [joined, below]
    pool = pd.concat(parts, ignore_index=True).drop_duplicates(["i", "j"], ignore_index=True)
    pool.attrs = {
        "low": low,
        "high": high,
        "complete_from": max(complete, low),
        "sample_fraction": float(sample.attrs.get("sample_fraction", 1.0)),
    }
    return pool


def label_draw_stage(settings: Settings, label_pool: pd.DataFrame) -> pd.DataFrame:
    """The pairs to label, in rounds of up to 5 per 0.05 band of t ± 0.2, seeded
    (:func:`nearsim.explore.labels.draw_label_rounds`)."""
    return draw_label_rounds(
        label_pool,
        settings.threshold,
        per_band=LABEL_PER_ROUND,
        rounds=LABEL_ROUNDS,
        bands_each_side=LABEL_SIDE,
        seed=0,
    )
