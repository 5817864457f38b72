"""Presets & export: the peers' published defaults tried on your documents, the settings in
force as a ``nearsim dedup`` command and as each peer's configuration, and what a run with
them costs on a corpus of N documents."""

from __future__ import annotations

import math
import re
import shlex
from datetime import timedelta

import humanize
import numpy as np
import pandas as pd
import streamlit as st
from nearsim_app.explorer import charts_export, drawing, launch, settings_ui, state

from nearsim import pipeline
from nearsim.explore.export import VERIFY_MODES, dedup_command, peer_configs
from nearsim.explore.presets import (
    PRESET_CHARACTERS,
    PRESET_FIELDS,
    PRESETS,
    Preset,
    banding_words,
    scoring_subset,
)
from nearsim.explore.sizing import measure_throughput, run_plan, sizing
from nearsim.hashing import take_documents
from nearsim.prediction import similarity_weights
from nearsim.run.options import MAX_CANDIDATES
from nearsim.settings import Settings

ss = st.session_state
APPLIED = "_preset_applied"
INPUT, FIELD, OUT, VERIFY = "export_input", "export_text_field", "export_out", "export_verify"
SIZE, SIZE_PICK = "sizing_n", "sizing_pick"
SIZE_LOW, SIZE_HIGH = 10**3, 10**10
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
PEER_NAMES = {
    "datatrove": "datatrove",
    "nemo_curator": "NeMo Curator",
    "text_dedup": "text-dedup",
    "data_juicer": "data-juicer",
}
VERIFY_WORDS = {
    "estimate": "its MinHash estimate ≥ t (nearsim's default)",
    "exact": "its exact Jaccard ≥ t",
    "none": "always (every pair that shares a band, as most peers do)",
}
THROUGHPUT_DOCS = 5000
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$])")


def md(text: str) -> str:
    """Text shown in Markdown as written ($ would start maths, ~ strike through...)."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def short(p: Preset) -> str:
    return p.title.split(" — ")[0]


def in_use(settings: Settings, p: Preset) -> bool:
    return all(getattr(settings, f) == getattr(p.settings, f) for f in PRESET_FIELDS)


def power(n: int) -> str:
    return "10" + str(round(math.log10(n))).translate(SUPERSCRIPT)


def apply_preset(name: str) -> None:
    """Put a preset's settings in the sidebar (a button callback: before the widgets)."""
    p = PRESETS[name]
    settings_ui.apply_settings(**p.apply(settings_ui.current_settings()).to_dict())
    ss[APPLIED] = name
    ss[VERIFY] = p.verify  # the command keeps candidates as the peer does


def shingling_words(s: Settings) -> str:
    unit = "character" if s.shingle_kind == "char" else "word"
    steps = [
        "lower-cased" if s.lowercase else "case kept",
        "punctuation removed" if s.remove_punctuation else "punctuation kept",
        "white space collapsed" if s.collapse_whitespace else "white space kept as it is",
    ]
    return f"{unit} {s.shingle_k}-grams, " + ", ".join(steps)


st.title("Presets & export")
st.markdown(
    "The settings you choose here are meant for a real run, often in another pipeline. "
    "**Presets** put the published defaults of datatrove, NeMo Curator, text-dedup, "
    "data-juicer, BigCode and Spark MLlib in the sidebar, so you see on your own documents "
    "what each default would do. **Export** writes the settings in force as a `nearsim "
    "dedup` command and as each peer's configuration, saying what carries over exactly and "
    "what does not; **Sizing** says what the run costs at your corpus's full size."
)

settings, page, why = state.current()

# -- presets -------------------------------------------------------------------------------
st.header("Presets")
st.markdown(
    "Every pipeline names the two banding numbers differently (and some of their own "
    "documents have had them backwards), so each preset is said here in one set of words: "
    "the signature of k values is cut into **b bands of r rows each**, and two documents "
    "become a candidate pair when all r values of at least one band are equal. Beside it, "
    "the peer's own parameter names, what nearsim cannot reproduce, and where each value "
    "was read."
)
applied = ss.pop(APPLIED, None)
if applied is not None:
    st.success(
        f"{short(PRESETS[applied])}'s defaults are in the sidebar: "
        f"{PRESETS[applied].banding}, threshold {PRESETS[applied].settings.threshold:g}.",
        icon=":material/check_circle:",
    )

for tab, (name, p) in zip(
    st.tabs([short(p) for p in PRESETS.values()]), PRESETS.items(), strict=True
):
    with tab:
        s = p.settings
        st.markdown(f"**{md(p.title)}**")
        left, right = st.columns(2)
        with left:
            st.markdown("**In nearsim's words**")
            st.markdown(
                f"- Banding: **{p.banding}** (b·r = {s.bands * s.rows} of k = {s.num_perm} "
                "signature values)\n"
                f"- Shingles: {md(shingling_words(s))}\n"
                f"- Signature: k = {s.num_perm} hash functions (num\\_perm), hash seed "
                f"{s.hash_seed}\n"
                f"- Threshold: t = {s.threshold:g}. {md(p.threshold_note)}"
            )
        with right:
            st.markdown("**In the peer's own names**")
            st.markdown(f"{md(p.peer_banding)}.")
            st.dataframe(
                pd.DataFrame(p.peer_values, columns=["parameter", "default"]),
                hide_index=True,
                width="stretch",
            )
            st.markdown(
                f"- Shingles: {md(p.shingling)}\n- Normalisation: {md(p.normalisation)}\n"
                f"- Hash family: {md(p.hash_family)}"
            )
        st.markdown("**What does not carry over**")
        st.markdown("\n".join(f"- {md(d)}" for d in p.differences))
        st.markdown("**Sources**")
        st.dataframe(
            pd.DataFrame(
                [(x.repository, x.path, x.version, x.lines, x.what) for x in p.sources],
                columns=["repository", "file", "version", "lines", "what they hold"],
            ),
            hide_index=True,
            width="stretch",
        )
        st.button(
            "Try these settings",
            key=f"try_{name}",
            icon=":material/play_arrow:",
            on_click=apply_preset,
            args=(name,),
            help="Put these settings in the sidebar; every page then shows what they do.",
        )
        if in_use(settings, p):
            st.caption("These are the settings in force.")

st.subheader("Every preset on your documents")
compare_slot = st.container()  # filled at the end: the slow part runs after the rest is drawn

# -- export --------------------------------------------------------------------------------
st.header("Export")
st.markdown(
    "The settings in force, ready to run. `nearsim dedup` applies them to a whole corpus "
    "exactly as this explorer does (one option per setting that differs from its default, "
    "or the same values as one `--settings` link). The peers' configurations use their "
    "own parameter names; under each, what carries over exactly and what differs."
)
if settings.source == "corpus":  # start from the corpus the explorer has open
    paths, label = state.corpus_paths()
    given = launch.corpus_arguments()
    ss.setdefault(INPUT, shlex.join(given.paths) if given.paths else label or "corpus.jsonl")
    ss.setdefault(FIELD, ss.get(state.CORPUS_FIELD) or given.text_field)
ss.setdefault(INPUT, "corpus.jsonl")
ss.setdefault(FIELD, "text")
ss.setdefault(OUT, "dedup_out")
ss.setdefault(VERIFY, "estimate")
boxes = st.columns(3)
boxes[0].text_input(
    "Corpus path",
    key=INPUT,
    help="A file or folder (JSON lines, Parquet, CSV, text); several: separate them by "
    "spaces and quote a path that has spaces.",
)
boxes[1].text_input("Text field", key=FIELD, help="The field or column holding the text.")
boxes[2].text_input("Output folder", key=OUT)
st.radio(
    "Keep a candidate pair when",
    VERIFY_MODES,
    format_func=VERIFY_WORDS.__getitem__,
    key=VERIFY,
    horizontal=True,
    help="nearsim dedup --verify. Trying a preset sets what that peer does.",
)
verify, text_field = ss[VERIFY], ss[FIELD].strip()
try:
    inputs = shlex.split(ss[INPUT])
    options = {
        "text_field": text_field if text_field != "text" else None,
        "verify": verify if verify != "estimate" else None,
    }
    if page is not None and page.docs.source == "corpus":  # the fields chosen on Documents
        options["id_field"] = page.docs.id_field
        options["group_field"] = page.docs.group_field
    command = dedup_command(settings, inputs, ss[OUT].strip(), **options)
    linked = dedup_command(settings, inputs, ss[OUT].strip(), use_settings=True, **options)
except ValueError as exc:  # an empty box, a path that reads as an option, a stray quote
    command = linked = None
    st.warning(f"The command cannot be written from these boxes: {exc}.")
if command is not None:
    st.markdown("**`nearsim dedup`, one option per setting**")
    st.code(command, language="bash", wrap_lines=True)
    st.markdown("**The same, as one `--settings` link**")
    st.code(linked, language="bash", wrap_lines=True)
    st.caption(
        f"{banding_words(settings.bands, settings.rows)} of a {settings.num_perm}-value "
        "signature"
        + (
            " (the tuner's choice: nearsim dedup tunes again from t and k)"
            if settings.auto_tune
            else ""
        )
        + ". Writes clusters, pairs and summary.json in the output folder."
    )

configs = peer_configs(settings, text_field=text_field or "text", verify=verify)
for tab, config in zip(st.tabs([PEER_NAMES[t] for t in configs]), configs.values(), strict=True):
    with tab:
        st.code(config.text, language=config.language)
        same, differs = st.columns(2)
        for column, title, carries in (
            (same, "Carries over exactly", config.exact),
            (differs, "Differs", config.differs),
        ):
            with column:
                st.markdown(f"**{title}**")
                st.markdown(
                    "\n".join(
                        f"- {md(c.setting or '(no setting)')} → `{c.peer}`"
                        + (f" = `{c.value}`" if c.value else "")
                        + (f": {md(c.note)}" if c.note else "")
                        for c in carries
                    )
                    or "- nothing"
                )

# -- sizing --------------------------------------------------------------------------------
st.header("Sizing")
st.markdown(
    "What a run with these settings costs on your whole corpus: the memory of the "
    "signatures and band keys, how many candidate pairs to expect, and the time on this "
    "machine. The candidates come from your documents' own pair similarities, scaled to N."
)


def pick_size() -> None:
    if ss.get(SIZE_PICK) is not None:
        ss[SIZE] = ss[SIZE_PICK]
    ss[SIZE_PICK] = None


def loaded_size() -> int:
    """The whole of what is loaded: a corpus file's record count, else the documents here."""
    if page is None:
        return 10**6
    return int(page.docs.total or page.docs.n)


full = max(SIZE_LOW, loaded_size())
if ss.get("_sizing_for") != (page.docs.digest if page is not None else None):
    ss[SIZE] = full  # a new corpus: start from its own size
    ss["_sizing_for"] = page.docs.digest if page is not None else None
ss.setdefault(SIZE, full)  # the box's value is dropped on pages that do not draw it
size_cols = st.columns([2, 3])
size_cols[0].number_input(
    "Documents in the corpus, N",
    key=SIZE,
    step=1000,
    help=f"10³ … 10¹⁰ documents; it starts at the size of what you loaded ({full:,}).",
)
size_cols[1].segmented_control(
    "Or pick",
    [10**e for e in range(4, 11)],
    format_func=power,
    key=SIZE_PICK,
    on_change=pick_size,
)


@st.cache_resource(show_spinner="Measuring this machine's speed on generated documents…")
def throughput(num_perm: int, bands: int, rows: int):
    """Measured once per server for each signature length and banding."""
    return measure_throughput(THROUGHPUT_DOCS, num_perm=num_perm, b=bands, r=rows)


def machine_memory() -> int:
    """This machine's memory in bytes."""
    import os

    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def run_words(plan, n: int) -> str:
    """What ``nearsim dedup`` would do at N, in two or three sentences."""
    size = humanize.naturalsize
    words = (
        f"**What `nearsim dedup` would do at N = {n:,}.** The local engine would need about "
        f"**{size(plan.local_bytes)}** at its peak; this machine has "
        f"{size(plan.machine_bytes)}. "
    )
    if plan.guard_stops:
        words += (
            f"Its candidate guard (`--max-candidates`, {MAX_CANDIDATES:,}) would stop it "
            "before banding: use more rows per band, a higher t, or raise the guard if the "
            "memory is there. "
        )
    if plan.engine == "local":
        words += "That fits: run it here (`--engine local`, the default)."
    else:
        words += (
            "That is more than half of it: run it on a cluster with `--engine dask "
            f"--scheduler ADDRESS`; the machine running the command still needs about "
            f"{size(plan.dask_client_bytes)} for every document's id and cluster."
        )
    return words


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:,.1f} s"
    return humanize.naturaldelta(timedelta(seconds=seconds))


n_big = ss[SIZE]
if not SIZE_LOW <= n_big <= SIZE_HIGH:
    st.warning(
        f"N = {n_big:,} documents is outside what this view sizes: type a corpus size from "
        f"{SIZE_LOW:,} (10³) to {SIZE_HIGH:,} (10¹⁰) documents."
    )
elif page is None:
    st.info(f"Sizing scales your documents' pair similarities to N. {why}")
else:
    k, b, r, t = settings.num_perm, settings.bands, settings.rows, settings.threshold
    speeds = throughput(k, b, r)
    similarity, weight = similarity_weights(page.run.get("sample"))
    table = sizing(
        charts_export.size_grid(n_big), similarity, weight, corpus_docs=page.docs.n,
        num_perm=k, b=b, r=r, threshold=t, throughput=speeds,
    )  # fmt: skip
    row = table[table["documents"] == n_big].iloc[0]
    m = st.columns(4)
    m[0].metric(
        "Signature memory",
        humanize.naturalsize(row.signature_bytes),
        help="4·k bytes per document.",
    )
    m[1].metric(
        "Band-key memory",
        humanize.naturalsize(row.band_key_bytes_peak),
        help="8 bytes per document for the band in hand (one band at a time); "
        f"{humanize.naturalsize(row.band_key_bytes_all)} to hold all {b} bands at once.",
    )
    m[2].metric("Expected candidate pairs", f"{row.candidates:,.0f}")
    m[3].metric(
        "Time on this machine",
        duration(row.total_seconds),
        help="Estimated from the speeds measured here (below), on one machine.",
    )
    st.caption(
        f"For N = {n_big:,} documents with {banding_words(b, r)} of a {k}-value signature: "
        f"every band at once needs {humanize.naturalsize(row.band_key_bytes_all)} of band keys; "
        f"{row.candidates_near:,.0f} expected candidates among near duplicates and "
        f"{row.candidates_background:,.0f} among unrelated documents "
        f"({humanize.naturalsize(row.candidate_bytes)} at 16 bytes a pair), of which about "
        f"{row.true_pairs:,.0f} pairs have J ≥ {t:g}. Time: signatures "
        f"{duration(row.signature_seconds)}, banding {duration(row.band_seconds)}, estimate "
        f"filter {duration(row.verify_seconds)}."
    )
    plan = run_plan(n_big, k, row.candidates, machine_memory(), MAX_CANDIDATES)
    st.markdown(run_words(plan, n_big))
    st.markdown(
        f"**The model.** Your {page.docs.n:,} documents' pairs are split at similarity 0.5: "
        "near duplicates above it come from copying, so their number grows in proportion to "
        "N; the rest are unrelated documents, whose pairs grow with N(N − 1). Each pair "
        "becomes a candidate with probability 1 − (1 − s^r)^b. This assumes your documents "
        "are a uniform sample of the corpus; when copies of copies are common, clusters grow "
        "with N and the near-duplicate part is a lower bound."
    )
    drawing.chart(charts_export.memory_chart, table, n_big)
    st.caption("Memory against corpus size, both axes logarithmic; the dashed rule is your N.")
    drawing.chart(charts_export.time_chart, table, n_big)
    st.caption("Time of each step against corpus size, both axes logarithmic.")
    st.caption(
        f"Speeds measured on this machine once per server for each signature length and "
        f"banding: {THROUGHPUT_DOCS:,} generated documents (character 5-grams), each step "
        "run once to load its compiled code and then three times, the fastest kept — "
        f"{speeds.signatures_per_second:,.0f} signatures, "
        f"{speeds.band_keys_per_second:,.0f} document-bands and "
        f"{speeds.verifications_per_second:,.0f} estimated pairs per second, on one machine "
        "shared with whatever else it runs. Longer documents take longer to sign."
    )


# -- every preset on your documents (last: it is the slow part) -----------------------------
def _shared(memo: dict):
    """A fetch for pipeline.Runner that keeps each stage once per stage key in ``memo``, so
    presets with the same shingling share shingles, and with the same threshold too, one
    exact join."""

    def fetch(stage: str, runner: pipeline.Runner):
        key = (stage, *runner.key(stage))
        if key not in memo:
            memo[key] = runner.compute(stage)
        return memo[key]

    return fetch


SCORE_COLUMNS = {
    "candidates": "candidates",
    "true_pairs": "true pairs",
    "recall": "recall",
    "precision": "precision",
    "accepted": "kept",
    "recall_filtered": "recall kept",
    "precision_filtered": "precision kept",
}
PERCENTS = ("recall", "precision", "recall kept", "precision kept")


def _scores(ev) -> dict:
    """The comparison's columns of one evaluation (shares in per cent)."""
    values = {name: getattr(ev, attr) for attr, name in SCORE_COLUMNS.items()}
    return {k: 100 * v if k in PERCENTS else v for k, v in values.items()}


@st.cache_data(max_entries=64, show_spinner=False)
def preset_scores(digest: str, key: tuple, _texts: list, _settings: Settings, _memo: dict):
    """One preset's scores on these documents, computed through the pipeline's stages in a
    private memo (not the pages' stage caches: six presets' signatures and Spark's
    millions of candidates would push out the stages of the settings in force)."""
    runner = pipeline.Runner(_texts, _settings, fetch=_shared(_memo), digest=digest)
    try:
        return _scores(runner.get("evaluation"))
    except ValueError as exc:  # too many candidate pairs, ...: said in the row, and cached
        return {"note": str(exc)}


@st.cache_data(max_entries=4, show_spinner=False)
def preset_documents(digest: str, _texts: list) -> tuple[list, str, int]:
    """The documents the presets are scored on (:func:`scoring_subset`), their digest and
    how many."""
    rows = scoring_subset([len(t) for t in _texts])
    if rows.size == len(_texts):
        return _texts, digest, len(_texts)
    texts = [_texts[i] for i in rows]
    return texts, pipeline.digest(texts), len(texts)


with compare_slot:
    st.markdown(
        "Each preset's settings run on your documents: how many candidate pairs its banding "
        "makes, how many of the true pairs (exact J ≥ its t) it finds, and what share of its "
        "candidates are true — before and after the estimate filter (keep a candidate when "
        "its MinHash estimate ≥ t). Scores are measured on nearsim's shingles and hash "
        "functions, so a peer's own tokeniser and hash family can score a little differently."
    )
    if page is None:
        st.info(why)
    else:
        rows, memo = [], {}
        texts, digest, scored = preset_documents(page.docs.digest, page.docs.texts)
        if scored == page.docs.n:
            try:
                current = _scores(page.run.get("evaluation"))
            except ValueError as exc:
                current = {"note": str(exc)}
        else:  # the settings in force on the same subset, for a fair comparison
            # its shingles taken from the pages' own (cut once for all the documents)
            rows_used = scoring_subset([len(x) for x in page.docs.texts])
            flat = take_documents(page.run.get("shingles").flat, rows_used)
            memo[("shingles", digest, pipeline.stage_key(settings, "shingles"))] = (
                pipeline.Shingled(flat, np.diff(flat.doc_offsets))
            )
            current = preset_scores(
                digest, pipeline.stage_key(settings, "evaluation"), texts, settings, memo
            )
        rows.append(
            {
                "settings": "in force",
                "b × r": f"{settings.bands} × {settings.rows}",
                "t": settings.threshold,
                **current,
            }
        )
        progress = st.empty()
        joins = set()
        for i, p in enumerate(PRESETS.values()):
            s = p.apply(settings)
            progress.progress(i / len(PRESETS), text=f"Scoring {short(p)}'s defaults…")
            joins.add(pipeline.stage_key(s, "exact"))
            scores = preset_scores(digest, pipeline.stage_key(s, "evaluation"), texts, s, memo)
            label = short(p).split(" near_")[0] + (" (in force)" if in_use(settings, p) else "")
            rows.append(
                {"settings": label, "b × r": f"{s.bands} × {s.rows}", "t": s.threshold, **scores}
            )
        progress.empty()
        table = pd.DataFrame(rows)
        pct = st.column_config.NumberColumn(format="%.1f%%")
        count = st.column_config.NumberColumn(format="localized")
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config={
                "t": st.column_config.NumberColumn("t", format="%.2f"),
                **{c: count for c in ("candidates", "true pairs", "kept")},
                **{c: pct for c in PERCENTS},
            },
        )
        st.caption(
            (
                f"On {page.docs.n:,} documents"
                if scored == page.docs.n
                else f"On a seeded random {scored:,} of the {page.docs.n:,} documents (whole "
                f"documents, at most {PRESET_CHARACTERS:,} characters: every preset shingles, "
                "signs and joins them again, which on all of these long documents would take "
                "minutes; pairs count only when both documents are drawn)"
            )
            + "; b × r: b bands of r rows each; kept: the "
            "candidates whose estimate ≥ t, and their recall and precision. The exact join "
            "(the true pairs) depends only on the shingling and the threshold, so presets "
            "that share both share one join: "
            f"{len(joins)} joins for {len(PRESETS)} presets. An empty score: no true pair or "
            "no candidate to divide by."
        )
