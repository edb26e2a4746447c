"""Context on a quote (SPEC §2.2): the text that must stand right before / after it.

A passage repeated in a document cannot be labelled by a longer quote without widening
the span; a ``prefix`` / ``suffix`` picks one occurrence and leaves the span alone. The
rule is the quote's own: exact, whitespace runs folded, nothing else forgiven. Tools that
write context (importers, the app's pick-an-occurrence) ask ``shortest_context`` for the
least that makes an occurrence unique, in whole words: runs between whitespace, except in
scripts written without spaces (CJK), where each character counts as one.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass

from labeller.core.anchors import FoldedDocument, QuoteIndex, find_overlapping, fold_quote, search_needles
from labeller.core.models import Locator
from labeller.core.vocab import Place


@dataclass(frozen=True)
class Context:
    """A prefix and/or suffix (``None``: that side is not needed), folded: whitespace runs
    are single spaces, and a space at the inner edge stands for the run between it and the
    quote."""

    prefix: str | None = None
    suffix: str | None = None


# -- matching ------------------------------------------------------------------------------


def fold_prefix(prefix: str | None) -> str:
    """A prefix as matched: canonicalised and folded like a quote, its outer (left) edge's
    whitespace dropped, its inner (right) edge's kept as one space."""
    if not prefix:
        return ""
    return fold_quote(prefix) + (" " if prefix[-1].isspace() else "")


def fold_suffix(suffix: str | None) -> str:
    """A suffix as matched: the mirror of ``fold_prefix`` (the inner edge is the left one)."""
    if not suffix:
        return ""
    return (" " if suffix[0].isspace() else "") + fold_quote(suffix)


def context_needle(loc: Locator) -> str | None:
    """What a quote locator with context is searched as: the folded ``prefix + quote +
    suffix`` (``None`` without context). Its occurrences are exactly the quote's counted
    ones, each standing ``len(fold_prefix(prefix))`` folded characters into the match, so a
    build finds them in its one search, in time linear in the text, instead of comparing
    the context with the text at every occurrence of the quote (occurrences times context
    length on a repetitive document)."""
    if loc.quote is None or (loc.prefix is None and loc.suffix is None):
        return None
    return fold_prefix(loc.prefix) + fold_quote(loc.quote) + fold_suffix(loc.suffix)


def locator_needles(locators) -> list[str]:
    """Every needle a build's search looks for: each quote, folded, and each context needle."""
    out = []
    for loc in locators:
        if loc.quote is not None:
            out.append(fold_quote(loc.quote))
            if (needle := context_needle(loc)) is not None:
                out.append(needle)
    return search_needles(out)


# -- the shortest context --------------------------------------------------------------------


# Longest prefix or suffix offered, in folded characters, whatever the occurrences. Texts
# around two occurrences that agree for longer are compared no further (``Sides``): on a
# repetitive document every agreement runs to the document's edge, and measuring each was
# occurrences times length.
MAX_CONTEXT_CHARS = 1000
# Characters compared per place, all other occurrences together: with few occurrences the
# bound rises to CONTEXT_WORK / (occurrences - 1), so a passage repeated twice with a long
# identical surrounding (a filing that repeats a section) is still singled out, and the work
# stays linear in this budget however hostile the document (``context_bound``).
CONTEXT_WORK = 2_000_000
SCAN_CHARS = 4000  # characters searched per unit of work (``occurrence_help``)
OCCURRENCE_UNITS = 10  # units per occurrence collected


def _folded_occurrences(index: QuoteIndex, folded_quote: str, scope: str | None,
                        limit: int | None = None) -> list[tuple[FoldedDocument, int]]:
    """The (overlapping) occurrences of a folded quote as (folded document, folded start),
    the first ``limit + 1`` at most (enough to tell there are too many)."""
    docs = [scope] if scope is not None else index.corpus.docs
    out: list[tuple[FoldedDocument, int]] = []
    for doc_id in docs:
        fd = index.folded(doc_id)
        for p in find_overlapping(fd.folded, folded_quote):
            out.append((fd, p))
            if limit is not None and len(out) > limit:
                return out
    return out


def context_bound(occurrences: int) -> int:
    """The longest prefix or suffix offered when a quote occurs ``occurrences`` times in its
    scope: ``MAX_CONTEXT_CHARS``, raised to what ``CONTEXT_WORK`` affords for that many."""
    return max(MAX_CONTEXT_CHARS, CONTEXT_WORK // max(1, occurrences - 1))


def _common_start(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    return _gallop(lambda k: a[:k] == b[:k], min(len(a), len(b)))


class _Agreement:
    """How far each of some strings agrees with each other one from its start: one sort, and
    the agreement of each string with its neighbour in sorted order. In sorted order the
    agreement of two strings is the least of the neighbours' agreements between them, so
    every string's agreement with all the others is one walk outwards from its place, not a
    comparison of texts per pair (a repetitive document once spent 20 microseconds a pair)."""

    def __init__(self, texts: list[str]) -> None:
        self.order = sorted(range(len(texts)), key=texts.__getitem__)
        self.rank = [0] * len(texts)
        for r, k in enumerate(self.order):
            self.rank[k] = r
        self.next = [_common_start(texts[a], texts[b]) for a, b in zip(self.order, self.order[1:])]

    def with_others(self, target: int) -> list[int]:
        """The agreement of ``texts[target]`` with each string (its own entry left at 0)."""
        out = [0] * len(self.order)
        r = self.rank[target]
        least = None
        for left in range(r - 1, -1, -1):
            least = self.next[left] if least is None else min(least, self.next[left])
            out[self.order[left]] = least
        least = None
        for right in range(r + 1, len(self.order)):
            least = self.next[right - 1] if least is None else min(least, self.next[right - 1])
            out[self.order[right]] = least
        return out


def _gallop(agree, bound: int) -> int:
    """The largest ``k <= bound`` with ``agree(k)`` (which holds up to some k, then never):
    lengths 1, 2, 4, ... then a binary search, so a short agreement (the usual case) costs
    a few short slice compares and a long repeated passage compares in C, not a character
    at a time."""
    lo, step = 0, 1
    while lo < bound:
        hi = min(lo + step, bound)
        if not agree(hi):
            break
        lo, step = hi, step * 2
    else:
        return lo
    hi = min(lo + step, bound) - 1  # agree(lo) holds, agree(hi + 1) does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if agree(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _unspaced(ch: str) -> bool:
    """A character of a script written without spaces between words (CJK: East Asian wide
    or fullwidth), where every character is as close to a word as the text gets."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _word_start(text: str, i: int) -> bool:
    return text[i] != " " and (i == 0 or text[i - 1] == " " or _unspaced(text[i]) or _unspaced(text[i - 1]))


def _word_end(text: str, j: int) -> bool:
    return text[j - 1] != " " and (j == len(text) or text[j] == " " or _unspaced(text[j - 1]) or _unspaced(text[j]))


def _prefix_lengths(text: str, p: int, needed: int, bound: int) -> list[int]:
    """Candidate prefix lengths in whole words: 0, then back to each word start before ``p``
    (the first may be the rest of a word the quote starts inside), up to the first length
    above ``needed`` (a longer one cannot exclude more), none over ``bound``."""
    out = [0]
    low = max(0, p - bound)
    if text[max(0, low - 1):p].isascii():  # no character written without spaces: word starts follow spaces
        end = max(0, p - 1)
        while out[-1] <= needed and (s := text.rfind(" ", max(0, low - 1), end)) != -1:
            if text[s + 1] != " ":
                out.append(p - s - 1)
            end = s
        if out[-1] <= needed and low == 0 and p > 0 and text[0] != " ":
            out.append(p)
        return out
    i = p
    while i > 0 and out[-1] <= needed:
        i -= 1
        if p - i > bound:
            break
        if _word_start(text, i):
            out.append(p - i)
    return out


def _suffix_lengths(text: str, e: int, needed: int, bound: int) -> list[int]:
    """Candidate suffix lengths in whole words: 0, then on to each word end after ``e``."""
    out = [0]
    limit = min(len(text), e + bound)
    if text[e:limit + 1].isascii():  # word ends precede spaces (or the text's end)
        j = e
        while out[-1] <= needed and (j := text.find(" ", j + 1, limit + 1)) != -1:
            if text[j - 1] != " ":
                out.append(j - e)
        if out[-1] <= needed and limit == len(text) > e and text[-1] != " ":
            out.append(limit - e)
        return out
    j = e
    while j < len(text) and out[-1] <= needed:
        j += 1
        if j - e > bound:
            break
        if _word_end(text, j):
            out.append(j - e)
    return out


class Sides:
    """How far the text before and after one occurrence agrees with the text around each
    other occurrence of the same quote (each capped past ``bound``, ``context_bound``): a
    longer quote or a context that spans ``a`` characters before and ``b`` after the
    occurrence matches only there exactly when every other one has ``before < a`` or
    ``after < b``. Both the shortest context and the shortest extension are read off it."""

    def __init__(self, occurrences: list[tuple[FoldedDocument, int]], target: int, length: int,
                 agreements: tuple[_Agreement, _Agreement]) -> None:
        fd, p = occurrences[target]
        self.text, self.start, self.end = fd.folded, p, p + length
        self.bound = context_bound(len(occurrences))
        before, after = (agreement.with_others(target) for agreement in agreements)
        sides = sorted(((before[i], after[i]) for i in range(len(occurrences)) if i != target), reverse=True)
        self.befores = [-b for b, _ in sides]  # ascending, for bisect
        self.most_after: list[int] = []  # the longest agreement after among the first k + 1 sides
        for _, a in sides:
            self.most_after.append(max(a, self.most_after[-1]) if self.most_after else a)

    @staticmethod
    def agreements(occurrences: list[tuple[FoldedDocument, int]], length: int) -> tuple[_Agreement, _Agreement]:
        """The text before (read backwards) and after every occurrence, each cut one past
        ``context_bound`` (an agreement that long is one no offered context can end), as
        ``_Agreement``s: built once for all the occurrences ``Sides`` is asked about."""
        cap = context_bound(len(occurrences)) + 1
        return (_Agreement([fd.folded[max(0, p - cap):p][::-1] for fd, p in occurrences]),
                _Agreement([fd.folded[p + length:p + length + cap] for fd, p in occurrences]))

    def still(self, a: int) -> int:
        """The longest agreement after, among the others a prefix of ``a`` characters leaves
        in (-1: none is left)."""
        k = bisect.bisect_right(self.befores, -a)
        return self.most_after[k - 1] if k else -1

    def unique(self, a: int, b: int) -> bool:
        return self.still(a) < b


def _shortest(sides: Sides) -> Context | None:
    """The shortest whole-word context that singles the occurrence out among the others."""
    if not sides.befores:
        return Context()
    text, p, e = sides.text, sides.start, sides.end
    prefixes = _prefix_lengths(text, p, -sides.befores[0], sides.bound)
    suffixes = _suffix_lengths(text, e, sides.most_after[-1], sides.bound)
    best: tuple[int, int, int] | None = None
    for a in prefixes:
        j = bisect.bisect_right(suffixes, sides.still(a))
        if j == len(suffixes):
            continue
        b = suffixes[j]
        if best is None or (a + b, a) < best[:2]:
            best = (a + b, a, b)
    if best is None:
        return None
    _, a, b = best
    return Context(text[p - a:p] or None, text[e:e + b] or None)


def _extension(sides: Sides, max_words: int) -> str | None:
    """The shortest quote, grown by up to ``max_words`` whole words on either side, that
    matches only this occurrence: each candidate's matches are exactly the occurrences
    whose text agrees with it on both sides (the quote sits at a fixed place inside it)."""
    text, fstart, fend = sides.text, sides.start, sides.end
    lefts = [fstart]
    p = fstart
    while len(lefts) <= max_words and p > 0:
        p = text.rfind(" ", 0, p - 1) + 1 if text[p - 1] == " " else text.rfind(" ", 0, p) + 1
        lefts.append(p)
    rights = [fend]
    q = fend
    while len(rights) <= max_words and q < len(text):
        nxt = text.find(" ", q + 1 if text[q] == " " else q)
        q = len(text) if nxt == -1 else nxt
        rights.append(q)
    for total in range(1, 2 * max_words + 1):
        found = []
        for n_left in range(0, total + 1):
            n_right = total - n_left
            if n_left >= len(lefts) or n_right >= len(rights):
                continue
            left, right = lefts[n_left], rights[n_right]
            while left < fstart and text[left] == " ":  # what ``strip`` drops
                left += 1
            while right > fend and text[right - 1] == " ":
                right -= 1
            a, b = fstart - left, right - fend
            if (a or b) and max(a, b) <= sides.bound and sides.unique(a, b):
                found.append(text[left:right])
        if found:
            return min(found, key=lambda c: (len(c), c))
    return None


def occurrence_help(index: QuoteIndex, places: list[Place], quote: str, scope: str | None,
                    max_occurrences: int, max_words: int,
                    afford=lambda units: True) -> dict[Place, tuple[Context | None, str | None]] | None:
    """For each occurrence of a quote: the shortest context and the shortest extension
    (``max_words`` whole words a side at most) that single it out in ``scope``. Each place
    costs a comparison with every other occurrence, so past ``max_occurrences`` of them
    the answer is ``None`` (so common a quote wants another passage, not help); ``None``
    too when ``afford(units)`` refuses the work: one unit per ``SCAN_CHARS`` characters
    searched, ``OCCURRENCE_UNITS`` per occurrence collected, and one per pair of
    occurrences compared (a unit: about a microsecond)."""
    folded = fold_quote(quote)
    scanned = len(index.corpus[scope].text) if scope is not None else index.corpus.chars
    if not afford(1 + scanned // SCAN_CHARS):
        return None
    occurrences = _folded_occurrences(index, folded, scope, max_occurrences)
    if not afford(OCCURRENCE_UNITS * len(occurrences)) or len(occurrences) > max_occurrences \
            or not afford(len(places) * len(occurrences)):
        return None
    at = {(fd.doc.doc_id, fd.occurrence(p, len(folded)).start): i for i, (fd, p) in enumerate(occurrences)}
    out: dict[Place, tuple[Context | None, str | None]] = {}
    if not places:
        return out
    agreements = Sides.agreements(occurrences, len(folded))
    for place in places:
        i = at.get((place.doc, place.start))
        if i is None:
            raise ValueError(f"{place} is not an occurrence of {quote!r}" + (f" in {scope}" if scope else ""))
        sides = Sides(occurrences, i, len(folded), agreements)
        out[place] = (_shortest(sides), _extension(sides, max_words) if max_words else None)
    return out


def contexts_for(index: QuoteIndex, places: list[Place], quote: str, scope: str | None = None,
                 max_occurrences: int | None = None) -> dict[Place, Context | None]:
    """``shortest_context`` for several occurrences of one quote, searching it once; past
    ``max_occurrences`` of them every answer is ``None``."""
    helps = occurrence_help(index, places, quote, scope, max_occurrences or 1 << 62, 0)
    return {place: helps[place][0] if helps is not None else None for place in places}


def shortest_context(index: QuoteIndex, place: Place, quote: str, scope: str | None = None) -> Context | None:
    """The shortest prefix and/or suffix, in whole words, that makes the occurrence of
    ``quote`` at ``place`` (its own canonical range) the only one counted in ``scope`` (a
    doc id, or ``None`` for the whole corpus). ``Context()`` when the quote alone is unique;
    ``None`` when no context can do it (the text around another occurrence is the same up
    to both document edges: pin the locator to a document instead)."""
    return contexts_for(index, [place], quote, scope)[place]


def why_no_context(index: QuoteIndex, quote: str, scope: str) -> str:
    """Why no context singles out an occurrence of ``quote`` in ``scope`` (``pick_occurrence``
    gave None): how many times it occurs and the bound on a context for that many."""
    n = len(_folded_occurrences(index, fold_quote(quote), scope))
    bound = context_bound(n)
    return (f"the passage occurs {n} times in {scope}, and the text around this occurrence is the same as around "
            f"another on both sides for more than {bound:,} characters or up to the document's edges: no prefix or "
            f"suffix within the bound (for {n} occurrences: {bound:,} characters, {CONTEXT_WORK:,} characters "
            f"compared in all; no setting raises it) can single it out")


def pick_occurrence(index: QuoteIndex, loc: Locator, place: Place) -> Locator | None:
    """The quote locator ``loc`` rewritten to resolve to its occurrence at ``place``: pinned to
    that document, with the shortest context (an old context replaced); the quote, and so
    the span, unchanged. ``None`` if no context singles it out."""
    return pick_occurrences(index, loc, [place])[place]


def pick_occurrences(index: QuoteIndex, loc: Locator, places: list[Place]) -> dict[Place, Locator | None]:
    """``pick_occurrence`` for several occurrences of the quote in one document, searching it
    once (``contexts_for``) rather than once an occurrence."""
    if loc.quote is None:
        raise ValueError("pick_occurrence() takes a quote locator")
    docs = {place.doc for place in places}
    if len(docs) > 1:
        raise ValueError("pick_occurrences() takes the occurrences of one document")
    contexts = contexts_for(index, places, loc.quote, next(iter(docs))) if places else {}
    out: dict[Place, Locator | None] = {}
    for place, ctx in contexts.items():
        if ctx is None:
            out[place] = None
            continue
        fields = {k: v for k, v in loc.as_json().items() if k not in ("prefix", "suffix")}
        fields["doc"] = place.doc
        if ctx.prefix is not None:
            fields["prefix"] = ctx.prefix
        if ctx.suffix is not None:
            fields["suffix"] = ctx.suffix
        out[place] = Locator(**fields)
    return out
