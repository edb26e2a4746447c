"""A toy chunker for tests/test_core_seams.py: one chunk per non-blank line.

It exists to show that a chunker is one module plus one registration line (there:
``toys.toy_chunker:ToyLines``, a dotted module imported as it is), and to give
the resolver's heading_only / ChunkerBug distinction a chunker other than md-struct-v1.
Lines starting with ``skip`` go into no chunk; with ``declare`` they are also reported by
``unchunked_lines`` (the author's to fix), without it they are an undeclared gap (a bug).
"""

from __future__ import annotations

import hashlib

from labeller.core.chunkers import ChunkRow, unpack_chunks


class ToyLines:
    name = "toy-lines-v1"
    version = "toy-lines-v1"

    def __init__(self, skip: str = "", declare: bool = True) -> None:
        self.skip = skip
        self.declare = declare

    @property
    def settings(self) -> dict:
        return {"skip": self.skip, "declare": self.declare}

    def _lines(self, doc):
        pos = 0
        for raw in doc.text.splitlines(keepends=True):
            yield pos, pos + len(raw), raw
            pos += len(raw)

    def _skipped(self, raw: str) -> bool:
        return bool(self.skip) and raw.startswith(self.skip)

    def rows(self, doc) -> list[ChunkRow]:
        out = []
        for start, end, raw in self._lines(doc):
            if raw.strip() and not self._skipped(raw):
                cid = hashlib.sha256(f"{doc.doc_id}\0{self.version}\0{raw}".encode()).hexdigest()
                out.append((cid, len(out), start, end, doc.doc_id, "", doc.doc_id))
        return out

    def chunk(self, doc):
        return unpack_chunks(doc, self.rows(doc))

    def unchunked_lines(self, doc) -> list[tuple[int, int]]:
        return [(s, e) for s, e, raw in self._lines(doc)
                if not raw.strip() or (self.declare and self._skipped(raw))]


class Knobs(ToyLines):
    """ToyLines with one parameter of every type a spec can carry, for the parsing tests."""

    name = "knobs-v1"
    version = "knobs-v1"

    def __init__(self, size: int = 10, ratio: float = 0.5, strict: bool = False, label: str = "x") -> None:
        super().__init__()
        self.size, self.ratio, self.strict, self.label = size, ratio, strict, label

    @property
    def settings(self) -> dict:
        return {"size": self.size, "ratio": self.ratio, "strict": self.strict, "label": self.label}
