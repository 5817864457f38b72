"""The explorer's words: what users read names what they see, and nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from nearsim_app.explorer.pair_view import band_list

from nearsim.settings import FIELD_SPECS

ROOT = Path(__file__).resolve().parents[1]
PAGE_FILES = sorted((ROOT / "pages").rglob("*.py"))


def _shown_strings(path: Path) -> list[str]:
    """String constants of a page module, without docstrings (what a user may read)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_team_notes_on_a_page(path):
    """Users have never seen the product's field reports: say what happened instead."""
    for text in _shown_strings(path):
        low = text.lower()
        for note in ("seed 000", "seed 002", "seed 004", "issue 9", "issue 2"):
            assert note not in low, (path.name, text)


def test_k_is_never_bare_in_a_label():
    """ "k" meant the signature length in the sidebar and the shingle length on a tab."""
    for spec in FIELD_SPECS.values():
        assert " k " not in f" {spec.label} " and "k (" not in spec.label, spec.label
    for path in PAGE_FILES:
        assert "Choosing k" not in _shown_strings(path), path.name


@pytest.mark.parametrize(
    ("bands", "words"),
    [([2], "3"), ([0, 3], "1 and 4"), ([0, 1, 4], "1, 2 and 5"),
     (list(range(11)), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 1 more")],
)  # fmt: skip
def test_every_agreeing_band_is_counted(bands, words):
    """The explainer said "bands 1…10 agree" while its grid showed 11."""
    assert band_list(bands) == words


def test_reset_to_defaults_restores_every_setting_but_the_documents():
    from streamlit.testing.v1 import AppTest

    from nearsim.settings import Settings

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for key, value in {"source": "paste", "threshold": "0.6", "num_perm": "64",
                       "shingle_k": "3", "auto_tune": "false"}.items():  # fmt: skip
        at.query_params[key] = value
    at.run()
    assert at.session_state["threshold"] == 0.6 and at.session_state["num_perm"] == 64
    at.button(key="reset_defaults").click().run()
    default = Settings(source="paste")
    for name in FIELD_SPECS:
        assert at.session_state[name] == getattr(default, name), name
    assert not at.exception


@pytest.mark.parametrize(("minimum", "said"), [(0, None), (1, None), (40, "40")])
def test_documents_page_says_the_minimum_its_widget_shows(minimum, said):
    """With the minimum at 0 (the default) or 1 only a document without shingles gets no
    signature: the page must not speak of a minimum of 1 while its widget reads 0."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["n_docs"] = "300"
    at.query_params["min_shingles"] = str(minimum)
    at.run()
    assert not at.exception
    assert at.number_input(key="min_shingles").value == minimum
    words = [m.label for m in at.metric] + [c.value for c in at.caption]
    words += [s.value for s in at.subheader]
    text = " ".join(words)
    if said is None:
        assert "below the minimum" not in text and "minimum (1)" not in text, text
        assert any("without shingles" in w for w in words), words
    else:
        assert f"fewer than {said} shingles" in text, text
