"""Whole corpora end to end: ``nearsim dedup`` beside datasketch, rensa, text-dedup, datatrove.

Run from the repository root after ``pip install -e '.[bench]'``::

    python -m benchmarks.bench_corpus                       # every part (about 30 min)
    python -m benchmarks.bench_corpus --parts nearsim --sizes 100000,1000000
    python -m benchmarks.bench_corpus --parts peers --repeats 3
    python -m benchmarks.bench_corpus --parts dask
    python -m benchmarks.bench_corpus --parts hot --work /tmp/bench-hot --repeats-large 2
    python -m benchmarks.bench_corpus --report-only         # rebuild the section

The corpus: short news-like documents with planted edited copies (about 35% of the rows
are copies of an earlier row, from exact to heavily edited; ``nearsim.io.example._generate``,
the explorer's Example without its 20,000 cap), written once as JSON lines
(``{"id": ..., "text": ...}``) to ``--work`` (a temporary folder; never committed) and
reused by later runs. Every measured run is a fresh process started by this script, which
stays small (standard library only) so the child's peak resident memory (``ru_maxrss``
from ``wait4``, which on Linux starts from the parent's peak at ``exec``) is the child's
own; while a run goes, ``/proc/PID/status`` (``VmHWM``) of it and of every process it
starts is read ten times a second, which gives each process's own peak (Dask's workers).
The corpus file is read once before each part, so every tool reads it from the page cache.

Parts (``--parts``; each stores its runs in ``WORK/results.json`` as they finish, and the
"corpus" section of ``benchmarks/RESULTS.md`` is rebuilt from all stored runs, so parts can
be run apart, in any order, and again):

* ``nearsim``: ``python -m nearsim dedup corpus.jsonl --out DIR --id-field id --quiet``
  at each of ``--sizes`` (default settings: char 5-grams, k = 128, t = 0.8, the tuner's
  9 bands × 13 rows); wall and CPU time (user + system, all threads) of the process, its
  peak memory, and the stage times from its ``summary.json``.
* ``peers``: at 100,000 documents, the same job with datasketch (``MinHash.bulk`` +
  ``MinHashLSH``), rensa (bulk ``RMinHash.from_token_sets`` + ``RMinHashLSH``) and
  text-dedup's MinHash, beside ``nearsim dedup`` at the same banding: 9 × 13 (the tuner's
  and datasketch's choice for t = 0.8, k = 128) and 16 × 8 (rensa's LSH needs a number of
  bands that divides k; 16 × 8 is the one close to t = 0.8). Recall and precision of each
  tool's accepted pairs against ``nearsim.exact_pairs`` at t = 0.8 (computed once, not
  timed). text-dedup runs from its own virtualenv (``--text-dedup-python``; make it with
  ``python -m venv /tmp/textdedup-venv && /tmp/textdedup-venv/bin/pip install text-dedup``:
  its pins must not touch this one), offline, on the same local JSONL file.
* ``dask``: ``--engine dask --workers 2`` at the largest size, beside the local engine,
  with each process's peak (the client, which also runs the LocalCluster's scheduler, and
  the two worker processes) and the engine's stages. Skipped, and said so, while
  ``nearsim/dask_engine.py`` is not in this checkout.
* ``hot``: a crawl with boilerplate (``benchmarks.corpora.hot_bucket_corpus``: 15% exact
  copies of three pages, 2.5% dated near-copies of one of them, a chain of edits) at
  ``--hot-size`` (1,000,000), with ``nearsim dedup`` (default settings) on it, on the same
  crawl ``without_boilerplate`` and with ``--cluster-check true``; then at
  ``--hot-peer-size`` (100,000) ``nearsim dedup`` beside datatrove's MinHash deduplication
  (its four steps with ``LocalPipelineExecutor``, 9 buckets × 13 hashes, its own word
  5-grams, from its own virtualenv, ``--datatrove-python``: ``python -m venv
  /tmp/datatrove-venv && /tmp/datatrove-venv/bin/pip install datatrove==0.10.1 spacy
  orjson tokenizers 'xxhash<4'``) and text-dedup's MinHash. Each run's removed documents
  are counted by source (not timed). Its section of RESULTS.md is "corpus-hot"
  (``benchmarks/_hot_part.py``; child tasks in ``benchmarks/_hot_tasks.py``).
* ``sketch``: ``nearsim dedup --sketch superminhash`` beside classic MinHash and rensa's
  R-MinHash at 16 × 8 with the estimate filter, under each hash seed of ``--seeds`` at
  100,000 documents (recall as mean ± standard error, and where each sketch loses the
  true pairs), once at the larger ``--sizes``. Its section of RESULTS.md is
  "corpus-sketch" (``benchmarks/_sketch_part.py``). The second sketch's recall goal:
  ``--parts sketch --sizes 100000 --seeds 1,2,3,4,5,6,7,8,9,10`` (about six minutes).

The machine is usually shared: the load average before and after each run is stored and
shown; compare tools side by side within one part, never absolute times across days.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._report import byte_compile

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SEED = 0
THRESHOLD = 0.8
TUNED = (9, 13)  # nearsim's tune(0.8, 128)[0], and datasketch's _optimal_param(0.8, 128)
SHARED = (16, 8)  # rensa's LSH: bands must divide k = 128
PEER_SIZE = 100_000
PARTS = ("nearsim", "peers", "dask", "hot", "sketch")
VERIFY = ("estimate", "exact")  # nearsim beside the peers: the estimate filter, and exact
TEXT_DEDUP_PYTHON = "/tmp/textdedup-venv/bin/python"
DATATROVE_PYTHON = "/tmp/datatrove-venv/bin/python"


# -- processes ----------------------------------------------------------------------------
def load() -> float | None:
    try:
        return round(os.getloadavg()[0], 1)
    except OSError:  # pragma: no cover - not on every platform
        return None


def _status_kb(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) of a process in KB, (0, 0) when it is gone."""
    hwm = rss = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return hwm, rss


def _cpu_seconds(pid: int) -> float:
    """A process's own CPU seconds so far (user + system, without its children), 0 when
    it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _descendants(root: int) -> list[int]:
    """Every live process under ``root`` (from the parent ids in /proc)."""
    parent: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                parent[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.extend(kids)
        todo.extend(kids)
    return out


def _role(pid: int, root: int) -> str:
    if pid == root:
        return "main"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
    if "spawn_main" in cmd or ("forkserver" in cmd and "main_path" in cmd):
        return "worker"
    if "resource_tracker" in cmd:
        return "resource tracker"
    if "forkserver" in cmd:
        return "forkserver"
    return cmd.split(" ")[0].rsplit("/", 1)[-1] or "?"


def measure(cmd: list[str], log: Path, *, env=None, cwd=ROOT, timeout: float = 7200) -> dict:
    """Run ``cmd`` to its end; its wall, CPU (user + system, its waited-for children
    included), ``ru_maxrss`` and each process's own peak (``VmHWM``, polled); and
    ``cpu_processes``: the CPU seconds of every process of the run (each one's own, as
    last polled, at most 0.1 s late; or the waited-for CPU when that is more), which also
    counts the processes it never waits for (a forkserver's pool workers)."""
    before = load()
    procs: dict[int, dict] = {}
    tree_peak = 0
    with open(log, "w") as out:
        started = time.perf_counter()
        pid = _spawn_in(cmd, cwd, env, out)
        polls = 0
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() - started > timeout:
                os.killpg(pid, signal.SIGKILL)  # the process group this run started
            pids = [pid] + (_descendants(pid) if polls % 5 == 0 else list(procs))
            total = 0
            for p in dict.fromkeys(pids):
                hwm, rss = _status_kb(p)
                if hwm:
                    rec = procs.setdefault(
                        p, {"pid": p, "role": _role(p, pid), "peak_kb": 0, "cpu": 0.0}
                    )
                    rec["peak_kb"] = max(rec["peak_kb"], hwm)
                    rec["cpu"] = max(rec["cpu"], _cpu_seconds(p))
                    total += rss
            tree_peak = max(tree_peak, total)
            polls += 1
            time.sleep(0.1)
        wall = time.perf_counter() - started
    return {
        "cmd": " ".join(cmd),
        "exit": os.waitstatus_to_exitcode(status),
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "maxrss_mb": usage.ru_maxrss / 1024,
        "processes": [
            {"pid": r["pid"], "role": r["role"], "peak_mb": r["peak_kb"] / 1024}
            for r in procs.values()
        ],
        "tree_rss_peak_mb": tree_peak / 1024,
        "cpu_processes": max(  # each process's own CPU, as last polled; no double count
            sum(r["cpu"] for r in procs.values()), usage.ru_utime + usage.ru_stime
        ),
        "load_before": before,
        "load_after": load(),
        "log": str(log),
    }


def _spawn_in(cmd, cwd, env, out) -> int:
    """posix_spawn has no working-directory action before Python 3.13: change directory
    around it (this script is single-threaded)."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return os.posix_spawn(
            cmd[0],
            cmd,
            dict(os.environ if env is None else env),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, out.fileno(), 2),
            ],
            setsid=True,
        )
    finally:
        os.chdir(here)


# -- the stored results -------------------------------------------------------------------
class Store:
    """``WORK/results.json``: every finished run, by key, written after each one."""

    def __init__(self, work: Path):
        self.path = work / "results.json"
        self.data: dict = json.loads(self.path.read_text()) if self.path.exists() else {}

    def get(self, key: str):
        return self.data.get(key)

    def put(self, key: str, value: dict) -> None:
        value = dict(value, when=_dt.datetime.now().isoformat(timespec="seconds"))
        self.data[key] = value
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        os.replace(tmp, self.path)


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.work = Path(args.work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.store = Store(self.work)
        self.n_peer = args.peer_size

    # -- child tasks -----------------------------------------------------------------------
    def task(self, kind: str, name: str, **task) -> dict:
        """Run one ``_corpus_tasks`` task in a fresh interpreter; its result + measures."""
        task_file = self.work / f"{name}.task.json"
        out_file = self.work / f"{name}.out.json"
        task_file.write_text(json.dumps(dict(task, kind=kind)))
        out_file.unlink(missing_ok=True)
        cmd = [PY, "-m", "benchmarks.bench_corpus", "--child", str(task_file), str(out_file)]
        m = measure(cmd, self.work / f"{name}.log")
        if m["exit"] != 0 or not out_file.exists():
            raise RuntimeError(f"{kind} failed (exit {m['exit']}); see {m['log']}:\n" + _tail(m))
        return dict(json.loads(out_file.read_text()), measured=m)

    def corpus(self, n: int) -> Path:
        path = self.work / f"news-{n}-seed{SEED}.jsonl"
        if not path.exists() or not self.store.get(f"corpus/{n}"):
            print(f"generating {n:,} documents → {path}", flush=True)
            res = self.task("generate", f"generate-{n}", n=n, seed=SEED, path=str(path))
            self.store.put(f"corpus/{n}", {k: v for k, v in res.items() if k != "measured"})
        return path

    def truth(self, n: int) -> Path:
        out = self.work / f"truth-{n}.npy"
        if not out.exists() or not self.store.get(f"truth/{n}"):
            print(f"exact pairs at t = {THRESHOLD} on {n:,} documents", flush=True)
            res = self.task(
                "truth", f"truth-{n}", path=str(self.corpus(n)), threshold=THRESHOLD, out=str(out)
            )
            self.store.put(f"truth/{n}", {k: v for k, v in res.items() if k != "measured"})
        return out

    def score(self, n: int, name: str, **found) -> dict:
        """Recall and precision of a run's pairs (and of its clusters) against the truth."""
        res = self.task("score", f"score-{name}", truth=str(self.truth(n)), n=n, **found)
        res.pop("measured")
        return res

    @staticmethod
    def warm_file(path: Path) -> None:
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass

    # -- nearsim dedup -----------------------------------------------------------------------
    def nearsim(
        self, n: int, name: str, extra: tuple[str, ...] = (), repeats: int = 1, path=None
    ) -> dict:
        """``nearsim dedup`` in a subprocess, best (least wall time) of ``repeats``; on
        ``path``, else the news corpus of ``n`` documents."""
        path = path or self.corpus(n)
        runs = []
        for rep in range(repeats):
            out = self.work / f"out-{name}"
            shutil.rmtree(out, ignore_errors=True)
            cmd = [PY, "-m", "nearsim", "dedup", str(path), "--out", str(out)]
            cmd += ["--id-field", "id", "--quiet", *extra]
            m = measure(cmd, self.work / f"{name}-{rep}.log")
            if m["exit"] != 0:
                raise RuntimeError(f"nearsim dedup failed (exit {m['exit']}):\n" + _tail(m))
            summary = json.loads((out / "summary.json").read_text())
            runs.append(dict(m, summary=summary, out=str(out)))
            if rep + 1 < repeats:
                shutil.rmtree(out, ignore_errors=True)
        best = min(runs, key=lambda r: r["wall"])
        best["walls"] = [r["wall"] for r in runs]
        best["cpus"] = [r["cpu"] for r in runs]
        return best

    def warm_up(self) -> None:
        """Compile (or load) numba's kernels once, so no timed run pays for compiling;
        byte-compile nearsim as an installed copy is."""
        self.store.put("compiled", {"sentence": byte_compile("nearsim")})
        small = self.work / "warm-up.jsonl"
        if not small.exists():
            with open(self.corpus(self.n_peer)) as fh, open(small, "w") as out:
                for _, line in zip(range(2000), fh, strict=False):
                    out.write(line)
        for engine in ("local", "dask") if self.has_dask() else ("local",):
            out = self.work / f"out-warm-{engine}"
            cmd = [PY, "-m", "nearsim", "dedup", str(small), "--out", str(out), "--quiet"]
            cmd += ["--engine", engine] + (["--workers", "2"] if engine == "dask" else [])
            measure(cmd, self.work / f"warm-up-{engine}.log")

    @staticmethod
    def has_dask() -> bool:
        return (ROOT / "nearsim" / "dask_engine.py").exists()

    # -- the parts ---------------------------------------------------------------------------
    def part_nearsim(self) -> None:
        self.warm_up()
        for n in self.args.sizes:
            self.warm_file(self.corpus(n))
            reps = self.args.repeats if n <= self.n_peer else self.args.repeats_large
            print(f"nearsim dedup, {n:,} documents ({reps} run(s))", flush=True)
            # the news generator's template collisions pass the 20,000,000-candidate memory
            # guard near 10^7 documents (20.7 million): raised there, as a user would
            extra = ("--max-candidates", "100000000") if n >= 5_000_000 else ()
            res = self.nearsim(n, f"nearsim-{n}", extra=extra, repeats=reps)
            if self.store.get(f"truth/{n}") or n <= self.n_peer:
                res["score"] = self.score(
                    n, f"nearsim-{n}", copies_of=str(self.corpus(n)), **_nearsim_found(res)
                )
            self.store.put(f"nearsim/{n}", res)

    def part_sketch(self) -> None:
        from benchmarks._sketch_part import part_sketch

        part_sketch(self)

    def part_peers(self) -> None:
        n = self.n_peer
        path = self.corpus(n)
        self.truth(n)
        self.store.put("peers/size", {"documents": n})
        self.warm_up()
        self.warm_file(path)
        for rep in range(self.args.repeats):  # round robin: drift in load hits every tool
            for banding in (TUNED, SHARED):
                tag = f"{banding[0]}x{banding[1]}"
                for verify in VERIFY:
                    key = f"peers/{'nearsim' if verify == 'estimate' else 'nearsim-exact'} {tag}"
                    self._peer_run(key, rep, lambda b=banding, v=verify: self._ns(b, v))
                self._peer_run(f"peers/datasketch {tag}", rep, lambda b=banding: self._ds(b))
            self._peer_run(f"peers/rensa {SHARED[0]}x{SHARED[1]}", rep, self._rensa)
            self._peer_run("peers/text-dedup 9x13", rep, self._text_dedup)
        res = self.task("spread", "spread", path=str(path), documents=30_000, threshold=THRESHOLD)
        self.store.put("peers/spread", {k: v for k, v in res.items() if k != "measured"})
        res = self.task("rensa_matrix", "rensa-matrix", path=str(path))
        self.store.put(
            "peers/rensa signatures", {k: res[k] for k in ("stage_seconds", "stage_cpu")}
        )

    def _peer_run(self, key: str, rep: int, run) -> None:
        print(f"{key} (run {rep + 1} of {self.args.repeats})", flush=True)
        try:
            res = run()
        except RuntimeError as exc:  # a peer that fails is reported, not fatal
            res = {"error": str(exc).splitlines()[0], "wall": float("inf")}
        old = self.store.get(key)
        if rep > 0 and old and old.get("wall", float("inf")) <= res.get("wall", float("inf")):
            old["walls"] = [*old.get("walls", [old.get("wall")]), res.get("wall")]
            self.store.put(key, old)
            return
        res["walls"] = [*(old.get("walls", []) if rep > 0 and old else []), res.get("wall")]
        self.store.put(key, res)

    def _ns(self, banding: tuple[int, int], verify: str) -> dict:
        extra = ("--auto-tune", "false", "--bands", str(banding[0]), "--rows", str(banding[1]))
        name = f"nearsim-{verify}-{banding[0]}x{banding[1]}"
        res = self.nearsim(self.n_peer, f"peer-{name}", extra=(*extra, "--verify", verify))
        found = _nearsim_found(res)
        res["score"] = self.score(
            self.n_peer, name, copies_of=str(self.corpus(self.n_peer)), **found
        )
        res["banding"] = list(banding)
        return res

    def _peer_task(self, kind: str, banding: tuple[int, int]) -> dict:
        name = f"{kind}-{banding[0]}x{banding[1]}"
        files = {
            "pairs_out": str(self.work / f"{name}.pairs.npy"),
            "labels_out": str(self.work / f"{name}.labels.npy"),
        }
        res = self.task(
            kind,
            name,
            path=str(self.corpus(self.n_peer)),
            threshold=THRESHOLD,
            banding=list(banding),
            out_dir=str(self.work / f"out-{name}"),
            **files,
        )
        res.update(res.pop("measured"))
        res["score"] = self.score(
            self.n_peer, name, pairs_npy=files["pairs_out"], labels_npy=files["labels_out"]
        )
        return res

    def _ds(self, banding: tuple[int, int]) -> dict:
        return self._peer_task("datasketch", banding)

    def _rensa(self) -> dict:
        return self._peer_task("rensa", SHARED)

    def _text_dedup(self) -> dict:
        res, labels = self.text_dedup(self.corpus(self.n_peer), self.n_peer, "text-dedup")
        res["score"] = self.score(self.n_peer, "text-dedup", labels_npy=str(labels))
        return res

    def text_dedup(self, path: Path, n: int, name: str) -> tuple[dict, Path]:
        """text-dedup's MinHash at 9 × 13 on ``path``; its measures and the labels file."""
        py = self.args.text_dedup_python
        if not Path(py).exists():
            raise RuntimeError(
                f"not run: no text-dedup virtualenv at {py} (python -m venv "
                "/tmp/textdedup-venv && /tmp/textdedup-venv/bin/pip install text-dedup)"
            )
        td = self.work / name
        shutil.rmtree(td, ignore_errors=True)  # no cached Arrow copy from an earlier run
        td.mkdir()
        env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TQDM_DISABLE="1")
        env["COLUMNS"] = "200"  # its rich logger: one line per timer
        cmd = [py, "-m", "text_dedup.minhash", "--path", "json"]
        cmd += ["--data_files", str(path), "--split", "train"]
        cmd += ["--cache_dir", str(td / "cache"), "--output", str(td / "out"), "--column", "text"]
        cmd += ["--num_perm", "128", "--threshold", str(THRESHOLD), "--b", str(TUNED[0])]
        cmd += ["--r", str(TUNED[1]), "--hash_func", "xxh3", "--num_proc", "2", "--debug"]
        m = measure(cmd, self.work / f"{name}.log", env=env, cwd=td)
        if m["exit"] != 0:
            raise RuntimeError(f"text-dedup failed (exit {m['exit']}): " + _tail(m))
        labels = self.work / f"{name}.labels.npy"
        convert = (  # its union-find (uf.pkl, --debug) → the smallest row of each cluster
            "import pickle, sys, numpy as np\n"
            "uf = pickle.load(open(sys.argv[1], 'rb')); n = int(sys.argv[2])\n"
            "root = np.array([uf.find(i) for i in range(n)])\n"
            "first = np.full(n, n); np.minimum.at(first, root, np.arange(n))\n"
            "np.save(sys.argv[3], first[root])\n"
        )
        c = measure([py, "-c", convert, str(td / "out" / "uf.pkl"), str(n), str(labels)],
                    self.work / f"{name}-convert.log")  # fmt: skip
        if c["exit"] != 0:
            raise RuntimeError("reading text-dedup's uf.pkl failed: " + _tail(c))
        res = dict(m, banding=list(TUNED), stages=_text_dedup_timer(Path(m["log"])))
        return res, labels

    def part_dask(self) -> None:
        n = max(self.args.sizes)
        if not self.has_dask():
            self.store.put(
                f"dask/{n}",
                {"error": "not measured: nearsim/dask_engine.py is not in this checkout"},
            )
            return
        self.warm_up()
        self.warm_file(self.corpus(n))
        for engine in ("local", "dask"):
            print(f"--engine {engine}, {n:,} documents", flush=True)
            extra = ("--engine", engine) + (("--workers", "2") if engine == "dask" else ())
            res = self.nearsim(n, f"dask-{engine}-{n}", extra=extra, repeats=1)
            self.store.put(f"dask/{n}/{engine}", res)

    def part_hot(self) -> None:
        from benchmarks._hot_part import run_hot

        run_hot(self)


def _nearsim_found(res: dict) -> dict:
    return {
        "pairs_parquet": str(Path(res["out"]) / "pairs.parquet"),
        "clusters_parquet": str(Path(res["out"]) / "clusters.parquet"),
    }


def _text_dedup_timer(log: Path) -> dict:
    """text-dedup's own stage timer lines (``Loading : 0.47s``) from its log; its logger
    may wrap the value onto the next line."""
    import re

    text = re.sub(r":\s+timer\.py:\d+\s*\n\s*", ": ", log.read_text(errors="replace"))
    out = {}
    for m in re.finditer(r"INFO\s+(\w+)\s+:\s+([\d.]+)s", text):
        out[m.group(1)] = float(m.group(2))
    return out


def _tail(m: dict) -> str:
    try:
        return "\n".join(Path(m["log"]).read_text(errors="replace").splitlines()[-5:])
    except OSError:
        return ""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default=",".join(PARTS), help="nearsim,peers,dask (default all)")
    ap.add_argument("--sizes", default="100000,1000000", help="corpus sizes for nearsim")
    ap.add_argument("--peer-size", type=int, default=PEER_SIZE, help="documents for the peers")
    ap.add_argument("--repeats", type=int, default=2, help="runs per tool at 100,000 (best)")
    ap.add_argument("--repeats-large", type=int, default=1, help="runs above 100,000")
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "nearsim_bench_corpus"))
    ap.add_argument("--text-dedup-python", default=TEXT_DEDUP_PYTHON)
    ap.add_argument("--hot-size", type=int, default=1_000_000, help="the hot part's crawl")
    ap.add_argument("--hot-peer-size", type=int, default=100_000, help="hot: beside the peers")
    ap.add_argument("--datatrove-python", default=DATATROVE_PYTHON)
    ap.add_argument("--seeds", default="1,2,3", help="sketch: hash seeds at --peer-size")
    ap.add_argument("--report-only", action="store_true", help="only rebuild the section")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        from benchmarks._corpus_tasks import run_child

        run_child(*args.child)
        return
    args.sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(","))
    args.seeds = tuple(int(s) for s in args.seeds.split(","))
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        ap.error(f"--parts {sorted(unknown)} is not accepted; accepted: {', '.join(PARTS)}")
    bench = Bench(args)
    if not args.report_only:
        for part in parts:
            started = load()
            getattr(bench, f"part_{part}")()
            bench.store.put(f"part/{part}", {"load_before": started, "load_after": load()})
    # a section is rebuilt when one of its parts ran (or with --report-only and stored
    # runs), so running one part never writes "not run yet" over another's results
    stored = {k.split("/")[1] for k in bench.store.data if k.startswith("part/")}
    ran = stored if args.report_only else set(parts)
    if "sketch" in ran:
        from benchmarks._sketch_part import report_sketch

        report_sketch(bench.store.data)
    if ran - {"hot", "sketch"} or (args.report_only and not stored):
        from benchmarks._corpus_report import report

        report(bench.store.data, Path(args.work))
    if "hot" in ran:
        from benchmarks._hot_part import report_hot

        report_hot(bench.store.data, Path(args.work))


if __name__ == "__main__":
    main()
