"""Per-query and aggregate retrieval metrics (SPEC §8), from spans and chunk offsets.

A hit is decided from the answer spans and the retrieved chunks' offsets under a hit rule
(any of the four, SPEC §5), never from a list of ids alone, so the same ranking can be
scored under any rule and chunk ids shared by two positions are handled. The ranking
given here must already be in trec_eval order (``retrievers.trec_order``).

Chunk level, per query: a span's *hit rank* is the first rank r at which the chunks
retrieved at ranks 1..r satisfy the rule for it (for ``union_coverage`` the union of that
prefix). ``recall@k`` = share of spans with hit rank <= k, ``success@k`` = any,
``all@k`` = every (multi-hop records only), ``mrr@k`` = 1 / the first hit rank (0 past k:
misses stay in the mean), binary ``ndcg@k`` with a retrieved chunk relevant when it hits
one of the record's spans and the ideal ranking holding every such chunk of the corpus.

Document level: the ranking is the distinct documents in order of first retrieval; an
answer document's rank is its position there; the same five metrics follow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import compress, count

from labeller.core.chunkers import Chunk
from labeller.core.chunkfile import Chunking
from labeller.core.hitrules import HitRule
from labeller.core.resolve import Span
from labeller.core.vocab import Place
from labeller.errors import EXIT_REFUSED, LabellerError
from labeller.eval.measures import FAMILIES, Measure, RankedQuery
from labeller.eval.measures.ranks import many

LEVELS = ("chunk", "doc")
EPS = 1e-9


class MetricsSanityError(LabellerError):
    """recall@1 <= MRR@k <= success@k failed: a bug in scoring, never a property of the data."""

    exit_code = EXIT_REFUSED


def measures(ks: Sequence[int]) -> list[Measure]:
    """Every registered measure at every k, family by family: the report's metric order."""
    return [family(k=k) for family in FAMILIES.implementations() for k in ks]


class _ChunksAt(dict):
    """Each chunk id's first ``Chunk``, made when first read: until then the dict holds the
    index of its range (``chunk_at(index)`` makes it). Membership, length and keys are the
    dict's own (a ranking's ids are tested in one C pass); every read of a value goes
    through ``__getitem__`` (``get``, ``values`` and ``items`` too), so no index is ever
    handed out. A value set (an unplaced chunk's) is kept as it is."""

    def __init__(self, first_at: dict[str, int], chunk_at: Callable[[int], Chunk]) -> None:
        super().__init__(first_at)
        self._chunk_at = chunk_at

    def __getitem__(self, chunk_id: str) -> Chunk:
        value = dict.__getitem__(self, chunk_id)
        if type(value) is int:
            value = self._chunk_at(value)
            dict.__setitem__(self, chunk_id, value)
        return value

    def get(self, chunk_id, default=None):
        return self[chunk_id] if chunk_id in self else default

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


class ChunkPositions:
    """Every position of every chunk id: ids can repeat (identical text in one document)."""

    _chunk_at: Callable[[int], Chunk]  # ``of_ranges``: the chunk of a range, by its index
    _shown_at: Callable[[int], tuple[str, str]] | None = None  # ``of_ranges``: ``shown`` of a range, by its index

    def __init__(self, chunks: Sequence[Chunk], chunking: Chunking | None = None) -> None:
        self.positions: dict[str, list[Place]] = {}  # read-only lists, handed out as they are
        by_doc: dict[str, list[Chunk]] = {}
        self.__dict__["by_doc"] = by_doc  # (the ``by_doc`` property's value, made here)
        self.first: dict[str, Chunk] = {}  # the first position of each id, to show a retrieved id
        self.doc: dict[str, str] = {}  # the document of each id's first position (a ranking's documents by one map)
        self.spread: set[str] = set()  # ids placed in more than one document (rare): every place is looked at
        for c in chunks:
            self.positions.setdefault(c.chunk_id, []).append(Place(c.doc_id, c.start, c.end))
            by_doc.setdefault(c.doc_id, []).append(c)
            if self.doc.setdefault(c.chunk_id, c.doc_id) != c.doc_id:
                self.spread.add(c.chunk_id)
            self.first.setdefault(c.chunk_id, c)
        if chunking is not None:  # the same chunks as ranges, already sorted (``ChunkSet``)
            self.__dict__["chunking"] = chunking

    @classmethod
    def of_ranges(cls, chunking: Chunking, chunk_at: Callable[[int], Chunk],
                  shown_at: Callable[[int], tuple[str, str]] | None = None) -> "ChunkPositions":
        """The positions of ``chunking``'s chunks from its ranges, each ``Chunk`` made only
        when it is read (``chunk_at(i)``: the chunk of ``chunking.ranges[i]``): the same maps
        as ``ChunkPositions([chunk_at(i) for i in ...], chunking)``, for a chunk file whose
        report shows a few of its 200,000 chunks. ``shown_at(i)``: that chunk's document and
        heading path without making it (``shown``)."""
        self = cls.__new__(cls)
        self.positions, self.doc, self.spread = {}, {}, set()
        first_at: dict[str, int] = {}
        for i, (cid, place) in enumerate(chunking.ranges):
            self.positions.setdefault(cid, []).append(place)
            if self.doc.setdefault(cid, place.doc) != place.doc:
                self.spread.add(cid)
            first_at.setdefault(cid, i)
        self.first = _ChunksAt(first_at, chunk_at)
        self.__dict__["chunking"] = chunking
        self._chunk_at = chunk_at
        self._shown_at = shown_at
        return self

    def shown(self, chunk_id: str) -> tuple[str, str]:
        """``(c.doc_id, c.heading_path)`` of ``first[chunk_id]``, what a report shows of a
        retrieved id, without making a ``Chunk`` not yet made (``of_ranges``)."""
        value: Chunk | int = dict.__getitem__(self.first, chunk_id)  # a range's index until its chunk is made
        if isinstance(value, int):
            if self._shown_at is not None:
                return self._shown_at(value)
            value = self.first[chunk_id]
        return value.doc_id, value.heading_path

    @cached_property
    def by_doc(self) -> dict[str, list[Chunk]]:
        """Every chunk per document, in order (made in ``__init__``; for ``of_ranges``, from
        every range when first read)."""
        out: dict[str, list[Chunk]] = {}
        for i in range(len(self.chunking.ranges)):
            c = self._chunk_at(i)
            out.setdefault(c.doc_id, []).append(c)
        return out

    @cached_property
    def chunking(self) -> Chunking:
        """These chunks as a ``Chunking``: its ranges sorted per document find the chunks
        near a span by bisection (200,000 overlapping chunks made a scan per span slow)."""
        return Chunking.of_chunks("positions", (c for cs in self.by_doc.values() for c in cs))

    def doc_of(self, chunk_id: str) -> str | None:
        return self.doc.get(chunk_id)


def span_hit_ranks(ranked: Sequence[str], spans: Sequence[Span], pos: ChunkPositions, rule: HitRule,
                   ranked_docs: Sequence[str | None] | None = None) -> list[int | None]:
    """For each span (``doc_id``, ``start``, ``end``), the first rank whose prefix satisfies ``rule``.

    Only the ranks that retrieved a chunk of an answer document are looked at (found from
    each id's document, ``ranked_docs`` when the caller has them): per answer document the
    ranks with their ranges; each span then walks only its document's list (a walk of the
    whole ranking per span, then of every position of every id, was most of the time of
    scoring a deep run)."""
    by_doc: dict[str, list[tuple[int, list[tuple[int, int]]]]] = {sp.doc_id: [] for sp in spans}
    docs = list(map(pos.doc.get, ranked)) if ranked_docs is None else ranked_docs
    spread = pos.spread
    candidates = ([i for i, (d, c) in enumerate(zip(docs, ranked)) if d in by_doc or c in spread] if spread
                  else list(compress(range(len(docs)), map(by_doc.__contains__, docs))))
    for i in candidates:
        rank, cid = i + 1, ranked[i]
        for d, s, e in pos.positions[cid]:
            at = by_doc.get(d)
            if at is None:
                continue
            if at and at[-1][0] == rank:
                at[-1][1].append((s, e))
            else:
                at.append((rank, [(s, e)]))
    out: list[int | None] = []
    for sp in spans:
        span = (sp.start, sp.end)
        prefix: list[tuple[int, int]] = []
        found = None
        for rank, ivs in by_doc[sp.doc_id]:
            prefix.extend(ivs)
            if rule.span_satisfied(prefix, span):
                found = rank
                break
        out.append(found)
    return out


def relevant_chunk_ids(spans: Iterable[Span], pos: ChunkPositions, rule: HitRule) -> set[str]:
    """Chunk ids of the whole corpus that hit one of the spans (the ideal list for nDCG)."""
    chunking = pos.chunking
    return {r.id for sp in spans
            for r in (chunking.overlapping(sp.doc_id, sp.start, sp.end) if rule.needs_overlap
                      else chunking.by_doc.get(sp.doc_id, ()))
            if rule.chunk_hits((r.place.start, r.place.end), (sp.start, sp.end))}


def unreachable_spans(spans, chunking: Chunking, rule: HitRule) -> int:
    """How many spans no chunk of the chunking can hit under ``rule``, whatever is retrieved
    (SPEC §10: with a foreign chunking that is not an error, their recall is 0)."""
    return sum(1 for sp in spans if not chunking.hitting(Place(sp.doc_id, sp.start, sp.end), rule))


def distinct_docs(ranked: Sequence[str], pos: ChunkPositions, ranked_docs: Sequence[str | None] | None = None) -> list[str]:
    """Documents in order of first retrieval."""
    docs = dict.fromkeys(map(pos.doc.get, ranked) if ranked_docs is None else ranked_docs)
    return [d for d in docs if d is not None]


@lru_cache(maxsize=64)
def _level_measures(ks: tuple[int, ...], multi: bool, families: tuple[type[Measure], ...]) -> tuple[tuple[str, Measure], ...]:
    """The measures ``level_metrics`` computes, made once per k sweep and set of registered
    families (a registration changes the key), not once per query."""
    return tuple((m.name, m) for k in ks for family in families if multi or not family.multi_only
                 for m in (family(k=k),))


def level_metrics(ranks: Sequence[int | None], gains: Sequence[int], n_relevant: int, ks: Sequence[int],
                  multi: bool) -> dict[str, float]:
    """Every registered measure of one level for one query; multi-hop-only ones (``all@k``)
    only for multi-hop records."""
    q = RankedQuery(ranks, gains, n_relevant)
    return {name: m(q) for name, m in _level_measures(tuple(ks), multi, tuple(FAMILIES.implementations()))}


def level_metrics_many(queries: Sequence[RankedQuery], ks: Sequence[int], multi: Sequence[bool]) -> list[dict[str, float]]:
    """``level_metrics`` of each query (``multi[i]``: the i-th is multi-hop), the same dicts:
    the built-in measures of every query at once (``ranks.many``), any other per query."""
    families = tuple(FAMILIES.implementations())
    out: list[dict[str, float]] = [{} for _ in queries]
    for hop in (False, True):
        at = [i for i, m in enumerate(multi) if bool(m) is hop]
        if not at:
            continue
        named = _level_measures(tuple(ks), hop, families)
        chosen = [queries[i] for i in at]
        rows = many(chosen, [m for _, m in named])
        if rows is None:
            rows = [[m(q) for _, m in named] for q in chosen]
        names = [name for name, _ in named]
        for i, row in zip(at, rows):
            out[i] = dict(zip(names, row))
    return out


@dataclass
class QueryScore:
    """One answerable query scored at both levels."""

    query_id: str
    multi: bool
    hit_ranks: list[int | None]
    answer_docs: list[str]
    doc_ranks: list[int | None]
    chunk: dict[str, float]
    doc: dict[str, float]

    def level(self, name: str) -> dict[str, float]:
        return self.chunk if name == "chunk" else self.doc


def score_query(query_id: str, ranked: Sequence[str], spans: Sequence[Span], multi: bool, pos: ChunkPositions, rule: HitRule,
                ks: Sequence[int], ranked_docs: Sequence[str | None] | None = None) -> QueryScore:
    """``ranked_docs``: ``pos.doc.get`` of each ranked id, when the caller has them (``eval.codes``)."""
    levels = _Levels.of(ranked, spans, pos, rule, ranked_docs)
    return QueryScore(query_id, multi, levels.hit_ranks, levels.answer_docs, levels.doc_ranks,
                      level_metrics(levels.hit_ranks, levels.chunk.gains, levels.chunk.n_relevant, ks, multi),
                      level_metrics(levels.doc_ranks, levels.doc.gains, levels.doc.n_relevant, ks, multi))


def score_queries(queries: Sequence[tuple[str, Sequence[str], Sequence[Span], bool, Sequence[str | None] | None]],
                  pos: ChunkPositions, rule: HitRule, ks: Sequence[int]) -> list[QueryScore]:
    """``score_query(query_id, ranked, spans, multi, pos, rule, ks, ranked_docs)`` of each of
    ``queries``, the same scores, with the measures of every query at once
    (``level_metrics_many``: 25 calls a query and level were a tenth of scoring a 20,000-query run)."""
    levels = [_Levels.of(ranked, spans, pos, rule, ranked_docs) for _, ranked, spans, _, ranked_docs in queries]
    multi = [q[3] for q in queries]
    chunk = level_metrics_many([lv.chunk for lv in levels], ks, multi)
    doc = level_metrics_many([lv.doc for lv in levels], ks, multi)
    return [QueryScore(q[0], q[3], lv.hit_ranks, lv.answer_docs, lv.doc_ranks, c, d)
            for q, lv, c, d in zip(queries, levels, chunk, doc)]


@dataclass
class _Levels:
    """One query's two levels before the measures: each span's hit rank and the ranking's
    gains over the relevant chunks of the corpus; each answer document's rank and the
    distinct documents' gains."""

    hit_ranks: list[int | None]
    chunk: RankedQuery
    answer_docs: list[str]
    doc_ranks: list[int | None]
    doc: RankedQuery

    @classmethod
    def of(cls, ranked: Sequence[str], spans: Sequence[Span], pos: ChunkPositions, rule: HitRule,
           ranked_docs: Sequence[str | None] | None) -> "_Levels":
        if ranked_docs is None:
            ranked_docs = list(map(pos.doc.get, ranked))
        hit_ranks = span_hit_ranks(ranked, spans, pos, rule, ranked_docs)
        relevant = relevant_chunk_ids(spans, pos, rule)
        answer_docs = list(dict.fromkeys(sp.doc_id for sp in spans))
        docs = distinct_docs(ranked, pos, ranked_docs)
        doc_rank = dict(zip(docs, count(1)))  # each document's rank (docs are distinct)
        doc_ranks = [doc_rank.get(d) for d in answer_docs]
        return cls(hit_ranks, RankedQuery(hit_ranks, _gains(ranked, relevant), len(relevant)), answer_docs,
                   doc_ranks, RankedQuery(doc_ranks, _gains(docs, set(answer_docs)), len(answer_docs)))


def _gains(ranked: Sequence[str], relevant: set[str]) -> list[int]:
    """1 per ranked item in ``relevant``, else 0 (one C pass, no Python step per rank)."""
    return list(map(int, map(relevant.__contains__, ranked)))


def check_sanity(scores: Sequence[QueryScore], aggregate: dict[str, dict[str, dict]], ks: Sequence[int]) -> None:
    """recall@1 <= MRR@k <= success@k, per query (recall@1 recomputed from the ranks) and on
    the aggregates; a violation is a scoring bug and stops the run."""
    problems = []
    for s in scores:
        for level, ranks in (("chunk", s.hit_ranks), ("doc", s.doc_ranks)):
            r1 = sum(1 for r in ranks if r == 1) / len(ranks) if ranks else 0.0
            m = s.level(level)
            for k in ks:
                if not r1 <= m[f"mrr@{k}"] + EPS <= m[f"success@{k}"] + 2 * EPS:
                    problems.append(f"query {s.query_id} {level}: recall@1 {r1}, mrr@{k} {m[f'mrr@{k}']}, "
                                    f"success@{k} {m[f'success@{k}']}")
    for level, agg in aggregate.items():
        for k in ks:
            agg_r1 = agg.get("recall@1", {}).get("value")
            mrr, succ = agg[f"mrr@{k}"]["value"], agg[f"success@{k}"]["value"]
            if mrr is None:
                continue
            if (agg_r1 is not None and agg_r1 > mrr + EPS) or mrr > succ + EPS:
                problems.append(f"aggregate {level}: recall@1 {agg_r1}, mrr@{k} {mrr}, success@{k} {succ}")
    if problems:
        raise MetricsSanityError("sanity rule recall@1 <= MRR@k <= success@k violated (a scoring bug): "
                                 + "; ".join(problems[:5]))
