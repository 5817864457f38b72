"""The ``nearsim`` command: options, Share links, exit codes, output files, equality with
the library, and an interrupted run that leaves no complete-looking file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def write_jsonl(path: Path, texts, ids=None) -> Path:
    rows = [
        {"text": t} | ({"doc_id": i} if ids is not None else {})
        for t, i in zip(texts, ids if ids is not None else range(len(texts)), strict=True)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """1,500 Example documents (a third edited copies) as JSON lines with string ids."""
    folder = tmp_path_factory.mktemp("corpus")
    texts = ns.example_corpus(1500, seed=3)["text"].tolist()
    ids = [f"doc-{i:05d}" for i in range(len(texts))]
    return write_jsonl(folder / "news.jsonl", texts, ids), texts, ids


def nearsim(*args: str, cwd: Path | None = None, timeout: float = 300):
    """Run the installed command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "nearsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


def library_answer(texts, settings, verify="estimate", cluster_check=False):
    """What ``nearsim dedup`` must find, through the library's public calls: exact copies
    linked to their first occurrence, candidate pairs among distinct documents with the
    run's bucket limit, the filter, and clusters checked against their kept documents.

    Returns (pairs, estimates, labels) and, as a fourth item, a dict of the rest."""
    from nearsim.run.options import BUCKET_LIMIT

    run = ns.pipeline.Runner(texts, settings)
    sig, valid = run.get("signatures"), run.get("valid")
    links = ns.copy_pairs(ns.copy_keys(texts, **settings.shingle_options()), valid)
    distinct = valid.copy()
    distinct[links[:, 1]] = False
    cand = ns.candidate_pairs(
        sig, settings.bands, settings.rows, valid=distinct, bucket_limit=BUCKET_LIMIT
    )
    cand = np.concatenate([cand, links])
    cand = cand[np.lexsort((cand[:, 1], cand[:, 0]))]
    est = ns.estimate_pairs(sig, cand)
    flat = run.get("shingles").flat
    jaccard = ns.pair_jaccard(flat, cand)
    if verify == "estimate":
        keep = est >= settings.threshold
    elif verify == "exact":
        keep = jaccard >= settings.threshold
    else:
        keep = np.ones(len(cand), dtype=bool)
    pairs = cand[keep]

    def similarity(a, b):
        pair = np.stack([a, b], axis=1)
        return ns.pair_jaccard(flat, pair) if verify == "exact" else ns.estimate_pairs(sig, pair)

    t = settings.threshold if cluster_check else None
    check = ns.check_against_kept(len(texts), pairs, similarity, t)
    rest = {
        "similarity": check.similarity,
        "split_off": int(check.split_off.sum()),
        "copies": len(links),
        "candidates": len(cand),
        "jaccard": jaccard[keep],
    }
    return pairs, est[keep], check.labels, rest


def smallest_row(labels: np.ndarray) -> np.ndarray:
    first = {}
    for row, lab in enumerate(labels.tolist()):
        first.setdefault(lab, row)
    return np.array([first[lab] for lab in labels.tolist()], dtype=np.int64)


# -- the answer --------------------------------------------------------------------------
@pytest.mark.parametrize("verify", ["estimate", "exact", "none"])
def test_dedup_equals_the_library_row_for_row(corpus, tmp_path, verify):
    path, texts, ids = corpus
    settings = ns.Settings(threshold=0.7)
    code = main(
        [
            "dedup",
            str(path),
            "--out",
            str(tmp_path),
            "--threshold",
            "0.7",
            "--id-field",
            "doc_id",
            "--verify",
            verify,
            "--quiet",
        ]
    )
    assert code == 0
    pairs, est, labels, _rest = library_answer(texts, settings, verify)
    got_pairs = pd.read_parquet(tmp_path / "pairs.parquet")
    assert got_pairs[["a", "b"]].to_numpy().tolist() == pairs.tolist()
    np.testing.assert_allclose(got_pairs["estimate"].to_numpy(), est)
    assert ("jaccard" in got_pairs.columns) == (verify == "exact")
    got = pd.read_parquet(tmp_path / "clusters.parquet")
    assert got["row"].tolist() == list(range(len(texts)))
    assert got["id"].tolist() == ids
    assert got["cluster"].tolist() == smallest_row(labels).tolist()
    sizes = np.bincount(labels)[labels]
    assert got["cluster_size"].tolist() == sizes.tolist()
    assert got["keep"].tolist() == (got["cluster"] == got["row"]).tolist()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["documents"] == len(texts)
    assert summary["pairs"] == len(pairs)
    assert summary["removed"] == int((~got["keep"]).sum())
    assert summary["clusters"] == int((np.bincount(labels) >= 2).sum())
    assert set(summary["seconds"]) >= {"read", "signatures", "bands", "verify", "clusters"}
    assert set(summary["cpu_seconds"]) == set(summary["seconds"])  # CPU time of each stage
    assert all(v >= 0 for v in summary["cpu_seconds"].values())
    assert summary["peak_memory_bytes"] > 10**6


ODD_TEXTS = [
    "",
    "   ",
    "abc",
    "Abc",
    "a b",
    "!!!",
    "Café au lait, s'il vous plaît — naïve façade.",
    "Café au lait, s'il vous plaît — naïve façade!",
    "日本語のテキストです。日本語のテキスト",
    "The council approved the new budget on Monday.",
    "the  council approved the new budget on monday",
    "one two",
    "one two three four five six",
    "x" * 300,
]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"min_shingles": 1},
        {"min_shingles": 4},
        {"shingle_kind": "word", "shingle_k": 2},
        {"shingle_kind": "word", "shingle_k": 3, "min_shingles": 2},
        {"shingle_k": 3, "lowercase": False, "remove_punctuation": True, "num_perm": 64},
        {"collapse_whitespace": False, "hash_seed": 7},
    ],
)
def test_sign_batch_equals_the_pipeline_stages(options):
    """dedup's batch step (straight from the texts when min_shingles <= 1) gives the
    pipeline's valid and signatures stages exactly, empty and short documents included."""
    from nearsim.run.local import sign_batch

    texts = ODD_TEXTS + ns.example_corpus(300, seed=1)["text"].tolist()
    settings = ns.Settings(**options)
    valid, sig, keys = sign_batch(texts, settings)
    run = ns.pipeline.Runner(texts, settings)
    np.testing.assert_array_equal(valid, run.get("valid"))
    np.testing.assert_array_equal(sig, run.get("signatures"))
    np.testing.assert_array_equal(keys, ns.copy_keys(texts, **settings.shingle_options()))
    assert sig.dtype == np.uint32 and valid.dtype == bool
    assert not valid.all()  # the empty documents are there, and left out


@given(st.lists(st.integers(0, 40), max_size=8), st.integers(1, 5))
@settings(max_examples=60, deadline=None)
def test_rows_grown_in_place_equal_the_batches_joined(sizes, k):
    """dedup keeps the signatures in one array grown batch by batch (never two copies):
    the same rows as joining the batches, empty batches and no batch at all included."""
    from nearsim.utils.arrays import GrowingRows as _Rows

    rng = np.random.default_rng(len(sizes) * 7 + k)
    batches = [rng.integers(0, 2**32, size=(m, k), dtype=np.uint32) for m in sizes]
    rows, flags = _Rows((k,), np.uint32), _Rows((), np.bool_)
    for b in batches:
        rows.append(b)
        flags.append(b[:, 0] % 2 == 0)
    joined = np.concatenate(batches) if batches else np.zeros((0, k), np.uint32)
    assert rows.array().dtype == np.uint32 and rows.array().shape == (sum(sizes), k)
    np.testing.assert_array_equal(rows.array(), joined)
    np.testing.assert_array_equal(flags.array(), joined[:, 0] % 2 == 0)


def test_dedup_with_min_shingles_equals_the_library(corpus, tmp_path):
    """A min_shingles above 1 leaves some documents without a signature (the pipeline's
    own stages run then): still the library's answer."""
    path, texts, _ids = corpus
    settings = ns.Settings(min_shingles=170, threshold=0.7)
    args = ["dedup", str(path), "--out", str(tmp_path), "--quiet"]
    assert main([*args, "--min-shingles", "170", "--threshold", "0.7"]) == 0
    pairs, est, labels, _ = library_answer(texts, settings)
    got = pd.read_parquet(tmp_path / "pairs.parquet")
    assert got[["a", "b"]].to_numpy().tolist() == pairs.tolist()
    np.testing.assert_allclose(got["estimate"].to_numpy(), est)
    clusters = pd.read_parquet(tmp_path / "clusters.parquet")
    assert clusters["cluster"].tolist() == smallest_row(labels).tolist()
    summary = json.loads((tmp_path / "summary.json").read_text())
    without = int((~ns.pipeline.Runner(texts, settings).get("valid")).sum())
    assert summary["without_signature"] == without > 0


def test_output_tables_have_the_documented_columns_and_types(corpus, tmp_path):
    path, texts, _ = corpus
    for fmt in ("parquet", "csv", "jsonl"):
        out = tmp_path / fmt
        assert (
            main(
                [
                    "dedup",
                    str(path),
                    "--out",
                    str(out),
                    "--format",
                    fmt,
                    "--quiet",
                    "--verify",
                    "exact",
                ]
            )
            == 0
        )
        read = {
            "parquet": pd.read_parquet,
            "csv": pd.read_csv,
            "jsonl": lambda p: pd.read_json(p, lines=True, dtype={"id": str}),
        }[fmt]
        clusters = read(out / f"clusters.{fmt}")
        pairs = read(out / f"pairs.{fmt}")
        assert list(clusters.columns) == [
            "row", "id", "cluster", "cluster_size", "keep", "similarity_to_kept"
        ]  # fmt: skip
        assert list(pairs.columns) == ["a", "b", "estimate", "jaccard"]
        assert [clusters[c].dtype.kind for c in ("row", "cluster", "cluster_size")] == ["i"] * 3
        assert clusters["similarity_to_kept"].dtype.kind == "f"
        assert clusters["keep"].dtype == bool
        assert [pairs[c].dtype.kind for c in ("a", "b", "estimate", "jaccard")] == list("iiff")
        assert len(clusters) == len(texts)
        assert (pairs["a"] < pairs["b"]).all()


def test_a_share_link_gives_the_same_run_as_the_same_options(corpus, tmp_path):
    path, _, _ = corpus
    settings = ns.Settings(threshold=0.6, shingle_kind="word", shingle_k=3, num_perm=64)
    link = "http://127.0.0.1:8501/banding?" + urlencode(settings.to_query())
    assert (
        main(["dedup", str(path), "--out", str(tmp_path / "link"), "--settings", link, "--quiet"])
        == 0
    )
    assert (
        main(
            [
                "dedup",
                str(path),
                "--out",
                str(tmp_path / "opts"),
                "--threshold",
                "0.6",
                "--shingle-kind",
                "word",
                "--shingle-k",
                "3",
                "--num-perm",
                "64",
                "--quiet",
            ]
        )
        == 0
    )
    for name in ("clusters.parquet", "pairs.parquet"):
        a = pd.read_parquet(tmp_path / "link" / name)
        b = pd.read_parquet(tmp_path / "opts" / name)
        pd.testing.assert_frame_equal(a, b)
    ja = json.loads((tmp_path / "link" / "summary.json").read_text())
    assert ja["settings"] == urlencode(settings.to_query())


def test_options_beside_a_link_override_it(corpus, tmp_path):
    path, _, _ = corpus
    assert (
        main(
            [
                "dedup",
                str(path),
                "--out",
                str(tmp_path),
                "--settings",
                "threshold=0.6",
                "--threshold",
                "0.9",
                "--quiet",
            ]
        )
        == 0
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["settings"] == "threshold=0.9"


# -- exit codes and one-line messages ------------------------------------------------------
BAD = [
    (["dedup", "{corpus}", "--out", "{out}", "--threshold", "2"], "--threshold.*0.05 to 0.99"),
    (
        ["dedup", "{corpus}", "--out", "{out}", "--num-perm", "abc"],
        r'--num-perm="abc" is not accepted \(an integer from 8 to 1024\)$',
    ),
    (["dedup", "{corpus}", "--out", "{out}", "--auto-tune", "maybe"], "--auto-tune"),
    (
        ["dedup", "{corpus}", "--out", "{out}", "--bands", "20"],
        "ignored because auto_tune is on.*add --auto-tune false",
    ),
    (
        [
            "dedup",
            "{corpus}",
            "--out",
            "{out}",
            "--auto-tune",
            "false",
            "--bands",
            "20",
            "--rows",
            "10",
        ],
        "bands × rows = 20 × 10",
    ),
    (["dedup", "{corpus}", "--out", "{out}", "--verify", "maybe"], "invalid choice: 'maybe'"),
    (["dedup", "{corpus}"], "--out"),
    (["dedup", "missing.jsonl", "--out", "{out}"], "missing.jsonl.*does not exist"),
    (["dedup", "{corpus}", "--out", "{out}", "--text-field", "body"], "body"),
    (["dedup", "{corpus}", "--out", "{out}", "--frobnicate"], "unrecognized arguments"),
    (["tune", "--threshold", "0"], "--threshold"),
    (["frobnicate"], "invalid choice"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_exits_2_with_one_line(corpus, tmp_path, args, message, capsys):
    filled = [a.format(corpus=corpus[0], out=tmp_path / "out") for a in args]
    assert main(filled) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("nearsim: error: "), err  # usage errors included: one prefix
    import re

    assert re.search(message, err), err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "summary.json").exists()


def test_a_bad_record_names_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "fine"}\n{"text": "also fine"}\nnot json\n')
    assert main(["dedup", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl" in err and "line 3" in err and err.count("\n") == 1
    assert (
        main(["dedup", str(path), "--out", str(tmp_path / "o"), "--on-error", "skip", "--quiet"])
        == 0
    )
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["documents"] == 2 and "skipped 1" in summary["read"]


def test_the_installed_command_runs_and_fails_cleanly(corpus, tmp_path):
    ok = nearsim("dedup", str(corpus[0]), "--out", str(tmp_path), "--threshold", "0.7")
    assert ok.returncode == 0, ok.stderr
    assert "candidate pairs" in ok.stdout and "clusters" in ok.stdout
    assert "documents read and signed" in ok.stderr  # progress on stderr
    assert "loading the compiled kernels" in ok.stderr  # the first run's wait is explained
    bad = nearsim("dedup", str(corpus[0]), "--out", str(tmp_path), "--num-perm", "-1")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    debug = nearsim("--debug", "dedup", str(corpus[0]), "--out", str(tmp_path), "--num-perm", "-1")
    assert debug.returncode != 0 and "Traceback" in debug.stderr
    quiet = nearsim("dedup", str(corpus[0]), "--out", str(tmp_path), "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""


@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_reader_that_goes_away_gets_status_1_and_no_traceback(unbuffered):
    """A closed pipe gives status 1 and a quiet stderr, not a BrokenPipeError traceback,
    Python's "Exception ignored" message at shutdown or an "error" line with status 2.
    Buffered, the console script's own flush before ``os._exit`` meets the closed pipe;
    unbuffered (``PYTHONUNBUFFERED``), the first ``print`` does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "nearsim", "tune"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.close()  # before the command has imported anything, let alone printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert err == ""


def test_tune_prints_the_best_eight():
    out = nearsim("tune", "--threshold", "0.8", "--num-perm", "128")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 10
    assert lines[2].split()[:3] == ["1", "9", "13"]


def read_until(stream, marker: bytes, timeout: float) -> bytes:
    """What a child writes on ``stream`` up to and including ``marker`` (fails if the child
    closes it first or ``timeout`` seconds pass)."""
    import select

    seen, deadline = b"", time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {timeout} s: {seen.decode()!r}"
        if select.select([stream], [], [], left)[0]:
            chunk = os.read(stream.fileno(), 4096)
            assert chunk, f"the run closed stderr before {marker!r}: {seen.decode()!r}"
            seen += chunk
    return seen


@pytest.mark.parametrize(
    ("sig", "status"),
    [(signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)],
    ids=["SIGINT", "SIGKILL"],
)
def test_an_interrupted_run_leaves_no_complete_looking_output(tmp_path, sig, status):
    """Interrupt a run: an older run's summary.json is removed when the new run starts, and
    the interrupted run leaves no summary.json; a table that is there was renamed whole.

    The signal is sent when the run's progress line, "nearsim: documents read and signed",
    first appears on stderr: before the first batch is signed, so the signing of 100,000
    documents, banding and writing are still to come. The exit status shows the signal
    found the run going (a run that had finished gives 0): 130 and the CLI's message for
    Ctrl-C; -9 for SIGKILL, where no handler runs at all. The child starts with SIGINT at
    its default, as from a terminal: a test suite started as a background job inherits
    SIGINT ignored, and Python then keeps it ignored (a shell's background jobs are meant
    to survive Ctrl-C), so the run would finish and exit 0."""
    texts = ns.example_corpus(20_000, seed=1)["text"].tolist() * 5
    path = write_jsonl(tmp_path / "big.jsonl", texts)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")  # an older run
    proc = subprocess.Popen(
        [sys.executable, "-m", "nearsim", "dedup", str(path), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        seen = read_until(proc.stderr, b"nearsim: documents read and signed", timeout=120)
        assert not (out / "summary.json").exists()  # removed before reading began
        os.killpg(proc.pid, sig)
        stdout, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = (seen + rest).decode()
    assert proc.returncode == status, err
    if sig == signal.SIGINT:
        assert err.endswith("nearsim: interrupted; no output file was completed\n"), err
    assert stdout == b""  # no summary of a run printed
    assert not (out / "summary.json").exists()
    complete = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert complete <= {"clusters.parquet", "pairs.parquet"}
    for name in complete:  # a table that is there was renamed whole: it reads
        pd.read_parquet(out / name)


@pytest.mark.parametrize("missing", ["streamlit", "nearsim_app"])
def test_app_without_the_app_extra_is_one_line_and_status_2(monkeypatch, capsys, missing):
    """``nearsim app`` looks the explorer up without importing Streamlit into the library
    (the explorer runs in its own process); without the extra it says how to install it."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a)
    )
    assert main(["app"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'nearsim[app]'" in err[0], err


# -- the Parquet writer ------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(st.text(st.characters(exclude_categories=["Cs"]), max_size=6), max_size=40),
    flags=st.lists(st.booleans(), max_size=40),
    numbers=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40),
)
def test_arrow_columns_from_buffers_equal_pyarrow_array(ids, flags, numbers):
    """dedup builds its Arrow columns from their buffers (pyarrow.array would import
    pandas); each must be the array pyarrow.array gives, bit for bit, including bool
    lengths that are not a multiple of 8 and empty strings."""
    import pyarrow as pa

    from nearsim.run.outputs import arrow_column as _arrow_column

    got = _arrow_column(ids)
    got.validate(full=True)
    assert got.equals(pa.array(ids, type=pa.large_string()))
    for values in (np.array(flags, dtype=bool), np.array(numbers, dtype=np.int64),
                   np.array(numbers, dtype=np.int64).astype(np.float64)):  # fmt: skip
        got = _arrow_column(values)
        got.validate(full=True)
        assert got.equals(pa.array(values))


def test_parquet_tables_read_back_as_the_result_s_tables(corpus, tmp_path):
    from nearsim.run.local import dedup
    from nearsim.run.outputs import write_outputs

    path, _, _ = corpus
    result = dedup([path], ns.Settings(), id_field="doc_id")
    write_outputs(result, tmp_path)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "clusters.parquet"),
                                  result.cluster_table())  # fmt: skip
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "pairs.parquet"), result.pair_table())


PARENT = 800 * 2**20
"""What the parent process holds while it starts ``nearsim dedup`` (a notebook, a scheduler)."""


def test_summary_peak_memory_is_the_run_s_own_not_its_parent_s(corpus, tmp_path):
    """``ru_maxrss`` survives exec: a run started by a process holding 800 MB reported at
    least 800 MB. The peak must be the run's own, well below the parent's (a dedup of 1,500
    short documents peaks near 0.2 GB: the interpreter, NumPy, numba's kernels, pyarrow)."""
    path = corpus[0]
    out = tmp_path / "out"
    parent = (
        "import subprocess, sys, numpy as np\n"
        f"held = np.ones({PARENT // 8})\n"
        f"sys.exit(subprocess.run([sys.executable, '-m', 'nearsim', 'dedup', {str(path)!r},"
        f" '--out', {str(out)!r}, '--quiet']).returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    peak = json.loads((out / "summary.json").read_text())["peak_memory_bytes"]
    assert 20 * 2**20 < peak < PARENT // 2, f"peak {peak / 2**20:.0f} MB"
