"""``build --check``'s classes of drift (SPEC §13): which changed records a person must re-read.

A record can differ from the committed artifact for reasons that ask very different things of
a reviewer. Its *answer text changed*: the quote still resolves, but the span now holds other
words, and whether the label still answers its question is for a person to judge. Or only what
is *derived* from it moved: a paragraph inserted above shifted its offsets, an edit beside it
changed its chunk's id, and regenerating the artifact is all there is to do. A real history
(issue 35) listed 99–147 records of the second kind beside the few of the first, and nobody
could tell them apart.

The artifact stores offsets, not text, so the committed spans' text is read from the documents
they were taken from. The committed manifest pins each of those by the sha256 of its canonical
text (``docs``), which is enough to find it again and to know it is the right one:

- a document whose sha256 has not changed is read from the current corpus;
- one that changed is asked of ``OldTexts`` by that sha256 (``build --check`` asks git for the
  revisions that committed the manifest, ``commands/committed_corpus.py``), and a text is used
  only if it hashes to it, so a wrong revision can never make a changed answer look unchanged.

Nothing is added to the artifact or the manifest (a span-text digest would be a key SPEC §6 does
not have, and every committed golden set would drift the day labeller started writing it). When
no revision holds the old text (no git, a shallow clone), the record is *not comparable* and is
reported with the first class: nobody can say that nothing needs reading.

Texts are compared with whitespace runs folded as a quote matches them (SPEC §2): a re-wrapped
paragraph holds the same answer. The document a span is in is not compared: a label moved to a
renamed file with its text unchanged has nothing new to read (the questions diff shows the move).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from labeller.core.answer_text import folded
from labeller.core.canon import sha256_hex
from labeller.core.corpus import Corpus

# {doc_id: sha256 of the committed build's canonical text} → {doc_id: that text} for the ones
# found (every text is checked against its sha256 here, whoever supplied it)
OldTexts = Callable[[Mapping[str, str]], Mapping[str, str]]

# Span characters a check compares, at most: a committed artifact comes with the pull request,
# and 10,000 records of 64 planted spans each over a 20 MiB document would be 12 T characters to
# fold. Far above a real golden set's (its spans are blocks; 200 M is 2,000 whole 100 KB
# documents); past it, the later records are not comparable.
MAX_COMPARED_CHARS = 200_000_000

# the artifact's keys a person writes (questions.jsonl); the others are derived by the build
AUTHORED_KEYS = ("expected_answer", "hop", "query", "split", "tags", "unanswerable")


@dataclass
class DriftClasses:
    """Each changed record in exactly one class, in the new artifact's order."""

    answer_text_changed: list[str] = field(default_factory=list)
    not_comparable: list[str] = field(default_factory=list)  # the committed text could not be found
    edited_only: list[str] = field(default_factory=list)  # questions.jsonl fields edited; answer text identical
    derived_only: list[str] = field(default_factory=list)  # offsets, blocks or chunk ids moved; nothing to read

    @property
    def to_reread(self) -> list[str]:
        """The records a person must read again: their answer text changed or could not be compared."""
        return [*self.answer_text_changed, *self.not_comparable]

    def rows(self) -> list[tuple[str, list[str]]]:
        """The classes as the text and Markdown reports list them, the ones to re-read first
        (SPEC §13), each only when not empty."""
        rows = [(f"answer text changed: {len(self.answer_text_changed)} record(s) to re-read",
                 self.answer_text_changed),
                (f"answer text not comparable: {len(self.not_comparable)} record(s) to re-read (the committed "
                 "build's documents are not in this checkout's git history)", self.not_comparable),
                (f"edited only: {len(self.edited_only)} record(s) whose questions.jsonl fields changed, answer "
                 "text identical", self.edited_only),
                (f"derived only: {len(self.derived_only)} record(s) whose offsets or chunk ids moved, answer text "
                 "identical (regenerate, nothing to read)", self.derived_only)]
        return [(label, items) for label, items in rows if items]

    def as_json(self) -> dict:
        """The four lists under their JSON names and their counts (``class_counts``)."""
        lists = {"answer_text_changed": self.answer_text_changed, "answer_text_not_comparable": self.not_comparable,
                 "edited_only": self.edited_only, "derived_only": self.derived_only}
        return lists | {"class_counts": {k: len(v) for k, v in lists.items()}}


def classify(changed: list[str], old: Mapping[str, dict], new: Mapping[str, dict], corpus: Corpus,
             old_manifest: Mapping, old_texts: OldTexts | None) -> DriftClasses:
    """The classes of the ``changed`` records (ids in both ``old`` and ``new``, artifact records
    as dicts); ``old_manifest`` is the committed manifest (``{}`` when unreadable)."""
    docs = old_manifest.get("docs")
    old_docs: Mapping = docs if isinstance(docs, dict) else {}
    texts = _committed_texts(changed, old, corpus, old_docs, old_texts)
    current = {doc_id: doc.text for doc_id, doc in corpus.docs.items()}
    out = DriftClasses()
    left = [MAX_COMPARED_CHARS]
    for rid in changed:
        before = _span_texts(old[rid], texts, left)
        after = _span_texts(new[rid], current, left)
        if before is None or after is None:
            out.not_comparable.append(rid)
        elif before != after:
            out.answer_text_changed.append(rid)
        elif any(old[rid].get(k) != new[rid].get(k) for k in AUTHORED_KEYS):
            out.edited_only.append(rid)
        else:
            out.derived_only.append(rid)
    return out


def _committed_texts(changed: list[str], old: Mapping[str, dict], corpus: Corpus, old_docs: Mapping,
                     old_texts: OldTexts | None) -> dict[str, str]:
    """The committed build's text of every document the changed records' old spans are in,
    where it can be had: the current text when its sha256 is the committed one, else
    ``old_texts``'s (checked)."""
    wanted: dict[str, str] = {}
    for rid in changed:
        for doc_id, _, _ in _spans(old[rid]) or ():
            entry = old_docs.get(doc_id)
            sha = entry.get("sha256") if isinstance(entry, dict) else None
            if isinstance(sha, str):
                wanted[doc_id] = sha
    found = {d: corpus.docs[d].text for d, sha in wanted.items() if d in corpus.docs and corpus.docs[d].sha256 == sha}
    missing = {d: sha for d, sha in wanted.items() if d not in found}
    if missing and old_texts is not None:
        found |= {d: text for d, text in old_texts(missing).items() if d in missing and sha256_hex(text) == missing[d]}
    return found


def _spans(record: dict) -> list[tuple[str, int, int]] | None:
    """The record's ``answer_spans`` as (doc, start, end); ``None`` when malformed (a hand-edited
    or planted artifact)."""
    spans = record.get("answer_spans")
    if not isinstance(spans, list):
        return None
    out = []
    for s in spans:
        if not (isinstance(s, dict) and isinstance(s.get("doc_id"), str) and type(s.get("char_start")) is int
                and type(s.get("char_end")) is int and 0 <= s["char_start"] <= s["char_end"]):
            return None
        out.append((s["doc_id"], s["char_start"], s["char_end"]))
    return out


def _span_texts(record: dict, texts: Mapping[str, str], left: list[int]) -> list[str] | None:
    """The record's span texts, whitespace folded; ``None`` when one cannot be read, or when
    reading it would spend more than the characters ``left`` (``MAX_COMPARED_CHARS`` a check)."""
    spans = _spans(record)
    if spans is None:
        return None
    out = []
    for doc_id, start, end in spans:
        text = texts.get(doc_id)
        if text is None or end > len(text) or end - start > left[0]:
            return None
        left[0] -= end - start
        out.append(folded(text[start:end]))
    return out
