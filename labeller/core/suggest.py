"""Help for refused quotes: nearest passages and the shortest unique extension.

These are offered to the author and never applied on their own: a fuzzy match that
silently relabels a record would point the golden set at text nobody chose.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from labeller.core.anchors import Occurrence, _find_overlapping

if TYPE_CHECKING:
    from labeller.core.resolve import Resolver

_WS_RUN = re.compile(r"\s+")
MAX_EXTENSION_WORDS = 12
N_SUGGESTIONS = 3
MIN_SCORE = 50.0


def nearest_passages(resolver: "Resolver", folded: str, doc_id: str | None) -> list[dict]:
    """The closest chunk passages to a quote that was not found (rapidfuzz partial ratio)."""
    from rapidfuzz import fuzz, process  # only a refused quote needs it: builds skip the import

    chunks = resolver.chunks_of(doc_id) if doc_id else [c for cs in resolver.chunks.values() for c in cs]
    if not chunks:
        return []
    texts = [_WS_RUN.sub(" ", c.text) for c in chunks]
    best = process.extract(folded, texts, scorer=fuzz.partial_ratio, limit=N_SUGGESTIONS, score_cutoff=MIN_SCORE)
    out = []
    for _, score, i in best:
        chunk_text = texts[i]
        al = fuzz.partial_ratio_alignment(folded, chunk_text)
        s, e = al.dest_start, al.dest_end
        while s > 0 and chunk_text[s - 1] != " ":
            s -= 1
        while e < len(chunk_text) and chunk_text[e] != " ":
            e += 1
        passage = chunk_text[s:e].strip()
        if not passage:
            continue
        chunk = chunks[i]
        hits = resolver.index.find_all([passage], chunk.doc_id)[passage]
        doc = resolver.corpus[chunk.doc_id]
        where = doc.where(hits[0].start) if hits else doc.where(chunk.start)
        unique = resolver.index.count(passage, None if doc_id is None else doc_id) == 1
        out.append({"doc": chunk.doc_id, "quote": passage, "where": where, "score": round(score, 1),
                    "unique": unique})
    return out


def unique_extension(resolver: "Resolver", occ: Occurrence, folded: str, scope_doc: str | None) -> str | None:
    """The shortest quote, grown by whole words on either side, that matches only ``occ``."""
    fd = resolver.folded(occ.doc_id)
    text = fd.folded
    fstart = next((p for p in _find_overlapping(text, folded) if fd.occurrence(p, len(folded)).start == occ.start),
                  None)
    if fstart is None:
        return None
    fend = fstart + len(folded)
    lefts = [fstart]
    p = fstart
    while len(lefts) <= MAX_EXTENSION_WORDS and p > 0:
        p = text.rfind(" ", 0, p - 1) + 1 if text[p - 1] == " " else text.rfind(" ", 0, p) + 1
        lefts.append(p)
    rights = [fend]
    q = fend
    while len(rights) <= MAX_EXTENSION_WORDS and q < len(text):
        nxt = text.find(" ", q + 1 if text[q] == " " else q)
        q = len(text) if nxt == -1 else nxt
        rights.append(q)
    for total in range(1, 2 * MAX_EXTENSION_WORDS + 1):
        found = []
        for n_left in range(0, total + 1):
            n_right = total - n_left
            if n_left >= len(lefts) or n_right >= len(rights):
                continue
            cand = text[lefts[n_left]:rights[n_right]].strip()
            if cand != folded and resolver.index.count(cand, scope_doc) == 1:
                found.append(cand)
        if found:
            return min(found, key=lambda c: (len(c), c))
    return None
