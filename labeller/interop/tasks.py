"""Annotation tasks (Label Studio, doccano, Prodigy): a text, spans in it, a question beside it.

An annotation tool holds a copy of the text, not a path: the task's text is matched to the
one corpus document holding it (``spans.TextFinder``), and each span is moved from the
task's offsets (in the tool's units) to that document's canonical offsets, checked against
the text the tool recorded, and written as an exact quote with the least context
(``spans.span_locator``). A task's question is the field ``--query-field`` names.

Tasks sharing a record id (one question labelled in several documents, as labeller's own
Label Studio export writes them) become one record.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.project import Project
from labeller.interop.format import Option
from labeller.interop.records import Candidate, Target
from labeller.interop.spans import (SpanProblem, TextFinder, canonical_range, check_text, span_locator,
                                    to_codepoints)

QUERY_FIELD = Option("query-field", "the task field holding the question (default: question)", metavar="FIELD")
SPAN_LABEL = Option("span-label", "import only spans with this label (default: every span)", metavar="LABEL")


@dataclass
class TaskSpan:
    start: int
    end: int
    text: object = None  # the tool's own text of the span, when it records one
    label: str | None = None


def task_targets(project: Project, finder: TextFinder, text: str, spans: list[TaskSpan], units: str,
                 doc_hint: tuple[str | None, str] = (None, "")) -> list[Target]:
    """The spans of one task as exact quote locators of the corpus document the task text
    came from, or a ``SpanProblem`` naming the first span that cannot be imported.
    ``doc_hint`` is (the document the task names, where it was read), which picks among
    documents that all hold the text (``TextFinder.find``)."""
    hint, hint_from = doc_hint
    doc_id, base = finder.find(text, hint, hint_from) if hint_from else finder.find(text)
    out: list[Target] = []
    for i, sp in enumerate(spans):
        try:
            start, end = to_codepoints(text, [sp.start, sp.end], units)
            cs, ce = canonical_range(text, start, end)
            actual = project.corpus[doc_id].text[base + cs:base + ce]
            check_text(sp.text, actual)
            out.append(Target("locator", locator=span_locator(project, doc_id, base + cs, base + ce)))
        except SpanProblem as exc:
            raise SpanProblem(exc.kind, f"span {i + 1} [{sp.start}, {sp.end}): {exc.message}") from None
    return out


def task_candidate(project: Project, finder: TextFinder, rid: str, query: str | None, where: str, text: str,
                   spans: list[TaskSpan], units: str, fields: dict,
                   doc_hint: tuple[str | None, str] = (None, "")) -> Candidate:
    """One task as a candidate record: kept out (with why) when it has no question, no span,
    or a span that does not convert (``doc_hint``: see ``task_targets``)."""
    cand = Candidate(rid, query or "?", where, fields=fields)
    if not query or not query.strip():
        cand.skip = ("no_query", "the task has no question in its query field (--query-field)")
    elif not spans:
        cand.skip = ("no_span", "the task has no span to import")
    else:
        try:
            cand.targets = task_targets(project, finder, text, spans, units, doc_hint)
        except SpanProblem as exc:
            cand.skip = (exc.kind, exc.message)
    return cand


def merge_by_id(cands: list[Candidate]) -> list[Candidate]:
    """Tasks of one record id and one question are one record (their spans in task order);
    a task kept out keeps the whole record out. Different questions under one id are left
    apart, for the import's duplicate-id check to refuse."""
    out: list[Candidate] = []
    first: dict[str, Candidate] = {}
    for cand in cands:
        prev = first.get(cand.id)
        if prev is None or prev.query != cand.query:
            first.setdefault(cand.id, cand)
            out.append(cand)
            continue
        if prev.skip is None and cand.skip is not None:
            prev.skip = (cand.skip[0], f"{cand.where}: {cand.skip[1]}")
        prev.targets.extend(t for t in cand.targets if t not in prev.targets)
    return out
