"""One eval run: golden set built in memory, top-k retrieval per query, metrics, report.

The CLI (``labeller eval``), the app's eval tab and tests all call ``run_eval``; it never
prints and never writes, and reports progress through a callback so each caller shows it
its own way. The golden set is the one ``labeller build`` would write (same function), so
an eval can never score stale labels; a golden set that does not build is invalid input.
"""

from __future__ import annotations

import hashlib
import math
from statistics import fmean
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import cast
from pathlib import Path

from labeller.config import MAX_K
from labeller.core.build import BuildResult, RecordResult, build
from labeller.core.hitrules import parse_hit_rule
from labeller.core.judgments import load_judgments, resolve_judgments
from labeller.core.parallel import gc_paused
from labeller.core.project import Project
from labeller.core.vocab import SPLITS, Place
from labeller.errors import InvalidInput
from labeller.eval import report as rp
from labeller.eval.bootstrap import CONFIDENCE, gathered
from labeller.eval.chars import CharScore, score_chars
from labeller.eval.chunkset import ChunksSource, ChunkSet, load_chunk_set
from labeller.eval.codes import ChunkCodes
from labeller.eval.judged import condense, empty_share, judged_aggregate, judged_at, judged_breakdowns_diagnostic, \
    judged_diagnostic, judged_flags, judged_places, with_relevant_judgments
from labeller.eval.leaks import find_leaks
from labeller.eval.report_model import EvalReport
from labeller.eval.metrics import LEVELS, QueryScore, check_sanity, measures, score_queries, unreachable_spans
from labeller.eval.power import mdd, questions_needed
from labeller.eval.rankings import Rankings
from labeller.eval.subset import stable_subset
from labeller.eval.weighted import TrafficUnit, traffic_estimates
from labeller.eval.retrievers import FunctionRetriever, Hit, Progress, Retriever, make_retriever, top_k


def parse_budgets(value) -> tuple[int, ...]:
    """``"2000,8000"`` or a sequence of ints → sorted distinct character budgets, each >= 1."""
    items = value.split(",") if isinstance(value, str) else list(value)
    try:
        budgets = sorted({int(str(b).strip()) for b in items if str(b).strip()})
    except ValueError:
        raise InvalidInput(f"--budget must be comma-separated whole numbers of characters, got {value!r}") from None
    if budgets and budgets[0] < 1:
        raise InvalidInput(f"--budget needs budgets of at least 1 character, got {value!r}")
    return tuple(budgets)


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


def built_golden_set(project: Project) -> BuildResult:
    """The golden set ``labeller build`` would write, built in memory; one that does not build
    is invalid input (an eval or a pool over half-resolved labels would mislead)."""
    built = build(project, project.load_questions().questions)
    if not built.ok:
        raise InvalidInput(f"the golden set does not build ({len(built.refusals)} label error(s)); run "
                           "`labeller build` to see and fix them").with_details(
            [{"path": str(project.config.questions), "id": r.record_id, "message": r.message, "kind": r.kind}
             for r in built.refusals])
    return built


def select_records(records: list[RecordResult], split: str | None, include_holdout: bool) -> list[RecordResult]:
    """Holdout records are scored only when asked for (``include_holdout``); ``split`` narrows further."""
    if split is not None and split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    if split == "holdout" and not include_holdout:
        raise InvalidInput("holdout records are scored only with --include-holdout (they are kept out of every "
                           "default eval so they stay unseen)")
    return [r for r in records if (include_holdout or r.question.split != "holdout")
            and (split is None or r.question.split == split)]


# What ``run_eval`` scores: a ``Retriever``, or a plain callable ``(query, k) -> ranked results``.
RetrieverLike = Retriever | Callable[[str, int], Sequence[object]]


@dataclass
class EvalResult:
    report: dict
    hits: Mapping[str, list[Hit]]  # per scored or negative query, trec order, top max(k) (``Rankings``)
    scores: list[QueryScore]
    retriever: Retriever
    build: BuildResult
    seconds: float
    chunks: ChunkSet
    char_scores: list[CharScore]

    @cached_property
    def model(self) -> EvalReport:
        """The report typed (validated once, on first use): what the views read."""
        return EvalReport.of(self.report)


@gc_paused()
def run_eval(project: Project, *, ks: Sequence[int] | None = None, hit_rule: str | None = None,
             retriever: RetrieverLike | None = None, chunks: ChunksSource = None,
             split: str | None = None, include_holdout: bool = False, baseline: dict | None = None,
             budgets: str | Sequence[int] = (), depth: int | None = None, progress: Progress | None = None,
             condensed: bool = False, power: float | None = None, subset: int | None = None) -> EvalResult:
    """Score the golden set over a chunking with a retriever.

    ``chunks``: None (the project's chunker), a chunk file path or a ``Chunking`` (SPEC §10).
    ``retriever``: None (BM25 over those chunks), a ``Retriever``, or any callable
    ``(query, k) -> ranked results`` whose results are chunk ids, ``(doc, start, end)``
    ranges or passage texts of that chunking. ``budgets``: character budgets for
    ``recall@budget=B`` (SPEC §8.1). ``depth``: retrieve at least this many per query
    (at most MAX_K; default the largest k) — a budget walk may need more than the k sweep.
    Judgments (``golden/judgments.jsonl``, SPEC §11) count: ``judged@k`` per query and in
    ``aggregate.chunk`` (and, once some resolve, in each breakdown group, with its
    ``judged_breakdowns`` check), a span judged relevant as an answer span; ``condensed`` drops the
    unjudged chunks from each ranking first (trec_eval -J). ``power``: a difference to
    detect; the report's ``power`` says how many questions it needs. ``subset``: score only a
    stable, stratified subset of that many records (``eval.subset``); the report's ``subset``
    says which strata and the smallest difference it can still detect.
    """
    started = time.perf_counter()
    cfg = project.config.eval
    shipped_k = cfg.shipped_k  # its range, and bootstrap_samples', were checked with labeller.toml
    # The shipped k is always scored: the regression gate and the diagnostics read it.
    ks = parse_ks([*(cfg.k if ks is None else ks), shipped_k])
    rule = parse_hit_rule(hit_rule) if hit_rule else project.hit_rule
    built = built_golden_set(project)
    judgments = resolve_judgments(project, load_judgments(project), [r.question.id for r in built.records])
    selected = select_records(built.records, split, include_holdout)
    chosen: dict[str, list[int]] | None = None
    if subset is not None:
        selected, chosen = stable_subset(selected, subset)
    budgets = parse_budgets(budgets)
    chunk_set = load_chunk_set(project, chunks)
    retriever = _as_retriever(retriever, project, chunk_set, progress)
    pos = chunk_set.positions
    depth = max(ks) if depth is None else min(MAX_K, max(depth, max(ks)))
    hits = Rankings()
    ids = hits.ids  # each ranking's chunk ids: what scoring reads
    columns = getattr(retriever, "ranked_columns", None)  # (ids, scores) already in top_k's order
    coded = getattr(retriever, "ranked_codes", None) if columns is not None else None  # the same ids as numbers
    known = pos.first.__contains__
    codes, table = hits.codes, None  # a ranking's ids as numbers into one table of ids (``eval.codes``)
    for i, rec in enumerate(selected, 1):
        if columns is not None:
            top_ids, top_scores = columns(rec.question.id, rec.question.query, depth)
            hits.add_columns(rec.question.id, top_ids, top_scores,
                             None if coded is None else coded(rec.question.id, rec.question.query, depth))
        else:
            hits.add_hits(rec.question.id, top_k(retriever.retrieve(rec.question.id, rec.question.query, depth),
                                                 depth))
        found_ids = ids[rec.question.id]
        if table is None and codes:
            table = ChunkCodes(hits.table, pos)  # each distinct id looked up once
        if not (table.known(codes[rec.question.id]) if rec.question.id in codes and table is not None
                else all(map(known, found_ids))):
            where = chunk_set.label if chunk_set.foreign else "this corpus and chunker"
            unknown = next(c for c in found_ids if not known(c))
            raise InvalidInput(f"retriever {retriever.name!r} returned {unknown!r} for query {rec.question.id!r}, "
                               f"which is not a chunk id of {where}")
        if progress:
            progress("retrieve", i, len(selected))
    answerable = [r for r in selected if not r.question.unanswerable]
    negatives = [r for r in selected if r.question.unanswerable]

    def docs_of(qid: str) -> list[str | None] | None:
        """The ranking's documents from its codes (None: the callee maps its ids)."""
        return table.docs(codes[qid]) if table is not None and qid in codes else None

    def places_of(qid: str) -> list[Sequence[Place]]:
        return table.places(codes[qid]) if table is not None and qid in codes else chunk_set.places_of(ids[qid])

    flags = {r.question.id: judged_flags(ids[r.question.id], judged_places(r, judgments), pos, rule,
                                         docs_of(r.question.id))
             for r in answerable}
    if condensed:
        for qid, judged in flags.items():
            hits.add_hits(qid, condense(hits[qid], judged))  # (drops the ranking's codes)
    answerable = [with_relevant_judgments(r, judgments) for r in answerable]
    scores = score_queries([(r.question.id, ids[r.question.id], r.spans, r.question.hop == "multi",
                             docs_of(r.question.id)) for r in answerable], pos, rule, ks)
    char_scores = [score_chars(r.question.id, [Place(s.doc_id, s.start, s.end) for s in r.spans],
                               places_of(r.question.id), chunk_set.chunking, ks, budgets,
                               partial(table.sweep, codes[r.question.id])
                               if table is not None and r.question.id in codes else None)
                   for r in answerable]
    unreachable = {r.question.id: unreachable_spans(r.spans, chunk_set.chunking, rule) for r in answerable}
    for s in scores:
        s.chunk.update(judged_at(flags[s.query_id], ks))  # of the ranking as retrieved, condensed or not
    samples, seed = cfg.bootstrap_samples, cfg.seed
    judging = bool(judgments.resolved) or condensed  # judgments count in this run
    by_id = {r.question.id: r.question for r in answerable}
    with gathered():  # every interval below from one pass over the draws (bootstrap's docstring)
        agg = rp.aggregate(scores, ks, samples, seed)
        agg["chunk"].update(judged_aggregate(scores, ks, samples, seed))
        agg["chars"] = rp.chars_aggregate(char_scores, ks, budgets, samples, seed)
        # With judgments, each split, tag and hop group gets judged@k too: one group may go unjudged.
        breakdowns = rp.breakdowns(scores, by_id, ks, samples, seed,
                                   (lambda members: judged_aggregate(members, ks, samples, seed)) if judging else None)
        chunking = rp.chunking_summary(chunk_set.chunking, char_scores, unreachable, samples, seed)
    rp.settle([agg, breakdowns, chunking])
    check_sanity(scores, {level: agg[level] for level in LEVELS}, ks)  # the character level has no such rule

    findings = find_leaks(project.all_chunks, built.records, _DocBestRanks(hits, pos.first))

    max_chars = project.chunker.settings.get("max_chars")  # an int where the chunker has the setting
    fingerprint = rp.make_fingerprint(
        chunker=project.chunker.name, max_chars=max_chars if isinstance(max_chars, int) else None, hit_rule=rule.name,
        retriever=retriever.describe(), ks=ks, corpus_digest=project.corpus.digest,
        golden_set_digest=hashlib.sha256(BuildResult(selected, built.manifest, {}).artifact_bytes()).hexdigest(),
        chunking={"name": chunk_set.chunking.name, "digest": chunk_set.chunking.digest},
        **({"judgments": _judgments_digest(judgments), "condensed": condensed}
           if judging else {}))
    shown = pos.shown
    neg_rows = [rp.negative_row(r, hits.top(r.question.id, shipped_k), shipped_k, shown) for r in negatives]
    answerable_top = [top[0].score for r in answerable if (top := hits.top(r.question.id, 1))]
    # The ranks a ranking leaves empty count as unjudged in judged@k, not against its floor.
    empty = {qid: empty_share(f, shipped_k) for qid, f in flags.items()}
    empty_groups = {kind: {group: fmean([empty[s.query_id] for s in members]) for group, members in groups.items()}
                    for kind, groups in rp.group_members(scores, by_id).items()}
    report = {
        "schema": rp.SCHEMA,
        "fingerprint": fingerprint,
        "config": {"shipped_k": shipped_k, "bootstrap_samples": samples, "seed": seed,
                   "confidence": CONFIDENCE, "split": split, "include_holdout": include_holdout,
                   "build_hit_rule": project.hit_rule.name, "retrieved_depth": depth, "budgets": list(budgets),
                   "questions": _rel(project.config.questions, project.config.root),
                   "records": {"golden": len(built.records), "scored": len(answerable),
                               "negatives": len(negatives), "not_selected": len(built.records) - len(selected)},
                   "condensed": condensed,
                   "judgments": {"resolved": len(judgments.resolved), "stale": len(judgments.stale),
                                 "relevant": sum(1 for j in judgments.resolved if j.judgment.relevant)}},
        "aggregate": agg,
        "chunking": chunking | ({"unplaced": unplaced_summary(chunk_set.chunking.unplaced, hits, scores, shipped_k)}
           if chunk_set.chunking.unplaced else {}),
        "breakdowns": breakdowns,
        "diagnostics": [*rp.diagnostics(agg["chunk"], ks, shipped_k),
                        rp.negatives_diagnostic(neg_rows, answerable_top),
                        judged_diagnostic(agg["chunk"][f"judged@{shipped_k}"]["value"], shipped_k,
                                          fmean([empty[s.query_id] for s in scores]) if scores else 0.0),
                        *([judged_breakdowns_diagnostic(breakdowns, shipped_k, empty_groups)] if judging else [])],
        "queries": [rp.query_row(r, s, hits.top(r.question.id, shipped_k), shipped_k, shown, c,
                                 unreachable[r.question.id], rounded)
                    for r, s, c, rounded in zip(answerable, scores, char_scores,
                                                        rp.query_values(scores, char_scores))],
        "negatives": neg_rows,
        "findings": findings,
    }
    if chosen is not None:
        seen = mdd([s.chunk[f"recall@{shipped_k}"] for s in scores], samples, seed)
        report["subset"] = {"n": len(selected), "strata": chosen, "metric": f"chunk recall@{shipped_k}",
                            "mdd": None if seen["value"] is None else round(seen["value"] * math.sqrt(2), 6),
                            "power": seen["power"], "alpha": seen["alpha"],
                            "variance": "twice the per-query variance (two uncorrelated systems: an upper bound)"}
    traffic = traffic_report(answerable, scores, ks, shipped_k, samples, seed)
    if traffic is not None:
        report["traffic"] = traffic
    gate_deltas = None
    if baseline is not None:
        report["comparison"], gate_deltas = rp.compare_with_mdd(report, baseline, shipped_k, samples, seed)
    if power is not None:
        values = gate_deltas if gate_deltas is not None else [s.chunk[f"recall@{shipped_k}"] for s in scores]
        report["power"] = {"metric": f"chunk recall@{shipped_k}", **questions_needed(
            power, values, samples, seed, paired=gate_deltas is not None)}
    return EvalResult(report, hits, scores, retriever, built, time.perf_counter() - started, chunk_set, char_scores)


def unplaced_summary(unplaced: Sequence[dict], hits: Mapping[str, list[Hit]], scores: Sequence[QueryScore],
                     k: int) -> dict:
    """What a chunk file's unplaced chunks (SPEC §10) may have cost: each of them (file
    order), how many retrieved results (to the retrieved depth, and in the top ``k``) were
    one, and an upper bound on how much chunk recall@k could rise were they placed.

    An unplaced chunk hits no span. Placed, one such chunk in a query's top ``k`` could at
    most complete that query's recall (one chunk may hit every span of it), so the bound is
    the mean over scored queries of ``1 - recall@k`` for those with an unplaced result in
    their top ``k``, 0 for the others; recall cannot fall, as no hit is taken away."""
    ids = {u["id"] for u in unplaced}
    retrieved = sum(1 for hs in hits.values() for h in hs if h.chunk_id in ids)
    at_k = {qid: sum(1 for h in hs[:k] if h.chunk_id in ids) for qid, hs in hits.items()}
    gain = [1 - s.chunk[f"recall@{k}"] if at_k.get(s.query_id) else 0.0 for s in scores]
    return {"chunks": len(unplaced), "listed": list(unplaced), "retrieved": retrieved,
            f"retrieved@{k}": sum(at_k.values()), "queries_affected": sum(1 for n in at_k.values() if n),
            "recall_bound": {"metric": f"chunk recall@{k}", "max_increase": round(math.fsum(gain) / len(gain), 6)
                             if gain else 0.0}}


def traffic_report(answerable: Sequence[RecordResult], scores: Sequence[QueryScore], ks: Sequence[int],
                   shipped_k: int, samples: int, seed: int) -> dict | None:
    """The report's ``traffic`` object (SPEC §14) when any scored record was sampled from
    traffic: the chunk-level rank metrics weighted by inverse inclusion probability, beside the
    unweighted means of the same records. Authored records are not part of the sample's design,
    so they are left out of it (and counted)."""
    units = [TrafficUnit(s.chunk, r.question.traffic.frequency, r.question.traffic.pi, r.question.traffic.stratum,
                         r.question.traffic.tenant)
             for r, s in zip(answerable, scores) if r.question.traffic is not None]
    if not units:
        return None
    names = [m.name for m in measures(ks) if not m.multi_only]
    return {"level": "chunk", "authored_left_out": len(answerable) - len(units),
            **traffic_estimates(units, names, f"recall@{shipped_k}", samples, seed)}


def _judgments_digest(judgments) -> str:
    """What the resolved judgments are, for the fingerprint: each judgment's line and span."""
    lines = sorted(f"{r.judgment.line()}\0{r.place.doc}\0{r.place.start}\0{r.place.end}" for r in judgments.resolved)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _as_retriever(retriever: RetrieverLike | None, project: Project, chunk_set: ChunkSet, progress: Progress | None) -> Retriever:
    """BM25 over the chunks by default; a ``Retriever`` as is; a bare callable wrapped."""
    if retriever is None:
        return make_retriever("bm25", project, progress=progress, chunks=chunk_set)
    if hasattr(retriever, "retrieve") and hasattr(retriever, "describe"):
        return cast(Retriever, retriever)  # duck-typed: mypy does not narrow by hasattr
    if callable(retriever):
        return FunctionRetriever(retriever, chunk_set, project.corpus)
    raise InvalidInput(f"a retriever must have retrieve() and describe(), or be a callable (query, k); got "
                       f"{type(retriever).__name__}")


def _doc_best_ranks(hits: list[Hit], first_chunk: dict) -> dict[str, int]:
    """Each retrieved document's best (smallest) chunk rank: what the leak report prints."""
    best: dict[str, int] = {}
    for rank, h in enumerate(hits, 1):
        best.setdefault(first_chunk[h.chunk_id].doc_id, rank)
    return best


class _DocBestRanks(Mapping[str, dict[str, int]]):
    """``_doc_best_ranks`` of each query's hits, worked out when asked: the leak report reads
    only the queries that quote a leaking document (most runs, none)."""

    def __init__(self, hits: Mapping[str, list[Hit]], first_chunk: dict) -> None:
        self.hits, self.first_chunk = hits, first_chunk
        self.known: dict[str, dict[str, int]] = {}

    def __getitem__(self, query_id: str) -> dict[str, int]:
        if query_id not in self.known:
            self.known[query_id] = _doc_best_ranks(self.hits[query_id], self.first_chunk)
        return self.known[query_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()
