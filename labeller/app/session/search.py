"""The corpus search of the editor: the eval's own retriever, so search finds what eval retrieves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from labeller.core.chunkers import Chunk
from labeller.core.project import Project

# what ``labeller eval`` runs when no retriever is named (runner.run_eval)
SEARCH_RETRIEVER = "bm25"


@dataclass(frozen=True)
class SearchHit:
    rank: int
    score: float
    chunk: Chunk


class Searcher(Protocol):
    """Ranks chunks for a query; returns hits with ``.chunk`` and ``.score``, best first."""

    def __call__(self, query: str, k: int) -> list[SearchHit]: ...


def default_searcher(project: Project) -> Searcher:
    """The eval's default retriever, reached through the retriever registry, so what an
    author finds in the search box is what ``labeller eval`` retrieves (same index, same
    analysis). Making it loads the cached index (or builds it) now, not on first search."""
    from labeller.eval.retrievers import make_retriever, top_k  # BM25: whoosh and numpy, in a worker

    retriever = make_retriever(SEARCH_RETRIEVER, project)
    first: dict[str, Chunk] = {}
    for c in project.all_chunks:
        first.setdefault(c.chunk_id, c)

    def search(query: str, k: int) -> list[SearchHit]:
        hits = top_k(retriever.retrieve("search", query, k), k)
        return [SearchHit(i, h.score, first[h.chunk_id]) for i, h in enumerate(hits, 1) if h.chunk_id in first]

    return search
