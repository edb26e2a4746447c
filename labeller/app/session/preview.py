"""Live resolution as the app shows it: one locator at a time, and the status words.

No rule is decided here. A locator is resolved by the core's ``resolve_record`` (what
``labeller build`` runs) and ``Resolver.locate``, its suggestions come from the core's
``suggest`` (with the build's moves, ``core.moves``), and a refused quote's suggestions are
ranked by ``labeller repair``'s own ``core.repair.offered`` (a move, the passage where the quote
stood at the last build, the nearest passages; the first is what ``repair`` applies), so the
preview can never disagree with the build or with ``repair``; this module only adds what
an author needs while typing: the chunk boundaries of the span, the copy warning, and the
order of the answers (a quick "not found" / "ambiguous", then the bare resolution, then
the slower suggestions).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pydantic import ValidationError
from rapidfuzz import fuzz, utils

from labeller.app.session.drafts import INCOMPLETE, Draft, LocatorDraft, plain_problems
from labeller.app.session.statuses import STATUS_INCOMPLETE, STATUS_RESOLVED
from labeller.core.build import RecordResult, resolve_record
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator
from labeller.core.moves import find_moves, pinned_to_each
from labeller.core.project import Project
from labeller.core.repair import Offered, offered, repairable
from labeller.core.resolve import MAX_LISTED_OCCURRENCES, Refusal, Span
from labeller.core.suggest import suggest
from labeller.core.vocab import Place, RefusalKind
from labeller.errors import InvalidInput, LabellerError

# -- the copy warning ----------------------------------------------------------------------
#
# A query that repeats the wording of its own answer measures string matching, not
# retrieval: BM25 finds it because the words are the same. We score the query against the
# span with rapidfuzz's partial_ratio after its default processing (lower case, punctuation
# to spaces, trimmed): the best alignment of the whole query with any stretch of the span of
# the same length, 0-100. At 85 or more the query is a near-verbatim copy of a passage (a
# word or two changed); below that it is paraphrase or shared topic words. A warning only:
# some questions legitimately use the document's own terms.
COPY_WARN_THRESHOLD = 85.0

def copy_score(query: str, span_text: str) -> float:
    """How closely the query copies a stretch of its answer span (0-100, see above)."""
    return fuzz.partial_ratio(query, span_text, processor=utils.default_process)


@dataclass(frozen=True)
class ChunkInfo:
    """An answer-bearing chunk and its boundaries, for the preview."""

    chunk_id: str
    ordinal: int
    n_in_doc: int
    start: int
    end: int
    first_line: int  # 1-based
    last_line: int


@dataclass(frozen=True)
class Preview:
    """One locator resolved by the core, as the app shows it live."""

    record_id: str
    index: int
    locator: LocatorDraft
    span: Span | None = None
    refusal: Refusal | None = None
    error: str | None = None
    chunks: tuple[ChunkInfo, ...] = ()
    coverage: float | None = None
    copy_score: float | None = None
    # the refusal's kind while the core's suggestions (nearest passages, unique extensions)
    # are still being computed: "not_found" / "ambiguous" as soon as the occurrences are
    # counted (then ``refusal`` is None), or any kind with the bare ``refusal``
    pending: str | None = None
    occurrences: tuple[Place, ...] = ()  # with ``pending``: where the quote occurs
    places: tuple[Place, ...] = ()  # where the suggested passages are
    pins: tuple[Place, ...] = ()  # an ambiguous quote's one occurrence in each document that pinning resolves
    # a refused quote's suggestions as ``labeller repair`` ranks them, and where each new
    # locator resolves (None: not to one place)
    offered: Offered | None = None
    offer_places: tuple[Place | None, ...] = ()

    @property
    def status(self) -> str:
        if self.error is not None:
            return STATUS_INCOMPLETE if self.locator.incomplete else "invalid"
        if self.span is not None:
            return STATUS_RESOLVED
        if self.refusal is not None:
            return self.refusal.kind.replace("_", " ")
        return self.pending.replace("_", " ") if self.pending else "invalid"

    @property
    def copies_answer(self) -> bool:
        return self.copy_score is not None and self.copy_score >= COPY_WARN_THRESHOLD


def chunk_infos(project: Project, doc_id: str, chunk_ids: list[str]) -> tuple[ChunkInfo, ...]:
    wanted = set(chunk_ids)
    chunks = project.chunks.get(doc_id, [])
    doc = project.corpus[doc_id]
    return tuple(ChunkInfo(c.chunk_id, c.ordinal, len(chunks), c.start, c.end, doc.line_of(c.start) + 1,
                           doc.line_of(max(c.start, c.end - 1)) + 1)
                 for c in chunks if c.chunk_id in wanted)


def _validation_message(exc: ValidationError) -> str:
    return "; ".join(plain_problems(exc))


def quick_preview(project: Project, draft: Draft, index: int) -> Preview | None:
    """The answer for a quote found zero or several times, before the core's suggestions.

    ``Resolver.locate`` (the first half of resolving a quote: one scan of the folded
    corpus) says "not found" / "ambiguous" and where the occurrences are, while the
    suggestions for a refused quote (nearest passages over every chunk, the unique
    extension of each occurrence) take far longer on a large corpus. ``None`` when the
    bare resolution is just as quick: one occurrence, a section locator, or a locator
    the core refuses before searching.
    """
    ld = draft.locators[index]
    try:
        loc = ld.to_locator()
    except ValidationError:
        return None
    if loc.quote is None:
        return None
    try:
        found = project.resolver.locate(loc, draft.id)
    except InvalidInput:  # a doc outside the corpus folder: the full preview names it
        return None
    if isinstance(found, Place) or found.kind not in (RefusalKind.NOT_FOUND, RefusalKind.AMBIGUOUS):
        return None
    return Preview(draft.id, index, ld, pending=found.kind, occurrences=found.places)


def preview_locator(project: Project, draft: Draft, index: int, *, suggestions: bool = True,
                    last_build: LastBuild | None = None) -> Preview:
    """Resolve one locator of a draft exactly as ``labeller build`` would (``resolve_record``).

    In two phases: the bare resolution first (``suggestions=False``: a refusal without its
    help, marked ``pending``, shown at once), then the same with the core's ``suggest()`` and
    the build's moves (nearest passages and where they lie, unique extensions, a section
    locator, the document the quote moved to), which a worker computes while the author reads
    the first answer. A quote refused in a draft that is a valid record also gets ``repair``'s
    ranking (``core.repair.offered``; ``last_build``, the committed build, gives the passage
    where the quote stood)."""
    ld = draft.locators[index]
    if ld.incomplete:  # a doc and nothing else: half-written, not a whole-document label
        return Preview(draft.id, index, ld, error=INCOMPLETE)
    try:
        loc = ld.to_locator()
    except ValidationError as exc:
        return Preview(draft.id, index, ld, error=_validation_message(exc))
    try:
        rec = resolve_record(project, draft.unchecked_question([loc]), suggestions=False)
    except LabellerError as exc:  # a chunker bug is loud here too, never hidden
        return Preview(draft.id, index, ld, error=str(exc))
    if rec.refusals:
        if not suggestions:
            return Preview(draft.id, index, ld, refusal=rec.refusals[0], pending=rec.refusals[0].kind)
        (refusal,) = find_moves(project, [suggest(project.resolver, rec.refusals[0])])
        offers, places = repair_offers(project, draft, refusal, last_build)
        return Preview(draft.id, index, ld, refusal=refusal, places=refusal.suggested_places,
                       pins=pin_suggestions(project, refusal), offered=offers, offer_places=places)
    span = rec.spans[0]
    text = project.corpus[span.doc_id].text[span.start:span.end]
    return Preview(draft.id, index, ld, span=span, chunks=chunk_infos(project, span.doc_id, rec.chunk_ids),
                   coverage=rec.coverage[0], copy_score=copy_score(draft.query, text) if draft.query.strip()
                   else None)


def repair_offers(project: Project, draft: Draft, refusal: Refusal,
                  last_build: LastBuild | None) -> tuple[Offered | None, tuple[Place | None, ...]]:
    """``repair``'s suggestions for a quote refused in its document (``core.repair.offered``),
    and where each one's new locator resolves; none for a draft that is not a record yet."""
    if not repairable(refusal) or draft.problems():
        return None, ()
    offers = offered(project, draft.to_question(), refusal, last_build=last_build)
    places = []
    for f in offers.fixes:
        try:  # a quote's place, or the section a heading names
            found = project.resolver.locate(f.new, draft.id) if f.new.quote is not None \
                else project.resolver.resolve(f.new, draft.id)
        except InvalidInput:
            found = None
        places.append(found.place if isinstance(found, Span) else found if isinstance(found, Place) else None)
    return offers, tuple(places)


def pin_suggestions(project: Project, refusal: Refusal) -> tuple[Place, ...]:
    """For an ambiguous quote with no document: its occurrence in each document where it
    occurs exactly once, when pinning the locator to that document alone resolves it (the
    core decides: ``locate`` on the pinned locator). Only when every occurrence is listed:
    past ``MAX_LISTED_OCCURRENCES`` a document's count is not known from the refusal."""
    loc = refusal.locator
    if refusal.kind != RefusalKind.AMBIGUOUS or loc.doc is not None or loc.quote is None:
        return ()
    if len(refusal.places) >= MAX_LISTED_OCCURRENCES:
        return ()
    per_doc = Counter(p.doc for p in refusal.places)
    once = [doc for doc, n in per_doc.items() if n == 1]
    return tuple(place for _, place in pinned_to_each(project.resolver, loc, once))


def locator_statuses(draft: Draft, result: RecordResult | None) -> list[str]:
    """Each locator's status in a record resolution (``invalid`` for one that is not a
    locator yet). ``resolve_record`` gives each valid locator one span or one refusal."""
    locs: list[Locator | None] = []
    for ld in draft.locators:
        try:
            locs.append(ld.to_locator())
        except ValidationError:
            locs.append(None)
    out = [STATUS_RESOLVED if loc is not None else STATUS_INCOMPLETE if ld.incomplete else "invalid"
           for loc, ld in zip(locs, draft.locators)]
    if result is None:
        return out
    taken: set[int] = set()
    for r in result.refusals:
        same = [i for i, loc in enumerate(locs) if loc == r.locator and i not in taken]
        if same:
            # of two equal locators the second is the duplicate; any other refusal hits both
            i = same[-1] if r.kind == "duplicate_span" else same[0]
            taken.add(i)
            out[i] = r.kind.replace("_", " ")
    return out


def resolve_locators(project: Project, draft: Draft) -> tuple[RecordResult | None, list[str]]:
    """The record resolution of a valid draft, and the status of each of its locators (also
    for a draft that is not a valid record yet, resolving the locators it has)."""
    if not draft.problems():
        result = resolve_record(project, draft.to_question())
        return result, locator_statuses(draft, result)
    valid = []
    for ld in draft.locators:
        try:
            valid.append(ld.to_locator())
        except ValidationError:
            pass
    partial = resolve_record(project, draft.unchecked_question(valid)) if valid else None
    return None, locator_statuses(draft, partial)


def live_preview(project: Project, draft: Draft, index: int) -> Preview:
    """The fast lane of live resolution: occurrences counted (a unique quote resolved) at once,
    the core's suggestions for a refused quote left to ``preview_locator``'s slow lane."""
    quick = quick_preview(project, draft, index)
    return quick if quick is not None else preview_locator(project, draft, index, suggestions=False)


def next_lane(result: Preview, current: LocatorDraft | None, shown: Preview | None) -> str | None:
    """What an answer of the fast lane leads to, given the locator as it is now (``current``)
    and the preview on screen (``shown``): None, dropped (a late answer to an older keystroke);
    ``"record"``, shown, then the record's own resolution (the full refusal is already on
    screen, so only the record's statuses change: ``"record-only"``); ``"suggestions"``, shown,
    then the slow lane; ``"shown"``, shown for an older keystroke, nothing to ask."""
    if result.locator != current and shown is not None and shown.locator == current:
        return None
    if result.locator != current:
        return "shown"
    if not result.pending:
        return "record"
    if shown is not None and shown.locator == current and shown.refusal is not None and not shown.pending:
        return "record-only"
    return "suggestions"
