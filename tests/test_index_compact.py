"""An add rewrites at most MERGE_LIMIT documents (sealed segments are never merged by an
add); Index.compact / `nearsim index compact` merges the sealed ones while adds go on,
keeps every document and answer, and a compaction killed at any moment leaves the index
as before or after."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.index import segments
from nearsim.index.segments import sealed_prefix, tail_to_merge


@settings(max_examples=300)
@given(sizes=st.lists(st.integers(1, 300), min_size=1, max_size=80), limit=st.integers(2, 600))
def test_an_add_never_merges_more_than_the_limit_nor_a_sealed_segment(sizes, limit):
    """Simulating the manifest through adds of any sizes: a merge holds at most ``limit``
    documents; a segment of more than limit / 2 is never merged again; below the sealed
    segments, sizes at least double going back (the binary counter)."""
    counts: list[int] = []
    for size in sizes:
        counts.append(size)
        first = tail_to_merge(counts, limit)
        if first < len(counts):
            merged = counts[first:]
            assert sum(merged) <= limit
            assert all(2 * c <= limit for c in merged[:-1])  # none sealed but the new one
            counts = [*counts[:first], sum(merged)]
        s = sealed_prefix(counts, limit)
        tail = counts[s:]
        assert all(tail[i] > tail[i + 1] for i in range(len(tail) - 1)), counts


def test_sealed_prefix_reaches_the_last_large_segment():
    assert sealed_prefix([100, 3, 90, 5, 2], 100) == 3
    assert sealed_prefix([40, 30], 100) == 0
    assert sealed_prefix([], 100) == 0


def texts_of(n: int, seed: int) -> list[str]:
    return ns.example_corpus(n, seed=seed)["text"].tolist()


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(segments, "MERGE_LIMIT", 64)
    return 64


def test_adds_leave_the_sealed_segments_alone_and_compact_merges_them(tmp_path, small_limit):
    texts = texts_of(1500, seed=12)
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:500])  # a large first segment, as after a build
    base = idx._manifest.segments[0].file
    rng = np.random.default_rng(2)
    pos = 500
    while pos < 1200:
        size = int(rng.integers(1, 30))
        idx.add(texts[pos : pos + size])
        pos += size
        assert idx._manifest.segments[0].file == base  # never rewritten by an add
    counts = [e.count for e in idx._manifest.segments]
    assert sealed_prefix(counts, small_limit) >= 5, counts
    probes = texts[1200:1500] + [t.upper() for t in texts[:600:9]]
    before = idx.query(probes)
    rewritten = idx.compact()
    after_counts = [e.count for e in idx._manifest.segments]
    assert rewritten == sum(counts[: sealed_prefix(counts, small_limit)])
    assert after_counts[0] == rewritten and len(after_counts) < len(counts)
    assert idx.compact() == 0  # nothing left to merge
    pd.testing.assert_frame_equal(idx.query(probes), before)
    fresh = ns.Index.open(tmp_path / "i")
    pd.testing.assert_frame_equal(fresh.query(probes), before)
    whole = ns.Index.create(tmp_path / "whole")
    whole.add(texts[:pos])
    every = np.arange(pos)
    np.testing.assert_array_equal(fresh.signatures(every), whole.signatures(every))
    assert fresh.ids(every) == whole.ids(every)
    assert sorted(p.name for p in fresh.path.iterdir() if p.suffix == ".seg") == sorted(
        e.file for e in fresh._manifest.segments
    )


def test_adds_go_on_while_a_compaction_merges(tmp_path, small_limit, monkeypatch):
    """Another writer adds (and merges small segments) while the compaction merges: both
    land, in order."""
    texts = texts_of(900, seed=13)
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:300])
    for lo in range(300, 700, 20):
        idx.add(texts[lo : lo + 20])
    other = ns.Index.open(tmp_path / "i")
    real = segments.merge_segments
    added = []

    def merge_while_adding(parts):
        out = real(parts)
        for lo in range(700, 900, 25):  # another writer, during the compaction's merge
            other.add(texts[lo : lo + 25])
            added.append(lo)
        return out

    monkeypatch.setattr(segments, "merge_segments", merge_while_adding)
    assert idx.compact() > 0
    assert added and len(idx) == 900
    whole = ns.Index.create(tmp_path / "whole")
    whole.add(texts)
    every = np.arange(900)
    np.testing.assert_array_equal(idx.signatures(every), whole.signatures(every))
    assert idx.ids(every) == whole.ids(every)
    pd.testing.assert_frame_equal(idx.query(texts[::37]), whole.query(texts[::37]))


COMPACTOR = textwrap.dedent(
    """
    import sys
    import nearsim as ns
    from nearsim.index import segments
    segments.MERGE_LIMIT = 64
    idx = ns.Index.open(sys.argv[1])
    print("ready", flush=True)
    idx.compact()
    print("done", flush=True)
    """
)


def test_a_compaction_killed_at_random_moments_leaves_before_or_after(tmp_path, small_limit):
    texts = texts_of(1400, seed=14)
    folder = tmp_path / "i"
    idx = ns.Index.create(folder)
    idx.add(texts[:1000])
    for lo in range(1000, 1400, 20):
        idx.add(texts[lo : lo + 20])
    probes = texts[::50]
    want = idx.query(probes)
    sig = idx.signatures(np.arange(1400))
    rng = np.random.default_rng(6)
    done = 0
    for _ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", COMPACTOR, str(folder)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(float(rng.uniform(0.0, 0.4)))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        done += "done" in out
        after = ns.Index.open(folder)
        assert len(after) == 1400
        np.testing.assert_array_equal(after.signatures(np.arange(1400)), sig)
        pd.testing.assert_frame_equal(after.query(probes), want)
    after.add(["one more document, added after the kills"])  # cleans a killed one's files
    named = {e.file for e in after._manifest.segments}
    assert {p.name for p in folder.iterdir() if p.suffix in (".seg", ".part")} == named
    assert after.compact() >= 0


def test_cli_compact(tmp_path, small_limit):
    texts = texts_of(300, seed=15)
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:100])
    for lo in range(100, 300, 10):
        idx.add(texts[lo : lo + 10])
    r = subprocess.run([sys.executable, "-c", "import sys; from nearsim.index import segments; "
                        "segments.MERGE_LIMIT = 64; from nearsim.cli import main; "
                        "sys.exit(main(sys.argv[1:]))", "index", "compact", str(tmp_path / "i")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "documents rewritten" in r.stdout and "the index holds 300" in r.stdout
    r = subprocess.run([sys.executable, "-m", "nearsim", "index", "compact", str(tmp_path / "no")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "does not exist" in r.stderr


ADDS = """
import sys
from nearsim.index import segments
segments.MERGE_LIMIT = 64
from nearsim.cli import main
for _ in range(int(sys.argv[1])):
    status = main(sys.argv[2:])
sys.exit(status)
"""


def test_cli_add_suggests_compact_when_segments_pile_up(tmp_path, small_limit):
    """Adds of 40 with a cap of 64: every add's segment is sealed at once, so 32 adds make
    32 segments, and the last add says how to merge them."""
    import json

    texts = texts_of(300, seed=16)[:40]
    corpus = tmp_path / "new.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    ns.Index.create(tmp_path / "i")
    r = subprocess.run([sys.executable, "-c", ADDS, "31", "index", "add", str(tmp_path / "i"),
                        str(corpus)], capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "nearsim index compact" not in r.stdout
    r = subprocess.run([sys.executable, "-c", ADDS, "1", "index", "add", str(tmp_path / "i"),
                        str(corpus)], capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert ns.Index.open(tmp_path / "i").segment_count == 32
    assert f"`nearsim index compact {tmp_path / 'i'}` merges the large ones" in r.stdout


def test_a_compaction_waits_for_an_add_in_progress_to_install(tmp_path, small_limit, monkeypatch):
    """wait=0 fails at once only for another compaction: the result waits for the writer
    lock, held here for 0.5 s as a long add would, and is installed."""
    import threading

    from nearsim.index.storage import writer_lock

    texts = texts_of(300, seed=17)
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:100])
    for lo in range(100, 300, 40):
        idx.add(texts[lo : lo + 40])
    real = segments.merge_segments
    held = threading.Event()

    def hold():
        with writer_lock(tmp_path / "i"):
            held.set()
            time.sleep(0.5)

    def merge_then_lock(parts):
        out = real(parts)
        threading.Thread(target=hold).start()
        held.wait(10)
        return out

    monkeypatch.setattr(segments, "merge_segments", merge_then_lock)
    t = time.perf_counter()
    assert idx.compact(wait=0.0) == 300
    assert time.perf_counter() - t >= 0.4
    assert idx.segment_count == 1 and len(idx) == 300
