"""words-v1: windows of ``size`` words, each ``size - overlap`` words after the last.

A token budget without a model tokenizer (nothing may download at run time): a word is a
maximal run of non-whitespace code points, the regex ``\\S+`` (Python's Unicode ``\\s``, the
same characters ``str.isspace`` calls whitespace), found in the body after YAML front
matter. A window runs from its first word's start to its last word's end, so it never
starts or ends in whitespace and every non-whitespace character of the body lies in some
window. The last window is the first that reaches the last word (it may hold fewer
words). Text without spaces (CJK prose) is one word per run, as any whitespace tokenizer
sees it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from labeller.core.chunkers.slices import SpanChunker, check_window

WORD = re.compile(r"\S+")


class WordsV1(SpanChunker):
    name = version = "words-v1"

    def __init__(self, size: int = 200, overlap: int = 40) -> None:
        check_window(size, overlap, "words")
        self.settings = {"size": size, "overlap": overlap}

    def spans(self, text: str, start: int) -> Iterator[tuple[int, int]]:
        words = [m.span() for m in WORD.finditer(text, start)]
        size, step = self.settings["size"], self.settings["size"] - self.settings["overlap"]
        for first in range(0, len(words), step):
            last = min(first + size, len(words)) - 1
            yield words[first][0], words[last][1]
            if last == len(words) - 1:
                return
