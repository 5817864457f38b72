"""Further fields of a corpus's records, read beside the text: ``--group-field`` (what
source a document came from) and ``--keep-apart`` (a value two documents must not share to
be called duplicates), and how each value becomes one string.

A value is compared and counted as the string :func:`field_text` makes of it: a string as
it is, a number or a boolean as JSON writes it (``7``, ``2.5``, ``true``), an array or an
object as compact JSON with sorted keys, and a missing field or null as ``""`` — the empty
value, which is its own group and which keeps nothing apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nearsim.utils.validation import ArgumentTypeError, check_unicode, shown

__all__ = ["EMPTY", "arrow_field_texts", "check_fields", "field_text", "peek"]

EMPTY = ""
"""The value of a missing field or a null."""


def field_text(value: Any) -> str:
    """The string a field's value is compared and counted as.

    Parameters
    ----------
    value : object
        A JSON value (str, int, float, bool, None, list, dict) or a table cell.

    Returns
    -------
    str
        A string as it is (a lone surrogate, which no file can hold, as U+FFFD); None as
        ``""``; anything else as compact JSON (``true``, ``7``, ``[1,2]``).

    Examples
    --------
    >>> [field_text(v) for v in ["en", 7, None, True, 2.5, {"b": 1, "a": [2]}]]
    ['en', '7', '', 'true', '2.5', '{"a":[2],"b":1}']
    """
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8") if not value.isascii() else value
    if value is None:
        return EMPTY
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def check_fields(fields: Any, name: str = "fields") -> tuple[str, ...]:
    """A sequence of distinct, non-empty field names, as a tuple (None: no field).

    Raises
    ------
    ValueError
        An empty name or a repeated one (``ArgumentTypeError`` for something that is not a
        sequence of str).
    """
    if fields is None:
        return ()
    accepted = "a list of field names (str), or None"
    if isinstance(fields, str) or not isinstance(fields, Sequence):
        raise ArgumentTypeError(f"{name}={shown(fields)} is not accepted; accepted: {accepted}")
    out: list[str] = []
    for field in fields:
        field = check_unicode(field, name, what=accepted)
        if not field:
            raise ValueError(f"{name} holds '', which is not accepted; accepted: {accepted}")
        if field in out:
            raise ValueError(f"{name} holds {field!r} twice; accepted: distinct field names")
        out.append(field)
    return tuple(out)


def arrow_field_texts(column) -> list[str]:
    """The values of an Arrow column as :func:`field_text` strings.

    Strings, integers, booleans and floating-point numbers are cast by Arrow (nulls as
    ``""``); other types (lists, structs, …) go through Python values.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    plain = kind.value_type if pa.types.is_dictionary(kind) else kind
    simple = (
        pa.types.is_string(plain)
        or pa.types.is_large_string(plain)
        or pa.types.is_integer(plain)
        or pa.types.is_boolean(plain)
    )
    if simple:
        return pc.fill_null(pc.cast(column, pa.large_string()), EMPTY).to_pylist()
    return [field_text(v) for v in column.to_pylist()]


def peek(path: Path, records: int) -> tuple[list[str], dict[str, list[str]]]:
    """The fields of one file and the string values of its first ``records`` records.

    Returns
    -------
    (list of str, dict of str to list of str)
        Field names in order of first appearance; per field, its values that are strings.
    """
    from nearsim.io import formats as f  # the readers import this module

    fmt = f.file_format(path)
    label = f._label(path)
    values: dict[str, list[str]] = {}
    if fmt == "parquet":
        parquet = f.open_parquet(path)
        names = list(parquet.schema_arrow.names)
        if parquet.metadata.num_row_groups:
            table = parquet.read_row_group(0).slice(0, records)
            for name in names:
                if f._is_text_type(table.schema.field(name).type):
                    values[name] = [v for v in table.column(name).to_pylist() if v is not None]
        return names, values
    if fmt == "csv":
        with open(path, "rb") as stream:
            delimiter = "\t" if path.suffix.lower() == ".tsv" else None
            table = f.open_csv(stream, delimiter=delimiter, label=label)
            names = list(table.columns)
            for _, cells, problem in table.records:
                if problem is None:
                    for name, value in zip(names, cells, strict=False):
                        values.setdefault(name, []).append(value)
                if len(values.get(names[0], ())) >= records:
                    break
        return names, values
    if fmt == "jsonl":
        names = []
        seen = 0
        try:
            with f._open_binary(path) as stream:
                for raw in stream:
                    line = raw.decode("utf-8", "replace").strip(" \t\r\n\ufeff")
                    obj, problem = f._parse(line)
                    if problem or not isinstance(obj, dict):
                        continue
                    for key, value in obj.items():
                        if key not in values and key not in names:
                            names.append(key)
                        if isinstance(value, str):
                            values.setdefault(key, []).append(value)
                    seen += 1
                    if seen >= records:
                        break
        except f._DAMAGED as exc:
            raise ValueError(f._unreadable(label, seen, exc)) from None
        return names, values
    return ["text"], {}
