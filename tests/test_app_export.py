"""The Presets & export page with streamlit.testing.v1.AppTest: every preset applied to the
sidebar, the commands and peer configurations for the settings in force, sizing at several
N and a bad N, and every state of the documents (none, few, the Example, CSV, a corpus)."""

from __future__ import annotations

import json
import re
import shlex

import humanize
import pytest
from streamlit.testing.v1 import AppTest
from test_app import APP, ROOT, metrics, no_errors

import nearsim as ns
from nearsim.explore.export import dedup_command, peer_configs
from nearsim.explore.sizing import sizing
from nearsim.pipeline import Runner
from nearsim.prediction import similarity_weights
from nearsim.settings import FIELD_SPECS, Settings

PAGE = "pages/views/export.py"
SMALL = {"n_docs": "300"}
SIDEBAR_WIDGETS = {
    "shingle_kind": "radio",
    "shingle_k": "number_input",
    "lowercase": "toggle",
    "remove_punctuation": "toggle",
    "collapse_whitespace": "toggle",
    "min_shingles": "number_input",
    "num_perm": "number_input",
    "hash_seed": "number_input",
    "sketch": "radio",
    "threshold": "slider",
    "auto_tune": "toggle",
    "bands": "number_input",
    "rows": "number_input",
}
PASTED = (
    "The council approved the new budget on Monday after a long debate.\n"
    "The council approved the new budget on Monday after a long debate!\n"
    "A storm closed the harbour for two days and the ferries stayed in port."
)


def export_page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in (SMALL if query is None else query).items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    return at


def sidebar_settings(at: AppTest) -> Settings:
    """The Settings the sidebar's widgets hold (session state keyed by the field names)."""
    return Settings(**{name: at.session_state[name] for name in FIELD_SPECS})


def unescape(markdown: str) -> str:
    """Markdown's backslash escapes undone (the page escapes $, ~, ` ... in its texts)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def main_code(at: AppTest) -> list[str]:
    return [c.value for c in at.main.code]


def comparison(at: AppTest):
    (table,) = [d.value for d in at.dataframe if "candidates" in d.value.columns]
    return table


def test_page_draws_every_section():
    at = export_page()
    no_errors(at)
    assert at.title[0].value == "Presets & export"
    assert at.markdown[0].value  # opens with plain sentences on what it shows
    assert [h.value for h in at.header] == ["Presets", "Export", "Sizing"]
    assert [b.key for b in at.main.button] == [f"try_{name}" for name in ns.PRESETS]
    assert all(b.label == "Try these settings" for b in at.main.button)
    table = comparison(at)
    assert table["settings"].tolist() == [
        "in force", "datatrove", "NeMo Curator", "text-dedup", "data-juicer", "BigCode",
        "Spark MLlib",
    ]  # fmt: skip
    assert table["b × r"].tolist()[1:] == [
        f"{p.settings.bands} × {p.settings.rows}" for p in ns.PRESETS.values()
    ]
    assert len(at.get("vega_lite_chart")) == 2  # memory and time against N


def test_comparison_table_is_each_presets_evaluation():
    """Each row is the pipeline's evaluation of that preset's settings on these documents."""
    at = export_page()
    table = comparison(at).set_index("settings")
    texts = ns.example_corpus(300, seed=0)["text"].tolist()
    current = Settings(n_docs=300)
    for label, p in zip(table.index[1:], ns.PRESETS.values(), strict=True):
        ev = Runner(texts, p.apply(current)).get("evaluation")
        row = table.loc[label]
        assert (row["candidates"], row["true pairs"], row["kept"]) == (
            ev.candidates, ev.true_pairs, ev.accepted,
        )  # fmt: skip
        assert row["t"] == p.settings.threshold
        for column, value in (("recall", ev.recall), ("precision kept", ev.precision_filtered)):
            assert row[column] == pytest.approx(100 * value, nan_ok=True)
    ev = Runner(texts, current).get("evaluation")
    assert table.loc["in force", "candidates"] == ev.candidates
    assert any("joins for 6 presets" in c.value for c in at.caption)


@pytest.mark.parametrize("name", list(ns.PRESETS))
def test_every_preset_applied_shows_its_values_in_the_sidebar(name):
    p = ns.preset(name)
    at = export_page({"n_docs": "300", "threshold": "0.6", "simhash_distance": "5"})
    at.button(key=f"try_{name}").click().run()
    no_errors(at)
    for field, kind in SIDEBAR_WIDGETS.items():
        widget = getattr(at.sidebar, kind)(key=field)
        assert widget.value == getattr(p.settings, field), field
    assert at.sidebar.number_input(key="n_docs").value == 300  # the documents stay
    assert sidebar_settings(at).simhash_distance == 5
    assert sidebar_settings(at) == p.apply(Settings(n_docs=300, simhash_distance=5))
    assert any(p.banding in s.value for s in at.success)
    assert not at.warning  # applying a preset is not a tampered link
    # the command keeps candidates as the peer does, and names the preset's values
    assert at.radio(key="export_verify").value == p.verify
    expected = dedup_command(
        sidebar_settings(at), ["corpus.jsonl"], "dedup_out",
        verify=None if p.verify == "estimate" else p.verify,
    )  # fmt: skip
    assert main_code(at)[0] == expected
    assert f"--auto-tune false --bands {p.settings.bands}" in expected
    assert (f"--rows {p.settings.rows}" in expected) is (p.settings.rows != 13)  # 13: default
    table = comparison(at)
    assert table["settings"].str.endswith("(in force)").sum() == 1
    assert any("settings in force" in c.value for c in at.caption)
    # and every other page works on them
    at.switch_page("pages/views/results.py").run()
    no_errors(at)


def test_command_matches_dedup_command_for_the_settings_in_force():
    at = export_page({"n_docs": "300", "threshold": "0.6", "shingle_kind": "word"})
    at.text_input(key="export_input").input("'my corpus/part 1.jsonl' more.parquet").run()
    at.text_input(key="export_text_field").input("body").run()
    at.text_input(key="export_out").input("out dir").run()
    at.radio(key="export_verify").set_value("exact").run()
    no_errors(at)
    settings = sidebar_settings(at)
    assert settings.threshold == 0.6 and settings.shingle_kind == "word"
    args = (settings, ["my corpus/part 1.jsonl", "more.parquet"], "out dir")
    options = {"text_field": "body", "verify": "exact"}
    options_form, link_form = main_code(at)[:2]
    assert options_form == dedup_command(*args, **options)
    assert link_form == dedup_command(*args, use_settings=True, **options)
    assert shlex.split(options_form)[2:4] == ["my corpus/part 1.jsonl", "more.parquet"]
    # the peers' configurations are the library's, for the same settings and field
    shown = main_code(at)[2:]
    configs = peer_configs(settings, text_field="body", verify="exact")
    assert shown == [c.text.rstrip("\n") for c in configs.values()]
    # the sidebar's Share popover shows the same settings as a command
    assert dedup_command(settings) in [c.value for c in at.sidebar.code]


def test_defaults_leave_the_default_options_out():
    at = export_page()
    assert main_code(at)[:2] == ["nearsim dedup corpus.jsonl --out dedup_out"] * 2


@pytest.mark.parametrize(
    ("box", "typed", "said"),
    [
        ("export_input", "-x.jsonl", "write ./-x.jsonl"),
        ("export_input", "'unclosed", "No closing quotation"),
        ("export_input", "  ", "a non-empty list of paths"),
        ("export_out", "", "out='' is not accepted"),
    ],
)
def test_a_bad_box_is_a_message_not_a_command(box, typed, said):
    at = export_page()
    at.text_input(key=box).input(typed).run()
    no_errors(at)
    assert any(said in w.value for w in at.warning), [w.value for w in at.warning]
    assert not any(c.startswith("nearsim dedup") for c in main_code(at))
    assert len(main_code(at)) == 4  # the peers' configurations are still there


def test_each_peer_lists_what_carries_over_and_what_differs():
    at = export_page()
    configs = peer_configs(Settings(n_docs=300))
    lists = [m.value for m in at.main.markdown if m.value.startswith("- ")]
    for config in configs.values():
        for carry in (*config.exact, *config.differs):
            assert any(f"`{carry.peer}`" in text for text in lists), (config.tool, carry)


@pytest.mark.parametrize("name", list(ns.PRESETS))
def test_every_source_of_every_preset_is_listed(name):
    at = export_page()
    p = ns.preset(name)
    tables = [d.value for d in at.dataframe if "repository" in d.value.columns]
    listed = tables[list(ns.PRESETS).index(name)]
    assert listed[["repository", "file", "version", "lines"]].values.tolist() == [
        [s.repository, s.path, s.version, s.lines] for s in p.sources
    ]
    names = [d.value for d in at.dataframe if "parameter" in d.value.columns]
    assert names[list(ns.PRESETS).index(name)].values.tolist() == [list(v) for v in p.peer_values]
    shown = "\n".join(unescape(m.value) for m in at.markdown)
    for difference in p.differences:
        assert f"- {difference}\n" in shown + "\n"


def expected_sizing(n: int, settings: Settings, n_docs: int = 300):
    texts = ns.example_corpus(n_docs, seed=0)["text"].tolist()
    s, w = similarity_weights(Runner(texts, settings).get("sample"))
    return sizing(
        n, s, w, corpus_docs=n_docs, num_perm=settings.num_perm, b=settings.bands,
        r=settings.rows, threshold=settings.threshold,
    ).iloc[0]  # fmt: skip


@pytest.mark.parametrize("n", [10**6, 123_456_789, 10**10])
def test_sizing_at_several_n(n):
    at = export_page()
    at.number_input(key="sizing_n").set_value(n).run()
    no_errors(at)
    row = expected_sizing(n, Settings(n_docs=300))
    shown = metrics(at)
    assert shown["Signature memory"] == humanize.naturalsize(4 * 128 * n)
    assert shown["Band-key memory"] == humanize.naturalsize(8 * n)
    assert shown["Expected candidate pairs"] == f"{row.candidates:,.0f}"
    assert shown["Time on this machine"]
    assert any(f"For N = {n:,} documents" in c.value for c in at.caption)
    assert any("Speeds measured on this machine" in c.value for c in at.caption)
    assert any("grows in proportion to N" in m.value for m in at.markdown)  # the model


def test_powers_of_ten_pick_n_and_settings_change_the_sizing():
    at = export_page()
    at.segmented_control(key="sizing_pick").set_value(10**9).run()
    assert at.number_input(key="sizing_n").value == 10**9
    assert at.segmented_control(key="sizing_pick").value is None  # a pick, not a state
    assert metrics(at)["Signature memory"] == humanize.naturalsize(4 * 128 * 10**9)
    at.number_input(key="num_perm").set_value(256).run()
    no_errors(at)
    assert metrics(at)["Signature memory"] == humanize.naturalsize(4 * 256 * 10**9)


@pytest.mark.parametrize("n", [5, 999, 10**10 + 1, 10**15])
def test_bad_n_is_a_clear_message(n):
    at = export_page()
    at.number_input(key="sizing_n").set_value(n).run()
    no_errors(at)
    (warning,) = at.warning
    assert f"N = {n:,} documents is outside" in warning.value
    assert "1,000 (10³) to 10,000,000,000 (10¹⁰)" in warning.value
    assert "Signature memory" not in metrics(at)
    at.number_input(key="sizing_n").set_value(10**7).run()  # and a good one brings it back
    assert not at.warning and "Signature memory" in metrics(at)


# -- every state of the documents ---------------------------------------------------------
def test_no_documents_still_gives_presets_and_export():
    at = export_page({"source": "paste"})
    no_errors(at)
    assert [b.key for b in at.main.button] == [f"try_{name}" for name in ns.PRESETS]
    assert main_code(at)[0] == "nearsim dedup corpus.jsonl --out dedup_out"  # no --source
    infos = [i.value for i in at.info]
    assert len(infos) == 2 and all("Paste some text" in i for i in infos)  # table, sizing
    assert not [d for d in at.dataframe if "candidates" in d.value.columns]
    at.button(key="try_nemo_curator").click().run()  # presets work without documents
    no_errors(at)
    assert at.sidebar.number_input(key="num_perm").value == 260
    assert at.sidebar.radio(key="source").value == "paste"


def test_few_pasted_documents():
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["source"] = "paste"
    at.run()
    at.text_area(key="paste_text").input(PASTED).run()
    at.switch_page(PAGE).run()
    no_errors(at)
    table = comparison(at)
    assert table.loc[0, "true pairs"] == 1  # the two council texts
    assert metrics(at)["Expected candidate pairs"]
    assert any("Your 3 documents' pairs" in m.value for m in at.markdown)


def test_the_example_at_2000_documents():
    at = export_page({})
    no_errors(at)
    assert len(comparison(at)) == 7
    assert any("On 2,000 documents" in c.value for c in at.caption)
    assert any("Your 2,000 documents' pairs" in m.value for m in at.markdown)


def test_csv_source():
    data = (ROOT / "sample_data" / "job_posts.csv").read_bytes()
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["source"] = "csv"
    at.run()
    at.get("file_uploader")[0].upload("job_posts.csv", data, "text/csv").run()
    at.switch_page(PAGE).run()
    no_errors(at)
    assert any("On 27 documents" in c.value for c in at.caption)


def test_corpus_source_starts_the_command_from_the_open_corpus(tmp_path):
    texts = ns.example_corpus(300, seed=3)["text"].tolist()
    data = "".join(json.dumps({"id": i, "body": t}) + "\n" for i, t in enumerate(texts))
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["source"] = "corpus"
    at.run()
    at.get("file_uploader")[0].upload("news.jsonl", data.encode(), "application/json").run()
    at.selectbox(key="corpus_text_field").set_value("body").run()
    at.switch_page(PAGE).run()
    no_errors(at)
    assert at.text_input(key="export_input").value == "news.jsonl"
    assert at.text_input(key="export_text_field").value == "body"
    assert main_code(at)[0] == "nearsim dedup news.jsonl --out dedup_out --text-field body"
    assert any("On 300 documents" in c.value for c in at.caption)


def test_on_a_subset_the_row_in_force_is_its_evaluation_on_that_subset(monkeypatch):
    """Long documents: presets are scored on a seeded subset, and the row of the settings
    in force (its shingles taken from the pages' own) is the pipeline's evaluation of
    those settings on that subset of documents alone."""
    import streamlit as st

    from nearsim.explore import presets

    real = presets.scoring_subset
    monkeypatch.setattr(presets, "scoring_subset", lambda lengths: real(lengths, 20_000))
    st.cache_data.clear()
    try:
        at = export_page()
        no_errors(at)
        table = comparison(at).set_index("settings")
        texts = ns.example_corpus(300, seed=0)["text"].tolist()
        rows = real([len(x) for x in texts], 20_000)
        assert 2 < rows.size < 300
        ev = Runner([texts[i] for i in rows], Settings(n_docs=300)).get("evaluation")
        row = table.loc["in force"]
        assert (row["candidates"], row["true pairs"], row["kept"]) == (
            ev.candidates, ev.true_pairs, ev.accepted,
        )  # fmt: skip
        assert any(f"On a seeded random {rows.size:,} of the 300" in c.value for c in at.caption)
    finally:
        st.cache_data.clear()
