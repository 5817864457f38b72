"""The settings, validated, with defaults, and the Share link.

:class:`RunSettings` holds what changes a run — shingling, MinHash, banding, the
threshold — and is what the library's corpus commands take (``nearsim dedup``). Its
extension :class:`Settings` adds what only the explorer uses: the document source, the
generated Example's size and seed, and the SimHash distance. Both are frozen dataclasses
whose fields are the URL query keys of the Share link and (with ``-`` for ``_``) the
command line's option names. :data:`FIELD_SPECS` describes each field once (label, help,
accepted values) so the app's widgets, the command line's options and the error messages
all come from the same place; :data:`RUN_FIELDS` and :data:`EXPLORER_FIELDS` say which
class holds which.

When ``auto_tune`` is on, ``bands`` and ``rows`` always hold the tuner's choice for
``(threshold, num_perm, fp_weight, sketch)`` — ``nearsim.lsh.tune(threshold, num_perm,
fp_weight, 1 - fp_weight, sketch=sketch)[0]`` — whatever was passed, and they are not
written to the link.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nearsim.field_spec import FieldSpec, quote
from nearsim.utils.validation import (
    MAX_SEED,
    ArgumentTypeError,
    check_choice,
    shown,
)

__all__ = [
    "EXPLORER_FIELDS",
    "FIELD_SPECS",
    "RUN_FIELDS",
    "FieldSpec",
    "RunSettings",
    "Settings",
    "fit_banding",
    "tuned_bands_rows",
]

FIELD_SPECS: dict[str, FieldSpec] = {
    spec.name: spec
    for spec in (
        FieldSpec(
            "source", "choice", "example", "Documents",
            "Where the documents come from: a generated example, pasted text, a column "
            "of a CSV file, text/Markdown/HTML files, or a JSON lines or Parquet sample of "
            "a corpus (20,000 documents drawn at random from a bigger file).",
            choices=("example", "paste", "csv", "files", "corpus"),
            choice_labels=("Example", "Paste", "CSV", "Files", "JSONL / Parquet"),
        ),
        FieldSpec(
            "n_docs", "int", 2000, "Example size",
            "How many documents the generated example has; about a third are edited "
            "copies of earlier ones.",
            low=300, high=20_000,
        ),
        FieldSpec(
            "example_seed", "int", 0, "Example seed",
            "Seed of the generated example: the same seed gives the same documents.",
            low=0, high=MAX_SEED,
        ),
        FieldSpec(
            "shingle_kind", "choice", "char", "Shingles",
            "Character k-grams (robust to typos; good for short text) or word k-grams.",
            choices=("char", "word"),
            choice_labels=("characters", "words"),
        ),
        FieldSpec(
            "shingle_k", "int", 5, "Shingle length (characters or words)",
            "Characters or words per shingle: 5 characters is a good start for short "
            "text, 9 or so for web pages.",
            low=1, high=50,
        ),
        FieldSpec(
            "lowercase", "bool", True, "Lower-case",
            "Lower-case the text before cutting shingles.",
        ),
        FieldSpec(
            "remove_punctuation", "bool", False, "Remove punctuation",
            "Delete punctuation before cutting shingles.",
        ),
        FieldSpec(
            "collapse_whitespace", "bool", True, "Collapse white space",
            "Turn every run of white space into one space and trim the ends.",
        ),
        FieldSpec(
            "min_shingles", "int", 0, "Minimum shingles",
            "A document with fewer shingles gets no signature and is reported: with "
            "that little text, similarity means little.",
            low=0, high=10_000,
        ),
        FieldSpec(
            "num_perm", "int", 128, "Signature length (number of hash functions)",
            "How many MinHash functions, i.e. values per signature (k). More functions: a "
            "smaller estimation error, √(J(1−J)/k), and more work.",
            low=8, high=1024,
        ),
        FieldSpec(
            "hash_seed", "int", 1, "Hash seed",
            "Seed that draws the MinHash functions' a and b.",
            low=0, high=MAX_SEED,
        ),
        FieldSpec(
            "sketch", "choice", "minhash", "Sketch",
            "MinHash: k independent hash functions (the classic sketch, the one the "
            "explorer teaches). SuperMinHash: one pass over the shingles, a smaller estimation "
            "error, and its own S-curve.",
            choices=("minhash", "superminhash"),
            choice_labels=("MinHash", "SuperMinHash"),
        ),
        FieldSpec(
            "threshold", "float", 0.8, "Similarity threshold t",
            "Pairs with Jaccard similarity at or above t count as near duplicates.",
            low=0.05, high=0.99,
        ),
        FieldSpec(
            "auto_tune", "bool", True, "Pick bands and rows for me",
            "Let the tuner choose the number of bands and rows per band that minimise "
            "the weighted false-positive and false-negative areas.",
        ),
        FieldSpec(
            "fp_weight", "float", 0.5, "False-positive weight",
            "Weight of the false-positive area in the tuner; the false-negative weight "
            "is 1 minus it. Lower it to miss fewer pairs at the cost of more candidates.",
            low=0.0, high=1.0,
        ),
        FieldSpec(
            "bands", "int", 9, "Bands b",
            "Number of bands the signature is cut into; two documents become a candidate "
            "pair if all r values of any one band are equal.",
            low=1, high=1024, note="at most num_perm, and bands × rows ≤ num_perm",
        ),
        FieldSpec(
            "rows", "int", 13, "Rows per band r",
            "Number of signature values in each band (r consecutive values); a band "
            "matches only if all r are equal.",
            low=1, high=1024, note="at most num_perm, and bands × rows ≤ num_perm",
        ),
        FieldSpec(
            "simhash_distance", "int", 3, "SimHash distance",
            "Largest Hamming distance (of 64 bits) at which two SimHash fingerprints count "
            "as a match.",
            low=0, high=32,
        ),
    )
}  # fmt: skip

EXPLORER_FIELDS: tuple[str, ...] = ("source", "n_docs", "example_seed", "simhash_distance")
"""Settings only the explorer uses: a corpus command neither offers nor reads them."""
RUN_FIELDS: tuple[str, ...] = tuple(f for f in FIELD_SPECS if f not in EXPLORER_FIELDS)
"""Settings that change a run: what :class:`RunSettings` holds."""

_DEFAULT_TUNING = ((0.8, 128, 0.5), (9, 13))


@functools.lru_cache(maxsize=512)
def tuned_bands_rows(
    threshold: float, num_perm: int, fp_weight: float, sketch: str = "minhash"
) -> tuple[int, int]:
    """The tuner's (bands, rows) for a threshold, signature length, FP weight and sketch.

    ``nearsim.lsh.tune(threshold, num_perm, fp_weight, 1 - fp_weight, sketch=sketch)[0]``,
    cached: for SuperMinHash the areas under its own curve. The defaults' answer, 9 × 13,
    is known and needs no tuner.

    Parameters
    ----------
    threshold : float
        Similarity threshold, 0.05 to 0.99.
    num_perm : int
        Signature length, 8 to 1024.
    fp_weight : float
        Weight of the false-positive area, 0 to 1.
    sketch : str
        ``"minhash"`` or ``"superminhash"``.

    Returns
    -------
    tuple of int
        ``(bands, rows)``.
    """
    if (threshold, num_perm, fp_weight) == _DEFAULT_TUNING[0] and sketch == "minhash":
        return _DEFAULT_TUNING[1]
    from nearsim.lsh import tune

    best = tune(threshold, num_perm, fp_weight, 1.0 - fp_weight, sketch=sketch)[0]
    return int(best.b), int(best.r)


def fit_banding(bands: int, rows: int, num_perm: int, keep: str = "bands") -> tuple[int, int]:
    """The one repair rule for a banding that does not fit the signature.

    The field named by ``keep`` stays (capped at ``num_perm``) and the other becomes the
    largest value with ``bands × rows ≤ num_perm``. A Share link keeps its bands; a widget
    keeps the value the user just changed.

    Parameters
    ----------
    bands, rows : int
        Both ≥ 1.
    num_perm : int
        Signature length.
    keep : {"bands", "rows"}

    Returns
    -------
    (int, int)
        ``(bands, rows)``, unchanged when they already fit.

    Examples
    --------
    >>> fit_banding(20, 10, 128)
    (20, 6)
    >>> fit_banding(20, 10, 128, keep="rows")
    (12, 10)
    """
    check_choice(keep, "keep", ("bands", "rows"))
    bands, rows = min(bands, num_perm), min(rows, num_perm)
    if bands * rows <= num_perm:
        return bands, rows
    if keep == "bands":
        return bands, max(1, num_perm // bands)
    return max(1, num_perm // rows), rows


@dataclass(frozen=True)
class RunSettings:
    """The settings that change a run: shingling, MinHash, banding and the threshold.

    What ``nearsim dedup`` (and every corpus command) takes; :class:`Settings` extends it
    with the explorer's own. Construct with keywords; a bad value raises ``ValueError``
    naming the field, the value and what is accepted. With ``auto_tune`` on, ``bands``
    and ``rows`` are replaced by the tuner's choice; with it off, ``bands × rows`` must
    not exceed ``num_perm``. Use :meth:`replace` for a changed copy and
    :meth:`parse_query` to read a Share link leniently (its explorer keys are ignored).
    """

    shingle_kind: str = "char"
    shingle_k: int = 5
    lowercase: bool = True
    remove_punctuation: bool = False
    collapse_whitespace: bool = True
    min_shingles: int = 0
    num_perm: int = 128
    hash_seed: int = 1
    sketch: str = "minhash"
    threshold: float = 0.8
    auto_tune: bool = True
    fp_weight: float = 0.5
    bands: int = 9
    rows: int = 13

    FIELDS: ClassVar[tuple[str, ...]] = RUN_FIELDS
    TUNED: ClassVar[tuple[str, str]] = ("bands", "rows")

    def __post_init__(self) -> None:
        # auto_tune first: whether bands and rows are read depends on it
        object.__setattr__(self, "auto_tune", FIELD_SPECS["auto_tune"].coerce(self.auto_tune))
        for name in self.FIELDS:
            spec, value = FIELD_SPECS[name], getattr(self, name)
            if self.auto_tune and name in self.TUNED:
                continue  # replaced by the tuner's choice below
            object.__setattr__(self, name, spec.coerce(value))
        if self.auto_tune:
            bands, rows = tuned_bands_rows(
                self.threshold, self.num_perm, self.fp_weight, self.sketch
            )
            object.__setattr__(self, "bands", bands)
            object.__setattr__(self, "rows", rows)
            return
        for name in self.TUNED:
            value = getattr(self, name)
            if value > self.num_perm:
                raise ValueError(
                    f"{name}={value} is more than num_perm={self.num_perm}; accepted: "
                    f"{FIELD_SPECS[name].accepted()}"
                )
        if self.bands * self.rows > self.num_perm:
            raise ValueError(
                f"bands × rows = {self.bands} × {self.rows} = {self.bands * self.rows} is "
                f"more than num_perm={self.num_perm}; accepted: bands × rows ≤ num_perm"
            )

    # -- conversions -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every field and its value, in field order."""
        return {name: getattr(self, name) for name in self.FIELDS}

    def run_settings(self) -> RunSettings:
        """The run's part of these settings (a :class:`RunSettings`)."""
        return RunSettings(**{name: getattr(self, name) for name in RUN_FIELDS})

    def replace(self, **changes: Any) -> Settings:
        """A validated copy with some fields changed (the tuner runs again).

        Raises
        ------
        ValueError
            An unknown field name, or a value :class:`Settings` does not accept.
        """
        unknown = sorted(set(changes) - set(self.FIELDS))
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(map(repr, unknown))}; the settings are "
                + ", ".join(self.FIELDS)
            )
        return type(self)(**{**self.to_dict(), **changes})

    def shingle_options(self) -> dict[str, Any]:
        """Keyword arguments for ``nearsim.shingles`` and ``MinHasher.text_signatures``."""
        return {
            "kind": self.shingle_kind,
            "k": self.shingle_k,
            "lowercase": self.lowercase,
            "remove_punctuation": self.remove_punctuation,
            "collapse_whitespace": self.collapse_whitespace,
        }

    def to_query(self) -> dict[str, str]:
        """The Share link's query: only values that differ from the defaults.

        Booleans are ``true``/``false``; numbers the shortest text that reads back as
        the same value (``repr`` of the float, ``1`` for 1.0). With ``auto_tune`` on,
        ``bands`` and ``rows`` are left out (the tuner recomputes them).

        Returns
        -------
        dict of str to str
            ``Settings.from_query(s.to_query()) == s`` for every valid ``s``.
        """
        query = {}
        for name in self.FIELDS:
            spec = FIELD_SPECS[name]
            if self.auto_tune and name in self.TUNED:
                continue
            value = getattr(self, name)
            if value != spec.default:
                query[name] = spec.format(value)
        return query

    @classmethod
    def from_query(cls, params: Mapping[str, Any]) -> Settings:
        """Settings from a URL query; see :meth:`parse_query` (its problems dropped)."""
        return cls.parse_query(params)[0]

    @classmethod
    def parse_query(cls, params: Mapping[str, Any]) -> tuple[Settings, list[str]]:
        """Read a URL query leniently: what is wrong is reported, not raised.

        Parameters
        ----------
        params : Mapping
            Query key → value; a value is a ``str`` or a list of ``str`` (the last one
            counts; an empty list is as if the key were absent). Numbers and booleans
            are accepted too. Unknown keys are ignored.

        Returns
        -------
        settings : Settings
            Every bad value replaced by its default. With ``auto_tune`` off and
            ``bands × rows > num_perm``, bands is kept (at most num_perm) and rows
            becomes ``num_perm // bands``. With ``auto_tune`` on, bands and rows in the
            query are ignored.
        problems : list of str
            One plain sentence per problem, naming the key, the value (quoted, cut and
            with markup characters escaped) and what is accepted.

        Raises
        ------
        ValueError
            If ``params`` is not a mapping.
        """
        if not isinstance(params, Mapping):
            if not callable(getattr(params, "items", None)):
                raise ArgumentTypeError(
                    f"params={shown(params)} is not accepted; accepted: a mapping of query "
                    "keys to values (str, or lists of str)"
                )
            params = dict(params.items())
        values: dict[str, Any] = {}
        given: dict[str, str] = {}
        problems: list[str] = []
        for name in cls.FIELDS:
            spec = FIELD_SPECS[name]
            raw = params.get(name)
            if isinstance(raw, list | tuple):
                raw = raw[-1] if raw else None
            if raw is None:
                continue
            if isinstance(raw, bool | np.bool_):
                raw = "true" if raw else "false"
            elif isinstance(raw, int | float | np.integer | np.floating):
                raw = repr(raw.item() if isinstance(raw, np.generic) else raw)
            default = spec.format(spec.default)
            if not isinstance(raw, str):
                problems.append(
                    f"{name}: a value of type {type(raw).__name__} is not accepted "
                    f"({spec.accepted()}); using the default {default}"
                )
                continue
            try:
                values[name] = spec.parse(raw)
            except ValueError:
                problems.append(
                    f"{name}={quote(raw)} is not accepted ({spec.accepted()}); "
                    f"using the default {default}"
                )
                continue
            given[name] = raw

        if values.get("auto_tune", FIELD_SPECS["auto_tune"].default):
            threshold = values.get("threshold", FIELD_SPECS["threshold"].default)
            num_perm = values.get("num_perm", FIELD_SPECS["num_perm"].default)
            fp_weight = values.get("fp_weight", FIELD_SPECS["fp_weight"].default)
            sketch = values.get("sketch", FIELD_SPECS["sketch"].default)
            tuned = dict(zip(cls.TUNED, tuned_bands_rows(threshold, num_perm, fp_weight, sketch),
                             strict=True))  # fmt: skip
            for name in cls.TUNED:
                if name in values and values.pop(name) != tuned[name]:
                    problems.append(
                        f"{name}={quote(given[name])} is ignored because auto_tune is on "
                        f"(the tuner picks bands = {tuned['bands']} and rows = {tuned['rows']}); "
                        "add auto_tune=false to choose them"
                    )
        else:
            num_perm = values.get("num_perm", FIELD_SPECS["num_perm"].default)
            bands = values.get("bands", FIELD_SPECS["bands"].default)
            rows = values.get("rows", FIELD_SPECS["rows"].default)
            if bands * rows > num_perm:
                new_bands, new_rows = fit_banding(bands, rows, num_perm)
                problems.append(
                    f"bands × rows = {bands} × {rows} = {bands * rows} is more than "
                    f"num_perm = {num_perm} (accepted: bands × rows ≤ num_perm); using "
                    f"bands = {new_bands} and rows = {new_rows}"
                )
                values["bands"], values["rows"] = new_bands, new_rows
        try:
            return cls(**values), problems
        except ValueError as exc:  # pragma: no cover - every value was checked above
            return cls(), [*problems, f"{exc}; using all the defaults"]


@dataclass(frozen=True)
class Settings(RunSettings):
    """Every setting — a run's and the explorer's — validated, with the API's defaults.

    A :class:`RunSettings` plus the document source, the generated Example's size and
    seed, and the SimHash distance: what the explorer's widgets and Share link hold.
    :meth:`run_settings` gives the run's part.
    """

    source: str = "example"
    n_docs: int = 2000
    example_seed: int = 0
    simhash_distance: int = 3

    FIELDS: ClassVar[tuple[str, ...]] = tuple(FIELD_SPECS)
