"""Draw the explorer's Altair charts, each built once per set of inputs.

Building an Altair chart and turning it into a Vega-Lite specification costs 30–90 ms a
chart (Altair's encoding classes, ``to_dict``, its schema validation), and Streamlit pays
it again on every rerun, for every chart on the page, though most reruns change few of
them (a tab switch, the recall target, another page's setting: none). :func:`chart` keys
the finished specification on a digest of the builder and its exact arguments — every
byte of an array, every value of a table — and keeps it in Streamlit's data cache, so an
unchanged chart costs a digest and a cache look-up. Streamlit's own argument hashing is
not used for the key: it hashes only a sample of a large array or table, and a chart
must never be drawn from another one's data.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st


class _Unkeyable(TypeError):
    """An argument the digest does not know how to read exactly."""


def _feed(h, value: Any) -> None:
    """Add ``value`` to the digest ``h``, its type and shape included."""
    h.update(type(value).__name__.encode())
    if value is None or isinstance(value, (bool, int, float, str, np.generic)):
        h.update(repr(value).encode())
    elif isinstance(value, np.ndarray):
        h.update(f"{value.dtype.str}{value.shape}".encode())
        if value.dtype.hasobject:
            _feed(h, pd.Series(value.ravel(), dtype=object))
        else:
            h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (pd.DataFrame, pd.Series)):
        frame = value.to_frame() if isinstance(value, pd.Series) else value
        h.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        try:
            h.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
        except TypeError as exc:  # cells that pandas cannot hash (lists, dicts)
            raise _Unkeyable(str(exc)) from None
    elif isinstance(value, (tuple, list)):
        h.update(str(len(value)).encode())
        for item in value:
            _feed(h, item)
    elif isinstance(value, dict):
        h.update(str(len(value)).encode())
        for key in sorted(value, key=repr):
            _feed(h, key)
            _feed(h, value[key])
    else:
        raise _Unkeyable(f"cannot key a chart on a {type(value).__name__}")


def digest(builder: Callable, args: tuple, kwargs: dict) -> str | None:
    """The cache key of ``builder(*args, **kwargs)``; None if an argument cannot be keyed."""
    h = hashlib.blake2b(f"{builder.__module__}.{builder.__qualname__}".encode())
    try:
        _feed(h, args)
        _feed(h, kwargs)
    except _Unkeyable:
        return None
    return h.hexdigest()


def _arrow(data) -> bytes:
    """A dataset (rows, or a DataFrame) as Arrow IPC stream bytes, the form Streamlit sends
    charts' data in (it passes bytes through as they are: a cached chart is not converted
    again)."""
    if isinstance(data, pd.DataFrame):
        table = pa.Table.from_pandas(data, preserve_index=False)
    else:
        table = pa.Table.from_pylist(data)
    sink = pa.BufferOutputStream()
    with pa.RecordBatchStreamWriter(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _stable_names(spec: dict) -> dict:
    """``spec`` with Altair's dataset names (a digest of each dataset's rows) replaced by
    their places in it, ``nearsim_0``, ``nearsim_1``, … (not ``data_0``: Vega-Lite gives
    its own data sources such names, and a dataset with one stops the chart drawing).

    Streamlit's frontend builds a chart from scratch (Vega-Lite compiles it, Vega parses
    and lays it out: 50–250 ms a chart in the browser) whenever the specification text
    changes, and only swaps the rows in when it does not. With digests for names, new
    rows meant a new specification. Places are stable: Altair lists the datasets in the
    order it walks the chart, which depends on the chart's shape, not its rows.
    """
    datasets = spec.pop("datasets", {})
    text = json.dumps(spec)
    renamed = {}
    for i, (name, rows) in enumerate(datasets.items()):
        new = f"nearsim_{i}"
        text = text.replace(json.dumps(name), json.dumps(new))
        renamed[new] = rows
    spec = json.loads(text)
    spec["datasets"] = renamed
    return spec


def _to_spec(built) -> dict:
    """The Vega-Lite specification of an Altair chart, or of a builder's own specification
    (``charts.*_spec``, whose datasets have names already), its datasets as Arrow bytes."""
    if isinstance(built, dict):
        spec = dict(built)
    else:
        with alt.data_transformers.disable_max_rows():  # the builders bound their own rows
            spec = _stable_names(built.to_dict())
    spec["datasets"] = {name: _arrow(data) for name, data in spec.get("datasets", {}).items()}
    return spec


@st.cache_data(max_entries=256, show_spinner=False)
def _spec(key: str, _builder: Callable, _args: tuple, _kwargs: dict) -> dict:
    return _to_spec(_builder(*_args, **_kwargs))


def chart(builder: Callable, *args, **kwargs) -> None:
    """Draw ``builder(*args, **kwargs)`` (an Altair chart or a Vega-Lite specification) at
    the container's width."""
    key = digest(builder, args, kwargs)
    spec = _to_spec(builder(*args, **kwargs)) if key is None else _spec(key, builder, args, kwargs)
    st.vega_lite_chart(spec, width="stretch")
