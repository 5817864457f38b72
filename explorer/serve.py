"""Start the explorer's Streamlit server with the library warmed up.

``python -m explorer.serve app.py [streamlit options] [-- script arguments]`` is
``streamlit run`` (the same arguments, handed to Streamlit's own command line) after two
warm-ups. First, before the server listens, it imports what the first page needs
(nearsim, pandas, pyarrow, Altair: about 1.5 s on a small machine); then, in a
background thread while the server starts, it loads the compiled kernels of the default
settings from numba's on-disk cache (the first call of a compiled function in a process
costs about a second). Without them that work waits until a browser opens the first page.
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

    import nearsim.pipeline  # noqa: F401

    from . import charts  # noqa: F401


def warm_kernels() -> None:
    """Load the default settings' compiled kernels (the paths 20,000 documents take)."""
    from nearsim.example import example_corpus
    from nearsim.pipeline import Runner

    texts = example_corpus(WARM_TEXTS, seed=0)["text"].tolist()
    runner = Runner(texts)
    for stage in ("shingles", "signatures", "exact", "evaluation", "sample", "rates"):
        runner.get(stage)


def warm() -> None:
    """Both warm-ups."""
    warm_imports()
    warm_kernels()


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
    kernels = threading.Thread(
        target=_quietly, args=(warm_kernels,), name="nearsim warm-up", daemon=True
    )
    kernels.start()
    cli.main(["run", *argv], prog_name="streamlit")


if __name__ == "__main__":
    main()
