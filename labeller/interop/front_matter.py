"""A context passage that begins with its document's front matter, placed on the body after it.

A loader that reads raw Markdown (LangChain's ``TextLoader``, a plain ``open().read()``) puts
the YAML front matter into the first chunk of every file, so the generated set's first
context of each document starts with it. The body that follows is verbatim in the
document, the front matter is metadata and never a span (SPEC §2), so the front matter is
cut off before the context is placed — only when it is the front matter a corpus document
begins with (the one the set pins the context to, if it names one), never a lookalike.
"""

from __future__ import annotations

from labeller.core.anchors import fold_quote
from labeller.core.markdown import front_matter
from labeller.core.project import Project


class FrontMatterCut:
    """Cuts documents' front matter off the contexts of one import and counts the cuts."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.cut = 0
        self._blocks: dict[str, set[str]] | None = None  # folded front matter -> the documents it opens

    def body(self, context: str, doc: str | None = None) -> str:
        """``context`` without the front matter it opens with, if that is a corpus document's
        own (``doc``'s when given) and a body follows; else ``context`` unchanged."""
        if not context.lstrip().startswith("---"):
            return context
        text = context.lstrip()
        lines, _ = front_matter(text)
        if not lines:
            return context
        starts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]
        if lines >= len(starts):
            return context  # front matter and nothing after it: left for the placement to refuse
        block, rest = text[:starts[lines]], text[starts[lines]:]
        owners = self._front_matters().get(fold_quote(block), set())
        if not rest.strip() or not owners or (doc is not None and doc not in owners):
            return context
        self.cut += 1
        return rest.lstrip()

    def _front_matters(self) -> dict[str, set[str]]:
        if self._blocks is None:
            self._blocks = {}
            for d in self.project.corpus:
                if not d.text.startswith("---"):
                    continue
                lines, _ = front_matter(d.text)
                if lines:
                    end = d.line_starts[lines] if lines < len(d.line_starts) else len(d.text)
                    self._blocks.setdefault(fold_quote(d.text[:end]), set()).add(d.doc_id)
        return self._blocks

    def notes(self) -> list[str]:
        if not self.cut:
            return []
        return [f"{self.cut} context(s) began with their document's front matter: each was placed on the body that "
                "follows it (front matter is metadata, never a span)"]
