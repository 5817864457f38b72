"""One setting's description: its kind, default, label, help and accepted values, and
how a value is checked, parsed from a Share link or command line, and written back.

:class:`FieldSpec` is what :data:`nearsim.settings.FIELD_SPECS` is made of; the app's
widgets, the command line's options and the error messages all read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from nearsim.utils.validation import (
    MAX_SEED,
    check_bool,
    check_choice,
    check_float,
    check_int,
)

__all__ = ["MAX_QUERY_VALUE", "FieldSpec", "quote"]

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})
_SAFE = re.compile(r"[A-Za-z0-9 ._+\-]", re.ASCII)
MAX_QUERY_VALUE = 100


def quote(value: str, limit: int = 40) -> str:
    """A query value made safe to show: cut to ``limit`` characters and quoted, every
    character other than ASCII letters, digits, space and ``. _ + -`` written as a
    Python escape (so no markup, link or image syntax survives in HTML or Markdown).
    """
    shown = []
    for c in value[:limit]:
        if _SAFE.fullmatch(c):
            shown.append(c)
        elif ord(c) < 0x100:
            shown.append(f"\\x{ord(c):02x}")
        elif ord(c) < 0x10000:
            shown.append(f"\\u{ord(c):04x}")
        else:
            shown.append(f"\\U{ord(c):08x}")
    return '"' + "".join(shown) + '"' + ("…" if len(value) > limit else "")


def _number_text(value: float) -> str:
    """Shortest text that reads back as exactly ``value`` (``repr``; ``1`` for 1.0)."""
    return str(int(value)) if value.is_integer() else repr(value)


@dataclass(frozen=True)
class FieldSpec:
    """What one setting is and accepts.

    Attributes
    ----------
    name : str
        Field name, query key and (with ``-`` for ``_``) command-line option.
    kind : str
        ``"choice"``, ``"int"``, ``"float"`` or ``"bool"``.
    default : str, int, float or bool
        The default value.
    label : str
        Short label for a widget.
    help : str
        One or two plain sentences for a tooltip or ``--help``.
    low, high : int, float or None
        Inclusive bounds for numbers (None: unbounded).
    choices : tuple of str
        Accepted values of a ``"choice"`` field.
    choice_labels : tuple of str
        What to show for each choice (same order); the values themselves by default.
    note : str
        A constraint not captured by the bounds (e.g. bands × rows ≤ num_perm).
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    choice_labels: tuple[str, ...] = ()
    note: str = ""

    def label_of(self, choice: str) -> str:
        """The label shown for one of the choices."""
        labels = self.choice_labels or self.choices
        return labels[self.choices.index(choice)]

    @property
    def option(self) -> str:
        """The command-line option, e.g. ``--num-perm``."""
        return "--" + self.name.replace("_", "-")

    def accepted(self) -> str:
        """What is accepted, in words (for messages and help)."""
        if self.kind == "choice":
            text = "one of " + ", ".join(self.choices)
        elif self.kind == "bool":
            text = "true or false"
        else:
            what = "an integer" if self.kind == "int" else "a number"
            low = self.format(self.low) if self.low is not None else None
            high = self.format(self.high) if self.high is not None else None
            if self.high == MAX_SEED:
                high = "2**64 − 1"
            if low is not None and high is not None:
                text = f"{what} from {low} to {high}"
            elif low is not None:
                text = f"{what} ≥ {low}"
            else:  # pragma: no cover - every number has a lower bound
                text = what
        return f"{text}, {self.note}" if self.note else text

    def format(self, value: Any) -> str:
        """The value as written in a link: ``true``/``false``, shortest float text."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "float":
            return _number_text(float(value))
        return str(value)

    def coerce(self, value: Any) -> Any:
        """Check a Python value; return it normalised (``int``, ``float``, ``bool``, ``str``).

        Raises
        ------
        ValueError
            Naming the field, the value and what is accepted (``ArgumentTypeError``, also
            a ``TypeError``, for a value of the wrong type).
        """
        try:
            if self.kind == "choice":
                return check_choice(value, self.name, self.choices)
            if self.kind == "bool":
                return check_bool(value, self.name)
            if self.kind == "int":
                return check_int(value, self.name, low=self.low, high=self.high)
            return check_float(value, self.name, low=self.low, high=self.high)
        except ValueError as exc:  # one wording: what this field accepts, with its note
            raise type(exc)(
                f"{self.name}={_repr(value)} is not accepted; accepted: {self.accepted()}"
            ) from None

    def parse(self, text: str) -> Any:
        """Read a query value; return the Python value or raise ``ValueError``."""
        raw = text.strip()
        if len(raw) > MAX_QUERY_VALUE:
            raise ValueError(f"{self.name}: value too long")
        if self.kind == "choice":
            value: Any = raw
        elif self.kind == "bool":
            lowered = raw.lower()
            if lowered not in _TRUE | _FALSE:
                raise ValueError(f"{self.name}: not true or false")
            value = lowered in _TRUE
        elif self.kind == "int":
            if not _INT.fullmatch(raw):
                raise ValueError(f"{self.name}: not an integer")
            value = int(raw)
        else:
            if not _FLOAT.fullmatch(raw):
                raise ValueError(f"{self.name}: not a number")
            value = float(raw)
        return self.coerce(value)


def _repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
