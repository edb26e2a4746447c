"""Placing a pipeline's text on the corpus (SPEC §10.1): one locator for every path that
takes passages a pipeline wrote — chunk files, a retriever callable's results, the
contexts of a synthetic test set.

A label's quote is the author's own copy of the source and stays strict (SPEC §2); a
pipeline's passage is what its loader made of the source, so it is placed in tiers, the
first that finds it winning, and the tier is recorded with the place so every report can
say how much of a chunking was placed by which rule:

1. ``exact`` — as a quote (whitespace runs fold);
2. ``rendered`` — in the document's rendered text (``rendered.render``), typographic
   variants folded;
3. ``aligned`` — the passage's words aligned in order to the document's words (of its
   source, else of its rendered text; ``aligned.align``), accepted from ``min_share`` of
   them matched.

Passages come in order when a pipeline emitted them in order (a chunk file, one ranking):
then a passage found several times in its document takes the first occurrence starting at
or after the previous passage of that document, which is what the splitter meant. A passage
is refused only when no tier finds it, or when it is found several times and order cannot
decide (no document named and several documents have it; or every occurrence lies before
the previous passage).

Each tier searches all its passages in one pass per document (an Aho-Corasick automaton of
their first ``PREFIX`` characters, each candidate then compared whole), and renders or
reads the words of only the documents a later tier needs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import LCSseq

from labeller.core.anchors import QuoteIndex, automaton, fold_text
from labeller.core.canon import canonical_fragment
from labeller.core.corpus import Corpus
from labeller.core.passages.added import REGION_FLOOR, SPAN_FACTOR, SPAN_SLACK, cuts, joins_before, region_floor
from labeller.core.passages.aligned import WORD, Alignment, DocWords, WordIndex, align, dense, words
from labeller.core.passages.rendered import RenderedText, fold_passage, render
from labeller.core.vocab import Place

TIERS = ("exact", "rendered", "aligned")
MIN_SHARE = 0.95
# The rules' version: part of every cached placement's key (the rendering, the folding,
# the alignment and the order rule all decide where a passage lands).
LOCATOR_VERSION = "passages-v4"
PREFIX = 64  # passages are searched by their first PREFIX folded characters, then compared whole
MAX_OCCURRENCES = 10_000  # kept per passage and document: the order rule needs more than the first
MAX_LISTED = 10  # occurrences named in a refusal


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a passage was placed, and by which tier (``share``: the matched share of its
    words, for ``aligned``). ``added_before`` / ``added_after``: the characters of the
    passage (its canonical text) before and after the part placed — text the pipeline added
    (SPEC §10.1 *Added text*); the place is the source range of that part alone."""

    place: Place
    tier: str
    share: float | None = None
    added_before: int = 0
    added_after: int = 0

    @property
    def added(self) -> bool:
        return bool(self.added_before or self.added_after)


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage to place (``text``), in ``doc`` or anywhere; or, with ``place``, a passage
    whose place is known (a chunk given by offsets), which only moves the order on."""

    doc: str | None
    text: str | None = None
    place: Place | None = None


class PassageLocator:
    """Places passages on one corpus; the rendered texts and word lists it makes are kept
    for its later calls."""

    def __init__(self, corpus: Corpus, index: QuoteIndex | None = None, min_share: float = MIN_SHARE) -> None:
        if not 0 < min_share <= 1:
            raise ValueError(f"min_share must be in (0, 1], got {min_share}")
        self.corpus = corpus
        self.index = index or QuoteIndex(corpus)
        self.min_share = min_share
        self._rendered: dict[str, RenderedText] = {}
        self._words: WordIndex | None = None

    def rendered(self, doc_id: str) -> RenderedText:
        found = self._rendered.get(doc_id)
        if found is None:
            found = self._rendered[doc_id] = render(self.corpus[doc_id].text)
        return found

    def place(self, passages: Sequence[Passage], ordered: bool) -> list[Placement | str | None]:
        """Each passage's placement, or why it has none (a sentence); None for a passage
        given by its place.

        In order, a passage that names its document is searched from where the previous
        one of that document was found (``_in_order``): a splitter's next chunk starts a
        little later, so each search reads a few hundred characters, not the document.
        The others are searched all at once, one automaton pass per tier."""
        todo = [i for i, p in enumerate(passages) if p.place is None and p.text is not None]
        batch = [i for i in todo if not ordered or passages[i].doc is None]
        found: dict[int, tuple[str, list[_Candidate]]] = {}
        exact = {i: fold_text(canonical_fragment(passages[i].text or "")) for i in batch}
        self._search("exact", exact, passages, found, self._exact_texts)
        left = [i for i in batch if i not in found]
        rendered = {i: fold_passage(canonical_fragment(passages[i].text or "")) for i in left}
        self._search("rendered", {i: n for i, n in rendered.items() if n}, passages, found, self._rendered_texts)
        for i in (i for i in batch if i not in found):
            self._align(i, passages[i], found)
        out: list[Placement | str | None] = []
        previous: dict[str, int] = {}  # doc -> start of its last placed passage
        in_batch = set(batch)
        resume: dict[tuple[str, str], tuple[int, int]] = {}  # (tier, doc) -> last match: (source start, tier offset)
        for i, p in enumerate(passages):
            if p.place is not None:
                previous[p.place.doc] = p.place.start
                out.append(None)
                continue
            if i in in_batch:
                got = self._choose(p, found.get(i), previous if ordered else None)
            else:
                got = self._in_order(p, previous, resume, aligned=False)
                if got is _NOT_LITERAL:  # text added around a source part is cheaper to find than an alignment
                    got = self._literal_part(p, previous, resume) or self._in_order_aligned(p, previous)
            if isinstance(got, Placement):
                got = self._verified(canonical_fragment(p.text or ""), got)
            if isinstance(got, Placement) and got.tier == "aligned":
                got = self._lead_trimmed(canonical_fragment(p.text or ""), got, previous if ordered else {})
            if not isinstance(got, Placement) and not got.startswith("text is ambiguous"):
                got = self._with_added(p, got, previous if ordered else {}, resume)
            if isinstance(got, Placement):
                previous[got.place.doc] = got.place.start
            out.append(got)
        return out

    def _in_order(self, p: Passage, previous: dict[str, int], resume: dict[tuple[str, str], tuple[int, int]],
                  aligned: bool = True, tiers: tuple[str, ...] = TIERS[:2]) -> Placement | str:
        """A passage of a named document, in file order: the first occurrence at or after
        the previous passage of that document, tier by tier; a tier that finds it only
        before falls back to the general choice (unique, or refused as ambiguous)."""
        assert p.doc is not None and p.text is not None
        doc, prev = p.doc, previous.get(p.doc, 0)
        fragment = canonical_fragment(p.text)
        for tier in tiers:
            needle = fold_text(fragment) if tier == "exact" else fold_passage(fragment)
            if not needle:
                continue
            folded, to_place = self._exact_view(doc) if tier == "exact" else self._rendered_view_places(doc)
            at_source, at = resume.get((tier, doc), (0, 0))
            pos = folded.find(needle, at if at_source <= prev else 0)
            while pos != -1:
                place = to_place(pos, len(needle))
                if place.start >= prev:
                    resume[(tier, doc)] = (place.start, pos)
                    return Placement(place, tier)
                pos = folded.find(needle, pos + 1)
            cands = [_Candidate(to_place(q, len(needle))) for q in _occurrences(folded, needle)]
            if cands:
                return self._choose(p, (tier, cands), previous)
        return self._in_order_aligned(p, previous) if aligned else _NOT_LITERAL

    def _in_order_aligned(self, p: Passage, previous: dict[str, int]) -> Placement | str:
        found: dict[int, tuple[str, list[_Candidate]]] = {}
        self._align(0, p, found)
        return self._choose(p, found.get(0), previous)

    # -- tiers 1 and 2: literal search ----------------------------------------------------

    def _exact_view(self, doc_id: str) -> tuple[str, Callable[[int, int], Place]]:
        """A document's whitespace-folded text, and the place of a match in it."""
        fd = self.index.folded(doc_id)
        text, folded = fd.doc.text, fd.folded

        def to_place(fstart: int, flen: int) -> Place:
            occ = fd.occurrence(fstart, flen)
            end = occ.end
            if folded[fstart + flen - 1] == " ":  # a trailing whitespace run is matched whole
                while end < len(text) and text[end].isspace():
                    end += 1
            return Place(occ.doc_id, occ.start, end)

        return folded, to_place

    def _rendered_view_places(self, doc_id: str) -> tuple[str, Callable[[int, int], Place]]:
        """A document's rendered text, and the source place of a match in it."""
        r = self.rendered(doc_id)
        return r.text, lambda fstart, flen: Place(doc_id, *r.span(fstart, fstart + flen))

    def _exact_texts(self, docs: Iterable[str]) -> Iterable[tuple[str, str, Callable[[int, int], Place]]]:
        return ((d, *self._exact_view(d)) for d in docs)

    def _rendered_texts(self, docs: Iterable[str]) -> Iterable[tuple[str, str, Callable[[int, int], Place]]]:
        return ((d, *self._rendered_view_places(d)) for d in docs)

    def _search(self, tier: str, needles: dict[int, str], passages: Sequence[Passage],
                found: dict[int, tuple[str, list[_Candidate]]],
                texts: Callable[[Iterable[str]], Iterable[tuple[str, str, Callable[[int, int], Place]]]]) -> None:
        """Every occurrence of each needle in its document (or anywhere), into ``found``."""
        if not needles:
            return
        by_prefix: dict[str, set[str]] = {}
        for needle in needles.values():
            by_prefix.setdefault(needle[:PREFIX], set()).add(needle)
        auto = automaton(sorted(by_prefix))
        wanted = {passages[i].doc for i in needles}
        docs = self.corpus.docs if None in wanted else sorted(d for d in wanted if d is not None)
        hits: dict[str, dict[str, list[Place]]] = {}  # needle -> doc -> places
        for doc_id, folded, to_place in texts(docs):
            for end_idx, prefix in auto.iter(folded):
                fstart = end_idx - len(prefix) + 1
                for needle in by_prefix[prefix]:
                    if folded.startswith(needle, fstart):
                        places = hits.setdefault(needle, {}).setdefault(doc_id, [])
                        if len(places) < MAX_OCCURRENCES:
                            places.append(to_place(fstart, len(needle)))
        for i, needle in needles.items():
            per_doc = hits.get(needle, {})
            doc = passages[i].doc
            cands = [_Candidate(pl) for d in ([doc] if doc is not None else sorted(per_doc))
                     for pl in per_doc.get(d, ())]
            if cands:
                found[i] = (tier, cands)

    # -- tier 3: word alignment -----------------------------------------------------------

    def _align(self, i: int, passage: Passage, found: dict[int, tuple[str, list[_Candidate]]]) -> None:
        if self._words is None:
            self._words = WordIndex(self.corpus)
        index = self._words
        pw = words(canonical_fragment(passage.text or ""))
        if not pw:
            return
        docs = [passage.doc] if passage.doc is not None else self.corpus.docs
        for rendered in (False, True):  # the source's words, else the rendered text's
            views = {d: index.doc(d, *self._rendered_view(d)) if rendered else index.doc(d) for d in docs}
            ids = index.ids(pw)  # after the views: the vocabulary holds their words
            need = math.ceil(self.min_share * len(ids) - 1e-9)
            cands: list[_Candidate] = []
            for doc_id, dw in views.items():
                if passage.doc is None and sum(1 for w in ids if w in dw.at) < need:
                    continue  # too few of its words occur here at all
                for a in align(ids, dw, self.min_share):
                    core = dense(ids, dw, a, self._dropped(doc_id, dw, rendered))  # stray end matches dropped
                    if core is None or core[4] < need:
                        continue
                    a = Alignment(core[2], core[3], core[4])
                    cands.append(_Candidate(Place(doc_id, dw.starts[a.first], dw.ends[a.last]), a, len(ids)))
            if cands:
                found[i] = ("aligned", cands)
                return

    def _dropped(self, doc_id: str, dw: DocWords, rendered: bool) -> Callable[[], np.ndarray] | None:
        """For ``dense``: of a source view, the prefix counts of its words the rendered text
        drops (markup a loader never writes), made when first asked; a rendered view has none."""
        return None if rendered else lambda: dw.dropped(self.rendered(doc_id).source)

    def _rendered_view(self, doc_id: str) -> tuple[str, np.ndarray]:
        r = self.rendered(doc_id)
        return r.text, r.source

    # -- verification and added text (SPEC §10.1 *Added text*) ------------------------------

    def _verified(self, text: str, got: Placement) -> Placement | str:
        """A tier 2–3 placement, if it holds: the placed text's words occur in order inside
        the range, in its source or its rendered text (at least ``min_share`` of them: a
        rendered entity may read as another word), and the range is at most ``SPAN_FACTOR`` × the placed text's length plus
        ``SPAN_SLACK`` characters; else why not. Tier 1 is the text itself.

        The range's length is counted in its rendered characters (``rendered.render``,
        whitespace runs as one): the syntax a loader drops — a link's target, an HTML tag, a
        code fence — is not text it could have written, and a loader that drops it writes a
        passage much shorter than its source range; a range stretched to a distant heading
        or into the next paragraph is longer in words, and refused."""
        if got.tier == "exact":
            return got
        doc = self.corpus[got.place.doc]
        s, e = got.place.start, got.place.end
        rendered = self.rendered(got.place.doc)
        lo, hi = (int(x) for x in np.searchsorted(rendered.source, [s, e]))
        size = len(fold_passage(text))
        if hi - lo > SPAN_FACTOR * size + SPAN_SLACK:
            return (f"text not placed: its {got.tier} match at {doc.where(s)} spans {hi - lo} characters of text, "
                    f"over {SPAN_FACTOR} × its {size} plus {SPAN_SLACK}")
        pw = words(text)  # in the source's words or the rendered text's (``**I**nput``, ```ListItem`s``)
        matched = max(LCSseq.similarity(pw, words(doc.text[s:e])),
                      LCSseq.similarity(pw, words(rendered.text[lo:hi]))) if pw else 0
        if pw and matched < math.ceil(self.min_share * len(pw) - 1e-9):
            return (f"text not placed: only {matched} of its {len(pw)} words occur in order in its {got.tier} match "
                    f"at {doc.where(s)}")
        return got

    def _literal_part(self, p: Passage, previous: dict[str, int],
                      resume: dict[tuple[str, str], tuple[int, int]]) -> Placement | None:
        """A passage of a named document, in file order, that is a source part found as
        written or rendered with text added on one side (what contextual retrieval and
        heading paths make): the cuts at joins (``added.cuts``), longest part first, by the
        exact tier, then by the rendered one. Taken only when the added words are not the
        source's own just before (after) the part — else a longer part may place by its
        words, and the full search decides."""
        assert p.doc is not None
        text = canonical_fragment(p.text or "")
        first = WORD.search(text)
        lead, full = len(text) - len(text.lstrip()), len(text.rstrip())
        if first is None:
            return None
        parts = [(s, e) for s, e in cuts(text, first.start(), full)
                 if (s == lead or e == full) and 2 * (e - s) >= full - lead]  # one side; no more added than placed
        for tier in TIERS[:2]:
            for start, end in parts:
                part = text[start:end]
                got = self._in_order(Passage(p.doc, part), previous, resume, aligned=False, tiers=(tier,))
                if isinstance(got, Placement):
                    got = self._verified(part, got)
                if isinstance(got, Placement) and _advances(got.place, previous) and \
                        self._added_is_new(text[lead:start], text[end:full], got.place):
                    return Placement(got.place, got.tier, None, start - lead, full - end)
        return None

    def _added_is_new(self, before: str, after: str, place: Place) -> bool:
        """Whether what a cut leaves out holds words (a pipe or a bullet left of the source's
        markup is not text a pipeline added) and they are not, half of them or more in order,
        the source's words next to where the part was placed (within four times their length
        plus ``5 × SPAN_SLACK`` characters: link targets, HTML tags and indentation sit between)."""
        return bool(words(before) or words(after)) and not self._beside(before, after, place)

    def _beside(self, before: str, after: str, place: Place) -> bool:
        """Whether ``before`` or ``after`` is, half of its words or more in order, the
        source's words next to ``place`` (see ``_added_is_new``): then it is source text the
        cut left out, not text a pipeline added, and the part is not the passage's source."""
        src = self.corpus[place.doc].text
        reach = (4 * len(before) + 5 * SPAN_SLACK, 4 * len(after) + 5 * SPAN_SLACK)
        for added, beside in ((before, src[max(0, place.start - reach[0]):place.start]),
                              (after, src[place.end:place.end + reach[1]])):
            aw = words(added)
            if aw and 2 * LCSseq.similarity(aw, words(beside)) >= len(aw):
                return True
        return False

    def _with_added(self, p: Passage, why: str, previous: dict[str, int],
                    resume: dict[tuple[str, str], tuple[int, int]]) -> Placement | str:
        """A passage no tier placed whole, as source text plus added text: the densest
        alignment of its words to a document says where its source part lies; the cut
        points near that part's ends (line and sentence ends, else its first and last
        matched words, ``added.cuts``) are tried longest part first by the literal tiers,
        then the part between the matched words by its words. The part must be at least
        as long as what is added. Else the refusal names the best share reached and where."""
        text = canonical_fragment(p.text or "")
        spans = [(m.start(), m.end()) for m in WORD.finditer(text)]
        region = self._region(p.doc, [w.casefold() for w in WORD.findall(text)])
        where = f"in {p.doc}" if p.doc is not None else "in the corpus"

        def refused(best: str, after: str = "") -> str:
            if why.startswith("text not placed"):  # a verification that failed says why itself
                return why + best
            return (f"text not found {where}{after} (not as written with whitespace runs folded, nor in the rendered "
                    f"text, nor by {self.min_share:.0%} of its words in order, nor as a part of it with text added "
                    f"around it{best})")

        if region is None:
            return refused(f"; no place holds {REGION_FLOOR:.0%} of its words in order, close together" if spans
                           else "")
        doc_id, dw, (i0, i1, j0, j1, matched) = region
        lead, full = len(text) - len(text.lstrip()), len(text.rstrip())  # whitespace at its ends is not added text
        best = (f"; at best {matched} of its {len(spans)} words ({matched / len(spans):.0%}) in order at "
                f"{self.corpus[doc_id].where(dw.starts[j0])}")
        start, end = spans[i0][0], spans[i1][1]
        n_part = i1 - i0 + 1
        core = Placement(Place(doc_id, dw.starts[j0], dw.ends[j1]), "aligned", round(matched / n_part, 4),
                         max(0, start - lead), max(0, full - end))
        aligned: Placement | str
        if (end - start) * 2 < full - lead or matched < math.ceil(self.min_share * n_part - 1e-9):
            aligned = refused(best)
        elif not _advances(core.place, previous):
            aligned = refused(best, f" after the previous chunk of {doc_id}")
        elif self._beside("", text[end:full], core.place):
            aligned = refused(best, " with only added text after it (what follows it is the source's next text)")
        else:
            checked = self._verified(text[start:end], core)
            aligned = checked if isinstance(checked, Placement) else checked + best
        for s, e in cuts(text, start, end):
            part = text[s:e]
            if 2 * len(part) < full - lead:
                continue
            got = self._in_order(Passage(doc_id, part), dict(previous), {}, aligned=False)
            if isinstance(got, Placement):
                got = self._verified(part, got)
            if isinstance(got, Placement) and _advances(got.place, previous) and \
                    not self._beside("", text[e:full], got.place):
                got = Placement(got.place, got.tier, None, max(0, s - lead), max(0, full - e))
                return self._larger_by_words(text, got, previous) or got
        if isinstance(aligned, Placement):
            return self._larger_by_words(text, aligned, previous) or self._lead_trimmed(text, aligned, previous)
        return self._after_join_by_words(text, previous, doc_id) or aligned

    def _after_join_by_words(self, text: str, previous: dict[str, int], doc_id: str) -> Placement | None:
        """The largest part after a join (a heading path's lines, a context's sentences)
        that the aligned tier places, when neither a literal part nor the passage's densest
        region places: a short chunk a loader rewrote (docling re-fences code) under a
        heading path whose words, counted in the region, keep it under ``min_share``."""
        lead, full = len(text) - len(text.lstrip()), len(text.rstrip())
        for s in joins_before(text):
            part = text[s:full].strip()
            if s <= lead or not part:
                continue
            if 2 * len(part) < full - lead:
                break
            got = self._in_order(Passage(doc_id, part), dict(previous), {})
            if isinstance(got, Placement):
                got = self._verified(part, got)
            if isinstance(got, Placement) and _advances(got.place, previous):
                trimmed = self._lead_trimmed(text, Placement(got.place, got.tier, got.share,
                                                             len(text) - len(text[s:].lstrip()) - lead, 0), previous)
                if isinstance(trimmed, Placement):
                    return trimmed
        return None

    def _larger_by_words(self, text: str, got: Placement, previous: dict[str, int]) -> Placement | None:
        """A larger part than a literal one, placed by its words: the literal search cuts at
        joins, so a loader's small change to the source (docling's ``"`code` ."``) in the
        part's first sentence leaves that sentence out, placed as if added. When the text
        left out right before the part (its last sentence or line with words, or all of it)
        is the source's right before it (``_beside``), each join before the part, longest
        part first, is tried by the aligned tier; one that places on the text right before
        the literal place, reaching back over more than headings, is the largest part
        (SPEC §10.1 *Added text*)."""
        lead, full = len(text) - len(text.lstrip()), len(text.rstrip())
        begin, end = lead + got.added_before, full - got.added_after
        joins = [s for s in joins_before(text[:end]) if lead < s < begin]
        last = next((j for j in reversed(joins) if words(text[j:begin])), lead)  # the last segment with words
        if not joins or not (self._beside(text[last:begin], "", got.place) or
                             self._beside(text[lead:begin], "", got.place)):
            return None  # what was left out right before the part is not the source's text there
        for s in joins:
            part = text[s:end].strip()
            cand = self._in_order(Passage(got.place.doc, part), dict(previous), {})
            if isinstance(cand, Placement):
                cand = self._verified(part, cand)
            if isinstance(cand, Placement) and cand.place.doc == got.place.doc and _advances(cand.place, previous) \
                    and cand.place.start < got.place.start < cand.place.end and \
                    cand.place.end <= got.place.end + SPAN_SLACK and \
                    not self._headings_only(got.place.doc, cand.place.start, got.place.start):
                trimmed = self._lead_trimmed(text, Placement(cand.place, cand.tier, cand.share, s - lead,
                                                             got.added_after), previous)
                return trimmed if isinstance(trimmed, Placement) else None
        return None

    def _lead_trimmed(self, text: str, got: Placement, previous: dict[str, int]) -> Placement | str:
        """An ``aligned`` placement without the lines or sentences at the passage's start
        that are not the source's text right before the rest: a heading path whose words
        matched a heading further up, a stray word just before (``Margin`` on
        ``margin_all.tcss``) or a word inside the rest. Each join in the placed part's first
        half is tried in turn, the rest placed by the tiers on the same end; the lines
        before the join are added text when the rest starts no later, or when the source
        between the two starts has words (in the rendered text: a list marker or a fence
        line is not text) after the last of the lines' words (other than the rest's own
        first words, where repeated text let its alignment begin late), or under half of
        the lines' words are among them. A heading right above the rest whose words the
        lines hold is the source's text and stays placed (the largest part). Cutting what
        is not the source's text there may leave less placed than added: then no place."""
        lead, full = len(text) - len(text.lstrip()), len(text.rstrip())
        begin, end = lead + got.added_before, full - got.added_after
        rendered = self.rendered(got.place.doc)
        at = int(np.searchsorted(rendered.source, got.place.start))
        ahead = words(rendered.text[at:at + 2 * (end - begin)])  # the source's words from the placement on
        for s in joins_before(text[:end]):
            if s <= begin:
                continue
            part = text[s:end].strip()
            if not part:
                break
            lines, rest = words(text[begin:s]), words(part)[:3]
            if ahead[:len(lines) + len(rest)] == lines + rest:
                continue  # the source holds the lines and then the rest, as the passage does: nothing to cut
            cand = self._in_order(Passage(got.place.doc, part), dict(previous), {})
            if isinstance(cand, Placement):
                cand = self._verified(part, cand)
            if not isinstance(cand, Placement) or cand.place.doc != got.place.doc or \
                    not got.place.start - SPAN_SLACK <= cand.place.start < got.place.end or \
                    abs(cand.place.end - got.place.end) > SPAN_SLACK or not _advances(cand.place, previous):
                continue
            left_out = lines
            lo, hi = (int(x) for x in np.searchsorted(rendered.source, [got.place.start, cand.place.start]))
            between = words(rendered.text[lo:hi])
            kept = {b.b + k for b in LCSseq.editops(left_out, between).as_matching_blocks() for k in range(b.size)}
            gap = between[max(kept) + 1:] if kept else between  # the source's words after the lines' last one
            if left_out and cand.place.start <= got.place.start or between and \
                    (2 * len(kept) < len(left_out) or gap and gap != words(part)[:len(gap)]):
                if 2 * len(part) < full - lead:
                    return (f"text not placed: its words match at {self.corpus[got.place.doc].where(got.place.start)} "
                            f"only with text the source does not hold there; without the text added before it, "
                            f"what is left is shorter than what was added")
                got = Placement(cand.place, cand.tier, cand.share, s - lead, got.added_after)
                begin = s
                at = int(np.searchsorted(rendered.source, got.place.start))
                ahead = words(rendered.text[at:at + 2 * (end - begin)])
        return got

    def _headings_only(self, doc_id: str, start: int, end: int) -> bool:
        """Whether the source from the line ``start`` is on to ``end`` holds a heading and
        nothing else that has words in the rendered text (fence lines, HTML comments and
        tags, blank lines): what a chunker writes into a heading path (docling's
        ``contextualize``) rather than into the chunk, so a placement reaching back over it
        has reached over added text, not over the chunk's own. A heading is a line whose
        ``#`` marker the rendering dropped (not a ``#`` comment in a code block)."""
        if start >= end:
            return False
        src = self.corpus[doc_id].text
        rendered = self.rendered(doc_id)
        at = src.rfind("\n", 0, start) + 1
        heading = False
        while at < end:
            stop = src.find("\n", at)
            stop = len(src) if stop == -1 else stop
            line = src[at:min(stop, end)]
            marker = _ATX.match(line)
            lo, hi = (int(x) for x in np.searchsorted(rendered.source, [at, min(stop, end)]))
            if marker and (hi == lo or int(rendered.source[lo]) >= at + marker.end()):
                heading = True
            elif WORD.search(rendered.text[lo:hi]):
                return False
            at = stop + 1
        return heading

    def _region(self, doc: str | None, pw: list[str]) -> tuple[str, DocWords, tuple[int, int, int, int, int]] | None:
        """The best dense alignment of a passage's words (``region_floor`` of them at least)
        in its document or the corpus: (document, its words, ``dense``'s core)."""
        if self._words is None:
            self._words = WordIndex(self.corpus)
        index = self._words
        if not pw:
            return None
        docs = [doc] if doc is not None else self.corpus.docs
        best: tuple[str, DocWords, tuple[int, int, int, int, int]] | None = None
        for rendered in (False, True):
            views = {d: index.doc(d, *self._rendered_view(d)) if rendered else index.doc(d) for d in docs}
            ids = index.ids(pw)
            floor = region_floor(len(ids))
            for doc_id, dw in views.items():
                if doc is None and sum(1 for w in ids if w in dw.at) < floor * len(ids):
                    continue
                for a in align(ids, dw, floor):
                    core = dense(ids, dw, a, self._dropped(doc_id, dw, rendered))
                    if core is not None and (best is None or core[4] > best[2][4]):
                        best = (doc_id, dw, core)
            if best is not None and best[2][4] >= self.min_share * (best[2][1] - best[2][0] + 1):
                return best
        return best

    # -- the choice among occurrences ----------------------------------------------------

    def _choose(self, p: Passage, hit: tuple[str, list[_Candidate]] | None,
                previous: dict[str, int] | None) -> Placement | str:
        where = f"in {p.doc}" if p.doc is not None else "in the corpus"
        if hit is None:
            return (f"text not found {where} (matched exactly with whitespace runs folded, in the rendered text, "
                    f"and by its words in order: under {self.min_share:.0%} of them)")
        tier, cands = hit
        pick = cands
        if len(pick) > 1 and previous is not None:  # in file order: at or after the previous chunk of its document
            pick = [c for c in pick if c.place.start >= previous.get(c.place.doc, 0)]
        if len(pick) > 1 and tier == "aligned":  # the best alignment, when one is better
            top = max(c.matched for c in pick)
            pick = [c for c in pick if c.matched == top]
        if len(pick) > 1 and previous is not None and len({c.place.doc for c in pick}) == 1:
            pick = pick[:1]
        if len(pick) == 1:
            c = pick[0]
            return Placement(c.place, tier, c.share if tier == "aligned" else None)
        listed = cands[:MAX_LISTED]
        at = ", ".join(self.corpus[c.place.doc].where(c.place.start) for c in listed)
        more = f" and {len(cands) - len(listed)} more" if len(cands) > len(listed) else ""
        how = "" if tier == "exact" else f" (by its {'rendered text' if tier == 'rendered' else 'words'})"
        after = ""
        if previous is not None and not pick and p.doc is not None:
            after = f", none of them at or after the previous chunk of {p.doc}"
        return (f"text is ambiguous{how}: found {len(cands)} times {where}, at {at}{more}{after}; give its doc, "
                "or start and end")


def _advances(place: Place, previous: dict[str, int]) -> bool:
    """Whether a source part placed with added text starts after the previous chunk of its
    document (in file order; any place when none came before). A part found only at or
    before it is text the previous chunk already passed — a heading a pipeline repeats in
    each chunk's path, say — not this chunk's source."""
    return place.doc not in previous or place.start > previous[place.doc]


_ATX = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(?=\S)")  # a heading line's marker, when the rendering dropped it


_NOT_LITERAL = "text not found as written or in the rendered text"  # ``_in_order`` without the aligned tier


def _occurrences(text: str, needle: str) -> Iterator[int]:
    """Every start of ``needle`` in ``text``, overlapping ones included, up to ``MAX_OCCURRENCES``."""
    pos = text.find(needle)
    n = 0
    while pos != -1 and n < MAX_OCCURRENCES:
        yield pos
        n += 1
        pos = text.find(needle, pos + 1)


@dataclass(frozen=True, slots=True)
class _Candidate:
    place: Place
    alignment: Alignment | None = None
    n_words: int = 0

    @property
    def matched(self) -> int:
        return self.alignment.matched if self.alignment else 0

    @property
    def share(self) -> float | None:
        return round(self.alignment.share(self.n_words), 4) if self.alignment else None
