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

Where the last build knows where the quote stood, the passage at that place now comes first,
with its own bar (``min_kept``, ``DEFAULT_MIN_KEPT``): ``core.where_it_stood``. A passage there
that falls short leaves the build's nearest passages to decide (``_nearest``), with what the
comparison said of where the quote's words stand.

The plan only computes records; writing them is the caller's: the CLI through
``questions.write_questions`` (the app's own minimal, atomic, comment-keeping writer), the app
into its drafts, one undo step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from labeller.core.anchors import fold_quote
from labeller.core.build import RecordResult, resolve_record
from labeller.core.context import locator_needles, pick_occurrences
from labeller.core.fixes import MOVED, NEAREST, Fix, Left
from labeller.core.heading_edits import heading_fix, heading_fixes, section_kept
from labeller.core.last_build import LastBuild
from labeller.core.models import Locator, Question
from labeller.core.moves import (ANYWHERE, MOVABLE, NOTHING_THERE, grouped, is_move, move_groups,
                                 pinned_to_each)
from labeller.core.old_place import OldPlaces, kept_score
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Resolver
from labeller.core.suggest import MIN_SCORE, NEAREST_SPENT, close_to_best
from labeller.core.vocab import Place, RefusalKind
from labeller.core.where_it_stood import at_old_place, moved_to_where_it_stood, where_it_went
from labeller.errors import InvalidInput

DEFAULT_MIN_SCORE = 80.0
DEFAULT_MIN_KEPT = 60.0  # the share of the quote a passage where it stood keeps, at least (core.where_it_stood)


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

    def left_by_doc(self) -> list[dict]:
        """The locators left, counted per document they name and per refusal kind, most first
        (then by name): after a reorganisation most of what is left shares a few gone pages
        (Vue's docs: 208 locators left, most of them in pages no page is paired with), which a
        list of the first locators alone does not show."""
        counts: dict[str | None, Counter[str]] = {}
        for x in self.left:
            counts.setdefault(x.locator.doc, Counter())[x.kind] += 1
        rows = [{"doc": doc, "left": kinds.total(), "kinds": dict(sorted(kinds.items()))}
                for doc, kinds in counts.items()]
        return sorted(rows, key=lambda r: (-r["left"], r["doc"] is None, r["doc"] or ""))

    def as_json(self) -> dict:
        return {"applied": [f.as_json() for f in self.fixes], "left": [x.as_json() for x in self.left],
                "left_by_doc": self.left_by_doc(), "summary": self.summary()}


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


# Asked about each locator the plan left that has suggestions (the record, why it was left, the
# suggestions ranked by ``offered``): the one a person picks, or None to leave it; it raises
# ``NoMorePicks`` to leave every one not yet asked about (the prompt's input ended).
Pick = Callable[[Question, Left, list[Fix]], Fix | None]


class NoMorePicks(Exception):
    """Raised by a ``Pick``: nothing more will be picked, so nothing more is offered (each offer
    costs a plan of its record: after a reorganisation, hundreds of them)."""


def with_picks(project: Project, plan: RepairPlan, records: Iterable[RecordResult], pick: Pick, *,
               moves_only: bool = False, min_score: float = DEFAULT_MIN_SCORE, min_kept: float = DEFAULT_MIN_KEPT,
               last_build: LastBuild | None = None) -> None:
    """Offer each locator ``plan`` left (not declined) ``offered``'s suggestions, best first, and
    add the ones ``pick`` returns to the plan, each resolved again in its record as repaired so
    far first (``_verified``: one the build would refuse stays left, saying why). What ``repair``
    leaves for a person ("2 nearest passages score 80 or more: a person picks one") is then picked
    at the prompt (``repair --interactive``) from the same ranked list the app shows.
    ``moves_only``: only moved suggestions are offered (``--moves`` changes no quote)."""
    by_id = {rec.question.id: rec for rec in records}
    picked: dict[str, list[Fix]] = {}
    for x in list(plan.left):
        rec = by_id.get(x.record_id)
        if x.kind == "declined" or x.index is None or rec is None:
            continue
        refusal = next((r for r in rec.refusals if r.locator == x.locator), None)
        if refusal is None:
            continue
        now = plan.after.get(x.record_id, rec.question)
        offers = [f for f in offered(project, rec.question, refusal, min_score=min_score, min_kept=min_kept,
                                     last_build=last_build).fixes if f.kind == MOVED or not moves_only]
        try:
            choice = pick(now, x, offers) if offers else None
        except NoMorePicks:
            break
        if choice is not None:
            plan.left.remove(x)
            picked.setdefault(x.record_id, []).append(replace(choice, index=x.index))
    questions = {rid: plan.after.get(rid, by_id[rid].question) for rid in picked}
    for rid, fixes in _verified(project, questions, picked, plan.left).items():
        plan.before.setdefault(rid, by_id[rid].question)
        plan.after[rid] = repaired(questions[rid], fixes)
        plan.fixes += fixes
    position = {rid: i for i, rid in enumerate(by_id)}
    plan.fixes.sort(key=lambda f: (position[f.record_id], f.index))
    plan.after = {rid: plan.after[rid] for rid in sorted(plan.after, key=position.__getitem__)}
    plan.before = {rid: plan.before[rid] for rid in plan.after}
    plan.left.sort(key=lambda x: (position[x.record_id], x.index if x.index is not None else -1))


def fix_groups(fixes: Iterable[Fix], refusals: Iterable[Refusal] = ()) -> list[dict]:
    """The moves among ``fixes`` grouped per pair of documents as the build groups its moved
    suggestions (``core.moves.grouped``), each group with the rename note the build gave its
    pair (``refusals``' moves): what ``repair`` applies, as its reports and the app's F5 list it."""
    about = {(g["from"], g["to"]): g for g in move_groups(list(refusals))}
    return grouped((f.record_id, f.old.doc or "", f.new.doc or "", about.get((f.old.doc, f.new.doc), {}))
                   for f in fixes if f.kind == MOVED)


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
    others += _pinned_moves(project.resolver, refusal, index)
    scored = [_nearest_fix(refusal, index, s) for s in refusal.suggestions if "score" in s and "quote" in s]
    scored += heading_fixes(refusal, index)
    if last_build is not None and repairable(refusal):
        old = at_old_place(project.resolver, refusal, index, 0.0, 0.0, last_build, OldPlaces())
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
    if moves and refusal.locator.heading is not None and not moves[0].get("renamed"):
        return _section_moved(resolver, _moved_fix(refusal, index, moves[0]), min_kept, last_build)
    if moves:
        return _moved_fix(refusal, index, moves[0])
    if len(refusal.found_in) == 1 and last_build is not None:
        moved = moved_to_where_it_stood(resolver, refusal, index, min_kept, min_score, last_build, old_places)
        if isinstance(moved, Fix):
            return moved
        return f"the quote is verbatim several times in {refusal.found_in[0]}: a person picks one; {moved}"
    if refusal.found_in:
        return f"the quote is verbatim in {len(refusal.found_in)} other documents ({', '.join(refusal.found_in)}): " \
               "a person picks one"
    if moves_only:
        return "no moved suggestion (the quote is not verbatim in one other document)"
    if refusal.kind == RefusalKind.AMBIGUOUS and last_build is not None:
        old = at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places)
        if old is not None and old.fix is not None:
            return old.fix
        return f"{refusal.kind}: {refusal.message}" + (f"; {old.reason}" if old is not None else "")
    if refusal.kind not in (RefusalKind.NOT_FOUND, RefusalKind.UNKNOWN_DOC):
        return f"{refusal.kind}: no suggestion repair applies ({refusal.message})"
    if refusal.locator.heading is not None:  # a section locator: its heading edited
        return heading_fix(resolver, refusal, index, min_score, min_kept, last_build, MIN_SCORE, NEAREST_SPENT,
                           old_places)
    if any(s.get(ANYWHERE) for s in refusal.suggestions):
        went = where_it_went(resolver, refusal, index, min_kept, last_build, old_places) if last_build else None
        if went is not None:
            return went
        why = "the document paired with it holds nothing like the quote" if NOTHING_THERE in refusal.message \
            else "no document is paired with it"
        return f"its document is gone and {why}: a nearest passage from the whole corpus is for a person to pick"
    old = at_old_place(resolver, refusal, index, min_kept, min_score, last_build, old_places) if last_build \
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
    keeps none of the quote's words, where it stood or moved (``OldPlace.deleted``); a nearest
    passage must then also keep ``min_score`` of the quote (``kept_score``), not only resemble
    it. Resemblance is a window's likeness, which a new sentence sharing the quote's first
    words reaches: Material's "always stretch to the right side," (a feature's paragraph,
    deleted) scored 80.0 against another feature's new note, "always stretch to the available
    screen", which keeps 64.3 of it; Homebrew's "binary packages (bottles) are built on" (the
    sponsors' paragraph, deleted) 81.6 against "binary packages (bottles) which will not".
    ``stood``: where the page's comparison put any of the quote's words (``OldPlace.place``,
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


def _section_moved(resolver: Resolver, fix: Fix, min_kept: float, last_build: LastBuild | None) -> Fix | str:
    """A gone page's section moved where its title heads a section of one other document
    (``moves.SectionsElsewhere``), applied only where that section holds ``min_kept`` of the
    text the old one held at the last build: a title alone ("Usage", "Layout") is no evidence.
    The bar is the heading repairs' (``heading_edits``): on the twenty-two histories it took 30
    distinct sections, each read right (Vue 3 kept "Global Registration" over rewritten text), and
    ``--min-score``'s 80 lost 9 of them; two unrelated one-line sections score about 50."""
    doc = fix.new.doc
    kept = section_kept(resolver, last_build, fix) if last_build is not None else None
    if kept is None:
        return f"its title heads a section of {doc} alone, and the section's text at the last build is not known: " \
               "a person checks it"
    if kept < min_kept:
        return f"its title heads a section of {doc} alone, and that section keeps {kept}% of the section's text " \
               f"at the last build, below {min_kept:g}"
    return fix


def _pinned_moves(resolver: Resolver, refusal: Refusal, index: int) -> list[Fix]:
    """A quote verbatim in several other documents, or several times in one (SPEC §13: ambiguous,
    no moved suggestion): a move to each of those documents where it occurs once (the locator, its
    document changed, resolves), or to each occurrence in the one, pinned by its shortest context
    (``context.pick_occurrences``; the quote, so the span, unchanged), for a person to pick: the
    copies no signal tells apart (Poetry's ``[project]`` and ``[tool.poetry]`` tables) are then
    one key away. ``repair`` applies none of them on its own."""
    loc = refusal.locator
    if not refusal.found_in or loc.quote is None:
        return []
    rid = str(refusal.record_id)
    if len(refusal.found_in) == 1:
        doc = refusal.found_in[0]
        found = resolver.locate(loc.model_copy(update={"doc": doc}), rid) if doc in resolver.corpus.docs else None
        if not isinstance(found, Refusal):
            return []
        pins = pick_occurrences(resolver.index, loc, list(found.places))  # one search of the page for all
        return [Fix(rid, index, MOVED, loc, new, occurrence=resolver.corpus[doc].where(place.start))
                for place, new in pins.items() if new is not None]
    return [Fix(rid, index, MOVED, loc, new) for new, _ in pinned_to_each(resolver, loc, refusal.found_in, rid)]


def _nearest_fix(refusal: Refusal, index: int, sug: dict) -> Fix:
    """A nearest passage of the build as a fix: the passage, pinned to its document."""
    loc = refusal.locator
    new = Locator(doc=sug["doc"], quote=sug["quote"], exact=loc.exact)
    return Fix(str(refusal.record_id), index, NEAREST, loc, new, sug["score"])


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
