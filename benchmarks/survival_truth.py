"""Where each labelled quote went between two commits: the survival benchmark's ground truth.

It is computed without labeller, so that it can judge labeller: each document is aligned
token by token with its version at the later commit (``difflib.SequenceMatcher``, no junk
heuristic; a token is a run of word characters or one punctuation mark, so that
"thread safe" and "thread-safe" share their words), the document followed through git's
rename pairing (passed in as ``renames``). What the first alignment leaves unmatched on both
sides is aligned again (``MOVE_PASSES`` times, runs of ``CHANCE_RUN`` tokens or more): a
section moved within its page, edited or not, is found where it went. A quote's words then
either

- ``intact``: still stand, consecutive, in the same document: aligned where they stood, or
  verbatim elsewhere in it (the quote was unique in the old corpus, so that is where the
  document received them: a paragraph moved within its page);
- ``renamed``: stand intact in the document git pairs as the renamed one (with the other
  documents that now hold them verbatim too, if any: SPEC §13 refuses such a quote as
  ambiguous, so the figures count it apart);
- ``moved``: left their document and stand verbatim in exactly one other document;
  ``moved_ambiguous`` when several other documents received them;
- ``edited``: at least half of its words (punctuation not counted) are still aligned, close
  together, in the (possibly renamed) document but the quote no longer stands there verbatim
  (whitespace folded, as labeller matches);
- ``deleted``: none of the above.

Where the document-wide alignment loses a quote (a page rewritten around it, or phrases
repeated in it that cross the alignment), its paragraph is paired with the one of the later
document most like it, if each is the other's best match, and the two are aligned alone. A
document git pairs with none (deleted, or renamed and reworded past git's similarity bar: the
Rust book's ``ch17-00-oop.md`` → ``ch18-00-oop.md``) has its quote's paragraph looked for so
among the later documents git pairs with none: found, the quote's fate is ``edited`` there.

Each fate carries the document and the character range (canonical text, SPEC §1, so that it
compares with labeller's spans) where the words now stand; for ``edited`` the range from the
first to the last surviving token of that window, and ``kept``: the share of the quote's words
(punctuation not counted) standing in that window — how much of the quote survived, by this
alignment and not by labeller's scoring.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field, replace

INTACT, RENAMED, MOVED, MOVED_AMBIGUOUS, EDITED, DELETED = (
    "intact", "renamed", "moved", "moved_ambiguous", "edited", "deleted")
FATES = (INTACT, RENAMED, MOVED, MOVED_AMBIGUOUS, EDITED, DELETED)

# An edited quote keeps at least this share of its words where it stood, within a window of
# EDITED_MAX_SPREAD times its length (plus EDITED_SLACK tokens); otherwise it is deleted: a
# rewritten paragraph, or a few common words the alignment matched by chance.
EDITED_MIN_SHARE = 0.5
EDITED_MAX_SPREAD = 2
EDITED_SLACK = 4

# The passes after the first align what is left on both sides; a shorter run there may be
# chance (common words matched between unrelated passages).
CHANCE_RUN = 3
MOVE_PASSES = 3
PARAGRAPH_MIN_RATIO = 0.4
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")

_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w")
_SPACE = re.compile(r"\s+")


def folded(text: str) -> str:
    """Whitespace runs as one space: what labeller's matching cannot tell apart."""
    return _SPACE.sub(" ", text)


def canonical(text: str) -> str:
    """SPEC §1's canonical text (one BOM dropped, LF line ends, NFC, a final LF), restated
    here so that this module needs nothing of labeller and its offsets are labeller's."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    return text if text.endswith("\n") else text + "\n"


@dataclass(frozen=True)
class Words:
    """A document's canonical text as whitespace-separated tokens with their character ranges."""

    text: str
    tokens: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> "Words":
        found = list(_TOKEN.finditer(text))
        return cls(text, tuple(m.group() for m in found), tuple(m.start() for m in found),
                   tuple(m.end() for m in found))

    def chars(self, first: int, last: int) -> tuple[int, int]:
        """The character range from token ``first`` through token ``last``."""
        return self.starts[first], self.ends[last]

    def occurrences(self, quote: tuple[str, ...], text: str) -> list[int]:
        """Every token index where ``quote`` stands, token for token and as the same text
        (whitespace folded: "a.b" and "a. b" are the same tokens, not the same text)."""
        n = len(quote)
        return [i for i in range(len(self.tokens) - n + 1)
                if self.tokens[i] == quote[0] and self.tokens[i:i + n] == quote
                and folded(self.text[self.starts[i]:self.ends[i + n - 1]]) == text]


def paragraphs(words: Words) -> list[tuple[int, int]]:
    """The token ranges ``[start, end)`` of the text's paragraphs (blank-line separated)."""
    out = []
    start = 0
    for t in range(1, len(words.tokens)):
        if _BLANK_LINE.search(words.text, words.ends[t - 1], words.starts[t]):
            out.append((start, t))
            start = t
    if words.tokens:
        out.append((start, len(words.tokens)))
    return out


@dataclass
class Alignment:
    """One document's old tokens mapped onto its new version's and back (None: not aligned,
    that is deleted or inserted)."""

    old_to_new: list[int | None]
    new_to_old: list[int | None]

    @classmethod
    def of(cls, old: Words | None, new: Words) -> "Alignment":
        return cls.between(old.tokens if old is not None else (), new.tokens)

    @classmethod
    def between(cls, old_tokens: tuple[str, ...], new_tokens: tuple[str, ...]) -> "Alignment":
        """Two token sequences aligned: one pass, then the passes over what is left."""
        aligned = cls([None] * len(old_tokens), [None] * len(new_tokens))
        aligned._match(old_tokens, new_tokens, range(len(old_tokens)), range(len(new_tokens)), 1)
        for _ in range(MOVE_PASSES):
            old_left = [i for i, j in enumerate(aligned.old_to_new) if j is None]
            new_left = [j for j, i in enumerate(aligned.new_to_old) if i is None]
            if not aligned._match(old_tokens, new_tokens, old_left, new_left, CHANCE_RUN):
                break
        return aligned

    def _match(self, old: tuple[str, ...], new: tuple[str, ...], old_at, new_at, min_run: int) -> bool:
        """Align ``old[old_at]`` with ``new[new_at]`` (index lists), keeping the runs of at
        least ``min_run`` tokens that are also consecutive in both documents; any kept?"""
        matcher = difflib.SequenceMatcher(None, [old[i] for i in old_at], [new[j] for j in new_at], autojunk=False)
        kept = False
        for a, b, size in matcher.get_matching_blocks():
            k = 0
            while k < size:  # split the block where it is not consecutive in the documents
                end = k + 1
                while (end < size and old_at[a + end] == old_at[a + end - 1] + 1
                       and new_at[b + end] == new_at[b + end - 1] + 1):
                    end += 1
                if end - k >= min_run:
                    kept = True
                    for m in range(k, end):
                        self.old_to_new[old_at[a + m]] = new_at[b + m]
                        self.new_to_old[new_at[b + m]] = old_at[a + m]
                k = end
        return kept


@dataclass(frozen=True)
class Fate:
    kind: str
    doc: str | None = None  # where the words now stand
    char_start: int | None = None
    char_end: int | None = None
    # moved_ambiguous: every document that received the quote; renamed: set only when the quote
    # also stands verbatim in other documents, all of them (the renamed one first)
    candidates: tuple[str, ...] = ()
    kept: float | None = None  # edited: the share of the quote's words kept where it stood (0-1)

    def as_json(self) -> dict:
        out: dict = {"fate": self.kind}
        if self.doc is not None:
            out["now"] = {"doc": self.doc, "char_start": self.char_start, "char_end": self.char_end}
        if self.kept is not None:
            out["kept_words"] = round(self.kept, 3)
        if self.candidates:
            out["candidates"] = list(self.candidates)
        return out


@dataclass
class History:
    """Two versions of a corpus (doc id → canonical text) and git's rename pairing between
    them; alignments are computed on first use and kept."""

    old: dict[str, str]
    new: dict[str, str]
    renames: dict[str, str]
    _words: dict[tuple[str, str], Words] = field(default_factory=dict)
    _aligned: dict[str, Alignment] = field(default_factory=dict)

    def words(self, side: str, doc: str) -> Words:
        key = (side, doc)
        if key not in self._words:
            self._words[key] = Words.of((self.old if side == "old" else self.new)[doc])
        return self._words[key]

    def successor(self, doc: str) -> str | None:
        """The document ``doc`` became: its rename, itself if it kept its path, else None."""
        if doc in self.renames:
            return self.renames[doc]
        return doc if doc in self.new else None

    def predecessor(self, doc: str) -> str | None:
        back = {new: old for old, new in self.renames.items()}
        if doc in back:
            return back[doc]
        return doc if doc in self.old and doc not in self.renames else None

    def alignment(self, new_doc: str) -> Alignment:
        """The new document aligned with its predecessor (an added one: every word inserted)."""
        if new_doc not in self._aligned:
            before = self.predecessor(new_doc)
            old = self.words("old", before) if before is not None else None
            self._aligned[new_doc] = Alignment.of(old, self.words("new", new_doc))
        return self._aligned[new_doc]

    def fate(self, doc: str, char_start: int, char_end: int) -> Fate:
        """Where the words of ``doc``'s old text in ``[char_start, char_end)`` went (the
        range must start and end on token boundaries)."""
        old = self.words("old", doc)
        first = old.starts.index(char_start)
        last = old.ends.index(char_end)
        quote = old.tokens[first:last + 1]
        text = folded(old.text[char_start:char_end])
        target = self.successor(doc)
        kept = RENAMED if target is not None and target != doc else INTACT
        found = None
        if target is not None:
            found = self._standing(self.alignment(target).old_to_new[first:last + 1], quote, text, target, kept)
            if found is not None and found.kind != EDITED:
                return self._also_elsewhere(found, quote, text)
            inside = self._verbatim_at(target, quote, text)
            if inside is not None:
                return self._also_elsewhere(
                    Fate(kept, target, *self.words("new", target).chars(inside, inside + len(quote) - 1)), quote, text)
        receivers = [(other, at) for other in sorted(self.new) if other != target
                     for at in [self._verbatim_at(other, quote, text)] if at is not None]
        if len(receivers) == 1:
            other, at = receivers[0]
            return Fate(MOVED, other, *self.words("new", other).chars(at, at + len(quote) - 1))
        if receivers:
            return Fate(MOVED_AMBIGUOUS, candidates=tuple(other for other, _ in receivers))
        if found is None and target is not None:
            found = self._in_paragraph(doc, [target], first, last, text, kept)
        if found is None and target is None:  # a document git pairs with none: renamed beyond git's bar?
            found = self._in_paragraph(doc, self.unpaired_new(), first, last, text, RENAMED)
        return found or Fate(DELETED)

    def _also_elsewhere(self, fate: Fate, quote: tuple[str, ...], text: str) -> Fate:
        """A renamed label's fate with ``candidates`` set when its quote now also stands verbatim
        in other documents (a page split in two, each half keeping a shared sentence): SPEC §13
        refuses such a quote as ambiguous, listing the documents, however git pairs the files."""
        if fate.kind != RENAMED:
            return fate
        others = [other for other in sorted(self.new) if other != fate.doc
                  and self._verbatim_at(other, quote, text) is not None]
        return replace(fate, candidates=(fate.doc, *others)) if others else fate

    def unpaired_new(self) -> list[str]:
        """The later documents git pairs with no earlier one (added, or renamed beyond its bar)."""
        return [d for d in sorted(self.new) if self.predecessor(d) is None]

    def _standing(self, mapped: list[int | None], quote: tuple[str, ...], text: str, target: str,
                  kept: str) -> Fate | None:
        """What the quote's tokens mapped into ``target`` (``mapped``) say: it stands there
        verbatim (``kept``), or edited, or nothing (None)."""
        new = self.words("new", target)
        at = mapped[0]
        if at is not None and mapped == list(range(at, at + len(quote))):
            region = new.chars(at, at + len(quote) - 1)
            if folded(new.text[region[0]:region[1]]) == text:
                return Fate(kept, target, *region)
        # the surviving tokens (where they went, and whether each is a word), in order, and the
        # window of the allowed spread holding the most surviving words
        survivors = sorted((j, bool(_WORD.match(token))) for j, token in zip(mapped, quote) if j is not None)
        spread = EDITED_MAX_SPREAD * len(quote) + EDITED_SLACK
        best: tuple[int, int, int] = (0, 0, 0)  # (words, first, last) as indexes into survivors
        lo = 0
        for hi in range(len(survivors)):
            while survivors[hi][0] - survivors[lo][0] >= spread:
                lo += 1
            words = sum(1 for _, is_word in survivors[lo:hi + 1] if is_word)
            if words > best[0]:
                best = (words, lo, hi)
        words = sum(1 for token in quote if _WORD.match(token))
        if best[0] and best[0] >= EDITED_MIN_SHARE * words:
            return Fate(EDITED, target, *new.chars(survivors[best[1]][0], survivors[best[2]][0]),
                        kept=best[0] / words)
        return None

    def _in_paragraph(self, doc: str, targets: list[str], first: int, last: int, text: str,
                      kept: str) -> Fate | None:
        """The fallback where the document-wide alignment lost the quote (a page rewritten
        around it, or phrases repeated in it crossing the alignment), or where git pairs its
        document with none: the quote's paragraph paired with the one paragraph of ``targets``
        most like it, if each is the other's best match (``difflib`` ratio, at least
        ``PARAGRAPH_MIN_RATIO``), and the two aligned alone as documents are (runs moved within
        the paragraph found by the passes after the first)."""
        old = self.words("old", doc)
        old_blocks = paragraphs(old)
        mine = next(b for b in old_blocks if b[0] <= first < b[1])

        def best(block: tuple[int, int], words: Words, others: list[tuple[Words, tuple[int, int]]]):
            matcher = difflib.SequenceMatcher(None, autojunk=False)
            matcher.set_seq2(words.tokens[block[0]:block[1]])
            scored = []
            for k, (other_words, other) in enumerate(others):
                matcher.set_seq1(other_words.tokens[other[0]:other[1]])
                if matcher.real_quick_ratio() >= PARAGRAPH_MIN_RATIO and matcher.quick_ratio() >= PARAGRAPH_MIN_RATIO:
                    scored.append((matcher.ratio(), k))
            top = max(scored, default=None)
            return top[1] if top is not None and top[0] >= PARAGRAPH_MIN_RATIO else None

        candidates = [(target, block) for target in targets for block in paragraphs(self.words("new", target))]
        at = best(mine, old, [(self.words("new", t), b) for t, b in candidates])
        if at is None:
            return None
        target, theirs = candidates[at]
        new = self.words("new", target)
        back = best(theirs, new, [(old, b) for b in old_blocks])
        if back is None or old_blocks[back] != mine:
            return None
        aligned = Alignment.between(old.tokens[mine[0]:mine[1]], new.tokens[theirs[0]:theirs[1]])
        mapped = [None if j is None else theirs[0] + j
                  for j in aligned.old_to_new[first - mine[0]:last + 1 - mine[0]]]
        return self._standing(mapped, old.tokens[first:last + 1], text, target, kept)

    def _verbatim_at(self, new_doc: str, quote: tuple[str, ...], text: str) -> int | None:
        """The first place where ``quote`` stands verbatim in ``new_doc``. Since the quote was
        unique in the old corpus, any such place holds words the document received."""
        words = self.words("new", new_doc)
        if quote[0] not in words.tokens:  # most documents
            return None
        return next(iter(words.occurrences(quote, text)), None)
