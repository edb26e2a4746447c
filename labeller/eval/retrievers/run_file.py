"""TREC run files (``qid Q0 docid rank score tag``) as a retriever, and writing them.

This is how any external system is scored without labeller knowing it: run it over the
golden queries, write one line per retrieved chunk with ``docid`` = labeller's chunk id,
and pass the file to ``labeller eval --run``. As in trec_eval the rank column is read but
not trusted: the order is score descending, ties by docid descending (``trec_order``).
Scores are written with ``repr`` so a written run reads back to the same floats.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

from labeller.core.chunkers import chunker_spec
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, top_k, trec_order
from labeller.io import atomic_write_text, read_regular_file

RUN_MAX_BYTES = 256 * 1024 * 1024


@dataclass
class Run:
    """A parsed run file: hits per query id, and where each docid was first seen (for errors)."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)
    tags: set[str] = field(default_factory=set)
    first_line: dict[str, int] = field(default_factory=dict)
    sha256: str = ""


def parse_run(text: str, path: str = "run") -> Run:
    run = Run(sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())
    seen: set[tuple[str, str]] = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise InvalidInput(f"expected 6 fields 'qid Q0 docid rank score tag', found {len(parts)}",
                               path=path, line=lineno)
        qid, _, docid, rank, score, tag = parts
        try:
            int(rank)
            value = float(score)
        except ValueError:
            raise InvalidInput(f"rank {rank!r} must be an integer and score {score!r} a number",
                               path=path, line=lineno) from None
        if not math.isfinite(value):
            raise InvalidInput(f"score {score!r} is not a finite number", path=path, line=lineno)
        if (qid, docid) in seen:
            raise InvalidInput(f"docid {docid!r} appears twice for query {qid!r}", path=path, line=lineno)
        seen.add((qid, docid))
        run.hits.setdefault(qid, []).append(Hit(docid, value))
        run.tags.add(tag)
        run.first_line.setdefault(docid, lineno)
    return run


def read_run(path: Path, max_bytes: int = RUN_MAX_BYTES) -> Run:
    data = read_regular_file(Path(path), max_bytes=max_bytes, what="run file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from None
    return parse_run(text, str(path))


def format_run(results: dict[str, list[Hit]], tag: str) -> str:
    """Queries in the given order; each query's hits in trec_eval order with ranks 1..n."""
    for name, value in (("tag", tag), *(("query id", q) for q in results)):
        if not value or any(ch.isspace() for ch in value):
            raise InvalidInput(f"{name} {value!r} cannot be written to a TREC run (empty or contains whitespace)")
    lines = [f"{qid} Q0 {h.chunk_id} {rank} {h.score!r} {tag}\n"
             for qid, hits in results.items() for rank, h in enumerate(trec_order(hits), 1)]
    return "".join(lines)


def write_run(path: Path, results: dict[str, list[Hit]], tag: str) -> None:
    atomic_write_text(Path(path), format_run(results, tag))


class RunFileRetriever:
    """Replays a run file; a golden query missing from it retrieves nothing (scored as misses)."""

    name = "run"

    def __init__(self, path: Path, run: Run) -> None:
        self.path = Path(path)
        self.run = run

    @classmethod
    def for_project(cls, project: Project, path: Path | str, chunks: ChunkSet | None = None) -> "RunFileRetriever":
        """Read the run and refuse docids that are not chunk ids of the chunking scored (the
        project's chunks, or ``chunks``, a foreign ``ChunkSet``): they mean the run was made
        over another chunking or corpus, and would silently score 0."""
        run = read_run(Path(path))
        foreign = chunks if chunks is not None and chunks.foreign else None
        known = foreign.positions.first if foreign is not None else {c.chunk_id for c in project.all_chunks}
        unknown = sorted((line, docid) for docid, line in run.first_line.items() if docid not in known)
        if unknown:
            line, docid = unknown[0]
            where = (foreign.label if foreign is not None else
                     f"this corpus under {chunker_spec(project.chunker)}")
            raise InvalidInput(f"docid {docid!r} is not a chunk id of {where}; {len(unknown)} unknown docid(s) in "
                               "all. The run must use chunk ids of the same corpus and chunking.",
                               path=str(path), line=line)
        return cls(Path(path), run)

    def describe(self) -> dict:
        return {"name": self.name, "file": self.path.name, "sha256": self.run.sha256, "tags": sorted(self.run.tags)}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return top_k(self.run.hits.get(query_id, []), k)

    def missing(self, query_ids: list[str]) -> list[str]:
        return [q for q in query_ids if q not in self.run.hits]
