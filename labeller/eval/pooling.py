"""The pool (TREC pooling): what the systems retrieve for a question that nobody judged yet.

Authors label the answer they found; another passage that also answers is scored as a miss.
Pooling finds those passages where they matter, among what retrievers actually return: the
union of each system's top ``depth`` per question, minus every chunk already judged for
that question (one that hits a label span or a judgment span, ``judged.is_judged``), so
judging the whole pool makes ``judged@depth`` 1 for every pooled system.

One entry per (question, chunk), in questions-file order, then best rank, then chunk id:
the same inputs give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from labeller.core.build import RecordResult
from labeller.core.hitrules import HitRule
from labeller.core.judgments import JudgmentSet
from labeller.core.project import Project
from labeller.display import json_dumps
from labeller.eval.chunkset import ChunkSet
from labeller.eval.judged import is_judged, judged_places
from labeller.eval.retrievers import Retriever, top_k
from labeller.io import read_jsonl


@dataclass
class PoolEntry:
    query_id: str
    chunk_id: str
    doc: str
    start: int
    end: int
    text: str
    systems: list[str]
    best_rank: int

    def line(self) -> str:
        return json_dumps(self.__dict__, sort_keys=True)

    def current(self, project: Project) -> bool:
        """Whether the corpus still holds this text at this place (else the pool is older than
        the corpus, and a verdict would judge text nobody saw)."""
        return self.doc in project.corpus and project.corpus[self.doc].text[self.start:self.end] == self.text


def build_pool(project: Project, records: Sequence[RecordResult], judgments: JudgmentSet, chunk_set: ChunkSet,
               systems: Sequence[tuple[str, Retriever]], depth: int, rule: HitRule) -> list[PoolEntry]:
    """The pool of ``records`` (answerable questions) over ``systems`` (name, retriever)."""
    pos = chunk_set.positions
    out: list[PoolEntry] = []
    for rec in records:
        places = judged_places(rec, judgments)
        entries: dict[str, PoolEntry] = {}
        for name, retriever in systems:
            for rank, hit in enumerate(top_k(retriever.retrieve(rec.question.id, rec.question.query, depth), depth), 1):
                entry = entries.get(hit.chunk_id)
                if entry is not None:
                    entry.best_rank = min(entry.best_rank, rank)
                    if name not in entry.systems:
                        entry.systems.append(name)
                    continue
                if is_judged(hit.chunk_id, places, pos, rule) or hit.chunk_id not in pos.positions:
                    continue  # judged already, or a chunk file's unplaced chunk (no text of the corpus to judge)
                chunk = pos.first[hit.chunk_id]
                entries[hit.chunk_id] = PoolEntry(rec.question.id, hit.chunk_id, chunk.doc_id, chunk.start, chunk.end,
                                                  project.corpus[chunk.doc_id].text[chunk.start:chunk.end], [name],
                                                  rank)
        for e in sorted(entries.values(), key=lambda e: (e.best_rank, e.chunk_id)):
            e.systems.sort()
            out.append(e)
    return out


POOL_MAX_BYTES = 256 * 1024 * 1024
POOL_MAX_LINES = 2_000_000  # a pool line is at least ~160 bytes: no pool within POOL_MAX_BYTES has more
_POOL_FIELDS = {"query_id": str, "chunk_id": str, "doc": str, "start": int, "end": int, "text": str, "systems": list,
                "best_rank": int}


def read_pool(path: Path) -> list[PoolEntry]:
    """A pool file ``labeller pool`` wrote; a line of any other shape refuses the file (exit 2),
    named by path and line."""
    out = []
    for jl in read_jsonl(path, max_bytes=POOL_MAX_BYTES, what="pool file", max_lines=POOL_MAX_LINES):
        if jl.skipped:
            continue
        v = jl.value
        if jl.error is not None or not isinstance(v, dict) or set(v) != set(_POOL_FIELDS) or not all(
                type(v[k]) is t for k, t in _POOL_FIELDS.items()):
            raise jl.refuse(jl.error or "not a pool line {query_id, chunk_id, doc, start, end, text, systems, "
                            "best_rank} (write pools with `labeller pool`)")
        if not 0 <= v["start"] <= v["end"] or v["best_rank"] < 1:  # a slice would take -19:-1 as a range
            raise jl.refuse(f"start {v['start']}, end {v['end']}, best_rank {v['best_rank']}: a pool line's range "
                            "is 0 <= start <= end and its best rank at least 1")
        out.append(PoolEntry(**v))
    return out
