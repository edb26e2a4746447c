"""Relevance judgments, as TREC qrels and BEIR qrels files hold them.

Both formats judge corpus ids (chunk ids or document paths) per query id and keep the query
text elsewhere; this module groups the judgments and turns them into candidate records.
Their exports write ids into whitespace- or tab-separated lines, which ``tsv_field`` guards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from labeller.core.project import Project
from labeller.display import CONTROL, visible
from labeller.errors import InvalidInput
from labeller.interop.format import Option
from labeller.interop.labels import LabelMapper
from labeller.interop.records import Candidate, Target
from labeller.interop.spans import SpanProblem, span_locator

CHUNKS_OPTION = Option("chunks", "the chunk file of the pipeline whose chunk ids the judgments name (JSONL {id, doc, "
                       "start, end} or {id, doc?, text}, as eval --chunks reads it): each judged chunk becomes a "
                       "span label", metavar="FILE")


@dataclass
class Judgments:
    """qrels rows grouped by query id, in first-seen order: ``{qid: {corpus_id: relevance}}``."""

    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)

    def add(self, qid: str, corpus_id: str, rel: str, where: str) -> None:
        try:
            value = int(rel)
        except ValueError:
            raise InvalidInput(f"{where}: relevance {rel!r} is not an integer") from None
        judged = self.rows.setdefault(qid, {})
        if corpus_id in judged:
            raise InvalidInput(f"{where}: query {qid!r} judges {corpus_id!r} twice")
        judged[corpus_id] = value
        self.where.setdefault(qid, where)

    def update(self, other: "Judgments") -> None:
        """Add another file's judgments (a query judged in two files is the caller's to flag)."""
        for qid, rows in other.rows.items():
            self.rows.setdefault(qid, {}).update(rows)
            self.where.setdefault(qid, other.where[qid])


def candidates_from_judgments(judgments: Judgments, queries: dict[str, tuple[str, str]],
                              extra: dict[str, dict] | None = None) -> tuple[list[Candidate], int]:
    """Records for every judged query: relevance > 0 labels a corpus id; a query judged only
    non-relevant is a negative. Returns the candidates (in the queries file's order, then
    judged ids the queries file lacks) and how many queries were never judged.

    ``extra`` holds per-query fields the format carries (labeller's own metadata in BEIR).
    """
    extra = extra or {}
    out: list[Candidate] = []
    for qid, (text, where) in queries.items():
        fields = dict(extra.get(qid, {}))
        negative = fields.get("unanswerable") is True
        if negative:
            del fields["unanswerable"]  # set again from ``negative`` once the record is built
        if qid not in judgments.rows:
            if negative:  # declared a negative by the file's own metadata
                out.append(Candidate(qid, text, where, negative=True, fields=fields))
            continue
        relevant = [cid for cid, rel in judgments.rows[qid].items() if rel > 0]
        out.append(Candidate(qid, text, where, [Target("corpus_id", ident=cid) for cid in relevant],
                             negative=not relevant, fields=fields))
    for qid, where in judgments.where.items():
        if qid not in queries:
            out.append(Candidate(qid, "?", where, skip=("no_query", "judged, but the queries file has no text "
                                                                    "for this id")))
    never = sum(1 for qid in queries if qid not in judgments.rows and not extra.get(qid, {}).get("unanswerable"))
    return out, never


def tsv_field(value: str, what: str, record_id: str) -> str:
    """An id written into a whitespace- or tab-separated file must not contain the separator,
    nor control, bidi or other invisible characters (``display.CONTROL``), which would reach
    whatever terminal the file is shown on: TSV has no escape, so they are refused."""
    if not value or any(ch.isspace() for ch in value) or CONTROL.search(value):
        raise InvalidInput(f"{what} {visible(value)!r} is empty or holds whitespace, control or invisible "
                           "characters, which this format cannot hold", record_id=record_id)
    return value


def through_chunk_file(project: Project, candidates: list[Candidate], chunks: str) -> list[str]:
    """Turn the judged ids that are chunks of a pipeline's chunk file into span labels.

    A team's qrels judge its own pipeline's chunk ids, which labeller's chunker never made:
    the chunk file says where each chunk lies (placed as every chunk file is), and the chunk
    becomes the span of its text outside front matter, pinned to its document with the
    shortest context that makes it unique there. Ids the file does not hold stay corpus ids
    (labeller's chunk ids or document paths). Returns the notes for the summary."""
    cfg = project.config.eval
    from labeller.core.chunkfile import read_chunk_file  # numpy, only with --chunks: not on build's path

    chunking = read_chunk_file(Path(chunks), project.corpus, max_bytes=cfg.chunk_file_max_bytes,
                               max_chunks=cfg.chunk_file_max_chunks)
    places = {r.id: r.place for r in chunking.ranges}
    unplaced = {u["id"]: u for u in chunking.unplaced}  # left out of the chunking (SPEC §10): no span to give
    mapper = LabelMapper(project)
    used = 0
    for cand in candidates:
        targets = []
        for t in cand.targets:
            if t.kind == "corpus_id" and t.ident in unplaced:
                u = unplaced[t.ident]
                cand.skip = ("unplaced_chunk", f"chunk {t.ident!r} of {chunks} (line {u['line']}) cannot be placed: "
                             f"{u['message']}")
                break
            place = places.get(t.ident) if t.kind == "corpus_id" and t.ident is not None else None
            if place is None:
                targets.append(t)
                continue
            used += 1
            extent = mapper.answer_text(*place)
            if extent is None:
                cand.skip = ("front_matter", f"chunk {t.ident!r} of {place.doc} holds only front matter, which is "
                             "metadata, not answer text")
                break
            try:
                targets.append(Target("locator", locator=span_locator(project, place.doc, *extent)))
            except SpanProblem as exc:
                cand.skip = (exc.kind, f"chunk {t.ident!r}: {exc.message}")
                break
        cand.targets = targets
    return [f"{used} judgment(s) named chunks of {chunks} ({chunking.n_chunks} chunks): each became the span of its "
            "chunk"]
