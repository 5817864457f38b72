"""Hand labels: check the pairs near the threshold by eye, and see which threshold they support.

A crawler's author pulled the pairs near the cut-off, read them, and found that Jaccard is
not the truth a user cares about: the same list in two languages at 0.96 was not a
duplicate, the same stadium under two slugs at 0.72–0.85 was. This module is that method:

* :func:`draw_label_pairs` (from :mod:`nearsim.explore.label_draw`) draws pairs to label, a few
  from each 0.05 band of similarity around the threshold (so every band near the cut-off
  is looked at, not only the common ones); :func:`draw_label_rounds` draws them in
  rounds, each as even across the bands, from the bands :func:`label_window` spans;
* a *label* is one of :data:`LABELS` for a pair (i, j) with its exact Jaccard;
* :func:`label_curve` gives the precision and recall of the rule "J ≥ t is a duplicate"
  against the labels, for every t on a grid (``unsure`` left out);
* :func:`best_threshold` suggests the t that separates the labels best, with a bootstrap
  interval that is wide when there are few labels;
* :func:`labels_to_csv` and :func:`read_labels_csv` move labels in and out as CSV.

A labels table is a pandas DataFrame with columns ``i``, ``j`` (int64, 0 ≤ i < j, no pair
twice), ``jaccard`` (float64, 0 to 1) and ``label`` (str, one of :data:`LABELS`).

The labelled pairs are drawn evenly per band, not in proportion to the corpus, so the
precision and recall here are those of the labelled pairs: they show where the labels
change sides, not the corpus-wide rates (for those, see :mod:`nearsim.predict`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nearsim.explore.label_draw import draw_label_pairs as draw_label_pairs
from nearsim.explore.label_draw import draw_label_rounds as draw_label_rounds
from nearsim.explore.label_draw import label_window as label_window
from nearsim.explore.label_draw import pair_code
from nearsim.utils.validation import MAX_DOCS, check_choice, check_float, check_int, check_n
from nearsim.utils.validation_arrays import check_thresholds

LABELS = ("duplicate", "not a duplicate", "unsure")
"""The three labels a pair can get."""
COLUMNS = ("i", "j", "jaccard", "label")
"""The columns of a labels table, and of its CSV, in this order."""
DEFAULT_GRID = np.arange(5, 100) / 100
"""Thresholds 0.05, 0.06, … 0.99 (the range the Settings accept)."""


# -- validating labels ---------------------------------------------------------------------
def _bad_row(name: str, row: str, what: str, shown, accepted: str) -> ValueError:
    return ValueError(f"{name} {row}: {what}={shown!r} is not accepted; accepted: {accepted}")


def _is_id(v) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) and v >= 0


def _is_share(v) -> bool:
    real = isinstance(v, int | float | np.integer | np.floating)
    return real and not isinstance(v, bool | np.bool_) and 0.0 <= float(v) <= 1.0  # not NaN


def _id_rule(n: int | None) -> tuple[int, str]:
    """The largest id accepted, and the words for the rule."""
    if n is None:
        return MAX_DOCS, f"an integer id from 0 to {MAX_DOCS:,}"
    if n == 0:
        return -1, "no id (there are no documents)"
    return n - 1, f"an integer id from 0 to {n - 1:,} (there are {n:,} documents)"


def _check_rows(labels, name: str, where, n: int | None = None) -> pd.DataFrame:
    """:func:`check_labels`, naming a bad row by ``where(index)``."""
    if not isinstance(labels, pd.DataFrame):
        raise ValueError(
            f"{name}={type(labels).__name__} is not accepted; accepted: a pandas DataFrame "
            f"with columns {', '.join(COLUMNS)}"
        )
    missing = [c for c in COLUMNS if c not in labels.columns]
    if missing:
        raise ValueError(
            f"{name} has no column {', '.join(missing)}; accepted: a table with columns "
            f"{', '.join(COLUMNS)} (has: {', '.join(map(str, labels.columns))})"
        )
    top, rule = _id_rule(n)
    out = {}
    for col in ("i", "j"):
        values = labels[col].tolist()
        for row, v in enumerate(values):
            if not _is_id(v) or v > top:
                raise _bad_row(name, where(row), col, v, rule)
        out[col] = np.asarray(values, dtype=np.int64)
    bad = out["i"] >= out["j"]
    twice = pd.Series(pair_code(out["i"], out["j"])).duplicated().to_numpy()
    if bad.any() or twice.any():
        row = int(np.flatnonzero(bad | twice)[0])
        shown = (int(out["i"][row]), int(out["j"][row]))
        accepted = "i < j" if bad[row] else "each pair labelled once"
        raise _bad_row(name, where(row), "(i, j)", shown, accepted)
    jac = labels["jaccard"].tolist()
    for row, v in enumerate(jac):
        if not _is_share(v):
            raise _bad_row(name, where(row), "jaccard", v, "a number from 0 to 1")
    out["jaccard"] = np.asarray(jac, dtype=np.float64)
    label = labels["label"].tolist()
    accepted = "one of " + ", ".join(repr(x) for x in LABELS)
    for row, v in enumerate(label):
        if not isinstance(v, str) or v not in LABELS:
            raise _bad_row(name, where(row), "label", v, accepted)
    out["label"] = pd.Series(label, dtype=object)
    return pd.DataFrame(out)


def check_labels(labels, name: str = "labels", *, n=None) -> pd.DataFrame:
    """A labels table, checked row by row; returns it with exactly the four columns.

    Parameters
    ----------
    labels : pandas.DataFrame
        Columns i, j, jaccard, label (others are ignored).
    name : str
        What to call it in messages.
    n : int, optional
        Number of documents: every id must be below it (default: ids up to the largest
        number of documents accepted anywhere).

    Returns
    -------
    pandas.DataFrame
        Columns i, j (int64), jaccard (float64), label (str), default RangeIndex.

    Raises
    ------
    ValueError
        Naming the first bad row (0-based): an unknown label, an id that is not an integer
        ≥ 0 (or not below ``n``), i ≥ j, a pair labelled twice, a Jaccard outside [0, 1];
        or the missing columns.

    Examples
    --------
    >>> table = pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.9], "label": ["dup"]})
    >>> check_labels(table)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: labels row 0: label='dup' is not accepted; accepted: one of 'duplicate', ...
    """
    n = None if n is None else check_n(n)
    return _check_rows(labels, name, lambda row: f"row {row}", n)


# -- precision and recall against the labels -----------------------------------------------
def _decisive(labels) -> tuple[np.ndarray, np.ndarray, int]:
    table = check_labels(labels)
    unsure = table["label"].to_numpy() == "unsure"
    sure = table[~unsure]
    return sure["jaccard"].to_numpy(), (sure["label"] == "duplicate").to_numpy(), int(unsure.sum())


def _counts(jac, dup, grid, weights=None):
    """tp, fp, fn, tn of "J ≥ t" for each t; with ``weights`` (n_boot, n) one row each."""
    above = (jac[:, None] >= grid[None, :]).astype(np.float64)  # (n, g)
    w = np.ones((1, jac.shape[0])) if weights is None else weights
    tp = (w * dup) @ above
    fp = (w * ~dup) @ above
    fn = (w * dup).sum(axis=1, keepdims=True) - tp
    tn = (w * ~dup).sum(axis=1, keepdims=True) - fp
    return tp, fp, fn, tn


def _scores(tp, fp, fn, tn, criterion: str) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        if criterion == "f1":
            return 2 * tp / (2 * tp + fp + fn)
        return tp / (tp + fn) + tn / (tn + fp) - 1.0


def _exact_interval(successes: np.ndarray, trials: np.ndarray, level: float):
    """Clopper–Pearson interval of a binomial proportion (beta quantiles; NaN for 0 trials)."""
    from scipy.stats import beta  # imported here: scipy.stats costs 0.6 s at start-up

    alpha = 1.0 - level
    k, n = successes, trials
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    empty = n == 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def label_curve(labels, thresholds=None, *, level: float = 0.95) -> pd.DataFrame:
    """Precision and recall of "J ≥ t is a duplicate" against the labels, for every t.

    Parameters
    ----------
    labels : pandas.DataFrame
        A labels table (module docstring); ``unsure`` rows are left out.
    thresholds : array_like of float, shape (g,), optional
        Strictly increasing, in (0, 1]. Default :data:`DEFAULT_GRID` (0.05 … 0.99).
    level : float
        Confidence level of the intervals, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per threshold: threshold (float64); duplicates_above, not_above,
        duplicates_below, not_below (int64: labelled pairs with J ≥ t or J < t, by label);
        precision = duplicates_above / (all above), recall = duplicates_above / (all
        duplicates), f1, youden = recall + not_below / (all not) − 1 (float64, NaN when
        undefined); precision_low, precision_high, recall_low, recall_high (float64: exact
        Clopper–Pearson intervals at ``level``, which hold at least ``level`` of the time
        whatever the number of labels; NaN with no labels to count).

    Examples
    --------
    >>> labels = pd.DataFrame({"i": [0, 1, 2], "j": [1, 2, 3], "jaccard": [0.9, 0.75, 0.6],
    ...                        "label": ["duplicate", "duplicate", "not a duplicate"]})
    >>> curve = label_curve(labels, [0.7, 0.8])
    >>> curve[["threshold", "precision", "recall"]].values.tolist()
    [[0.7, 1.0, 1.0], [0.8, 1.0, 0.5]]
    """
    jac, dup, _ = _decisive(labels)
    grid = DEFAULT_GRID if thresholds is None else check_thresholds(thresholds)
    level = check_float(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    tp, fp, fn, tn = (x[0] for x in _counts(jac, dup, grid))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + fp)
        recall = tp / (tp + fn)
    p_low, p_high = _exact_interval(tp, tp + fp, level)
    r_low, r_high = _exact_interval(tp, tp + fn, level)
    return pd.DataFrame(
        {
            "threshold": grid,
            "duplicates_above": tp.astype(np.int64),
            "not_above": fp.astype(np.int64),
            "duplicates_below": fn.astype(np.int64),
            "not_below": tn.astype(np.int64),
            "precision": precision,
            "recall": recall,
            "f1": _scores(tp, fp, fn, tn, "f1"),
            "youden": _scores(tp, fp, fn, tn, "youden"),
            "precision_low": p_low,
            "precision_high": p_high,
            "recall_low": r_low,
            "recall_high": r_high,
        }
    )


@dataclass(frozen=True)
class ThresholdChoice:
    """The threshold the labels support best, with its bootstrap interval.

    Attributes
    ----------
    threshold : float
        The suggested t (a grid value).
    score : float
        Its score under ``criterion``.
    criterion : str
        "youden" or "f1".
    low, high : float
        Percentile bootstrap interval of the suggested t at ``level`` (grid values).
    level : float
    duplicates, not_duplicates, unsure : int
        Labels of each kind (unsure ones are not used).
    resamples : int
        Bootstrap resamples used (those holding both kinds of decisive label).
    """

    threshold: float
    score: float
    criterion: str
    low: float
    high: float
    level: float
    duplicates: int
    not_duplicates: int
    unsure: int
    resamples: int


def _plateau_middle(best: np.ndarray) -> int:
    """Index of the middle of the longest run of True (the first such run on a tie)."""
    padded = np.concatenate([[False], best, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    starts, ends = edges[::2], edges[1::2]
    q = int(np.argmax(ends - starts))
    return int((starts[q] + ends[q] - 1) // 2)


def _choose(scores: np.ndarray) -> int:
    top = np.nanmax(scores)
    return _plateau_middle(scores >= top - 1e-12)


def best_threshold(
    labels,
    *,
    criterion: str = "youden",
    thresholds=None,
    resamples: int = 2000,
    level: float = 0.9,
    seed: int = 0,
) -> ThresholdChoice:
    """The threshold that separates the duplicate and not-duplicate labels best.

    The criterion is Youden's index (default): recall of the duplicates plus recall of
    the non-duplicates, minus 1 — it does not depend on how many of each kind were drawn,
    which the per-band draw sets, not the corpus. ``"f1"`` (the harmonic mean of
    precision and recall of "J ≥ t") is offered too. Every grid t is scored; when several
    reach the best score (a gap between the labels), the middle of the longest run of
    them is chosen — halfway across the gap.

    Uncertainty: the decisive labels are resampled with replacement ``resamples`` times
    (seeded; a percentile bootstrap), the choice is made again on each, and ``low`` and
    ``high`` are the (1 − level)/2 and (1 + level)/2 quantiles of those choices. Few labels
    give a wide interval; resamples that lack one of the two kinds are skipped and the
    number used is reported.

    Parameters
    ----------
    labels : pandas.DataFrame
        A labels table with at least one "duplicate" and one "not a duplicate".
    criterion : str
        "youden" or "f1".
    thresholds : array_like of float, shape (g,), optional
        The grid, as for :func:`label_curve`.
    resamples : int
        Bootstrap resamples, 0 to 100,000 (0: no interval, low and high NaN).
    level : float
        Interval level in (0, 1).
    seed : int
        Seed of the resampling.

    Returns
    -------
    ThresholdChoice

    Examples
    --------
    >>> labels = pd.DataFrame({"i": [0, 1, 2, 3], "j": [1, 2, 3, 4],
    ...                        "jaccard": [0.9, 0.74, 0.6, 0.5],
    ...                        "label": ["duplicate", "duplicate", "not a duplicate",
    ...                                  "not a duplicate"]})
    >>> best_threshold(labels, resamples=0).threshold
    0.67
    """
    jac, dup, unsure = _decisive(labels)
    criterion = check_choice(criterion, "criterion", ("youden", "f1"))
    grid = DEFAULT_GRID if thresholds is None else check_thresholds(thresholds)
    resamples = check_int(resamples, "resamples", low=0, high=100_000)
    level = check_float(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    seed = check_int(seed, "seed", low=0)
    n_dup, n_not = int(dup.sum()), int((~dup).sum())
    if n_dup == 0 or n_not == 0:
        raise ValueError(
            f"labels has {n_dup} 'duplicate' and {n_not} 'not a duplicate' rows, which is "
            "not accepted; accepted: at least one of each (unsure ones are not counted)"
        )
    scores = _scores(*_counts(jac, dup, grid), criterion)[0]
    pick = _choose(scores)
    low = high = float("nan")
    used = 0
    if resamples:
        rng = np.random.default_rng(seed)
        n = jac.shape[0]
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.float64)
        both = ((weights @ dup) > 0) & ((weights @ ~dup) > 0)
        weights = weights[both]
        used = int(weights.shape[0])
        if used:
            boot = _scores(*_counts(jac, dup, grid, weights), criterion)
            picks = grid[[_choose(row) for row in boot]]
            low = float(np.quantile(picks, (1 - level) / 2, method="inverted_cdf"))
            high = float(np.quantile(picks, (1 + level) / 2, method="inverted_cdf"))
    return ThresholdChoice(
        threshold=float(grid[pick]),
        score=float(scores[pick]),
        criterion=criterion,
        low=low,
        high=high,
        level=level,
        duplicates=n_dup,
        not_duplicates=n_not,
        unsure=unsure,
        resamples=used,
    )


# -- CSV -----------------------------------------------------------------------------------
def labels_to_csv(labels) -> bytes:
    """A labels table as CSV (UTF-8, a header line, columns i, j, jaccard, label).

    Parameters
    ----------
    labels : pandas.DataFrame
        A labels table; it is checked first, and only the four columns are written.

    Returns
    -------
    bytes
        Floats are written exactly (``read_labels_csv`` gives back the same table).

    Examples
    --------
    >>> table = pd.DataFrame({"i": [0], "j": [3], "jaccard": [0.8], "label": ["unsure"]})
    >>> labels_to_csv(table).decode()
    'i,j,jaccard,label\\n0,3,0.8,unsure\\n'
    """
    table = check_labels(labels)
    return table.to_csv(index=False, lineterminator="\n").encode("utf-8")


def read_labels_csv(data: bytes, *, n=None) -> pd.DataFrame:
    """Labels from CSV bytes (as :func:`labels_to_csv` writes; extra columns are ignored).

    Parameters
    ----------
    data : bytes
        UTF-8 (a byte-order mark is allowed) CSV with a header naming at least i, j,
        jaccard and label.
    n : int, optional
        Number of documents the labels are for: every id must be below it.

    Returns
    -------
    pandas.DataFrame
        A labels table: i, j (int64), jaccard (float64), label (str).

    Raises
    ------
    ValueError
        For bytes that are not UTF-8 CSV, a missing column, or a bad row — named by its
        1-based row and line of the file: an unknown label, an id that is not an integer
        ≥ 0 (or not below ``n``), i ≥ j, a pair twice, a Jaccard that is not a number from
        0 to 1.

    Examples
    --------
    >>> read_labels_csv(b"i,j,jaccard,label\\n0,3,0.8,duplicate\\n").to_dict("records")
    [{'i': 0, 'j': 3, 'jaccard': 0.8, 'label': 'duplicate'}]
    >>> read_labels_csv(b"i,j,jaccard,label\\n0,x,0.8,duplicate\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: labels CSV row 1 (line 2): j='x' is not accepted; accepted: an integer id ...
    """
    if not isinstance(data, bytes | bytearray):
        raise ValueError(
            f"data={type(data).__name__} is not accepted; accepted: the CSV file's bytes"
        )
    n = None if n is None else check_n(n)
    top, rule = _id_rule(n)
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"the labels CSV is not UTF-8 text (byte {err.start}); accepted: a UTF-8 CSV file"
        ) from None
    try:
        raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"the labels CSV could not be read: {err}") from None
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(
            f"the labels CSV has no column {', '.join(missing)}; accepted: a header with "
            f"{', '.join(COLUMNS)} (found: {', '.join(map(str, raw.columns))})"
        )
    name = "labels CSV"

    def where(row: int) -> str:
        return f"row {row + 1} (line {row + 2})"

    out = {}
    for col in ("i", "j"):
        cells = raw[col].str.strip()
        ok = cells.str.fullmatch(r"\+?[0-9]{1,18}").to_numpy(bool)
        ids = np.array(
            [int(c) if good else 0 for c, good in zip(cells, ok, strict=True)], dtype=np.int64
        )
        ok = ok & (ids <= top)
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            raise _bad_row(name, where(row), col, raw[col].iloc[row], rule)
        out[col] = ids
    jac = pd.to_numeric(raw["jaccard"].str.strip(), errors="coerce").to_numpy(np.float64)
    bad = ~((jac >= 0.0) & (jac <= 1.0))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise _bad_row(
            name, where(row), "jaccard", raw["jaccard"].iloc[row], "a number from 0 to 1"
        )
    out["jaccard"] = jac
    out["label"] = raw["label"].str.strip().tolist()
    return _check_rows(pd.DataFrame(out), name, where, n)
