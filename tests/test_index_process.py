"""nearsim.Index across processes: a writer killed with SIGKILL (at named points inside an
add and at random moments) leaves the index as before or after the add; readers in other
processes during adds; the command line through subprocesses (build, add with
--skip-duplicates and --group-field, query, dedup --against, the refusals with exit 2)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nearsim as ns

SETTINGS = ns.RunSettings(threshold=0.7)
BATCH = 300
CYCLE = 40  # the writer's batches of texts, used again in turn after the 40th


def corpus_texts(n: int, seed: int = 11) -> list[str]:
    """Example news items: a third of them edited copies of others."""
    return ns.example_corpus(n, seed=seed)["text"].tolist()


# A writer process: adds batch after batch of ids "b<batch>-<i>" (batch k's texts are batch
# k % CYCLE of a fixed corpus), printing "added <n>" after each, until it has added `batches`
# (0: until it is killed). KILL_AT names a function of the storage layer; the process kills
# itself with SIGKILL when it is called for the KILL_AFTER-th time.
WRITER = textwrap.dedent(
    """
    import itertools, os, signal, sys
    import nearsim as ns
    from nearsim.index import storage

    folder, batches, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    kill_at, kill_after = os.environ.get("KILL_AT"), int(os.environ.get("KILL_AFTER", "0"))
    if kill_at:
        name, when = kill_at.split(":")
        real = getattr(storage, name)
        calls = [0]

        def patched(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_after and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            out = real(*args, **kwargs)
            if calls[0] == kill_after and when == "after":
                os.kill(os.getpid(), signal.SIGKILL)
            return out

        setattr(storage, name, patched)
    cycle = int(os.environ["CYCLE"])
    texts = ns.example_corpus(cycle * batch, seed=11)["text"].tolist()
    idx = ns.Index.open(folder)
    idx.query(texts[:20])  # the compiled kernels loaded (a query of a few texts loads none)
    print("ready", flush=True)
    start = len(idx) // batch
    for k in itertools.count(start) if batches == 0 else range(start, batches):
        chunk = texts[(k % cycle) * batch : (k % cycle + 1) * batch]
        idx.add(chunk, [f"b{k}-{i}" for i in range(len(chunk))], wait=30.0)
        print("added", len(idx), flush=True)
    """
)


def run_writer(folder: Path, batches: int, env_extra=None, kill_after_s=None):
    """Start the writer; kill it after ``kill_after_s`` seconds (counted from "ready")."""
    env = {**os.environ, "CYCLE": str(CYCLE), **(env_extra or {})}
    cmd = [sys.executable, "-c", WRITER, str(folder), str(batches), str(BATCH)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if kill_after_s is not None:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(kill_after_s)
        proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def check_consistent(folder: Path, texts: list[str], add_next: bool = True) -> int:
    """The index opens and holds whole batches in order with their signatures (and, with
    ``add_next``, takes the next add and the killed writer's files are gone); returns the
    number of whole batches it holds."""
    idx = ns.Index.open(folder)
    n = len(idx)
    assert n % BATCH == 0, f"{n} documents: a batch was stored in part"
    batches = n // BATCH
    want_ids = [f"b{k}-{i}" for k in range(batches) for i in range(BATCH)]
    assert idx.ids(np.arange(n)) == want_ids
    if n:  # the signatures of the last batch and of a sample of the others
        rng = np.random.default_rng(n)
        rows = np.unique(np.concatenate([rng.integers(0, n, 1500), np.arange(n - BATCH, n)]))
        written = [texts[(p // BATCH) % CYCLE * BATCH + p % BATCH] for p in rows.tolist()]
        np.testing.assert_array_equal(idx.signatures(rows), idx.sign(written).sig)
    if not add_next:
        return batches
    # the next writer cleans up a killed one's files and adds
    extra = texts[:10]
    out = idx.add(extra, [f"extra-{i}" for i in range(len(extra))])
    assert len(idx) == n + len(extra) and out["stored"].all()
    named = {e.file for e in idx._manifest.segments}
    assert {p.name for p in folder.iterdir() if p.suffix == ".seg"} == named
    assert not [p for p in folder.iterdir() if ".tmp-" in p.name]
    return batches


@pytest.mark.parametrize(
    "kill_at, kill_after, state",
    [
        ("write_segment:before", 3, "before"),  # nothing written yet
        ("write_segment:after", 3, "before"),  # a complete segment no manifest names
        ("write_manifest:before", 4, "before"),
        ("_fsync_dir:before", 5, "after"),  # inside write_manifest, just after the rename
        ("write_manifest:after", 4, "after"),  # merged-away segments not deleted yet
    ],
)
def test_a_writer_killed_at_each_step_of_an_add_leaves_before_or_after(
    tmp_path, kill_at, kill_after, state
):
    """An add is a segment file, then the manifest; SIGKILL before, between and after each
    step leaves an index that holds whole batches and takes the next add."""
    folder = tmp_path / "i"
    ns.Index.create(folder, SETTINGS)
    texts = corpus_texts(CYCLE * BATCH)
    code, out, err = run_writer(folder, 8, {"KILL_AT": kill_at, "KILL_AFTER": str(kill_after)})
    assert code == -signal.SIGKILL, err
    held = check_consistent(folder, texts)
    added = [int(line.split()[1]) for line in out.splitlines() if line.startswith("added")]
    assert added == [BATCH * (k + 1) for k in range(kill_after - 1)]
    # the add in flight is there entirely (killed after the manifest's rename) or not at all
    assert held * BATCH == added[-1] + (BATCH if state == "after" else 0)


def test_a_writer_killed_at_random_moments_leaves_a_consistent_index(tmp_path):
    """Six runs of a writer that adds until it is killed, each killed after a random delay
    (segments merge as they go, so a kill lands in writes of many sizes)."""
    texts = corpus_texts(CYCLE * BATCH)
    rng = np.random.default_rng(5)
    folder = tmp_path / "i"
    ns.Index.create(folder, SETTINGS)
    held = 0
    for _ in range(6):  # each run goes on from the batches the last one left
        code, _, err = run_writer(folder, 0, kill_after_s=float(rng.uniform(0.05, 1.5)))
        assert code == -signal.SIGKILL, err
        before = held
        held = check_consistent(folder, texts, add_next=False)
        assert held >= before
    assert held > 0
    check_consistent(folder, texts)


# A reader process: opens the index and, until told to stop, reads its length and queries
# a probe (a copy of the first document, stored before the reader starts); prints what it saw.
READER = textwrap.dedent(
    """
    import json, sys, time
    import nearsim as ns

    folder, probe, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    idx = ns.Index.open(folder)
    seen, hits, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        seen.append(len(idx))
        out = idx.query([probe])
        hits += int((out["match_id"] == "b0-0").any())
        seen.append(len(ns.Index.open(folder)))
    print(json.dumps({"seen": seen, "hits": hits, "queries": len(seen) // 2}))
    """
)


def test_readers_in_other_processes_during_adds(tmp_path):
    """Two readers query while a writer adds 20 batches (with merges): every length they see
    is a whole number of batches, never decreasing, and every query answers."""
    folder = tmp_path / "i"
    idx = ns.Index.create(folder, SETTINGS)
    texts = corpus_texts(CYCLE * BATCH)
    idx.add(texts[:BATCH], [f"b0-{i}" for i in range(BATCH)])
    probe = texts[0].upper()
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(folder), probe, "6"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for _ in range(2)
    ]
    code, _, err = run_writer(folder, 20)
    assert code == 0, err
    for r in readers:
        out, err = r.communicate(timeout=120)
        assert r.returncode == 0, err
        got = json.loads(out)
        assert got["queries"] > 0 and got["hits"] == got["queries"]
        seen = got["seen"][::2]  # one Index object: lengths never go back
        assert all(x % BATCH == 0 for x in got["seen"])
        assert seen == sorted(seen)
    assert len(ns.Index.open(folder)) == 20 * BATCH


# -- the command line ------------------------------------------------------------------------
def nearsim(*args, timeout: float = 300):
    return subprocess.run(
        [sys.executable, "-m", "nearsim", *map(str, args)],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def two_corpora(tmp_path_factory):
    """1,000 stored news items and 600 new ones: 400 unseen (a third edited copies), 100 from
    the stored part, 100 repeated within the new part; three sources."""
    folder = tmp_path_factory.mktemp("corpora")
    texts = corpus_texts(1400, seed=4)
    old = [{"id": f"old-{i}", "text": t, "source": "archive"} for i, t in enumerate(texts[:1000])]
    fresh = texts[1000:] + texts[:100] + texts[1000:1100]
    sources = ["board-a", "board-b", "board-c"]
    new = [
        {"id": f"new-{i}", "text": t, "source": sources[i % 3]} for i, t in enumerate(fresh)
    ]
    return (
        write_jsonl(folder / "old.jsonl", old),
        write_jsonl(folder / "new.jsonl", new),
        [r["text"] for r in old],
        [r["text"] for r in new],
    )


def test_cli_build_add_with_skip_duplicates_prints_fetched_against_stored(tmp_path, two_corpora):
    old, new, old_texts, new_texts = two_corpora
    r = nearsim("index", "build", old, "--index", tmp_path / "i", "--id-field", "id",
                "--threshold", "0.7", "--quiet")  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = nearsim("index", "add", tmp_path / "i", new, "--id-field", "id", "--skip-duplicates",
                "--group-field", "source", "--out", tmp_path / "m.csv")  # fmt: skip
    assert r.returncode == 0, r.stderr
    # the library's answer: the same adds through nearsim.Index
    lib = ns.Index.create(tmp_path / "lib", SETTINGS)
    lib.add(old_texts, [f"old-{i}" for i in range(1000)])
    want = lib.add(new_texts, [f"new-{i}" for i in range(600)], skip_duplicates=True)
    got = pd.read_csv(tmp_path / "m.csv", keep_default_na=False)
    assert got[["row", "id", "match_id", "stored"]].values.tolist() == (
        want[["row", "id", "match_id", "stored"]].values.tolist()
    )
    assert len(ns.Index.open(tmp_path / "i")) == len(lib) == 1000 + int(
        want.groupby("row")["stored"].first().sum()
    )
    stored = want.groupby("row")["stored"].first().to_numpy()
    lines = {line.split()[0]: line.split() for line in r.stdout.splitlines()}
    for k, source in enumerate(["board-a", "board-b", "board-c"]):
        rows = np.arange(600) % 3 == k
        assert lines[source][1:3] == [f"{rows.sum():,}", f"{stored[rows].sum():,}"]
    assert stored[400:500].sum() == 0  # copies of stored documents are not stored
    assert stored[500:].sum() == 0  # nor repeats of this scan's earlier documents


def test_cli_query_writes_the_matches_and_stores_nothing(tmp_path, two_corpora):
    old, new, _, new_texts = two_corpora
    assert nearsim("index", "build", old, "--index", tmp_path / "i", "--id-field", "id",
                   "--threshold", "0.7", "--quiet").returncode == 0  # fmt: skip
    r = nearsim("index", "query", tmp_path / "i", new, "--id-field", "id", "--out",
                tmp_path / "q.parquet")  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = pd.read_parquet(tmp_path / "q.parquet")
    idx = ns.Index.open(tmp_path / "i")
    assert len(idx) == 1000
    want = idx.query(new_texts, [f"new-{i}" for i in range(600)])
    pd.testing.assert_frame_equal(got, want)


def test_dedup_against_equals_a_full_run_restricted_to_pairs_with_a_new_document(
    tmp_path, two_corpora
):
    """``dedup NEW --against DIR`` finds the pairs a full ``nearsim dedup`` of old + new finds
    between a new document and an old or earlier new one."""
    old, new, _, _ = two_corpora
    assert nearsim("index", "build", old, "--index", tmp_path / "i", "--id-field", "id",
                   "--threshold", "0.7", "--quiet").returncode == 0  # fmt: skip
    r = nearsim("dedup", new, "--against", tmp_path / "i", "--out", tmp_path / "against",
                "--id-field", "id", "--quiet")  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = nearsim("dedup", old, new, "--out", tmp_path / "full", "--id-field", "id",
                "--threshold", "0.7", "--quiet")  # fmt: skip
    assert r.returncode == 0, r.stderr
    full = pd.read_parquet(tmp_path / "full" / "pairs.parquet")
    full = full[full["b"] >= 1000]
    want = {
        (("old", a) if a < 1000 else ("new", a - 1000), b - 1000, round(e, 9))
        for a, b, e in zip(full["a"], full["b"], full["estimate"], strict=True)
    }
    got_pairs = pd.read_parquet(tmp_path / "against" / "pairs.parquet")
    got = {
        (("old", p) if m != "" else ("new", a), b, round(e, 9))
        for a, b, e, m, p in zip(got_pairs["a"], got_pairs["b"], got_pairs["estimate"],
                                 got_pairs["match_id"], got_pairs["match_position"], strict=True)
    }  # fmt: skip
    assert len(want) > 150 and got == want
    assert set(got_pairs.loc[got_pairs["match_id"] != "", "match_id"]) <= {
        f"old-{i}" for i in range(1000)
    }
    clusters = pd.read_parquet(tmp_path / "against" / "clusters.parquet")
    assert not clusters["keep"].iloc[400:600].any()  # copies of the index or of earlier rows
    summary = json.loads((tmp_path / "against" / "summary.json").read_text())
    assert summary["against"]["index_documents"] == 1000


def test_cli_refusals_exit_2_with_one_line(tmp_path, two_corpora):
    old, new, _, _ = two_corpora
    assert nearsim("index", "build", old, "--index", tmp_path / "i", "--threshold", "0.7",
                   "--quiet").returncode == 0  # fmt: skip
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("not an index")
    i, q, o, m = tmp_path / "i", tmp_path / "q.csv", tmp_path / "o", tmp_path / "m.txt"
    cases = {
        "does not exist": ("index", "add", tmp_path / "missing", new),
        "is not a nearsim index": ("index", "query", tmp_path / "foreign", new, "--out", q),
        "other settings than given": ("dedup", new, "--against", i, "--out", o, "--threshold",
                                      "0.9"),
        "holds a nearsim index": ("index", "build", old, "--index", i),
        "accepted: a file name ending in": ("index", "add", i, new, "--out", m),
    }
    for message, args in cases.items():
        r = nearsim(*args)
        assert r.returncode == 2, (args, r.stderr)
        errors = [line for line in r.stderr.splitlines() if line.startswith("nearsim: error:")]
        assert len(errors) == 1 and message in errors[0], r.stderr
        assert "Traceback" not in r.stderr
    from nearsim.index.storage import writer_lock

    with writer_lock(tmp_path / "i"):  # another process adding
        r = nearsim("index", "add", tmp_path / "i", new)
    assert r.returncode == 2 and "being added to by another process" in r.stderr
    assert len(ns.Index.open(tmp_path / "i")) == 1000
