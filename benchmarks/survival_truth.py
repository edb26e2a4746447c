"""Where each labelled quote went between two commits: the survival benchmark's ground truth.

It is computed without labeller, so that it can judge labeller: each document is aligned
word by word with its version at the later commit (``difflib.SequenceMatcher`` on
whitespace-separated tokens, no junk heuristic), the document followed through git's rename
pairing (``git diff -M``, passed in as ``renames``). A quote's words then either

- ``intact``: still stand, consecutive, in the same document: aligned where they stood, or
  standing verbatim among words the document received (words inserted, aligned with the
  quote's own, or aligned only by chance: a run shorter than ``CHANCE_RUN``), as a paragraph
  moved within its page does;
- ``renamed``: stand intact in the document git pairs as the renamed one;
- ``moved``: left their document and stand verbatim among the words received by exactly one
  other document; ``moved_ambiguous`` when several other documents received them;
- ``edited``: at least half of them are still aligned, close together, in the (possibly
  renamed) document but the quote no longer stands there verbatim;
- ``deleted``: none of the above.

Each fate carries the document and the character range (canonical text, SPEC §1, so that it
compares with labeller's spans) where the words now stand; for ``edited`` the range from the
first to the last surviving word.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

INTACT, RENAMED, MOVED, MOVED_AMBIGUOUS, EDITED, DELETED = (
    "intact", "renamed", "moved", "moved_ambiguous", "edited", "deleted")
FATES = (INTACT, RENAMED, MOVED, MOVED_AMBIGUOUS, EDITED, DELETED)

# An edited quote keeps at least this share of its words where it stood, and they stand
# within EDITED_MAX_SPREAD times its length (plus EDITED_SLACK words); otherwise it is deleted:
# a rewritten paragraph, or a few common words the alignment matched by chance.
EDITED_MIN_SHARE = 0.5
EDITED_MAX_SPREAD = 2
EDITED_SLACK = 4

# A run of aligned words shorter than this may be chance (common words matched between
# unrelated passages); it does not make a verbatim occurrence someone else's words.
CHANCE_RUN = 3

_TOKEN = re.compile(r"\S+")


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

    def occurrences(self, quote: tuple[str, ...]) -> list[int]:
        """Every token index where ``quote`` stands, token for token."""
        n = len(quote)
        return [i for i in range(len(self.tokens) - n + 1)
                if self.tokens[i] == quote[0] and self.tokens[i:i + n] == quote]


@dataclass
class Alignment:
    """One document's old tokens mapped onto its new version's (None: not aligned), and for
    each new token the old one it is aligned with (None: inserted) and the length of the
    matching run it lies in."""

    old_to_new: list[int | None]
    new_to_old: list[int | None]
    run: list[int]

    @classmethod
    def of(cls, old: Words | None, new: Words) -> "Alignment":
        old_tokens = old.tokens if old is not None else ()
        old_to_new: list[int | None] = [None] * len(old_tokens)
        new_to_old: list[int | None] = [None] * len(new.tokens)
        run = [0] * len(new.tokens)
        matcher = difflib.SequenceMatcher(None, old_tokens, new.tokens, autojunk=False)
        for a, b, size in matcher.get_matching_blocks():
            for k in range(size):
                old_to_new[a + k] = b + k
                new_to_old[b + k] = a + k
                run[b + k] = size
        return cls(old_to_new, new_to_old, run)

    def received(self, at: int, n: int, first: int | None) -> bool:
        """Do the ``n`` new tokens from ``at`` stand for the old quote starting at old token
        ``first`` (None: a quote from another document)? Each must be inserted, or aligned
        with that quote's own word, or aligned only by chance: a run shorter than
        ``CHANCE_RUN`` words, such as one "the" matched inside a section that moved."""
        for k in range(n):
            old = self.new_to_old[at + k]
            if old is not None and self.run[at + k] >= CHANCE_RUN and (first is None or old != first + k):
                return False
        return True


@dataclass(frozen=True)
class Fate:
    kind: str
    doc: str | None = None  # where the words now stand
    char_start: int | None = None
    char_end: int | None = None
    candidates: tuple[str, ...] = ()  # moved_ambiguous: every document that received the quote

    def as_json(self) -> dict:
        out: dict = {"fate": self.kind}
        if self.doc is not None:
            out["now"] = {"doc": self.doc, "char_start": self.char_start, "char_end": self.char_end}
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
        target = self.successor(doc)
        kept = RENAMED if target is not None and target != doc else INTACT
        if target is not None:
            mapped = self.alignment(target).old_to_new[first:last + 1]
            new = self.words("new", target)
            if all(j is not None for j in mapped) and mapped == list(range(mapped[0], mapped[0] + len(quote))):
                return Fate(kept, target, *new.chars(mapped[0], mapped[-1]))
            inside = self._received_at(target, quote, first)
            if inside is not None:
                return Fate(kept, target, *new.chars(inside, inside + len(quote) - 1))
        receivers = [(other, at) for other in sorted(self.new) if other != target
                     for at in [self._received_at(other, quote, None)] if at is not None]
        if len(receivers) == 1:
            other, at = receivers[0]
            return Fate(MOVED, other, *self.words("new", other).chars(at, at + len(quote) - 1))
        if receivers:
            return Fate(MOVED_AMBIGUOUS, candidates=tuple(other for other, _ in receivers))
        if target is not None:
            survivors = [j for j in mapped if j is not None]
            if (survivors and len(survivors) >= EDITED_MIN_SHARE * len(quote)
                    and max(survivors) - min(survivors) < EDITED_MAX_SPREAD * len(quote) + EDITED_SLACK):
                return Fate(EDITED, target, *new.chars(min(survivors), max(survivors)))
        return Fate(DELETED)

    def _received_at(self, new_doc: str, quote: tuple[str, ...], first: int | None) -> int | None:
        """The first place where ``quote`` stands verbatim in ``new_doc`` as words it received
        (``Alignment.received``); ``first``: the quote's old position when ``new_doc`` is its
        own document's successor."""
        words = self.words("new", new_doc)
        if quote[0] not in words.tokens:  # most documents: no need to align them at all
            return None
        alignment = self.alignment(new_doc)
        return next((i for i in words.occurrences(quote) if alignment.received(i, len(quote), first)), None)
