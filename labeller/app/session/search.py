"""The corpus search of the editor: the eval's own retriever, so search finds what eval retrieves."""

from __future__ import annotations

from typing import Protocol

from labeller.core.project import Project


class Searcher(Protocol):
    """Ranks chunks for a query; returns hits with ``.chunk`` and ``.score``, best first."""

    def __call__(self, query: str, k: int) -> list: ...


def default_searcher(project: Project) -> Searcher:
    """The eval's BM25 index over the chunks, so what an author finds in the search box is
    what ``labeller eval`` retrieves (same index, same analysis)."""
    from labeller.eval.retrievers import bm25

    bm25.BM25Retriever.for_project(project)  # load the cached index (or build it) now, not on first search
    return lambda query, k: bm25.search(project, query, k)
