"""Big inputs within the bounds (issue 23): a run file at its 256 MiB bound, a chunk file of
200,000 overlapping chunks, and the bootstrap at two sample counts, each timed with its
peak memory in a subprocess (``labeller eval`` as a user runs it; the bootstrap alone).

Each input is one a project may legitimately hand to ``eval``: a value a bound allows must
also be affordable (≤ 1 GB; the chunk file in ≤ 30 s on two cores), and the bootstrap's
memory must not grow with its sample count. A smoke run (CI) scales every input down so
this part takes seconds; its figures are not judged.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

RUN_BYTES = 256 * 1024 * 1024  # labeller's bound on a run file (run_file.RUN_MAX_BYTES)
OVERLAPPING_CHUNKS = 200_000
SAMPLES = (2_000, 1_000_000)  # the default [eval] bootstrap_samples, and its bound
BOOTSTRAP_SHAPE = (200, 40)  # queries x metric columns of one bootstrap call (a report's largest)
SMOKE = {"run_bytes": 2 * 1024 * 1024, "chunks": 4_000, "samples": (200, 20_000)}
TARGET_MB = 1024.0
CHUNKS_TARGET_S = 30.0

# One bootstrap call in a fresh interpreter: argv = queries, columns, samples.
_BOOTSTRAP = ("import random, sys\n"
              "from labeller.eval.bootstrap import bootstrap_cis\n"
              "n, cols, samples = map(int, sys.argv[1:])\n"
              "rng = random.Random(1)\n"
              "bootstrap_cis([[float(rng.random() < 0.6) for _ in range(cols)] for _ in range(n)], samples, 7)\n")


def write_run_file(path: Path, qids: list[str], chunk_ids: list[str], size: int, seed: int = 7) -> int:
    """A TREC run of at most ``size`` bytes (filled): every golden query, then made-up ones
    (a run may hold queries the golden set does not ask), each ranking every chunk in a
    random order. Returns its number of lines."""
    rng = random.Random(seed)
    ids = list(chunk_ids)
    written = lines = n = 0
    with path.open("w", encoding="utf-8") as fh:
        while True:
            qid = qids[n] if n < len(qids) else f"extra{n:07d}"
            n += 1
            rng.shuffle(ids)
            for rank, cid in enumerate(ids, 1):
                line = f"{qid} Q0 {cid} {rank} {rng.random() * 30:.6f} big\n"
                if written + len(line) > size:
                    return lines
                fh.write(line)
                written += len(line)
                lines += 1


def overlapping_rows(docs: list[tuple[str, int]], n_chunks: int) -> list[dict]:
    """About ``n_chunks`` chunks as offsets, spread over the documents by length, each four
    strides wide: every character lies in about four chunks (a sliding window at 75%
    overlap, what a splitter with a large overlap writes)."""
    total = sum(size for _, size in docs)
    rows: list[dict] = []
    for doc, size in docs:
        share = max(1, round(n_chunks * size / total))
        stride = max(1, size // share)
        for start in range(0, size, stride):
            rows.append({"id": f"w{len(rows):07d}", "doc": doc, "start": start, "end": min(size, start + 4 * stride)})
    return rows


def measure(bench) -> None:
    """The figures, on the synthetic project only (they are about sizes, not text)."""
    if not bench.name.startswith("synthetic"):
        return
    from run import _children_cpu, cli, peak_mb

    smoke, root = bench.smoke, bench.root
    repeat = 1 if smoke else bench.repeat
    project = bench.project()
    qids = [q.id for q in project.load_questions().questions]
    base = cli("eval", "--root", ".", "--include-holdout", "--no-history", "--format", "json")
    peak_mb(base, root)  # the golden set cached: what follows measures the inputs

    def figures(key: str, label: str, cmd: list[str], target_s: float | None = None, before=None,
                runs: int | None = None) -> None:
        """``runs`` (default ``--repeat``): 1 for the minutes-long ones."""
        secs = bench.fig(f"{key}_s", label, "s", target_s)
        mem = bench.fig(f"{key}_peak_mb", f"peak memory, {label}", "MB", TARGET_MB)
        for _ in range(runs or repeat):
            if before:
                before()
            cpu = _children_cpu()
            peak, elapsed = peak_mb(cmd, root)
            secs.cpu.append(_children_cpu() - cpu)  # what a loaded machine does not inflate
            secs.runs.append(elapsed)
            mem.runs.append(peak)

    run = root / "big.run"
    n_lines = write_run_file(run, qids, [c.chunk_id for c in project.all_chunks],
                             SMOKE["run_bytes"] if smoke else RUN_BYTES)
    figures("big_run_file", f"eval --run, a {run.stat().st_size / 2**20:,.0f} MiB run file ({n_lines:,} lines)",
            [*base, "--run", run.name])
    run.unlink()

    rows = overlapping_rows([(d.doc_id, len(d.text)) for d in project.corpus],
                            SMOKE["chunks"] if smoke else OVERLAPPING_CHUNKS)
    chunk_file = root / "big-overlapping.jsonl"
    chunk_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rng = random.Random(11)
    ids = [r["id"] for r in rows]
    chunk_run = root / "big-overlapping.run"
    chunk_run.write_text("".join(f"{q} Q0 {cid} {r} {10 - r}.0 big\n" for q in qids
                                 for r, cid in enumerate(rng.sample(ids, 10), 1)), encoding="utf-8")
    chunks = [*base, "--chunks", chunk_file.name]
    figures("big_chunks_run", f"eval --chunks ({len(rows):,} chunks at 75% overlap) --run (10 a query)",
            [*chunks, "--run", chunk_run.name], CHUNKS_TARGET_S)
    label = f"eval --chunks ({len(rows):,} chunks at 75% overlap), BM25 index built"
    if smoke:  # the eval step's cold run builds an index already
        bench.fig("big_chunks_bm25_s", label, "s").skipped = "smoke run: the --run figure above reads the chunks"
    else:
        figures("big_chunks_bm25", label, chunks, CHUNKS_TARGET_S, runs=1,
                before=lambda: shutil.rmtree(project.layout.bm25_index, ignore_errors=True))
    chunk_file.unlink()
    chunk_run.unlink()

    n, cols = BOOTSTRAP_SHAPE
    for samples in SMOKE["samples"] if smoke else SAMPLES:
        figures(f"big_bootstrap_{samples}", f"bootstrap, {samples:,} resamples of {n} queries x {cols} metrics",
                [sys.executable, "-c", _BOOTSTRAP, str(n), str(cols), str(samples)], runs=1)
