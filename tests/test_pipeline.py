"""The stage graph: declared once, keys derived from it, a runner that computes each stage
once, row stages that can run batch by batch, and the library's answer."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim import pipeline
from nearsim.settings import FIELD_SPECS

TEXTS = ns.example_corpus(400, seed=4)["text"].tolist()


def test_every_stage_reads_only_stages_declared_before_it():
    seen = {"texts"}
    for name, stage in pipeline.STAGES.items():
        assert set(stage.inputs) <= seen, name
        assert set(stage.fields) <= set(FIELD_SPECS), name
        seen.add(name)


def test_keys_follow_the_graph():
    """A stage's key holds its own settings and those of every stage it reads, and nothing
    else: moving bands never re-keys signatures, a threshold step never re-keys the sample,
    min_shingles never re-keys the shingles or the interned tokens."""
    kf = pipeline.key_fields
    assert kf("shingles") == pipeline.SHINGLE_FIELDS
    assert kf("tokens") == pipeline.SHINGLE_FIELDS
    assert "min_shingles" not in kf("signatures") and "bands" not in kf("signatures")
    assert set(kf("candidates")) == {*pipeline.SHINGLE_FIELDS, "min_shingles", "num_perm",
                                     "hash_seed", "sketch", "bands", "rows"}  # fmt: skip
    assert "threshold" not in kf("sample") and "threshold" not in kf("rates")
    assert "threshold" in kf("exact") and "bands" not in kf("exact")
    for name in pipeline.STAGES:
        mine = set(pipeline.STAGES[name].fields)
        below = {f for i in pipeline.STAGES[name].inputs if i != "texts" for f in kf(i)}
        assert set(kf(name)) == mine | below, name


def test_runner_computes_each_stage_once_and_fetch_sees_every_stage():
    calls: list[str] = []

    def fetch(stage, runner):
        calls.append(stage)
        return cache.setdefault(stage, runner.compute(stage))

    cache: dict = {}
    run = pipeline.Runner(TEXTS, ns.Settings(threshold=0.6), fetch=fetch)
    run.get("evaluation")
    run.get("evaluation")
    assert calls.count("evaluation") == 2 and cache.keys() >= {"shingles", "tokens", "exact"}
    assert run.key("exact") == (pipeline.digest(TEXTS), pipeline.stage_key(run.settings, "exact"))
    with pytest.raises(ValueError, match="stage='nope' is not accepted"):
        run.get("nope")


def test_run_equals_the_library_calls():
    settings = ns.Settings(threshold=0.7, min_shingles=30)
    result = pipeline.run(TEXTS, settings)
    sets = [ns.shingles(t, **settings.shingle_options()) for t in TEXTS]
    valid = np.array([len(s) >= 30 for s in sets])
    sig = ns.MinHasher(settings.num_perm, settings.hash_seed).signatures(sets)
    assert (result.signatures == sig).all()
    assert (result.valid == valid).all()
    cand = ns.candidate_pairs(sig, settings.bands, settings.rows, valid=valid)
    assert result.candidates.pairs.tolist() == cand.tolist()
    truth = ns.exact_pairs([s if v else [] for s, v in zip(sets, valid, strict=True)], 0.7)
    assert result.exact[["i", "j"]].values.tolist() == truth[["i", "j"]].values.tolist()
    accepted = cand[ns.estimate_pairs(sig, cand) >= 0.7]
    assert (result.labels == ns.clusters(len(TEXTS), accepted)).all()


def test_predictions_from_the_distinct_similarities_equal_those_from_the_sample():
    """The similarities stage collapses the sample's rows to distinct values with summed
    weights; predict sums equal similarities itself, so the answers are the same floats."""
    settings = ns.Settings(threshold=0.6, auto_tune=False, bands=12, rows=6)
    run = pipeline.Runner(TEXTS, settings)
    sample = run.get("sample")
    s, w = run.get("similarities")
    assert (np.diff(s) > 0).all() and len(s) < len(sample)
    assert w.sum() == pytest.approx(sample["weight"].sum(), rel=1e-12)
    rows = ns.similarity_weights(sample)
    assert run.get("prediction") == ns.predict(*rows, 0.6, 12, 6, 128)
    assert ns.compare_tuners(s, w, 0.6, 128, 0.3) == ns.compare_tuners(*rows, 0.6, 128, 0.3)


def test_row_stages_run_batch_by_batch_give_the_whole_run():
    settings = ns.Settings(min_shingles=25)
    whole = pipeline.Runner(TEXTS, settings)
    parts = [pipeline.Runner(TEXTS[i : i + 77], settings) for i in range(0, len(TEXTS), 77)]
    for stage in ("valid", "signatures"):
        joined = np.concatenate([p.get(stage) for p in parts])
        assert (joined == whole.get(stage)).all(), stage
    assert pipeline.ROW_STAGES == ("shingles", "valid", "signatures")


def test_importing_the_library_imports_neither_streamlit_nor_altair():
    code = "import nearsim, sys; print('streamlit' in sys.modules, 'altair' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


_AFTER_WARM_UP = """
import sys
from numba.core.registry import CPUDispatcher
import nearsim as ns
from nearsim import explore, pipeline

def machine_code():
    return {f"{m}.{k}": len(v.overloads) for m, mod in list(sys.modules.items())
            if m.startswith("nearsim") for k, v in vars(mod).items()
            if isinstance(v, CPUDispatcher)}

explore.warm_up()
before = machine_code()
texts = ns.example_corpus(3000, seed=1)["text"].tolist()
run = pipeline.Runner(texts, ns.Settings(threshold=0.7, hash_seed=3))
for name in pipeline.STAGES:
    run.get(name)
ns.compare_tuners(*run.get("similarities"), 0.7, 128, 0.4)
print(*sorted(k for k, v in machine_code().items() if v != before.get(k, 0)))
"""


def test_after_warm_up_the_stages_need_no_more_machine_code():
    """In a fresh process, every stage on 3,000 documents (above the parallel paths'
    thresholds: 200,000 shingles, 4 million pairs) and the recall tuner run on kernels
    ``warm_up()`` already compiled or loaded. The explorer's first Banding and Compare pages
    used to compile the parallel SimHash, replay-table, distance-histogram and tuner kernels
    (seconds); a kernel first needed after warm-up would show up here with a new overload,
    whether numba's disk cache holds it or not."""
    out = subprocess.run(
        [sys.executable, "-c", _AFTER_WARM_UP], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == []


# -- the exact join on a grid of thresholds ----------------------------------------------
@pytest.fixture(scope="module")
def close_pairs():
    """Documents with many pairs right at the grid points: 4/5, 3/4, 7/10 … are exact."""
    sets = [" ".join(f"w{i}" for i in range(n)) for n in (4, 5, 8, 10, 12, 15, 16, 20)]
    return TEXTS[:150] + sets


@settings(max_examples=60, deadline=None)
@given(t=st.one_of(
    st.floats(0.05, 0.99),
    st.sampled_from([0.05, 0.1, 0.7, 0.75, 0.8, 0.95]).flatmap(
        lambda g: st.sampled_from([g, np.nextafter(g, 0), np.nextafter(g, 1)])),
))  # fmt: skip
def test_the_exact_stage_is_the_join_at_its_own_threshold(close_pairs, t):
    """Filtering the floor join by jaccard >= t is the join at t (exact_pairs' threshold
    rule), a hair either side of a grid point included."""
    t = float(min(max(t, 0.05), 0.99))
    run = pipeline.Runner(close_pairs, ns.Settings(threshold=t, shingle_kind="word", shingle_k=1))
    want = ns.exact_pairs(run.get("tokens"), t, valid=run.get("valid"))
    pd.testing.assert_frame_equal(run.get("exact"), want)
    assert pipeline.threshold_floor(t) <= t


def test_thresholds_between_two_grid_points_share_one_join():
    key = pipeline.stage_key
    at = {t: ns.Settings(threshold=t) for t in (0.75, 0.76, 0.79, 0.8, 0.81)}
    assert (
        key(at[0.75], "exact_floor") == key(at[0.76], "exact_floor") == key(at[0.79], "exact_floor")
    )
    assert (
        key(at[0.79], "exact_floor") != key(at[0.8], "exact_floor") == key(at[0.81], "exact_floor")
    )
    assert key(at[0.76], "exact") != key(at[0.79], "exact")  # the filter is per threshold
    assert [pipeline.threshold_floor(t) for t in (0.05, 0.099, 0.8, 0.8499, 0.99)] == [
        0.05, 0.05, 0.8, 0.8, 0.95]  # fmt: skip


def test_a_coarse_field_must_not_reach_the_stage_another_way(monkeypatch):
    bad = pipeline.Stage("bad", pipeline.exact_stage, ("exact_floor",), ("threshold",), "x",
                         coarse={"threshold": pipeline.threshold_floor})  # fmt: skip
    monkeypatch.setitem(pipeline.STAGES, "bad", bad)
    with pytest.raises(RuntimeError, match="coarse field 'threshold' reaches it otherwise"):
        pipeline._check_coarse()
