"""Inter-annotator agreement between the golden labels (A) and a second annotator (B).

A is questions.jsonl; B is one annotator's file from ``labeller annotate``. Both sides
are resolved by the build's own ``resolve_record`` (same resolver, same expansion, same
hit rule), so the numbers compare what each person's labels *would build to*. Four
measures, per record and overall:

- **Character F1**: the answer characters of each side as a set of ``(doc, offset)``
  positions; ``F1 = 2|A∩B| / (|A| + |B|)``. Undefined (None) when neither side has a
  span: there is nothing to overlap.
- **Exact block match**: the two sides resolve to exactly the same set of spans
  ``(doc, start, end)``; the overall figure is the share of records where they do.
- **Cohen's kappa** over (record, block) decisions. The item universe of a record is
  every blocks-v1 unit (each table row but the delimiter row, each list item, and
  outside those each paragraph, heading, code and HTML block) of every document in
  which either side placed a span for that record. A side "labels" a block when one of
  its spans overlaps it. The universe must contain blocks that neither side labelled:
  counted over only the blocks someone labelled, the "neither" cell is empty and kappa
  works out to ``-2·b·c / (N²(1-p_e))``, never above zero whatever the annotators did.
  Overall kappa pools every record's items into one table. Because the negatives come
  from whole documents, longer documents raise p_o and kappa; compare kappas only
  across the same corpus.
- **Chunk Jaccard**: ``|A∩B| / |A∪B|`` of the answer-bearing chunk ids under the build's
  hit rule: what the retrieval metrics would see. Undefined when both are empty.

Records whose locators do not resolve on either side are left out of every measure and
listed, since agreement over half-resolved labels would be a number about typos.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from labeller.core.build import RecordResult, resolve_record
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.resolve import Span
from labeller.review.annotations import Annotations

Interval = tuple[int, int]


# -- the measures, on plain values ------------------------------------------------------------


def merge_intervals(intervals: Iterable[Interval]) -> list[Interval]:
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _by_doc(spans: list[Span]) -> dict[str, list[Interval]]:
    docs: dict[str, list[Interval]] = {}
    for s in spans:
        docs.setdefault(s.doc_id, []).append((s.start, s.end))
    return {d: merge_intervals(ivs) for d, ivs in docs.items()}


def _overlap(a: list[Interval], b: list[Interval]) -> int:
    """Characters in both unions (both lists merged and sorted)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass(frozen=True)
class CharOverlap:
    both: int
    chars_a: int
    chars_b: int

    @property
    def f1(self) -> float | None:
        total = self.chars_a + self.chars_b
        return 2 * self.both / total if total else None


def char_overlap(spans_a: list[Span], spans_b: list[Span]) -> CharOverlap:
    """Positions are counted as sets, so overlapping spans of one side never count twice."""
    a, b = _by_doc(spans_a), _by_doc(spans_b)
    both = sum(_overlap(ivs, b[d]) for d, ivs in a.items() if d in b)
    return CharOverlap(both, _size(a), _size(b))


def _size(docs: dict[str, list[Interval]]) -> int:
    return sum(e - s for ivs in docs.values() for s, e in ivs)


@dataclass(frozen=True)
class KappaTable:
    """Counts of (record, block) items: labelled by both, by A only, by B only, by neither."""

    both: int = 0
    a_only: int = 0
    b_only: int = 0
    neither: int = 0

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither

    def __add__(self, other: "KappaTable") -> "KappaTable":
        return KappaTable(self.both + other.both, self.a_only + other.a_only, self.b_only + other.b_only,
                          self.neither + other.neither)

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa; None when there are no items or both sides decided one way only
        (chance agreement is then 1 and kappa is 0/0)."""
        n = self.n
        if not n:
            return None
        p_o = (self.both + self.neither) / n
        p_a, p_b = (self.both + self.a_only) / n, (self.both + self.b_only) / n
        p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
        if p_e >= 1:
            return None
        return (p_o - p_e) / (1 - p_e)

    def as_json(self) -> dict:
        return {"both": self.both, "a_only": self.a_only, "b_only": self.b_only, "neither": self.neither}


def kappa_table(units: list[Interval], a: list[Interval], b: list[Interval]) -> KappaTable:
    """Tally one document's blocks: a side labels a block when one of its intervals overlaps it."""
    counts = [0, 0, 0, 0]
    for us, ue in units:
        in_a = any(s < ue and us < e for s, e in a)
        in_b = any(s < ue and us < e for s, e in b)
        counts[0 if in_a and in_b else 1 if in_a else 2 if in_b else 3] += 1
    return KappaTable(*counts)


def jaccard(a: set, b: set) -> float | None:
    union = a | b
    return len(a & b) / len(union) if union else None


# -- blocks-v1 units of a document ------------------------------------------------------------


def block_units(project: Project, doc_id: str) -> list[Interval]:
    """Every unit a quote can expand to, as character intervals, in document order.

    Front matter yields no blocks (markdown-it reads it as one metadata token), and
    thematic breaks hold no text, so neither is a unit.
    """
    doc = project.corpus[doc_id]
    blocks = project.resolver.blocks(doc_id)
    text, starts = doc.text, doc.line_starts

    def nonblank(line: int) -> bool:
        return bool(text[starts[line]:doc.line_end(line)].strip())

    lines: set[tuple[int, int]] = set()
    for t in blocks.tables:
        lines.update((ln, ln) for ln in range(t.first, t.last + 1) if ln != t.delimiter and nonblank(ln))
    lines.update((it.first, it.last) for it in blocks.items)
    containers = [(it.first, it.last) for it in blocks.items] + [(t.first, t.last) for t in blocks.tables]
    lines.update((lf.first, lf.last) for lf in blocks.leaves
                 if lf.kind != "hr" and not any(f <= lf.first <= la for f, la in containers))
    return sorted((starts[f], doc.line_end(la)) for f, la in lines)


# -- per record and overall ----------------------------------------------------------------------


@dataclass
class RecordAgreement:
    record_id: str
    a: RecordResult
    b: RecordResult
    chars: CharOverlap
    kappa: KappaTable
    exact_match: bool
    blocks_matched: int
    chunk_jaccard: float | None

    def as_json(self) -> dict:
        return {"record_id": self.record_id, "char_f1": _round(self.chars.f1), "overlap_chars": self.chars.both,
                "chars_a": self.chars.chars_a, "chars_b": self.chars.chars_b, "exact_match": self.exact_match,
                "blocks_a": len(self.a.spans), "blocks_b": len(self.b.spans), "blocks_matched": self.blocks_matched,
                "kappa": _round(self.kappa.kappa), "kappa_items": self.kappa.as_json(),
                "chunk_jaccard": _round(self.chunk_jaccard), "chunks_a": len(self.a.chunk_ids),
                "chunks_b": len(self.b.chunk_ids)}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def compare_record(project: Project, a: RecordResult, b: RecordResult, units: dict | None = None) -> RecordAgreement:
    """All four measures for one record whose two sides resolved without refusals."""
    units = {} if units is None else units
    a_docs, b_docs = _by_doc(a.spans), _by_doc(b.spans)
    table = KappaTable()
    for doc_id in sorted(set(a_docs) | set(b_docs)):
        if doc_id not in units:
            units[doc_id] = block_units(project, doc_id)
        table += kappa_table(units[doc_id], a_docs.get(doc_id, []), b_docs.get(doc_id, []))
    keys_a = {(s.doc_id, s.start, s.end) for s in a.spans}
    keys_b = {(s.doc_id, s.start, s.end) for s in b.spans}
    return RecordAgreement(a.question.id, a, b, char_overlap(a.spans, b.spans), table, keys_a == keys_b,
                           len(keys_a & keys_b), jaccard(set(a.chunk_ids), set(b.chunk_ids)))


@dataclass
class AgreementReport:
    annotator: str
    hit_rule: str
    records: list[RecordAgreement] = field(default_factory=list)
    not_annotated: list[str] = field(default_factory=list)
    not_in_questions: list[str] = field(default_factory=list)
    unresolved: list[dict] = field(default_factory=list)

    def overall(self) -> dict:
        """Means over compared records (each with its own n; added by ``math.fsum``, exactly
        rounded, so the same on every Python); kappa over the pooled items."""
        def mean(values: Iterable[float | None]) -> dict:
            known = [v for v in values if v is not None]
            return {"value": _round(math.fsum(known) / len(known)) if known else None, "n": len(known)}

        pooled = sum((r.kappa for r in self.records), KappaTable())
        return {"records": len(self.records),
                "char_f1": mean(r.chars.f1 for r in self.records),
                "exact_block_match": mean(float(r.exact_match) for r in self.records),
                "kappa": {"value": _round(pooled.kappa), "n": pooled.n, "items": pooled.as_json()},
                "chunk_jaccard": mean(r.chunk_jaccard for r in self.records)}

    def as_json(self) -> dict:
        return {"annotator": self.annotator, "reference": "questions.jsonl", "hit_rule": self.hit_rule,
                "overall": self.overall(), "records": [r.as_json() for r in self.records],
                "not_annotated": self.not_annotated, "not_in_questions": self.not_in_questions,
                "unresolved": self.unresolved}


def with_locators(question: Question, locators: Iterable[Locator]) -> Question:
    """The record as the other annotator would have it (resolution reads id and locators only)."""
    return question.model_copy(update={"locators": list(locators)})


def resolve_pair(project: Project, question: Question, locators: Iterable[Locator],
                 found: dict | None = None) -> tuple[RecordResult, RecordResult]:
    """Resolve A (the record) and B (``locators``) with the build's own resolution."""
    return (resolve_record(project, question, found),
            resolve_record(project, with_locators(question, locators), found))


def agreement(project: Project, questions: list[Question], ann: Annotations) -> AgreementReport:
    report = AgreementReport(ann.annotator, project.hit_rule.name)
    ids = {q.id for q in questions}
    report.not_in_questions = [rid for rid in ann.records if rid not in ids]
    maybe = [(q, ann.get(q.id)) for q in questions]
    report.not_annotated = [q.id for q, locs in maybe if locs is None]
    pairs = [(q, locs) for q, locs in maybe if locs is not None]
    quotes = [loc.quote for q, locs in pairs for loc in [*q.locators, *locs] if loc.quote is not None]
    found = project.resolver.search(quotes)
    units: dict[str, list[Interval]] = {}
    for q, locs in pairs:
        a, b = resolve_pair(project, q, locs, found)
        if a.refusals or b.refusals:
            report.unresolved.extend({"record_id": q.id, "side": side, "kind": r.kind, "message": r.message,
                                      "locator": r.locator.as_json()}
                                     for side, res in (("a", a), ("b", b)) for r in res.refusals)
            continue
        report.records.append(compare_record(project, a, b, units))
    return report
