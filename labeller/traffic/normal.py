"""Normalising a logged query, and the fold key that makes near-duplicates one query.

Users ask the same thing many ways ("How do I reset my password?", "how to reset password",
"reset password??"). Counted apart, each looks rare and the head of the traffic looks like
its tail. Folding must be decided one line at a time (a log of millions of lines cannot be
compared pair by pair), so a near-duplicate is defined by a key, not a similarity: case and
punctuation dropped, apostrophes closed up ("what's" is "whats"), function words dropped, a
plural ``s`` dropped, and the remaining words as a sorted set. Queries with the same key are
one folded query whose frequency is the sum of theirs. The key is what the golden set's
queries are compared by too (a golden query's near-duplicates are not sampled again).

Word order is lost on purpose ("reset password" and "password reset" are one); a key with no
content word left (the query was all function words) is the normalised text itself, so
"how to" and "what is" stay apart.
"""

from __future__ import annotations

import re
import unicodedata

# English function words: what varies between phrasings of one question, not its subject.
STOP_WORDS = frozenset("""a about am an and any are as at be been being but by can could did do does doing for from
had has have how hows i if in into is it its let lets me my of on or our please should so some than that thats the
their them then there these they this those to us was we were what whats when whens where wheres which while who whos
why whys will with would you your""".split())
_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    """NFC, whitespace runs as one space, trimmed: the text a queue item shows."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def fold_key(text: str) -> str:
    """The near-duplicate key of a normalised query (see the module docstring)."""
    lowered = normalise(text).casefold().replace("'", "").replace("\u2019", "")
    words = _WORD.findall(lowered)
    content = {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
               for w in words if w not in STOP_WORDS}
    return " ".join(sorted(content)) if content else " ".join(words) or lowered
