"""Synthetic test sets (ragas, DeepEval, LlamaIndex): generated questions with the passages
they were generated from.

Each passage ("context") is what the generator's loader made of the source, so it is placed
like any pipeline's text (SPEC §10.1): as an exact quote first (whitespace runs folded,
exactly once in the corpus or in the one document the set names), else in the rendered
text or by its words in order. A context placed by those looser tiers becomes the exact
quote of its source range, and its record is tagged ``needs-review`` and
``placed:<tier>`` — the span is very likely right, but a person should see it. A context
no tier places stays an exact quote, and the import keeps its record out with the nearest
passages as suggestions, never applied. Every record is tagged ``source:<tool>`` and
starts unreviewed, so the review queue holds it until a person accepts it.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import TYPE_CHECKING

from labeller.core.anchors import fold_quote
from labeller.core.canon import canonical_fragment
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.vocab import NEEDS_REVIEW_TAG, Place
from labeller.interop.records import Candidate, Target
from labeller.interop.spans import SpanProblem, span_locator

if TYPE_CHECKING:  # the locator (numpy) is imported when a context is placed, not with the formats' registry
    from labeller.core.passages import PassageLocator, Placement


def record_id(tool: str, query: str) -> str:
    """A stable id for a set without ids: the tool and a digest of the question, so a
    re-import of the same set names the same records whatever their order."""
    return f"{tool}-{hashlib.sha256(query.strip().encode('utf-8')).hexdigest()[:12]}"


# One locator per project: an import places every record's contexts over the same corpus,
# and the rendered texts and word lists it makes serve them all.
_LOCATORS: weakref.WeakKeyDictionary[Project, PassageLocator] = weakref.WeakKeyDictionary()


def context_targets(project: Project, contexts: list[str], doc: str | None = None) -> tuple[list[Target], set[str]]:
    """The distinct non-blank contexts as quote locators (searched in ``doc`` if given), and
    the looser tiers (``rendered``, ``aligned``) that placed any of them.

    A context found exactly once becomes the quote of its place with the whitespace the
    context holds at its edges (a paragraph exported with its line end), pinned to its
    document (``spans.span_locator``: plain when block expansion gives that range back, else
    exact), so a set labeller exported reads back to the same spans. A context placed by a
    looser tier becomes the quote of the source range it was placed on. Any other context
    stays an exact quote for the import to refuse with suggestions."""
    out: list[Target] = []
    tiers: set[str] = set()
    seen: set[str] = set()
    for text in contexts:
        folded = fold_quote(text)
        if not folded or folded in seen:
            continue
        seen.add(folded)
        loc = Locator(doc=doc, quote=text, exact=True)
        if doc is None or doc in project.corpus:
            found = project.resolver.locate(loc)
            try:
                if isinstance(found, Place):
                    loc = span_locator(project, found.doc, *_with_edges(project, found, canonical_fragment(text)))
                else:
                    placed = _placement(project, doc, text)
                    if placed is not None:
                        loc = span_locator(project, placed.place.doc, placed.place.start, placed.place.end)
                        tiers.add(placed.tier)
            except SpanProblem:
                pass  # the exact quote stays, for the import to resolve and report
        out.append(Target("locator", locator=loc))
    return out, tiers


def _placement(project: Project, doc: str | None, text: str) -> Placement | None:
    """Where the rendered or aligned tier places a context no exact quote finds (each
    context on its own: a test set's contexts come in no document order)."""
    from labeller.core.passages import Passage, PassageLocator, Placement

    locator = _LOCATORS.get(project)
    if locator is None:
        locator = _LOCATORS[project] = PassageLocator(project.corpus)
    got = locator.place([Passage(doc, text)], ordered=False)[0]
    return got if isinstance(got, Placement) and got.tier != "exact" else None


def _with_edges(project: Project, place: Place, context: str) -> tuple[int, int]:
    """``place`` widened by the context's own leading/trailing whitespace where the document
    has exactly that whitespace there."""
    text = project.corpus[place.doc].text
    lead = context[:len(context) - len(context.lstrip())]
    trail = context[len(context.rstrip()):]
    start = place.start - len(lead) if lead and text[place.start - len(lead):place.start] == lead else place.start
    end = place.end + len(trail) if trail and text[place.end:place.end + len(trail)] == trail else place.end
    return start, end


def synthetic_candidate(project: Project, tool: str, rid: str, query: str, where: str, contexts: list[str],
                        answer: str, doc: str | None = None, tags: tuple[str, ...] = ()) -> Candidate:
    targets, tiers = context_targets(project, contexts, doc)
    review = [NEEDS_REVIEW_TAG, *(f"placed:{t}" for t in sorted(tiers))] if tiers else []
    cand = Candidate(rid, query, where, targets,
                     fields={"expected_answer": answer, "tags": [f"source:{tool}", *tags, *review]})
    if not targets:
        cand.skip = ("no_context", "the record has no context passage, so nothing says where its answer is")
    return cand


def doc_of_source(project: Project, source: str | None) -> str | None:
    """The corpus document a generator's source path names: the doc id itself, or the one
    document whose id ends the path at a folder boundary (generators record the path they
    read, often absolute). None when no document or several fit: the quote is then
    searched in the whole corpus."""
    if not source:
        return None
    path = source.replace("\\", "/")
    if path in project.corpus:
        return path
    fits = [d.doc_id for d in project.corpus if path.endswith("/" + d.doc_id)]
    return fits[0] if len(fits) == 1 else None
