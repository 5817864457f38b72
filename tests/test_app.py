"""App logic with streamlit.testing.v1.AppTest: every page, widgets, links, sources."""

from __future__ import annotations

import ast
import html
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = [
    ("pages/views/documents.py", "Documents"),
    ("pages/views/minhash.py", "Shingles & MinHash"),
    ("pages/views/banding.py", "Banding"),
    ("pages/views/results.py", "Results"),
    ("pages/views/clusters.py", "Clusters"),
    ("pages/views/compare.py", "Compare: SimHash"),
    ("pages/views/query.py", "Query"),
]
SMALL = {"n_docs": "300"}


def app(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in (query or SMALL).items():
        at.query_params[key] = value
    return at


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def drew_figures(at: AppTest) -> int:
    """How many metrics, tables, charts, code blocks and shingle lists the main area holds."""
    shingles = [m for m in at.main.markdown if 'data-testid="nearsimShingles"' in m.value]
    return (
        len(at.main.metric)
        + len(at.main.dataframe)
        + len(at.main.get("vega_lite_chart"))
        + len(at.main.get("code"))
        + len(shingles)
    )


SCRIPTS = [
    "app.py",
    "pages/explorer/main.py",  # the main script of an installed copy
    *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("pages/views/*.py")),
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_no_page_script_draws_by_magic(script):
    """Streamlit's magic draws a bare expression as if passed to st.write: a note written as a
    string under a constant appeared on the MinHash page as text. Every page calls Streamlit
    for what it draws, and the config turns magic off; here Streamlit's own magic pass must
    also find nothing to draw in any page script."""
    from streamlit.runtime.scriptrunner.magic import MAGIC_MODULE_NAME, add_magic

    tree = add_magic((ROOT / script).read_text(), script)
    drawn = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == MAGIC_MODULE_NAME
    ]
    assert drawn == [], f"{script}: magic would draw the expressions on lines {drawn}"


def test_the_config_turns_magic_off_and_keeps_usage_statistics_home():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["magicEnabled"] is False
    assert config["browser"]["gatherUsageStats"] is False


@pytest.mark.parametrize(("path", "title"), PAGES)
def test_every_page_renders(path, title):
    at = app()
    at.run()
    at.switch_page(path).run()
    no_errors(at)
    assert at.title[0].value == title
    assert len(at.sidebar.toggle) >= 4  # the settings sidebar is drawn on every page
    assert at.markdown[0].value  # each view opens with plain sentences on what it shows


def test_query_parameters_seed_the_settings():
    at = app({"n_docs": "300", "threshold": "0.6", "shingle_kind": "word", "shingle_k": "2"})
    at.run()
    assert at.slider(key="threshold").value == 0.6
    assert at.radio(key="shingle_kind").value == "word"
    assert at.number_input(key="shingle_k").value == 2
    at.switch_page("pages/views/banding.py").run()
    no_errors(at)
    assert not at.warning


def test_tampered_link_gives_one_warning_listing_the_resets():
    at = app(
        {
            "n_docs": "300",
            "num_perm": "-5",
            "bands": "abc",
            "threshold": "2",
            "source": "<script>alert(1)</script>",
            "unknown_key": "x",
        }
    )
    at.run()
    assert len(at.warning) == 1
    text = at.warning[0].value
    for field in ("num_perm", "threshold", "source"):
        assert field in text
    assert "<script>" not in text
    assert "unknown_key" not in text
    assert at.number_input(key="num_perm").value == 128
    assert at.slider(key="threshold").value == 0.8
    assert at.radio(key="source").value == "example"
    no_errors(at)


def test_threshold_moves_the_tuned_banding():
    at = app()
    at.run()
    at.switch_page("pages/views/banding.py").run()
    assert metrics(at)["Bands × rows per band"] == "9 × 13"
    at.slider(key="threshold").set_value(0.5).run()
    no_errors(at)
    assert metrics(at)["Bands × rows per band"] == "25 × 5"


def test_manual_banding_keeps_bands_times_rows_within_k():
    at = app()
    at.run()
    at.toggle(key="auto_tune").set_value(False).run()
    # the manual choice starts from the tuner's
    assert (at.number_input(key="bands").value, at.number_input(key="rows").value) == (9, 13)
    at.number_input(key="rows").set_value(20).run()
    assert at.number_input(key="bands").value == 6  # 128 // 20
    assert any("Bands lowered to 6" in i.value for i in at.sidebar.info)
    at.number_input(key="num_perm").set_value(64).run()
    assert at.number_input(key="bands").value * at.number_input(key="rows").value <= 64
    at.switch_page("pages/views/results.py").run()
    no_errors(at)


def test_banding_change_changes_results():
    at = app()
    at.run()
    at.switch_page("pages/views/results.py").run()
    before = metrics(at)["Candidate pairs"]
    at.toggle(key="auto_tune").set_value(False).run()
    at.number_input(key="bands").set_value(40).run()
    at.number_input(key="rows").set_value(3).run()
    no_errors(at)
    assert metrics(at)["Candidate pairs"] != before


def test_too_many_candidates_is_a_message_next_to_the_banding_inputs(monkeypatch):
    """Banding that would give more candidate pairs than the limit is a message next to the
    banding inputs and on the page, not a traceback and not numbers.

    The explorer's limit is candidate_pairs' default max_pairs (20,000,000); reaching it
    for real needs over 6,300 documents in one bucket of a band, too slow for this test.
    So the default is lowered to 1,000 here (AppTest runs the scripts in this process, so
    the app's candidate stage sees it). On the 300-document Example the tuned 9 × 13
    banding gives 32 candidates, under the limit; 128 × 1 gives 38,628, over it.
    """
    from streamlit import cache_resource

    from nearsim.banding import candidate_pairs

    monkeypatch.setitem(candidate_pairs.__kwdefaults__, "max_pairs", 1_000)
    cache_resource.clear()  # no stage computed under the real limit by an earlier test
    at = app()
    at.run()
    at.switch_page("pages/views/results.py").run()
    no_errors(at)
    assert metrics(at)["Candidate pairs"] == "32"
    at.toggle(key="auto_tune").set_value(False).run()
    at.number_input(key="rows").set_value(1).run()
    at.number_input(key="bands").set_value(128).run()
    assert not at.exception
    beside = [html.unescape(e.value) for e in at.sidebar.error]  # shown as text
    assert len(beside) == 1, beside
    assert "banding b=128, r=1 would give more than 1,000 candidate pairs" in beside[0]
    page = [html.unescape(e.value) for e in at.main.error]
    assert page == [f"These settings cannot be used on these documents: {beside[0]}"]
    assert "Candidate pairs" not in metrics(at)


def test_paste_source():
    at = app({"source": "paste"})
    at.run()
    assert any("Paste some text" in i.value for i in at.info)
    at.text_area(key="paste_text").input(
        "The council approved the new budget on Monday.\n"
        "The council approved the new budget on Monday!\n"
        "A storm closed the harbour for two days."
    ).run()
    no_errors(at)
    assert metrics(at)["Documents"] == "3"
    at.switch_page("pages/views/results.py").run()
    no_errors(at)
    assert metrics(at)["True pairs (exact J ≥ t)"] == "1"


def test_the_shingles_tab_lists_the_documents_shingles_as_text_never_as_html():
    """The list is drawn as HTML (a code block's highlighter cost the browser 0.25 s on the
    page's first visit), so every shingle must be escaped: text that looks like a tag is
    shown, not obeyed."""
    from nearsim import shingles

    text = "<b>bold</b> & <script>alert(1)</script> x"
    at = app({"source": "paste", "shingle_k": "3", "min_shingles": "0"})
    at.run()
    at.text_area(key="paste_text").input(f"a first line\n{text}").run()
    at.switch_page("pages/views/minhash.py").run()
    no_errors(at)
    [block] = [m.value for m in at.main.markdown if "nearsimShingles" in m.value]
    expected = [s.replace(" ", "␣") for s in shingles(text, k=3)]
    body = block.split(">", 1)[1].rsplit("</div>", 1)[0]
    assert html.unescape(body).split(" · ") == expected
    assert "<" not in body and ">" not in body  # every tag-like piece escaped


def test_one_pasted_document_is_explained_not_an_error():
    at = app({"source": "paste"})
    at.run()
    at.text_area(key="paste_text").input("only one line").run()
    assert not at.exception
    assert any("at least two documents" in i.value for i in at.info)


def test_csv_source_with_column_picker():
    data = (ROOT / "sample_data" / "job_posts.csv").read_bytes()
    at = app({"source": "csv"})
    at.run()
    at.get("file_uploader")[0].upload("job_posts.csv", data, "text/csv").run()
    assert at.selectbox(key="csv_column").options
    at.selectbox(key="csv_column").set_value("description").run()
    no_errors(at)
    assert metrics(at)["Documents"] == "27"
    at.switch_page("pages/views/clusters.py").run()
    no_errors(at)


def test_csv_defaults_to_the_text_column_and_survives_every_page():
    """Issue 9, defect 1: the column was a widget key, dropped on pages that do not draw
    it, so every other page asked for a CSV and Documents fell back to "id"."""
    data = (ROOT / "sample_data" / "job_posts.csv").read_bytes()
    at = app({"source": "csv"})
    at.run()
    at.get("file_uploader")[0].upload("job_posts.csv", data, "text/csv").run()
    assert at.selectbox(key="csv_column").value == "description"  # the most text-like
    assert metrics(at)["Documents"] == "27"
    for path, _ in PAGES[1:]:
        at.switch_page(path).run()
        no_errors(at)
        assert not any("Upload a CSV" in i.value for i in at.info), path
        assert drew_figures(at), f"{path} drew no figures from the CSV's documents"
    at.switch_page("pages/views/documents.py").run()
    no_errors(at)
    assert at.selectbox(key="csv_column").value == "description"
    assert metrics(at)["Documents"] == "27"
    assert any("job_posts.csv" in html.unescape(c.value) for c in at.caption)  # the file in use


def test_bad_csv_is_a_message():
    at = app({"source": "csv"})
    at.run()
    at.get("file_uploader")[0].upload("broken.csv", b"\x89PNG\r\n\x1a\n\x00\x00", "text/csv").run()
    assert not at.exception
    assert at.error and "broken.csv" in html.unescape(at.error[0].value)


def test_files_source_reads_html_visible_text():
    site = ROOT / "sample_data" / "site"
    files = [(p.name, p.read_bytes(), "text/html") for p in sorted(site.glob("*.html"))]
    files.append(("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00", "text/plain"))  # renamed
    at = app({"source": "files"})
    at.run()
    at.get("file_uploader")[0].set_value(files).run()
    assert not at.exception
    assert metrics(at)["Documents"] == str(len(files) - 1)
    assert any("photo.txt" in html.unescape(w.value) for w in at.warning)
    at.switch_page("pages/views/results.py").run()
    no_errors(at)
    assert metrics(at)["True pairs (exact J ≥ t)"] == "1"  # the page published twice


def test_share_link_carries_settings_only():
    at = app({"source": "paste", "threshold": "0.7"})
    at.run()
    at.text_area(key="paste_text").input("secret text one\nsecret text two").run()
    link = at.sidebar.get("code")[0].value
    assert "threshold=0.7" in link and "source=paste" in link
    assert "secret" not in link


def test_clusters_check_detaches_members():
    at = app({"n_docs": "2000", "threshold": "0.5"})
    at.run()
    at.switch_page("pages/views/clusters.py").run()
    no_errors(at)
    at.toggle(key="cluster_check").set_value(True).run()
    no_errors(at)
    assert "Members taken out by the check" in metrics(at)


def test_compare_page_shows_the_seed_000_lesson():
    at = app()
    at.run()
    at.switch_page("pages/views/compare.py").run()
    no_errors(at)
    m = metrics(at)
    ours = float(m["Ours: mean distance of 100 documents"].split()[0])
    broken = float(m["The job board's broken hash: mean distance of 100 documents"].split()[0])
    assert ours > broken + 8


@pytest.mark.parametrize("n_docs", ["300", "3000"])
def test_results_estimate_tab_works_on_the_example(n_docs):
    """Issue 9, defect 2: under pandas 3 ``to_numpy()`` of a reindexed Series is
    read-only, and the tab wrote into it ("assignment destination is read-only")."""
    at = app({"n_docs": n_docs})
    at.run()
    at.switch_page("pages/views/results.py").run()
    at.session_state["results_tab"] = "Estimate against exact"
    at.run()
    no_errors(at)
    assert any("estimate against its exact similarity" in c.value for c in at.caption)


def test_link_with_bands_times_rows_over_k_is_repaired_once_and_kept():
    """Issue 9, defect 3: the warning said 20 × 6, the sidebar showed 20 and 10 with a red
    "Using the defaults", the page computed 9 × 13, and Share lost the manual choice."""
    at = app({"n_docs": "300", "auto_tune": "false", "bands": "20", "rows": "10"})
    at.run()
    at.switch_page("pages/views/banding.py").run()
    assert len(at.warning) == 1 and "bands = 20 and rows = 6" in at.warning[0].value
    assert not at.sidebar.error
    no_errors(at)
    assert (at.number_input(key="bands").value, at.number_input(key="rows").value) == (20, 6)
    assert metrics(at)["Bands × rows per band"] == "20 × 6"
    link = at.sidebar.get("code")[0].value
    assert "auto_tune=false" in link and "bands=20" in link and "rows=6" in link, link
    # the address bar holds the settings in force, not the link's 10
    assert dict(at.query_params) == {
        "n_docs": "300",
        "auto_tune": "false",
        "bands": "20",
        "rows": "6",
    }


def test_tampered_link_leaves_only_the_settings_in_force_in_the_address():
    """Issue 9, defect 8: junk keys and values stayed in the address bar after the warning."""
    at = app({"n_docs": "300", "bands": "abc", "foo": "bar", "rows": "1e9", "hash_seed": "<x>"})
    at.run()
    assert len(at.warning) == 1
    assert dict(at.query_params) == {"n_docs": "300"}
    no_errors(at)


def test_a_setting_whose_widget_is_not_drawn_keeps_its_value():
    """n_docs and example_seed are drawn only for the Example: whole runs without their
    widgets must not lose them (Streamlit may drop a widget's state when a run does not
    draw it; the sidebar restores such a setting from the last run's settings)."""
    at = app({"n_docs": "350", "example_seed": "4"})
    at.run()
    at.radio(key="source").set_value("paste").run()
    at.run()  # a whole run without the Example's widgets
    at.run()
    at.radio(key="source").set_value("example").run()
    no_errors(at)
    assert at.number_input(key="n_docs").value == 350
    assert at.number_input(key="example_seed").value == 4
    assert at.query_params["n_docs"] == "350"


def test_a_large_corpus_picks_its_documents_by_row_not_from_a_list():
    """At 20,000 documents a list of every document's name (1.6 MB) took the browser 1-2 s
    to draw on every visit of the MinHash tabs: the row is typed, the name shown under it."""
    at = app({"n_docs": "2000"})
    at.switch_page("pages/views/minhash.py").run()
    at.session_state["minhash_tab"] = "A pair"
    at.run()
    assert [len(s.options) for s in at.selectbox] == [2000, 2000]  # small: pick from the list
    at = app({"n_docs": "20000"})
    at.switch_page("pages/views/minhash.py").run()
    at.session_state["minhash_tab"] = "A pair"
    at.run()
    no_errors(at)
    assert not at.selectbox
    at.number_input(key="pair_b").set_value(19_999).run()
    no_errors(at)
    assert at.session_state["pair_b"] == 19_999
    captions = [c.value for c in at.caption]
    assert captions[1].startswith("#19999 — "), captions[:3]  # the second picker's document


def test_a_link_seen_only_after_the_first_run_still_wins_until_the_user_changes_something():
    """CI once saw a link's values lost: a first run that starts before Streamlit has the
    page's query seeds the defaults. The address leads until the user changes a setting."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["n_docs"] = "300"
    at.run()  # as if this run had no query: n_docs is the only setting in it
    assert at.session_state["shingle_kind"] == "char"
    at.query_params["shingle_kind"] = "word"
    at.query_params["threshold"] = "0.7"
    at.run()
    no_errors(at)
    assert (at.session_state["shingle_kind"], at.session_state["threshold"]) == ("word", 0.7)
    at.slider(key="threshold").set_value(0.75).run()  # the user leads from here
    at.query_params["shingle_kind"] = "char"
    at.run()
    assert (at.session_state["shingle_kind"], at.session_state["threshold"]) == ("word", 0.75)


def _falls_back_to_its_value(widget) -> bool:
    """Whether the default in a widget's message (what the browser falls back to when it
    draws the widget without its state) is the value the widget holds."""
    default = widget.proto.default
    if widget.type == "radio":  # the index of the option
        return default == widget.index
    if widget.type == "slider":
        return list(default) == [widget.value]
    return default == widget.value


def test_every_setting_s_widget_falls_back_to_the_setting_in_force_not_to_zero():
    """A widget the browser draws afresh without its state shows (and later sends) the
    default in its message. Left to Streamlit that default is off, the slider's minimum or
    0; CI once saw every sidebar setting sent back at those together, which the change
    callbacks took as the user's. Each widget's default must be the setting in force: from
    a link, and after the user changes one."""
    link = {"n_docs": "400", "threshold": "0.7", "lowercase": "false", "hash_seed": "9",
            "shingle_kind": "word", "shingle_k": "3", "fp_weight": "0.3",
            "simhash_distance": "5"}  # fmt: skip
    at = app(link)
    at.run()
    at.toggle(key="auto_tune").set_value(False).run()
    at.slider(key="threshold").set_value(0.65).run()
    no_errors(at)
    checked = set()
    for kind in ("toggle", "radio", "slider", "number_input"):
        for widget in getattr(at.sidebar, kind):
            assert _falls_back_to_its_value(widget), f"{widget.key}: {widget.proto.default}"
            checked.add(widget.key)
    assert {"threshold", "lowercase", "hash_seed", "shingle_kind", "shingle_k", "fp_weight",
            "simhash_distance", "auto_tune", "bands", "rows", "n_docs"} <= checked  # fmt: skip
    assert at.slider(key="threshold").value == 0.65
    assert at.number_input(key="hash_seed").value == 9
