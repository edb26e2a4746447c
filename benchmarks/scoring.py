"""Scoring a run, side by side: labeller vs ranx vs ir_measures, from a run file to a report.

Issue 26 point 8 asks that scoring a 20,000-query x 100 run cost at most 1.5x ranx's time
and no more memory. Each engine does the same job in its own child process (so one engine's
allocations and JIT caches do not count against another): read the TREC run file from disk,
score every query, and write a JSON report of the per-query values and their means. The
files are written first, the engine warmed on a tiny input (ranx's numba compile is a
one-off), then the job alone is timed in CPU seconds of the process (every thread; a loaded
machine's waits left out) and its peak resident memory above the process's resident memory before it
(``VmHWM`` after resetting it) recorded.

labeller scores chunks by offsets: each run id is a chunk of its own 100-character range
and each relevant id's range is an answer span, so under ``any_overlap`` its chunk-level
recall@k, MRR@k and nDCG@k are exactly the peers' on binary qrels; the benchmark asserts
that the three engines' means agree before it reports a time. labeller's leg is its own
pipeline, as ``labeller eval --run run.trec --k 10`` runs it: ``read_run`` (every row parsed
and checked), each query's top 10 in trec_eval order (``RunFileRetriever.retrieve`` and
``top_k``: the depth ``run_eval`` asks for is the largest k), ``score_query`` at both levels,
and ``write_report``, with the garbage collector paused as ``run_eval`` pauses it. The peers
read the qrels file too (labeller's spans stand in for it).
Registered from ``run.py``.
"""

from __future__ import annotations

import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

K = 10
CHUNKS_PER_DOC = 10
WIDTH = 100  # characters of each synthetic chunk


def synthetic(n_queries: int, depth: int, seed: int = 26) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """qrels {qid: {chunk id: 1}} (1-3 relevant each) and run {qid: {chunk id: score}}
    (``depth`` results, a relevant one at a random rank for most queries)."""
    rng = random.Random(seed)
    n_chunks = max(1000, n_queries * 5)
    qrels, run = {}, {}
    for i in range(n_queries):
        qid = f"q{i}"
        relevant = rng.sample(range(n_chunks), rng.randint(1, 3))
        qrels[qid] = {f"c{j}": 1 for j in relevant}
        ranked = rng.sample(range(n_chunks), depth)
        if rng.random() < 0.8:
            ranked[rng.randrange(depth)] = relevant[0]
        ranked = list(dict.fromkeys(ranked))
        run[qid] = {f"c{j}": float(depth - r) for r, j in enumerate(ranked)}
    return qrels, run


def write_inputs(folder: Path, qrels, run) -> tuple[Path, Path]:
    """The run and qrels as TREC files (what every engine reads)."""
    run_path, qrels_path = folder / "run.trec", folder / "qrels.trec"
    run_path.write_text("".join(f"{q} Q0 {c} {r} {s!r} bench\n" for q, ranked in run.items()
                                for r, (c, s) in enumerate(ranked.items(), 1)))
    qrels_path.write_text("".join(f"{q} 0 {c} {g}\n" for q, rel in qrels.items() for c, g in rel.items()))
    return run_path, qrels_path


def _place(cid: str) -> tuple[str, int]:
    j = int(cid[1:])
    return f"d{j // CHUNKS_PER_DOC}", (j % CHUNKS_PER_DOC) * WIDTH


def labeller_setup(qrels, run):
    """What labeller has before a run arrives: the chunks and each query's answer spans
    (the chunk's own range: under any_overlap only that chunk hits it)."""
    from labeller.core.chunkers import Chunk
    from labeller.core.resolve import Span
    from labeller.eval.metrics import ChunkPositions

    ids = {c for q in (*qrels.values(), *run.values()) for c in q}
    chunks = []
    for i, cid in enumerate(sorted(ids)):
        doc, start = _place(cid)
        chunks.append(Chunk(cid, doc, i, start, start + WIDTH, "", "", "", ""))
    spans = {qid: [Span(d, s, s + WIDTH, "paragraph", s, s + WIDTH) for d, s in map(_place, rel)]
             for qid, rel in qrels.items()}
    pos = ChunkPositions(chunks)
    pos.chunking  # noqa: B018 -- built with the chunk set (``ChunkSet.of``) before any run is read
    return pos, spans


def score_labeller(run_path: Path, qrels_path: Path, out: Path, setup) -> dict[str, float]:
    from labeller.eval.runner import gc_paused

    with gc_paused():  # as ``run_eval`` scores
        return _score_labeller(run_path, setup, out)


def _score_labeller(run_path: Path, setup, out: Path) -> dict[str, float]:
    from labeller.core.hitrules import parse_hit_rule
    from labeller.eval import report as rp
    from labeller.eval.metrics import score_query
    from labeller.eval.retrievers.base import top_k
    from labeller.eval.retrievers.run_file import RunFileRetriever, read_run

    pos, spans = setup
    rule = parse_hit_rule("any_overlap")
    retriever = RunFileRetriever(run_path, read_run(run_path))
    rows, sums = [], {"recall": [], "mrr": [], "ndcg": []}
    for qid, sp in spans.items():
        ranked = [h.chunk_id for h in top_k(retriever.retrieve(qid, "", K), K)]  # as ``run_eval --k 10`` asks
        s = score_query(qid, ranked, sp, False, pos, rule, (K,))
        rows.append({"query_id": qid, "hit_ranks": s.hit_ranks, "doc_ranks": s.doc_ranks,
                     "chunk": {k: rp.rnd(v) for k, v in s.chunk.items()}, "doc": {k: rp.rnd(v) for k, v in s.doc.items()}})
        for m, values in sums.items():
            values.append(s.chunk[f"{m}@{K}"])
    means = {m: math.fsum(v) / len(v) for m, v in sums.items()}
    rp.write_report(out, {"aggregate": {"chunk": {f"{m}@{K}": v for m, v in means.items()}}, "queries": rows})
    return means


def _write_json(out: Path, means: dict[str, float], per_query: dict) -> None:
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"mean": means, "queries": per_query}, fh, indent=2, sort_keys=True)


def score_ranx(run_path: Path, qrels_path: Path, out: Path, setup) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    run = Run.from_file(str(run_path), kind="trec")
    names = [f"recall@{K}", f"mrr@{K}", f"ndcg@{K}"]
    got = evaluate(Qrels.from_file(str(qrels_path), kind="trec"), run, names)
    means = {"recall": got[f"recall@{K}"], "mrr": got[f"mrr@{K}"], "ndcg": got[f"ndcg@{K}"]}
    _write_json(out, means, {q: {m: float(v) for m, v in per.items()} for q, per in run.scores.items()})
    return means


def score_ir_measures(run_path: Path, qrels_path: Path, out: Path, setup) -> dict[str, float]:
    import ir_measures
    from ir_measures import RR, R, nDCG

    names = {R @ K: "recall", RR @ K: "mrr", nDCG @ K: "ndcg"}
    evaluator = ir_measures.evaluator(list(names), ir_measures.read_trec_qrels(str(qrels_path)))
    per_query: dict[str, dict[str, float]] = {}
    for m in evaluator.iter_calc(ir_measures.read_trec_run(str(run_path))):
        per_query.setdefault(m.query_id, {})[names[m.measure]] = m.value
    means = {name: math.fsum(q.get(name, 0.0) for q in per_query.values()) / len(per_query) for name in names.values()}
    _write_json(out, means, per_query)
    return means


ENGINES = {"labeller": score_labeller, "ranx": score_ranx, "ir_measures": score_ir_measures}
SETUP = {"labeller": labeller_setup}


def _job(engine: str, folder: Path, n_queries: int, depth: int):
    """The inputs of one job: files written, the engine's own setup done (untimed)."""
    qrels, run = synthetic(n_queries, depth)
    sub = folder / f"{n_queries}x{depth}"
    sub.mkdir()
    run_path, qrels_path = write_inputs(sub, qrels, run)
    setup = SETUP[engine](qrels, run) if engine in SETUP else None
    return run_path, qrels_path, sub / "report.json", setup


def child(engine: str, n_queries: int, depth: int) -> None:
    """One engine in this process: warm-up, then CPU time and peak memory of the job alone."""
    score = ENGINES[engine]
    with tempfile.TemporaryDirectory() as tmp:
        score(*_job(engine, Path(tmp), 20, 10))
        job = _job(engine, Path(tmp), n_queries, depth)
        before = _resident_kb(reset_peak=True)
        t = time.process_time()
        values = score(*job)
        seconds = time.process_time() - t
        peak = _peak_kb() - before
    print(json.dumps({"engine": engine, "seconds": seconds, "peak_mb": peak / 1024, "values": values}))


def _status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _resident_kb(reset_peak: bool) -> int:
    """Resident memory now, the peak mark reset to it where Linux allows (``clear_refs`` 5):
    the setup's own peak (the synthetic run as Python dicts) would otherwise hide the job's."""
    if reset_peak:
        try:
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:
            pass
    now = _status_kb("VmRSS")
    return now if now is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _peak_kb() -> int:
    peak = _status_kb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def compare(n_queries: int = 20_000, depth: int = 100) -> list[dict]:
    """Every engine on the same run; refuses to report when their values disagree."""
    out = []
    for engine in ENGINES:
        proc = subprocess.run([sys.executable, __file__, engine, str(n_queries), str(depth)], capture_output=True,
                              text=True, cwd=Path(__file__).parent)
        if proc.returncode:
            raise SystemExit(f"scoring benchmark, {engine}: {proc.stderr[-2000:]}")
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    ours = out[0]["values"]
    for other in out[1:]:
        for m, v in ours.items():
            if abs(other["values"][m] - v) > 1e-9:
                raise SystemExit(f"scoring benchmark: {m}@{K} labeller {v} != {other['engine']} "
                                 f"{other['values'][m]}: the comparison is void")
    return out


def figures(bench, n_queries: int = 20_000, depth: int = 100) -> None:
    """Time and peak memory per engine, and labeller's ratios to ranx (targets 1.5x and 1x) and to ir_measures."""
    if not bench.name.startswith("synthetic"):  # the run is synthetic: once per benchmark, not per corpus
        return
    if bench.smoke:
        n_queries = 2_000
    runs = [compare(n_queries, depth) for _ in range(bench.repeat)]
    label = f"scoring a {n_queries:,} x {depth} run file to a report (recall, MRR, nDCG @{K})"
    for i, engine in enumerate(ENGINES):
        bench.fig(f"score_{engine}_s", f"{label}: {engine}, CPU", "s").runs = [r[i]["seconds"] for r in runs]
        bench.fig(f"score_{engine}_mb", f"{label}: {engine}, peak memory", "MB").runs = [r[i]["peak_mb"] for r in runs]
    bench.fig("score_ratio_ranx", f"{label}: labeller / ranx time", "x", 1.5).runs = \
        [r[0]["seconds"] / r[1]["seconds"] for r in runs]
    bench.fig("score_mem_ratio_ranx", f"{label}: labeller / ranx peak memory", "x", 1.0).runs = \
        [r[0]["peak_mb"] / max(r[1]["peak_mb"], 1e-9) for r in runs]
    bench.fig("score_ratio_ir_measures", f"{label}: labeller / ir_measures time", "x").runs = \
        [r[0]["seconds"] / r[2]["seconds"] for r in runs]
    bench.fig("score_mem_ratio_ir_measures", f"{label}: labeller / ir_measures peak memory", "x").runs = \
        [r[0]["peak_mb"] / max(r[2]["peak_mb"], 1e-9) for r in runs]


if __name__ == "__main__":
    if len(sys.argv) == 4:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    else:
        for r in compare(*(int(a) for a in sys.argv[1:3])):
            print(r)
