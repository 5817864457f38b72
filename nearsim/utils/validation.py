"""One validation layer for every public edge, in the manner of scikit-learn's ``check_scalar``.

Each check takes the value and the argument's name, and returns the value normalised
(a Python ``int``, ``float``, ``bool`` or ``str``; an array of a known dtype and shape), or
raises with a message that names the argument, shows the bad value and says what is
accepted::

    num_perm=0 is not accepted; accepted: an integer from 1 to 4096

A value of the wrong type raises :class:`ArgumentTypeError`, which is both a ``TypeError``
and a ``ValueError`` (so callers that catch either see it); a value of the right type
outside its range raises ``ValueError``. Flags are real booleans (the string ``"false"``
is not true; NaN is not a flag); numbers are never bools; floats are finite.

The ranges the library accepts are stated once, here, as constants.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_PERM = 4096
"""Largest signature length (hash functions) anything accepts: 16 KB per document, and the
tuner's exhaustive search over every b·r ≤ k stays well under a second."""
MAX_DOCS = (1 << 31) - 1
"""Largest number of documents: a pair (i, j) is coded as i·n + j in 64 bits, and scipy's
sparse graphs index with 32-bit integers."""
MAX_PAIRS = 1 << 40
"""Largest pair-count limit a caller may ask for."""
MAX_SEED = (1 << 64) - 1
"""Largest seed a Settings field holds: 64 bits, what NumPy's generators and the peer
libraries take, and a length a Share link can carry (``Settings.from_query(s.to_query())
== s`` must hold for every accepted value)."""


def pandas_types(*names: str) -> tuple[type, ...]:
    """The pandas classes ``names`` (``"DataFrame"``, ``"Series"``, ``"Index"``), or ``()``
    while pandas is not loaded.

    A value can only be a pandas object once pandas has been imported, so the checks ask
    ``sys.modules`` instead of importing it: ``nearsim dedup`` and ``nearsim --help`` never
    load pandas. ``isinstance(x, ())`` is False.
    """
    pd = sys.modules.get("pandas")
    return () if pd is None else tuple(getattr(pd, name) for name in names)


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type: a ``TypeError`` that is also a ``ValueError``."""


def shown(value: Any, limit: int = 60) -> str:
    """``repr`` of a value, cut for a message; never raises."""
    if isinstance(value, np.ndarray):
        text = f"array(shape={value.shape}, dtype={value.dtype})"
    elif isinstance(value, pandas_types("DataFrame")):
        text = f"DataFrame(columns={list(map(str, value.columns))[:8]}, rows={len(value)})"
    else:
        try:
            text = repr(value)
        except Exception:  # a broken __repr__ must not hide the real problem
            text = f"<{type(value).__name__}>"
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fail(name: str, value: Any, accepted: str, *, wrong_type: bool = False) -> Exception:
    cls = ArgumentTypeError if wrong_type else ValueError
    return cls(f"{name}={shown(value)} is not accepted; accepted: {accepted}")


def _range_text(kind: str, low, high, low_open: bool = False, high_open: bool = False) -> str:
    fmt = "{:,}".format if kind == "an integer" else "{:g}".format
    if low is not None and high is not None:
        if not low_open and not high_open:
            return f"{kind} from {fmt(low)} to {fmt(high)}"
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        return f"{kind} in {lo}{fmt(low)}, {fmt(high)}{hi}"
    if low is not None:
        return f"{kind} {'>' if low_open else '≥'} {fmt(low)}"
    if high is not None:
        return f"{kind} {'<' if high_open else '≤'} {fmt(high)}"
    return kind


def is_int(value: Any) -> bool:
    """An integer that is not a bool (Python or NumPy)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool, not a float) in ``[low, high]``, as a Python ``int``.

    Parameters
    ----------
    value : object
    name : str
        The argument's name, for the message.
    low, high : int, optional
        Inclusive bounds.

    Returns
    -------
    int
    """
    accepted = _range_text("an integer", low, high)
    if not is_int(value):
        raise fail(name, value, accepted, wrong_type=True)
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise fail(name, value, accepted)
    return number


def check_float(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """A finite real number (int or float, not a bool or a str) in the given range.

    Parameters
    ----------
    value : object
    name : str
    low, high : float, optional
        Bounds, inclusive unless ``low_open`` / ``high_open``.

    Returns
    -------
    float
    """
    accepted = _range_text("a number", low, high, low_open, high_open)
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_):
        raise fail(name, value, accepted, wrong_type=True)
    try:
        number = float(value)
    except (OverflowError, ValueError):  # an int too large for a float
        raise fail(name, value, accepted) from None
    if not math.isfinite(number):
        raise fail(name, value, accepted)
    if low is not None and (number < low or (low_open and number == low)):
        raise fail(name, value, accepted)
    if high is not None and (number > high or (high_open and number == high)):
        raise fail(name, value, accepted)
    return number + 0.0  # -0.0 becomes 0.0


def check_bool(value: Any, name: str) -> bool:
    """A real boolean (``True``/``False`` or NumPy's); ``"false"``, 0 and NaN are not flags."""
    if not isinstance(value, bool | np.bool_):
        raise fail(name, value, "True or False", wrong_type=True)
    return bool(value)


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of the given strings."""
    accepted = "one of " + ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise fail(name, value, accepted, wrong_type=True)
    if value not in choices:
        raise fail(name, value, accepted)
    return str(value)


def check_threshold(value: Any, name: str = "threshold") -> float:
    """A similarity threshold: a number in (0, 1] (0 excluded, 1 included)."""
    return check_float(value, name, low=0.0, high=1.0, low_open=True)


def check_weight(value: Any, name: str) -> float:
    """A weight: a number from 0 to 1."""
    return check_float(value, name, low=0.0, high=1.0)


def check_num_perm(value: Any, name: str = "num_perm") -> int:
    """A signature length: an integer from 1 to :data:`MAX_PERM`."""
    return check_int(value, name, low=1, high=MAX_PERM)


def check_banding(b: Any, r: Any, num_perm: int | None = None) -> tuple[int, int]:
    """Bands ``b`` and rows per band ``r``: integers ≥ 1 with ``b·r ≤ num_perm``.

    Without ``num_perm`` the product may be at most :data:`MAX_PERM`.

    Returns
    -------
    (int, int)
    """
    limit = MAX_PERM if num_perm is None else num_perm
    b = check_int(b, "b", low=1, high=limit)
    r = check_int(r, "r", low=1, high=limit)
    if b * r > limit:
        what = f"num_perm={num_perm}" if num_perm is not None else f"{MAX_PERM:,}"
        raise ValueError(
            f"b × r = {b} × {r} = {b * r} is not accepted; accepted: b and r with "
            f"b·r ≤ {what} (the signature length)"
        )
    return b, r


def check_n(value: Any, name: str = "n") -> int:
    """A number of documents: an integer from 0 to :data:`MAX_DOCS`."""
    return check_int(value, name, low=0, high=MAX_DOCS)


def check_str(value: Any, name: str) -> str:
    """A non-empty string (a path, a field name)."""
    if not isinstance(value, str):
        raise fail(name, value, "a non-empty str", wrong_type=True)
    if not value:
        raise fail(name, value, "a non-empty str")
    return value


def check_instance(value: Any, name: str, cls: type, accepted: str) -> Any:
    """An instance of ``cls``; ``accepted`` names it in words (e.g. ``"a nearsim Settings"``)."""
    if not isinstance(value, cls):
        raise fail(name, value, accepted, wrong_type=True)
    return value


def check_optional_int(
    value: Any, name: str, *, low: int | None = None, high: int | None = None
) -> int | None:
    """``None``, or an integer as :func:`check_int` (e.g. a size limit where None = no limit)."""
    if value is None:
        return None
    try:
        return check_int(value, name, low=low, high=high)
    except ValueError as exc:  # an ArgumentTypeError too: keep the class
        raise type(exc)(f"{exc}, or None") from None


def check_bytes(value: Any, name: str, *, what: str = "bytes") -> bytes:
    """Raw bytes (``bytes``, ``bytearray`` or ``memoryview``), as ``bytes``.

    ``what`` says what the bytes are, for the message (``"bytes (the raw file)"``).
    """
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise fail(name, value, what, wrong_type=True)


def lone_surrogate(text: str) -> int | None:
    """Position of the first lone surrogate in ``text`` (not valid Unicode text), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def check_unicode(value: Any, name: str, *, what: str = "a str") -> str:
    """A ``str`` of valid Unicode text: no lone surrogates (it encodes to UTF-8).

    ``what`` says what the string is, for the message.
    """
    if not isinstance(value, str):
        raise fail(name, value, what, wrong_type=True)
    at = lone_surrogate(value)
    if at is not None:
        raise ValueError(
            f"{name}={shown(value)} is not accepted: it holds a lone surrogate "
            f"({shown(value[at])} at position {at}), which is not Unicode text; "
            f"accepted: {what} of valid Unicode characters"
        )
    return value


def check_optional_bool(value: Any, name: str, *, none: str = "None") -> bool | None:
    """``None`` or a real boolean; ``none`` says what None means, for the message."""
    if value is None:
        return None
    if not isinstance(value, bool | np.bool_):
        raise fail(name, value, f"True, False or {none}", wrong_type=True)
    return bool(value)


def check_callable(value: Any, name: str, what: str, *, optional: bool = False) -> Any:
    """A callable (``what`` says what it is called with, for the message); with
    ``optional``, ``None`` too."""
    if value is None and optional:
        return None
    if not callable(value):
        raise fail(name, value, what + (", or None" if optional else ""), wrong_type=True)
    return value


def check_optional_str(value: Any, name: str, *, none: str = "None") -> str | None:
    """``None`` or a non-empty str (:func:`check_str`); ``none`` says what None means."""
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise fail(
            name, value, f"a non-empty str, or {none}", wrong_type=not isinstance(value, str)
        )
    return value
