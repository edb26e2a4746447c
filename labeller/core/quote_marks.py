"""A quote not found only because its quote marks differ from the text's (``'`` typed where
the document has ``’``, or ``"`` for ``“ ”``): said in words, never resolved.

A golden label must point at text someone chose, so labeller does not treat ``'`` and ``’``
as equal: the quote stays not found. But the difference is invisible in most fonts and
the nearest-passage suggestions only say "close", so the refusal names the characters: the
author copies the text's marks (issue 27).
"""

from __future__ import annotations

import re

from labeller.core.anchors import fold_quote
from labeller.core.resolve import Resolver

# Apostrophes and single quotation marks. Not the backtick: in Markdown it opens and closes a
# code span, so a quote holding `App` has backticks the text has too, and rewriting them as ' or
# ’ made every variant miss (issue 35: the hint never fired for a quote with a code span).
SINGLE = "'‘’‚‛′ʼ"
DOUBLE = '"“”„‟″«»'  # double quotation marks
_MARK = re.compile(f"[{re.escape(SINGLE + DOUBLE)}]")


def _variants(quote: str) -> list[str]:
    """The quote with every mark written each of the usual ways: straight; typographic (an
    apostrophe or closing ’, an opening ‘ after a space or at the start, “ ” by position)."""
    def typographic(m: re.Match) -> str:
        opening = m.start() == 0 or quote[m.start() - 1].isspace()
        if m.group() in SINGLE:
            return "‘" if opening else "’"
        return "“" if opening else "”"

    straight = _MARK.sub(lambda m: "'" if m.group() in SINGLE else '"', quote)
    curly = _MARK.sub(typographic, quote)
    closing = _MARK.sub(lambda m: "’" if m.group() in SINGLE else "”", quote)
    return sorted({straight, curly, closing} - {quote})


def _name(ch: str) -> str:
    return f"{ch} (U+{ord(ch):04X})"


def quote_mark_hint(resolver: Resolver, quote: str, doc: str | None) -> str | None:
    """``None``, or, when the quote occurs with other quote marks, which marks differ: "the
    text has ’ (U+2019) where the quote has ' (U+0027)". One search for a few variants, made
    only for a refused quote that holds a mark."""
    folded = fold_quote(quote)
    if not _MARK.search(folded):
        return None
    variants = _variants(folded)
    found = resolver.index.find_all(variants, doc)
    for variant in variants:
        if found[variant].total:
            pairs = sorted({(q, t) for q, t in zip(folded, variant) if q != t})
            diff = ", ".join(f"{_name(t)} where the quote has {_name(q)}" for q, t in pairs)
            return f"only its quote marks differ from the text: the text has {diff}; copy the text's marks"
    return None
