"""Start the explorer's Streamlit server with the library warmed up.

``python -m nearsim_app.explorer.serve app.py [streamlit options] [-- script arguments]`` is
``streamlit run`` (the same arguments, handed to Streamlit's own command line) after two
warm-ups. First, before the server listens, it imports what the first page needs
(nearsim, pandas, pyarrow, Altair: about 1.5 s on a small machine); then, in a
background thread while the server starts, it loads the compiled kernels of the default
settings from numba's on-disk cache (the first call of a compiled function in a process
costs about a second) and does the one-off work of a process's first script run
(:func:`warm_first_run`). Without them that work waits until a browser opens the first
page.
The imports come before the server on purpose: done beside it they held the interpreter
while the browser fetched the page and opened its connection, and the first page came
later, not sooner (measured: 4.2 s against 3.3 s at 20,000 documents; the server answers
about 1.5 s later instead). The warm-ups only fill caches every process keeps anyway: they
change nothing a page computes, and if one fails the page does the work itself.
``scripts/app``, ``nearsim app`` and the browser tests start the explorer this way.
"""

from __future__ import annotations

import sys
import threading

WARM_TEXTS = 400
"""Example documents the warm-up runs the default settings on: enough to take the paths
(the parallel kernels, the similarity sample) that 20,000 documents take, few enough to
finish in well under a second."""


def warm_imports() -> None:
    """Import what the first page needs: nearsim, pandas, pyarrow, Altair, the charts."""
    import altair  # noqa: F401  (the charts)
    import pyarrow  # noqa: F401  (every table Streamlit sends)

    import nearsim.explore  # noqa: F401  (the stage graph, the explorer's stages registered)

    from . import charts  # noqa: F401


def warm_kernels() -> None:
    """Load the default settings' compiled kernels (the paths 20,000 documents take)."""
    import nearsim.explore  # noqa: F401  (the "rates" stage)
    from nearsim.io.example import example_corpus
    from nearsim.pipeline import Runner

    texts = example_corpus(WARM_TEXTS, seed=0)["text"].tolist()
    runner = Runner(texts)
    for stage in ("shingles", "signatures", "exact", "evaluation", "sample", "rates"):
        runner.get(stage)


def warm_first_run() -> None:
    """Do, before a browser asks, the one-off work of a process's first script run.

    Measured in the first run of a fresh server (20,000 documents, Results), each once
    per process:

    * ``st.set_page_config`` with an emoji icon imports ``streamlit.emojis``, which
      compiles a regular expression of every emoji (0.07 s);
    * the first element a process sends makes Streamlit ask whether it runs in a REPL,
      through ``inspect.stack()``, whose first call maps all 1,800 loaded modules to their
      files (0.10 s; inspect keeps that map, so a later call costs 4 ms);
    * Altair's first chart from a pandas DataFrame imports narwhals' pandas back end
      (0.02 s).

    Called last in the background warm-up, so the module map covers what came before.
    """
    import inspect

    import altair as alt
    import pandas as pd
    import streamlit.emojis  # noqa: F401

    alt.Chart(pd.DataFrame({"x": [0.0, 1.0]})).mark_point().encode(x="x:Q").to_dict()
    inspect.stack()


def warm_in_background() -> None:
    """What the background thread warms, in order: the kernels, then the first run."""
    _quietly(warm_kernels)
    _quietly(warm_first_run)


def warm() -> None:
    """Every warm-up."""
    warm_imports()
    warm_kernels()
    warm_first_run()


def _quietly(step) -> None:
    try:
        step()
    except Exception:  # the page then pays for it; never a reason not to serve
        pass


def main(argv: list[str] | None = None) -> None:
    """Import the library, start the kernels' warm-up, then ``streamlit run`` ``argv``."""
    from streamlit.web import cli

    argv = sys.argv[1:] if argv is None else argv
    _quietly(warm_imports)
    background = threading.Thread(target=warm_in_background, name="nearsim warm-up", daemon=True)
    background.start()
    cli.main(["run", *argv], prog_name="streamlit")


if __name__ == "__main__":
    main()
