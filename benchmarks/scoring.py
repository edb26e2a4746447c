"""Scoring a run, side by side: labeller vs ranx vs ir_measures on the same qrels and run.

Issue 26 point 8 asks that scoring a 20,000-query x 100 run cost at most 1.5x ranx's time
and no more memory. Each engine scores the same synthetic run in its own child process
(so one engine's allocations and JIT caches do not count against another), in process
there: the run and qrels are built first, the engine warmed on a tiny input (ranx's numba
compile is a one-off), then the scoring alone is timed and its peak resident memory above
the process's peak before it (``ru_maxrss``) recorded.

labeller scores chunks by offsets: each run id is a chunk of its own 100-character range
and each relevant id's range is an answer span, so under ``any_overlap`` its chunk-level
recall@k, MRR@k and nDCG@k are exactly the peers' on binary qrels; the benchmark asserts
that the three engines' means agree before it reports a time. Registered from ``run.py``.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

K = 10
CHUNKS_PER_DOC = 10


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


def score_labeller(qrels, run) -> dict[str, float]:
    from labeller.core.chunkers import Chunk
    from labeller.core.hitrules import parse_hit_rule
    from labeller.core.resolve import Span
    from labeller.eval.metrics import ChunkPositions, score_query

    ids = {c for q in (*qrels.values(), *run.values()) for c in q}
    width = 100

    def place(cid: str) -> tuple[str, int]:
        j = int(cid[1:])
        return f"d{j // CHUNKS_PER_DOC}", (j % CHUNKS_PER_DOC) * width

    def span(cid: str) -> Span:
        """The chunk's own range as the answer: under any_overlap only that chunk hits it."""
        doc, start = place(cid)
        return Span(doc, start, start + width, "paragraph", start, start + width)

    chunks = []
    for i, cid in enumerate(sorted(ids)):
        doc, start = place(cid)
        chunks.append(Chunk(cid, doc, i, start, start + width, "", "", "", ""))
    pos = ChunkPositions(chunks)
    rule = parse_hit_rule("any_overlap")
    sums = {"recall": 0.0, "mrr": 0.0, "ndcg": 0.0}
    for qid, rel in qrels.items():
        ranked = sorted(run.get(qid, {}), key=lambda c: -run[qid][c])
        spans = [span(c) for c in rel]
        s = score_query(qid, ranked, spans, False, pos, rule, (K,))
        for m in sums:
            sums[m] += s.chunk[f"{m}@{K}"]
    return {m: v / len(qrels) for m, v in sums.items()}


def score_ranx(qrels, run) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    got = evaluate(Qrels(qrels), Run(run), [f"recall@{K}", f"mrr@{K}", f"ndcg@{K}"])
    return {"recall": got[f"recall@{K}"], "mrr": got[f"mrr@{K}"], "ndcg": got[f"ndcg@{K}"]}


def score_ir_measures(qrels, run) -> dict[str, float]:
    import ir_measures
    from ir_measures import RR, R, nDCG

    got = ir_measures.calc_aggregate([R @ K, RR @ K, nDCG @ K], qrels, run)
    return {"recall": got[R @ K], "mrr": got[RR @ K], "ndcg": got[nDCG @ K]}


ENGINES = {"labeller": score_labeller, "ranx": score_ranx, "ir_measures": score_ir_measures}


def child(engine: str, n_queries: int, depth: int) -> None:
    """One engine in this process: warm-up, then time and peak memory of the scoring alone."""
    score = ENGINES[engine]
    score(*synthetic(20, 10))
    qrels, run = synthetic(n_queries, depth)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    values = score(qrels, run)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"engine": engine, "seconds": seconds, "peak_mb": peak / 1024, "values": values}))


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
    """Time and peak memory per engine, and labeller's ratio to ranx (targets 1.5x and 1x)."""
    if not bench.name.startswith("synthetic"):  # the run is synthetic: once per benchmark, not per corpus
        return
    if bench.smoke:
        n_queries = 2_000
    runs = [compare(n_queries, depth) for _ in range(bench.repeat)]
    label = f"scoring a {n_queries:,} x {depth} run (recall, MRR, nDCG @{K})"
    for i, engine in enumerate(ENGINES):
        bench.fig(f"score_{engine}_s", f"{label}: {engine}", "s").runs = [r[i]["seconds"] for r in runs]
        bench.fig(f"score_{engine}_mb", f"{label}: {engine}, peak memory", "MB").runs = [r[i]["peak_mb"] for r in runs]
    bench.fig("score_ratio_ranx", f"{label}: labeller / ranx time", "x", 1.5).runs = \
        [r[0]["seconds"] / r[1]["seconds"] for r in runs]
    bench.fig("score_mem_ratio_ranx", f"{label}: labeller / ranx peak memory", "x", 1.0).runs = \
        [r[0]["peak_mb"] / max(r[1]["peak_mb"], 1e-9) for r in runs]


if __name__ == "__main__":
    if len(sys.argv) == 4:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    else:
        for r in compare(*(int(a) for a in sys.argv[1:3])):
            print(r)
