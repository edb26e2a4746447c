"""Reciprocal-rank fusion: ``--retriever hybrid`` (BM25 + dense) and ``--retriever rrf:a,b,...``.

RRF (Cormack et al. 2009) adds, for every member ranking a chunk at rank r, weight / (k + r):
it needs no score calibration between a BM25 score and a cosine, which is why it is the
usual hybrid baseline. Members are any registered retrievers (built over the same chunking)
and run files given with ``--run`` (each a member named ``run``), so a team's own system
can be fused with the baselines without code. ``[retriever.fusion]`` sets k (60, the
paper's), each member's weight (by name; 1 when not listed) and how deep each member is
read; the fingerprint records all of them and every member's own description.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, Progress, Retriever, top_k

HYBRID = ("bm25", "dense")
NOT_MEMBERS = ("rrf", "run")  # no fusion inside a fusion of itself; run files come with --run


class FusionRetriever:
    """RRF over members ``(name, retriever, weight)``, each read ``depth`` deep (at least k)."""

    def __init__(self, name: str, members: Sequence[tuple[str, Retriever, float]], k: int, depth: int) -> None:
        self.name = name
        self.members = list(members)
        self.k = k
        self.depth = depth

    @classmethod
    def for_project(cls, project: Project, members: Sequence[str] = (), runs: Sequence[Path | str] = (),
                    chunks: ChunkSet | None = None, progress: Progress | None = None,
                    name: str = "rrf") -> "FusionRetriever":
        """Fuse the registered retrievers ``members`` (``rrf:bm25,dense``) and the run files ``runs``."""
        from labeller.eval.retrievers import make_retriever  # the registry holds this module: imported late

        names = [m.strip() for m in members]
        for member in names:
            if not member or member in NOT_MEMBERS or ":" in member:
                raise InvalidInput(f"retriever {name}: {member!r} cannot be a member (give registered retrievers, "
                                   "e.g. rrf:bm25,dense; run files with --run)")
        repeated = sorted({m for m in names if names.count(m) > 1})
        if repeated:
            raise InvalidInput(f"retriever {name}: member {repeated[0]!r} is given twice")
        if len(names) + len(runs) < 2:
            raise InvalidInput(f"retriever {name} fuses at least two rankings; got {len(names) + len(runs)} "
                               "(e.g. rrf:bm25,dense, or rrf:bm25 with --run FILE)")
        cfg = project.config.retriever.fusion
        built: list[tuple[str, Retriever, float]] = [
            (m, make_retriever(m, project, chunks=chunks, progress=progress), cfg.weights.get(m, 1.0)) for m in names]
        built += [("run", make_retriever("run", project, chunks=chunks, path=run), cfg.weights.get("run", 1.0))
                  for run in runs]
        if not any(w > 0 for _, _, w in built):
            raise InvalidInput(f"[retriever.fusion] weights: at least one member of {name} must weigh more than 0")
        return cls(name, built, cfg.k, cfg.depth)

    @classmethod
    def hybrid(cls, project: Project, runs: Sequence[Path | str] = (), chunks: ChunkSet | None = None,
               progress: Progress | None = None) -> "FusionRetriever":
        """BM25 and dense, fused (``--retriever hybrid``; more runs may join with ``--run``)."""
        return cls.for_project(project, HYBRID, runs, chunks=chunks, progress=progress, name="hybrid")

    def describe(self) -> dict:
        return {"name": self.name, "fusion": {"method": "rrf", "k": self.k, "depth": self.depth},
                "members": [{**r.describe(), "weight": w} for _, r, w in self.members]}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        depth = max(k, self.depth)
        fused: dict[str, float] = {}
        for _, member, weight in self.members:
            if weight <= 0:
                continue
            for rank, hit in enumerate(top_k(member.retrieve(query_id, query, depth), depth), 1):
                fused[hit.chunk_id] = fused.get(hit.chunk_id, 0.0) + weight / (self.k + rank)
        return top_k([Hit(cid, score) for cid, score in fused.items()], k)
