"""A section locator whose heading was edited: the nearest headings of its document, and when
``repair`` re-points it to one.

A section locator (``{doc, heading}``, SPEC §2.1) names its heading's exact text, so an edited
title ("prove the check works" → "prove that the check works", a title recased) refuses it
``not_found`` as surely as an edited quote — and a nearest *passage* never helps: the title is
not a passage of the body. Its help is the document's headings scored against the title (one
likeness, ``heading_score``: case and punctuation folded), each with where it is and whether the
title is unique (a section locator must name exactly one heading).

``repair`` applies one (``heading_fix``) on the rules of a nearest passage — the only heading at
or above ``--min-score``, its title unique — and, with the committed build, only where the
section under it still holds what the old one held: a sibling section's title resembles the old
one as easily ("Options" and "Global options"), but its text does not. The sections are compared
on their first ``COMPARED_CHARS`` characters past the heading line (a section can be a whole
page: a bounded comparison), at ``--min-kept``, the bar of a passage where a quote stood.
"""

from __future__ import annotations

from rapidfuzz import fuzz, process, utils

from labeller.core.fixes import NEAREST, Fix
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator
from labeller.core.resolve import Refusal, Resolver, Span
from labeller.core.vocab import Place, RefusalKind

MAX_TITLE_CHARS = 1_000  # a title scored (a heading line can be a page long in a hostile file)
COMPARED_CHARS = 4_000  # of a section's body, then and now


def heading_score(a: str, b: str) -> float:
    """How alike two titles are, 0–100: the Indel ratio, case and punctuation folded."""
    return round(fuzz.ratio(a, b, processor=utils.default_process), 1)


def nearest_headings(resolver: Resolver, doc_id: str, wanted: str, min_score: float) -> list[tuple[dict, Place]]:
    """The titles of ``doc_id``'s headings that score ``min_score`` or more against ``wanted``,
    each once (where it first stands), best first (document order on a tie), as suggestions ``{"doc", "heading", "score", "where",
    "unique"}`` with each heading line's place."""
    if doc_id not in resolver.corpus.docs or len(wanted) > MAX_TITLE_CHARS:
        return []
    doc = resolver.corpus[doc_id]
    headings = [h for h in resolver.blocks_at(doc_id, 0, len(doc.line_starts) - 1).headings
                if len(h.text) <= MAX_TITLE_CHARS]
    count: dict[str, int] = {}
    for h in headings:
        count[h.text] = count.get(h.text, 0) + 1
    first = list({h.text: h for h in reversed(headings)}.values())[::-1]  # each title once, where it first is
    scored = process.extract(wanted, [h.text for h in first], scorer=fuzz.ratio, processor=utils.default_process,
                             score_cutoff=min_score, limit=None)
    out = []
    for _, _, i in sorted(scored, key=lambda hit: (-round(hit[1], 1), hit[2])):
        h = first[i]
        start = doc.line_starts[h.first]
        out.append(({"doc": doc_id, "heading": h.text, "score": heading_score(wanted, h.text),
                     "where": doc.where(start), "unique": count[h.text] == 1},
                    Place(doc_id, start, doc.line_end(h.last))))
    return out


def is_heading_suggestion(sug: dict) -> bool:
    return "heading" in sug and "score" in sug


def heading_fixes(refusal: Refusal, index: int) -> list[Fix]:
    """Each nearest heading of a refused section locator as a fix (for a person to pick)."""
    loc = refusal.locator
    return [Fix(str(refusal.record_id), index, NEAREST, loc, Locator(doc=s["doc"], heading=s["heading"]), s["score"])
            for s in refusal.suggestions if is_heading_suggestion(s)]


def heading_fix(resolver: Resolver, refusal: Refusal, index: int, min_score: float, min_kept: float,
                last_build: LastBuild | None, suggested_from: float) -> Fix | str:
    """The nearest heading ``repair`` re-points a refused section locator to, or why none
    (``suggested_from``: the score from which the build suggests a heading)."""
    loc = refusal.locator
    fixes = heading_fixes(refusal, index)
    if refusal.kind == RefusalKind.UNKNOWN_DOC and (refusal.renamed_to is None or not fixes):
        return f"{refusal.kind}: no suggestion repair applies ({refusal.message})"
    doc = refusal.renamed_to[0] if refusal.kind == RefusalKind.UNKNOWN_DOC and refusal.renamed_to else loc.doc
    if not fixes:
        return f"no nearest heading: no heading of {doc} scores {suggested_from:g} or more against the title"
    above = [f for f in fixes if (f.score or 0.0) >= min_score]
    if not above:
        return f"the nearest heading scores {fixes[0].score}, below {min_score:g}"
    if len(above) > 1:
        return f"{len(above)} headings score {min_score:g} or more: a person picks one"
    fix = above[0]
    if not next(s["unique"] for s in refusal.suggestions if s.get("heading") == fix.new.heading):
        return f"the nearest heading ({fix.score}) is not unique in {doc}"
    if last_build is not None:
        kept = section_kept(resolver, last_build, fix)
        if kept is not None and kept < min_kept:
            return (f"the nearest heading ({fix.score}) heads other text: its section keeps {kept}% of the "
                    f"section's text at the last build, below {min_kept:g}")
    return fix


def section_kept(resolver: Resolver, last_build: LastBuild, fix: Fix) -> float | None:
    """How much of the old section's text (past its heading line) the section ``fix`` names
    holds now, 0–100 (their first ``COMPARED_CHARS`` characters); None when the last build's
    section is not known."""
    then = last_build.span_text(fix.record_id, fix.index)
    now = resolver.resolve(fix.new, fix.record_id)
    if then is None or not isinstance(now, Span):
        return None
    text = resolver.corpus[now.doc_id].text[now.start:now.end]
    return round(fuzz.ratio(_body(then), _body(text), processor=utils.default_process), 1)


def _body(section: str) -> str:
    """A section's text past its heading line, bounded."""
    return section.partition("\n")[2][:COMPARED_CHARS]
