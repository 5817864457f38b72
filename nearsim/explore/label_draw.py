"""Drawing the pairs to label: a few from each 0.05 band of similarity around the threshold.

A crawler's author checked by hand the pairs near the cut-off. Drawing them in proportion
to the corpus would show almost only the commonest band; drawing the same number from
each band near t shows every band where the labels may change sides.
:func:`label_window` is the range of similarities drawn from (t's band and
``bands_each_side`` on each side), :func:`draw_label_pairs` one draw, and
:func:`draw_label_rounds` successive draws a labeller can stop after. They are
re-exported by :mod:`nearsim.explore.labels`, which scores the labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nearsim.join.sample import N_BANDS, similarity_band
from nearsim.utils.validation import MAX_DOCS, check_int, check_threshold
from nearsim.utils.validation_arrays import check_pair_frame, check_pairs, check_similarity


def pair_code(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """One int64 per pair (ids are at most MAX_DOCS < 2**31)."""
    return i.astype(np.int64) * np.int64(MAX_DOCS + 1) + j.astype(np.int64)


# -- drawing pairs to label ----------------------------------------------------------------
def draw_label_pairs(
    pairs: pd.DataFrame,
    threshold,
    *,
    per_band: int = 6,
    bands_each_side: int = 3,
    seed: int = 0,
    exclude=None,
) -> pd.DataFrame:
    """Pairs to label: up to ``per_band`` drawn at random from each 0.05 band near t.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns i, j (int), jaccard (float, 0 to 1): the pairs to draw from, e.g. an exact
        join at a lower threshold concatenated with the similarity sample. A pair listed
        more than once is drawn at most once (its first row is used).
    threshold : float
        The threshold t in (0, 1]; its band is the one holding t (t = 0.8: [0.80, 0.85)).
    per_band : int
        Pairs drawn from each band (all of a band's pairs when it has fewer), 1 to 1000.
    bands_each_side : int
        Bands below and above t's band to draw from too, 0 to 20 (3: from 0.65 to 1.0 when
        t = 0.8).
    seed : int
        Seed of the draw (same inputs and seed, same pairs in the same order).
    exclude : array_like of int, shape (m, 2), or DataFrame with columns i, j, optional
        Pairs not to draw again (e.g. the ones already labelled).

    Returns
    -------
    pandas.DataFrame
        Columns i, j (int64), jaccard (float64), band (int64, 0 to 19: J in
        [band·0.05, band·0.05 + 0.05), 1.0 in band 19), in a random order (seeded), so
        that the labeller does not read them in order of similarity. Default RangeIndex.

    Examples
    --------
    >>> pairs = pd.DataFrame({"i": [0, 0, 1, 2], "j": [1, 2, 3, 3],
    ...                       "jaccard": [0.81, 0.62, 0.77, 0.3]})
    >>> drawn = draw_label_pairs(pairs, 0.8, per_band=1, bands_each_side=1)
    >>> sorted(drawn["jaccard"].tolist())
    [0.77, 0.81]
    """
    check_pair_frame(pairs, "pairs", columns=("i", "j", "jaccard"))
    jac = check_similarity(pairs["jaccard"].to_numpy(), "pairs['jaccard']")
    t = check_threshold(threshold)
    per_band = check_int(per_band, "per_band", low=1, high=1000)
    side = check_int(bands_each_side, "bands_each_side", low=0, high=N_BANDS)
    seed = check_int(seed, "seed", low=0)
    i = pairs["i"].to_numpy(np.int64)
    j = pairs["j"].to_numpy(np.int64)
    code = pair_code(i, j)
    keep = np.zeros(code.shape[0], dtype=bool)
    keep[np.unique(code, return_index=True)[1]] = True  # the first row of each pair
    if exclude is not None:
        done = check_pairs(exclude, "exclude", unique=False)
        keep &= ~np.isin(code, pair_code(done[:, 0], done[:, 1]))
    centre = int(similarity_band(np.array([t]))[0])
    band = similarity_band(jac)
    keep &= np.abs(band - centre) <= side
    rows = np.flatnonzero(keep)
    rng = np.random.default_rng(seed)
    rows = rows[rng.permutation(rows.shape[0])]  # a random order, then the first of each band
    rank = pd.Series(band[rows]).groupby(band[rows]).cumcount().to_numpy()
    rows = rows[rank < per_band]
    return pd.DataFrame(
        {"i": i[rows], "j": j[rows], "jaccard": jac[rows], "band": band[rows].astype(np.int64)}
    )


def label_window(threshold, bands_each_side: int = 4) -> tuple[float, float]:
    """The similarities the labels are drawn from: t's 0.05 band and the bands beside it.

    Parameters
    ----------
    threshold : float
        The threshold t in (0, 1].
    bands_each_side : int
        Bands below and above t's band, 0 to 20 (4: t ± 0.2).

    Returns
    -------
    (float, float)
        ``(low, high)``: the window is low ≤ J < high (J = 1 included when high is 1), both
        band edges, clipped to [0, 1].

    Examples
    --------
    >>> label_window(0.8)
    (0.6, 1.0)
    >>> label_window(0.47, 2)
    (0.35, 0.6)
    """
    t = check_threshold(threshold)
    side = check_int(bands_each_side, "bands_each_side", low=0, high=N_BANDS)
    centre = int(similarity_band(np.array([t]))[0])
    return max(centre - side, 0) / N_BANDS, min(centre + side + 1, N_BANDS) / N_BANDS


def draw_label_rounds(
    pairs: pd.DataFrame,
    threshold,
    *,
    per_band: int = 5,
    rounds: int = 4,
    bands_each_side: int = 4,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`draw_label_pairs` in rounds: each round up to ``per_band`` new pairs per band.

    A labeller who stops after any round has looked at every band near t about equally
    (a band with fewer pairs runs out first). Round k excludes the pairs of rounds 0 … k−1
    and is drawn with seed ``seed + k``.

    Parameters
    ----------
    pairs : pandas.DataFrame
        As for :func:`draw_label_pairs`.
    threshold : float
        The threshold t in (0, 1].
    per_band : int
        Pairs per band in each round, 1 to 1000.
    rounds : int
        Rounds, 1 to 100.
    bands_each_side : int
        As for :func:`draw_label_pairs` (4: t ± 0.2).
    seed : int
        Seed of the first round.

    Returns
    -------
    pandas.DataFrame
        Columns i, j (int64), jaccard (float64), band (int64), round (int64, from 0): the
        rounds one after the other, each in a random order. Default RangeIndex.

    Examples
    --------
    >>> pairs = pd.DataFrame({"i": [0, 0, 1, 2], "j": [1, 2, 3, 3],
    ...                       "jaccard": [0.81, 0.82, 0.77, 0.3]})
    >>> drawn = draw_label_rounds(pairs, 0.8, per_band=1, rounds=3, bands_each_side=1)
    >>> drawn.groupby("round").size().tolist()
    [2, 1]
    """
    rounds = check_int(rounds, "rounds", low=1, high=100)
    seed = check_int(seed, "seed", low=0)
    drawn: list[pd.DataFrame] = []
    done = np.empty((0, 2), dtype=np.int64)
    for k in range(rounds):
        batch = draw_label_pairs(
            pairs,
            threshold,
            per_band=per_band,
            bands_each_side=bands_each_side,
            seed=seed + k,
            exclude=done,
        )
        if not len(batch):
            break
        drawn.append(batch.assign(round=np.int64(k)))
        done = np.concatenate([done, batch[["i", "j"]].to_numpy(np.int64)])
    if not drawn:
        empty = draw_label_pairs(pairs.iloc[:0], threshold)
        return empty.assign(round=np.zeros(0, dtype=np.int64))
    return pd.concat(drawn, ignore_index=True)
