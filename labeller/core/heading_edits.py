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
page: a bounded comparison), at ``--min-kept``, the bar of a passage where a quote stood. Of
several headings at ``--min-score``, the one where the heading stood (``where_it_stood``: the
page's comparison, as for a quote) is taken on the same terms; none, when that place says nothing.
The place is not held to the build's suggestions (look-alike siblings can fill them): the heading
on whose title line it begins is scored and held to the same bars.
With none at ``--min-score``, the one where the heading stood is taken at ``--min-kept``: the place
vouches for a rewritten title as it vouches for a quote's passage where it stood. A title at
``--min-score`` where the heading stood needs no section-text guard (the heading kept its place:
its section is the label's, whatever its text became).
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from rapidfuzz import fuzz, process, utils

from labeller.core.corpus import Document
from labeller.core.expansion import HEADING_LINE, Heading
from labeller.core.fixes import NEAREST, Fix
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator
from labeller.core.old_place import OldPlaces
from labeller.core.resolve import Refusal, Resolver, Span
from labeller.core.vocab import Place, RefusalKind

MAX_TITLE_CHARS = 1_000  # a title scored (a heading line can be a page long in a hostile file)
MAX_CHECKED = 64  # lines that may be headings, best first, confirmed by a parse of their window
COMPARED_CHARS = 4_000  # of a section's body, then and now
# Of a long page, the tokens on either side of a heading line that its comparison's window holds
# (``OldPlaces.place``'s ``reach``): the paragraphs around a heading say where it went. A quote's
# window (2,000 a side) made a changelog's 200 headings spend the whole repair's comparison budget;
# it is used only where this one holds no line that stands unchanged in both texts (Homebrew's
# manual escaped every bracket of every line at once).
HEADING_REACH = 200
# a title as written: a setext underline; an ATX line's opening (in any container) and closing ``#``s
_UNDERLINE = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")
_OPENING = re.compile(r"^[ \t>*+\-0-9.)]*#{1,6}(?:[ \t]+|$)")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


def heading_score(a: str, b: str) -> float:
    """How alike two titles are, 0–100: the Indel ratio, case and punctuation folded, an
    attribute list left out (``folded``)."""
    return round(fuzz.ratio(folded(a), folded(b)), 1)


# A trailing attribute list (Python-Markdown's attr_list, Pandoc, VitePress, mdBook): ``{#id}``,
# ``{ #id .class }``, ``{ id="1.0.4" }``
_ATTRIBUTE = r'(?:[#.][^\s{}]+|[\w-]+=(?:"[^"]*"|\'[^\']*\'|[^\s{}"\']+))'
_ATTRIBUTES = re.compile(rf"\{{\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}\s*")


def folded(title: str) -> str:
    """A title as scored: a trailing attribute list left out (the heading's anchor, not its
    words: FastAPI's translated pages gave every heading one, "Async Tests" → "Async Tests {
    #async-tests }", which scored 58.5 against its own title), then case and punctuation folded
    (rapidfuzz's ``default_process``)."""
    title = title[:MAX_TITLE_CHARS * 2]
    brace = title.rfind("{")  # the list is matched from its brace on: linear in the title
    return utils.default_process(title[:brace] if brace > 0 and _ATTRIBUTES.fullmatch(title, brace) else title)


def nearest_headings(resolver: Resolver, doc_id: str, wanted: str, min_score: float, limit: int,
                     spend: Callable[[int], None] | None = None) -> list[tuple[dict, Place]]:
    """Up to ``limit`` titles of ``doc_id``'s headings that score ``min_score`` or more against
    ``wanted``, each once (where it first stands), best first (document order on a tie), as
    suggestions ``{"doc", "heading", "score", "where", "unique"}`` with each heading's place.

    The page is not parsed whole (5 MB of Markdown is seconds of markdown-it): every line that
    may be a heading (``HEADING_LINE``) gives its title as written, all are scored at once, and
    only the best of them (``MAX_CHECKED``) are confirmed headings by parsing their windows, as
    ``section_span`` confirms the one it finds. ``spend`` is charged the scoring's work in the
    units of a nearest passage's (the titles' characters times the title's 64-character
    blocks): a file of thousands of refused section locators shares the build's bound."""
    if doc_id not in resolver.corpus.docs or len(wanted) > MAX_TITLE_CHARS:
        return []
    doc = resolver.corpus[doc_id]
    found = _candidates(doc)
    if spend is not None:
        spend(found.chars * (len(wanted) // 64 + 1))
    hits = process.extract(folded(wanted), found.folded, scorer=fuzz.ratio, score_cutoff=min_score,
                           limit=MAX_CHECKED)
    out: dict[str, tuple[dict, Place]] = {}
    for _, _, i in sorted(hits, key=lambda hit: (-hit[1], hit[2])):
        line = found.lines[i]
        h = _heading_on(resolver.blocks_at(doc_id, line, line).headings, line)
        if h is not None and h.text not in out and len(h.text) <= MAX_TITLE_CHARS \
                and (score := heading_score(wanted, h.text)) >= min_score:
            start = doc.line_starts[h.first]
            out[h.text] = ({"doc": doc_id, "heading": h.text, "score": score, "where": doc.where(start),
                            "unique": _unique(resolver, doc_id, h.text, found.written)},
                           Place(doc_id, start, doc.line_end(h.last)))
        if len(out) >= limit:
            break
    return sorted(out.values(), key=lambda sp: (-sp[0]["score"], sp[1].start))


def _heading_on(headings: list[Heading], line: int) -> Heading | None:
    """The heading whose lines hold ``line`` (``headings`` in document order; a window of a page
    of headings holds all of them, so it is not scanned)."""
    i = bisect.bisect_right(headings, line, key=lambda h: h.first)
    return headings[i - 1] if i and headings[i - 1].last >= line else None


def _candidates(doc: Document) -> _Candidates:
    """Once a document, not once a refused section locator (a page of 100,000 headings took
    0.3 s each), kept as long as the document lives: an ``lru_cache`` kept its last 16
    documents' texts alive after the corpus they came from was reloaded (a day in the app)."""
    found = _CANDIDATES.get(doc)
    if found is None:
        lines = [doc.line_of(m.start()) for m in HEADING_LINE.finditer(doc.text)]
        written = [_title_as_written(doc, line) for line in lines]
        titles = [folded(title) for title in written]
        found = _CANDIDATES[doc] = _Candidates(lines, titles, sum(map(len, titles)) + len(titles), Counter(written))
    return found


@dataclass(frozen=True)
class _Candidates:
    """The lines of a document that may be headings, their titles folded for scoring, those
    titles' characters (the work of scoring them all), and how often each title is written."""

    lines: list[int]
    folded: list[str]
    chars: int
    written: Counter[str]


_CANDIDATES: weakref.WeakKeyDictionary[Document, _Candidates] = weakref.WeakKeyDictionary()


def _unique(resolver: Resolver, doc_id: str, title: str, written: Counter[str]) -> bool:
    """Whether ``title`` heads one section of the document (a section locator naming it
    resolves): written once, it is (its one place confirmed a heading); written more often
    than ``MAX_CHECKED`` times, it is taken as not (asking would parse every copy's window: a
    page of 52,000 equal headings took 0.15 s a question), which costs at most a repair left
    for a person; otherwise the resolver is asked."""
    n = written[title]
    if n == 1 or n > MAX_CHECKED:
        return n == 1
    return isinstance(resolver.resolve(Locator(doc=doc_id, heading=title)), Span)


def _is_unique(resolver: Resolver, loc: Locator) -> bool:
    """Whether a section locator's heading heads one section of its document (``_unique``)."""
    if loc.doc is None or loc.heading is None or loc.doc not in resolver.corpus.docs:
        return False
    return _unique(resolver, loc.doc, loc.heading, _candidates(resolver.corpus[loc.doc]).written)


def _title_as_written(doc: Document, line: int) -> str:
    """The title a line that may be a heading gives, as written: an ATX line's text past its
    markers and closing ``#``s; a setext underline's, the line above (bounded)."""
    text = doc.text[doc.line_starts[line]:doc.line_end(line)][:MAX_TITLE_CHARS * 2]
    if _UNDERLINE.match(text) and line > 0:
        return doc.text[doc.line_starts[line - 1]:doc.line_end(line - 1)][:MAX_TITLE_CHARS * 2].lstrip(" \t>")
    return _CLOSING.sub("", _OPENING.sub("", text, count=1)).strip()


def is_heading_suggestion(sug: dict) -> bool:
    """A nearest heading (scored), not a heading-only span's section locator (``suggest``)."""
    return "heading" in sug and "score" in sug


def heading_fixes(refusal: Refusal, index: int) -> list[Fix]:
    """Each nearest heading of a refused section locator as a fix (for a person to pick)."""
    loc = refusal.locator
    return [Fix(str(refusal.record_id), index, NEAREST, loc, Locator(doc=s["doc"], heading=s["heading"]), s["score"])
            for s in refusal.suggestions if is_heading_suggestion(s)]


def heading_fix(resolver: Resolver, refusal: Refusal, index: int, min_score: float, min_kept: float,
                last_build: LastBuild | None, suggested_from: float, spent: str, old_places: OldPlaces) -> Fix | str:
    """The nearest heading ``repair`` re-points a refused section locator to, or why none
    (``suggested_from``: the score from which the build suggests a heading; ``spent``: what a
    refusal says once the build's budget for suggestions is spent). Of several headings at
    ``min_score``, the one where the heading stood (``where_it_stood``), else none."""
    loc = refusal.locator
    fixes = heading_fixes(refusal, index)
    if not fixes and spent in refusal.message:
        return "no nearest heading: the build's budget for suggestions was spent (repair the others first)"
    if refusal.kind == RefusalKind.UNKNOWN_DOC and (refusal.renamed_to is None or not fixes):
        return f"{refusal.kind}: no suggestion repair applies ({refusal.message})"
    doc = refusal.renamed_to[0] if refusal.kind == RefusalKind.UNKNOWN_DOC and refusal.renamed_to else loc.doc
    if not fixes:
        return f"no nearest heading: no heading of {doc} scores {suggested_from:g} or more against the title"
    above = [f for f in fixes if (f.score or 0.0) >= min_score]
    if not above:
        stood = where_it_stood(resolver, last_build, old_places, fixes) if last_build is not None else None
        if not isinstance(stood, Fix) or (stood.score or 0.0) < min_kept:
            why = "" if stood is None else f"; {stood}" if isinstance(stood, str) \
                else f", and below {min_kept:g} where the heading stood" if stood == fixes[0] \
                else f"; where the heading stood, its title scores {stood.score}, below {min_kept:g}"
            return f"the nearest heading scores {fixes[0].score}, below {min_score:g}{why}"
        above = [replace(stood, at_old_place=True)]
    if len(above) > 1:
        stood = where_it_stood(resolver, last_build, old_places, above) if last_build is not None \
            else "where the heading stood is not known"
        if isinstance(stood, str) or (stood.score or 0.0) < min_kept:
            why = stood if isinstance(stood, str) else \
                f"where the heading stood, its title scores {stood.score}, below {min_kept:g}"
            return f"{len(above)} headings score {min_score:g} or more and {why}: a person picks one"
        above = [replace(stood, at_old_place=True)]
    fix = above[0]
    if not _is_unique(resolver, fix.new):
        return f"the nearest heading ({fix.score}) is not unique in {doc}"
    if last_build is not None:
        kept = section_kept(resolver, last_build, fix)
        if kept is not None and kept < min_kept and not ((fix.score or 0.0) >= min_score and (
                fix.at_old_place or where_it_stood(resolver, last_build, old_places, [fix]) == fix)):
            return (f"the nearest heading ({fix.score}) heads other text: its section keeps {kept}% of the "
                    f"section's text at the last build, below {min_kept:g}")
    return fix


def where_it_stood(resolver: Resolver, last_build: LastBuild, old_places: OldPlaces, fixes: list[Fix]) -> Fix | str:
    """Of several headings alike (``fixes``, all re-pointing one locator), the one on whose line
    the page's comparison (``core.old_place``, as for a quote's "where it stood") puts the words
    of the heading line at the last build, the text that was around it beside them; none when
    that place is not known, not beside, or on none or several of their lines. A changelog's
    headings differ by a version and a date ("1.0.4 <small>_ February 16, 2017</small>" now with
    `{ id="1.0.4" }` appended scores 80+ against 1.0.3's and 1.0.5's too), a manual's by a
    command: their titles cannot say which, where the heading stood can. Similar section text
    cannot (tried on the histories: two template sections alike, `postinstall` taken for
    `uninstall`). Otherwise why not."""
    then = last_build.span_then(fixes[0].record_id, fixes[0].index)
    doc = fixes[0].new.doc
    if then is None or doc is None or doc not in resolver.corpus.docs:
        return "where the heading stood is not known"
    old_doc, old, start, _ = then
    end = old.find("\n", start)
    new = resolver.corpus[doc].text
    key, end = (old_doc, doc), len(old) if end < 0 else end
    for reach in (HEADING_REACH, None):  # ``None``: a quote's window, where a heading's holds no unchanged line
        where = old_places.place(key, old, start, end, new, reach)
        known = where is not None or (not old_places.cut_short
                                      and old_places.comparable(key, old, start, end, new, reach))
        if known:
            break
    if not known:
        return f"where the heading stood is not known: {doc} is past the bounds of a word comparison"
    if where is None or not where.beside:
        return "the heading's words are gone from where it stood"
    on = [f for f in fixes if _on_title_line(resolver, f, where.start)]
    if len(on) == 1:
        return on[0]
    there = None if on else _heading_there(resolver, fixes[0], doc, where.start)
    return there or "where the heading stood is none of the suggested headings"


def _heading_there(resolver: Resolver, like: Fix, doc_id: str, start: int) -> Fix | None:
    """The heading on whose title line the place begins (``_on_title_line``), scored against the
    old title, when the place is on none of the suggested headings: a manual's headings differ by a command
    and share their argument markup (Homebrew's "`list`, `ls` [*`options`*] …" now with
    ``installed_formula``), so three siblings outscore the heading where it stood and fill the
    build's suggestions. ``heading_fix`` holds it to the bars a suggested one meets."""
    doc = resolver.corpus[doc_id]
    line = doc.line_of(start)
    h = _heading_on(resolver.blocks_at(doc_id, line, line).headings, line)
    if h is None or h.first != line or len(h.text) > MAX_TITLE_CHARS:
        return None
    return Fix(like.record_id, like.index, NEAREST, like.old, Locator(doc=doc_id, heading=h.text),
               heading_score(like.old.heading or "", h.text))


def _on_title_line(resolver: Resolver, fix: Fix, start: int) -> bool:
    """Whether a place beginning at ``start`` begins on the first line of the heading ``fix``
    names. Its end may be past it: words of a title moved out of it stay with their section
    (Poetry's "`cache-dir`: string" became "`cache-dir`" over a "**Type**: `string`" line)."""
    span = resolver.resolve(fix.new, fix.record_id)
    if not isinstance(span, Span):
        return False
    doc = resolver.corpus[span.doc_id]
    return span.start <= start <= doc.line_end(doc.line_of(span.start))


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
