"""A Python callable as a retriever: how a LangChain, LlamaIndex or home-made pipeline plugs in.

``fn(query, k)`` returns its ranking, best first, as chunk ids, ``(doc, start, end)`` ranges
or passage texts (``ChunkSet.resolve`` maps each to a chunk of the chunking being scored;
a passage its pipeline's loader rewrote is placed by the SPEC §10.1 tiers, in rank order),
so an adapter is one line over the pipeline's own retriever. The ranking is kept as given:
ranks become descending scores, and a chunk returned twice counts at its first rank only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from labeller.core.corpus import Corpus
from labeller.core.passages import PassageLocator
from labeller.errors import InvalidInput
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit


class FunctionRetriever:
    name = "function"

    def __init__(self, fn: Callable[[str, int], Sequence[object]], chunks: ChunkSet, corpus: Corpus) -> None:
        self.fn = fn
        self.chunks = chunks
        self.corpus = corpus
        self._locator = PassageLocator(corpus)  # keeps what it renders and reads across queries

    def describe(self) -> dict:
        fn = self.fn
        label = getattr(fn, "name", None) or getattr(fn, "__qualname__", None) or type(fn).__qualname__
        return {"name": self.name, "callable": str(label)}

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        results = self.fn(query, k)
        if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
            raise InvalidInput(f"query {query_id!r}: the retriever callable must return a list of results, got "
                               f"{type(results).__name__}")
        try:
            resolved = self.chunks.resolve(list(results), self.corpus, self._locator)
        except InvalidInput as exc:
            raise InvalidInput(f"query {query_id!r}, {exc.reason}") from None
        ranked = list(dict.fromkeys(resolved))[:k]
        return [Hit(cid, float(len(ranked) - rank)) for rank, cid in enumerate(ranked)]
