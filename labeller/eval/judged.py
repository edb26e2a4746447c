"""Which retrieved chunks are judged, ``judged@k``, and the condensed ranking (SPEC §11).

An eval scores every unlabelled chunk as wrong; ``judged@k`` says how far to trust that:
the share of the top k ranks that hold a chunk someone looked at for this question (it
hits a label span or a judgment span under the hit rule; a rank the ranking does not fill
counts as unjudged). ``condense`` is trec_eval's ``-J``: the unjudged chunks are dropped from
the ranking before any metric is computed, and the remaining chunks move up.

A judgment is a span, not a chunk id, so all of this is decided per chunking at eval time:
the same judgments count under any chunker or chunk file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from labeller.core.build import RecordResult
from labeller.core.hitrules import HitRule
from labeller.core.judgments import JudgmentSet
from labeller.core.vocab import Place
from labeller.diagnostics import listing
from labeller.eval.bootstrap import bootstrap_cis
from labeller.eval.metrics import ChunkPositions, QueryScore
from labeller.eval.report import stat
from labeller.eval.retrievers import Hit

JUDGED_FLOOR = 0.9  # below this share of judged chunks at the shipped k, the numbers are lower bounds


def judged_places(rec: RecordResult, judgments: JudgmentSet) -> list[Place]:
    """Every place someone judged for this question: its label spans and its judgment spans."""
    return [s.place for s in rec.spans] + judgments.judged_places(rec.question.id)


def is_judged(chunk_id: str, places: Sequence[Place], pos: ChunkPositions, rule: HitRule) -> bool:
    """Whether the chunk (at any of its positions) hits one of the places under ``rule``."""
    return any(rule.chunk_hits((s, e), (p.start, p.end))
               for d, s, e in pos.positions.get(chunk_id, ()) for p in places if p.doc == d)


def judged_flags(ranked: Sequence[str], places: Sequence[Place], pos: ChunkPositions, rule: HitRule,
                 ranked_docs: Sequence[str | None] | None = None) -> list[bool]:
    """``is_judged`` of each ranked chunk; one in no document that holds a place (most of a
    ranking: ``pos.doc`` names a chunk's one document unless it is ``spread``) is not judged.
    ``ranked_docs``: ``pos.doc.get`` of each ranked id, when the caller has them (``eval.codes``)."""
    docs = {p.doc for p in places}
    near = list(map(docs.__contains__, map(pos.doc.get, ranked) if ranked_docs is None else ranked_docs))
    if pos.spread:
        near = [n or cid in pos.spread for n, cid in zip(near, ranked)]
    return [n and is_judged(cid, places, pos, rule) for n, cid in zip(near, ranked)] if any(near) else near


def judged_at(flags: Sequence[bool], ks: Sequence[int]) -> dict[str, float]:
    """``judged@k`` for each k: judged ranks among the first k, over k (missing ranks unjudged)."""
    return {f"judged@{k}": sum(flags[:k]) / k for k in ks}


def judged_aggregate(scores: Sequence[QueryScore], ks: Sequence[int], samples: int, seed: int) -> dict[str, dict]:
    """``aggregate.chunk``'s ``judged@k``: mean, interval and n, by the report's seeded bootstrap."""
    names = [f"judged@{k}" for k in ks]
    matrix = [[s.chunk[n] for n in names] for s in scores]
    cis = bootstrap_cis(matrix, samples, seed) if scores else [None] * len(names)
    return {n: stat([row[j] for row in matrix], cis[j]) for j, n in enumerate(names)}


def condense(hits: Sequence[Hit], flags: Sequence[bool]) -> list[Hit]:
    """The ranking without its unjudged chunks, in order (trec_eval -J)."""
    return [h for h, judged in zip(hits, flags) if judged]


def with_relevant_judgments(rec: RecordResult, judgments: JudgmentSet) -> RecordResult:
    """The record with each span judged relevant as one more answer span: a chunk judged
    relevant is answer-bearing. A judged span equal to a label span (a promoted judgment)
    adds nothing."""
    labelled = {s.place for s in rec.spans}
    extra = [r.span for r in judgments.of(rec.question.id) if r.judgment.relevant and r.place not in labelled]
    unique = list({s.place: s for s in extra}.values())
    return replace(rec, spans=[*rec.spans, *unique]) if unique else rec


LOWER_BOUNDS = "recall and precision are lower bounds; run `labeller pool` and judge the pool"


def empty_share(flags: Sequence[bool], k: int) -> float:
    """The share of the top k ranks the ranking leaves empty. ``judged@k`` counts them as
    unjudged (SPEC §11), but no answer can hide in them: the floor checks set them apart."""
    return max(0, k - len(flags)) / k


def _below_floor(judged: float, empty: float) -> bool:
    """Unjudged chunks, not empty ranks, keep the share below the floor (with float slack)."""
    return judged + empty < JUDGED_FLOOR - 1e-9


def _empty_note(judged: float, empty: float, k: int) -> str:
    return (f"below {JUDGED_FLOOR} only because the rankings leave {empty:.2f} of the top {k} empty (a missing rank "
            f"counts as unjudged); unjudged chunks fill {max(0.0, 1 - judged - empty):.2f} of it")


def judged_diagnostic(value: float | None, shipped_k: int, empty: float = 0.0) -> dict:
    """The report's ``judged`` check: below ``JUDGED_FLOOR`` the unjudged chunks may hold answers.
    ``empty``: the mean share of the top k the rankings leave empty; a shortfall made of empty
    ranks alone is said, not warned about (there is nothing to pool)."""
    if value is None:
        return {"check": "judged", "value": None, "status": "n/a", "reading": "not computed: no scored queries"}
    low = _below_floor(value, empty)
    if low:
        reading = (f"judged@{shipped_k} = {value:.2f}: below {JUDGED_FLOOR}: many retrieved chunks were never judged, "
                   f"so {LOWER_BOUNDS}")
    elif value < JUDGED_FLOOR:
        reading = f"judged@{shipped_k} = {value:.2f}: {_empty_note(value, empty, shipped_k)}"
    else:
        reading = f"judged@{shipped_k} = {value:.2f}: the top chunks are judged"
    return {"check": "judged", "value": round(value, 6), "status": "warn" if low else "ok", "reading": reading}


def judged_breakdowns_diagnostic(breakdowns: dict[str, dict[str, dict]], shipped_k: int,
                                 empty: dict[str, dict[str, float]] | None = None) -> dict:
    """The ``judged_breakdowns`` check: ``judged_diagnostic``'s floor applied to each split, tag
    and hop group, since a well-judged whole can hide a group nobody judged (a new tag, the test
    split). ``empty[kind][group]``: the group's mean share of empty ranks in the top k, which
    does not count against the floor. ``value``: how many groups are below it; the reading names
    them, lowest first."""
    name = f"judged@{shipped_k}"
    values = [(agg["chunk"][name]["value"], kind, group, (empty or {}).get(kind, {}).get(group, 0.0))
              for kind, groups in breakdowns.items() for group, agg in groups.items()
              if agg["chunk"][name]["value"] is not None]
    if not values:
        return {"check": "judged_breakdowns", "value": None, "status": "n/a",
                "reading": "not computed: no scored queries"}
    low = sorted(v[:3] for v in values if _below_floor(v[0], v[3]))
    short = sorted(v for v in values if v[0] < JUDGED_FLOOR and not _below_floor(v[0], v[3]))
    if not low:
        reading = f"{name} is at least {JUDGED_FLOOR} in each of the {len(values)} split, tag and hop groups"
        if short:  # below the floor through empty ranks alone: said, not warned about
            named = listing([f"{kind} {group} {value:.2f}" for value, kind, group, _ in short], "groups", 10)
            reading += (f" but {len(short)} ({named}), below it only because their rankings leave ranks of the top "
                        f"{shipped_k} empty (a missing rank counts as unjudged)")
        return {"check": "judged_breakdowns", "value": 0, "status": "ok", "reading": reading}
    named = listing([f"{kind} {group} {value:.2f}" for value, kind, group in low], "groups", 10)
    return {"check": "judged_breakdowns", "value": len(low), "status": "warn",
            "reading": f"{name} below {JUDGED_FLOOR} in {len(low)} of {len(values)} split, tag and hop groups "
                       f"({named}): there {LOWER_BOUNDS}"}
