"""Fusion of rankings: ``--retriever hybrid`` (BM25 + dense) and ``--retriever rrf:a,b,...``.

Members are any registered retrievers (built over the same chunking) and run files given
with ``--run`` (each a member named ``run``), so a team's own system can be fused with the
baselines without code. ``[retriever.fusion]`` chooses the method, each member's weight (by
name; ``DEFAULT_WEIGHTS`` when not listed) and how deep each member is read; the fingerprint
records all of them and every member's own description. Two methods (``METHODS``):

- ``rrf`` (``rrf:a,b``'s default; Cormack et al. 2009) adds, for every member ranking a chunk at rank
  r, weight / (k + r). It needs no score calibration between a BM25 score and a cosine, but
  it follows ranks only: a member that ranks noise has as much say as one that is sure, so a
  weak member drags the fusion below the strong one (issue 37.6: sentence-style questions
  over the Rust book, BM25 0.972 chunk success@5, dense 0.425, RRF 0.680).
- ``zscore`` (``hybrid``'s default) reads each member's scores for what they say about its confidence: a member's
  top ``window`` scores are standardised (mean 0, spread 1; with fewer hits than ``window``
  the rest count as scoring 0, as a lexical member's unmatched chunks do), and a chunk gets,
  from each member, weight x how far above that member's mean it stands (nothing at or below
  it). A member sure of one hit gives it many spreads; a flat, uninformative ranking gives
  every chunk little, so it cannot push a confident member's hit down. No labels, no state
  across queries. Chosen on the selection sets of docs/performance.md with the dense member
  weighing 0.4: far above RRF where one member is weak (held-out Rust reference, chunk
  success@5: BM25 0.966, RRF 0.741, zscore 0.963), never more than 0.023 below the better
  member (doc success@1), where RRF fell up to 0.37 below.
- ``coverage`` (``hybrid``'s default) is ``zscore`` whose members that do not match words (dense,
  a run file) weigh less the more of the question the lexical member's (BM25's) first hit holds
  (``Lexical.held_share``, the share of the question's distinct analysed terms): their full
  weight up to ``ramp[0]``, none from ``ramp[1]``, linearly in between (0.5, 0.8). A question made
  of one sentence's content words is held whole by the chunk with that sentence; there BM25 is
  sure and a dense member weak on the text could only tip its near-ties the wrong way (the
  zscore losses at doc success@1: 0.013-0.023 on every sentence set), while a colloquial question
  the answer words differently is held in part and dense keeps its say. Per question, no labels.
  Chosen on the selection sets, then run once on a held-out set (docs/performance.md, 37.6 third
  round): no set-measure more than 0.01 below the better member but one question of mixed_ja.
  A member that reads the question through a tokenizer (``Tokenized``: dense) is weighed, besides,
  by how much of the question its tokenizer cannot read (``unreadable_share``: the share of its
  non-space characters mapped to the unknown token): all of it up to ``unreadable_ramp[0]``, none
  from ``unreadable_ramp[1]`` (0.02, 0.1). An English model asked in Japanese (mixed_ja's ja-03,
  11% unreadable) has no say; an English question with one emoji (~2%) keeps most of it; a model
  whose vocabulary reads the script, or a byte-level one, keeps all (fourth round: every set-measure
  within 0.01, a held-out Japanese set included). ``rrf:a,b`` keeps the method its name says.

Every fused score is a sum in member order of terms computed with correctly rounded operations
(``math.fsum`` for the mean and spread, ``math.sqrt``, products and quotients; no library
kernel), so equal member rankings give bit-identical fused rankings on any machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from labeller.config import FusionConfig
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, Lexical, Progress, Retriever, Tokenized, top_k

HYBRID = ("bm25", "dense")
NOT_MEMBERS = ("rrf", "run")  # no fusion inside a fusion of itself; run files come with --run


Ranking = tuple[float, list[Hit]]  # a member's weight and its hits, best first (trec order)

# the method a fusion uses when [retriever.fusion] method is not set, by the fusion's name
DEFAULT_METHOD = {"hybrid": "coverage", "rrf": "rrf"}
# a member's weight when [retriever.fusion] weights does not list it, by method (else 1): the
# dense member weighs 0.4 under zscore (and coverage), chosen with it on the selection sets (docs/performance.md)
DEFAULT_WEIGHTS = {"zscore": {"dense": 0.4}, "coverage": {"dense": 0.4}}


def settled(settings: FusionConfig, name: str) -> FusionConfig:
    """``settings`` with its method decided: as configured, else the fusion's own default
    (``hybrid``: zscore; ``rrf:a,b``: rrf)."""
    return settings.model_copy(update={"method": settings.method or DEFAULT_METHOD[name]})


def weight(settings: FusionConfig, member: str) -> float:
    """A member's weight under ``settings`` (its method decided): as configured, else the method's default."""
    return settings.weights.get(member, DEFAULT_WEIGHTS.get(str(settings.method), {}).get(member, 1.0))


def rrf(rankings: Sequence[Ranking], settings: FusionConfig) -> dict[str, float]:
    """Reciprocal-rank fusion: weight / (k + rank) summed over the members ranking a chunk."""
    fused: dict[str, float] = {}
    for weight, hits in rankings:
        for rank, hit in enumerate(hits, 1):
            fused[hit.chunk_id] = fused.get(hit.chunk_id, 0.0) + weight / (settings.k + rank)
    return fused


def standardised(scores: Sequence[float], window: int) -> list[float] | None:
    """Each score (best first) as standard deviations from the mean of the first ``window``,
    a missing one (fewer hits than ``window``) counting as 0; None when those are all equal
    (a ranking that says nothing). Scaled by the largest magnitude first, so no sum of
    squares overflows whatever a run file's scores are; ``fsum`` is exactly rounded, so no
    order of the terms can change a bit."""
    scale = max((abs(s) for s in scores[:window]), default=0.0)
    if not scale > 0:
        return None
    scaled = [s / scale for s in scores]
    values = scaled[:window] + [0.0] * (window - len(scaled[:window]))
    mean = math.fsum(values) / window
    spread = math.sqrt(math.fsum((v - mean) * (v - mean) for v in values) / window)
    if not spread > 0:
        return None
    return [(v - mean) / spread for v in scaled]


def zscore(rankings: Sequence[Ranking], settings: FusionConfig) -> dict[str, float]:
    """From each member, weight x how far above its mean a chunk stands (``standardised``;
    a chunk it did not return stands where its last hit does), summed in member order. A chunk
    no member puts above its mean gets the sum of how far below them it stands, mapped into
    (-1, 0] (s / (1 - s)): it ranks below every chunk some member vouches for, still in order."""
    above: dict[str, float] = {}
    below: dict[str, float] = {}
    for _, hits in rankings:
        for hit in hits:
            above.setdefault(hit.chunk_id, 0.0)
            below.setdefault(hit.chunk_id, 0.0)
    for weight, hits in rankings:
        z = standardised([h.score for h in hits], settings.window)
        if z is None:
            continue
        mine = {h.chunk_id: v for h, v in zip(hits, z)}
        for cid in above:
            v = mine.get(cid, z[-1])
            if v > 0:
                above[cid] += weight * v
            else:
                below[cid] += weight * v
    return {cid: a if a > 0 else below[cid] / (1.0 - below[cid]) for cid, a in above.items()}


def ramp(value: float, bounds: tuple[float, float]) -> float:
    """The share of its weight a member keeps (``coverage``) at ``value`` on a ramp ``bounds``
    (``[retriever.fusion] ramp`` or ``unreadable_ramp``): 1 up to ``bounds[0]``, 0 from
    ``bounds[1]``, linear in between (one subtraction and one division each side: exact to the
    last bit on any machine)."""
    low, high = bounds
    return 1.0 if value <= low else 0.0 if value >= high else (high - value) / (high - low)


def coverage(members: Sequence[tuple[Retriever, float, list[Hit]]], query: str,
             settings: FusionConfig) -> list[Ranking]:
    """The members' rankings with the weights ``coverage`` fuses them by: the first lexical
    member's first hit says how much of ``query`` it holds, and every member that is not
    lexical keeps ``ramp`` of its weight (no lexical member, or no hit from it: all of it);
    a member that reads the query through a tokenizer (``Tokenized``) keeps, besides, the
    ``unreadable_ramp`` share for how much of the query its tokenizer cannot read."""
    lexical = next(((m, hits) for m, _, hits in members if isinstance(m, Lexical)), None)
    keep = ramp(lexical[0].held_share(query, lexical[1][0].chunk_id), settings.ramp) if lexical and lexical[1] else 1.0

    def readable(member: Retriever) -> float:
        return ramp(member.unreadable_share(query), settings.unreadable_ramp) if isinstance(member, Tokenized) else 1.0

    return [(w if isinstance(m, Lexical) else w * keep * readable(m), hits) for m, w, hits in members]


# [retriever.fusion] method -> how it fuses (config.FusionConfig lists the same names); coverage
# is zscore over the weights ``coverage`` gives each question
METHODS: dict[str, Callable[[Sequence[Ranking], FusionConfig], dict[str, float]]] = {
    "rrf": rrf, "zscore": zscore, "coverage": zscore}


def fuse(rankings: Sequence[Ranking], settings: FusionConfig, k: int) -> list[Hit]:
    """The top ``k`` of the members' rankings fused by ``settings.method`` (members weighing 0
    are left out)."""
    fused = METHODS[str(settings.method)]([(w, hits) for w, hits in rankings if w > 0], settings)
    return top_k([Hit(cid, score) for cid, score in fused.items()], k)


class FusionRetriever:
    """Members ``(name, retriever, weight)`` fused by ``settings.method``, each read
    ``settings.depth`` deep (at least k)."""

    def __init__(self, name: str, members: Sequence[tuple[str, Retriever, float]], settings: FusionConfig) -> None:
        self.name = name
        self.members = list(members)
        self.settings = settings

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
        cfg = settled(project.config.retriever.fusion, name)
        built: list[tuple[str, Retriever, float]] = [
            (m, make_retriever(m, project, chunks=chunks, progress=progress), weight(cfg, m)) for m in names]
        built += [("run", make_retriever("run", project, chunks=chunks, path=run), weight(cfg, "run"))
                  for run in runs]
        if not any(w > 0 for _, _, w in built):
            raise InvalidInput(f"[retriever.fusion] weights: at least one member of {name} must weigh more than 0")
        return cls(name, built, cfg)

    @classmethod
    def hybrid(cls, project: Project, runs: Sequence[Path | str] = (), chunks: ChunkSet | None = None,
               progress: Progress | None = None) -> "FusionRetriever":
        """BM25 and dense, fused (``--retriever hybrid``; more runs may join with ``--run``)."""
        return cls.for_project(project, HYBRID, runs, chunks=chunks, progress=progress, name="hybrid")

    def describe(self) -> dict:
        s = self.settings
        how: dict[str, object] = {"k": s.k} if s.method == "rrf" else {"window": s.window}
        if s.method == "coverage":
            how["ramp"], how["unreadable_ramp"] = list(s.ramp), list(s.unreadable_ramp)
        return {"name": self.name, "fusion": {"method": s.method, **how, "depth": s.depth},
                "members": [{**r.describe(), "weight": w} for _, r, w in self.members]}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        depth = max(k, self.settings.depth)
        read = [(member, weight, top_k(member.retrieve(query_id, query, depth), depth))
                for _, member, weight in self.members if weight > 0]
        if self.settings.method == "coverage":
            return fuse(coverage(read, query, self.settings), self.settings, k)
        return fuse([(weight, hits) for _, weight, hits in read], self.settings, k)
