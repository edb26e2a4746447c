"""Where a label's old span stands now, and how much of its quote is kept there (issue 35).

``repair`` re-points a label whose quote was edited. The nearest passages the build suggests
are found by resembling the quote (rapidfuzz's partial ratio, a window as long as the quote):
an answer that grew words ("that takes a string *of words separated by spaces* and returns the
first") scores below 80 however faithful it is, and a sentence repeated in the page makes two
passages score alike. The last build knows more: where the label stood, in the text its
document had then (``core.last_build``). As an annotation tool re-anchors a quote with a
position hint beside the fuzzy match (Hypothesis: the quote, its prefix and suffix, and the old
offset), ``repair`` follows the old span through the edit:

- **Its place now** (``OldPlaces.place``): the document's text then and now are compared word by
  word (tokens: runs of word characters, or one other non-space character; letter case ignored;
  difflib's sequence matcher with its junk heuristic, so that the common words of a page cannot
  anchor a match on their own). The span's tokens that the comparison keeps are where its words
  now stand, those that stand together (``_densest``: the most of them within twice the span's
  length; one matched a page away, "on disk." ending a new paragraph, is chance); the place runs
  from the first of them to the last, widened to whole words. Nothing kept: the span's words
  are looked for again among all the new words the comparison left unaligned, in runs (its
  paragraph moved within the page: a comparison keeps one order, and aligns the larger part
  of the page); none there either: no place (the span was deleted or rewritten beyond
  recognition).
- **Its score** (``kept_score``): the share of the quote's token characters that the passage
  holds in the quote's order (difflib's matching blocks), 0-100. It measures what the author
  quoted, not how alike two strings are: words of the quote that are gone lower it, words
  inserted into the answer do not while the passage stays at most twice the quote (past that,
  each inserted character counts as a missing one: a paragraph rewritten around a few of the
  quote's common words, "the", "`", "character", is not the quote).

The place is what makes a lenient score safe: the passage is what the label's own words
became, bounded by the unchanged text around them, never a look-alike elsewhere in the page.
The comparison is bounded: the sequence matcher's cost grows with the product of the two
lengths, and all of a repair's comparisons together stay within ``DIFF_BUDGET`` token pairs.
A pair of texts of at most ``MAX_DIFF_TOKENS`` tokens each is compared whole, once however many
of its labels broke. A longer one (Cargo's ``reference/unstable.md``, the Rust Reference's
``inline-assembly.md``: 20,000-50,000 tokens) is compared in a window around each label's old
span (``_window``): ``WINDOW_TOKENS`` on either side of it, and the stretch of the new text
that the old window's unchanged lines (``_Lines``: lines that stand once in each text) say it
became, ``WINDOW_TOKENS`` wider on either side and at most ``MAX_DIFF_TOKENS`` long. Finding
that stretch is linear in the texts (one pass over their lines, once a pair); the comparison
itself is bounded by the window, whatever the text's length. A window with no such line, or
past the budget, gets no place, and ``repair`` falls back to the build's nearest passages.
"""

from __future__ import annotations

import bisect
import difflib
import re
import statistics
from typing import NamedTuple

from labeller.core.corpus import Document
from labeller.core.expansion import parse_blocks

_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w")
MAX_DIFF_TOKENS = 20_000  # tokens of one text compared whole at most (~100 KB; most real pages: up to 12,000)
# A longer text is compared in a window: this many tokens of the old text on either side of the
# span, and as many more on either side of where its unchanged lines went (~10 KB, several
# paragraphs: room for the passage to have grown or moved within its section).
WINDOW_TOKENS = 2_000
# A line shorter than this (characters, spaces stripped) does not say where the window went: a
# "```", a "}" or a blank-ish list marker stands in many places.
MIN_ANCHOR_CHARS = 16
# Token pairs (old × new length, summed) one repair compares at most: ~10 s on a hostile text
# (measured: 50,000 random tokens of 101 kinds a side, 2.5 G pairs, took 15 s), while the 105
# pages of the 1 MB Rust book, every one broken at once, would be 1.1 G.
DIFF_BUDGET = 1_500_000_000


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def kept_score(quote: str, passage: str) -> float:
    """The share (0-100, one decimal) of the quote's token characters that ``passage`` holds
    in the quote's order, letter case ignored. The quote's words missing from the passage count
    against it; words inserted into it do not, up to as many characters as the quote's own (the
    passage is still mostly the quote), and each inserted character past that counts as one
    missing: a paragraph rewritten around a few of the quote's words is not the quote."""
    q = [m.group().casefold() for m in _TOKEN.finditer(quote)]
    p = [m.group().casefold() for m in _TOKEN.finditer(passage)]
    total = sum(map(len, q))
    if not total:
        return 0.0
    matcher = difflib.SequenceMatcher(None, q, p, autojunk=False)
    kept = sum(len(t) for a, _, n in matcher.get_matching_blocks() for t in q[a:a + n])
    excess = max(0, sum(map(len, p)) - kept - total)
    return round(100.0 * kept / (total + excess), 1)


class _Compared:
    """One pair of texts compared: their tokens (and where each starts), each old token's
    aligned new token (-1: none), which new tokens are aligned, and where the new text's
    blank lines are: what ``OldPlaces.place`` looks up for each span, by bisection, so that
    many labels of one page cost little more than one."""

    def __init__(self, a: list[re.Match], b: list[re.Match], blocks: list, new: str,
                 new_range: tuple[int, int] | None = None) -> None:
        self.a, self.b = a, b
        self.a_starts, self.b_starts = [t.start() for t in a], [t.start() for t in b]
        self.new_of = [-1] * len(a)
        self.new_aligned = bytearray(len(b))
        for i, j, n in blocks:
            self.new_of[i:i + n] = range(j, j + n)
            self.new_aligned[j:j + n] = b"\x01" * n
        lo, hi = new_range or (0, len(new))
        self.blank_lines = [(m.start(), m.end()) for m in _BLANK_LINE.finditer(new, lo, hi)]
        self._unaligned: tuple[list[int], difflib.SequenceMatcher] | None = None

    def unaligned(self) -> tuple[list[int], difflib.SequenceMatcher]:
        """The new tokens the comparison aligned with none, and a matcher holding their words
        as its second sequence (made once, on first use: many spans of one page are looked
        for among them, and a matcher indexes its second sequence once)."""
        if self._unaligned is None:
            left = [j for j in range(len(self.b)) if not self.new_aligned[j]]
            matcher = difflib.SequenceMatcher(None, autojunk=False)
            matcher.set_seq2([self.b[j].group().casefold() for j in left])
            self._unaligned = left, matcher
        return self._unaligned

    def paragraph(self, start: int, end: int, length: int) -> tuple[int, int]:
        """``[start, end)`` of the new text widened to the blank lines around it."""
        k = bisect.bisect_left(self.blank_lines, (start, -1))
        lo = self.blank_lines[k - 1][1] if k else 0
        while k < len(self.blank_lines) and self.blank_lines[k][0] < end:
            k += 1
        hi = self.blank_lines[k][0] if k < len(self.blank_lines) else length
        return min(lo, start), max(hi, end)


class _Lines:
    """One text's tokens and its lines that say where a window went: each stripped line of at
    least ``MIN_ANCHOR_CHARS`` characters that stands once in the text, with the index of its
    first token (``once``; ``by_token``: the same, ordered by token). Built once a text (linear
    but for the sort)."""

    def __init__(self, text: str, tokens: list[re.Match]) -> None:
        self.tokens = tokens
        self.starts = [t.start() for t in tokens]
        seen: dict[str, int] = {}
        twice: set[str] = set()
        at = 0
        for line in text.splitlines(keepends=True):
            key = line.strip()
            if len(key) >= MIN_ANCHOR_CHARS:
                if key in seen:
                    twice.add(key)
                else:
                    seen[key] = bisect.bisect_left(self.starts, at)
            at += len(line)
        self.once = {key: token for key, token in seen.items() if key not in twice}
        self.by_token = sorted((token, key) for key, token in self.once.items())


class OldPlaces:
    """Where old spans stand now: each (text then, text now) pair compared once (a long pair:
    once a window), within ``DIFF_BUDGET`` for all of them (the second look for moved words is
    charged to it too)."""

    def __init__(self, budget: int = DIFF_BUDGET) -> None:
        self.left = budget
        # whether the last ``place`` left its look for moved words undone for the budget: its None
        # then does not mean that the span's words are gone
        self.cut_short = False
        self._pairs: dict[tuple, _Compared | None] = {}
        self._lines: dict[tuple[str, str], tuple[_Lines, _Lines]] = {}
        self._texts: dict[tuple[str, str], tuple[list[re.Match], list[int]]] = {}  # ``_tokens_of``, by document
        self._runs: dict[str, set[tuple[str, ...]]] = {}  # ... and a text now's runs of ``ANCHOR_RUN`` tokens
        self._heads: dict[tuple[str, str], tuple[list[int], list[tuple[str, ...]]]] = {}  # ``_headings``, by document

    def _compared(self, key: tuple[str, str], old: str, start: int, end: int, new: str,
                  reach: int | None = None) -> _Compared | None:
        """The comparison ``old[start:end]`` is looked up in: the whole pair, or its window
        (``reach`` tokens on either side)."""
        if key not in self._pairs:
            a, b = _tokens(old), _tokens(new)
            if max(len(a), len(b)) > MAX_DIFF_TOKENS:
                self._pairs[key] = None
                self._lines[key] = _Lines(old, a), _Lines(new, b)
            else:
                self._pairs[key] = self._compare(a, b, new)
        if key not in self._lines:
            return self._pairs[key]
        window = self._window(key, start, end, reach)
        if window is None:
            return None
        if window not in self._pairs:
            (oa, ob), (na, nb) = window[1:]
            lines_a, lines_b = self._lines[key]
            b = lines_b.tokens[na:nb]
            self._pairs[window] = self._compare(lines_a.tokens[oa:ob], b, new, (b[0].start(), b[-1].end()))
        return self._pairs[window]

    def _compare(self, a: list[re.Match], b: list[re.Match], new: str,
                 new_range: tuple[int, int] | None = None) -> _Compared | None:
        cost = len(a) * len(b)
        if not a or not b or cost > self.left:
            return None
        self.left -= cost
        matcher = difflib.SequenceMatcher(None, [m.group().casefold() for m in a], [m.group().casefold() for m in b])
        return _Compared(a, b, matcher.get_matching_blocks(), new, new_range)

    def _window(self, key: tuple[str, str], start: int, end: int, reach: int | None) -> tuple | None:
        """A long pair's window around ``old[start:end]``: ``reach`` tokens (by default
        ``WINDOW_TOKENS``) of the old text on either side of the span, and the new text's
        stretch that the old window's unchanged lines went to (each such line projects the old
        window onto the new text; the union of the projections, ``reach`` wider on either side,
        at most ``MAX_DIFF_TOKENS`` tokens around their median). None when no unchanged line
        stands in the old window."""
        old, new = self._lines[key]
        first, last = bisect.bisect_left(old.starts, start), bisect.bisect_left(old.starts, end)
        if last - first > MAX_DIFF_TOKENS:
            return None
        reach = WINDOW_TOKENS if reach is None else reach
        oa, ob = max(0, first - reach), min(len(old.tokens), last + reach)
        inside = old.by_token[bisect.bisect_left(old.by_token, (oa, "")):bisect.bisect_left(old.by_token, (ob, ""))]
        shifts = [new.once[k] - i for i, k in inside if k in new.once]
        if not shifts:
            return None
        na, nb = oa + min(shifts) - reach, ob + max(shifts) + reach
        if nb - na > MAX_DIFF_TOKENS:  # lines scattered far apart: the window around their median
            middle = (oa + ob) // 2 + int(statistics.median_low(shifts))
            na, nb = middle - MAX_DIFF_TOKENS // 2, middle + MAX_DIFF_TOKENS // 2
        na, nb = max(0, na), min(len(new.tokens), nb)
        if na >= nb:
            return None
        return key, (oa, ob), (na, nb)

    def may_anchor(self, key: tuple[str, str], old: str, start: int, end: int, new: str) -> bool:
        """Whether ``new`` holds, consecutive, some ``ANCHOR_RUN`` words of the text around
        ``old[start:end]`` that ``_anchored`` would look for: without one, ``place`` cannot say
        anchored, and the two texts need not be compared. Linear in the texts (each one's tokens
        and the new one's runs are listed once), where a comparison costs their product: a gone
        page followed into the pages its quote's nearest passages stand in asks this of each first
        (on Vue's guide those comparisons spent the whole budget, and most could not anchor)."""
        a, starts = self._tokens_of(("then", key[0]), old)
        first, last = _token_range(a, starts, start, end)
        if first == last:
            return False
        if key[1] not in self._runs:
            b = [t.group().casefold() for t in self._tokens_of(("now", key[1]), new)[0]]
            self._runs[key[1]] = {tuple(b[k:k + ANCHOR_RUN]) for k in range(len(b) - ANCHOR_RUN + 1)}
        runs = self._runs[key[1]]
        lo, hi = _around(a, first, last)
        around = [a[lo:first], a[last:hi]]
        return any(all(_WORD.search(t.group()) for t in side[k:k + ANCHOR_RUN])
                   and tuple(t.group().casefold() for t in side[k:k + ANCHOR_RUN]) in runs
                   for side in around for k in range(len(side) - ANCHOR_RUN + 1))

    def best_around(self, key: tuple[str, str], old: str, start: int, end: int, new: str,
                    places: list[tuple[int, int]]) -> int | None:
        """Which place ``[s, e)`` of ``new`` has around it the most words of the text that was
        around ``old[start:end]``, in order (``_around`` on each side, the same count of words
        then and now): ``NEIGHBOURS`` words a side, doubled up to ``WIDEST_AROUND`` while the
        best is tied; None while it stays tied. A page that repeats a passage has one place for
        each repeat, and the page's comparison aligns the old span with one of them by its own
        order, which is a guess where the repeats' surroundings are alike: Poetry's CLI page
        copied the ``install`` section's paragraphs into a new ``sync`` section, "use the exact
        versions from there instead of resolving" in both with the same sentence before it,
        and the comparison put the ``install`` label's words in ``sync``'s; twenty words out,
        "poetry install" and "poetry sync" tell the copy from the original, which still stands
        among the text that was around it. Linear in the texts but for the sides compared."""
        a, a_starts = self._tokens_of(("then", key[0]), old)
        b, b_starts = self._tokens_of(("now", key[1]), new)
        words = NEIGHBOURS
        while places and words <= WIDEST_AROUND:
            then = _sides(a, a_starts, start, end, words)
            agree = [sum(_words_in_order(x, y) for x, y in zip(then, _sides(b, b_starts, s, e, words)))
                     for s, e in places]
            best = max(agree)
            if agree.count(best) == 1:
                return agree.index(best)
            words *= 2
        return None

    def single_out(self, key: tuple[str, str], old: str, start: int, end: int, new: str,
                   places: list[tuple[int, int]], mine: int | None) -> int | None:
        """Which of ``places`` (the occurrences ``[s, e)`` of one passage in ``new``) is where
        ``old[start:end]`` stood: the one that at least two of three signals name, or None. The
        signals: the page's comparison (``mine``, the occurrence its place is in), the text around
        (``best_around``), and the section (the one occurrence in a section titled most like the
        one the span stood in, ``_same_heading``). Each alone can be a guess: the comparison aligns
        repeats by its own order, a copy's surroundings are alike, a page repeats headings (its
        ``[project]`` and ``[tool.poetry]`` tables each have an ``authors`` section). Poetry's
        CLI page copied the ``install`` section into a new ``sync`` one: the comparison put
        the ``install`` labels in ``sync``, while their surroundings and their heading named
        ``install``."""
        votes = [mine, self.best_around(key, old, start, end, new, places),
                 self._same_heading(key, old, start, new, places)]
        return next((v for v in votes if v is not None and votes.count(v) >= 2), None)

    def _same_heading(self, key: tuple[str, str], old: str, start: int, new: str,
                      places: list[tuple[int, int]]) -> int | None:
        """The one place of ``places`` whose section is most like the one over ``old[start]``:
        the most titles of its heading path in order (``_heading_path``: the innermost alone will
        not do, a copied section has the same sub-headings, ``install`` and ``sync`` each an
        ``Options``), None on a tie."""
        then = self._heading_path(("then", key[0]), old, start)
        alike = [_titles_in_order(then, self._heading_path(("now", key[1]), new, s)) for s, _ in places]
        best = max(alike, default=0)
        return alike.index(best) if best and alike.count(best) == 1 else None

    def _heading_path(self, key: tuple[str, str], text: str, offset: int) -> tuple[str, ...]:
        """The titles of the sections ``offset`` of ``text`` is in, outermost first
        (``_headings``, read once a document: a block parse, linear in the text)."""
        if key not in self._heads:
            self._heads[key] = _headings(text)
        starts, paths = self._heads[key]
        at = bisect.bisect_right(starts, offset) - 1
        return paths[at] if at >= 0 else ()

    def phrase_around(self, key: tuple[str, str], old: str, start: int, end: int, new: str, s: int, e: int) -> bool:
        """Whether a phrase (``ANCHOR_RUN`` consecutive words) of the ``NEIGHBOURS`` words on one
        side of ``old[start:end]`` stands among the twice as many on that side of ``new[s:e]``:
        ``Where.beside`` and ``Where.anchored`` for a place the comparison did not align (a
        repeat ``single_out`` names instead of the comparison's). The marks between the words are
        passed over, as ``_around`` passes over them counting: beside an option's markup every
        word stands between marks (Poetry's "by passing the `-E|--extras` option (See
        [Extras](/docs/pyproject/#extras)", whose link's target alone changed)."""
        a, a_starts = self._tokens_of(("then", key[0]), old)
        b, b_starts = self._tokens_of(("now", key[1]), new)
        then = _sides(a, a_starts, start, end, NEIGHBOURS)
        now = _sides(b, b_starts, s, e, 2 * NEIGHBOURS)
        return any(_shares_phrase(_words_only(x), _words_only(y)) for x, y in zip(then, now))

    def _tokens_of(self, key: tuple[str, str], text: str) -> tuple[list[re.Match], list[int]]:
        """A text's tokens and where each starts, listed once a document (many labels ask)."""
        if key not in self._texts:
            tokens = _tokens(text)
            self._texts[key] = tokens, [t.start() for t in tokens]
        return self._texts[key]

    def comparable(self, key: tuple[str, str], old: str, start: int, end: int, new: str,
                   reach: int | None = None) -> bool:
        """Whether the pair (for a long pair, the window around ``old[start:end]``) is within
        the comparison's bounds (``place`` can say where)."""
        return self._compared(key, old, start, end, new, reach) is not None

    def place(self, key: tuple[str, str], old: str, start: int, end: int, new: str,
              reach: int | None = None) -> Where | None:
        """Where the words of ``old[start:end]`` (a span of a document's text then) stand in
        ``new`` (its text now): from the first word of the span the comparison keeps to the
        last (a punctuation mark kept at either end does not stretch it: the "." after an
        edited sentence would pull in a link before it), widened to whole words (runs of
        non-space characters, but not into a link's target: words made a link, "the usual
        way" now "the usual way](/docs/concepts/jobs_instances/#…)", end at their text, not
        in a URL); ``None`` when it keeps none, or the texts (a long pair: the
        window around the span) are past the bounds. ``key`` names the pair (the documents'
        ids). ``Where.beside`` says whether the text around the span stands beside it still.
        ``reach``: of a long pair, the tokens on either side of the span its window holds.

        A comparison keeps words in one order: words of the span that moved within their
        sentence ("X to do Y" rewritten "To do Y, X") are left over. They are looked for
        again among the new words of the paragraph the kept ones stand in that the comparison
        left unaligned (within ``MOVED_REACH`` times the span's length of them), in runs of
        ``MIN_MOVED_RUN`` tokens or more (fewer may be chance). A span none of whose words the
        comparison keeps may have moved with its paragraph: its words are looked for so among
        all the new words left unaligned (``_moved``). Such a place is seldom beside the text that
        was around the span (that moved too, and was aligned with none), so it is mostly a
        nearest passage's bar that applies it."""
        self.cut_short = False
        c = self._compared(key, old, start, end, new, reach)
        if c is None:
            return None
        span = [i for i in range(bisect.bisect_left(c.a_starts, start), bisect.bisect_left(c.a_starts, end))
                if c.a[i].end() <= end]
        kept = _densest([c.new_of[i] for i in span if c.new_of[i] >= 0], SPREAD * len(span) + SPREAD_SLACK) \
            or self._moved(c, span)
        if not kept:
            return None
        lo, hi = c.paragraph(c.b[kept[0]].start(), c.b[kept[-1]].end(), len(new))
        left_old = [i for i in span if c.new_of[i] < 0]
        reach = MOVED_REACH * len(span)
        first = max(bisect.bisect_left(c.b_starts, lo), kept[0] - reach)
        last = min(bisect.bisect_left(c.b_starts, hi), kept[-1] + reach + 1)
        left_new = [j for j in range(first, last) if c.b[j].end() <= hi and not c.new_aligned[j]]
        if left_old and left_new and len(left_old) * len(left_new) <= self.left:
            self.left -= len(left_old) * len(left_new)
            again = difflib.SequenceMatcher(None, [c.a[i].group().casefold() for i in left_old],
                                            [c.b[j].group().casefold() for j in left_new], autojunk=False)
            kept += [left_new[j + k] for _, j, n in again.get_matching_blocks() if n >= MIN_MOVED_RUN
                     for k in range(n)]
        kept.sort()
        kept = _one_sentence(c, span, kept)
        words = [j for j in kept if _WORD.search(c.b[j].group())] or kept
        s, e = c.b[words[0]].start(), c.b[words[-1]].end()
        while s > 0 and not new[s - 1].isspace():
            s -= 1
        while e < len(new) and not new[e].isspace() and not new.startswith(_LINK_TARGET, e):
            e += 1
        beside = _phrase_beside(c, span, kept[0], kept[-1]) or _beside(c, span, kept[0], kept[-1])
        return Where(s, e, beside, _anchored(c, span, kept[0], kept[-1]))

    def _moved(self, c: _Compared, span: list[int]) -> list[int]:
        """The span's words found again among the new words the comparison left unaligned,
        anywhere in the compared text, in runs of ``MIN_MOVED_RUN`` tokens or more, those that
        stand together (``_densest``): a paragraph moved within its page, edited or not, which a
        comparison keeping one order aligns nowhere."""
        left_new, again = c.unaligned()
        if not span or not left_new:
            return []
        if len(span) * len(left_new) > self.left:
            self.cut_short = True
            return []
        self.left -= len(span) * len(left_new)
        again.set_seq1([c.a[i].group().casefold() for i in span])
        found = [left_new[j + k] for _, j, n in again.get_matching_blocks() if n >= MIN_MOVED_RUN for k in range(n)]
        return _densest(found, SPREAD * len(span) + SPREAD_SLACK)


class Where(NamedTuple):
    """A place: ``[start, end)`` of the text now, whether the text around the span then
    stands beside it now (``_beside``, or ``_phrase_beside``), and whether the page's
    comparison aligned a phrase of it there (``_anchored``: what a gone page's passage in
    another page needs, where a phrase found by comparing the neighbourhoods alone may be an
    idiom two pages share, "defined outside of Vue (e.g., using the Web Components API")."""

    start: int
    end: int
    beside: bool
    anchored: bool = False


def _beside(c: _Compared, span: list[int], first: int, last: int) -> bool:
    """Whether some of the words among the ``NEIGHBOURS`` tokens before the span (then) stand
    within twice that many tokens before its first kept token (now), or some of those after it
    after its last: the passage is between the text that was around the quote, not words of it
    that the comparison found among other text (a page rewritten, "always stretch to the" now
    in a note a hundred lines down). A "." or a backtick kept nearby says nothing of that."""
    before = range(max(0, span[0] - NEIGHBOURS), span[0])
    after = range(span[-1] + 1, min(len(c.a), span[-1] + 1 + NEIGHBOURS))

    def kept(i: int) -> bool:
        return c.new_of[i] >= 0 and _WORD.search(c.a[i].group()) is not None

    return any(first - 2 * NEIGHBOURS <= c.new_of[i] < first for i in before if kept(i)) \
        or any(last < c.new_of[i] <= last + 2 * NEIGHBOURS for i in after if kept(i))


def _around(tokens: list[re.Match], first: int, last: int, words: int | None = None) -> tuple[int, int]:
    """The text around ``tokens[first:last]`` that a phrase is looked for in: from ``lo`` to
    ``first`` and from ``last`` to ``hi``, ``NEIGHBOURS`` words on each side with the marks among
    them (at most ``MAX_AROUND_TOKENS`` tokens a side; ``words`` instead of ``NEIGHBOURS``: at most
    four tokens a word). Counted in words, not tokens: a quote
    between markup has its neighbours' words further off (Vue's style guide, a bold rule
    between `<sup data-p="b">strongly recommended</sup>` and `kebab-case.**`, had no three words
    in a row within eight tokens, though the rule's next sentence stood unchanged beside it)."""
    words = NEIGHBOURS if words is None else words
    reach = MAX_AROUND_TOKENS * words // NEIGHBOURS

    def side(indices: range) -> int:
        seen = 0
        for at in indices:
            if seen == words:
                return at
            seen += _WORD.match(tokens[at].group()) is not None
        return indices.stop

    lo = side(range(first - 1, max(-1, first - 1 - reach), -1)) + 1
    hi = side(range(last, min(len(tokens), last + reach)))
    return lo, hi


def _token_range(tokens: list[re.Match], starts: list[int], start: int, end: int) -> tuple[int, int]:
    """``[first, last)``: the tokens that lie within ``[start, end)`` of their text."""
    first, last = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    while last > first and tokens[last - 1].end() > end:
        last -= 1
    return first, last


def _sides(tokens: list[re.Match], starts: list[int], start: int, end: int,
           words: int) -> tuple[list[str], list[str]]:
    """The tokens (casefolded) ``_around`` those within ``[start, end)``, ``words`` words a side:
    before, after."""
    first, last = _token_range(tokens, starts, start, end)
    lo, hi = _around(tokens, first, last, words)
    return [t.group().casefold() for t in tokens[lo:first]], [t.group().casefold() for t in tokens[last:hi]]


def _headings(text: str) -> tuple[list[int], list[tuple[str, ...]]]:
    """Where each heading of ``text`` starts (ascending offsets) and the titles of the section it
    opens, outermost first (the headings above it of lower levels), case and spaces folded."""
    doc = Document("", text, "")
    starts: list[int] = []
    paths: list[tuple[str, ...]] = []
    open_: list[tuple[int, str]] = []  # (level, title) of the sections the next heading is in
    for h in parse_blocks(doc).headings:
        while open_ and open_[-1][0] >= h.level:
            open_.pop()
        open_.append((h.level, " ".join(h.text.split()).casefold()))
        starts.append(doc.line_starts[h.first])
        paths.append(tuple(title for _, title in open_))
    return starts, paths


def _titles_in_order(then: tuple[str, ...], now: tuple[str, ...]) -> int:
    """How many titles of the heading path ``then`` stand in ``now`` in the same order."""
    return sum(n for *_, n in difflib.SequenceMatcher(None, then, now, autojunk=False).get_matching_blocks())


def _words_in_order(then: list[str], now: list[str]) -> int:
    """How many words (not marks) of ``then`` stand in ``now`` in the same order."""
    blocks = difflib.SequenceMatcher(None, then, now, autojunk=False).get_matching_blocks()
    return sum(1 for i, _, n in blocks for w in then[i:i + n] if _WORD.search(w))


def _anchored(c: _Compared, span: list[int], first: int, last: int) -> bool:
    """Whether a phrase of the text around the span (``ANCHOR_RUN`` consecutive words in
    ``_around`` on one side) stands consecutive beside the place now (within twice as many
    tokens as that side holds, on its side): stronger than ``_beside``'s one word, which two
    unrelated pages compared share by chance ("the", "as"). It is what says a page that took
    the quote took its paragraph (Vue's "you want to, for example, programmatically focus this
    input" → "... an input"), not that another page uses the quote's phrase ("you can think
    of"; "'s options", a mark and two words, was chance too: "set in the child's options" and
    "set ... in the component's options" are two pages' sentences)."""
    def run_at(i: int) -> bool:
        ids = range(i, i + ANCHOR_RUN)
        return all(0 <= k < len(c.a) and c.new_of[k] >= 0 and c.new_of[k] == c.new_of[i] + (k - i)
                   and _WORD.search(c.a[k].group()) for k in ids)

    lo, hi = _around(c.a, span[0], span[-1] + 1)
    before = range(lo, span[0] - ANCHOR_RUN + 1)
    after = range(span[-1] + 1, hi - ANCHOR_RUN + 1)
    return any(run_at(i) and first - 2 * (span[0] - lo) <= c.new_of[i] < first for i in before) \
        or any(run_at(i) and last < c.new_of[i] <= last + 2 * (hi - span[-1] - 1) for i in after)


def _phrase_beside(c: _Compared, span: list[int], first: int, last: int) -> bool:
    """``_anchored`` compared locally: the ``NEIGHBOURS`` tokens on one side of the span then
    with the twice as many on that side of the place now, alone (no junk heuristic), sharing a
    phrase of ``ANCHOR_RUN`` consecutive words. The page's comparison calls a word that is
    frequent in the page junk and may align it nowhere: Jekyll's release guide, "Be sure to open
    a" still followed by "pull request for your release post", none of which it aligned. It
    says *beside* only: between two pages, a phrase next to the quote may be an idiom both use."""
    def words(tokens: list[re.Match]) -> list[str]:
        return [t.group().casefold() for t in tokens]

    before = (words(c.a[max(0, span[0] - NEIGHBOURS):span[0]]), words(c.b[max(0, first - 2 * NEIGHBOURS):first]))
    after = (words(c.a[span[-1] + 1:span[-1] + 1 + NEIGHBOURS]), words(c.b[last + 1:last + 1 + 2 * NEIGHBOURS]))
    return any(_shares_phrase(then, now) for then, now in (before, after))


def _words_only(tokens: list[str]) -> list[str]:
    """``tokens`` without the marks among them."""
    return [t for t in tokens if _WORD.search(t)]


def _shares_phrase(then: list[str], now: list[str]) -> bool:
    """Whether ``ANCHOR_RUN`` consecutive words of ``then`` stand consecutive in ``now``."""
    blocks = difflib.SequenceMatcher(None, then, now, autojunk=False).get_matching_blocks()
    return any(all(_WORD.search(w) for w in then[k:k + ANCHOR_RUN])
               for i, _, n in blocks for k in range(i, i + n - ANCHOR_RUN + 1))


def _one_sentence(c: _Compared, span: list[int], kept: list[int]) -> list[int]:
    """``kept`` (ascending new tokens) without a few words past a sentence end at either edge
    when the span had no sentence end ("." "!" "?" before a capital): at most ``STRAY_WORDS``
    of them in the next (or previous) sentence are chance. Homebrew's "will call `compinit`
    for you, so this" became "will call `compinit` for you when you source `oh-my-zsh.sh`. In
    this case, ...": the comparison keeps "this" of the next sentence. More of the span's words
    there are the sentence split in two ("are tracked on the stack. They are no longer
    stashed in types"), and stay."""
    if len(kept) < 2 or any(_ends_sentence(c.a, i) for i in span[:-1]):
        return kept
    parts: list[list[int]] = [[kept[0]]]
    for prev, j in zip(kept, kept[1:]):
        if any(_ends_sentence(c.b, k) for k in range(prev, j)):
            parts.append([])
        parts[-1].append(j)

    def words(part: list[int]) -> int:
        return sum(1 for j in part if _WORD.search(c.b[j].group()))

    while len(parts) > 1 and words(parts[-1]) <= STRAY_WORDS:
        parts.pop()
    while len(parts) > 1 and words(parts[0]) <= STRAY_WORDS:
        parts.pop(0)
    return [j for part in parts for j in part]


def _ends_sentence(tokens: list[re.Match], i: int) -> bool:
    """Whether token ``i`` ends a sentence: a "." "!" or "?" the next token, a capital, follows."""
    return tokens[i].group() in _SENTENCE_END and i + 1 < len(tokens) and tokens[i + 1].group()[0].isupper()


def _densest(kept: list[int], reach: int) -> list[int]:
    """The longest run of ``kept`` (ascending token positions) that lies within ``reach``
    tokens (the first such run on a tie): where the span's words stand together. A few of its
    words the comparison matched far from the others ("be", "the", a backtick) are chance, not
    the quote, and would stretch the place across blocks."""
    best = (0, 0)
    lo = 0
    for hi, at in enumerate(kept):
        while at - kept[lo] >= reach:
            lo += 1
        if hi + 1 - lo > best[1] - best[0]:
            best = (lo, hi + 1)
    return kept[best[0]:best[1]]


# The span's kept words stand within this many times its length in tokens (plus the slack) of
# each other: twice the quote, room for words inserted into it, as an edit adds a clause.
SPREAD = 2
SPREAD_SLACK = 4
STRAY_WORDS = 2  # the span's words past a sentence end at a place's edge, at most, that are chance
ANCHOR_RUN = 3  # consecutive words of the text around a span that make a phrase (``_anchored``)
NEIGHBOURS = 8  # tokens on either side of a span that say whether its place is still between them
# (words, with the marks among them, for a phrase of the text around it: ``_around``)
MAX_AROUND_TOKENS = 4 * NEIGHBOURS  # tokens on a side of a span ``_around`` reads, at most
WIDEST_AROUND = 8 * NEIGHBOURS  # words a side ``best_around`` widens to, at most, telling repeats apart
MIN_MOVED_RUN = 3  # tokens in a run of the span's words found again in its paragraph, at least
MOVED_REACH = 4  # ... looked for within this many times the span's length (in tokens) of its kept words
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_SENTENCE_END = frozenset(".!?")
_LINK_TARGET = "]("  # where a Markdown link's text ends and its target begins
