"""The persistent index at a million documents, beside SQLite, datasketch and rensa.

Run from the repository root after ``pip install -e '.[bench]'``::

    nice -n 10 python -m benchmarks.bench_index                 # 10^6 stored (about 25 min)
    nice -n 10 python -m benchmarks.bench_index --quick         # the two speed goals (4 min)
    python -m benchmarks.bench_index --quick --n 100000 --no-write   # a quick look

Side by side in one run, on the same short news items (``nearsim.io.example._generate``,
about 35% edited copies of earlier items) and nearsim's default settings (character
5-grams, k = 128, t = 0.8, 9 bands × 13 rows):

* **nearsim.Index** (``benchmarks/_index_goals.py``, the part ``--quick`` runs alone): build
  of ``--n`` documents (signing, then the index written); then ``--batches`` adds of 340
  documents (a job board's scan: ~340 posts a minute), each timed as a whole (``Index.add``:
  signing, matching against everything stored, the segment and the manifest written and
  fsync-ed) with its fsync time and the documents its merge rewrote; a query of one
  document in a warm process and in fresh ones (the library as a DataFrame and as lists,
  and ``nearsim index query``; the index's files in the page cache, as on a server that
  wrote them); ``Index.compact``; disk bytes a document. The matches of every add are
  compared with the batch library's answer on all documents (``candidate_pairs`` with the
  bucket limit, exact copies, estimate ≥ t: what ``nearsim dedup`` accepts), restricted to
  pairs with an added document.
* **SQLite** (the other storage measured): the same signatures and band keys in a
  ``WITHOUT ROWID`` table keyed (band, key, position) and a signature table, WAL journal,
  ``synchronous=FULL``; an add of 340 as one transaction: the band lookups, the candidates'
  signatures read, the rows inserted (storage only: the matching itself is not counted, so
  its figure is a lower bound of an add).
* **datasketch** ``MinHashLSH`` (in memory, 9 × 13) fed nearsim's own signatures, so its
  candidates are the same buckets: the build inserts every document; an add queries each
  new document, keeps candidates whose estimate reaches t, and inserts it. Its matches are
  compared with nearsim's (they differ only by nearsim's rules for exact copies and hot
  buckets, counted apart).
* **rensa** ``RMinHashLSH`` (in memory; its own R-MinHash, so 16 bands × 8 rows: its bands
  must divide k): built from digest matrices, then the same adds (query, estimate ≥ t,
  insert). Its matches come from other hash functions, so they are compared by overlap.

The machine is shared (two cores): the load average is recorded beside every timing.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._index_goals import goals_report, run_goals
from benchmarks._report import byte_compile, machine, markdown_table, write_section

BATCH = 340
SEED = 0


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def ms(seconds: float) -> str:
    return f"{1000 * seconds:,.1f}"


class Timer:
    """Wall and CPU time (this process, all threads) of each timed block."""

    def __init__(self):
        self.wall, self.cpu = [], []

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.process_time()

    def __exit__(self, *exc):
        self.wall.append(time.perf_counter() - self._w)
        self.cpu.append(time.process_time() - self._c)


def stats(times: list[float]) -> dict:
    a = np.asarray(times)
    return {
        "median ms": ms(float(np.median(a))),
        "p90 ms": ms(float(np.quantile(a, 0.9))),
        "max ms": ms(float(a.max())),
    }


# -- nearsim ---------------------------------------------------------------------------------
def batch_answer(sig, valid, keys, n_old, s) -> set[tuple[int, int]]:
    """What ``nearsim dedup`` accepts on all documents, the pairs with an added one."""
    import nearsim as ns
    from nearsim.run.options import BUCKET_LIMIT

    links = ns.copy_pairs(keys, valid)
    distinct = valid.copy()
    distinct[links[:, 1]] = False
    cand = ns.candidate_pairs(sig, s.bands, s.rows, valid=distinct, bucket_limit=BUCKET_LIMIT)
    cand = cand[cand[:, 1] >= n_old]
    cand = cand[ns.estimate_pairs(sig, cand) >= s.threshold]
    links = links[links[:, 1] >= n_old]
    return {(int(a), int(b)) for a, b in np.concatenate([cand, links])}


# -- SQLite ----------------------------------------------------------------------------------
SQL_COLD = """
import json, sqlite3, sys, time
import numpy as np
t0 = time.perf_counter()
con = sqlite3.connect(sys.argv[1])
keys = json.loads(sys.argv[2])
found = set()
for band, key in enumerate(keys):
    rows = con.execute("SELECT pos FROM bands WHERE band=? AND key=?", (band, key))
    found |= {p for (p,) in rows}
sigs = [np.frombuffer(s, dtype=np.uint32) for (s,) in con.execute(
    "SELECT sig FROM docs WHERE pos IN (%s)" % ",".join(map(str, found)))] if found else []
print(json.dumps({"open_query": time.perf_counter() - t0, "candidates": len(found),
                  "cpu": time.process_time()}))
"""


def sql_keys(band_keys: np.ndarray) -> np.ndarray:
    """uint64 band keys as SQLite's signed 64-bit integers."""
    return band_keys.view(np.int64)


def run_sqlite(work: Path, n_old, batches, sig, ids, band_keys, s) -> dict:
    path = work / "index.sqlite"
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE docs(pos INTEGER PRIMARY KEY, id TEXT, sig BLOB)")
    con.execute(
        "CREATE TABLE bands(band INTEGER, key INTEGER, pos INTEGER, PRIMARY KEY(band, key, pos))"
        " WITHOUT ROWID"
    )
    keys = sql_keys(band_keys)
    out = {}
    t = time.perf_counter()
    con.execute("BEGIN")
    con.executemany(
        "INSERT INTO docs VALUES (?, ?, ?)",
        ((i, ids[i], sig[i].tobytes()) for i in range(n_old)),
    )
    for band in range(s.bands):  # in key order: the B-tree is filled left to right
        order = np.lexsort((np.arange(n_old), keys[band, :n_old]))
        kb, pb = keys[band, order].tolist(), order.tolist()
        con.executemany(
            "INSERT INTO bands VALUES (?, ?, ?)", ((band, kb[i], pb[i]) for i in range(n_old))
        )
    con.execute("COMMIT")
    out["write"] = time.perf_counter() - t
    out["build_load"] = load()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    out["bytes"] = sum(p.stat().st_size for p in work.glob("index.sqlite*"))
    timer = Timer()
    for k in range(batches):
        lo = n_old + k * BATCH
        timer.__enter__()
        con.execute("BEGIN IMMEDIATE")
        cand = set()
        for j in range(lo, lo + BATCH):
            for band in range(s.bands):
                cand |= {
                    p
                    for (p,) in con.execute(
                        "SELECT pos FROM bands WHERE band=? AND key=?", (band, int(keys[band, j]))
                    )
                }
        if cand:
            list(con.execute(f"SELECT sig FROM docs WHERE pos IN ({','.join(map(str, cand))})"))
        con.executemany(
            "INSERT INTO docs VALUES (?, ?, ?)",
            ((j, ids[j], sig[j].tobytes()) for j in range(lo, lo + BATCH)),
        )
        con.executemany(
            "INSERT INTO bands VALUES (?, ?, ?)",
            ((band, int(keys[band, j]), j)
             for band in range(s.bands) for j in range(lo, lo + BATCH)),
        )
        con.execute("COMMIT")
        timer.__exit__()
    out["add"], out["add_cpu"] = timer.wall, timer.cpu
    out["add_load"] = load()
    con.close()
    probe = [int(x) for x in keys[:, n_old + 5]]
    cold = []
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-c", SQL_COLD, str(path), json.dumps(probe)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        got = json.loads(r.stdout)
        got["process"] = time.perf_counter() - t
        cold.append(got)
    out["cold"] = cold
    out["cold_load"] = load()
    return out


# -- peers -----------------------------------------------------------------------------------
def run_datasketch(n_old, batches, sig, s) -> tuple[dict, set]:
    from datasketch import LeanMinHash, MinHashLSH

    def MinHash(num_perm, hashvalues):  # a sketch from given values (no permutations drawn)
        return LeanMinHash(seed=1, hashvalues=hashvalues, scheme="legacy")

    k = s.num_perm
    sig64 = sig.astype(np.uint64)
    lsh = MinHashLSH(threshold=s.threshold, num_perm=k, params=(s.bands, s.rows))
    out = {}
    t = time.perf_counter()
    with lsh.insertion_session() as session:
        for i in range(n_old):
            session.insert(i, MinHash(num_perm=k, hashvalues=sig64[i]), check_duplication=False)
    out["write"] = time.perf_counter() - t
    out["build_load"] = load()
    timer, found = Timer(), set()
    for b in range(batches):
        lo = n_old + b * BATCH
        timer.__enter__()
        for j in range(lo, lo + BATCH):
            m = MinHash(num_perm=k, hashvalues=sig64[j])
            cand = np.asarray(lsh.query(m), dtype=np.int64)
            if cand.size:
                keep = cand[(sig[cand] == sig[j]).mean(axis=1) >= s.threshold]
                found |= {(int(c), j) for c in keep.tolist()}
            lsh.insert(j, m, check_duplication=False)
        timer.__exit__()
    out["add"], out["add_cpu"] = timer.wall, timer.cpu
    out["add_load"] = load()
    warm = []
    for i in range(200):
        m = MinHash(num_perm=k, hashvalues=sig64[(i * 7919) % n_old])
        t = time.perf_counter()
        lsh.query(m)
        warm.append(time.perf_counter() - t)
    out["warm"] = warm
    return out, found


def run_rensa(texts, n_old, batches, s) -> tuple[dict, set]:
    import rensa as rs

    import nearsim as ns

    opts = s.shingle_options()
    bands = 16
    lsh = rs.RMinHashLSH(s.threshold, s.num_perm, bands)
    digests = np.empty((len(texts), s.num_perm), dtype=np.uint32)
    out = {"banding": f"{bands} × {s.num_perm // bands}"}
    t = time.perf_counter()
    step = 50_000
    for lo in range(0, n_old, step):
        sets = [list(ns.shingles(x, **opts)) for x in texts[lo : min(lo + step, n_old)]]
        m = rs.RMinHash.digest_matrix_from_token_sets(sets, s.num_perm, 1)
        lsh.insert_matrix(m, lo)
        digests[lo : lo + len(sets)] = np.asarray(m.to_rows(), dtype=np.uint32)
    out["write"] = time.perf_counter() - t
    out["build_load"] = load()
    timer, found = Timer(), set()
    for b in range(batches):
        lo = n_old + b * BATCH
        timer.__enter__()
        sets = [list(ns.shingles(x, **opts)) for x in texts[lo : lo + BATCH]]
        mhs = rs.RMinHash.from_token_sets(sets, s.num_perm, 1)
        for i, m in enumerate(mhs):
            j = lo + i
            digests[j] = m.digest()
            cand = np.asarray(lsh.query(m), dtype=np.int64)
            if cand.size:
                keep = cand[(digests[cand] == digests[j]).mean(axis=1) >= s.threshold]
                found |= {(int(c), j) for c in keep.tolist()}
            lsh.insert(j, m)
        timer.__exit__()
    out["add"], out["add_cpu"] = timer.wall, timer.cpu
    out["add_load"] = load()
    return out, found


# -- the run ---------------------------------------------------------------------------------
def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1_000_000, help="documents stored first")
    p.add_argument("--batches", type=int, default=100, help="adds of 340 documents")
    p.add_argument(
        "--parts", default="goals,sqlite,datasketch,rensa",
        help="comma-separated; goals (nearsim.Index) always runs",
    )  # fmt: skip
    p.add_argument(
        "--quick", action="store_true",
        help="the two speed goals only (adds of 340; a query in a fresh process): --parts goals",
    )  # fmt: skip
    p.add_argument("--work", default=None, help="a folder for the indexes (default: temporary)")
    p.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    args = p.parse_args(argv)
    parts = {"goals"} if args.quick else set(args.parts.split(",")) | {"goals"}
    started = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    compiled = byte_compile("nearsim")

    import nearsim as ns
    from nearsim.index.matching import all_band_keys
    from nearsim.io.example import _generate
    from nearsim.run.signing import sign_batch

    s = ns.RunSettings()
    total = args.n + args.batches * BATCH
    t = time.perf_counter()
    texts = _generate(total, SEED)["text"].tolist()
    gen_s = time.perf_counter() - t
    t = time.perf_counter()
    valid, sig, keys = sign_batch(texts, s)
    sign_s, sign_load = time.perf_counter() - t, load()
    print(f"{total:,} documents generated in {gen_s:.0f} s, signed in {sign_s:.0f} s", flush=True)
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-index-"))
    work.mkdir(parents=True, exist_ok=True)
    results, peers = {}, {}
    try:
        found, goals = run_goals(work, texts, args.n, args.batches, (valid, sig, keys), s)
        t = time.perf_counter()
        want = batch_answer(sig, valid, keys, args.n, s)
        check = {"pairs": len(want), "identical": found == want, "seconds": time.perf_counter() - t}
        identical = (
            f"{'identical to' if check['identical'] else 'NOT the same as'} the batch library's "
            f"answer on all {total:,} documents restricted to pairs with an added one "
            f"({len(found):,} found, {len(want):,} expected)"
        )
        print(f"nearsim: adds {stats(goals['adds']['wall'])}, {identical}", flush=True)
        results["nearsim"] = nearsim_row(goals)
        shutil.rmtree(work / "goals-index")
        header = f"{machine()}; {compiled} Default settings (character 5-grams, k = " \
                 f"{s.num_perm}, t = {s.threshold:g}, {s.bands} bands × {s.rows} rows)."
        section = goals_report(args.n, args.batches, goals["adds"], goals["cold"],
                               goals["compaction"], identical, started, header)  # fmt: skip
        if args.no_write:
            print(section)
        else:
            write_section("index-goals", section)
        if "sqlite" in parts:
            ids = [str(i) for i in range(total)]
            results["sqlite"] = run_sqlite(
                work, args.n, args.batches, sig, ids, all_band_keys(sig, s.bands, s.rows), s
            )
            print(f"sqlite: adds {stats(results['sqlite']['add'])}", flush=True)
            for f in work.glob("index.sqlite*"):
                f.unlink()
        if "datasketch" in parts:
            res, got = run_datasketch(args.n, args.batches, sig, s)
            results["datasketch"] = res
            peers["datasketch"] = got
            print(f"datasketch: adds {stats(res['add'])}", flush=True)
        if "rensa" in parts:
            res, got = run_rensa(texts, args.n, args.batches, s)
            results["rensa"] = res
            peers["rensa"] = got
            print(f"rensa: adds {stats(res['add'])}", flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if len(results) == 1:
        return
    body = report(args, s, started, compiled, gen_s, sign_s, sign_load, results, found, want,
                  check, peers, valid, keys)  # fmt: skip
    if args.no_write:
        print(body)
    else:
        write_section("index", body)


def nearsim_row(goals: dict) -> dict:
    """nearsim's figures in the peers' table's terms."""
    adds = goals["adds"]
    return {
        "write": goals["build"]["wall"],
        "build_load": f"{goals['build']['load']:.1f}",
        "bytes": goals["build"]["bytes"],
        "add": adds["wall"],
        "add_cpu": adds["cpu"],
        "add_load": f"{min(adds['load']):.1f}–{max(adds['load']):.1f}",
        "warm": [w for w, _ in goals["warm"]],
        "rewritten": adds["rewritten"],
        "segments": adds["segments"],
    }


def report(args, s, started, compiled, gen_s, sign_s, sign_load, results, found, want, check,
           peers, valid, keys) -> str:  # fmt: skip
    n = args.n
    lines = [
        "## The persistent index (`benchmarks/bench_index.py`)\n",
        f"{machine()}; run {started}; the machine was shared with other engineers' work "
        f"(two cores; load average beside each figure). {compiled} {n:,} short news items "
        f"stored, then {args.batches} adds of {BATCH} (a job board's scan each minute); "
        f"default settings (character 5-grams, k = {s.num_perm}, t = {s.threshold:g}, "
        f"{s.bands} bands × {s.rows} rows). Generating the {n + args.batches * BATCH:,} "
        f"documents took {gen_s:.0f} s and signing them {sign_s:.0f} s (load {sign_load}), "
        "for every tool but rensa (its own hashing).\n",
    ]
    rows = []
    for name, r in results.items():
        row = {
            "": name,
            "build (s)": f"{r['write']:.1f}"
            + (" + signing" if name != "rensa" else " (with its hashing)"),
            "build load": r["build_load"],
            **{f"add 340: {k}": v for k, v in stats(r["add"]).items()},
            "add 340: median CPU ms": ms(float(np.median(r["add_cpu"]))),
            "add load": r["add_load"],
            "bytes a document": f"{r['bytes'] / n:,.0f}" if "bytes" in r else "in memory",
        }
        if "cold" in r:
            best = min(r["cold"], key=lambda c: c["process"])
            row["cold query: process (s)"] = f"{best['process']:.2f}"
            row["cold: open + query (s)"] = f"{best['open_query']:.3f}" + (
                f" (open {best['open']:.3f})" if "open" in best else ""
            )
            row["cold: process CPU (s)"] = f"{best['cpu']:.2f}"
            row["cold load"] = r["cold_load"]
        if "warm" in r:
            row["warm query: median ms"] = ms(float(np.median(r["warm"])))
        rows.append(row)
    cols = [
        "", "build (s)", "build load", "add 340: median ms", "add 340: p90 ms", "add 340: max ms",
        "add 340: median CPU ms", "add load", "bytes a document", "cold query: process (s)",
        "cold: open + query (s)", "cold: process CPU (s)", "cold load", "warm query: median ms",
    ]  # fmt: skip
    lines.append(markdown_table(rows, cols))
    nr = results["nearsim"]
    merged = np.asarray(nr["rewritten"]) > 0
    wall = np.asarray(nr["add"])
    merges = int(merged.sum())
    merge_ms = ms(float(np.median(wall[merged]))) if merges else "—"
    plain_ms = ms(float(np.median(wall[~merged]))) if (~merged).any() else "—"
    lines.append(
        f"\nnearsim: the matches of the {args.batches} adds are "
        f"{'identical to' if check['identical'] else 'NOT the same as'} the batch library's "
        f"answer on all {n + args.batches * BATCH:,} documents restricted to pairs with an added "
        f"one ({len(found):,} found, {len(want):,} expected). {nr['segments']} segments at the "
        f"end; {merges} of the adds merged segments (median {merge_ms} ms, the others "
        f"{plain_ms} ms). Queries in a fresh process, fsync and compaction: the section "
        "above (`--quick`). SQLite's adds count storage only (band lookups, candidates' "
        "signatures read, rows inserted, one fsync-ed transaction), no matching; its cold "
        "query, band lookups only."
    )
    copy_rows = set()
    links = __import__("nearsim").copy_pairs(keys, valid)
    later_copies = set(links[:, 1].tolist())
    copy_rows = {b for _, b in want if b in later_copies}
    if "datasketch" in peers:
        ds = peers["datasketch"]
        plain_ds = {(a, b) for a, b in ds if b not in copy_rows and a not in later_copies}
        plain_ns = {(a, b) for a, b in found if b not in copy_rows}
        lines.append(
            f"\ndatasketch on nearsim's signatures: {len(ds):,} pairs; for added documents that "
            f"are not exact copies, against stored documents that are first occurrences of "
            f"their text, its pairs and nearsim's are "
            f"{'identical' if plain_ds == plain_ns else 'different'} ({len(plain_ds):,} and "
            f"{len(plain_ns):,}; {len(plain_ns - plain_ds)} only nearsim's, "
            f"{len(plain_ds - plain_ns)} only datasketch's: a hot bucket is compared with its "
            "first and latest member only in nearsim). Exact copies: nearsim matches each "
            "with its text's first occurrence only; datasketch with every stored copy."
        )
    if "rensa" in peers:
        rn = peers["rensa"]
        lines.append(
            f"\nrensa ({results['rensa']['banding']}, its own R-MinHash): {len(rn):,} pairs; "
            f"{len(rn & found):,} of nearsim's {len(found):,} among them (other hash functions: "
            "estimates near t fall on either side)."
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
