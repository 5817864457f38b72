"""Export: the current Settings as a ``nearsim dedup`` command and as the peers' configurations.

:func:`dedup_command` writes the command line that runs the same settings over a whole
corpus (one ``--option value`` per setting that differs from its default, or the same values
as one ``--settings`` query), quoted for a POSIX shell. :func:`datatrove_config`,
:func:`nemo_curator_config`, :func:`text_dedup_config` and :func:`data_juicer_config` (in
:mod:`nearsim.explore.peers`, re-exported here) write each peer's configuration with the
peer's own parameter names, and say, value by value, what carries over exactly and what
differs (tokeniser, normalisation, hash family, seed, the estimate filter). Banding is always
"b bands of r rows each": b groups of r consecutive signature values, a candidate pair when
all r values of one band agree.

>>> from nearsim.settings import Settings
>>> dedup_command(Settings(num_perm=256, threshold=0.7), "corpus.jsonl", "out")
'nearsim dedup corpus.jsonl --out out --num-perm 256 --threshold 0.7'
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from nearsim.explore.peers import (
    Carry,
    PeerConfig,
    _check_settings,
    data_juicer_config,
    datatrove_config,
    nemo_curator_config,
    peer_configs,
    text_dedup_config,
)
from nearsim.run.options import VERIFY
from nearsim.settings import EXPLORER_FIELDS as SETTINGS_EXPLORER_FIELDS
from nearsim.settings import FIELD_SPECS, Settings
from nearsim.utils.validation import (
    ArgumentTypeError,
    check_bool,
    check_choice,
    check_str,
)

__all__ = [
    "EXPLORER_FIELDS",
    "VERIFY_MODES",
    "Carry",
    "PeerConfig",
    "data_juicer_config",
    "datatrove_config",
    "dedup_argv",
    "dedup_command",
    "nemo_curator_config",
    "peer_configs",
    "text_dedup_config",
]

EXPLORER_FIELDS = SETTINGS_EXPLORER_FIELDS
"""Settings only the explorer uses (where its documents come from, the SimHash distance):
``nearsim dedup`` neither offers nor reads them, so the command leaves them out."""

VERIFY_MODES = VERIFY
"""``nearsim dedup --verify``: keep a candidate when its estimate ≥ t, its exact Jaccard ≥ t,
or always."""


def _check_path(value: Any, name: str) -> str:
    path = check_str(value, name)
    if path.startswith("-"):
        raise ValueError(
            f"{name}={path!r:.60} is not accepted; accepted: a path that does not start with "
            f"'-' (it would read as an option; write ./{path})"
        )
    return path


def dedup_argv(
    settings: Settings,
    inputs: str | Sequence[str] = "INPUT",
    out: str = "DIR",
    *,
    text_field: str | None = None,
    verify: str | None = None,
    use_settings: bool = False,
    id_field: str | None = None,
    group_field: str | None = None,
) -> list[str]:
    """The ``nearsim dedup`` command for ``settings``, as an argument list.

    Parameters
    ----------
    settings : Settings
    inputs : str or sequence of str
        The corpus paths (files or folders).
    out : str
        The output folder (``--out``).
    text_field : str, optional
        ``--text-field``, when given.
    verify : {"estimate", "exact", "none"}, optional
        ``--verify``, when given (the command's default is ``estimate``).
    id_field, group_field : str, optional
        ``--id-field`` and ``--group-field``, when given.
    use_settings : bool
        ``False``: one ``--option value`` per setting that differs from its default (the
        option is the field name with ``-`` for ``_``). ``True``: the same values as one
        ``--settings`` query string (a Share link's query).

    Returns
    -------
    list of str
        ``["nearsim", "dedup", *inputs, "--out", out, ...]``. The settings of
        :data:`EXPLORER_FIELDS` are left out; with ``auto_tune`` on, so are bands and rows
        (the tuner recomputes them), exactly as in :meth:`Settings.to_query`.
    """
    settings = _check_settings(settings)
    paths = [inputs] if isinstance(inputs, str) else inputs
    if not isinstance(paths, Sequence) or not paths:
        raise ArgumentTypeError(
            f"inputs={inputs!r:.60} is not accepted; accepted: a path or a non-empty list of paths"
        )
    argv = ["nearsim", "dedup", *(_check_path(p, "inputs") for p in paths)]
    argv += ["--out", _check_path(out, "out")]
    query = {k: v for k, v in settings.to_query().items() if k not in EXPLORER_FIELDS}
    if check_bool(use_settings, "use_settings"):
        argv += ["--settings", urlencode(query)] if query else []
    else:
        for name, value in query.items():
            argv += [FIELD_SPECS[name].option, value]
    if text_field is not None:
        argv += ["--text-field", check_str(text_field, "text_field")]
    if id_field is not None:
        argv += ["--id-field", check_str(id_field, "id_field")]
    if group_field is not None:
        argv += ["--group-field", check_str(group_field, "group_field")]
    if verify is not None:
        argv += ["--verify", check_choice(verify, "verify", VERIFY_MODES)]
    return argv


def dedup_command(settings: Settings, *args: Any, **kwargs: Any) -> str:
    """The ``nearsim dedup`` command for ``settings``, quoted for a POSIX shell.

    ``shlex.join(dedup_argv(settings, ...))``: every argument through :func:`shlex.quote`,
    so ``shlex.split`` gives the argument list back.

    Parameters
    ----------
    settings : Settings
    *args, **kwargs
        ``inputs``, ``out``, ``text_field``, ``verify``, ``use_settings``, as
        :func:`dedup_argv`.

    Returns
    -------
    str

    >>> from nearsim.settings import Settings
    >>> s = Settings(shingle_kind="word", auto_tune=False, bands=16, rows=8)
    >>> dedup_command(s, "my corpus/", "out", text_field="body", use_settings=True)
    "nearsim dedup 'my corpus/' --out out --settings 'shingle_kind=word&auto_tune=false&bands=16&rows=8' --text-field body"
    """  # noqa: E501
    return shlex.join(dedup_argv(settings, *args, **kwargs))
