"""The command a user runs, beside the scorer they would use instead (issue 37 point 7).

``labeller eval --chunks CHUNKS --run RUN --out report.json --format json`` on a 20,000-query
x 100-result run over 200,000 chunk ids, timed as a whole process (Python start, reading the
project and the chunk file, building the golden set, reading the run, scoring every k,
bootstrap intervals, the full JSON report written to ``--out`` and printed on stdout, as a
CI job reads it; the text format's rich tables of every miss are another cost, not this one), beside ranx's whole
process on the same qrels and run (read both TREC files, evaluate the same measures at the
same ks, write the per-query values and means as JSON). ``scoring.py`` times the scoring
step alone; this is the figure a user sees.

The machine this runs on is shared, so the figure is **CPU seconds** of the child process
(``RUSAGE_CHILDREN`` user + system, every thread), which a busy machine does not inflate;
wall seconds are kept beside it. Peak memory is the child's ``ru_maxrss`` read in a wrapper
process (``run.peak_mb``). Both commands run once before timing (``warm``): labeller caches
the golden set in the project and ranx its numba compilation on disk, as any second run finds them.

The project: 2,000 documents of 100 paragraphs, each paragraph exactly one 100-character
chunk of the chunk file (offsets), so under ``any_overlap`` a question's quote hits exactly
its chunk and labeller's chunk-level measures are ranx's on binary qrels: the benchmark
asserts that chunk recall@k and MRR@k agree before it reports a time.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

DOCS, PARAS = 2_000, 100  # 200,000 chunks
WIDTH = 100  # characters of a paragraph and its blank line
KS = (1, 5, 10, 20, 50)  # labeller's default sweep ([eval] k)
SMOKE = {"docs": 200, "queries": 2_000}

_RANX = """\
import json, sys
from ranx import Qrels, Run, evaluate
qrels, run = Qrels.from_file(sys.argv[1], kind="trec"), Run.from_file(sys.argv[2], kind="trec")
ks = [int(k) for k in sys.argv[4].split(",")]
names = [f"{m}@{k}" for m in ("recall", "hit_rate", "mrr", "ndcg") for k in ks]
means = evaluate(qrels, run, names)
with open(sys.argv[3], "w", encoding="utf-8") as fh:
    json.dump({"mean": means, "queries": {q: {m: float(v) for m, v in s.items()} for q, s in run.scores.items()}},
              fh, indent=2, sort_keys=True)
"""


def _paragraph(d: int, p: int, rng: random.Random) -> str:
    """98 characters, unique in the corpus (doc and paragraph numbers lead), then a blank line."""
    words = " ".join(rng.choice(("kestrel", "heron", "osprey", "plover", "avocet", "curlew", "tern", "gull"))
                     for _ in range(16))
    return f"Doc{d} para{p} {words}"[:98].rstrip().ljust(98, ".") + "\n\n"


def write_project(root: Path, n_docs: int, n_queries: int, depth: int = 100, seed: int = 37) -> dict[str, Path]:
    """The corpus, golden questions (1-3 quotes each), chunk file, TREC qrels and run."""
    rng = random.Random(seed)
    (root / "corpus").mkdir(parents=True)
    (root / "golden").mkdir()
    paras: list[tuple[str, int, str]] = []  # (doc, start, text) per chunk
    for d in range(n_docs):
        texts = [_paragraph(d, p, rng) for p in range(PARAS)]
        name = f"d{d:04d}.md"
        (root / "corpus" / name).write_text("".join(texts), encoding="utf-8")
        paras.extend((name, p * WIDTH, t) for p, t in enumerate(texts))
    chunk_ids = [f"c{i}" for i in range(len(paras))]
    with open(root / "chunks.jsonl", "w", encoding="utf-8") as fh:
        for cid, (doc, start, _) in zip(chunk_ids, paras):
            fh.write(json.dumps({"id": cid, "doc": doc, "start": start, "end": start + WIDTH}) + "\n")
    questions, qrels, run = [], [], []
    for i in range(n_queries):
        qid = f"q{i}"
        relevant = rng.sample(range(len(paras)), rng.randint(1, 3))
        questions.append({"id": qid, "query": f"question {i}?", "expected_answer": "",
                          "locators": [{"doc": paras[j][0], "quote": paras[j][2].rstrip("\n")} for j in relevant]})
        qrels.extend(f"{qid} 0 {chunk_ids[j]} 1\n" for j in relevant)
        ranked = rng.sample(range(len(paras)), depth)
        if rng.random() < 0.8:
            ranked[rng.randrange(depth)] = relevant[0]
        ranked = list(dict.fromkeys(ranked))
        run.extend(f"{qid} Q0 {chunk_ids[j]} {r} {depth - r + 1}.0 bench\n" for r, j in enumerate(ranked, 1))
    (root / "golden" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    (root / "labeller.toml").write_text(f"[limits]\nmax_records = {max(10_000, n_queries)}\n"
                                        f"max_file_bytes = {64 << 20}\n")
    (root / "qrels.trec").write_text("".join(qrels))
    (root / "run.trec").write_text("".join(run))
    return {"chunks": root / "chunks.jsonl", "run": root / "run.trec", "qrels": root / "qrels.trec"}


def commands(root: Path) -> dict[str, list[str]]:
    from run import cli

    return {"labeller": cli("eval", "--root", str(root), "--chunks", "chunks.jsonl", "--run", "run.trec",
                            "--out", "report.json", "--format", "json", "--no-history"),
            "ranx": [sys.executable, "-c", _RANX, "qrels.trec", "run.trec", "ranx.json", ",".join(map(str, KS))]}


def agree(root: Path) -> None:
    """labeller's chunk recall@k and MRR@k are ranx's recall@k and mrr@k, or the comparison is void."""
    ours = json.loads((root / "report.json").read_text())["aggregate"]
    theirs = json.loads((root / "ranx.json").read_text())["mean"]
    chunk = ours["chunk"] if "chunk" in ours else ours
    for k in KS:
        for m, peer in (("recall", "recall"), ("mrr", "mrr")):
            v = chunk[f"{m}@{k}"]["value"] if isinstance(chunk[f"{m}@{k}"], dict) else chunk[f"{m}@{k}"]
            if abs(v - theirs[f"{peer}@{k}"]) > 1e-6:
                raise SystemExit(f"eval_whole: {m}@{k} labeller {v} != ranx {theirs[f'{peer}@{k}']}: comparison void")


def warm(root: Path) -> None:
    """Each command once, untimed: labeller's golden set cached in the project, ranx's numba
    functions compiled into its on-disk cache (a one-off per machine, as the golden set's build is)."""
    for cmd in commands(root).values():
        subprocess.run(cmd, cwd=root, capture_output=True, check=True)


def measure_once(root: Path) -> dict[str, dict[str, float]]:
    from run import _children_cpu, peak_mb

    out = {}
    for engine, cmd in commands(root).items():
        cpu = _children_cpu()
        peak, wall = peak_mb(cmd, root)
        out[engine] = {"cpu_s": _children_cpu() - cpu, "wall_s": wall, "peak_mb": peak}
    return out


def figures(bench) -> None:
    """CPU seconds, wall seconds and peak memory per engine, and labeller's ratios to ranx (1.5x, 1x)."""
    if not bench.name.startswith("synthetic"):
        return
    n_docs, n_queries = (SMOKE["docs"], SMOKE["queries"]) if bench.smoke else (DOCS, 20_000)
    root = bench.root.parent / "eval-whole"
    if not root.exists():
        write_project(root, n_docs, n_queries)
    warm(root)
    runs = [measure_once(root) for _ in range(1 if bench.smoke else bench.repeat)]
    agree(root)
    label = f"eval --chunks --run, {n_queries:,} x 100 over {n_docs * PARAS:,} chunks, whole process"
    for engine in ("labeller", "ranx"):
        f = bench.fig(f"whole_{engine}_cpu_s", f"{label}: {engine}, CPU", "s")
        f.runs = [r[engine]["cpu_s"] for r in runs]
        bench.fig(f"whole_{engine}_wall_s", f"{label}: {engine}, wall", "s").runs = [r[engine]["wall_s"] for r in runs]
        bench.fig(f"whole_{engine}_mb", f"{label}: {engine}, peak memory", "MB").runs = \
            [r[engine]["peak_mb"] for r in runs]
    bench.fig("whole_ratio_ranx", f"{label}: labeller / ranx CPU time", "x", 1.5).runs = \
        [r["labeller"]["cpu_s"] / r["ranx"]["cpu_s"] for r in runs]
    bench.fig("whole_mem_ratio_ranx", f"{label}: labeller / ranx peak memory", "x", 1.0).runs = \
        [r["labeller"]["peak_mb"] / r["ranx"]["peak_mb"] for r in runs]


if __name__ == "__main__":  # python benchmarks/eval_whole.py FOLDER [queries docs]: generate once, then measure
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    folder = Path(sys.argv[1])
    if not folder.exists():
        t = time.perf_counter()
        write_project(folder, int(sys.argv[3]) if len(sys.argv) > 3 else DOCS,
                      int(sys.argv[2]) if len(sys.argv) > 2 else 20_000)
        print(f"generated in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        warm(folder)
    result = measure_once(folder)
    agree(folder)
    print(json.dumps(result | {"ratio_cpu": result["labeller"]["cpu_s"] / result["ranx"]["cpu_s"],
                               "ratio_mb": result["labeller"]["peak_mb"] / result["ranx"]["peak_mb"]}))
