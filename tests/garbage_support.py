"""Garbage values, a deadline, and the rule every public call must follow (tests/test_garbage.py).

The rule: called with one argument replaced by garbage, a public name either returns a
correct result, or raises a ``ValueError`` / ``TypeError`` (``ArgumentTypeError`` is both)
of the standard library or of nearsim — never one of :data:`FORBIDDEN`, nor a NumPy,
pandas or numba error from inside — whose message names the argument and says what is
accepted (``name=... is not accepted; accepted: ...``, as ``nearsim._validation`` writes
it). It finishes within :data:`DEADLINE` seconds.
"""

from __future__ import annotations

import math
import re
import resource
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from numba.core import event as numba_event

DEADLINE = 5.0
"""Seconds a call may take. The slowest good call of the table takes well under a second
on this 2-core machine with another suite running (``tune(0.5, 16384)`` used to take 77 s)."""

MEMORY_LIMIT = 8 << 30
"""Address space a worker may use while garbage is thrown (bytes): a runaway allocation
raises ``MemoryError`` (a failure) instead of waking the kernel's OOM killer."""

FORBIDDEN = (
    OverflowError,
    MemoryError,
    IndexError,
    KeyError,
    ZeroDivisionError,
    UnicodeError,  # a ValueError subclass, but a leak from inside all the same
    AttributeError,
    RecursionError,
    AssertionError,
)
"""Exceptions that are never the right answer to garbage, whatever their message."""


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so no ``except Exception`` inside swallows it."""


class _Compiling(numba_event.Listener):
    """Time numba spends compiling (outermost compilations only): not the call's time.

    Garbage of a new dtype or layout can make numba compile a new specialisation (once;
    it is cached on disk), and a fresh checkout compiles every kernel on first use. The
    deadline is about the library's work, so compiling does not count, and the alarm
    never fires inside a compilation (an exception there breaks numba's state)."""

    def __init__(self):
        self.active = 0
        self.total = 0.0
        self._since = 0.0

    def on_start(self, event):
        if self.active == 0:
            self._since = time.monotonic()
        self.active += 1

    def on_end(self, event):
        self.active -= 1
        if self.active == 0:
            self.total += time.monotonic() - self._since


COMPILING = _Compiling()
numba_event.register("numba:compile", COMPILING)


class _Clock:
    """The running call's start, compile time at start, and limit."""

    start = 0.0
    compiled = 0.0
    limit = DEADLINE

    @classmethod
    def elapsed(cls) -> float:
        spent = COMPILING.total - cls.compiled
        if COMPILING.active:
            spent += time.monotonic() - COMPILING._since
        return time.monotonic() - cls.start - spent


def _in_numba_dispatch(frame) -> bool:
    """Whether numba is typing or compiling (its dispatcher's compile path is on the stack)."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in ("_compile_for_args", "compile") and "numba" in code.co_filename:
            return True
        frame = frame.f_back
    return False


def _on_alarm(signum, frame):
    if COMPILING.active or _in_numba_dispatch(frame):
        signal.setitimer(signal.ITIMER_REAL, 0.2)  # never raise inside numba's compiler
        return
    left = _Clock.limit - _Clock.elapsed()
    if left > 0:
        signal.setitimer(signal.ITIMER_REAL, max(left, 0.05))
        return
    raise Hang


def call_with_deadline(fn: Callable, kwargs: dict, seconds: float = DEADLINE):
    """``fn(**kwargs)``, interrupted after ``seconds`` (numba compile time not counted);
    returns ``(result, elapsed)``.

    An alarm only interrupts Python code: a long loop in compiled code runs to its end,
    and then the elapsed time tells (the caller fails it all the same).
    """
    old = signal.signal(signal.SIGALRM, _on_alarm)
    _Clock.start, _Clock.compiled, _Clock.limit = time.monotonic(), COMPILING.total, seconds
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(**kwargs), _Clock.elapsed()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class limited_memory:
    """Context manager: cap the address space at :data:`MEMORY_LIMIT`, restore on exit."""

    def __enter__(self):
        self.old = resource.getrlimit(resource.RLIMIT_AS)
        soft = (
            MEMORY_LIMIT
            if self.old[1] == resource.RLIM_INFINITY
            else min(MEMORY_LIMIT, self.old[1])
        )
        resource.setrlimit(resource.RLIMIT_AS, (soft, self.old[1]))
        return self

    def __exit__(self, *exc):
        resource.setrlimit(resource.RLIMIT_AS, self.old)
        return False


def names_argument(message: str, names: tuple[str, ...]) -> bool:
    """The message names one of ``names`` as a word (``sets[3]`` names ``sets``)."""
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


def problem_with(
    exc: BaseException, names: tuple[str, ...], content: tuple[str, ...] = ()
) -> str | None:
    """What is wrong with an exception raised for garbage in argument ``names[0]``, or None.

    ``content``: regular expressions of the messages that report a problem of the data
    rather than of an argument's type or range — a CSV file with one row, a record
    without the text field, a file over the size limit — in the words the explorer and
    the command line show (the file, its line or row). Such an error is a ``ValueError``
    (never a ``TypeError``) of nearsim and must match one of them.
    """
    if isinstance(exc, Hang):
        return f"no answer within {DEADLINE:g} s"
    if isinstance(exc, FORBIDDEN) or not isinstance(exc, ValueError | TypeError):
        return f"{type(exc).__module__}.{type(exc).__name__} escaped: {exc}"
    module = type(exc).__module__
    if module != "builtins" and not module.startswith("nearsim"):
        return f"{module}.{type(exc).__name__} leaked from inside: {exc}"
    message = str(exc)
    if type(exc).__name__ == "TooManyPairsError":  # the limit was too low for the data
        return None if "max_pairs" in message else f"max_pairs is not named: {message!r}"
    if names_argument(message, names) and "accepted" in message:
        return None
    if not isinstance(exc, TypeError) and any(re.search(c, message) for c in content):
        return None
    return f"the message does not name {names[0]!r} and what is accepted: {message!r}"


# -- garbage ---------------------------------------------------------------------------------
def _gen_ints():
    return (i for i in range(3))


def _gen_lists():
    return (["ab", "cd"] for _ in range(2))


HUGE = 10**6

FIXED: dict[str, Callable[[], Any]] = {
    "None": lambda: None,
    "nan": lambda: math.nan,
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "-0.0": lambda: -0.0,
    "-1": lambda: -1,
    "0": lambda: 0,
    "1": lambda: 1,
    "2": lambda: 2,
    "0.5": lambda: 0.5,
    "1.5": lambda: 1.5,
    "2**31": lambda: 2**31,
    "2**63": lambda: 2**63,
    "2**64": lambda: 2**64,
    "10**9": lambda: 10**9,
    "10**400": lambda: 10**400,
    "1e308": lambda: 1e308,
    "5e-324": lambda: 5e-324,
    "True": lambda: True,
    "False": lambda: False,
    "np.True_": lambda: np.bool_(True),
    "np.False_": lambda: np.bool_(False),
    "np.int64(-1)": lambda: np.int64(-1),
    "np.uint64(max)": lambda: np.uint64(2**64 - 1),
    "np.float32(nan)": lambda: np.float32("nan"),
    "np.float64(0.5)": lambda: np.float64(0.5),
    "1j": lambda: 1j,
    "Fraction(1, 3)": lambda: Fraction(1, 3),
    "''": lambda: "",
    "'abc'": lambda: "abc",
    "'false'": lambda: "false",
    "'0.5'": lambda: "0.5",
    "'8'": lambda: "8",
    "lone surrogate": lambda: "\ud800",
    "'a\\ud800b'": lambda: "a\ud800b",
    "b'x'": lambda: b"x",
    "bytearray": lambda: bytearray(b"x,y\n1,2\n"),
    "[]": lambda: [],
    "{}": lambda: {},
    "()": lambda: (),
    "set()": lambda: set(),
    "{'a': 1}": lambda: {"a": 1},
    "object()": lambda: object(),
    "lambda": lambda: lambda: None,
    "Ellipsis": lambda: ...,
    "Path": lambda: Path("/nonexistent/corpus.jsonl"),
    "np.array([])": lambda: np.array([]),
    "np.array([[1, -1]])": lambda: np.array([[1, -1]]),
    "np.array([[1, 0]])": lambda: np.array([[1, 0]]),
    "np.array([[0, 1], [0, 1]])": lambda: np.array([[0, 1], [0, 1]]),
    "np.array([[0.9, 1.7]])": lambda: np.array([[0.9, 1.7]]),
    "np.array([[0, 10**6]])": lambda: np.array([[0, 10**6]]),
    "np.zeros((3, 3))": lambda: np.zeros((3, 3)),
    "np.zeros((3, 0), uint32)": lambda: np.zeros((3, 0), np.uint32),
    "np.ones((2, 2), bool)": lambda: np.ones((2, 2), bool),
    "np.array(['a'])": lambda: np.array(["a"]),
    "np.array([nan])": lambda: np.array([np.nan]),
    "np.array(object)": lambda: np.array([None, "a", 1], dtype=object),
    "np.uint64 array": lambda: np.array([1, 2**64 - 1], dtype=np.uint64),
    "0-d array": lambda: np.array(3),
    "DataFrame of junk": lambda: pd.DataFrame({"a": ["x", None], "b": [1.5, np.nan]}),
    "empty DataFrame": lambda: pd.DataFrame(),
    "DataFrame reversed pair": lambda: pd.DataFrame({"i": [1], "j": [0], "jaccard": [0.9]}),
    "DataFrame float ids": lambda: pd.DataFrame({"i": [0.5], "j": [1.7], "jaccard": [0.9]}),
    "DataFrame nan jaccard": lambda: pd.DataFrame({"i": [0], "j": [1], "jaccard": [np.nan]}),
    "Series of junk": lambda: pd.Series([None, "x", 1.5]),
    "Series of str": lambda: pd.Series(["a b c d e f", "a b c d e g"]),
    "nested lists": lambda: [[["a"]], [["b", ["c"]]]],
    "ragged ints": lambda: [[1, 2], [3]],
    "list of None": lambda: [None, None],
    "list of str": lambda: ["ab", "cd"],
    "list with a lone surrogate": lambda: ["ab", "a\ud800b"],
    "lists with a lone surrogate": lambda: [["ab"], ["a\ud800b"]],
    "list of lists of str": lambda: [["ab", "cd"], ["cd"]],
    "list of ints": lambda: [0, 1, 2],
    "list of floats": lambda: [0.1, 0.9],
    "huge list of ints": lambda: list(range(HUGE)),
    "range": lambda: range(5),
    "generator of ints": _gen_ints,
    "generator of lists": _gen_lists,
}
"""Named makers of garbage (a maker, so that generators and mutable values are fresh)."""


def mutants(good: Any) -> list[Callable[[], Any]]:
    """Near misses of a good value: the same kind of thing, slightly wrong."""
    out: list[Callable[[], Any]] = []
    if isinstance(good, bool | np.bool_):
        out += [lambda: int(good), lambda: str(good).lower(), lambda: not good]
    elif isinstance(good, int | np.integer):
        v = int(good)
        out += [lambda: v + 1, lambda: v - 1, lambda: -v, lambda: v * 10**6, lambda: float(v)]
        out += [lambda: str(v), lambda: np.int64(v), lambda: np.uint8(v % 256)]
    elif isinstance(good, float | np.floating):
        v = float(good)
        out += [lambda: -v, lambda: 1 - v, lambda: v * 2, lambda: np.nextafter(v, 2)]
        out += [lambda: np.nextafter(v, -1), lambda: str(v), lambda: np.float32(v)]
    elif isinstance(good, str):
        out += [lambda: good.upper(), lambda: good + "x", lambda: " " + good, lambda: good[:1]]
    elif isinstance(good, np.ndarray):
        out += [lambda: good.T.copy(), lambda: good[:0], lambda: good[::-1].copy()]
        out += [lambda: good.astype(np.float64) + 0.5, lambda: good.reshape(-1).copy()]
        if good.dtype.kind in "iuf":
            out += [lambda: -good.astype(np.float64), lambda: good.astype(np.int64) * 2**40]
        if good.ndim == 2:
            out += [lambda: good[:, :1].copy(), lambda: np.vstack([good, good])]
    elif isinstance(good, pd.DataFrame):
        out += [lambda: good.iloc[:0], lambda: pd.concat([good, good], ignore_index=True)]
        out += [lambda: good.iloc[::-1], lambda: good.drop(columns=good.columns[-1:])]
        if {"i", "j"} <= set(good.columns):
            out += [lambda: good.rename(columns={"i": "j", "j": "i"})]
            out += [lambda: good.assign(i=good["i"] + 0.5)]
    elif isinstance(good, list | tuple):
        out += [lambda: list(good)[:0], lambda: list(good) * 2, lambda: list(good)[::-1]]
        out += [lambda: [*good, None], lambda: [good], lambda: tuple(good)]
    return out


@dataclass(frozen=True)
class Thrown:
    """A garbage value and how to show it."""

    label: str
    make: Callable[[], Any]


def garbage(good: Any) -> st.SearchStrategy[Thrown]:
    """Garbage for an argument whose good value is ``good``: the fixed list, generated
    numbers and strings, and near misses of ``good``."""
    generated = st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
        st.binary(max_size=16),
        st.lists(st.integers(-3, 10), max_size=6),
        st.lists(st.lists(st.integers(-1, 6), min_size=2, max_size=2), max_size=4),
        st.lists(st.text(max_size=3), max_size=4),
        st.lists(st.floats(allow_nan=True), max_size=4),
    ).map(lambda v: Thrown(f"generated {v!r}"[:80], lambda: v))
    fixed = st.sampled_from([Thrown(k, m) for k, m in FIXED.items()])
    near = [Thrown(f"near miss {i} of the good value", m) for i, m in enumerate(mutants(good))]
    parts = [fixed, fixed, generated] + ([st.sampled_from(near)] if near else [])
    return st.one_of(*parts)
