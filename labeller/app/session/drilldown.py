"""The eval tab's views: one eval of the saved golden set, a query's drill-down, a leak's places.

The numbers come from ``labeller.eval.runner.run_eval`` (what ``labeller eval`` runs) on
questions.jsonl as saved; these helpers only pick out what one view shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeller.core.chunkers import Chunk
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.resolve import Span

if TYPE_CHECKING:  # the eval is imported when one runs, not at app start-up
    from labeller.eval.leaks import LeakLocation
    from labeller.eval.retrievers import Progress
    from labeller.eval.runner import EvalResult


DRILL_DEPTH = 20


def run_eval(project: Project, progress: Progress | None, chunks: str | None = None,
             retriever: str = "bm25") -> EvalResult:
    """One eval of the saved golden set with the retriever named ``retriever`` (as
    ``labeller eval --retriever``), over the project's own chunks or ``chunks`` (a chunk
    file path, SPEC §10)."""
    from labeller.eval.chunkset import load_chunk_set
    from labeller.eval.retrievers import make_retriever
    from labeller.eval.runner import run_eval as run

    chunk_set = load_chunk_set(project, chunks)
    ranker = make_retriever(retriever, project, chunks=chunk_set, progress=progress)
    return run(project, progress=progress, chunks=chunk_set, retriever=ranker)


def record_run(project: Project, result: EvalResult) -> str:
    """Append the run to the project's run history, as ``labeller eval`` does (issue 38: the
    app's runs were missing from ``labeller runs``); its run id. ``LabellerError`` when the
    history may not or cannot be written."""
    from labeller.core.outputs import check_output
    from labeller.eval.history import append_run

    check_output(project.config, project.layout.run_history, "[eval] history")
    return append_run(project.layout.run_history, result.model, result.seconds)


def retriever_choices() -> list[str]:
    """The retrievers the eval tab offers: every registered one that needs no file or member
    list (``run`` and ``rrf:...`` are the command line's), BM25 first."""
    from labeller.eval.retrievers import known_retrievers

    return ["bm25", *(n for n in known_retrievers() if n not in ("bm25", "run", "rrf"))]


@dataclass(frozen=True)
class GoldSpan:
    span: Span
    text: str
    rank: int | None  # rank of the first retrieved chunk that hits it


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int
    score: float
    chunk: Chunk
    hits_gold: bool


@dataclass(frozen=True)
class DrillDown:
    """A query's gold spans beside what was retrieved for it."""

    query_id: str
    query: str
    gold: tuple[GoldSpan, ...]
    retrieved: tuple[RetrievedChunk, ...]


def drill_down(project: Project, result: EvalResult, query_id: str, depth: int = DRILL_DEPTH) -> DrillDown:
    from labeller.core.hitrules import parse_hit_rule
    from labeller.eval.metrics import relevant_chunk_ids

    row = next(r for r in result.model.queries if r.query_id == query_id)
    rec = next(r for r in result.build.records if r.question.id == query_id)
    rule = parse_hit_rule(result.model.fingerprint.hit_rule)
    # the chunking the eval was measured on (a chunk file's ids are not the project's)
    relevant = relevant_chunk_ids(rec.spans, result.chunks.positions, rule)
    first: dict[str, Chunk] = result.chunks.positions.first
    gold = tuple(GoldSpan(s, project.corpus[s.doc_id].text[s.start:s.end], rank)
                 for s, rank in zip(rec.spans, row.hit_ranks))
    retrieved = tuple(RetrievedChunk(i, h.score, first[h.chunk_id], h.chunk_id in relevant)
                      for i, h in enumerate(result.hits.get(query_id, [])[:depth], 1) if h.chunk_id in first)
    return DrillDown(query_id, rec.question.query, gold, retrieved)


def leak_places(project: Project, result: EvalResult, finding: dict) -> list[LeakLocation]:
    """Where a leak finding's quoted queries occur in its document (``LeakLocation`` list)."""
    from labeller.eval.leaks import leak_locations

    return leak_locations(project.all_chunks, finding, result.build.records, project.corpus.docs)


def result_age(result: EvalResult, questions: Iterable[Question], corpus_digest: str) -> list[str]:
    """Why an eval result no longer describes the golden set the app holds: the labels the
    eval scored (questions.jsonl as saved when it ran) differ from ``questions`` (what a save
    would write now: ``questions_to_write``, so an unfinished draft, which no save writes,
    never ages a result), or it ran on another corpus than the one loaded. Empty when the
    result is current."""
    out = []
    scored = [rec.question.as_json() for rec in result.build.records]
    if scored != [q.as_json() for q in questions]:
        out.append("the labels changed since this eval ran")
    if result.build.manifest["corpus_digest"] != corpus_digest:
        out.append("the corpus changed since this eval ran")
    return out
