"""A toy retriever factory for tests/test_registries.py: every chunk, in reverse corpus order.

Registered as ``toys.toy_retriever:Reversed.for_project`` (a dotted module, an attribute path),
the way the shipped ``bm25`` and ``run`` are.
"""

from __future__ import annotations

from labeller.eval.retrievers import Hit


class Reversed:
    def __init__(self, ids: list[str]) -> None:
        self.ids = ids

    @classmethod
    def for_project(cls, project, chunks=None, **bm25_options) -> "Reversed":
        """``bm25_options`` (analyzer, progress): what the CLI hands the retriever standing in the
        ``bm25`` line (tests/test_registries.py puts this one there); a toy ignores them."""
        source = project.all_chunks if chunks is None else chunks.chunks
        return cls(list(dict.fromkeys(c.chunk_id for c in reversed(source))))

    def describe(self) -> dict:
        return {"name": "toy-reversed"}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return [Hit(cid, float(len(self.ids) - i)) for i, cid in enumerate(self.ids)][:k]
