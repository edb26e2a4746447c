"""Moved labels: a refused quote found verbatim in another document (SPEC §13).

A locator whose document is gone (``unknown_doc``) or whose quote is no longer in its
document (``not_found``) is looked for, quote and context as they are (§2's folding, the
prefix and suffix honoured), in the rest of the corpus. Found once: a suggestion of kind
``moved`` (the document changes, nothing else). Found in several places: no suggestion, the
documents listed (``Refusal.found_in``), since picking one would be a guess. A gone document
that was renamed (``renames.renamed_docs``: git's pairing, else the content's) marks its moves
``renamed`` so that reports group them per file, and when its quote was also edited, the
nearest passages are looked for in the renamed file; a gone document nothing pairs (a page
renamed and rewritten: Vue's guide for Vue 3, every page moved into a section folder and
reworded), or whose renamed file holds nothing like the quote (a page split in two, the pairing
picking the other half: Vue's style guide split into four pages), has its quote's nearest
passages looked for in the whole corpus, within a budget of their own, each marked
``anywhere``: a person may pick one (the app lists them); ``repair`` applies none for its
likeness (measured on Vue's history: such passages scoring 80 were as often a generic phrase
elsewhere, "you can think of", or its opposite, "This means you cannot", as the sentence
edited), only where the page it stands in, compared with the gone page as it was, shows the
quote's paragraph went there (``core.repair``).

A section or document locator (no quote to search) of a renamed document moves along the
rename, when its heading is found once in the renamed file; a section locator of a gone document
nothing pairs is moved where its title heads a section of exactly one other document.

Nothing here re-points a label: the build still refuses, and only the author applies a
suggestion (the app, or ``labeller repair`` through ``core.repair``). All refused locators are
searched in one multi-pattern pass over the corpus (``QuoteIndex.find_all``), never one scan
per quote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from labeller.core.anchors import Hits, fold_quote
from labeller.core.committed import read_committed
from labeller.core.context import context_needle, locator_needles
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.renames import Renames, renamed_docs
from labeller.core.resolve import Refusal, Resolver, Span
from labeller.core.suggest import (BUILD_HELP_BUDGET, MIN_SCORE, NEAREST_SPENT, RECORD_HELP_BUDGET, WorkBudget,
                                   suggest)
from labeller.core.vocab import Place, RefusalKind
from labeller.errors import InvalidInput
from labeller.io import parse_json

MOVED = "moved"  # a suggestion's ``kind``
ANYWHERE = "anywhere"  # a gone document's nearest passage looked for in the whole corpus (see above)
MOVABLE = (RefusalKind.UNKNOWN_DOC, RefusalKind.NOT_FOUND)
MAX_FOUND_IN = 20  # documents listed for a quote found in several
MAX_TITLE_DOCS = 50  # documents a gone section's title is resolved in, at most (each is one section lookup)
MAX_SECTION_LOOKUPS = 5_000  # (title, document) section lookups a build makes for gone sections, at most
# said of a gone page's quote when the page paired with it holds no passage like it (a page split in two)
NOTHING_THERE = "nothing like the quote there: nearest passages from the whole corpus"


def movable(refusal: Refusal) -> bool:
    """A quote locator refused for its document: searched for elsewhere."""
    loc = refusal.locator
    return refusal.kind in MOVABLE and loc.quote is not None and loc.doc is not None


def renamable(refusal: Refusal) -> bool:
    """A section or document locator whose document is gone: moved only along a rename."""
    return refusal.kind == RefusalKind.UNKNOWN_DOC and refusal.locator.quote is None


def is_move(suggestion: dict) -> bool:
    return suggestion.get("kind") == MOVED


def find_moves(project: Project, refusals: list[Refusal]) -> list[Refusal]:
    """``refusals`` in order, each movable one with its moved suggestion (first) or the
    documents that hold its quote (``found_in``), and a gone document's rename said."""
    todo = [r for r in refusals if movable(r)]
    if not todo and not any(renamable(r) for r in refusals):
        return refusals
    resolver = project.resolver
    titles = [needle for r in refusals if renamable(r) and (needle := _title_needle(r.locator)) is not None]
    found = resolver.index.find_all(locator_needles(r.locator for r in todo) + titles)
    renames = Renames()
    gone = [r for r in refusals if r.kind == RefusalKind.UNKNOWN_DOC and r.locator.doc is not None]
    if gone:
        evidence: dict[str, Counter[str]] = {}
        for r in gone:
            assert r.locator.doc is not None
            counts = evidence.setdefault(r.locator.doc, Counter())
            if movable(r):
                counts.update(_hits(r, found).counts.keys())
        renames = renamed_docs(project.config, committed_docs(project),
                               {d.doc_id: d.sha256 for d in project.corpus}, evidence,
                               lambda doc_id: project.corpus[doc_id].text)
    budget = WorkBudget(BUILD_HELP_BUDGET)  # the nearest passages in renamed files: a build's budget of their own
    anywhere = WorkBudget(BUILD_HELP_BUDGET)  # ... and those of gone files nothing pairs: another, so neither starves
    sections = SectionsElsewhere(resolver, found)
    return [_with_move(resolver, r, found, renames, budget, anywhere) if movable(r)
            else _along_rename(resolver, r, renames, sections) if renamable(r) else r for r in refusals]


def _title_needle(loc: Locator) -> str | None:
    """A section locator's title as the corpus search looks for it (folded as a quote)."""
    if loc.heading is None:
        return None
    try:
        return fold_quote(loc.heading)
    except InvalidInput:  # a title no quote could be (blank once folded)
        return None


def _along_rename(resolver: Resolver, refusal: Refusal, renames: Renames, sections: SectionsElsewhere) -> Refusal:
    """A section or document locator of a renamed document: moved there when it resolves there
    (the heading found once in the renamed file); a heading not found there gets the renamed
    file's nearest headings. A section locator of a gone document nothing pairs is looked for
    in the others (``SectionsElsewhere``)."""
    loc = refusal.locator
    assert loc.doc is not None  # renamable: unknown_doc names a doc
    target = renames.target(loc.doc)
    if target is None:
        return sections.moved(refusal)
    refusal = replace(refusal, renamed_to=(target, renames.by[loc.doc]))
    span = resolver.resolve(loc.model_copy(update={"doc": target}), refusal.record_id)
    renamed = f"renamed to {target} ({renames.by[loc.doc]}'s pairing)"
    if not isinstance(span, Span):
        refusal = replace(refusal, message=_join(refusal.message, renamed, f"not there: {span.message}"))
        if span.kind != RefusalKind.NOT_FOUND or loc.heading is None:
            return refusal
        # the heading edited too: the renamed file's nearest headings (``heading_edits``)
        helped = suggest(resolver, replace(span, record_id=refusal.record_id))
        return replace(refusal, suggestions=helped.suggestions, suggested_places=helped.suggested_places)
    sug = {"kind": MOVED, "from": loc.doc, "doc": target, "where": resolver.corpus[target].where(span.start),
           "unique": True, "renamed": True, "paired_by": renames.by[loc.doc]}
    if loc.heading is not None:
        sug["heading"] = loc.heading
    return replace(refusal, message=_join(refusal.message, renamed), suggestions=[sug, *refusal.suggestions],
                   suggested_places=(span.place, *refusal.suggested_places))


class SectionsElsewhere:
    """Section locators of gone documents nothing pairs (a page merged into another: Material's
    ``reference/abbreviations.md`` into ``tooltips.md``), their titles unchanged: a moved
    suggestion when the title heads a section of exactly one other document, as a quote verbatim
    in exactly one other document is one. A title is shorter than a quote and often generic
    ("Usage"), so ``repair`` applies it only where that section still holds the text the old one
    held (``core.repair``); a title heading sections of several documents is said, and left.

    Each (title, document) is looked up once, and at most ``MAX_SECTION_LOOKUPS`` in a build: a
    planted questions file of ten thousand gone sections, titled with a word every page holds,
    must not cost ten thousand section parses per page."""

    def __init__(self, resolver: Resolver, found: dict[str, Hits]) -> None:
        self.resolver = resolver
        self.found = found
        self.looked: dict[tuple[str, str], Span | None] = {}

    def moved(self, refusal: Refusal) -> Refusal:
        loc = refusal.locator
        needle = _title_needle(loc)
        hits = self.found.get(needle) if needle is not None else None
        if hits is None or not hits.counts or loc.heading is None:
            return refusal
        docs = sorted(hits.counts)
        if len(docs) > MAX_TITLE_DOCS:
            return replace(refusal, message=_join(refusal.message, f"no document is paired with it, and its title is "
                                                  f"in {len(docs)} other documents: not looked for as a heading"))
        if len(self.looked) + len(docs) > MAX_SECTION_LOOKUPS and any((loc.heading, d) not in self.looked
                                                                      for d in docs):
            return replace(refusal, message=_join(refusal.message, "no document is paired with it, and the build's "
                                                  "budget for looking for gone sections by title is spent"))
        spans = [span for doc in docs if (span := self._section(loc, doc, refusal.record_id)) is not None]
        if len(spans) > 1:
            listed = ", ".join(s.doc_id for s in spans)
            return replace(refusal, message=_join(refusal.message, f"no document is paired with it, and its title "
                                                  f"heads a section in {len(spans)} other documents ({listed}): a "
                                                  "person picks one"))
        if not spans:
            return refusal
        span = spans[0]
        sug = {"kind": MOVED, "from": loc.doc, "doc": span.doc_id, "heading": loc.heading, "unique": True,
               "where": self.resolver.corpus[span.doc_id].where(span.start), "renamed": False}
        note = f"no document is paired with it; its title heads a section of {span.doc_id} alone: a moved suggestion"
        return replace(refusal, message=_join(refusal.message, note), suggestions=[sug, *refusal.suggestions],
                       suggested_places=(span.place, *refusal.suggested_places))

    def _section(self, loc: Locator, doc: str, record_id: str | None) -> Span | None:
        assert loc.heading is not None
        key = (loc.heading, doc)
        if key not in self.looked:
            found = self.resolver.resolve(loc.model_copy(update={"doc": doc}), record_id)
            self.looked[key] = found if isinstance(found, Span) else None
        return self.looked[key]


def committed_docs(project: Project) -> dict[str, str]:
    """The last build's documents, ``{doc_id: sha256}``, from the committed manifest (empty when
    it is missing or damaged: then nothing is paired by content)."""
    try:
        data = read_committed(project.config.layout.manifest)
        manifest = parse_json(data, str(project.config.layout.manifest)) if data is not None else None
    except (OSError, InvalidInput):
        return {}
    docs = manifest.get("docs") if isinstance(manifest, dict) else None
    if not isinstance(docs, dict):
        return {}
    return {str(d): str(info.get("sha256")) for d, info in docs.items() if isinstance(info, dict)}


def _hits(refusal: Refusal, found: dict[str, Hits]) -> Hits:
    """The counted occurrences of the locator's quote (in its context, if it has one)."""
    loc = refusal.locator
    assert loc.quote is not None  # movable
    return found.get(context_needle(loc) or fold_quote(loc.quote)) or Hits()


def _with_move(resolver: Resolver, refusal: Refusal, found: dict[str, Hits], renames: Renames,
               budget: WorkBudget, anywhere: WorkBudget) -> Refusal:
    loc = refusal.locator
    old = loc.doc
    assert old is not None  # movable
    target = renames.target(old) if refusal.kind == RefusalKind.UNKNOWN_DOC else None
    paired = ""
    if target is not None:
        paired = f"renamed to {target} ({renames.by[old]}'s pairing)"
        refusal = replace(refusal, renamed_to=(target, renames.by[old]))
    place = resolver.locate(loc.model_copy(update={"doc": None}), refusal.record_id, found)
    if isinstance(place, Place):
        sug = moved_suggestion(resolver, refusal, place, target == place.doc, renames.by.get(old))
        note = f"the quote occurs verbatim once in {place.doc}: a moved suggestion"
        return replace(refusal, message=_join(refusal.message, paired, note),
                       suggestions=[sug, *refusal.suggestions], suggested_places=(place, *refusal.suggested_places))
    if place.kind == RefusalKind.AMBIGUOUS:
        hits = _hits(refusal, found)
        docs = sorted(hits.counts)
        listed = ", ".join(docs[:MAX_FOUND_IN]) + (f" and {len(docs) - MAX_FOUND_IN} more" if len(docs) > MAX_FOUND_IN
                                                   else "")
        where = (f"{hits.total} times in {docs[0]}" if len(docs) == 1
                 else f"in {len(docs)} other documents ({listed})")
        refusal = replace(refusal, found_in=tuple(docs[:MAX_FOUND_IN]), message=_join(
            refusal.message, f"the quote occurs verbatim {where}: ambiguous, no move suggested"))
    if target is None and (refusal.kind != RefusalKind.UNKNOWN_DOC or refusal.found_in):
        return refusal
    helped = None
    if target is not None:
        helped = _nearest_in(resolver, refusal, target, budget)
        # none there: a page split in two, the quote's part gone to a page the pairing did not pick
        if not _holds_like(helped) and NEAREST_SPENT not in helped.message:
            paired = _join(paired, NOTHING_THERE)
            helped = None
    else:  # a gone page nothing pairs (renamed and rewritten past git's and the content's bars)
        paired = "no document is paired with it: nearest passages from the whole corpus"
    if helped is None:
        helped = _nearest_in(resolver, refusal, None, anywhere)
        helped = replace(helped, suggestions=[{**sug, ANYWHERE: True} for sug in helped.suggestions])
    return replace(refusal, message=_join(refusal.message, paired, helped.message.lstrip("; ")),
                   suggestions=helped.suggestions, suggested_places=helped.suggested_places)


def _holds_like(helped: Refusal) -> bool:
    """Whether a renamed file's help holds something like the quote: a passage scoring at least
    ``suggest.MIN_SCORE`` once cut to its block (a chunk passes that bar on its best window, and
    the piece cut from it may not: Vue's style guide, split in four, was paired with the index
    half, whose front matter ``outline: deep`` stood for a bold rule at 5.0), or an occurrence
    of the quote in other contexts (no score)."""
    return any(s.get("score", MIN_SCORE) >= MIN_SCORE for s in helped.suggestions)


def _nearest_in(resolver: Resolver, refusal: Refusal, doc: str | None, budget: WorkBudget) -> Refusal:
    """The quote's nearest passages in ``doc`` (the whole corpus: None), within ``budget``."""
    return suggest(resolver, replace(refusal, kind=RefusalKind.NOT_FOUND, locator=refusal.locator.model_copy(
        update={"doc": doc}), message=""), budget.share(RECORD_HELP_BUDGET))


def moved_suggestion(resolver: Resolver, refusal: Refusal, place: Place, renamed: bool, by: str | None) -> dict:
    """SPEC §13's ``moved``: the locator as it was, in another document."""
    loc = refusal.locator
    assert loc.doc is not None and loc.quote is not None  # movable
    out = {"kind": MOVED, "from": loc.doc, "doc": place.doc, "quote": loc.quote,
           "where": resolver.corpus[place.doc].where(place.start), "unique": True, "renamed": renamed}
    out |= {k: v for k, v in (("prefix", loc.prefix), ("suffix", loc.suffix)) if v is not None}
    if renamed and by is not None:
        out["paired_by"] = by
    return out


def pinned_to_each(resolver: Resolver, loc: Locator, docs: Iterable[str],
                   record_id: str | None = None) -> list[tuple[Locator, Place]]:
    """``loc`` pinned to each of ``docs`` (a corpus document) where it then resolves, and where:
    a quote several documents hold, once in each of these, offered as one pick per document (the
    app's pins for a quote with no document, ``repair``'s moves for a quote gone to several)."""
    out = []
    for doc in docs:
        if doc in resolver.corpus.docs:
            pinned = loc.model_copy(update={"doc": doc})
            found = resolver.locate(pinned, record_id)
            if isinstance(found, Place):
                out.append((pinned, found))
    return out


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def move_groups(refusals: list[Refusal]) -> list[dict]:
    """The moved suggestions grouped by (old document, new document), the largest group first:
    ``{"from", "to", "renamed", "paired_by"?, "labels", "records", "several"}`` (``records``: the
    ids, in file order). ``several``: the pair's labels whose quote the new document holds several
    times (``Refusal.found_in`` naming it alone): no moved suggestion (SPEC §13), but ``repair
    --moves`` pins each where it stood when it can tell which (``core.repair``), so a report of
    the pair counts them apart rather than leaving the reader to find the plan larger than
    the group (Poetry's ``cli.md``: 29 moves and 3 such labels, 32 in the app's plan)."""
    several = Counter((r.locator.doc, r.found_in[0]) for r in refusals
                      if movable(r) and len(r.found_in) == 1 and not any(is_move(s) for s in r.suggestions))
    groups = grouped(((r.record_id, s["from"], s["doc"], s) for r in refusals for s in r.suggestions if is_move(s)),
                     several)
    # a pair whose labels are all held several times has no moved suggestion to carry its rename
    renamed = {(r.locator.doc, r.renamed_to[0]): r.renamed_to[1] for r in refusals if r.renamed_to is not None}
    for g in groups:
        by = renamed.get((g["from"], g["to"]))
        if by is not None and not g["renamed"]:
            g["renamed"], g["paired_by"] = True, by
    return groups


def grouped(moves: Iterable[tuple[str | None, str, str, dict]],
            several: Mapping[tuple[str | None, str], int] | None = None) -> list[dict]:
    """Moves ``(record id, old document, new document, what is known of the pair)`` grouped as
    ``move_groups`` does; what is known: ``renamed`` (false when not said) and ``paired_by``.
    ``several``: given, every group has it (0 when none), and a pair only it names is a group."""
    groups: dict[tuple[str, str], dict] = {}

    def group(old: str, new: str) -> dict:
        return groups.setdefault((old, new), {"from": old, "to": new, "renamed": False, "labels": 0, "records": []})

    for rid, old, new, about in moves:
        g = group(old, new)
        g["renamed"] = g["renamed"] or bool(about.get("renamed"))
        if "paired_by" in about:
            g["paired_by"] = about["paired_by"]
        g["labels"] += 1
        if rid not in g["records"]:
            g["records"].append(rid)
    if several is not None:
        for g in groups.values():
            g["several"] = 0
        for (gone, there), n in several.items():
            if gone is not None:
                group(gone, there)["several"] = n
    return sorted(groups.values(), key=lambda g: (-g["labels"] - g.get("several", 0), g["from"], g["to"]))


def group_line(group: dict) -> str:
    """``ch17-03.md → ch18-03.md: 9 labels (renamed, paired by git)``, and ``; 2 more whose quote
    it holds several times`` (``move_groups``' ``several``); a pair with only those: ``… 2 labels
    whose quote it holds several times (renamed, paired by git)``."""
    n, k = group["labels"], group.get("several", 0)
    how = f" (renamed, paired by {group['paired_by']})" if group["renamed"] and "paired_by" in group else ""
    several = f"{k} label{'s' * (k != 1)} whose quote it holds several times"
    if not n:
        return f"{group['from']} → {group['to']}: {several}{how}"
    return f"{group['from']} → {group['to']}: {n} label{'s' * (n != 1)}{how}" + (
        f"; {k} more whose quote it holds several times" if k else "")
