"""recursive-v1: the splitting rule of LangChain's ``RecursiveCharacterTextSplitter``.

The most common chunker in RAG pipelines, reproduced so that a team can ask what its
LangChain pipeline's chunking costs on its own golden set. Settings are LangChain's
defaults: separators ``["\\n\\n", "\\n", " ", ""]``, ``len`` (code points) as the length,
``keep_separator=True`` (a separator starts the piece after it), ``strip_whitespace=True``;
``size`` is ``chunk_size``, ``overlap`` is ``chunk_overlap``. The text split is the
document's body (the canonical text after YAML front matter, see ``slices``).

The rule, as LangChain applies it to a text:

1. **Pick a separator**: the first of the list that occurs in the text (``""`` always does);
   the separators after it are the ones a too-long piece may still be split with.
2. **Cut** the text before each non-overlapping occurrence of the separator, scanning left
   to right (``""``: between every two code points); empty pieces are dropped. The pieces
   are contiguous and cover the text.
3. **Merge** runs of consecutive pieces shorter than ``size``: add pieces while the run's
   length stays within ``size``; when the next piece would pass it, emit the run, then drop
   pieces from the run's front while its length exceeds ``overlap`` or the next piece still
   would not fit, and go on. A piece of ``size`` or more ends the run before it and is split
   recursively with the remaining separators (or, with none left, emitted as it is).
4. Every emitted chunk is stripped of leading and trailing whitespace (``str.strip``), and
   a chunk left empty is dropped.

Here every piece is an ``(start, end)`` range of the document, so a chunk's offsets are
exact by construction: its run's first start and last end, moved inward past the stripped
whitespace. LangChain finds ``start_index`` afterwards with ``text.find(chunk, previous
start + previous length - overlap)``, which lands on an *earlier* copy of the chunk's text
when that text repeats inside the search window; there the two disagree on the offset
(never on the text), and labeller's is the true one. Two further divergences, both only
where LangChain emits something no chunk file can hold: a whitespace-only chunk (LangChain
emits one at ``size=1``, a single whitespace code point unstripped) is dropped, and a chunk
that repeats the previous chunk's exact range is emitted once (one range, one id).
"""

from __future__ import annotations

from collections.abc import Iterator

from labeller.core.chunkers.slices import SpanChunker, check_window

SEPARATORS = ("\n\n", "\n", " ", "")

Span = tuple[int, int]


class RecursiveV1(SpanChunker):
    name = version = "recursive-v1"

    def __init__(self, size: int = 1000, overlap: int = 200) -> None:
        check_window(size, overlap, "code points")
        self.settings = {"size": size, "overlap": overlap}

    def spans(self, text: str, start: int) -> list[Span]:
        return list(_split(text, start, len(text), SEPARATORS, self.settings["size"], self.settings["overlap"]))


def _pieces(text: str, lo: int, hi: int, sep: str) -> list[Span]:
    """Step 2: cut ``text[lo:hi]`` before each occurrence of ``sep`` (kept with the piece after it)."""
    if not sep:
        return [(i, i + 1) for i in range(lo, hi)]
    cuts = [lo]
    at = text.find(sep, lo, hi)
    while at != -1:
        cuts.append(at)
        at = text.find(sep, at + len(sep), hi)
    cuts.append(hi)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]


def _split(text: str, lo: int, hi: int, separators: tuple[str, ...], size: int, overlap: int) -> Iterator[Span]:
    for i, sep in enumerate(separators):  # step 1
        if not sep or text.find(sep, lo, hi) != -1:
            rest = separators[i + 1:] if sep else ()
            break
    else:
        sep, rest = separators[-1], ()
    short: list[Span] = []
    for a, b in _pieces(text, lo, hi, sep):
        if b - a < size:
            short.append((a, b))
            continue
        yield from _merge(text, short, size, overlap)
        short = []
        if rest:
            yield from _split(text, a, b, rest, size, overlap)
        else:
            yield a, b
    yield from _merge(text, short, size, overlap)


def _merge(text: str, pieces: list[Span], size: int, overlap: int) -> Iterator[Span]:
    """Step 3 over contiguous ``pieces``: the run is ``pieces[first:last]``, of length ``total``."""
    first = total = 0
    for last, (a, b) in enumerate(pieces):
        n = b - a
        if total + n > size and last > first:
            yield _stripped(text, pieces[first][0], pieces[last - 1][1])
            while total > overlap or (total + n > size and total > 0):
                total -= pieces[first][1] - pieces[first][0]
                first += 1
        total += n
    if first < len(pieces):
        yield _stripped(text, pieces[first][0], pieces[-1][1])


def _stripped(text: str, start: int, end: int) -> Span:
    """Step 4: the range moved inward past whitespace (empty when all of it is whitespace)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
