"""Near-duplicate questions: reported, never refused.

Synthetic test sets repeat themselves ("What is X?" / "What's X?"), and two near-identical
questions weigh one fact twice in every mean. Exact duplicates (after NFC and trimming) are
already refused by the questions file; near ones are only a warning, since two questions
may differ by the one word that matters.

Rule: both questions are normalised (NFC, whitespace runs as one space, trimmed,
``str.casefold``) and compared with rapidfuzz's ``fuzz.ratio`` (normalised Indel
similarity, 0–100); a pair scoring at least ``THRESHOLD`` is reported.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

THRESHOLD = 90.0
ROWS = 256


def _normal(query: str) -> str:
    return " ".join(unicodedata.normalize("NFC", query).split()).casefold()


def near_duplicates(new: list[tuple[str, str]], existing: Sequence[tuple[str, str]] = (),
                    threshold: float = THRESHOLD) -> list[dict]:
    """Pairs ``{"a", "b", "score"}`` among the ``(id, query)`` of ``new``, and between ``new``
    and ``existing`` (a record of the same id in both is one record being replaced), sorted
    by ``a``'s then ``b``'s position. ``a`` is always from ``new``."""
    from rapidfuzz import fuzz, process  # only needed when there is something to compare

    if not new:
        return []
    new_ids = {i for i, _ in new}
    pool = list(new) + [(i, q) for i, q in existing if i not in new_ids]
    queries = [_normal(q) for _, q in new]
    choices = [_normal(q) for _, q in pool]
    out = []
    for first in range(0, len(queries), ROWS):  # a block of rows at a time: a full matrix is len² floats
        scores = process.cdist(queries[first:first + ROWS], choices, scorer=fuzz.ratio, score_cutoff=threshold,
                               workers=-1)  # every core: the scores, so the pairs, do not depend on it
        for a, row in enumerate(scores, start=first):
            for b in row.nonzero()[0]:
                b = int(b)
                if b < len(new) and b <= a:
                    continue  # each pair within ``new`` once, and never a question with itself
                out.append({"a": new[a][0], "b": pool[b][0], "score": round(float(row[b]), 1)})
    return out


def describe(pairs: list[dict]) -> list[str]:
    return [f"near-duplicate questions {p['a']!r} and {p['b']!r} (similarity {p['score']} ≥ {THRESHOLD:g})"
            for p in pairs]
