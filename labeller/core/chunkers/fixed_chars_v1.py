"""fixed-chars-v1: windows of ``size`` code points, each ``size - overlap`` after the last.

The baseline every chunking study starts from: it knows nothing of Markdown, so whatever
the structure-aware rules gain over it is what structure is worth on this corpus.

The windows run over the document's body (the canonical text after YAML front matter, see
``slices``): the first starts at the body's start, each next one ``size - overlap`` code
points later, and the last is the first window that reaches the end of the text (it may be
shorter). Windows are kept exactly as cut (no trimming), so together they cover every
character of the body; a window of whitespace only is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator

from labeller.core.chunkers.slices import SpanChunker, check_window


class FixedCharsV1(SpanChunker):
    name = version = "fixed-chars-v1"

    def __init__(self, size: int = 1000, overlap: int = 200) -> None:
        check_window(size, overlap, "code points")
        self.settings = {"size": size, "overlap": overlap}

    def spans(self, text: str, start: int) -> Iterator[tuple[int, int]]:
        size, step, n = self.settings["size"], self.settings["size"] - self.settings["overlap"], len(text)
        while start < n:
            yield start, min(start + size, n)
            if start + size >= n:
                return
            start += step
