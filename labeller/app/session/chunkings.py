"""The Chunkers view's model: which chunkings can be compared, and how each lies over a gold span.

A comparison (``labeller.eval.compare.compare_chunkers``) scores one golden set under several
chunkings; the view picks the chunkings from the chunker registry (each at its default
parameters, plus the project's own chunker as configured) and, for one query, shows where
every chunking cuts its gold spans: the span's text with each chunk start and end that
falls inside it, which is what a chunk-level number hides and a character number sums up.
"""

from __future__ import annotations

from dataclasses import dataclass

START, END = "start", "end"


def chunking_choices(project) -> list[tuple[str, bool]]:
    """``(spec, is the project's own)`` for the project's chunker, then every registered
    chunker at its defaults (a default equal to the project's own is listed once)."""
    from labeller.core.chunkers import REGISTRY, chunker_spec, get_chunker

    own = chunker_spec(project.chunker)
    specs = dict.fromkeys([own, *(chunker_spec(get_chunker(name)) for name in sorted(REGISTRY))])
    return [(spec, spec == own) for spec in specs]


@dataclass(frozen=True)
class ChunkingOverSpan:
    """One chunking over one gold span."""

    spec: str
    marks: tuple[tuple[int, str], ...]  # (offset into the span's text, START | END), in text order
    chunks: int  # chunks sharing a character with the span
    rank: int | None  # the span's first hit rank under the build hit rule (None: not retrieved)


@dataclass(frozen=True)
class SpanOverChunkings:
    doc: str
    start: int
    end: int
    text: str
    rows: tuple[ChunkingOverSpan, ...]


def query_rows(comparison, k: int) -> list[tuple[str, str, list[float | None]]]:
    """Each scored query once: ``(id, query, [chars recall@k under each chunking])``."""
    per = [{row["query_id"]: row for row in r.report["queries"]} for r in comparison.results]
    return [(qid, row["query"], [p[qid]["chars"].get(f"recall@{k}") if qid in p else None for p in per])
            for qid, row in per[0].items()]


def span_boundaries(project, comparison, query_id: str) -> list[SpanOverChunkings]:
    """A query's gold spans, each with every compared chunking's boundaries inside it
    (a boundary on the span's own edge counts: the chunking cut exactly there)."""
    specs = [e["name"] for e in comparison.data["chunkings"]]
    rec = next(r for r in comparison.results[0].build.records if r.question.id == query_id)
    ranks = [{row["query_id"]: row["hit_ranks"] for row in r.report["queries"]}.get(query_id, [])
             for r in comparison.results]
    out = []
    for i, span in enumerate(rec.spans):
        s, e = span.start, span.end
        rows = []
        for spec, result, hit_ranks in zip(specs, comparison.results, ranks):
            near = result.chunks.chunking.overlapping(span.doc_id, s, e)
            marks = {(r.place.start - s, START) for r in near if r.place.start >= s}
            marks |= {(r.place.end - s, END) for r in near if r.place.end <= e}
            rows.append(ChunkingOverSpan(spec, tuple(sorted(marks, key=lambda m: (m[0], m[1] == START))),
                                         len(near), hit_ranks[i] if i < len(hit_ranks) else None))
        out.append(SpanOverChunkings(span.doc_id, s, e, project.corpus[span.doc_id].text[s:e], tuple(rows)))
    return out
