"""Foreign labels as locators: the only conversions an import may make, each exact or refused.

Foreign formats label documents, sections or chunk ids; labeller labels spans.

- a section ``{path, heading}`` is a section locator;
- a chunk id of this corpus is an ``exact`` quote of that chunk's whole text, so the span lies
  in that chunk and in no other;
- a whole document ``{path}`` is the document locator ``{doc}`` (SPEC §2.1): the document
  from after its front matter to its end, whatever its headings.

Exports of document- and section-level formats use the reverse mapping
(``LabelMapper.document_labels``), so a round trip lands on the same places.
"""

from __future__ import annotations

from labeller.core.build import RecordResult
from labeller.core.expansion import document_span
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.resolve import Span
from labeller.interop.records import Candidate, KeptOut, Target


class LabelMapper:
    """Converts foreign labels to locators for one project, caching per document."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._chunks: dict[str, list] | None = None

    def answer_text(self, doc_id: str, start: int, end: int) -> tuple[int, int] | None:
        """The non-blank extent of a chunk outside YAML front matter (a chunker need not
        know front matter, so a chunk can start inside it), or None if nothing is left."""
        doc = self.project.corpus[doc_id]
        fm_lines = self.project.resolver.blocks(doc_id).front_matter_lines
        starts = doc.line_starts
        lo = max(start, starts[fm_lines] if fm_lines < len(starts) else len(doc.text))
        piece = doc.text[lo:end]
        if not piece.strip():
            return None
        return lo + len(piece) - len(piece.lstrip()), lo + len(piece.rstrip())

    def _chunk_index(self) -> dict[str, list]:
        if self._chunks is None:
            self._chunks = {}
            for c in self.project.all_chunks:
                self._chunks.setdefault(c.chunk_id, []).append(c)
        return self._chunks

    def is_chunk_id(self, ident: str) -> bool:
        return ident in self._chunk_index()

    def chunk_locator(self, chunk_id: str) -> Locator | KeptOut | None:
        """The exact quote of a chunk's text, or None if ``chunk_id`` is no chunk of this corpus."""
        found = self._chunk_index().get(chunk_id)
        if not found:
            return None
        if len(found) > 1:
            return KeptOut("", "", "duplicate_chunk_id",
                           f"chunk id {chunk_id[:12]}… names {len(found)} chunks of {found[0].doc_id} with "
                           "identical text; one span cannot name them apart")
        c = found[0]
        extent = self.answer_text(c.doc_id, c.start, c.end)
        if extent is None:
            return KeptOut("", "", "front_matter", f"chunk {chunk_id[:12]}… of {c.doc_id} holds only front matter, "
                           "which is metadata, not answer text")
        return Locator(doc=c.doc_id, quote=self.project.corpus[c.doc_id].text[extent[0]:extent[1]], exact=True)

    def locator(self, target: Target, cand: Candidate) -> Locator | KeptOut:
        corpus = self.project.corpus
        if target.kind == "locator" and target.locator is not None:  # a locator target always carries one
            return target.locator
        if target.kind == "corpus_id" and target.ident is not None:
            found = self.chunk_locator(target.ident)
            if isinstance(found, KeptOut):
                return KeptOut(cand.id, cand.where, found.kind, found.message)
            if found is not None:
                if target.ident in corpus:
                    return KeptOut(cand.id, cand.where, "ambiguous_id",
                                   f"{target.ident!r} is both a chunk id and a document path")
                return found
            if target.ident not in corpus:
                cfg = self.project.config
                return KeptOut(cand.id, cand.where, "unknown_id",
                               f"{target.ident!r} is neither a chunk id of this corpus ({cfg.chunker}, max_chars "
                               f"{cfg.max_chars}) nor a document path in it")
            target = Target("document", doc=target.ident)
        if target.doc not in corpus:
            return KeptOut(cand.id, cand.where, "unknown_doc", f"document {target.doc!r} is not in the corpus")
        if target.kind == "section":
            return Locator(doc=target.doc, heading=target.heading)
        return Locator(doc=target.doc)

    def document_labels(self, rec: RecordResult) -> list[tuple[str, str | None]]:
        """A built record as ``(doc, heading or None)`` labels, for document/section formats.

        A section locator keeps its heading, unless its section is the whole document (then it
        is the document); any other span widens to its document. One document label absorbs
        the section labels of the same document, since it already holds them.
        """
        per_doc: dict[str, list[str | None]] = {}
        for loc, span in zip(rec.question.locators, rec.spans):
            heading = None
            if loc.heading is not None:
                whole = document_span(self.project.corpus[span.doc_id])
                heading = None if (span.start, span.end) == whole else loc.heading.strip()
            per_doc.setdefault(span.doc_id, []).append(heading)
        out: list[tuple[str, str | None]] = []
        for doc, headings in per_doc.items():
            if None in headings:
                out.append((doc, None))
            else:
                out.extend((doc, h) for h in dict.fromkeys(headings))
        return out
