"""A context passage that begins with its document's front matter, placed on the body after it.

A loader that reads raw Markdown (LangChain's ``TextLoader``, a plain ``open().read()``) puts
the YAML front matter into the first chunk of every file, so the generated set's first
context of each document starts with it. The body that follows is verbatim in the
document, the front matter is metadata and never a span (SPEC §2), so the front matter is
cut off before the context is placed — only when it is the front matter a corpus document
begins with (the one the set pins the context to, if it names one), never a lookalike.

A loader that renders Markdown to plain text writes the same front matter without its
``---`` delimiters, as ``key: value`` lines before the body: those lines are cut the same
way when they are, line by line, a corpus document's front matter content. Lines are
compared by their words (Unicode ``\\w+`` runs, case-folded; lines without words aside, as
blank ones), because a rendering loader also renders the YAML: ``tags: [a, b-c]`` comes out
as ``tags: a, b-c``. Every content line must match, in order, so a lookalike is not cut.
"""

from __future__ import annotations

import re

from labeller.core.anchors import fold_quote
from labeller.core.markdown import front_matter
from labeller.core.project import Project


class FrontMatterCut:
    """Cuts documents' front matter off the contexts of one import and counts the cuts."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.cut = 0
        self._blocks: dict[str, set[str]] | None = None  # folded front matter -> the documents it opens
        # the words of a front matter's first content line -> (each content line's words; the documents)
        self._rendered: dict[tuple[str, ...], list[tuple[tuple[tuple[str, ...], ...], set[str]]]] = {}

    def body(self, context: str, doc: str | None = None) -> str:
        """``context`` without the front matter it opens with, if that is a corpus document's
        own (``doc``'s when given) and a body follows; else ``context`` unchanged."""
        if not context.lstrip().startswith("---"):
            return self._rendered_body(context, doc)
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

    def _rendered_body(self, context: str, doc: str | None) -> str:
        """``context`` without the ``key: value`` lines a rendering loader made of a corpus
        document's front matter (``doc``'s when given), if a body follows them."""
        lines = context.split("\n")
        first = next((i for i, line in enumerate(lines) if _words(line)), None)
        if first is None:
            return context
        self._front_matters()
        for block, owners in self._rendered.get(_words(lines[first]), ()):
            if doc is not None and doc not in owners:
                continue
            i, k = first, 0
            while i < len(lines) and k < len(block):
                if words := _words(lines[i]):
                    if words != block[k]:
                        break
                    k += 1
                i += 1
            rest = "\n".join(lines[i:])
            if k == len(block) and rest.strip():
                self.cut += 1
                return rest.lstrip()
        return context

    def _front_matters(self) -> dict[str, set[str]]:
        if self._blocks is None:
            self._blocks = {}
            rendered: dict[tuple[tuple[str, ...], ...], set[str]] = {}
            for d in self.project.corpus:
                if not d.text.startswith("---"):
                    continue
                lines, _ = front_matter(d.text)
                if lines:
                    end = d.line_starts[lines] if lines < len(d.line_starts) else len(d.text)
                    self._blocks.setdefault(fold_quote(d.text[:end]), set()).add(d.doc_id)
                    inner = tuple(w for line in d.text[:end].split("\n")[1:lines - 1] if (w := _words(line)))
                    if inner:
                        rendered.setdefault(inner, set()).add(d.doc_id)
            for block, owners in sorted(rendered.items()):
                self._rendered.setdefault(block[0], []).append((block, owners))
        return self._blocks

    def notes(self) -> list[str]:
        if not self.cut:
            return []
        return [f"{self.cut} context(s) began with their document's front matter: each was placed on the body that "
                "follows it (front matter is metadata, never a span)"]


def _words(line: str) -> tuple[str, ...]:
    """A line's words as a rendering loader keeps them (its YAML brackets and quotes gone)."""
    return tuple(re.findall(r"\w+", line.casefold()))
