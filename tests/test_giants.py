"""Chained and giant clusters (nearsim.explore.giants) against brute force."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nearsim.explore.giants import CHAIN_GAP, GIANT_MIN_REMOVED, GIANT_SHARE, cluster_warnings

ROOT = Path(__file__).resolve().parents[1]


def _brute(n, pairs, sim, t):
    """Components by repeated merging, then every member against the smallest member."""
    comp = list(range(n))
    changed = True
    while changed:
        changed = False
        for i, j in pairs:
            a, b = comp[i], comp[j]
            if a != b:
                comp = [min(a, b) if c in (a, b) else c for c in comp]
                changed = True
    out = {}
    for c in set(comp):
        members = [d for d in range(n) if comp[d] == c]
        if len(members) < 2:
            continue
        first = min(members)
        out[first] = (len(members), min(1.0 if d == first else sim[first, d] for d in members))
    return out


@given(
    st.integers(2, 14).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20),
            st.integers(0, 2**31),
        )
    ),
    st.sampled_from([0.3, 0.5, 0.8]),
)
def test_least_similar_member_and_flags_match_brute_force(case, t):
    n, pairs, seed = case
    rng = np.random.default_rng(seed)
    sim = rng.random((n, n))
    sim = (sim + sim.T) / 2
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    got = cluster_warnings(n, arr, lambda a, b: sim[a, b], t)
    want = _brute(n, pairs, sim, t)
    assert sorted(got.table["first"].tolist()) == sorted(want)
    removed = sum(size - 1 for size, _ in want.values())
    assert got.removed == removed
    for row in got.table.itertuples():
        size, least = want[row.first]
        assert row.size == size
        assert row.least_similarity == pytest.approx(least)
        assert row.least_member == row.first or sim[row.first, row.least_member] == least
        assert row.chain == (least < t - CHAIN_GAP)
        share = (size - 1) / removed
        assert row.giant == (share >= GIANT_SHARE and removed >= GIANT_MIN_REMOVED)


def test_a_chain_of_edits_is_named():
    """Documents 0-1-2-…-9 each linked to the next; similarity falls with distance."""
    n = 10
    pairs = np.array([[i, i + 1] for i in range(n - 1)], dtype=np.int64)
    w = cluster_warnings(n, pairs, lambda a, b: 1.0 - 0.1 * np.abs(a - b), 0.85)
    assert len(w.chains) == 1 and w.chains["least_member"].iloc[0] == 9
    assert w.chains["least_similarity"].iloc[0] == pytest.approx(0.1)
    assert w.removed == 9 and not w.giants.size  # 9 removals: too few to call giant


def test_one_family_holding_most_removals_is_giant():
    """A family of 40 copies beside 10 pairs: the family holds 39 of 49 removals."""
    fam = [[0, i] for i in range(1, 40)]
    twos = [[100 + 2 * k, 101 + 2 * k] for k in range(10)]
    pairs = np.array(fam + twos, dtype=np.int64)
    w = cluster_warnings(120, pairs, lambda a, b: np.ones(len(a)), 0.8)
    assert w.removed == 49
    assert w.giants["size"].tolist() == [40] and not len(w.chains)
    assert w.giants["removed_share"].iloc[0] == pytest.approx(39 / 49)


def test_bad_threshold_names_itself():
    with pytest.raises(ValueError, match="threshold"):
        cluster_warnings(3, np.zeros((0, 2), np.int64), lambda a, b: a * 0.0, 0.0)


def _chain_documents() -> str:
    """40 documents, each the one before with two more words replaced: neighbours are near
    copies (word 2-grams, J ≈ 0.85), the ends share nothing."""
    rng = np.random.default_rng(7)
    words = [f"w{x}" for x in rng.integers(0, 10**6, 120)]
    docs = []
    for i in range(40):
        words[(3 * i) % 120] = f"edit{i}a"
        words[(3 * i + 1) % 120] = f"edit{i}b"
        docs.append(" ".join(words))
    return "\n".join(docs)


def test_clusters_and_threshold_name_a_chain_and_offer_the_check():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for key, value in {"source": "paste", "shingle_kind": "word", "shingle_k": "2",
                       "threshold": "0.7"}.items():  # fmt: skip
        at.query_params[key] = value
    at.run()
    at.text_area(key="paste_text").input(_chain_documents()).run()
    at.switch_page("pages/views/clusters.py").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    warning = " ".join(w.value for w in at.warning)
    assert "chain" in warning and "would detach" in warning and "it is off" in warning
    detached = int(warning.split("would detach **")[1].split("**")[0].replace(",", ""))
    assert detached > 0
    at.button(key="giants_check_on").click().run()
    assert at.toggle(key="cluster_check").value is True
    shown = {m.label: m.value for m in at.metric}
    assert shown["Members taken out by the check"] == f"{detached:,}"
    # Threshold: the same warning on the Removal rate tab, and the button goes to Clusters
    at.toggle(key="cluster_check").set_value(False).run()
    at.switch_page("pages/views/threshold.py").run()
    at.session_state["threshold_tab"] = "Removal rate"
    at.run()
    assert any("would detach" in w.value for w in at.warning)
    at.button(key="giants_check_go").click().run()
    assert at.session_state["cluster_check"] is True
    assert [t.value for t in at.title] == ["Clusters"]


def test_a_large_cluster_shows_twenty_members_in_scrolling_boxes():
    """Fifty whole manual pages made the Clusters page 31,808 px tall."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for key, value in {"source": "paste", "shingle_kind": "word", "shingle_k": "2",
                       "threshold": "0.7"}.items():  # fmt: skip
        at.query_params[key] = value
    at.run()
    at.text_area(key="paste_text").input(_chain_documents()).run()
    at.switch_page("pages/views/clusters.py").run()
    boxes = [m.value for m in at.markdown if "max-height:10rem" in m.value]
    assert len(boxes) == 20 and all("overflow:auto" in b for b in boxes)
    assert any("The first 20 of 40 members." in c.value for c in at.caption)
