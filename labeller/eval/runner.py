"""One eval run: golden set built in memory, top-k retrieval per query, metrics, report.

The CLI (``labeller eval``), the app's eval tab and tests all call ``run_eval``; it never
prints and never writes, and reports progress through a callback so each caller shows it
its own way. The golden set is the one ``labeller build`` would write (same function), so
an eval can never score stale labels; a golden set that does not build is invalid input.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from labeller.config import MAX_K
from labeller.core.build import BuildResult, RecordResult, build
from labeller.core.hitrules import parse_hit_rule
from labeller.core.vocab import SPLITS
from labeller.errors import InvalidInput
from labeller.eval import report as rp
from labeller.eval.bootstrap import CONFIDENCE
from labeller.eval.leaks import find_leaks
from labeller.eval.metrics import ChunkPositions, QueryScore, check_sanity, score_query
from labeller.eval.retrievers import Hit, Progress, Retriever, make_retriever, top_k


def parse_ks(value) -> tuple[int, ...]:
    """``"1,5,10"`` or a sequence of ints → sorted distinct ks, each 1..MAX_K."""
    items = value.split(",") if isinstance(value, str) else list(value)
    try:
        ks = sorted({int(str(k).strip()) for k in items if str(k).strip()})
    except ValueError:
        raise InvalidInput(f"--k must be comma-separated whole numbers, got {value!r}") from None
    if not ks or ks[0] < 1 or ks[-1] > MAX_K:
        raise InvalidInput(f"--k needs at least one k, each between 1 and {MAX_K}, got {value!r}")
    return tuple(ks)


def select_records(records: list[RecordResult], split: str | None, include_holdout: bool) -> list[RecordResult]:
    """Holdout records are scored only when asked for (``include_holdout``); ``split`` narrows further."""
    if split is not None and split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    if split == "holdout" and not include_holdout:
        raise InvalidInput("holdout records are scored only with --include-holdout (they are kept out of every "
                           "default eval so they stay unseen)")
    return [r for r in records if (include_holdout or r.question.split != "holdout")
            and (split is None or r.question.split == split)]


@dataclass
class EvalResult:
    report: dict
    hits: dict[str, list[Hit]]  # per scored or negative query, trec order, top max(k)
    scores: list[QueryScore]
    retriever: Retriever
    build: BuildResult
    seconds: float


def run_eval(project, *, ks=None, hit_rule: str | None = None, retriever: Retriever | None = None,
             split: str | None = None, include_holdout: bool = False, baseline: dict | None = None,
             progress: Progress | None = None) -> EvalResult:
    started = time.perf_counter()
    cfg = project.config.eval
    shipped_k = cfg.shipped_k  # its range, and bootstrap_samples', were checked with labeller.toml
    # The shipped k is always scored: the regression gate and the diagnostics read it.
    ks = parse_ks([*(cfg.k if ks is None else ks), shipped_k])
    rule = parse_hit_rule(hit_rule) if hit_rule else project.hit_rule
    built = build(project, project.load_questions().questions)
    if not built.ok:
        raise InvalidInput(f"the golden set does not build ({len(built.refusals)} label error(s)); run "
                           "`labeller build` to see and fix them").with_details(
            [{"path": str(project.config.questions), "id": r.record_id, "message": r.message, "kind": r.kind}
             for r in built.refusals])
    selected = select_records(built.records, split, include_holdout)
    retriever = retriever or make_retriever("bm25", project, progress=progress)
    pos = ChunkPositions(project.all_chunks)
    depth = max(ks)
    hits: dict[str, list[Hit]] = {}
    for i, rec in enumerate(selected, 1):
        hits[rec.question.id] = found = top_k(retriever.retrieve(rec.question.id, rec.question.query, depth), depth)
        unknown = [h.chunk_id for h in found if h.chunk_id not in pos.first]
        if unknown:
            raise InvalidInput(f"retriever {retriever.name!r} returned {unknown[0]!r} for query {rec.question.id!r}, "
                               "which is not a chunk id of this corpus and chunker")
        if progress:
            progress("retrieve", i, len(selected))
    answerable = [r for r in selected if not r.question.unanswerable]
    negatives = [r for r in selected if r.question.unanswerable]
    scores = [score_query(r.question.id, [h.chunk_id for h in hits[r.question.id]], r.spans,
                          r.question.hop == "multi", pos, rule, ks) for r in answerable]
    samples, seed = cfg.bootstrap_samples, cfg.seed
    agg = rp.aggregate(scores, ks, samples, seed)
    check_sanity(scores, agg, ks)

    ranks = {qid: _doc_best_ranks(hs, pos.first) for qid, hs in hits.items()}
    findings = find_leaks(project.all_chunks, built.records, ranks)

    fingerprint = rp.make_fingerprint(
        chunker=project.chunker.name, max_chars=project.chunker.max_chars, hit_rule=rule.name,
        retriever=retriever.describe(), ks=ks, corpus_digest=project.corpus.digest,
        golden_set_digest=hashlib.sha256(BuildResult(selected, built.manifest, {}).artifact_bytes()).hexdigest())
    chunk_of = pos.first.__getitem__
    neg_rows = [rp.negative_row(r, hits[r.question.id], shipped_k, chunk_of) for r in negatives]
    answerable_top = [hits[r.question.id][0].score for r in answerable if hits[r.question.id]]
    report = {
        "schema": rp.SCHEMA,
        "fingerprint": fingerprint,
        "config": {"shipped_k": shipped_k, "bootstrap_samples": samples, "seed": seed,
                   "confidence": CONFIDENCE, "split": split, "include_holdout": include_holdout,
                   "build_hit_rule": project.hit_rule.name, "retrieved_depth": depth,
                   "questions": _rel(project.config.questions, project.config.root),
                   "records": {"golden": len(built.records), "scored": len(answerable),
                               "negatives": len(negatives), "not_selected": len(built.records) - len(selected)}},
        "aggregate": agg,
        "breakdowns": rp.breakdowns(scores, {r.question.id: r.question for r in answerable}, ks, samples, seed),
        "diagnostics": [*rp.diagnostics(agg["chunk"], ks, shipped_k),
                        rp.negatives_diagnostic(neg_rows, answerable_top)],
        "queries": [rp.query_row(r, s, hits[r.question.id], shipped_k, chunk_of)
                    for r, s in zip(answerable, scores)],
        "negatives": neg_rows,
        "findings": findings,
    }
    if baseline is not None:
        report["comparison"] = rp.compare(report, baseline, shipped_k, samples, seed)
    return EvalResult(report, hits, scores, retriever, built, time.perf_counter() - started)


def _doc_best_ranks(hits: list[Hit], first_chunk: dict) -> dict[str, int]:
    """Each retrieved document's best (smallest) chunk rank: what the leak report prints."""
    best: dict[str, int] = {}
    for rank, h in enumerate(hits, 1):
        best.setdefault(first_chunk[h.chunk_id].doc_id, rank)
    return best


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()
