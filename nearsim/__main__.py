"""``python -m nearsim``: the same as the ``nearsim`` command."""

from .cli import entry_point

entry_point()
