"""Start the explorer's Streamlit server with the library warming up beside it.

``python -m explorer.serve app.py [streamlit options] [-- script arguments]`` is
``streamlit run`` (the same arguments, handed to Streamlit's own command line) plus one
background thread, started before the server: it imports what the first page needs
(nearsim, pandas, pyarrow, Altair: about 1.5 s) and loads the compiled kernels of the
default settings from numba's on-disk cache (about 1 s more on a small machine, the first
call of a compiled function in a process costs that much). Without it that work waits
until a browser opens the first page. The thread only warms caches that every process
keeps anyway: it changes nothing the page computes, and if it fails the page does the
work itself. ``scripts/app``, ``nearsim app`` and the browser tests start the explorer
this way.
"""

from __future__ import annotations

import sys
import threading

WARM_TEXTS = 400
"""Example documents the warm-up runs the default settings on: enough to take the paths
(the parallel kernels, the similarity sample) that 20,000 documents take, few enough to
finish in well under a second."""


def warm() -> None:
    """Import the explorer's libraries and load the default settings' kernels."""
    import altair  # noqa: F401  (the charts)
    import pyarrow  # noqa: F401  (every table Streamlit sends)

    from nearsim.example import example_corpus
    from nearsim.pipeline import Runner

    from . import charts  # noqa: F401

    texts = example_corpus(WARM_TEXTS, seed=0)["text"].tolist()
    runner = Runner(texts)
    for stage in ("shingles", "signatures", "exact", "evaluation", "sample", "rates"):
        runner.get(stage)


def _warm_quietly() -> None:
    try:
        warm()
    except Exception:  # the page then pays for it; never a reason not to serve
        pass


def main(argv: list[str] | None = None) -> None:
    """Start the warm-up thread, then ``streamlit run`` with ``argv``."""
    from streamlit.web import cli

    argv = sys.argv[1:] if argv is None else argv
    threading.Thread(target=_warm_quietly, name="nearsim warm-up", daemon=True).start()
    cli.main(["run", *argv], prog_name="streamlit")


if __name__ == "__main__":
    main()
