"""The documents the pages work on, and every pipeline stage in its own Streamlit cache.

A stage's cache key is the documents' digest plus the settings that stage depends on
(``nearsim.pipeline.stage_key``), so moving bands or rows never recomputes the signatures
or the join. Each stage has its own ``st.cache_resource`` (bounded, shared by the sessions
of this one local server; a slow stage shows a spinner while it runs). Pages read
settings, ask for stages, and draw.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

import nearsim.explore  # noqa: F401 - registers the explorer's stages on the stage graph
from nearsim import example_corpus, pipeline
from nearsim.io.documents import (
    CsvInfo,
    guess_text_column,
    inspect_csv,
    parse_paste,
    read_csv_column_rows,
    read_document_file,
)
from nearsim.join.sample import listed_pairs
from nearsim.settings import Settings

from . import settings_ui
from .safe_text import md

MAX_DOCUMENTS = 20_000
PASTE_KEY = "paste_text"
CSV_STATE = "_csv_upload"  # (name, bytes), kept by the Documents page's uploader
CSV_COLUMN = "csv_column"  # the column picker (persisted across pages)
CSV_HEADER = "_csv_header"  # None: detected; True/False: the user said
FILES_STATE = "_file_uploads"  # list of (name, bytes)
CORPUS_STATE = "_corpus_upload"  # (name, path of the saved upload)
CORPUS_FIELD = "corpus_text_field"  # the field picker (persisted across pages)
CORPUS_ID = "corpus_id_field"  # the id field picker; NO_FIELD: row numbers
CORPUS_GROUP = "corpus_group_field"  # the group field picker; NO_FIELD: none
NO_FIELD = "(none)"
SAMPLE_SIZE = MAX_DOCUMENTS
CORPUS_SEED = 0

# Entries kept per stage: the big ones (shingles, signatures, tokens: tens of MB at 20,000
# documents) few, the small ones (pairs, scores) more, so that going back and forth
# between two settings is instant.
MAX_ENTRIES = {"shingles": 3, "signatures": 4, "tokens": 3, "fingerprints": 3, "broken": 2}
DEFAULT_ENTRIES = 8


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
    problems : tuple of str
        What could not be read (a file that is not text, ...), each one line.
    groups : list of str or None
        Each document's value of the group field (JSON lines / Parquet with a group field).
    total : int or None
        How many documents the whole file holds (JSON lines / Parquet).
    id_field, group_field : str or None
        The fields the ids and groups came from (for the exported command).
    """

    texts: list[str]
    labels: list[str]
    parent: np.ndarray | None
    source: str
    digest: str
    summary: str
    problems: tuple[str, ...] = field(default=())
    groups: list[str] | None = None
    total: int | None = None
    id_field: str | None = None
    group_field: str | None = None

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
def _example(n: int, seed: int) -> tuple[list[str], list[str], np.ndarray, str]:
    df = example_corpus(n, seed)
    texts = df["text"].tolist()
    return texts, _numbered(len(texts)), df["parent"].to_numpy(np.int64), pipeline.digest(texts)


def _numbered(n: int) -> list[str]:
    return [f"#{i}" for i in range(n)]


def _make(texts, labels, parent, source, summary, digest=None, problems=()) -> Documents:
    if len(texts) > MAX_DOCUMENTS:
        raise DocumentsUnavailable(
            f"{len(texts):,} documents is more than the explorer's limit of "
            f"{MAX_DOCUMENTS:,}; run `nearsim dedup` for a whole corpus."
        )
    if len(texts) < 2:
        raise DocumentsUnavailable(
            f"Near duplicates need at least two documents; there {'is' if texts else 'are'} "
            f"{len(texts) or 'none'}."
        )
    digest = digest or pipeline.digest(texts)
    return Documents(texts, labels, parent, source, digest, summary, tuple(problems))


def _example_documents(settings: Settings) -> Documents:
    texts, labels, parent, digest = _example(settings.n_docs, settings.example_seed)
    summary = (
        f"Example: {len(texts):,} generated news-like documents (seed "
        f"{settings.example_seed}); a third are edited copies of earlier ones."
    )
    return _make(texts, labels, parent, "example", summary, digest)


def _paste_documents(settings: Settings) -> Documents:
    try:
        texts = parse_paste(st.session_state.get(PASTE_KEY) or "")
    except ValueError as exc:
        raise DocumentsUnavailable(str(exc)) from None
    if not texts:
        raise DocumentsUnavailable(
            "Paste some text on the Documents page: one document per line, or "
            "blank-line separated paragraphs."
        )
    return _make(
        texts, _numbered(len(texts)), None, "paste", f"Pasted text: {len(texts):,} documents."
    )


@st.cache_data(max_entries=4, show_spinner="Reading the CSV file…")
def csv_choices(data: bytes, header: bool | None) -> tuple[CsvInfo, str]:
    """A CSV file's columns, header verdict and the column that looks most like text
    (``ValueError`` if the file cannot be read)."""
    return inspect_csv(data, header=header), guess_text_column(data, header=header)


def _csv_documents(settings: Settings) -> Documents:
    upload = st.session_state.get(CSV_STATE)
    column = st.session_state.get(CSV_COLUMN)
    if not upload or column is None:
        raise DocumentsUnavailable(
            "Upload a CSV file on the Documents page and choose its text column."
        )
    name, data = upload
    try:
        rows = read_csv_column_rows(data, column, header=st.session_state.get(CSV_HEADER))
    except ValueError as exc:
        raise DocumentsUnavailable(f"{md(name)}: {md(str(exc))}") from None
    return _make(
        rows["text"].tolist(),
        [f"row {r}" for r in rows["row"].tolist()],
        None,
        "csv",
        f"CSV {name!r}, column {column!r}: {len(rows):,} non-empty cells.",
    )


def _file_documents(settings: Settings) -> Documents:
    uploads = st.session_state.get(FILES_STATE) or []
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
    summary = f"{len(texts):,} files" + (
        f" ({len(problems)} could not be read)" if problems else ""
    )
    return _make(texts, labels, None, "files", summary, problems=problems)


def corpus_paths() -> tuple[list[str], str]:
    """The corpus to sample: an uploaded file, or the paths ``nearsim app`` was given.

    Returns
    -------
    (list of str, str)
        The paths (empty when there is none yet) and how to name them.
    """
    from . import launch

    upload = st.session_state.get(CORPUS_STATE)
    if upload:
        return [upload[1]], upload[0]
    given = launch.corpus_arguments()
    if given.paths:
        return list(given.paths), ", ".join(given.paths)
    return [], ""


@st.cache_data(max_entries=4, show_spinner="Reading the corpus's fields…")
def corpus_info(paths: tuple[str, ...], stamp: tuple) -> tuple[tuple[str, ...], str]:
    """Fields of a corpus and the one that looks like its text (cached per file version)."""
    from nearsim import inspect_corpus

    info = inspect_corpus(list(paths))
    return info.fields, info.text_field


@st.cache_data(max_entries=4, show_spinner="Drawing a random sample of the corpus…")
def _corpus_sample(paths: tuple[str, ...], stamp: tuple, text_field: str, id_field):
    from nearsim import sample_corpus

    df, total = sample_corpus(
        list(paths),
        SAMPLE_SIZE,
        seed=CORPUS_SEED,
        text_field=text_field,
        id_field=id_field,
        on_error="skip",
    )
    skipped = int(df.attrs.get("skipped", 0))
    problems = tuple(df.attrs.get("problems", ())[:3])
    texts = df["text"].tolist()
    return texts, df["id"].tolist(), total, skipped, problems, pipeline.digest(texts)


def without_paths(exc: Exception, paths: list[str], name: str) -> str:
    """An error's message with an uploaded file's saved path replaced by the file's own name
    (the server's temporary folder means nothing to the user)."""
    text = str(exc)
    if st.session_state.get(CORPUS_STATE):
        for p in paths:
            text = text.replace(p, name)
    return text


@st.cache_data(max_entries=4, show_spinner="Reading the group of every sampled document…")
def _corpus_groups(paths: tuple[str, ...], stamp: tuple, group_field: str, id_field):
    """The group field of the same sample (same seed, same records: the group is read as
    the sample's text); the ids come back too, to check the two samples are the same."""
    from nearsim import sample_corpus

    df, _ = sample_corpus(
        list(paths),
        SAMPLE_SIZE,
        seed=CORPUS_SEED,
        text_field=group_field,
        id_field=id_field,
        on_error="skip",
    )
    return df["id"].tolist(), df["text"].tolist()


def file_stamp(paths: list[str]) -> tuple:
    """What identifies the files' current contents for a cache: paths, sizes, times."""
    import os

    out = []
    for p in paths:
        st_ = os.stat(p)
        out.append((p, st_.st_size, st_.st_mtime_ns))
    return tuple(out)


def _corpus_documents(settings: Settings) -> Documents:
    from . import launch

    paths, name = corpus_paths()
    if not paths:
        raise DocumentsUnavailable(
            "Upload a JSON lines (.jsonl, .jsonl.gz, .jsonl.zst) or Parquet file on the "
            "Documents page and choose its text field, or start the explorer with "
            "`nearsim app corpus.jsonl --text-field body`."
        )
    try:
        stamp = file_stamp(paths)
        fields, guess = corpus_info(tuple(paths), stamp)
        field = st.session_state.get(CORPUS_FIELD) or launch.corpus_arguments().text_field
        if field not in fields:
            field = guess
        id_field = st.session_state.get(CORPUS_ID) or launch.corpus_arguments().id_field
        if id_field not in fields:
            id_field = None
        group_field = st.session_state.get(CORPUS_GROUP)
        if group_field not in fields:
            group_field = None
        texts, ids, total, skipped, problems, digest = _corpus_sample(
            tuple(paths), stamp, field, id_field
        )
        groups = None
        if group_field is not None:
            group_ids, groups = _corpus_groups(tuple(paths), stamp, group_field, id_field)
            if group_ids != ids:
                problems = (
                    *problems,
                    f"The group field {group_field!r} is missing or not text in some records, "
                    "so removal per group is not shown.",
                )
                groups = None
    except (ValueError, OSError) as exc:
        raise DocumentsUnavailable(f"{md(name)}: {md(without_paths(exc, paths, name))}") from None
    sampled = total > len(texts)
    summary = (
        f"{name}, field {field!r}: "
        + (
            f"a seeded random sample of {len(texts):,} of its {total:,} documents."
            if sampled
            else f"all {total:,} documents."
        )
        + (f" {skipped:,} bad records were skipped." if skipped else "")
    )
    docs = _make(texts, ids, None, "corpus", summary, digest, problems)
    return dataclasses.replace(
        docs, groups=groups, total=total, id_field=id_field, group_field=group_field
    )


_SOURCES = {
    "example": _example_documents,
    "paste": _paste_documents,
    "csv": _csv_documents,
    "files": _file_documents,
    "corpus": _corpus_documents,
}


def documents(settings: Settings) -> Documents:
    """The current documents, or :class:`DocumentsUnavailable` with what to do."""
    return _SOURCES[settings.source](settings)


# -- stage caches ------------------------------------------------------------------------
_SAMPLED: dict[tuple, bool] = {}
"""Keys (digest, stage key) of the similarity samples this process has computed."""


def _exact_from_sample(runner: pipeline.Runner):
    """The exact join's pairs at the threshold's grid point read from the similarity
    sample, when one is at hand and lists them all (``nearsim.join.sample.listed_pairs``:
    the same frame as the join; on 12,000 installed documents it spares a 1-CPU-second
    join on Banding's first visit and at every grid point a threshold moves to); else None."""
    if runner.key("sample") not in _SAMPLED:
        return None
    floor = pipeline.threshold_floor(runner.settings.threshold)
    return listed_pairs(_fetch("sample", runner), floor)


def _cache(stage: pipeline.Stage):
    def compute(digest: str, key: tuple, _runner: pipeline.Runner):
        try:
            if stage.name == "exact_floor":
                listed = _exact_from_sample(_runner)
                if listed is not None:
                    return listed
            return _runner.compute(stage.name)
        except StageError:
            raise
        except ValueError as exc:  # the library refused these settings or documents
            raise StageError(stage.name, exc) from exc

    # one cache per stage: Streamlit keys a cache on the function's qualified name
    compute.__qualname__ = compute.__name__ = f"stage_{stage.name}"
    return st.cache_resource(
        max_entries=MAX_ENTRIES.get(stage.name, DEFAULT_ENTRIES),
        show_spinner=f"{stage.label}…" if stage.slow else False,
    )(compute)


_CACHES = {name: _cache(stage) for name, stage in pipeline.STAGES.items()}


def _fetch(stage: str, runner: pipeline.Runner):
    digest, key = runner.key(stage)
    value = _CACHES[stage](digest, key, runner)
    if stage == "sample":
        if len(_SAMPLED) >= 64:
            _SAMPLED.clear()
        _SAMPLED[(digest, key)] = True
    return value


def runner(docs: Documents, settings: Settings) -> pipeline.Runner:
    """Every stage for these documents and settings, each from its cache."""
    return pipeline.Runner(docs.texts, settings, fetch=_fetch, digest=docs.digest)


# -- what a page starts with -----------------------------------------------------------
@dataclass(frozen=True)
class Page:
    """What a page works with: the settings, the documents, and their stages."""

    settings: Settings
    docs: Documents
    run: pipeline.Runner


def current() -> tuple[Settings, Page | None, str | None]:
    """The settings, the page's documents and stages (None without documents) and why."""
    settings = settings_ui.current_settings()
    try:
        docs = documents(settings)
    except DocumentsUnavailable as exc:
        return settings, None, str(exc)
    return settings, Page(settings, docs, runner(docs, settings)), None


def require_documents() -> Page:
    """The page's documents and stages; without documents, say what to do and stop."""
    _, page, why = current()
    if page is None:
        st.info(why)
        from nearsim_app.explorer.main import page_path

        st.page_link(
            page_path("documents.py"), label="Go to Documents", icon=":material/description:"
        )
        st.stop()
    return page


# -- cached library calls that depend on a page's own control ---------------------------
@st.cache_data(max_entries=16, show_spinner="Ranking every banding for the recall target…")
def _tuner_comparison(
    digest: str, key: tuple, t: float, k: int, w_fp: float, recall: float, sketch: str, _page
):
    from nearsim import compare_tuners

    s, w = _page.run.get("similarities")
    return compare_tuners(s, w, t, k, w_fp, min_recall=recall, sketch=sketch)


def tuner_comparison(page: Page, min_recall: float):
    """The area tuner's choice and the recall tuner's best eight on the page's corpus."""
    digest, key = page.run.key("similarities")
    s = page.settings
    return _tuner_comparison(
        digest, key, s.threshold, s.num_perm, s.fp_weight, min_recall, s.sketch, page
    )
