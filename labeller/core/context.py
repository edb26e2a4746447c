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

from labeller.core.anchors import FoldedDocument, QuoteIndex, find_overlapping, fold_quote
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


def precedes(text: str, pos: int, folded: str) -> bool:
    """Whether ``text`` just before ``pos`` reads ``folded`` once its whitespace runs are
    folded (a space in ``folded`` stands for one whole run of ``str.isspace`` characters)."""
    i = pos
    for ch in reversed(folded):
        if i == 0:
            return False
        if ch == " ":
            if not text[i - 1].isspace():
                return False
            while i > 0 and text[i - 1].isspace():
                i -= 1
        elif text[i - 1] != ch:
            return False
        else:
            i -= 1
    return True


def follows(text: str, pos: int, folded: str) -> bool:
    """Whether ``text`` from ``pos`` on reads ``folded`` once folded (the mirror of ``precedes``)."""
    i, n = pos, len(text)
    for ch in folded:
        if i == n:
            return False
        if ch == " ":
            if not text[i].isspace():
                return False
            while i < n and text[i].isspace():
                i += 1
        elif text[i] != ch:
            return False
        else:
            i += 1
    return True


def context_matches(text: str, start: int, end: int, prefix: str | None, suffix: str | None) -> bool:
    """Whether the quote occurrence ``[start, end)`` of ``text`` (canonical offsets) stands
    between ``prefix`` and ``suffix``: the folded ``prefix + quote + suffix`` matches there,
    its quote part aligned with the occurrence. Checked on the canonical text after the
    quote search, so a build's one Aho-Corasick pass stays a pass over quotes alone."""
    return precedes(text, start, fold_prefix(prefix)) and follows(text, end, fold_suffix(suffix))


# -- the shortest context --------------------------------------------------------------------


def _folded_occurrences(index: QuoteIndex, folded_quote: str, scope: str | None) -> list[tuple[FoldedDocument, int]]:
    """Every (overlapping) occurrence of a folded quote as (folded document, folded start)."""
    docs = [scope] if scope is not None else index.corpus.docs
    out: list[tuple[FoldedDocument, int]] = []
    for doc_id in docs:
        fd = index.folded(doc_id)
        out.extend((fd, p) for p in find_overlapping(fd.folded, folded_quote))
    return out


def _common_before(a: str, i: int, b: str, j: int) -> int:
    """Length of the longest common suffix of ``a[:i]`` and ``b[:j]``."""
    return _gallop(lambda k: a[i - k:i] == b[j - k:j], min(i, j))


def _common_after(a: str, i: int, b: str, j: int) -> int:
    """Length of the longest common prefix of ``a[i:]`` and ``b[j:]``."""
    return _gallop(lambda k: a[i:i + k] == b[j:j + k], min(len(a) - i, len(b) - j))


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


def _prefix_lengths(text: str, p: int, needed: int) -> list[int]:
    """Candidate prefix lengths in whole words: 0, then back to each word start before ``p``
    (the first may be the rest of a word the quote starts inside), up to the first length
    above ``needed`` (a longer one cannot exclude more)."""
    out = [0]
    i = p
    while i > 0 and out[-1] <= needed:
        i -= 1
        if _word_start(text, i):
            out.append(p - i)
    return out


def _suffix_lengths(text: str, e: int, needed: int) -> list[int]:
    """Candidate suffix lengths in whole words: 0, then on to each word end after ``e``."""
    out = [0]
    j = e
    while j < len(text) and out[-1] <= needed:
        j += 1
        if _word_end(text, j):
            out.append(j - e)
    return out


def _shortest(occurrences: list[tuple[FoldedDocument, int]], target: int, length: int) -> Context | None:
    """The shortest whole-word context that singles out ``occurrences[target]`` among them."""
    fd, p = occurrences[target]
    text, e = fd.folded, p + length
    # For each other occurrence: how far its text before and after agrees with the target's.
    # A prefix of a characters excludes it when a > before; a suffix of b when b > after.
    sides = [(_common_before(text, p, ofd.folded, q), _common_after(text, e, ofd.folded, q + length))
             for i, (ofd, q) in enumerate(occurrences) if i != target]
    if not sides:
        return Context()
    sides.sort(reverse=True)
    prefixes = _prefix_lengths(text, p, sides[0][0])
    suffixes = _suffix_lengths(text, e, max(after for _, after in sides))
    best: tuple[int, int, int] | None = None
    k, still = 0, -1  # ``still``: the longest agreement after, among those a prefix leaves in
    for a in reversed(prefixes):  # longest prefix first: fewer occurrences left to exclude
        while k < len(sides) and sides[k][0] >= a:
            still = max(still, sides[k][1])
            k += 1
        j = bisect.bisect_right(suffixes, still)
        if j == len(suffixes):
            continue
        b = suffixes[j]
        if best is None or (a + b, a) < best[:2]:
            best = (a + b, a, b)
    if best is None:
        return None
    _, a, b = best
    return Context(text[p - a:p] or None, text[e:e + b] or None)


def contexts_for(index: QuoteIndex, places: list[Place], quote: str, scope: str | None = None,
                 max_occurrences: int | None = None) -> dict[Place, Context | None]:
    """``shortest_context`` for several occurrences of one quote, searching it once. Each
    place costs a comparison with every other occurrence; past ``max_occurrences`` of them
    every answer is ``None`` (what a refusal's help sets: so common a quote wants
    lengthening, not context)."""
    folded = fold_quote(quote)
    occurrences = _folded_occurrences(index, folded, scope)
    if max_occurrences is not None and len(occurrences) > max_occurrences:
        return dict.fromkeys(places)
    at = {(fd.doc.doc_id, fd.occurrence(p, len(folded)).start): i for i, (fd, p) in enumerate(occurrences)}
    out: dict[Place, Context | None] = {}
    for place in places:
        i = at.get((place.doc, place.start))
        if i is None:
            raise ValueError(f"{place} is not an occurrence of {quote!r}" + (f" in {scope}" if scope else ""))
        out[place] = _shortest(occurrences, i, len(folded))
    return out


def shortest_context(index: QuoteIndex, place: Place, quote: str, scope: str | None = None) -> Context | None:
    """The shortest prefix and/or suffix, in whole words, that makes the occurrence of
    ``quote`` at ``place`` (its own canonical range) the only one counted in ``scope`` (a
    doc id, or ``None`` for the whole corpus). ``Context()`` when the quote alone is unique;
    ``None`` when no context can do it (the text around another occurrence is the same up
    to both document edges: pin the locator to a document instead)."""
    return contexts_for(index, [place], quote, scope)[place]


def pick_occurrence(index: QuoteIndex, loc: Locator, place: Place) -> Locator | None:
    """The quote locator ``loc`` rewritten to resolve to its occurrence at ``place``: pinned to
    that document, with the shortest context (an old context replaced); the quote, and so
    the span, unchanged. ``None`` if no context singles it out."""
    if loc.quote is None:
        raise ValueError("pick_occurrence() takes a quote locator")
    ctx = shortest_context(index, place, loc.quote, place.doc)
    if ctx is None:
        return None
    fields = {k: v for k, v in loc.as_json().items() if k not in ("prefix", "suffix")}
    fields["doc"] = place.doc
    if ctx.prefix is not None:
        fields["prefix"] = ctx.prefix
    if ctx.suffix is not None:
        fields["suffix"] = ctx.suffix
    return Locator(**fields)
