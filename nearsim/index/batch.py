"""What the index's calls share: a signed batch, ids checked, the settings as stored and
compared, numba's threads for a small batch."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from nearsim.settings import RUN_FIELDS, RunSettings
from nearsim.utils.validation import ArgumentTypeError, fail, is_int


@dataclass
class Signed:
    """A batch of documents signed with the index's settings.

    Attributes
    ----------
    valid : ndarray of bool, shape (n,)
    sig : ndarray of uint32, shape (n, k)
    keys : ndarray of uint64, shape (n, 2)
        Copy keys.
    ids : list of str, or None (each document's position, as str)
    texts : list of str, or None (kept only by an index that keeps texts)
    """

    valid: np.ndarray
    sig: np.ndarray
    keys: np.ndarray
    ids: list[str] | None
    texts: list[str] | None

    @property
    def n(self) -> int:
        return int(self.valid.shape[0])


def check_ids(ids, n: int, name: str = "ids") -> list[str] | None:
    """None, or n ids (str; an int is written in decimal), as a list of str."""
    if ids is None:
        return None
    accepted = f"None (each document's position in the index), or {n} ids: str or int"
    if isinstance(ids, str | bytes) or not hasattr(ids, "__iter__"):
        raise fail(name, ids, accepted, wrong_type=True)
    out = list(ids)
    if len(out) != n:
        raise ValueError(f"{name} has {len(out):,} ids for {n:,} texts; accepted: {accepted}")
    for i, v in enumerate(out):
        if is_int(v):
            out[i] = str(int(v))
        elif not isinstance(v, str):
            raise ArgumentTypeError(
                f"{name}[{i}] is a {type(v).__name__}, which is not accepted; accepted: {accepted}"
            )
    return out


SMALL_BATCH = 20_000
"""Batches up to this size are signed and matched on the calling thread alone: a parallel
kernel's start-up cost more than its work on a few hundred documents (a batch of 340 was
signed in 4–7 ms on one thread and 25–32 ms on two, on the shared two-core machine)."""


@contextlib.contextmanager
def few_threads(n: int):
    """numba's parallel kernels on the calling thread only, for a batch of n ≤ SMALL_BATCH
    documents (the answers are the same)."""
    import numba

    before = numba.get_num_threads()
    if n <= SMALL_BATCH:
        numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def settings_differences(have: RunSettings, given: RunSettings) -> list[str]:
    """The fields that differ, as "name value (the index has value)"; bands and rows only
    when one of the two chose them (else they follow from the fields listed)."""
    tuned = have.auto_tune and given.auto_tune
    return [
        f"{name} {getattr(given, name)!r} (the index has {getattr(have, name)!r})"
        for name in RUN_FIELDS
        if getattr(have, name) != getattr(given, name) and not (tuned and name in RunSettings.TUNED)
    ]


def stored_settings(values: dict) -> RunSettings:
    """The settings an index was built with, as its manifest holds them. With ``auto_tune``
    on, the bands and rows stored are the tuner's choice when the index was built: they are
    taken as they are (the tuner is not asked again — opening an index loads no tuner, and
    an index keeps its banding whatever a later tuner would choose)."""
    if values.get("auto_tune") is not True:
        return RunSettings(**values)
    run = RunSettings(**{**values, "auto_tune": False})  # validates bands × rows ≤ num_perm
    object.__setattr__(run, "auto_tune", True)
    return run


__all__ = [
    "SMALL_BATCH",
    "Signed",
    "check_ids",
    "few_threads",
    "settings_differences",
    "stored_settings",
]
