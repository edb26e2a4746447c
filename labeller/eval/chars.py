"""Character-level metrics (SPEC §8.1): what share of the answer text was retrieved, at what cost.

Chunk-level recall asks "did a chunk that hits the answer come back?", a question whose
answer depends on how big the chunks are: one 10,000-character chunk hits everything.
These metrics count characters instead, so two chunkings (or two pipelines) can be
compared on one golden set: ``E`` is the union of a query's answer spans, ``R_k`` the union
of its top-k retrieved chunks, and recall, precision and IoU are ratios of their sizes.

Every size is that of a *union*, per document: a character covered by two overlapping
chunks (a sliding window) counts once. (Summing chunk lengths instead, as the reference
implementation of these metrics does, rewards overlap with precision it does not have.)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress
from operator import itemgetter, sub

from labeller.core.chunkfile import Chunking
from labeller.core.vocab import Place

Union = dict[str, list[tuple[int, int]]]  # per document, sorted disjoint [start, end) ranges


def union(places: Iterable[Place]) -> Union:
    """Merge ranges per document (touching ranges merge too: sizes are all that matter): one
    sort of every place, then one pass."""
    out: Union = {}
    ivs: list[tuple[int, int]] = []
    doc = None
    lo = hi = 0
    for d, s, e in sorted(places):
        if d == doc and s <= hi:
            if e > hi:
                hi = e
                ivs[-1] = (lo, hi)
            continue
        if d != doc:
            doc, ivs = d, out.setdefault(d, [])
        lo, hi = s, e
        ivs.append((lo, hi))
    return out


def size(u: Union) -> int:
    return sum(e - s for ivs in u.values() for s, e in ivs)


def overlap(a: Union, b: Union) -> int:
    """|a ∩ b| in characters (two sorted disjoint lists per document, walked together)."""
    total = 0
    for doc, xs in a.items():
        ys = b.get(doc)
        if not ys:
            continue
        i = j = 0
        while i < len(xs) and j < len(ys):
            lo, hi = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
            if lo < hi:
                total += hi - lo
            if xs[i][1] < ys[j][1]:
                i += 1
            else:
                j += 1
    return total


def char_metric_names(ks: Sequence[int], budgets: Sequence[int] = ()) -> list[str]:
    return ([f"{m}@{k}" for m in ("recall", "precision", "iou") for k in ks]
            + [f"recall@budget={b}" for b in budgets])


@dataclass
class CharScore:
    """One answerable query's character metrics and its chunking ceiling."""

    query_id: str
    values: dict[str, float]
    precision_omega: float


def ratios(expected: Union, retrieved: Union) -> tuple[float, float, float]:
    """(recall, precision, iou) of a retrieved union against the answer union."""
    return sized_ratios(size(expected), size(retrieved), overlap(expected, retrieved))


def sized_ratios(e: int, r: int, inter: int) -> tuple[float, float, float]:
    """(recall, precision, iou) from the sizes: answer ``e``, retrieved ``r``, their intersection."""
    recall = inter / e if e else 0.0
    precision = inter / r if r else 0.0
    iou = inter / (e + r - inter) if e + r - inter else 0.0
    return recall, precision, iou


def budget_recall(expected: Union, ranked: Sequence[Sequence[Place]], budget: int) -> float:
    """Take chunks in rank order while the union taken (this chunk included) stays within
    ``budget`` characters; stop at the first chunk that would pass it."""
    taken: list[Place] = []
    for places in ranked:
        if size(union([*taken, *places])) > budget:
            break
        taken.extend(places)
    return ratios(expected, union(taken))[0]


def precision_omega(expected: Union, chunking: Chunking) -> float:
    """|E ∩ C| / |C|, ``C`` the union of every chunk of the chunking that overlaps ``E``:
    the precision a perfect retriever would get with this chunking (0 when none overlaps)."""
    cover = union(r.place for doc, ivs in expected.items() for s, e in ivs for r in chunking.overlapping(doc, s, e))
    return ratios(expected, cover)[1]


def _disjoint_sweep(expected: Union, ranked: Sequence[Sequence[Place]],
                    depth: int) -> Callable[[int], tuple[float, float, float]] | None:
    """``ratios`` of each top k (k <= ``depth``) when no two chunks of the chunking overlap
    and no place repeats in the ranking: the retrieved union's size is then the sum of the
    places' lengths (prefix sums, C passes over the ranking), and only the places in an
    answer document are merged, for the intersection. The same integers as merging every
    prefix, so the same ratios. None when a place repeats (a ranking naming one chunk twice):
    the caller merges."""
    top = ranked[:depth]
    flat = list(chain.from_iterable(top))
    if len(set(flat)) != len(flat):
        return None
    sizes = list(accumulate(map(sub, map(_END, flat), map(_START, flat)), initial=0))  # of the first i places
    ends = list(accumulate(map(len, top), initial=0))  # how many places the first k ranks hold
    near = list(compress(range(len(flat)), map(expected.__contains__, map(_DOC, flat))))  # in an answer document
    e = size(expected)

    def at(k: int) -> tuple[float, float, float]:
        n = ends[min(k, len(top))]
        return sized_ratios(e, sizes[n], overlap(expected, union(flat[i] for i in near if i < n)) if near else 0)
    return at


def _ranked_sweep(expected: Union, ranked: Sequence[Sequence[Place]], depth: int, rank_sizes: Sequence[int],
                  near: Sequence[int]) -> Callable[[int], tuple[float, float, float]]:
    """``_disjoint_sweep`` from what the caller knows of each rank (``eval.codes``): no place
    repeats in the ranking, ``rank_sizes`` the characters of each rank's places and ``near``
    the ranks (ascending) whose chunk lies in an answer document, every place of it there.
    The same sums, by rank rather than by place, and the same places merged: the same
    integers, with no place of the ranking read but those near."""
    sizes = list(accumulate(rank_sizes[:depth], initial=0))  # of the first k ranks
    e = size(expected)

    def at(k: int) -> tuple[float, float, float]:
        r = min(k, depth, len(ranked))
        return sized_ratios(e, sizes[r], overlap(expected, union(p for i in near if i < r for p in ranked[i]))
                            if near and near[0] < r else 0)
    return at


SweepOf = Callable[[Collection[str]], "tuple[list[int], list[int]] | None"]
_DOC, _START, _END = itemgetter(0), itemgetter(1), itemgetter(2)  # a Place's fields


def score_chars(query_id: str, spans: Iterable[Place], ranked: Sequence[Sequence[Place]], chunking: Chunking,
                ks: Sequence[int], budgets: Sequence[int] = (), sweep_of: SweepOf | None = None) -> CharScore:
    """``ranked`` holds, per retrieved rank, the places of that chunk (an id that labeller's
    chunker gives two identical passages has two), in trec order. ``sweep_of``: the ranking's
    sizes and near ranks from its codes (``eval.codes.ChunkCodes.sweep``), when the caller has them."""
    expected = union(spans)
    values: dict[str, float] = {}
    sweep = None
    if chunking.disjoint and ks:
        coded = sweep_of(expected.keys()) if sweep_of is not None else None
        sweep = (_disjoint_sweep(expected, ranked, max(ks)) if coded is None
                 else _ranked_sweep(expected, ranked, max(ks), *coded))
    for k in ks:
        if sweep is None:
            recall, precision, iou = ratios(expected, union(p for places in ranked[:k] for p in places))
        else:
            recall, precision, iou = sweep(k)
        values[f"recall@{k}"], values[f"precision@{k}"], values[f"iou@{k}"] = recall, precision, iou
    for b in budgets:
        values[f"recall@budget={b}"] = budget_recall(expected, ranked, b)
    return CharScore(query_id, values, precision_omega(expected, chunking))
