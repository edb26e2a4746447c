"""The passage where a refused quote stood at the last build, as its words are now: what
``labeller repair`` (``core.repair``) tries before the build's nearest passages.

Where the last build knows where the quote stood (its span, and its document's text then), the
passage at that place now comes first (``core.old_place``): the words the old span became,
scored by the share of the quote it keeps, pinned by the shortest context when its text is not
unique. Its bar is its own, ``min_kept`` (``core.repair.DEFAULT_MIN_KEPT``, 60), lower than a
nearest passage's ``min_score`` (80): a nearest passage is found by resembling the quote
anywhere in the document, and only its likeness vouches for it; this one is located by the
document's own comparison, between the unchanged text around it, so its score says how much the
answer was rewritten, not whether this is the place. A sentence rewritten with three fifths of
its words kept ("mdBook, all the source code, is released under the [Mozilla Public" → "mdBook
source and documentation are released under the [Mozilla Public") is the label's answer, edited;
the repaired record is logged as edited, for a person to re-read. Measured on nine
documentation histories (``benchmarks/survival.py``, ``docs/performance.md``): passages where
the quote stood keeping 60% or more were where the ground truth says the words went, every time
but one the truth itself disputes; at 50%, 17 were other text. A passage there that falls short
leaves the build's nearest passages to decide, as without a last build, with what the
comparison said (``OldPlace``): where it kept half the quote, a nearest passage elsewhere is a
look-alike; where it kept none, a nearest passage must keep ``min_score`` of the quote, not only
resemble it (``core.repair``).

``at_old_place`` finds it in the quote's own (or renamed) document, ``moved_to_where_it_stood``
in the one other document that now holds the quote several times, ``where_it_went`` in the
documents a gone page's nearest passages stand in; ``core.old_place`` is the word comparison
they share, and ``core.last_build`` the texts then.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from labeller.core.anchors import Hits, fold_quote
from labeller.core.context import pick_occurrence
from labeller.core.fixes import MOVED, NEAREST, Fix
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator
from labeller.core.moves import ANYWHERE
from labeller.core.old_place import OldPlaces, kept_score
from labeller.core.resolve import Refusal, Resolver
from labeller.core.suggest_cut import best_piece, edge_punctuation, items_only, paragraphs_only
from labeller.core.vocab import Place

# Characters of a passage at the old place scored at most: its words are the quote's, a few more.
MAX_PLACE_CHARS = 20_000


@dataclass(frozen=True)
class OldPlace:
    """What ``at_old_place`` found: the fix, or why none (with the passage's place and score
    when it has one)."""

    fix: Fix | None = None
    reason: str = ""
    place: Place | None = None
    score: float | None = None
    deleted: bool = False  # the page's comparison keeps none of the quote's words (not past its bounds)


def where_it_went(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, last_build: LastBuild,
                   old_places: OldPlaces) -> Fix | None:
    """For a gone document nothing pairs: the passage where the quote stood, looked for in the
    documents of its nearest passages from the whole corpus (the best first, ``MAX_WENT_DOCS`` at
    most), applied only where a phrase of the text that was around the quote stands beside it
    there too (``Where.anchored``), whatever its score: the old page's comparison with that
    document then says the quote's paragraph went there with its neighbours, which resemblance
    alone does not (on Vue's guide, applying the best such passage by its score re-pointed
    labels to generic phrases and to their opposite; one word beside, ``Where.beside``, let "In
    fact, you can think of" go to "To some extent, you can think of" in another page). None when
    no document shows that."""
    docs: list[str] = []
    for sug in sorted((s for s in refusal.suggestions if s.get(ANYWHERE) and "score" in s),
                      key=lambda s: -s["score"]):
        if sug.get("doc") in resolver.corpus.docs and sug["doc"] not in docs:
            docs.append(sug["doc"])
    for doc in docs[:MAX_WENT_DOCS]:
        old = at_old_place(resolver, refusal, index, min_kept, math.inf, last_build, old_places, new_doc=doc,
                            anchored=True)
        if old is not None and old.fix is not None:
            return old.fix
    return None


MAX_WENT_DOCS = 3  # documents of a gone page's nearest passages compared with the page as it was, at most


def moved_to_where_it_stood(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, min_score: float,
                             last_build: LastBuild, old_places: OldPlaces) -> Fix | str:
    """A quote found verbatim several times in exactly one other document (SPEC §13 refuses it
    as ambiguous): moved to the occurrence where the page as it was, compared with that
    document, puts the quote's words, with a phrase of the text that was around it aligned
    beside them (``Where.anchored``), or the occurrence its surroundings and its section name
    instead, a phrase of them beside it (``_singled_out``), pinned by the shortest context; the
    quote itself unchanged, so ``--moves`` applies it. Poetry's ``pyproject.md`` came to describe
    the ``[project]`` and the ``[tool.poetry]`` tables one after the other, "a list of authors and
    should contain at least one" in each, as it left ``docs/docs/``. Otherwise why not."""
    loc = refusal.locator
    assert loc.quote is not None  # found_in: a quote was searched for
    old = at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places,
                        new_doc=refusal.found_in[0], anchored=True)
    if old is None:
        return "where it stood is not known"
    if old.fix is None:
        return old.reason
    new = old.fix.new
    if fold_quote(new.quote or "") != fold_quote(loc.quote):
        return f"where it stood, the quote is edited ({old.fix.score}): not a move"
    return Fix(str(refusal.record_id), index, MOVED, loc,
               loc.model_copy(update={"doc": new.doc, "prefix": new.prefix, "suffix": new.suffix}))


def at_old_place(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, min_score: float,
                  last_build: LastBuild, old_places: OldPlaces, new_doc: str | None = None,
                  anchored: bool = False) -> OldPlace | None:
    """The passage where the quote stood at the last build, as its words are now
    (``core.old_place``), applied if it keeps at least ``min_kept`` of the quote (below
    ``min_score``, a nearest passage's bar, only if it stands beside the text that was around
    the quote and its text stands nowhere else in the page: the lower bar leans on the place,
    so the place must be shown, and a comparison of a page that repeats a sentence, FastAPI's
    "These are the users that have been helping others the most with questions in GitHub"
    in five sections, aligns it by chance), and one locator (the passage, with the shortest
    context when it is not unique) resolves to it; otherwise why not. Of a passage the page
    repeats, the occurrence is the one two of three signals name (``_singled_out``: the page's
    comparison, the text that was around the quote, its section); none so named is a guess, and
    has no place: it neither repairs nor tells ``repair._nearest`` where the quote's words stand. A
    passage is one block's, or a sentence split into list items taken whole (``_whole_across``):
    where the quote's words now run across blocks otherwise, it is the block piece that keeps most of
    the quote, scored as such and applied only at ``min_score``: the lower bar leans on the
    place, and a place across blocks is the comparison's words scattered (FastAPI's schema
    page: a quote mostly a link's HTML, its words now in a list of links, kept 68.6 by the
    markup alone). None when that place is not known (no last build of this label, its text
    then not to be had, or its document gone with no renamed one suggested). ``new_doc``: the document to look in
    (by default its own, or the renamed one); ``anchored``: a phrase of the text around the
    quote must stand beside the place (``Where.anchored``), whatever its score."""
    loc = refusal.locator
    rid = str(refusal.record_id)
    if loc.quote is None:
        return None
    then = last_build.quote_then(rid, index, loc.quote)
    old_text = last_build.text(then[0]) if then is not None else None
    if new_doc is None:
        new_doc = loc.doc if loc.doc in resolver.corpus.docs else _renamed(refusal)
    if then is None or old_text is None or new_doc is None:
        return None
    new_text = resolver.corpus[new_doc].text
    if anchored and not old_places.may_anchor((then[0], new_doc), old_text, then[1], then[2], new_text):
        return OldPlace(reason=f"{new_doc} holds none of the text that was around the quote")
    where = old_places.place((then[0], new_doc), old_text, then[1], then[2], new_text)
    if where is None:
        if old_places.cut_short or not old_places.comparable((then[0], new_doc), old_text, then[1], then[2],
                                                             new_text):
            return OldPlace(reason=f"where it stood is not known: {new_doc} is past the bounds of a word comparison")
        return OldPlace(reason="none of the quote's words stand where it stood", deleted=True)
    s, e = where.start, where.end
    if e - s > MAX_PLACE_CHARS:
        return OldPlace(reason="where it stood, its words now run across blocks")
    across = not paragraphs_only(new_text, s, e)
    if across and not _whole_across(loc.quote, new_text, s, e, min_score, where.beside):
        quote = loc.quote  # a sentence split into list items: the item keeping most of it
        best = best_piece(new_text, s, e, lambda piece: kept_score(quote, fold_quote(piece)))
        if best is None:
            return OldPlace(reason="where it stood, its words now run across blocks")
        s, e = best[1:]
    elif across:
        across = False  # the whole place is the quote, its sentence split (``_whole_across``)
    s, e = edge_punctuation(new_text, s, e, fold_quote(loc.quote))
    passage = fold_quote(new_text[s:e])
    score = kept_score(loc.quote, passage)
    here = Place(new_doc, s, e)
    hits = resolver.index.find_all([passage], new_doc).get(passage) or Hits()  # one search for the checks below
    beside, anchored_here = where.beside, where.anchored
    if hits.total > 1:
        chosen = _singled_out(old_places, (then[0], new_doc), old_text, then[1:], new_text, here, hits)
        if chosen is None:  # a guess: no place, so it neither repairs nor says where the words stand
            if score < min_kept:  # which repeat is moot: none keeps enough of the quote
                return OldPlace(reason=f"where it stood, the passage keeps {score}% of the quote: below {min_kept:g}")
            return OldPlace(reason=f"where it stood, the passage ({score}) occurs elsewhere in {new_doc} too, and "
                             "neither the text that was around the quote nor its section singles one occurrence "
                             "out: a person picks")
        if chosen != here:  # another repeat than the comparison's: is the text around the quote beside it?
            here = chosen
            beside = anchored_here = old_places.phrase_around((then[0], new_doc), old_text, then[1], then[2],
                                                              new_text, here.start, here.end)
    if score < min_kept:
        return OldPlace(None, f"where it stood, the passage keeps {score}% of the quote: below {min_kept:g}",
                         here, score)
    if score < min_score and across:
        return OldPlace(None, f"where it stood, the quote's words now run across blocks: the one keeping most of "
                         f"them ({score}) is below {min_score:g}, a person picks", here, score)
    if anchored and not anchored_here:
        return OldPlace(None, f"in {new_doc}, the passage ({score}) has none of the text that was around the quote "
                         "beside it", here, score)
    if score < min_score and not beside:
        return OldPlace(None, f"where it stood, the passage ({score}) is not beside the text that was around the "
                         "quote: its words stand among other text", here, score)
    elsewhere = last_build.times_elsewhere(rid, index, new_doc, passage)
    if elsewhere and hits.total <= elsewhere:
        return OldPlace(None, f"where it stood, the passage ({score}) also stood elsewhere in {new_doc} at the "
                         "last build", here, score)
    try:
        new = pick_occurrence(resolver.index, Locator(doc=new_doc, quote=passage, exact=loc.exact), here)
    except ValueError:  # the passage's text, as a quote, does not fold to itself at this place
        new = None
    if new is None:
        return OldPlace(None, f"where it stood, the passage ({score}) occurs elsewhere too and no context singles "
                         "it out", here, score)
    if score < min_score and (new.prefix is not None or new.suffix is not None):
        return OldPlace(None, f"where it stood, the passage ({score}) occurs elsewhere in {new_doc} too: a page "
                         "that repeats it is aligned by guess, so below a nearest passage's bar a person picks", here,
                         score)
    return OldPlace(Fix(rid, index, NEAREST, loc, new, score, at_old_place=True))


def _singled_out(old_places: OldPlaces, key: tuple[str, str], old_text: str, then: tuple[int, int],
                 new_text: str, here: Place, hits: Hits) -> Place | None:
    """Which of several occurrences of the passage at ``here`` (``hits``, its occurrences in its
    document) is where the quote stood (``OldPlaces.single_out``: the one two of the page's
    comparison, the text that was around the quote and its section name; ``here`` itself when
    that is the comparison's), or None: a guess. Past ``anchors.KEPT`` occurrences, they are not
    told apart. A page that repeats a passage is
    aligned with the old one by the comparison's order, not by what stands around each repeat."""
    if hits.total > len(hits):
        return None
    places = [(o.start, o.end) for o in hits]
    mine = [k for k, (s, e) in enumerate(places) if s < here.end and here.start < e]
    ours = mine[0] if len(mine) == 1 else None
    k = old_places.single_out(key, old_text, then[0], then[1], new_text, places, ours)
    return None if k is None else here if k == ours else Place(here.doc, *places[k])


def _whole_across(quote: str, text: str, start: int, end: int, min_score: float, beside: bool) -> bool:
    """Whether a place whose words now run across blocks is taken whole: it keeps ``min_score``
    of the quote, list markers and all, beside the text that was around it. A sentence split in
    two keeps its words in order across the break (Homebrew's "if the formula requests it (with
    `pour_bottle?`), if any options are" became two list items, "the formula requests it (…),"
    and "any options are"), and SPEC §3 lets a quote end in a later block; the comparison's words
    scattered over a list of links keep far less of the quote, and are cut to one piece, as are
    words now on both sides of a heading (a new section, not a sentence split: ``items_only``)."""
    s, e = edge_punctuation(text, start, end, fold_quote(quote))
    return beside and items_only(text, s, e) and kept_score(quote, fold_quote(text[s:e])) >= min_score


def _renamed(refusal: Refusal) -> str | None:
    """The renamed document a gone document's nearest passages were looked for in (each is
    there, ``core.moves``), or None."""
    docs = {s.get("doc") for s in refusal.suggestions if "score" in s and not s.get(ANYWHERE)}
    return next(iter(docs)) if len(docs) == 1 and None not in docs else None
