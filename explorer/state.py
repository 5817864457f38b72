"""Documents and pipeline stages for the pages, each stage cached on its own.

A stage's cache key is the documents' digest plus only the settings that stage uses
(``nearsim.pipeline.STAGE_FIELDS``), so moving bands or rows never recomputes the
signatures or the join. Caches are bounded (a few entries per stage, least recently used
first out) and shared by the sessions of this one local server. A stage that is not
cached shows a status line while it runs.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from nearsim import pipeline
from nearsim.documents import (
    example_corpus,
    parse_paste,
    read_csv_column_rows,
    read_document_file,
)
from nearsim.settings import Settings

MAX_ENTRIES = {"shingles": 3, "signatures": 3, "exact": 4, "sample": 3, "simhash": 3}
DEFAULT_ENTRIES = 8
MAX_DOCUMENTS = 20_000
PASTE_KEY = "paste_text"
CSV_STATE = "_csv_upload"  # (name, bytes)
FILES_STATE = "_file_uploads"  # list of (name, bytes)


@dataclass(frozen=True)
class Documents:
    """The documents the pages work on.

    Attributes
    ----------
    texts : list of str
    labels : list of str
        What to call each document (row number, file name).
    parent : ndarray of int64 or None
        Example only: the row each copy was made from (-1 for originals).
    source : str
    digest : str
        ``nearsim.pipeline.digest(texts)``.
    summary : str
        One line saying where the documents came from.
    """

    texts: list[str]
    labels: list[str]
    parent: np.ndarray | None
    source: str
    digest: str
    summary: str

    @property
    def n(self) -> int:
        return len(self.texts)


class DocumentsUnavailable(Exception):
    """No documents yet, or they could not be read; the message says what to do."""


class StageError(ValueError):
    """A stage refused its input (the library's ValueError), tagged with the stage."""

    def __init__(self, stage: str, error: ValueError):
        super().__init__(str(error))
        self.stage = stage


# -- documents ---------------------------------------------------------------------------
@st.cache_data(max_entries=6, show_spinner="Generating the example…")
def _example(n: int, seed: int) -> tuple[list[str], np.ndarray, str]:
    df = example_corpus(n, seed)
    texts = df["text"].tolist()
    return texts, df["parent"].to_numpy(np.int64), pipeline.digest(texts)


@st.cache_data(max_entries=6, show_spinner=False)
def _example_labels(n: int) -> list[str]:
    return [f"#{i}" for i in range(n)]


def _make(texts, labels, parent, source, summary, digest: str | None = None) -> Documents:
    if len(texts) > MAX_DOCUMENTS:
        raise DocumentsUnavailable(
            f"{len(texts):,} documents is more than the explorer's limit of "
            f"{MAX_DOCUMENTS:,}; use the library (nearsim.pipeline.run) for a whole corpus."
        )
    if len(texts) < 2:
        raise DocumentsUnavailable(
            f"Near duplicates need at least two documents; there {'is' if texts else 'are'} "
            f"{len(texts) or 'none'}."
        )
    return Documents(texts, labels, parent, source, digest or pipeline.digest(texts), summary)


def documents(settings: Settings) -> Documents:
    """The current documents, or :class:`DocumentsUnavailable` with what to do."""
    ss = st.session_state
    if settings.source == "example":
        texts, parent, digest = _example(settings.n_docs, settings.example_seed)
        return _make(
            texts,
            _example_labels(len(texts)),
            parent,
            "example",
            f"Example: {len(texts):,} generated news-like documents (seed "
            f"{settings.example_seed}); a third are edited copies of earlier ones.",
            digest,
        )
    if settings.source == "paste":
        raw = ss.get(PASTE_KEY) or ""
        try:
            texts = parse_paste(raw)
        except ValueError as exc:
            raise DocumentsUnavailable(str(exc)) from None
        if not texts:
            raise DocumentsUnavailable(
                "Paste some text on the Documents page: one document per line, or "
                "blank-line separated paragraphs."
            )
        return _make(
            texts,
            [f"#{i}" for i in range(len(texts))],
            None,
            "paste",
            f"Pasted text: {len(texts):,} documents.",
        )
    if settings.source == "csv":
        upload = ss.get(CSV_STATE)
        column = ss.get("csv_column")
        if not upload or column is None:
            raise DocumentsUnavailable(
                "Upload a CSV file on the Documents page and choose its text column."
            )
        name, data = upload
        try:
            rows = read_csv_column_rows(data, column)
        except ValueError as exc:
            raise DocumentsUnavailable(f"{name}: {exc}") from None
        return _make(
            rows["text"].tolist(),
            [f"row {r}" for r in rows["row"].tolist()],
            None,
            "csv",
            f"CSV {name!r}, column {column!r}: {len(rows):,} non-empty cells.",
        )
    uploads = ss.get(FILES_STATE) or []
    if not uploads:
        raise DocumentsUnavailable(
            "Drop .txt, .md or .html files on the Documents page: each file is one document."
        )
    texts, labels, problems = [], [], []
    for name, data in uploads:
        try:
            texts.append(read_document_file(name, data))
            labels.append(name)
        except ValueError as exc:
            problems.append(str(exc))
    ss["_file_problems"] = problems
    return _make(
        texts,
        labels,
        None,
        "files",
        f"{len(texts):,} files" + (f" ({len(problems)} could not be read)" if problems else ""),
    )


# -- stage caches ------------------------------------------------------------------------
@dataclass
class _Store:
    lock: threading.Lock = field(default_factory=threading.Lock)
    stages: dict[str, OrderedDict] = field(default_factory=dict)


@st.cache_resource
def _store() -> _Store:
    return _Store()


SLOW_STAGES = {"shingles", "signatures", "exact", "sample", "simhash"}
"""Stages that can take over a second on 20,000 documents; they show a status line while
they run. (A status line costs about 0.1 s to open and close, too much for the stages that
follow a bands or rows change.)"""


def _cached(stage: str, key: tuple, label: str, compute: Callable[[], Any]) -> Any:
    store = _store()
    with store.lock:
        entries = store.stages.setdefault(stage, OrderedDict())
        if key in entries:
            entries.move_to_end(key)
            return entries[key]
    slot = st.session_state.get("_status_slot") if stage in SLOW_STAGES else None
    started = time.perf_counter()
    try:
        if slot is not None:
            with slot.status(label + "…", expanded=False):
                value = compute()
            slot.empty()
        else:
            value = compute()
    except StageError:
        raise
    except ValueError as exc:
        if slot is not None:
            slot.empty()
        raise StageError(stage, exc) from exc
    elapsed = time.perf_counter() - started
    with store.lock:
        entries[key] = value
        while len(entries) > MAX_ENTRIES.get(stage, DEFAULT_ENTRIES):
            entries.popitem(last=False)
    st.session_state.setdefault("_timings", {})[stage] = elapsed
    return value


class Pipeline:
    """Lazy, cached access to every stage for one set of documents and settings."""

    def __init__(self, docs: Documents, settings: Settings):
        self.docs = docs
        self.settings = settings

    def _key(self, stage: str) -> tuple:
        return (self.docs.digest, pipeline.stage_key(self.settings, stage))

    def shingled(self) -> pipeline.Shingled:
        return _cached(
            "shingles",
            self._key("shingles"),
            f"Cutting shingles of {self.docs.n:,} documents",
            lambda: pipeline.shingle_stage(self.docs.texts, self.settings),
        )

    def signatures(self) -> np.ndarray:
        return _cached(
            "signatures",
            self._key("signatures"),
            f"Computing {self.settings.num_perm} MinHash values per document",
            lambda: pipeline.signature_stage(self.shingled(), self.settings),
        )

    def candidates(self) -> pipeline.Candidates:
        return _cached(
            "candidates",
            self._key("candidates"),
            f"Banding: {self.settings.bands} bands × {self.settings.rows} rows",
            lambda: pipeline.candidate_stage(self.signatures(), self.shingled(), self.settings),
        )

    def exact(self) -> pd.DataFrame:
        how = "every pair" if self.docs.n <= 2500 else "the exact similarity join"
        return _cached(
            "exact",
            self._key("exact"),
            f"Exact ground truth: {how} at J ≥ {self.settings.threshold:g}",
            lambda: pipeline.exact_stage(self.shingled(), self.settings),
        )

    def sample(self) -> pd.DataFrame:
        return _cached(
            "sample",
            self._key("sample"),
            "Exact similarities across the whole range for the measured rates",
            lambda: pipeline.sample_stage(self.shingled(), self.settings),
        )

    def evaluation(self):
        return _cached(
            "evaluation",
            self._key("evaluation"),
            "Scoring the candidates",
            lambda: pipeline.evaluation_stage(self.exact(), self.candidates(), self.settings),
        )

    def rates(self) -> pd.DataFrame:
        return _cached(
            "rates",
            self._key("evaluation"),
            "Measuring candidate rates per similarity band",
            lambda: pipeline.rate_stage(self.sample(), self.candidates(), self.settings),
        )

    def labels(self) -> np.ndarray:
        return _cached(
            "clusters",
            self._key("evaluation"),
            "Grouping accepted pairs into clusters",
            lambda: pipeline.cluster_stage(self.docs.n, self.evaluation()),
        )

    def fingerprints(self) -> np.ndarray:
        return _cached(
            "simhash",
            self._key("simhash"),
            "Computing SimHash fingerprints",
            lambda: pipeline.simhash_stage(self.shingled()),
        )


def current() -> tuple[Settings, Pipeline | None, str | None]:
    """The settings, the pipeline (None without documents) and why there is none."""
    settings = page_settings()
    try:
        docs = documents(settings)
    except DocumentsUnavailable as exc:
        return settings, None, str(exc)
    return settings, Pipeline(docs, settings), None


def require_documents() -> tuple[Settings, Pipeline]:
    """The settings and pipeline; without documents, say what to do and stop the page."""
    settings, pipe, why = current()
    if pipe is None:
        st.info(why)
        st.page_link("pages/documents.py", label="Go to Documents", icon=":material/description:")
        st.stop()
    return settings, pipe


def page_settings() -> Settings:
    """The settings app.py prepared for this run.

    Streamlit treats a ``pages/`` folder the old way (each file a page of its own, run
    without the entry script) until ``st.navigation`` has been called once in the
    process, so the very first visit straight to a page's address on a fresh server
    starts the page script without app.py. The page then asks for a rerun, which goes
    through app.py (sidebar, navigation) to the same address.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory or "_settings" not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()
    return st.session_state["_settings"]
