"""The hybrid's fusion on evidence (issue 37.6): BM25, dense and their fusions side by side, and
each fusion's worst gap to the better of its two members.

    python benchmarks/fusion.py --project DIR [--project DIR ...]   # needs labeller[dense] and the model

Each project is copied (``dense.copy_project``: all-MiniLM-L6-v2, no prefixes; its cache starts
empty, so the chunks are embedded once), and every answerable question is asked of labeller's
``bm25`` and ``dense`` retrievers 100 deep and of ``hybrid`` (``[retriever.fusion]`` as the
project sets it, by default RRF with k 60 and weights 1). The other fusions are RRF over the two
members' rankings with other k and dense weights, the settings ``[retriever.fusion]`` offers,
computed here from the same rankings. A record counts at k when one of its answer chunks is in
the top k (chunk success@k), or one of its answer documents holds one of the top k chunks (doc
success@k). A fusion meets the issue's bar when on every set and measure it is at most 0.01
below the better member.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dense  # noqa: E402

DEPTH = 100
RRF = tuple((k, w) for k in (60, 10) for w in (1.0, 1.5, 2.0))  # (k, dense weight; BM25 weighs 1)
MEASURES = (("chunk", 5), ("doc", 5), ("doc", 1))


def rankings(root: Path) -> tuple[dict, dict, dict]:
    """(answer chunk and document ids per question, document of each chunk, each retriever's
    ranked chunk ids per question)."""
    from labeller.core.build import build
    from labeller.eval.retrievers import make_retriever

    project = dense.open_project(root)
    records = [r for r in build(project, project.load_questions().questions).records if not r.question.unanswerable]
    golden = {r.question.id: (set(r.chunk_ids), {s.doc_id for s in r.spans}) for r in records}
    doc_of = {c.chunk_id: c.doc_id for c in project.all_chunks}
    runs = {}
    for name in dense.RETRIEVERS:
        retriever = make_retriever(name, project)
        runs[name] = {r.question.id: [h.chunk_id for h in retriever.retrieve(r.question.id, r.question.query, DEPTH)]
                      for r in records}
    return golden, doc_of, runs


def rrf(runs: dict, k: int, dense_weight: float) -> dict[str, list[str]]:
    """RRF of the bm25 and dense rankings as ``FusionRetriever`` computes it (trec_eval's order)."""
    from labeller.eval.retrievers.base import Hit, top_k

    out = {}
    for qid in runs["bm25"]:
        fused: dict[str, float] = {}
        for name, weight in (("bm25", 1.0), ("dense", dense_weight)):
            for rank, cid in enumerate(runs[name][qid], 1):
                fused[cid] = fused.get(cid, 0.0) + weight / (k + rank)
        out[qid] = [h.chunk_id for h in top_k([Hit(c, v) for c, v in fused.items()], DEPTH)]
    return out


def success(ranked: dict[str, list[str]], golden: dict, doc_of: dict, level: str, k: int) -> float:
    hits = 0
    for qid, (chunks, docs) in golden.items():
        top = ranked[qid][:k]
        hits += bool(chunks.intersection(top)) if level == "chunk" else bool(docs.intersection(map(doc_of.get, top)))
    return hits / len(golden) if golden else 0.0


def table(sets: dict[str, tuple[dict, dict, dict]]) -> list[tuple[str, list[float], float | None]]:
    """Rows (name, a figure per set and measure, worst gap to the better member or None for a member)."""
    rows: list[tuple[str, dict]] = [(n, {s: runs[n] for s, (_, _, runs) in sets.items()}) for n in dense.RETRIEVERS]
    rows += [(f"rrf k {k}, dense weight {w}", {s: rrf(runs, k, w) for s, (_, _, runs) in sets.items()})
             for k, w in RRF]
    out = []
    for name, ranked in rows:
        figures, gaps = [], []
        for s, (golden, doc_of, runs) in sets.items():
            for level, k in MEASURES:
                value = success(ranked[s], golden, doc_of, level, k)
                figures.append(value)
                better = max(success(runs[m], golden, doc_of, level, k) for m in ("bm25", "dense"))
                gaps.append(better - value)
        out.append((name, figures, None if name in ("bm25", "dense") else max(gaps)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, action="append", required=True, help="a project (corpus/ + golden/)")
    ap.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="labeller-fusion-bench-") as tmp:
        sets = {}
        for i, src in enumerate(args.project):
            root = dense.copy_project(src, Path(tmp) / f"p{i}", args.model, "", "")
            sets[src.name] = rankings(root)
            print(f"{src.name}: {len(sets[src.name][0])} answerable questions", flush=True)
    heads = [f"{s} {level} @{k}" for s in sets for level, k in MEASURES]
    print("\n| retriever | " + " | ".join(heads) + " | worst gap to the better member |")
    print("|---|" + "---:|" * (len(heads) + 1))
    for name, figures, gap in table(sets):
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in figures) + f" | {'' if gap is None else f'{gap:+.3f}'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
