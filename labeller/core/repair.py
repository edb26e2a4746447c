"""Applying the build's suggestions in bulk (SPEC §13): ``labeller repair`` and the app's
broken-label view share this one plan, and the app's list of a refused quote's suggestions is
ranked by it (``offered``: what the plan applies first), so that the app's first suggestion is
the one ``repair`` applies, when it applies one.

A suggestion is applied only when it cannot be a guess: a ``moved`` one (the quote found
verbatim in exactly one other document: only the locator's ``doc`` changes), or a nearest
passage that is unique in its scope, scores at least the minimum, and is the only one of the
locator's passages that does (two passages above the bar are two answers, and a person
chooses). Every repaired locator is resolved again before it is offered: one that the build
would still refuse (a heading-only span, a duplicate of another locator) is left, with the
refusal as its reason. A nearest passage that already stood in its document at the last build,
away from the label's own span, is other text, not the edited quote, and is left too
(``core.last_build``). Every locator left says why, so a report can say what needs a person.

Where the last build knows where the quote stood (its span, and its document's text then), the
passage at that place now comes first (``core.old_place``): the words the old span became,
scored by the share of the quote it keeps, pinned by the shortest context when its text is not
unique. Its bar is its own, ``min_kept`` (``DEFAULT_MIN_KEPT``, 60), lower than a nearest
passage's ``min_score`` (80): a nearest passage is found by resembling the quote anywhere in
the document, and only its likeness vouches for it; this one is located by the document's own
comparison, between the unchanged text around it, so its score says how much the answer was
rewritten, not whether this is the place. A sentence rewritten with three fifths of its words
kept ("mdBook, all the source code, is released under the [Mozilla Public" → "mdBook source
and documentation are released under the [Mozilla Public") is the label's answer, edited; the
repaired record is logged as edited, for a person to re-read. Measured on nine documentation
histories (``benchmarks/survival.py``, ``docs/performance.md``): passages where the quote stood
keeping 60% or more were where the ground truth says the words went, every time but one the
truth itself disputes; at 50%, 17 were other text. A passage there that falls short leaves the
build's nearest passages to decide, as without a last build, with what the comparison said:
where it kept half the quote, a nearest passage elsewhere is a look-alike; where it kept none,
a nearest passage must keep ``min_score`` of the quote, not only resemble it (``_nearest``). A
gone page nothing pairs is compared so with the pages its quote's nearest passages stand in
(``_where_it_went``).

The plan only computes records; writing them is the caller's: the CLI through
``questions.write_questions`` (the app's own minimal, atomic, comment-keeping writer), the app
into its drafts, one undo step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from labeller.core.anchors import Hits, fold_quote
from labeller.core.build import RecordResult, resolve_record
from labeller.core.context import locator_needles, pick_occurrence
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator, Question
from labeller.core.moves import ANYWHERE, MOVABLE, NOTHING_THERE, is_move
from labeller.core.old_place import OldPlaces, kept_score
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Resolver
from labeller.core.suggest import MIN_SCORE, NEAREST_SPENT, close_to_best
from labeller.core.suggest_cut import best_piece, edge_punctuation, items_only, paragraphs_only
from labeller.core.vocab import Place, RefusalKind
from labeller.errors import InvalidInput

MOVED = "moved"
NEAREST = "nearest"
DEFAULT_MIN_SCORE = 80.0
DEFAULT_MIN_KEPT = 60.0  # the share of the quote a passage where it stood keeps, at least (see above)


@dataclass(frozen=True)
class Fix:
    """One locator re-pointed: ``kind`` is ``moved`` or ``nearest`` (with its ``score``, and
    whether the passage is the one where the quote stood, scored by ``old_place.kept_score``)."""

    record_id: str
    index: int
    kind: str
    old: Locator
    new: Locator
    score: float | None = None
    at_old_place: bool = False  # the passage where the quote stood at the last build (``core.old_place``)

    def describe(self) -> str:
        if self.kind == MOVED:
            picked = (self.new.prefix, self.new.suffix) != (self.old.prefix, self.old.suffix)
            return f"moved {self.old.doc} → {self.new.doc}" + (f", where it stood: {self.new.describe()}" * picked)
        if self.at_old_place:
            return f"where it stood, {self.score}% of the quote kept: {self.new.describe()}"
        return f"nearest passage ({self.score}) {self.new.describe()}"

    def as_json(self) -> dict:
        out = {"id": self.record_id, "locator_index": self.index, "kind": self.kind, "old": self.old.as_json(),
               "new": self.new.as_json()}
        if self.score is not None:
            out["score"] = self.score
        if self.at_old_place:
            out["at_old_place"] = True
        return out

    @classmethod
    def from_json(cls, obj: object) -> Fix:
        """A fix as ``as_json`` wrote it: the app's journal keeps the ones an author accepted, so
        that a restored repair is still logged as an edit when it is saved. ``ValueError``
        naming the first field that is not what ``as_json`` writes."""
        if not isinstance(obj, dict):
            raise ValueError("a fix is an object")
        rid, index, kind, score = obj.get("id"), obj.get("locator_index"), obj.get("kind"), obj.get("score")
        if not isinstance(rid, str) or not rid:
            raise ValueError("a fix's id is a non-empty string")
        if type(index) is not int or index < 0:
            raise ValueError("a fix's locator_index is a whole number, 0 or more")
        if kind not in (MOVED, NEAREST):
            raise ValueError(f"a fix's kind is {MOVED!r} or {NEAREST!r}")
        if score is not None and (type(score) not in (int, float) or not 0 <= score <= 100):
            raise ValueError("a fix's score is a number from 0 to 100")
        if not isinstance(obj.get("at_old_place", False), bool):
            raise ValueError("a fix's at_old_place is true or false")
        old, new = Locator.model_validate(obj.get("old")), Locator.model_validate(obj.get("new"))
        return cls(rid, index, kind, old, new, None if score is None else float(score),
                   obj.get("at_old_place", False))


@dataclass(frozen=True)
class Left:
    """A refused locator no suggestion was applied to, and why."""

    record_id: str
    index: int | None
    locator: Locator
    kind: str  # the refusal's kind
    reason: str

    def as_json(self) -> dict:
        return {"id": self.record_id, "locator_index": self.index, "locator": self.locator.as_json(),
                "kind": self.kind, "reason": self.reason}


@dataclass
class RepairPlan:
    """The fixes to apply, the locators left, and the records as they would be written."""

    fixes: list[Fix] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)
    before: dict[str, Question] = field(default_factory=dict)  # each repaired record as it is now
    after: dict[str, Question] = field(default_factory=dict)  # ... and as repaired, in file order

    def by_record(self) -> dict[str, list[Fix]]:
        """The fixes of each repaired record, in file order."""
        out: dict[str, list[Fix]] = {}
        for f in self.fixes:
            out.setdefault(f.record_id, []).append(f)
        return out

    def summary(self) -> dict:
        return {"applied": len(self.fixes), "records": len(self.after), "left": len(self.left),
                "moved": sum(f.kind == MOVED for f in self.fixes),
                "nearest": sum(f.kind == NEAREST for f in self.fixes)}

    def as_json(self) -> dict:
        return {"applied": [f.as_json() for f in self.fixes], "left": [x.as_json() for x in self.left],
                "summary": self.summary()}


def repairable(refusal: Refusal) -> bool:
    """Whether ``repair`` has anything to offer for a refused locator: a quote whose document is
    gone or no longer holds it (SPEC §13), or a quote its document now holds several times (the
    occurrence where it stood, pinned by context)."""
    loc = refusal.locator
    return refusal.kind in MOVABLE or (refusal.kind == RefusalKind.AMBIGUOUS and loc.quote is not None
                                       and loc.doc is not None)


def may_move(refusal: Refusal) -> bool:
    """Whether ``repair --moves`` may have a fix for a refused locator (``_choose``'s first two
    cases): a moved suggestion, or the quote verbatim several times in exactly one other document."""
    return any(is_move(s) for s in refusal.suggestions) or len(refusal.found_in) == 1


# Asked about each record the plan would repair (the record now, repaired, the fixes): apply it?
Accept = Callable[[Question, Question, list[Fix]], bool]


def plan_repair(project: Project, records: Iterable[RecordResult], ids: Iterable[str] | None = None, *,
                moves_only: bool = False, min_score: float = DEFAULT_MIN_SCORE, min_kept: float = DEFAULT_MIN_KEPT,
                accept: Accept | None = None, last_build: LastBuild | None = None) -> RepairPlan:
    """The fixes for the refused locators of ``records`` (from a ``build``: its moves found),
    limited to the records ``ids`` (every record when ``None``; an id not in the
    questions is ``InvalidInput``). ``moves_only``: moved suggestions only; otherwise also
    nearest passages at or above ``min_score`` and passages where the quote stood keeping at least
    ``min_kept`` of it. ``accept`` (interactive) is asked per record.
    ``last_build`` (the committed build, when there is one) leaves a nearest passage that
    stood elsewhere in its document then."""
    by_id = {rec.question.id: rec for rec in records}
    wanted = None if ids is None else list(dict.fromkeys(ids))
    for rid in wanted or ():
        if rid not in by_id:
            raise InvalidInput("no such record in the questions file", record_id=rid)
    plan = RepairPlan()
    old_places = OldPlaces()
    if last_build is not None and not moves_only:
        broken = [rec.question for rec in by_id.values()
                  if rec.refusals and (wanted is None or rec.question.id in wanted)]
        last_build.read_ahead(doc for question in broken for i in range(len(question.locators))
                              if (doc := last_build.span_doc(question.id, i)) is not None)
    todo: list[tuple[Refusal, int | None]] = []
    for rec in by_id.values():
        if not rec.refusals or (wanted is not None and rec.question.id not in wanted):
            continue
        used: set[int] = set()
        todo += [(refusal, _locator_index(rec.question, refusal, used)) for refusal in rec.refusals]
    # Gone pages followed into other pages last: those comparisons are made on the chance that the
    # paragraph went there, and get what the comparisons of quotes' own pages leave of the budget.
    todo.sort(key=lambda item: any(s.get(ANYWHERE) for s in item[0].suggestions))
    found: dict[str, list[Fix]] = {}
    for refusal, index in todo:
        fix_or_reason = _choose(refusal, index, moves_only, min_score, min_kept, last_build, project.resolver,
                                old_places)
        if isinstance(fix_or_reason, Fix):
            found.setdefault(fix_or_reason.record_id, []).append(fix_or_reason)
        else:
            plan.left.append(Left(str(refusal.record_id), index, refusal.locator, str(refusal.kind), fix_or_reason))
    candidates = {rid: sorted(found[rid], key=lambda f: f.index) for rid in by_id if rid in found}  # file order
    checked = _verified(project, {rid: by_id[rid].question for rid in candidates}, candidates, plan.left)
    for rid, fixes in checked.items():
        before = by_id[rid].question
        after = repaired(before, fixes)
        if accept is not None and not accept(before, after, fixes):
            plan.left += [Left(rid, f.index, f.old, "declined", "declined at the prompt") for f in fixes]
            continue
        plan.fixes += fixes
        plan.before[rid], plan.after[rid] = before, after
    position = {rid: i for i, rid in enumerate(by_id)}
    plan.left.sort(key=lambda x: (position[x.record_id], x.index if x.index is not None else -1))
    return plan


def repaired(question: Question, fixes: list[Fix]) -> Question:
    locators = list(question.locators)
    for f in fixes:
        locators[f.index] = f.new
    return question.model_copy(update={"locators": locators})


@dataclass(frozen=True)
class Offered:
    """One refused locator's suggestions as ``repair`` ranks them (``offered``): ``fixes`` best
    first, the first being the one ``repair`` applies unless ``reason`` says why it applies none."""

    fixes: list[Fix]
    reason: str = ""

    @property
    def applied(self) -> Fix | None:
        return self.fixes[0] if self.fixes and not self.reason else None


def offered(project: Project, question: Question, refusal: Refusal, *, min_score: float = DEFAULT_MIN_SCORE,
            min_kept: float = DEFAULT_MIN_KEPT, last_build: LastBuild | None = None) -> Offered:
    """The suggestions for one refused locator of ``question`` (``refusal`` with the build's
    suggestions and moves), for a person to pick from (the app): what ``plan_repair`` applies
    first, then a move, the passage where the quote stood (whatever its score) and the build's
    nearest passages, best first; a scored one more than ``MAX_SCORE_GAP`` below the first
    scored one is left out (``suggest.close_to_best``), and each new locator is offered once."""
    plan = plan_repair(project, [RecordResult(question, refusals=[refusal])], [question.id], min_score=min_score,
                       min_kept=min_kept, last_build=last_build)
    index = _locator_index(question, refusal, set())
    reason = plan.left[0].reason if plan.left else ""
    if index is None:
        return Offered([], reason)
    others = [_moved_fix(refusal, index, s) for s in refusal.suggestions if is_move(s)]
    scored = [_nearest_fix(refusal, index, s) for s in refusal.suggestions if "score" in s and "quote" in s]
    if last_build is not None and repairable(refusal):
        old = _at_old_place(project.resolver, refusal, index, 0.0, 0.0, last_build, OldPlaces())
        if old is not None and old.fix is not None:
            scored.insert(0, old.fix)
    others += sorted(scored, key=lambda f: -(f.score or 0.0))  # stable: where it stood first on a tie
    ranked: dict[Locator, Fix] = {}
    for f in [*plan.fixes, *others]:
        ranked.setdefault(f.new, f)  # each new locator once, as it first comes
    fixes = list(ranked.values())
    near = close_to_best([({"score": f.score, "at": i}, None) for i, f in enumerate(fixes) if f.score is not None])
    shown = {d["at"] for d, _ in near}
    return Offered([f for i, f in enumerate(fixes) if f.score is None or i in shown], reason)


def _locator_index(question: Question, refusal: Refusal, used: set[int]) -> int | None:
    """The position of the refused locator in its record (the first equal one not yet taken)."""
    for i, loc in enumerate(question.locators):
        if i not in used and loc == refusal.locator:
            used.add(i)
            return i
    return None


def _choose(refusal: Refusal, index: int | None, moves_only: bool, min_score: float, min_kept: float,
            last_build: LastBuild | None, resolver: Resolver, old_places: OldPlaces) -> Fix | str:
    """The fix for one refused locator, or why there is none."""
    if index is None:
        return "the locator is not in its record"
    moves = [s for s in refusal.suggestions if is_move(s)]
    if moves:
        return _moved_fix(refusal, index, moves[0])
    if len(refusal.found_in) == 1 and last_build is not None:
        moved = _moved_to_where_it_stood(resolver, refusal, index, min_kept, min_score, last_build, old_places)
        if isinstance(moved, Fix):
            return moved
        return f"the quote is verbatim several times in {refusal.found_in[0]}: a person picks one; {moved}"
    if refusal.found_in:
        return f"the quote is verbatim in {len(refusal.found_in)} other documents ({', '.join(refusal.found_in)}): " \
               "a person picks one"
    if moves_only:
        return "no moved suggestion (the quote is not verbatim in one other document)"
    if refusal.kind == RefusalKind.AMBIGUOUS and last_build is not None:
        old = _at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places)
        if old is not None and old.fix is not None:
            return old.fix
        return f"{refusal.kind}: {refusal.message}" + (f"; {old.reason}" if old is not None else "")
    if refusal.kind not in (RefusalKind.NOT_FOUND, RefusalKind.UNKNOWN_DOC):
        return f"{refusal.kind}: no suggestion repair applies ({refusal.message})"
    if any(s.get(ANYWHERE) for s in refusal.suggestions):
        went = _where_it_went(resolver, refusal, index, min_kept, last_build, old_places) if last_build else None
        if went is not None:
            return went
        why = "the document paired with it holds nothing like the quote" if NOTHING_THERE in refusal.message \
            else "no document is paired with it"
        return f"its document is gone and {why}: a nearest passage from the whole corpus is for a person to pick"
    old = _at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places) if last_build \
        else None
    if old is not None and old.fix is not None:
        return old.fix
    stood = old.place if old is not None and old.score is not None else None
    words_here = stood if old is not None and old.score is not None and old.score >= KEPT_HERE else None
    deleted = old is not None and old.deleted
    reason = _nearest(refusal, index, min_score, last_build, resolver, words_here, deleted, stood)
    return reason if isinstance(reason, Fix) or old is None else f"{reason}; {old.reason}"


# A nearest passage away from the place where at least this share of the quote's words still
# stand (``old_place.kept_score``) is a look-alike: the quote was edited there, not moved.
KEPT_HERE = 50.0


def _nearest(refusal: Refusal, index: int, min_score: float, last_build: LastBuild | None, resolver: Resolver,
             words_here: Place | None, deleted: bool = False, stood: Place | None = None) -> Fix | str:
    """The build's nearest passage that is unique, the only one at or above ``min_score``, new
    since the last build, and not away from ``words_here`` (where most of the quote's words
    still stand, when that is known), or why there is none. ``deleted``: the page's comparison
    keeps none of the quote's words, where it stood or moved (``_OldPlace.deleted``); a nearest
    passage must then also keep ``min_score`` of the quote (``kept_score``), not only resemble
    it. Resemblance is a window's likeness, which a new sentence sharing the quote's first
    words reaches: Material's "always stretch to the right side," (a feature's paragraph,
    deleted) scored 80.0 against another feature's new note, "always stretch to the available
    screen", which keeps 64.3 of it; Homebrew's "binary packages (bottles) are built on" (the
    sponsors' paragraph, deleted) 81.6 against "binary packages (bottles) which will not".
    ``stood``: where the page's comparison put any of the quote's words (``_OldPlace.place``,
    whatever it keeps); of several passages at or above ``min_score``, the only one holding
    that place is the quote's, edited. A page that repeats a sentence (Vue's component guide
    ends three sections with "we recommend coming back later to read the full guide on [Slots]
    (…)", each link since changed) has a nearest passage for each repeat, and the comparison
    says which one the label's became; two holding it, or none, are still a person's pick."""
    rid = str(refusal.record_id)
    scored = [s for s in refusal.suggestions if "score" in s and "quote" in s]
    if not scored:
        if NEAREST_SPENT in refusal.message:
            return "no nearest passage: the build's budget for suggestions was spent (repair the others first)"
        if refusal.suggestions:
            return "the quote occurs in other contexts: a person picks one"
        return f"no nearest passage: nothing scores {MIN_SCORE:g} or more against the quote"
    above = [s for s in scored if s["score"] >= min_score]
    best = max(s["score"] for s in scored)
    if not above:
        return f"the best nearest passage scores {best}, below {min_score:g}"
    if len(above) > 1:
        at = [s for s in above if stood is not None and _overlaps(resolver, s, stood)]
        if len(at) != 1:
            return f"{len(above)} nearest passages score {min_score:g} or more: a person picks one"
        above = at
    sug = above[0]
    if not sug["unique"]:
        return f"the nearest passage ({sug['score']}) is not unique"
    if last_build is not None and last_build.stood_elsewhere(rid, index, sug["doc"], sug["quote"]):
        return f"the nearest passage ({sug['score']}) already stood in {sug['doc']} at the last build, away from " \
               "this label: it is other text, not the quote edited"
    if deleted and (kept := kept_score(refusal.locator.quote or "", fold_quote(sug["quote"]))) < min_score:
        return f"the nearest passage ({sug['score']}) only resembles the quote: it keeps {kept}% of it, below " \
               f"{min_score:g}, where the quote was deleted"
    if words_here is not None and not _overlaps(resolver, sug, words_here):
        return f"the nearest passage ({sug['score']}) is away from where most of the quote's words still stand " \
               "(edited there): it is other text"
    return _nearest_fix(refusal, index, sug)


def _overlaps(resolver: Resolver, sug: dict, place: Place) -> bool:
    """Whether a nearest passage, where it stands first in its document, overlaps ``place``."""
    hit = resolver.index.first(fold_quote(sug["quote"]), sug["doc"])
    return hit is not None and hit.doc_id == place.doc and hit.start < place.end and place.start < hit.end


def _moved_fix(refusal: Refusal, index: int, sug: dict) -> Fix:
    """A moved suggestion as a fix: only the locator's ``doc`` changes."""
    loc = refusal.locator
    return Fix(str(refusal.record_id), index, MOVED, loc, loc.model_copy(update={"doc": sug["doc"]}))


def _nearest_fix(refusal: Refusal, index: int, sug: dict) -> Fix:
    """A nearest passage of the build as a fix: the passage, pinned to its document."""
    loc = refusal.locator
    new = Locator(doc=sug["doc"], quote=sug["quote"], exact=loc.exact)
    return Fix(str(refusal.record_id), index, NEAREST, loc, new, sug["score"])


# Characters of a passage at the old place scored at most: its words are the quote's, a few more.
MAX_PLACE_CHARS = 20_000


@dataclass(frozen=True)
class _OldPlace:
    """What ``_at_old_place`` found: the fix, or why none (with the passage's place and score
    when it has one)."""

    fix: Fix | None = None
    reason: str = ""
    place: Place | None = None
    score: float | None = None
    deleted: bool = False  # the page's comparison keeps none of the quote's words (not past its bounds)


def _where_it_went(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, last_build: LastBuild,
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
        old = _at_old_place(resolver, refusal, index, min_kept, math.inf, last_build, old_places, new_doc=doc,
                            anchored=True)
        if old is not None and old.fix is not None:
            return old.fix
    return None


MAX_WENT_DOCS = 3  # documents of a gone page's nearest passages compared with the page as it was, at most


def _moved_to_where_it_stood(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, min_score: float,
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
    old = _at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places,
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


def _at_old_place(resolver: Resolver, refusal: Refusal, index: int, min_kept: float, min_score: float,
                  last_build: LastBuild, old_places: OldPlaces, new_doc: str | None = None,
                  anchored: bool = False) -> _OldPlace | None:
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
    has no place: it neither repairs nor tells ``_nearest`` where the quote's words stand. A
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
        return _OldPlace(reason=f"{new_doc} holds none of the text that was around the quote")
    where = old_places.place((then[0], new_doc), old_text, then[1], then[2], new_text)
    if where is None:
        if old_places.cut_short or not old_places.comparable((then[0], new_doc), old_text, then[1], then[2],
                                                             new_text):
            return _OldPlace(reason=f"where it stood is not known: {new_doc} is past the bounds of a word comparison")
        return _OldPlace(reason="none of the quote's words stand where it stood", deleted=True)
    s, e = where.start, where.end
    if e - s > MAX_PLACE_CHARS:
        return _OldPlace(reason="where it stood, its words now run across blocks")
    across = not paragraphs_only(new_text, s, e)
    if across and not _whole_across(loc.quote, new_text, s, e, min_score, where.beside):
        quote = loc.quote  # a sentence split into list items: the item keeping most of it
        best = best_piece(new_text, s, e, lambda piece: kept_score(quote, fold_quote(piece)))
        if best is None:
            return _OldPlace(reason="where it stood, its words now run across blocks")
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
        if chosen is None:  # a guess: no place, so it neither repairs nor says where the words stand (``_nearest``)
            if score < min_kept:  # which repeat is moot: none keeps enough of the quote
                return _OldPlace(reason=f"where it stood, the passage keeps {score}% of the quote: below {min_kept:g}")
            return _OldPlace(reason=f"where it stood, the passage ({score}) occurs elsewhere in {new_doc} too, and "
                             "neither the text that was around the quote nor its section singles one occurrence "
                             "out: a person picks")
        if chosen != here:  # another repeat than the comparison's: is the text around the quote beside it?
            here = chosen
            beside = anchored_here = old_places.phrase_around((then[0], new_doc), old_text, then[1], then[2],
                                                              new_text, here.start, here.end)
    if score < min_kept:
        return _OldPlace(None, f"where it stood, the passage keeps {score}% of the quote: below {min_kept:g}",
                         here, score)
    if score < min_score and across:
        return _OldPlace(None, f"where it stood, the quote's words now run across blocks: the one keeping most of "
                         f"them ({score}) is below {min_score:g}, a person picks", here, score)
    if anchored and not anchored_here:
        return _OldPlace(None, f"in {new_doc}, the passage ({score}) has none of the text that was around the quote "
                         "beside it", here, score)
    if score < min_score and not beside:
        return _OldPlace(None, f"where it stood, the passage ({score}) is not beside the text that was around the "
                         "quote: its words stand among other text", here, score)
    elsewhere = last_build.times_elsewhere(rid, index, new_doc, passage)
    if elsewhere and hits.total <= elsewhere:
        return _OldPlace(None, f"where it stood, the passage ({score}) also stood elsewhere in {new_doc} at the "
                         "last build", here, score)
    try:
        new = pick_occurrence(resolver.index, Locator(doc=new_doc, quote=passage, exact=loc.exact), here)
    except ValueError:  # the passage's text, as a quote, does not fold to itself at this place
        new = None
    if new is None:
        return _OldPlace(None, f"where it stood, the passage ({score}) occurs elsewhere too and no context singles "
                         "it out", here, score)
    if score < min_score and (new.prefix is not None or new.suffix is not None):
        return _OldPlace(None, f"where it stood, the passage ({score}) occurs elsewhere in {new_doc} too: a page "
                         "that repeats it is aligned by guess, so below a nearest passage's bar a person picks", here,
                         score)
    return _OldPlace(Fix(rid, index, NEAREST, loc, new, score, at_old_place=True))


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


def _verified(project: Project, questions: dict[str, Question], candidates: dict[str, list[Fix]],
              left: list[Left]) -> dict[str, list[Fix]]:
    """The candidate fixes whose new locator resolves in its repaired record (one search for all
    of them); each other one goes to ``left`` with the refusal the build would give."""
    resolver = project.resolver
    found = resolver.index.find_all(locator_needles(f.new for fixes in candidates.values() for f in fixes))
    out: dict[str, list[Fix]] = {}
    with resolver.deferred_window_writes():  # each document's parsed windows stored once, as a build does
        checks = {rid: resolve_record(project, repaired(questions[rid], fixes), found, suggestions=False)
                  for rid, fixes in candidates.items()}
    for rid, fixes in candidates.items():
        check = checks[rid]
        refused = {r.locator: r for r in check.refusals}
        for f in fixes:
            bad = refused.get(f.new)
            if bad is not None:
                left.append(Left(rid, f.index, f.old, str(bad.kind), f"the {f.kind} suggestion would be refused: "
                                 f"{bad.kind}: {bad.message}"))
            else:
                out.setdefault(rid, []).append(f)
    return out
